"""Scripted analysis in-process: ``analyse(board, depth=...)`` and the reusable ``Analyser``.

The documented import is ``from pruner.engine.analysis import analyse, Analyser``. Results are
typed (``Analysis`` holding one ``Line`` per MultiPV line) and scores are python-chess
``chess.engine.PovScore`` objects, so they read from either side (``.white()``,
``.relative`` = the side to move) and go straight into ``GameNode.set_eval``. Each line also
carries its win/draw/loss chances (``Line.wdl``, a python-chess ``PovWdl`` in per mille, from
the model of ``pruner.engine.wdl``, as ``UCI_ShowWDL`` shows them).

Determinism: ``analyse()`` searches on a fresh ``Searcher`` every call, so the same position
at the same depth (or node limit) always gives the same moves, scores and node count. An
``Analyser`` keeps its transposition table between calls (that is what makes analysing the
positions of one game in order fast), so its results depend on what it searched before;
``new_game()`` forgets everything and makes it equal to a fresh one again.
"""

import threading
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, Optional, Union

import chess
import chess.engine

from pruner.engine.position import describe_status, unplayable
from pruner.engine.search import SearchParams, Searcher
from pruner.engine.types import Limits, SearchInfo, SearchResult, mate_in_moves, shown_cp
from pruner.engine.wdl import material, wdl_of_score

DEFAULT_DEPTH = 7
"""Depth used when no limit is given: about 1 s per middlegame position on CPython 3.11
(0.96 s mean over the 24 Bratko-Kopec positions on the reference machine; depth 6: 0.38 s)."""

MoveLike = Union[chess.Move, str]


def pov_score(score: int, turn: chess.Color) -> chess.engine.PovScore:
    """The engine's mate-encoded score (from the side to move ``turn``) as a python-chess PovScore
    (a tablebase win ``d`` half-moves away reads ``Cp(20000 - d)``, as GUIs are shown it)."""
    mate = mate_in_moves(score)
    if mate is None:
        return chess.engine.PovScore(chess.engine.Cp(shown_cp(score)), turn)
    if mate == 0:  # only at a mated root, which the search never reports; kept for completeness
        return chess.engine.PovScore(chess.engine.Mate(0) if score < 0 else chess.engine.MateGiven, turn)
    return chess.engine.PovScore(chess.engine.Mate(mate), turn)


def pov_wdl(score: int, board: chess.Board) -> chess.engine.PovWdl:
    """The win/draw/loss chances per mille of the engine's ``score`` (from the side to move of
    ``board``) as a python-chess PovWdl: ``pruner.engine.wdl``'s model at the material of ``board``."""
    wins, draws, losses = wdl_of_score(score, material(board))
    return chess.engine.PovWdl(chess.engine.Wdl(wins, draws, losses), board.turn)


def san_line(board: chess.Board, moves: Iterable[chess.Move]) -> List[str]:
    """SAN of ``moves`` played in order from ``board`` (not modified)."""
    work = board.copy(stack=False)
    sans = []
    for move in moves:
        sans.append(work.san(move))
        work.push(move)
    return sans


@dataclass
class Line:
    """One principal variation of a search (one per MultiPV rank)."""

    multipv: int
    """Rank of the line, 1 = best."""
    pv: List[chess.Move]
    """The variation, legal from the analysed position."""
    pv_san: List[str]
    """The same moves in SAN."""
    score: chess.engine.PovScore
    """Score of the line: ``score.relative`` from the side to move, ``score.white()`` from White."""
    depth: int
    """Nominal depth of the iteration that found the line, in plies."""
    seldepth: int
    """Deepest ply reached, quiescence included."""
    nodes: int
    """Nodes searched when the line was reported."""
    time_ms: int
    """Milliseconds since the search started when the line was reported."""
    bound: str = "exact"
    """``exact``, or ``lower``/``upper`` for an aspiration-window fail high/low."""
    wdl: Optional[chess.engine.PovWdl] = None
    """Win/draw/loss chances per mille of the line's score (``wdl.relative`` for the side to
    move, ``wdl.white()`` for White; ``.wins``, ``.draws``, ``.losses`` sum to 1000): a mate or
    a tablebase win is certain, other scores go through the model of ``pruner.engine.wdl`` (fitted to
    Pruner's own games) at the material of the analysed position."""

    @property
    def move(self) -> Optional[chess.Move]:
        """First move of the line."""
        return self.pv[0] if self.pv else None

    @property
    def cp(self) -> Optional[int]:
        """Centipawns from the side to move, or None for a mate score."""
        return self.score.relative.score()

    @property
    def mate(self) -> Optional[int]:
        """Mate in N moves from the side to move (negative: being mated), or None."""
        return self.score.relative.mate()

    @property
    def white_cp(self) -> Optional[int]:
        """Centipawns from White's view, or None for a mate score."""
        return self.score.white().score()

    @property
    def white_mate(self) -> Optional[int]:
        """Mate in N moves from White's view (negative: White is mated), or None."""
        return self.score.white().mate()


