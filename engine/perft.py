"""Perft: the number of leaf positions of the legal move tree to a depth (a move generator check).

Counted with python-chess's legal move generator (the one the engine's own generators are
tested against); the last ply is counted, not played ("bulk counting").

A count can be interrupted: with a ``stop`` event, every node above the last ply looks at it
and ``PerftStopped`` is raised once it is set (a partial count is never returned as a total).
"""

import threading
from typing import Iterator, Optional, Tuple

import chess


class PerftStopped(Exception):
    """The ``stop`` event was set before the count was complete."""


def perft(board: chess.Board, depth: int, stop: Optional[threading.Event] = None) -> int:
    """Leaf positions ``depth`` plies below ``board`` (left as it was; 1 for depth 0).
    Raises ``PerftStopped`` when ``stop`` is set before the count is done."""
    if depth <= 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    if stop is not None and stop.is_set():
        raise PerftStopped
    total = 0
    for move in board.legal_moves:
        board.push(move)
        try:
            total += perft(board, depth - 1, stop)
        finally:
            board.pop()
    return total


def perft_divide(board: chess.Board, depth: int, stop: Optional[threading.Event] = None
                 ) -> Iterator[Tuple[chess.Move, int]]:
    """``(move, leaves below it)`` for each legal move of ``board``, as each is counted:
    Stockfish's ``go perft`` split, for finding where two move generators differ. Raises
    ``PerftStopped`` when ``stop`` is set before the last move is counted."""
    work = board.copy()
    for move in list(work.legal_moves):
        work.push(move)
        count = perft(work, depth - 1, stop)
        work.pop()
        yield move, count
