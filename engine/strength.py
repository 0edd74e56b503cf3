"""Weaker play for ``UCI_LimitStrength``/``UCI_Elo`` and ``Skill Level``: a node budget per move
and a noisy pick among the best lines of a MultiPV search, on a scale calibrated against Stockfish.

The model works on its own scale of **levels** (``min_level`` to ``max_level``); all its
constants live in ``StrengthModel``:

* **Node budget.** Each move is searched for at most ``nodes`` nodes, growing geometrically
  from ``nodes_at_min`` at ``min_level`` to ``nodes_at_max`` at ``max_level`` (a smaller node
  limit from the GUI stands).
* **Noisy choice.** The search reports ``multipv`` lines; ``choose`` picks one by a softmax
  over the centipawn loss against the best line, ``weight = exp(-loss / temperature)``, with
  the temperature falling geometrically with Elo. A line losing more than ``max_loss``
  (falling linearly with Elo) is never chosen.
* **Guards.** A mate found is always played; a line that walks into a mate is never chosen
  while the best line does not; with fewer than ``min_depth`` plies completed (mate threats
  not yet seen) the best line is played. Only legal root moves are ever chosen (every line's
  first move is one).

Deterministic: the same lines and the same seeded ``random.Random`` give the same choice.

**The search measured.** A limited search runs ``CALIBRATED_SEARCH``, the search the
calibration's matches were played with (its techniques and its evaluation weights), not the
engine's current one: a stronger search or evaluation per node would make every level stronger
than its ``UCI_Elo`` says. ``CALIBRATED_BENCH`` is that
search's ``pruner bench`` signature, and a test holds it, so a search change that would move
the levels is noticed (switch the technique off in ``CALIBRATED_SEARCH``, or re-calibrate).

**Calibration.** ``CALIBRATION`` holds matches of levels against Stockfish at known
``UCI_Elo`` (docs/lab/strength.md). A fit through them weighted by their error bars (at each level
a straight line through the points near it, so it bends where they do: ``Calibration``) turns the
``UCI_Elo`` a GUI asks for into a level (``limit_for_uci_elo``), and the
option's range is what the fit gives at the lowest and highest measured levels, so that no
setting promises a strength the matches did not reach.

**Skill Level** (0-20, Stockfish's other strength option): 20 is full strength, 0-19 play the
``UCI_Elo`` settings spread evenly over that range (``elo_for_skill_level``);
``UCI_LimitStrength`` on takes precedence, as in Stockfish (``strength_for_options``).

**A level by hand** (calibration only). ``scripts/calibrate.py`` measures levels, not settings:
with ``UCI_LimitStrength`` on, the environment variable ``PRUNER_STRENGTH_LEVEL`` (a level from
``min_level`` to ``max_level``) replaces the level ``UCI_Elo`` would give (``strength_for``). It
is no UCI option on purpose: a GUI would offer it to every user, beside the calibrated
``UCI_Elo``, as an uncalibrated second scale.
"""

import bisect
import math
import os
import random
from dataclasses import dataclass, replace
from typing import List, Optional, Sequence, Tuple

from pruner.engine.types import MATE_BOUND, Limits, SearchInfo


