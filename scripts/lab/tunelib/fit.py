"""``tune.py fit``: the logistic scale K, then the weights (Texel's method).

Each position's evaluation from White's view, ``s``, predicts White's score in its game as
``sigmoid(K * s) = 1 / (1 + exp(-K * s))``. The error of a weight vector is the mean squared
difference between that prediction and the game's result (1, 0.5, 0) over the positions
(``pruner.lab.tunelib.objective``, shared with ``pruner.lab.tunelib.gradient``; ``fit_file`` runs either method).

1. K: with the current weights, the K that minimises the error (golden-section search; the
   error is unimodal in K). It then stays fixed, so the fit cannot shrink the error by
   scaling every weight (Texel's method as Peter Österlund described it).
2. The weights: coordinate descent with integer steps. In a seeded random order, each weight
   is moved by +step, else by -step, and the move is kept if the error falls. A pass that
   changes nothing halves the step (down to 1), then the fit stops early. With ``l2`` > 0
   the error minimised is the mean squared error plus ``l2`` times the sum of the squared
   moves from the starting weights (ridge regression's penalty): with a few thousand
   positions per hundred weights, rare piece-square entries otherwise follow the noise.

Only the positions a weight counts in are re-evaluated when it moves (``features.occurrences``),
so a pass costs about two evaluations per (position, weight it counts in): seconds for
tens of thousands of positions, in pure Python. The result is deterministic given the data,
the seed and the options: the same runs give the same JSON.

Every ``holdout``-th game's positions (by the CSV's game number) are left out of the fit and
only measured, so the output says whether the fitted weights predict games they were not
fitted to better than the current ones. With ``patience`` N the fit stops once N passes in a
row have not lowered the held-out error and returns the weights of its best pass (early
stopping: the held-out games then choose the pass, so their error is no longer an unbiased
measure of the result).
"""

import json
import math
import random
from dataclasses import asdict
from typing import Callable, List, Optional, Sequence, Tuple

from pruner.engine.evaluate import PHASE_MAX

from pruner.lab.tunelib import features, gradient, params
from pruner.lab.tunelib.extract import read_csv, read_scores
from pruner.lab.tunelib.objective import FitResult, blend, error, find_k, split, white_scores


