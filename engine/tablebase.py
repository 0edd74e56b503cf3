"""Syzygy endgame tablebases through python-chess: WDL inside the search, DTZ at the root.

WDL values are python-chess's: 2 win, 1 win spoiled by the fifty-move rule, 0 draw,
-1 loss saved by the fifty-move rule, -2 loss, from the side to move. Inside the search a
win scores ``TB_WIN - ply`` (below every mate score, above every evaluation); the
fifty-move-rule results score as draws.
"""

from typing import List, Optional, Tuple

import chess
import chess.syzygy

from engine.types import MATE_BOUND, MAX_PLY

TB_WIN = MATE_BOUND - MAX_PLY
"""Score of a tablebase win at the root (a longer path scores less)."""


def _popcount(bb: int) -> int:
    return bin(bb).count("1")


class Tablebases:
    """Probe wrapper around ``chess.syzygy.Tablebase`` (or any object with its probe methods)."""

    def __init__(self, tables, max_pieces: int) -> None:
        self.tables = tables
        self.max_pieces = max_pieces
        """Largest piece count (kings included) of the loaded tables."""

    @classmethod
    def open(cls, path: str) -> "Tablebases":
        """Load every table in the ``os.pathsep``-separated directories of ``path`` (``:`` on
        Unix, ``;`` on Windows); raises ``OSError`` or ``ValueError`` when nothing loads."""
        import os
        tables = chess.syzygy.Tablebase()
        loaded = 0
        for directory in filter(None, path.split(os.pathsep)):
            loaded += tables.add_directory(directory)
        names = list(tables.wdl)
        if not loaded or not names:
            raise ValueError(f"no Syzygy tables found in {path!r}")
        return cls(tables, max(len(name) - 1 for name in names))  # "KQvK" -> 3 pieces

    def close(self) -> None:
        """Release the table files (when the tables object has a ``close``)."""
        close = getattr(self.tables, "close", None)
        if close is not None:
            close()

    def covers(self, board: chess.Board) -> bool:
        """True when ``board`` is small enough and has no castling rights (tables have none)."""
        return _popcount(board.occupied) <= self.max_pieces and not board.castling_rights

    def wdl(self, board: chess.Board) -> Optional[int]:
        """WDL of ``board`` from the side to move, or None if a table is missing."""
        try:
            return self.tables.probe_wdl(board)
        except (KeyError, chess.syzygy.MissingTableError, IndexError, ValueError):
            return None

    def wdl_score(self, wdl: int, ply: int) -> int:
        """Search score of a WDL value found ``ply`` half-moves from the root."""
        if wdl >= 2:
            return TB_WIN - ply
        if wdl <= -2:
            return -TB_WIN + ply
        return 0

    def root_moves(self, board: chess.Board) -> Optional[List[Tuple[chess.Move, int, int]]]:
        """Every legal move ranked by (WDL, then DTZ) for the mover: best first.

        Returns ``(move, wdl, dtz)`` triples from the mover's view, or None if any probe fails.
        A win prefers the fastest zeroing path (smallest DTZ), a loss the slowest.
        """
        ranked = []
        for move in board.legal_moves:
            board.push(move)
            try:
                if board.is_checkmate():
                    wdl, dtz = 2, 1
                else:
                    wdl = -self.tables.probe_wdl(board)
                    dtz = -self.tables.probe_dtz(board)
            except (KeyError, chess.syzygy.MissingTableError, IndexError, ValueError):
                return None
            finally:
                board.pop()
            ranked.append((move, wdl, dtz))

        def order(item):
            _, wdl, dtz = item
            if wdl > 0:
                return (wdl, -abs(dtz))
            if wdl < 0:
                return (wdl, abs(dtz))
            return (0, 0)
        ranked.sort(key=order, reverse=True)
        return ranked