@dataclass(frozen=True)
class StrengthModel:
    """The constants of the strength model, on its scale of levels (``UCI_Elo`` maps onto it through ``CALIBRATION``).

    From ``base_level`` up to ``max_level`` a level buys more nodes and a colder, narrower
    choice. Below ``base_level``, down to ``min_level``, are the beginners' levels: the node
    budget stays about what a 2-ply search of every line needs, and the weakening comes from
    choosing among more lines (``multipv_at_min``), more loosely (``temperature_at_min``), with
    larger losses allowed (``max_loss_at_min``): a beginner misses tactics and drops material,
    which a smaller search alone does not do (a 1-ply search still sees every capture). The
    levels from ``base_level`` up are those the first calibrations measured; the extension
    below leaves them as they were."""

    min_level: int = 200
    """Weakest level (the bottom of the beginners' levels)."""
    base_level: int = 800
    """Where the beginners' levels end and the ``*_at_base`` values hold."""
    max_level: int = 2000
    """Strongest level."""
    nodes_at_base: int = 1000
    """Node budget per move at ``base_level`` (depth 2 with 4 lines takes 400-2000 nodes)."""
    nodes_at_max: int = 50000
    """Node budget per move at ``max_level``."""
    nodes_at_min: int = 2500
    """Node budget at ``min_level``: enough for depth 2 over ``multipv_at_min`` lines."""
    temperature_at_base: float = 120.0
    """Softmax temperature (centipawns) at ``base_level``: a 120 cp worse move has weight 1/e."""
    temperature_at_max: float = 8.0
    """Softmax temperature at ``max_level``."""
    temperature_at_min: float = 400.0
    """Softmax temperature at ``min_level``."""
    max_loss_at_base: int = 350
    """Largest loss (centipawns) ever chosen at ``base_level``."""
    max_loss_at_max: int = 25
    """Largest loss ever chosen at ``max_level``."""
    max_loss_at_min: int = 1000
    """Largest loss ever chosen at ``min_level`` (a queen may go)."""
    multipv: int = 4
    """Lines searched to choose from, from ``base_level`` up."""
    multipv_at_min: int = 10
    """Lines searched to choose from at ``min_level`` (growing linearly below ``base_level``)."""
    min_depth: int = 2
    """Below this completed depth the best line is played (a mate-in-1 threat needs 2 plies)."""


MODEL = StrengthModel()
"""The model ``UCI_Elo`` uses."""

CALIBRATED_SEARCH = "weights=pruner.engine.weights evalfile=classical lmr_divisor=225"
"""The search every ``CALIBRATION`` point was measured with, as ``SearchParams.parse`` reads
it: the engine's search (the techniques tried since the calibration were all off by default
and have left the code, docs/lab/strength.md; a technique adopted later is switched off here by
its parameter, or the levels are re-calibrated), the evaluation weights it played with
(``weights``: when engine/weights.py is re-tuned, the measured numbers move to a module of
their own, say engine/weights_calibrated.py, named here, and a limited search evaluates with
them: the searcher makes its ``pruner.engine.evaluate.Evaluator`` with them), and the classical
evaluation alone (``evalfile``: the
levels were measured before the learned evaluation, which keeps them honest without
re-calibrating; issue 47), and the late move reductions of then (``lmr_divisor=225``: the
engine's default became 150 on 2026-12-03, issue 52)."""

CALIBRATED_BENCH = 166869
"""``pruner bench``'s node count (depth 5) with ``CALIBRATED_SEARCH``: the signature of the
search the calibration measured (tests/engine/test_strength.py checks it)."""

_calibrated_params: list = []


def calibrated_params():
    """``CALIBRATED_SEARCH`` as ``pruner.engine.search.SearchParams`` (made once; imported late, so
    that the search modules still load at the first ``go``, not at ``uci``)."""
    if not _calibrated_params:
        from pruner.engine.search import SearchParams
        _calibrated_params.append(SearchParams.parse(CALIBRATED_SEARCH))
    return _calibrated_params[0]


def _geometric(low: float, high: float, t: float) -> float:
    return low * (high / low) ** t


