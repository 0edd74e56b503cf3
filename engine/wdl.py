"""Win/draw/loss model: the chances, per mille, that a score means a win, a draw or a loss.

Fitted to Pruner's own self-play games (``scripts/wdl_fit.py``; the data, the fit and its
quality are in docs/wdl.md), in Stockfish's form: the side to move wins with probability

    1 / (1 + exp((a - cp) / b))

where ``a`` (the score at which a win is as likely as not) and ``b`` (how fast the chances
change with the score) depend on the material left on the board; a loss is the same curve at
``-cp`` and a draw is the rest. ``a`` and ``b`` are polynomials in ``m = material / 58``
(material counted as pawn 1, knight and bishop 3, rook 5, queen 9; 78 at the start), with
the coefficients below, highest power first (as Stockfish writes ``as`` and ``bs``).
"""

import math
from typing import Sequence, Tuple

import chess

from pruner.engine.types import TB_BOUND

# The fit: 182 self-play games at 10,000 nodes a move, 16,613 positions (docs/wdl.md); degree 1
# chosen by cross-validation over games (degrees 2 and 3 predicted no better).
A_COEFFS = (-106.573, 174.989)
"""``a(m)``, highest power first: centipawns at which the side to move wins half its games."""
B_COEFFS = (6.513, 95.788)
"""``b(m)``, highest power first: the spread of the curve in centipawns."""
MATERIAL_MIN = 17
"""Material is clamped into [MATERIAL_MIN, MATERIAL_MAX], as Stockfish clamps it (in the fit
too: an ending with less material counts as 17)."""
MATERIAL_MAX = 78
MATERIAL_SCALE = 58.0
"""``m = material / MATERIAL_SCALE``, as Stockfish normalises it."""

CP_LIMIT = 4000
"""Scores beyond this are taken as this (Stockfish does the same): no overflow, a sure result."""

_MATERIAL_VALUE = (0, 1, 3, 3, 5, 9, 0)
"""Material count per python-chess piece type (index 0 unused)."""


def material(board: chess.Board) -> int:
    """Pawns + 3 x (knights + bishops) + 5 x rooks + 9 x queens, both sides (78 at the start)."""
    count = 0
    for piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        count += _MATERIAL_VALUE[piece_type] * chess.popcount(board.pieces_mask(piece_type, chess.WHITE)
                                                               | board.pieces_mask(piece_type, chess.BLACK))
    return count


def _poly(coeffs: Sequence[float], x: float) -> float:
    value = 0.0
    for coeff in coeffs:
        value = value * x + coeff
    return value


def parameters(material_count: int, a_coeffs: Sequence[float] = A_COEFFS,
               b_coeffs: Sequence[float] = B_COEFFS) -> Tuple[float, float]:
    """The model's ``(a, b)`` at ``material_count`` (clamped to the fitted range)."""
    m = min(MATERIAL_MAX, max(MATERIAL_MIN, material_count)) / MATERIAL_SCALE
    return _poly(a_coeffs, m), max(1.0, _poly(b_coeffs, m))


def _logistic(x: float) -> float:
    """1 / (1 + exp(-x)) without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def probabilities(cp: float, material_count: int, a_coeffs: Sequence[float] = A_COEFFS,
                  b_coeffs: Sequence[float] = B_COEFFS) -> Tuple[float, float, float]:
    """(win, draw, loss) probabilities of the side to move for a centipawn score ``cp``."""
    a, b = parameters(material_count, a_coeffs, b_coeffs)
    cp = min(CP_LIMIT, max(-CP_LIMIT, cp))
    win = _logistic((cp - a) / b)
    loss = _logistic((-cp - a) / b)
    return win, max(0.0, 1.0 - win - loss), loss


def wdl(cp: int, material_count: int) -> Tuple[int, int, int]:
    """(wins, draws, losses) per mille for the side to move at centipawn score ``cp`` with
    ``material_count`` (``material(board)``) on the board; the three sum to 1000."""
    win, _, loss = probabilities(cp, material_count)
    wins = int(0.5 + 1000 * win)
    losses = min(int(0.5 + 1000 * loss), 1000 - wins)  # only a negative ``a`` could overlap them
    return wins, 1000 - wins - losses, losses


def wdl_of_score(score: int, material_count: int) -> Tuple[int, int, int]:
    """``wdl`` of a search score (``pruner.engine.types`` encoding): a mate or a tablebase win for the
    side to move is 1000/0/0, a mate or a tablebase loss 0/0/1000, a centipawn score the model."""
    if score >= TB_BOUND:  # tablebase wins, and mates (MATE_BOUND is above TB_BOUND)
        return 1000, 0, 0
    if score <= -TB_BOUND:
        return 0, 0, 1000
    return wdl(score, material_count)
