"""Accuracy as lichess computes it (lila: ``AccuracyPercent.scala``, ``WinPercent.scala``).

Every position gets White's win percentage from its score, capped at ±1000 centipawns (a
mate counts as the cap):

    win%(cp) = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)

A move's accuracy compares the mover's win% before and after it (100 when it did not drop):

    accuracy = 103.1668100711649 * exp(-0.04354415386753951 * (before - after))
               - 3.166924740191411 + 1          (the +1: lichess's "uncertainty bonus")

clamped to 0..100. A side's game accuracy is the mean of two means of its move accuracies:
one weighted by the volatility of the game around each move (the standard deviation of
White's win% over a window of ``clamp(plies // 10, 2, 8)`` positions ending after the move,
clamped to 0.5..12; the first moves share the first window), and the harmonic mean (each
accuracy counted as at least 1). A move whose scores (or window) are not all known counts
for neither.

The one departure: lichess starts the list with a fixed +0.15 (its ``Cp.initial``), since its
server analysis does not search the start position; here the start position's own score is
used (it is searched, and a game from a FEN does not start at +0.15).
"""

import math
from typing import Dict, List, Optional, Sequence, Tuple

import chess

CP_CAP = 1000
"""Centipawns are capped at ± this (a mate counts as the cap): lichess's ``Cp.CEILING``."""
WIN_SLOPE = 0.00368208
"""The win% curve's slope per centipawn (lichess since 2022, lila pull request 11148)."""
ACCURACY_A, ACCURACY_K, ACCURACY_B = 103.1668100711649, 0.04354415386753951, -3.166924740191411
"""``a * exp(-k * drop) + b``: lichess's fit of move accuracy to the drop in win%."""
UNCERTAINTY_BONUS = 1.0
WINDOW_MIN, WINDOW_MAX = 2, 8
"""Volatility window: plies // 10 positions, at least 2, at most 8."""
WEIGHT_MIN, WEIGHT_MAX = 0.5, 12.0
"""A move's weight: the window's standard deviation of win%, clamped to this range."""


def win_percent(cp: int) -> float:
    """White's (or any side's) win percentage, 0..100, of a centipawn score from its view."""
    cp = max(-CP_CAP, min(CP_CAP, cp))
    return 50 + 50 * (2 / (1 + math.exp(-WIN_SLOPE * cp)) - 1)


def move_accuracy(before: float, after: float) -> float:
    """Accuracy 0..100 of a move from the mover's win% before and after it."""
    if after >= before:
        return 100.0
    raw = ACCURACY_A * math.exp(-ACCURACY_K * (before - after)) + ACCURACY_B
    return max(0.0, min(100.0, raw + UNCERTAINTY_BONUS))


def _population_deviation(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / len(values))


def window_size(plies: int) -> int:
    """Positions per volatility window for a game of ``plies`` moves."""
    return max(WINDOW_MIN, min(WINDOW_MAX, plies // 10))


def volatility_weights(wins: Sequence[Optional[float]]) -> List[Optional[float]]:
    """The weight of each move (``len(wins) - 1`` of them) from White's win% of every position
    (``wins[0]`` the start; None where unknown): the standard deviation over the window of
    positions ending after the move, clamped; the first ``size - 2`` moves take the first
    window. None where the window holds an unknown position."""
    plies = len(wins) - 1
    if plies < 1:
        return []
    size = window_size(plies)
    windows = [list(wins[:size])] * (min(size, len(wins)) - 2)
    if len(wins) >= size:
        windows += [list(wins[start:start + size]) for start in range(len(wins) - size + 1)]
    else:  # Scala's sliding: one short window (cannot happen: size <= plies + 1)
        windows.append(list(wins))
    weights: List[Optional[float]] = []
    for window in windows:
        if any(value is None for value in window):
            weights.append(None)
        else:
            weights.append(max(WEIGHT_MIN, min(WEIGHT_MAX, _population_deviation(window))))  # type: ignore
    return weights


def move_accuracies(wins: Sequence[Optional[float]], start_turn: chess.Color
                    ) -> List[Tuple[chess.Color, Optional[float], Optional[float]]]:
    """``(mover, accuracy, weight)`` of every move; accuracy and weight are None when a score
    around the move is unknown."""
    weights = volatility_weights(wins)
    moves = []
    for index, weight in enumerate(weights):
        white = (index % 2 == 0) == (start_turn == chess.WHITE)
        before, after = wins[index], wins[index + 1]
        if before is None or after is None or weight is None:
            moves.append((chess.WHITE if white else chess.BLACK, None, None))
            continue
        # White's win% is the mover's for White; for Black both swap sides, as lila does
        accuracy = move_accuracy(before, after) if white else move_accuracy(after, before)
        moves.append((chess.WHITE if white else chess.BLACK, accuracy, weight))
    return moves


def game_accuracy(wins: Sequence[Optional[float]], start_turn: chess.Color) -> Dict[chess.Color, Optional[float]]:
    """Each side's accuracy 0..100 (None: no move of that side could be counted)."""
    moves = move_accuracies(wins, start_turn)
    result: Dict[chess.Color, Optional[float]] = {}
    for side in (chess.WHITE, chess.BLACK):
        counted = [(accuracy, weight) for mover, accuracy, weight in moves
                   if mover == side and accuracy is not None and weight is not None]
        if not counted:
            result[side] = None
            continue
        weighted = sum(accuracy * weight for accuracy, weight in counted) / sum(weight for _, weight in counted)
        harmonic = len(counted) / sum(1 / max(1.0, accuracy) for accuracy, _ in counted)
        # at most 100: a weighted mean of moves at 100 can round to 100.00000000000001
        result[side] = min(100.0, (weighted + harmonic) / 2)
    return result