class StrengthLimit:
    """The strength model at one level: ``limits_for`` caps a search, ``choose`` picks a line."""

    def __init__(self, level: int, model: StrengthModel = MODEL) -> None:
        self.model = model
        self.level = max(model.min_level, min(model.max_level, level))
        """The level, clamped to the model's range."""
        if self.level >= model.base_level:
            t = (self.level - model.base_level) / max(1, model.max_level - model.base_level)
            nodes = _geometric(model.nodes_at_base, model.nodes_at_max, t)
            temperature = _geometric(model.temperature_at_base, model.temperature_at_max, t)
            max_loss = model.max_loss_at_base + (model.max_loss_at_max - model.max_loss_at_base) * t
            multipv = float(model.multipv)
        else:  # a beginners' level: u goes from 0 at base_level to 1 at min_level
            u = (model.base_level - self.level) / max(1, model.base_level - model.min_level)
            nodes = model.nodes_at_base + (model.nodes_at_min - model.nodes_at_base) * u
            temperature = _geometric(model.temperature_at_base, model.temperature_at_min, u)
            max_loss = model.max_loss_at_base + (model.max_loss_at_min - model.max_loss_at_base) * u
            multipv = model.multipv + (model.multipv_at_min - model.multipv) * u
        self.nodes = int(round(nodes))
        """Node budget per move."""
        self.temperature = temperature
        """Softmax temperature in centipawns."""
        self.max_loss = int(round(max_loss))
        """Largest centipawn loss a chosen line may have against the best one."""
        self.multipv = int(round(multipv))
        """Number of lines to search (the caller searches at least this many)."""

    def limits_for(self, limits: Limits) -> Limits:
        """``limits`` with the node budget applied (a smaller node limit already there stands).
        The budget governs: the clock only caps the search (``Limits.time_cap_only``), so a
        level plays the same moves at 3+0.05 as at 60+0.6 while its budget fits the clock."""
        nodes = self.nodes if limits.nodes is None else min(limits.nodes, self.nodes)
        return replace(limits, nodes=nodes, time_cap_only=True)

    def choose(self, lines: Sequence[SearchInfo], rng: random.Random) -> Optional[SearchInfo]:
        """One of ``lines`` (a completed iteration, best first), or None when there is none."""
        if not lines:
            return None
        ordered = sorted(lines, key=lambda line: line.multipv)
        best = ordered[0]
        if len(ordered) == 1 or best.depth < self.model.min_depth or best.score >= MATE_BOUND:
            return best
        candidates = []
        for line in ordered:
            loss = best.score - line.score
            if not line.pv or loss > self.max_loss:
                continue
            if line.score <= -MATE_BOUND < best.score:
                continue  # never walk into a mate the best line avoids
            candidates.append((line, math.exp(-loss / self.temperature)))
        if not candidates:
            return best
        total = sum(weight for _, weight in candidates)
        point = rng.random() * total
        for line, weight in candidates:
            point -= weight
            if point < 0:
                return line
        return candidates[-1][0]


@dataclass(frozen=True)
class CalibrationPoint:
    """One calibration match: the model at ``level`` against Stockfish 15.1 at ``UCI_Elo``
    ``opponent`` (10+0.1, scripts/match.py), measured at ``elo`` ± ``error`` (95%).

    A chain point (``against_level`` set) is a match against the model itself at
    ``against_level``, whose Elo on the scale (rounded) is then ``opponent``: it extends the
    scale below Stockfish's lowest ``UCI_Elo`` (scripts/calibrate.py chain)."""

    level: int
    opponent: int
    games: int
    elo: float
    error: float
    against_level: Optional[int] = None


