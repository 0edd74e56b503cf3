"""Searcher: iterative deepening alpha-beta over python-chess boards (TEMPORARY STUB).

The stub keeps the public interface that protocol/ and the analysis API use; the real
search replaces its internals.
"""

import threading
import time
from typing import Callable, List, Optional

import chess

from engine.types import INF, Limits, SearchInfo, SearchResult

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}


class SearchAborted(Exception):
    pass


class Searcher:
    """Owns all search state (transposition table, history, counters)."""

    def __init__(self, hash_mb: int = 16) -> None:
        self.hash_mb = hash_mb
        self.move_overhead_ms = 10
        self._ponderhit_at: Optional[float] = None

    def new_game(self) -> None:
        """Forget everything learned from earlier searches."""

    def set_hash(self, mb: int) -> None:
        """Resize the transposition table to ``mb`` megabytes (clears it)."""
        self.hash_mb = mb

    def clear_hash(self) -> None:
        """Empty the transposition table."""

    def hashfull(self) -> int:
        """Transposition table fill in permille."""
        return 0

    def ponderhit(self) -> None:
        """The ponder move was played: from now on the clock limits of the running search apply."""
        self._ponderhit_at = time.monotonic()

    def search(self, board: chess.Board, limits: Limits,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               stop: Optional[threading.Event] = None, multipv: int = 1) -> SearchResult:
        board = board.copy()
        start = time.monotonic()
        moves = list(board.legal_moves)
        if limits.searchmoves:
            moves = [m for m in moves if m in limits.searchmoves] or moves
        if not moves:
            return SearchResult(None)
        best = moves[0]
        result = SearchResult(best, nodes=0)
        nodes = [0]

        def ab(depth, alpha, beta):
            nodes[0] += 1
            if stop is not None and stop.is_set():
                raise SearchAborted
            if depth == 0 or board.is_game_over():
                if board.is_checkmate():
                    return -30000
                if board.is_game_over():
                    return 0
                s = sum(VALUES[p.piece_type] * (1 if p.color == board.turn else -1) for p in board.piece_map().values())
                return s
            for m in board.legal_moves:
                board.push(m)
                v = -ab(depth - 1, -beta, -alpha)
                board.pop()
                if v >= beta:
                    return v
                alpha = max(alpha, v)
            return alpha

        max_depth = limits.depth or 3
        try:
            for depth in range(1, max_depth + 1):
                best_v, best_m = -INF, moves[0]
                for m in moves:
                    board.push(m)
                    v = -ab(depth - 1, -INF, -best_v)
                    board.pop()
                    if v > best_v:
                        best_v, best_m = v, m
                t = int((time.monotonic() - start) * 1000)
                info = SearchInfo(depth=depth, seldepth=depth, score=best_v, nodes=nodes[0], time_ms=t, pv=[best_m])
                result = SearchResult(best_m, None, [info], nodes[0], t)
                if on_info:
                    on_info(info)
        except SearchAborted:
            pass
        return result