class _State:
    """The positions' sums under the current weights and the running squared error."""

    def __init__(self, positions: List[features.Features], labels: List[float], weights: List[int], k: float,
                 l2: float = 0.0):
        self.labels = labels
        self.k = k
        self.weights = weights
        self.start = list(weights)
        self.penalty = l2 * len(labels)  # the penalty in units of the summed squared error
        self.phase = [f.phase for f in positions]
        self.sign = [1 if f.white else -1 for f in positions]
        sums = [features.sums(f, weights) for f in positions]
        self.mg = [s[0] for s in sums]
        self.eg = [s[1] for s in sums]
        self.is_mg = [False] * len(weights)
        for mg_index, _ in params.TERMS:
            self.is_mg[mg_index] = True
        self.where = features.occurrences(positions, len(weights))
        self.where[params.TEMPO_INDEX] = [(j, 1) for j in range(len(positions))]
        self.err = [(label - self._p(self._score(j))) ** 2 for j, label in enumerate(labels)]

    def _p(self, score: int) -> float:
        return 1.0 / (1.0 + math.exp(-self.k * score))

    def _score(self, j: int, mg: Optional[int] = None, eg: Optional[int] = None, tempo: Optional[int] = None) -> int:
        """White's view score of position j, with mg/eg/tempo replaced when given."""
        sign = self.sign[j]
        phase = self.phase[j]
        mg = self.mg[j] if mg is None else mg
        eg = self.eg[j] if eg is None else eg
        tempo = self.weights[params.TEMPO_INDEX] if tempo is None else tempo
        # As engine/evaluate.py: negate for Black before the floor division, then add the tempo.
        return sign * ((sign * mg * phase + sign * eg * (PHASE_MAX - phase)) // PHASE_MAX + tempo)

    def try_move(self, index: int, delta: int) -> Tuple[float, List[Tuple[int, int, float]]]:
        """Change of the summed squared error if weight ``index`` moved by ``delta``, and the
        changes to make (position, new sum, new squared error)."""
        labels = self.labels
        err = self.err
        change = 0.0
        updates = []
        if index == params.TEMPO_INDEX:
            tempo = self.weights[index] + delta
            for j, _ in self.where[index]:
                new = (labels[j] - self._p(self._score(j, tempo=tempo))) ** 2
                change += new - err[j]
                updates.append((j, 0, new))
        elif self.is_mg[index]:
            mgs = self.mg
            for j, count in self.where[index]:
                mg = mgs[j] + delta * count
                new = (labels[j] - self._p(self._score(j, mg=mg))) ** 2
                change += new - err[j]
                updates.append((j, mg, new))
        else:
            egs = self.eg
            for j, count in self.where[index]:
                eg = egs[j] + delta * count
                new = (labels[j] - self._p(self._score(j, eg=eg))) ** 2
                change += new - err[j]
                updates.append((j, eg, new))
        if self.penalty:
            moved = self.weights[index] - self.start[index]
            change += self.penalty * ((moved + delta) ** 2 - moved ** 2)
        return change, updates

    def apply(self, index: int, delta: int, updates: List[Tuple[int, int, float]]) -> None:
        """Make a move ``try_move`` measured."""
        self.weights[index] += delta
        target = None if index == params.TEMPO_INDEX else (self.mg if self.is_mg[index] else self.eg)
        for j, value, new in updates:
            if target is not None:
                target[j] = value
            self.err[j] = new

    def mse(self) -> float:
        """Mean squared error, summed afresh (no drift from the running changes)."""
        return sum(self.err) / len(self.err) if self.err else 0.0


def fit(rows: List[Tuple[str, float, int]], initial: Sequence[int], iterations: int = 3, seed: int = 1,
        step: int = 1, k: Optional[float] = None, groups: str = "all", holdout: int = 10,
        positions_file: str = "", report: Callable[[str], None] = lambda line: None, l2: float = 0.0,
        patience: int = 0, scores: Optional[Sequence[Optional[int]]] = None, score_weight: float = 0.0
        ) -> FitResult:
    """Fit K (unless given), then the weights in ``groups`` to the (fen, label, game) rows
    (their labels blended with ``scores`` by ``score_weight``, see ``blend``)."""
    train, train_labels, test, test_labels, train_scores = split(rows, holdout, report, scores, positions_file)
    weights = list(initial)
    if k is None:
        k = find_k(white_scores(train, weights), train_labels)
    train_labels = blend(train_labels, train_scores, k, score_weight, report)
    state = _State(train, train_labels, weights, k, l2)
    before = state.mse()
    test_before = error(white_scores(test, weights), test_labels, k) if test else None
    report("K %.6f; error %.6f%s" % (k, before, "" if test_before is None else ", held out %.6f" % test_before))
    order = params.group_indices(groups)
    rng = random.Random(seed)
    passes = 0
    first_step = step
    best = (test_before, 0, list(weights))  # held-out error, pass, weights: for --patience
    for iteration in range(iterations):
        rng.shuffle(order)
        moved = 0
        for index in order:
            for delta in (step, -step):
                change, updates = state.try_move(index, delta)
                if change < 0:
                    state.apply(index, delta, updates)
                    moved += 1
                    break
        passes += 1
        test_now = error(white_scores(test, state.weights), test_labels, k) if test else None
        report("pass %d (step %d): %d weights moved, error %.6f%s" % (
            iteration + 1, step, moved, state.mse(), "" if test_now is None else ", held out %.6f" % test_now))
        if patience and test_now is not None:
            if test_now < best[0]:
                best = (test_now, passes, list(state.weights))
            elif passes - best[1] >= patience:
                report("held-out error not below pass %d's for %d passes: its weights are the result"
                       % (best[1], patience))
                break
        if not moved:
            if step == 1:
                break
            step = max(1, step // 2)
    final = list(state.weights)
    best_pass = passes
    if patience and test:
        _, best_pass, final = best
    after = error(white_scores(train, final), train_labels, k)
    test_after = error(white_scores(test, final), test_labels, k) if test else None
    changed = sum(1 for a, b in zip(initial, final) if a != b)
    return FitResult(params.NAMES, final, list(initial), k, before, after, test_before, test_after,
                     len(train), len(test), positions_file, iterations, passes, seed, first_step, groups, changed,
                     l2, patience, best_pass, score_weight=score_weight)


def fit_file(path: str, iterations: int = 3, seed: int = 1, step: int = 1, k: Optional[float] = None,
             groups: str = "all", holdout: int = 10, report: Callable[[str], None] = lambda line: None,
             l2: float = 0.0, patience: int = 0, method: str = "coordinate", rate: float = 1.0,
             score_weight: float = 0.0) -> FitResult:
    """``fit`` (or, with ``method="gradient"``, ``pruner.lab.tunelib.gradient.fit_gradient`` with
    ``iterations`` epochs) on an ``extract`` CSV, from the current weights (engine/weights.py)."""
    if not 0.0 <= score_weight <= 1.0:
        raise ValueError("score weight %g is not between 0 and 1" % score_weight)
    scores = read_scores(path) if score_weight else None
    if method == "gradient":
        return gradient.fit_gradient(read_csv(path), params.current(), iterations, rate, k, groups, holdout, path,
                                     report, l2, patience, scores, score_weight)
    if method != "coordinate":
        raise ValueError("unknown method %r (coordinate or gradient)" % method)
    return fit(read_csv(path), params.current(), iterations, seed, step, k, groups, holdout, path, report, l2,
               patience, scores, score_weight)


def save(result: FitResult, path: str) -> None:
    """Write ``result`` as JSON (sorted keys: the same fit writes the same bytes)."""
    with open(path, "w") as handle:
        json.dump(asdict(result), handle, indent=1, sort_keys=True)
        handle.write("\n")