CALIBRATION: Tuple[CalibrationPoint, ...] = (
    # kept from the CALIBRATION before (fit --add; docs/lab/strength.md has their matches)
    CalibrationPoint(level=1265, opponent=1350, games=40, elo=1242.5, error=96.2),
    CalibrationPoint(level=1345, opponent=1350, games=40, elo=1448.0, error=106.0),
    CalibrationPoint(level=1631, opponent=1500, games=40, elo=1500.0, error=81.0),
    CalibrationPoint(level=1918, opponent=1650, games=40, elo=1758.0, error=140.0),
    CalibrationPoint(level=1440, opponent=1400, games=20, elo=1568.0, error=138.0),
    CalibrationPoint(level=1822, opponent=1600, games=20, elo=1791.0, error=257.0),
    CalibrationPoint(level=800, opponent=1350, games=40, elo=1109.2, error=127.6),
    CalibrationPoint(level=1400, opponent=1400, games=40, elo=1426.1, error=118.8),
    CalibrationPoint(level=1291, opponent=1350, games=200, elo=1332.6, error=48.2),
    CalibrationPoint(level=1478, opponent=1450, games=200, elo=1491.9, error=47.7),
    CalibrationPoint(level=1665, opponent=1550, games=200, elo=1657.5, error=45.2),
    CalibrationPoint(level=1946, opponent=1700, games=200, elo=1738.4, error=44.8),
    # scripts/calibrate.py fit check3 chain
    # (2026-11-25, commit d77d650, f10aba2, tc 10+0.1, 30+0.3): Pruner at a level against Stockfish at
    # UCI_Elo=opponent, or (against_level) against Pruner at that level.
    CalibrationPoint(level=1283, opponent=1350, games=200, elo=1283.2, error=50.3),
    CalibrationPoint(level=1423, opponent=1450, games=200, elo=1416.9, error=47.3),
    CalibrationPoint(level=1563, opponent=1550, games=200, elo=1563.9, error=47.2),
    CalibrationPoint(level=1702, opponent=1650, games=200, elo=1650.0, error=47.2),
    CalibrationPoint(level=1772, opponent=1700, games=200, elo=1670.4, error=49.6),
    CalibrationPoint(level=800, opponent=1189, games=200, elo=926.0, error=67.0, against_level=1100),
    CalibrationPoint(level=600, opponent=926, games=200, elo=766.2, error=85.5, against_level=800),
    CalibrationPoint(level=400, opponent=766, games=200, elo=602.1, error=101.4, against_level=600),
    CalibrationPoint(level=200, opponent=602, games=200, elo=413.6, error=114.3, against_level=400),
    # scripts/calibrate.py fit check4 check5
    # (2026-11-26, commit 7d8885f, d07678c, tc 10+0.1): Pruner at a level against Stockfish at
    # UCI_Elo=opponent, or (against_level) against Pruner at that level.
    CalibrationPoint(level=1317, opponent=1350, games=200, elo=1356.9, error=48.5),
    CalibrationPoint(level=1440, opponent=1450, games=200, elo=1479.6, error=50.8),
    CalibrationPoint(level=1563, opponent=1550, games=200, elo=1522.1, error=47.0),
    CalibrationPoint(level=1709, opponent=1650, games=200, elo=1609.9, error=48.6),
    CalibrationPoint(level=1838, opponent=1700, games=200, elo=1720.9, error=47.0),
    CalibrationPoint(level=1317, opponent=1350, games=200, elo=1346.5, error=51.6),
    CalibrationPoint(level=1440, opponent=1450, games=200, elo=1465.6, error=50.0),
    CalibrationPoint(level=1563, opponent=1550, games=200, elo=1529.1, error=45.4),
    CalibrationPoint(level=1709, opponent=1650, games=200, elo=1606.3, error=47.8),
    CalibrationPoint(level=1838, opponent=1700, games=200, elo=1698.3, error=46.1),
    # scripts/calibrate.py fit check6
    # (2026-11-26, commit f9dd272, tc 10+0.1): Pruner at a level against Stockfish at
    # UCI_Elo=opponent, or (against_level) against Pruner at that level.
    CalibrationPoint(level=1445, opponent=1450, games=200, elo=1491.9, error=42.3),
    CalibrationPoint(level=1587, opponent=1550, games=200, elo=1604.3, error=46.0),
    CalibrationPoint(level=1745, opponent=1650, games=200, elo=1681.4, error=49.9),
    CalibrationPoint(level=1929, opponent=1750, games=200, elo=1813.2, error=50.5),
    # scripts/calibrate.py fit check7
    # (2026-11-26 to 2026-11-27, commit 2b0a7fe, tc 10+0.1): Pruner at a level against Stockfish at
    # UCI_Elo=opponent, or (against_level) against Pruner at that level.
    CalibrationPoint(level=1309, opponent=1350, games=400, elo=1328.3, error=33.9),
    CalibrationPoint(level=1438, opponent=1450, games=400, elo=1455.2, error=31.6),
    CalibrationPoint(level=1579, opponent=1550, games=400, elo=1600.7, error=34.3),
    CalibrationPoint(level=1732, opponent=1650, games=400, elo=1614.3, error=34.0),
    CalibrationPoint(level=1897, opponent=1750, games=400, elo=1739.6, error=34.1),
)
"""The matches behind the ``UCI_Elo`` scale (docs/lab/strength.md has their commands and W/D/L)."""