@dataclass
class Analysis:
    """The result of analysing one position."""

    fen: str
    """The analysed position (Chess960: with Shredder-FEN castling rights such as ``HAha``)."""
    turn: chess.Color
    """Side to move in it."""
    best_move: Optional[chess.Move]
    """Best move; None only when there is no legal move (see ``outcome``)."""
    best_san: Optional[str]
    """The best move in SAN."""
    ponder_move: Optional[chess.Move]
    """Expected reply to the best move, if known."""
    score: Optional[chess.engine.PovScore]
    """Score of the best line (``.relative`` from the mover, ``.white()`` from White).
    On a position without legal moves: mated (``Mate(0)`` for the mover) or 0 (stalemate).
    None only when a time or node limit stopped the search before depth 1 completed."""
    lines: List[Line] = field(default_factory=list)
    """MultiPV lines of the last completed iteration, best first (empty without legal moves)."""
    nodes: int = 0
    """Total nodes searched."""
    time_ms: int = 0
    """Total milliseconds spent."""
    outcome: Optional[chess.Outcome] = None
    """Set when the position has no legal move (checkmate or stalemate); nothing is searched."""

    @property
    def pv(self) -> List[chess.Move]:
        """Principal variation of the best line."""
        return self.lines[0].pv if self.lines else []

    @property
    def pv_san(self) -> List[str]:
        """Principal variation of the best line in SAN."""
        return self.lines[0].pv_san if self.lines else []

    @property
    def depth(self) -> int:
        """Depth of the last completed iteration (0 if none)."""
        return self.lines[0].depth if self.lines else 0

    @property
    def seldepth(self) -> int:
        """Selective depth of the best line (0 if none)."""
        return self.lines[0].seldepth if self.lines else 0

    @property
    def cp(self) -> Optional[int]:
        """Centipawns from the side to move, or None (mate score or no score)."""
        return self.score.relative.score() if self.score is not None else None

    @property
    def mate(self) -> Optional[int]:
        """Mate in N moves from the side to move (negative: being mated; 0: checkmated), or None."""
        return self.score.relative.mate() if self.score is not None else None

    @property
    def white_cp(self) -> Optional[int]:
        """Centipawns from White's view, or None."""
        return self.score.white().score() if self.score is not None else None

    @property
    def white_mate(self) -> Optional[int]:
        """Mate in N moves from White's view (negative: White gets mated; 0: checkmate on the board), or None."""
        return self.score.white().mate() if self.score is not None else None

    @property
    def wdl(self) -> Optional[chess.engine.PovWdl]:
        """Win/draw/loss chances per mille of the best line (``Line.wdl``); on a position without
        legal moves the result itself (checkmated: 0/0/1000 for the mover, stalemate: 0/1000/0);
        None when no iteration completed."""
        if self.lines:
            return self.lines[0].wdl
        if self.outcome is not None:
            mated = self.outcome.termination == chess.Termination.CHECKMATE
            return chess.engine.PovWdl(chess.engine.Wdl(0, 0, 1000) if mated else chess.engine.Wdl(0, 1000, 0),
                                       self.turn)
        return None


def _line(board: chess.Board, info: SearchInfo) -> Line:
    return Line(multipv=info.multipv, pv=list(info.pv), pv_san=san_line(board, info.pv),
                score=pov_score(info.score, board.turn), depth=info.depth, seldepth=info.seldepth,
                nodes=info.nodes, time_ms=info.time_ms, bound=info.bound, wdl=pov_wdl(info.score, board))


def _limits(depth: Optional[int], nodes: Optional[int], time: Optional[float],
            searchmoves: Optional[List[chess.Move]]) -> Limits:
    for name, value in (("depth", depth), ("nodes", nodes), ("time", time)):
        if value is not None and value <= 0:
            raise ValueError("%s must be positive, got %r" % (name, value))
    if depth is None and nodes is None and time is None:
        depth = DEFAULT_DEPTH
    movetime = None if time is None else max(1, int(round(time * 1000)))
    return Limits(depth=depth, nodes=nodes, movetime=movetime, searchmoves=searchmoves)


