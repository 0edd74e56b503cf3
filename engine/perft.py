"""Perft: the number of leaf positions of the legal move tree to a depth (a move generator check).

Counted with python-chess's legal move generator (the one the engine's own generators are
tested against); the last ply is counted, not played ("bulk counting").
"""

from typing import List, Tuple

import chess


def perft(board: chess.Board, depth: int) -> int:
    """Leaf positions ``depth`` plies below ``board`` (not modified; 1 for depth 0)."""
    if depth <= 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def perft_divide(board: chess.Board, depth: int) -> List[Tuple[chess.Move, int]]:
    """``(move, leaves below it)`` for every legal move of ``board``: Stockfish's ``go perft``
    split, for finding where two move generators differ."""
    work = board.copy()
    split = []
    for move in list(work.legal_moves):
        work.push(move)
        split.append((move, perft(work, depth - 1)))
        work.pop()
    return split