Z95 = 1.959964
"""Standard deviations in a 95% half-width (a point's ``error``)."""

BANDWIDTHS: Tuple[float, ...] = (50, 75, 100, 150, 200, 250, 300, 400, 600, 1000, 2000, math.inf)
"""The kernel widths (levels) ``Calibration`` chooses from; ``math.inf`` is one weighted straight
line through all the points."""


def _local_line(points: Sequence[Tuple[float, float, float]], level: float, bandwidth: float
                ) -> Optional[Tuple[float, float]]:
    """Weighted least squares of a straight line through ``(level, elo, weight)`` points, each
    weight times a Gaussian kernel of the distance to ``level`` (``bandwidth`` its standard
    deviation): (the line's Elo at ``level``, its slope), or None when the points there
    cannot determine a line."""
    sw = swx = swy = swxx = swxy = 0.0
    for at, elo, weight in points:
        x = at - level
        if bandwidth != math.inf:
            weight *= math.exp(-0.5 * (x / bandwidth) ** 2)
        sw += weight
        swx += weight * x
        swy += weight * elo
        swxx += weight * x * x
        swxy += weight * x * elo
    determinant = sw * swxx - swx * swx
    if sw <= 0 or determinant <= 1e-9 * sw * max(swxx, 1.0):
        return None
    slope = (sw * swxy - swx * swy) / determinant
    return (swy - slope * swx) / sw, slope


