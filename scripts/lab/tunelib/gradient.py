"""``tune.py fit --method gradient``: every weight at once, by Adam on the logistic error.

The coordinate descent of ``pruner.lab.tunelib.fit`` moves one weight by a whole centipawn at a time
and re-measures; with hundreds of thousands of positions that is slow, and weights that only
pay together (a piece's value against its table) move late. Here the evaluation is read as
what it is, a linear function of the weights before the taper's rounding:

    White's score s = (phase * mg + (24 - phase) * eg) / 24 + sign * TEMPO,

so the gradient of the mean squared error ``mean((sigmoid(K s) - result)^2)`` is one pass
over the positions' feature counts. Adam (Kingma and Ba, 2015: per-weight steps scaled by
running moments of the gradient) follows it for ``epochs`` full passes with real-valued
weights; the result is rounded to integers, and its errors are measured with the engine's
exact integer evaluation (``pruner.lab.tunelib.objective.white_scores``), so they are the figures
``fit --method coordinate`` would report for the same weights.

K is found as in ``pruner.lab.tunelib.fit`` and stays fixed. ``l2`` adds ``l2`` times the sum of the
squared moves from the starting weights (ridge), ``holdout`` and ``patience`` act as in
``pruner.lab.tunelib.fit`` with an epoch for a pass (the held-out error is measured on the rounded
weights each epoch). The same data and options give the same bytes: the passes go through
the positions in file order and use no randomness.
"""

import math
from typing import Callable, List, Optional, Sequence, Tuple

from pruner.engine.evaluate import PHASE_MAX

from pruner.lab.tunelib import features, params
from pruner.lab.tunelib.objective import FitResult, blend, error, find_k, split, white_scores

BETA1 = 0.9
"""Adam's decay of the running mean of the gradient (the paper's default)."""
BETA2 = 0.999
"""Adam's decay of the running mean of the squared gradient (the paper's default)."""
EPSILON = 1e-12
"""Guards Adam's division; tiny because the gradients here are small (about 1e-6 a weight)."""


def _linear(positions: Sequence[features.Features]) -> Tuple[List[tuple], List[float], List[int]]:
    """The positions as the linear model reads them: per position its (mg index, eg index,
    count) triples, its middlegame share and its tempo sign."""
    terms = params.TERMS
    rows = [tuple((terms[term][0], terms[term][1], count) for term, count in f.terms) for f in positions]
    shares = [f.phase / PHASE_MAX for f in positions]
    signs = [1 if f.white else -1 for f in positions]
    return rows, shares, signs


def loss_and_gradient(rows: List[tuple], shares: List[float], signs: List[int], labels: Sequence[float],
                      weights: Sequence[float], k: float) -> Tuple[float, List[float]]:
    """Mean squared error of the real-valued linear evaluation under ``weights`` and its
    gradient (per weight). The ridge penalty is added by the caller."""
    # Hot loop of the fit (one call per epoch): plain loops over tuples, no per-term objects;
    # an epoch over 25,807 positions takes 0.014 s on PyPy, 0.07 s on CPython (docs/tuning.md).
    grad = [0.0] * len(weights)
    tempo_index = params.TEMPO_INDEX
    tempo = weights[tempo_index]
    total = 0.0
    tempo_grad = 0.0
    for terms, share, sign, label in zip(rows, shares, signs, labels):
        mg = eg = 0.0
        for mg_index, eg_index, count in terms:
            mg += weights[mg_index] * count
            eg += weights[eg_index] * count
        score = share * mg + (1.0 - share) * eg + sign * tempo
        p = 1.0 / (1.0 + math.exp(-k * score))
        diff = p - label
        total += diff * diff
        g = diff * p * (1.0 - p)  # d(diff^2)/d score is 2 k g: the factor is applied below
        g_mg = g * share
        g_eg = g - g_mg
        for mg_index, eg_index, count in terms:
            grad[mg_index] += g_mg * count
            grad[eg_index] += g_eg * count
        tempo_grad += g * sign
    grad[tempo_index] += tempo_grad
    n = len(labels)
    if not n:
        return 0.0, grad
    scale = 2.0 * k / n
    return total / n, [value * scale for value in grad]


def fit_gradient(rows: List[Tuple[str, float, int]], initial: Sequence[int], epochs: int = 200,
                 rate: float = 1.0, k: Optional[float] = None, groups: str = "all", holdout: int = 10,
                 positions_file: str = "", report: Callable[[str], None] = lambda line: None,
                 l2: float = 0.0, patience: int = 0, scores: Optional[Sequence[Optional[int]]] = None,
                 score_weight: float = 0.0) -> FitResult:
    """Fit K (unless given), then the weights in ``groups`` by ``epochs`` Adam steps of size
    ``rate`` (centipawns) on the (fen, label, game) rows (labels blended with ``scores`` by
    ``score_weight``: ``pruner.lab.tunelib.objective.blend``)."""
    train, train_labels, test, test_labels, train_scores = split(rows, holdout, report, scores, positions_file)
    start = list(initial)
    if k is None:
        k = find_k(white_scores(train, start), train_labels)
    train_labels = blend(train_labels, train_scores, k, score_weight, report)
    before = error(white_scores(train, start), train_labels, k)
    test_before = error(white_scores(test, start), test_labels, k) if test else None
    report("K %.6f; error %.6f%s" % (k, before, "" if test_before is None else ", held out %.6f" % test_before))
    linear, shares, signs = _linear(train)
    tuned = params.group_indices(groups)
    weights = [float(w) for w in start]
    first = [0.0] * len(weights)
    second = [0.0] * len(weights)
    best = (test_before, 0, list(start))  # held-out error, epoch, rounded weights: for patience
    epoch = 0
    for epoch in range(1, epochs + 1):
        loss, grad = loss_and_gradient(linear, shares, signs, train_labels, weights, k)
        correction1 = 1.0 - BETA1 ** epoch
        correction2 = 1.0 - BETA2 ** epoch
        for i in tuned:
            g = grad[i] + 2.0 * l2 * (weights[i] - start[i])
            first[i] = BETA1 * first[i] + (1.0 - BETA1) * g
            second[i] = BETA2 * second[i] + (1.0 - BETA2) * g * g
            weights[i] -= rate * (first[i] / correction1) / (math.sqrt(second[i] / correction2) + EPSILON)
        rounded = [int(round(w)) for w in weights]
        test_now = error(white_scores(test, rounded), test_labels, k) if test else None
        report("epoch %d: error %.6f (real-valued, before the step)%s" % (
            epoch, loss, "" if test_now is None else ", held out %.6f" % test_now))
        if patience and test_now is not None:
            if test_now < best[0]:
                best = (test_now, epoch, rounded)
            elif epoch - best[1] >= patience:
                report("held-out error not below epoch %d's for %d epochs: its weights are the result"
                       % (best[1], patience))
                break
    final = [int(round(w)) for w in weights]
    best_epoch = epoch
    if patience and test:
        _, best_epoch, final = best
    after = error(white_scores(train, final), train_labels, k)
    test_after = error(white_scores(test, final), test_labels, k) if test else None
    changed = sum(1 for a, b in zip(start, final) if a != b)
    return FitResult(params.NAMES, final, start, k, before, after, test_before, test_after,
                         len(train), len(test), positions_file, epochs, epoch, 0, 0, groups, changed,
                         l2, patience, best_epoch, "gradient", rate, score_weight)