def _searchmoves(board: chess.Board, moves: Optional[Iterable[MoveLike]]) -> Optional[List[chess.Move]]:
    if moves is None:
        return None
    parsed = []
    for move in moves:
        if isinstance(move, str):
            move = board.parse_uci(move)  # raises a ValueError when illegal; knows Chess960 castling
        elif not board.is_legal(move):
            raise ValueError("searchmoves: %s is not legal in %s" % (move.uci(), board.fen()))
        parsed.append(move)
    if not parsed:
        raise ValueError("searchmoves is empty")
    return parsed


class Analyser:
    """Analyses positions with one ``Searcher`` whose transposition table survives between calls.

    Analyse the positions of one game in order with one ``Analyser`` and each search starts
    from what the previous one learned; call ``new_game()`` before an unrelated position or
    game when results must not depend on what came before.
    """

    def __init__(self, hash_mb: int = 16, params: Optional[SearchParams] = None) -> None:
        self.searcher = Searcher(hash_mb, params)
        """The underlying searcher (its table, history and killers persist between calls)."""
        self.searcher.move_overhead_ms = 0  # no GUI or pipe between us and the clock

    def new_game(self) -> None:
        """Forget the transposition table, history and killers: results as from a fresh Analyser."""
        self.searcher.new_game()

    def analyse(self, board: chess.Board, depth: Optional[int] = None, nodes: Optional[int] = None,
                time: Optional[float] = None, multipv: int = 1,
                searchmoves: Optional[Iterable[MoveLike]] = None,
                on_info: Optional[Callable[[Line], None]] = None,
                stop: Optional[threading.Event] = None) -> Analysis:
        """Analyse ``board`` (never modified) and return the last completed iteration.

        Limits: ``depth`` in plies, ``nodes``, ``time`` in seconds; the first one reached
        stops the search; none given means ``depth=DEFAULT_DEPTH``. ``multipv`` lines are
        returned best first; ``searchmoves`` (Moves or UCI strings) restricts the root.
        ``on_info`` receives each ``Line`` as every iteration completes; setting ``stop``
        ends the search early (the last completed iteration is returned). The board's move
        stack is used for repetition detection. Raises ``ValueError`` for an invalid
        position, a non-positive limit or an illegal search move.
        """
        problem = unplayable(board)
        if problem:
            raise ValueError("invalid position %s: %s" % (board.fen(), problem))
        if multipv < 1:
            raise ValueError("multipv must be at least 1, got %r" % multipv)
        limits = _limits(depth, nodes, time, _searchmoves(board, searchmoves))
        fen = board.fen(shredder=board.chess960)  # Shredder-FEN castling (HAha) is unambiguous
        if not any(board.generate_legal_moves()):
            outcome = board.outcome()
            mated = outcome is not None and outcome.termination == chess.Termination.CHECKMATE
            score = chess.engine.PovScore(chess.engine.Mate(0) if mated else chess.engine.Cp(0), board.turn)
            return Analysis(fen, board.turn, None, None, None, score, outcome=outcome)

        callback = None
        if on_info is not None:
            def callback(info: SearchInfo) -> None:
                on_info(_line(board, info))

        result: SearchResult = self.searcher.search(board, limits, on_info=callback, stop=stop, multipv=multipv)
        if result.error is not None:  # a partial answer would pass for the full one: refuse it
            raise RuntimeError("search failed at depth %d in %s: %s" % (result.depth + 1, fen, result.error)) \
                from result.error
        lines = [_line(board, info) for info in result.lines]
        best = result.best_move
        return Analysis(fen=fen, turn=board.turn, best_move=best,
                        best_san=board.san(best) if best is not None else None,
                        ponder_move=result.ponder_move,
                        score=lines[0].score if lines else None,
                        lines=lines, nodes=result.nodes, time_ms=result.time_ms)


def analyse(board: chess.Board, depth: Optional[int] = None, nodes: Optional[int] = None,
            time: Optional[float] = None, multipv: int = 1,
            searchmoves: Optional[Iterable[MoveLike]] = None,
            on_info: Optional[Callable[[Line], None]] = None,
            stop: Optional[threading.Event] = None, hash_mb: int = 16) -> Analysis:
    """Analyse ``board`` on a fresh searcher: deterministic for a given depth or node limit.

    Arguments as ``Analyser.analyse``; ``hash_mb`` sizes the transposition table.
    """
    return Analyser(hash_mb).analyse(board, depth=depth, nodes=nodes, time=time, multipv=multipv,
                                     searchmoves=searchmoves, on_info=on_info, stop=stop)


__all__ = ["Analyser", "Analysis", "DEFAULT_DEPTH", "Line", "analyse", "describe_status", "pov_score", "pov_wdl"]