class Calibration:
    """Elo against level through calibration points: at each level, a straight line fitted to
    the points weighted by 1/error² and by a Gaussian kernel of their distance in levels (local
    linear regression), so the scale follows the points where they bend without one global
    shape (the top levels flatten: their node budgets no longer fit a 10+0.1 clock over a whole
    game on CPython, docs/lab/strength.md).

    The kernel's width is chosen from ``BANDWIDTHS`` by leave-one-out: each point predicted by
    the fit of the others, the width whose squared misses (in units of the points' standard
    deviations) are smallest wins, among the widths whose fit rises with the level at every
    level measured between (a narrow kernel may chase noise into a dip; ``math.inf`` is the
    straight line). Exact on points that lie on a line, whatever the width."""

    def __init__(self, points: Sequence[CalibrationPoint], model: StrengthModel = MODEL,
                 step: int = 50, bandwidths: Sequence[float] = BANDWIDTHS) -> None:
        """``step``: the option's range is rounded inwards to multiples of it."""
        levels = sorted({point.level for point in points})
        if len(levels) < 2:
            raise ValueError("a calibration needs points at two levels at least")
        self.model = model
        # a point's error is a 95% half-width: weights in standard deviations
        self._points = [(float(p.level), p.elo, (Z95 / max(p.error, 1.0)) ** 2) for p in points]
        self.min_level = max(model.min_level, levels[0])
        """Weakest level a match measured (no setting maps below it)."""
        self.max_level = min(model.max_level, levels[-1])
        """Strongest level a match measured (no setting maps above it)."""
        line = _local_line(self._points, 0.0, math.inf)
        if line is None:
            raise ValueError("the points do not determine a line")
        misses = [(self._leave_one_out(width), width) for width in bandwidths]
        scale = max(min([chi2 for chi2, _ in misses if chi2 != math.inf], default=0.0), 1e-9)
        # ties (with three levels every width leaves the same misses): the wider kernel, the simpler fit
        candidates = sorted(misses, key=lambda miss: (round(miss[0] / scale, 6), -miss[1]))
        for chi2, width in candidates:
            table = self._table(width)
            if table is not None:
                break
        else:
            raise ValueError("no kernel width gives a fit that gets stronger with the level")
        self.bandwidth = width
        """The kernel's width in levels (``math.inf``: one straight line)."""
        self.loo_chi2 = chi2
        """Leave-one-out chi-square at that width (what chose it)."""
        self._elo = table
        self.chi2 = sum((elo - self.elo_at(at)) ** 2 * weight for at, elo, weight in self._points
                        if self.min_level <= at <= self.max_level)
        """Chi-square of the fit at the points (squared misses in units of their standard deviations)."""
        low, high = self.elo_at(self.min_level), self.elo_at(self.max_level)
        self.min_elo = int(math.ceil(low / step - 1e-6) * step)  # 1e-6: a fit's rounding noise
        """Lowest ``UCI_Elo`` offered: the fitted strength of the weakest measured level, rounded up."""
        self.max_elo = int(math.floor(high / step + 1e-6) * step)
        """Highest ``UCI_Elo`` offered: the fitted strength of the strongest measured level, rounded down."""
        middle = (self.min_elo + self.max_elo) / 2
        self.default_elo = int(round(middle / step) * step)
        """``UCI_Elo`` default: the middle of the range."""

    def _leave_one_out(self, width: float) -> float:
        """Squared misses (in standard deviations) of each point predicted by the others' fit;
        a point not even a straight line through the others can predict (one level left) counts
        nothing at any width, and a width too narrow to predict the others makes them infinite."""
        total = 0.0
        for i, (at, elo, weight) in enumerate(self._points):
            others = self._points[:i] + self._points[i + 1:]
            line = _local_line(others, at, width)
            if line is not None:
                total += (elo - line[0]) ** 2 * weight
            elif _local_line(others, at, math.inf) is not None:
                return math.inf
        return total

    def _table(self, width: float) -> Optional[List[float]]:
        """The fitted Elo of every level from ``min_level`` to ``max_level``, or None when it
        does not rise at every step (or the points cannot determine a line somewhere)."""
        table = []
        for level in range(self.min_level, self.max_level + 1):
            line = _local_line(self._points, float(level), width)
            if line is None or (table and line[0] <= table[-1]):
                return None
            table.append(line[0])
        return table

    def elo_at(self, level: float) -> float:
        """The fitted Elo (Stockfish's scale) of a level; beyond the measured levels, the local
        line there extended (a chain anchored below them needs it; no setting maps there)."""
        if not self.min_level <= level <= self.max_level:
            line = _local_line(self._points, float(level), self.bandwidth)
            if line is not None:
                return line[0]
        position = min(max(level, self.min_level), self.max_level) - self.min_level
        below = int(position)
        if below + 1 >= len(self._elo):
            return self._elo[-1]
        return self._elo[below] + (position - below) * (self._elo[below + 1] - self._elo[below])

    def level_for(self, elo: float) -> int:
        """The level whose fitted Elo is nearest ``elo``, within the measured levels."""
        index = bisect.bisect_left(self._elo, elo)
        if index >= len(self._elo):
            return self.max_level
        if index > 0 and elo - self._elo[index - 1] < self._elo[index] - elo:
            index -= 1
        return self.min_level + index

    def describe(self) -> str:
        """The fit as text: the kernel's width and the Elo at a few levels."""
        shape = "one weighted straight line" if self.bandwidth == math.inf else \
            "local weighted lines, kernel width %g levels (leave-one-out)" % self.bandwidth
        span = self.max_level - self.min_level
        marks = sorted({self.min_level + round(span * k / 4) for k in range(5)})
        return "%s: %s" % (shape, ", ".join("level %d = %.0f" % (level, self.elo_at(level)) for level in marks))


