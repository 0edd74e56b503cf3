"""What both fitting methods of ``tune.py fit`` share: the error they minimise and the record
they return.

Each position's evaluation from White's view, ``s``, predicts White's score in its game as
``sigmoid(K * s)``; ``error`` is the mean squared difference from the labels, ``find_k`` the K
that minimises it for given scores. ``split`` turns an ``extract`` CSV's rows into the positions
fitted and those held out, ``blend`` mixes a position's search score into its label, and
``FitResult`` is what a fit found (``fit.save`` writes it). Coordinate descent (``pruner.lab.tunelib.fit``)
and Adam (``pruner.lab.tunelib.gradient``) both build on this module; neither imports the other's code.
"""

import math
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import chess

from pruner.lab.tunelib import features, params

K_RANGE = (1e-4, 0.05)
"""Where K is looked for (per centipawn; 0.0058 is Texel's usual 10^(-s/400) curve)."""


@dataclass
class FitResult:
    """What a fit found (``pruner.lab.tunelib.fit.fit`` or ``pruner.lab.tunelib.gradient.fit_gradient``); ``pruner.lab.tunelib.fit.save``
    writes it as JSON for ``tune.py write``."""

    names: List[str]
    weights: List[int]
    initial: List[int]
    k: float
    error_before: float
    error_after: float
    holdout_before: Optional[float]
    holdout_after: Optional[float]
    positions: int
    holdout_positions: int
    positions_file: str
    iterations: int
    passes: int
    seed: int
    step: int
    groups: str
    changed: int
    l2: float = 0.0
    patience: int = 0
    best_pass: int = 0
    """The pass whose weights are the result (the last one, unless ``patience`` stopped early)."""
    method: str = "coordinate"
    """``coordinate`` (``pruner.lab.tunelib.fit``) or ``gradient`` (``pruner.lab.tunelib.gradient``: passes are epochs)."""
    rate: float = 0.0
    """The gradient method's step size (Adam's learning rate, centipawns); 0 for coordinate descent."""
    score_weight: float = 0.0
    """Share of the search score in the fitted positions' labels (``blend``); 0: results only."""


def error(scores: Sequence[int], labels: Sequence[float], k: float) -> float:
    """Mean squared error of ``sigmoid(k * score)`` against the labels."""
    total = 0.0
    for score, label in zip(scores, labels):
        total += (label - 1.0 / (1.0 + math.exp(-k * score))) ** 2
    return total / len(labels) if labels else 0.0


def find_k(scores: Sequence[int], labels: Sequence[float], low: float = K_RANGE[0], high: float = K_RANGE[1],
           tolerance: float = 1e-7) -> float:
    """The K minimising ``error`` (golden-section search between ``low`` and ``high``)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = error(scores, labels, c), error(scores, labels, d)
    while b - a > tolerance:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = error(scores, labels, c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = error(scores, labels, d)
    return (a + b) / 2


def white_scores(positions: List[features.Features], weights: Sequence[int]) -> List[int]:
    """Each position's evaluation from White's view under ``weights``: the engine's exact
    integer evaluation, as both methods measure their errors."""
    return [features.white_score(f, weights, params.TEMPO_INDEX) for f in positions]


def split(rows: List[Tuple[str, float, int]], holdout: int, report: Callable[[str], None] = lambda line: None,
          scores: Optional[Sequence[Optional[int]]] = None, source: str = ""
          ) -> Tuple[List[features.Features], List[float], List[features.Features], List[float], List[Optional[int]]]:
    """The rows' features and labels to fit, then those held out (every ``holdout``-th game),
    then the fitted rows' search scores (``scores``, row by row; None where absent). A FEN that
    does not parse is a ValueError naming ``source`` (the CSV) and the row."""
    train: List[features.Features] = []
    train_labels: List[float] = []
    train_scores: List[Optional[int]] = []
    test: List[features.Features] = []
    test_labels: List[float] = []
    for index, (fen, label, game) in enumerate(rows):
        try:
            board = chess.Board(fen)
        except ValueError as error:
            raise ValueError("%sposition %d (%r): %s" % (source + ", " if source else "", index + 1, fen, error)) from None
        if holdout and game % holdout == 0:
            test.append(features.extract(board))
            test_labels.append(label)
        else:
            train.append(features.extract(board))
            train_labels.append(label)
            train_scores.append(scores[index] if scores else None)
    report("positions: %d to fit, %d held out%s"
           % (len(train), len(test), " (every %d-th game)" % holdout if holdout else ""))
    return train, train_labels, test, test_labels, train_scores


def blend(labels: Sequence[float], scores: Sequence[Optional[int]], k: float, weight: float,
          report: Callable[[str], None] = lambda line: None) -> List[float]:
    """Labels that mix each game's result with the win probability of its position's search
    score: ``(1 - weight) * result + weight * sigmoid(k * score)`` (the result alone where the
    score is None). A score of a search a few plies deep is a less noisy target than the one
    result a whole game shares; the held-out error stays measured against results only."""
    if not weight:
        return list(labels)
    report("labels: %d of %d fitted positions blended with their search score (weight %g); the rest keep the result"
           % (sum(1 for score in scores if score is not None), len(labels), weight))
    return [label if score is None else (1.0 - weight) * label + weight / (1.0 + math.exp(-k * score))
            for label, score in zip(labels, scores)]
