"""An ``Analyser`` look-alike that searches with a UCI engine subprocess (``--engine CMD``).

``pruner analyse --cluster ... --engine "pypy3 -m protocol"`` lets each cluster worker drive
one long-lived engine process (PyPy Pruner searches several times faster than CPython) with
the same tasks and records as the in-process searcher: ``new_game()`` sends ``ucinewgame``
(the engine forgets its tables, like ``Analyser.new_game``), ``analyse()`` sends
``position``/``go`` and turns the final ``info`` lines into an ``engine.analysis.Analysis``.
With Pruner as the engine the records equal the in-process ones at a fixed depth or node
count (same search, same tables), apart from ``time_ms``.
"""

from typing import Dict, List, Optional

import chess
import chess.engine

from engine.analysis import Analysis, Line, san_line
from engine.position import unplayable

INFO = chess.engine.INFO_ALL


class UciAnalyser:
    """One UCI engine process with ``Analyser``'s ``analyse``/``new_game`` interface."""

    def __init__(self, command: List[str], hash_mb: int = 16, timeout: float = 30.0) -> None:
        self.command = list(command)
        self.engine = chess.engine.SimpleEngine.popen_uci(self.command, timeout=timeout)
        if "Hash" in self.engine.options:
            self.engine.configure({"Hash": hash_mb})
        self._game = 0

    @property
    def alive(self) -> bool:
        """False once the process has died (a new one is then started for the next task)."""
        return not self.engine.protocol.returncode.done()

    def new_game(self) -> None:
        """The next search sends ``ucinewgame`` first (python-chess does, on a new game key)."""
        self._game += 1

    def analyse(self, board: chess.Board, depth: Optional[int] = None, nodes: Optional[int] = None,
                time: Optional[float] = None, multipv: int = 1) -> Analysis:
        """Like ``Analyser.analyse``; positions without a legal move are answered here, unsearched."""
        problem = unplayable(board)
        if problem:
            raise ValueError("invalid position %s: %s" % (board.fen(), problem))
        fen = board.fen(shredder=board.chess960)
        if not any(board.generate_legal_moves()):
            outcome = board.outcome()
            mated = outcome is not None and outcome.termination == chess.Termination.CHECKMATE
            score = chess.engine.PovScore(chess.engine.Mate(0) if mated else chess.engine.Cp(0), board.turn)
            return Analysis(fen, board.turn, None, None, None, score, outcome=outcome)
        limit = chess.engine.Limit(depth=depth, nodes=nodes, time=time)
        infos = self.engine.analyse(board, limit, multipv=multipv, game=("pruner analyse", self._game), info=INFO)
        lines = [self._line(board, info) for info in infos if info.get("pv")]
        best = lines[0].pv[0] if lines else None
        return Analysis(fen=fen, turn=board.turn, best_move=best,
                        best_san=board.san(best) if best is not None else None,
                        ponder_move=lines[0].pv[1] if lines and len(lines[0].pv) > 1 else None,
                        score=lines[0].score if lines else None, lines=lines,
                        nodes=max((int(info.get("nodes", 0)) for info in infos), default=0),
                        time_ms=max((int(round(info.get("time", 0.0) * 1000)) for info in infos), default=0))

    @staticmethod
    def _line(board: chess.Board, info: Dict) -> Line:
        pv = list(info["pv"])
        bound = "lower" if info.get("lowerbound") else "upper" if info.get("upperbound") else "exact"
        return Line(multipv=int(info.get("multipv", 1)), pv=pv, pv_san=san_line(board, pv),
                    score=info["score"], depth=int(info.get("depth", 0)), seldepth=int(info.get("seldepth", 0)),
                    nodes=int(info.get("nodes", 0)), time_ms=int(round(info.get("time", 0.0) * 1000)), bound=bound)

    def close(self) -> None:
        """Quit the engine (kill it if it does not quit)."""
        try:
            self.engine.quit()
        except Exception:  # noqa: BLE001 - already gone
            try:
                self.engine.close()
            except Exception:  # noqa: BLE001
                pass