UCI_ELO = Calibration(CALIBRATION)
"""The calibration ``UCI_Elo`` uses: its range, default and level for each setting."""


def limit_for_uci_elo(elo: int, calibration: Optional[Calibration] = None) -> StrengthLimit:
    """The strength limit a ``UCI_Elo`` setting asks for (through ``UCI_ELO``, the calibration)."""
    calibration = calibration or UCI_ELO
    return StrengthLimit(calibration.level_for(elo), calibration.model)


LEVEL_VARIABLE = "PRUNER_STRENGTH_LEVEL"
"""Environment variable: with ``UCI_LimitStrength``, play this level instead of the one
``UCI_Elo`` gives (scripts/calibrate.py; see the module's docstring)."""


def level_from_environment(model: StrengthModel = MODEL) -> Tuple[Optional[int], Optional[str]]:
    """The level ``PRUNER_STRENGTH_LEVEL`` asks for (None when unset), and the problem when it
    cannot be used (then None: the caller reports it and ``UCI_Elo`` decides)."""
    text = os.environ.get(LEVEL_VARIABLE, "").strip()
    if not text:
        return None, None
    try:
        level = int(text)
    except ValueError:
        return None, "%s=%s ignored: not a whole number" % (LEVEL_VARIABLE, text)
    if not model.min_level <= level <= model.max_level:
        return None, "%s=%s ignored: levels go from %d to %d" % (LEVEL_VARIABLE, text, model.min_level,
                                                                   model.max_level)
    return level, None


def strength_for(elo: int, calibration: Optional[Calibration] = None) -> Tuple[StrengthLimit, Optional[str]]:
    """The strength limit of a search with ``UCI_LimitStrength``: ``PRUNER_STRENGTH_LEVEL``'s level
    when set, else the ``UCI_Elo`` setting's (``limit_for_uci_elo``); and a problem to report."""
    calibration = calibration or UCI_ELO
    level, problem = level_from_environment(calibration.model)
    if level is not None:
        return StrengthLimit(level, calibration.model), None
    return limit_for_uci_elo(elo, calibration), problem


SKILL_LEVEL_MAX = 20
"""``Skill Level`` at full strength, its default (as in Stockfish: 0 to 19 play weaker)."""


def elo_for_skill_level(skill: int, calibration: Optional[Calibration] = None) -> Optional[int]:
    """The ``UCI_Elo`` a ``Skill Level`` plays at, or None for full strength (20 and above).

    Stockfish spreads its levels 0-19 over its own ``UCI_Elo`` range (1320-3190); here they
    are spread evenly over the calibrated range (0 the weakest setting, 19 the strongest, about
    68 Elo a step), so that every level is a strength the calibration measured. On Stockfish's
    own scale (Skill Level 0 about 1320) Pruner's whole range would fall at and below its
    Skill Level 3."""
    if skill >= SKILL_LEVEL_MAX:
        return None
    calibration = calibration or UCI_ELO
    step = (calibration.max_elo - calibration.min_elo) / (SKILL_LEVEL_MAX - 1)
    return int(round(calibration.min_elo + max(skill, 0) * step))


def strength_for_options(limit_strength: bool, uci_elo: int, skill_level: int,
                         calibration: Optional[Calibration] = None
                         ) -> Tuple[Optional[StrengthLimit], Optional[str]]:
    """The strength limit the three options ask for, combined as Stockfish combines them:
    ``UCI_LimitStrength`` on plays ``UCI_Elo`` (``strength_for``, whatever ``Skill Level``
    says); off, a ``Skill Level`` below 20 plays its Elo (``elo_for_skill_level``); else None,
    full strength. With the problem to report, as ``strength_for``."""
    if limit_strength:
        return strength_for(uci_elo, calibration)
    elo = elo_for_skill_level(skill_level, calibration)
    if elo is None:
        return None, None
    return limit_for_uci_elo(elo, calibration), None
