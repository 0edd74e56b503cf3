"""``match.py --plot FILE.png``: the Elo estimate and the SPRT drawn against games played.

Top panel: Elo with its 95% band at each completed pair (pentanomial, the interval the
final line prints) and the trinomial estimate after every game; bottom panel (with
``--sprt``): the log-likelihood ratio (on the pentanomial counts, so it too moves at each
completed pair) against its two bounds. The numbers are
``tally.history`` (``pruner.lab.matchlib.history``), nothing is recomputed here. The picture is
redrawn every ``--plot-every`` games and at the end, written to a temporary file and moved
into place so a viewer never sees half a PNG (``pruner.output_files``: a device or FIFO is
written in place, a symbolic link through). matplotlib is imported on the first drawing,
and only its Agg canvas is used (no pyplot, no GUI, safe off the main thread).
"""

import math
import os
import sys
from typing import BinaryIO, List, Optional, Sequence, Tuple

from pruner.extras import MATPLOTLIB_HINT, missing_matplotlib
from pruner.output_files import replaced, unwritable

from .history import TallyPoint
from .report import fmt_estimate
from .stats import EloEstimate, Sprt

FORMATS = ("png", "svg", "pdf")
"""File types ``--plot`` writes (by the file name's suffix)."""

DEFAULT_EVERY = 20
"""Redraw after this many games (``--plot-every``)."""

ELO_VIEW = 800.0
"""The Elo axis never reaches beyond ± this; larger and infinite ends are clipped to the axis."""

def check_path(path: str) -> Optional[str]:
    """Why ``path`` cannot be a plot (None when it can)."""
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in FORMATS:
        return "the file name must end in %s" % ", ".join("." + name for name in FORMATS)
    problem = unwritable(path)
    if problem:
        return problem
    if missing_matplotlib():
        return "matplotlib is not installed (%s)" % MATPLOTLIB_HINT
    return None


def _finite(values: Sequence[Optional[float]]) -> List[float]:
    return [value for value in values if value is not None and math.isfinite(value)]


def elo_range(history: List[TallyPoint]) -> Tuple[float, float]:
    """The Elo axis: every finite estimate and band end from the second half of the match
    (the first games' bands are huge), zero included, padded, within ±``ELO_VIEW``."""
    start = len(history) // 2
    recent = history[start:] or history
    values = _finite([point.penta_low for point in recent] + [point.penta_high for point in recent]
                     + [point.elo for point in recent] + [point.penta_elo for point in recent])
    if not values:
        values = _finite([point.elo_low for point in recent] + [point.elo_high for point in recent])
    low, high = min(values + [0.0]), max(values + [0.0])
    pad = max(10.0, 0.08 * (high - low))
    return max(-ELO_VIEW, low - pad), min(ELO_VIEW, high + pad)


def _clip(values: Sequence[Optional[float]], low: float, high: float) -> List[float]:
    clipped = []
    for value in values:
        if value is None or math.isnan(value):
            clipped.append(math.nan)
        else:
            clipped.append(min(high, max(low, value)))
    return clipped


def pair_points(history: List[TallyPoint]) -> List[TallyPoint]:
    """The points where another colour-reversed pair was completed (the pentanomial numbers
    change only there)."""
    points, pairs = [], 0
    for point in history:
        if point.pairs > pairs and point.penta_elo is not None:
            points.append(point)
            pairs = point.pairs
    return points


def title_text(history: List[TallyPoint], names: Tuple[str, str], sprt: Optional[Sprt],
               verdict: Optional[str]) -> str:
    """The chart's title: the final line's numbers (same model choice and formatting)."""
    last = history[-1]
    if last.penta_elo is not None and 2 * last.pairs == last.games:
        elo, low, high, model = last.penta_elo, last.penta_low, last.penta_high, "pentanomial"
    else:
        elo, low, high, model = last.elo, last.elo_low, last.elo_high, "trinomial"
    estimate = EloEstimate(math.nan, elo, low, high, math.nan)
    text = "%s vs %s: W %d D %d L %d, Elo %s (95%%, %s)" % (
        names[0], names[1], last.wins, last.draws, last.losses, fmt_estimate(estimate), model)
    if sprt is not None and last.llr is not None:
        text += "\nSPRT elo0 %g elo1 %g (%s): LLR %.2f [%.2f, %.2f]%s" % (
            sprt.elo0, sprt.elo1, sprt.model, last.llr, sprt.lower, sprt.upper,
            ", %s accepted" % verdict if verdict else "")
    return text


def draw(history: List[TallyPoint], stream: BinaryIO, fmt: str = "png", names: Tuple[str, str] = ("engine 1", "engine 2"),
         sprt: Optional[Sprt] = None, verdict: Optional[str] = None) -> None:
    """Draw the match chart of ``history`` (at least one point) into ``stream``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if not history:
        raise ValueError("no games to draw")
    with_sprt = sprt is not None and history[-1].llr is not None
    figure = Figure(figsize=(10, 7.2 if with_sprt else 4.6), dpi=100)
    FigureCanvasAgg(figure)
    if with_sprt:
        elo_axes, llr_axes = figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    else:
        elo_axes, llr_axes = figure.subplots(1, 1), None
    games = [point.games for point in history]
    low, high = elo_range(history)

    paired = pair_points(history)
    if paired:
        x = [point.games for point in paired]
        elo_axes.fill_between(x, _clip([p.penta_low for p in paired], low, high),
                              _clip([p.penta_high for p in paired], low, high),
                              color="#5b7fa6", alpha=0.25, linewidth=0, label="95% interval (pentanomial)")
        elo_axes.plot(x, _clip([p.penta_elo for p in paired], low, high), color="#2d4f77", linewidth=1.8,
                      label="Elo (pentanomial, at each completed pair)",
                      marker="o" if len(paired) <= 40 else None, markersize=3.5)
    else:
        elo_axes.fill_between(games, _clip([p.elo_low for p in history], low, high),
                              _clip([p.elo_high for p in history], low, high),
                              color="#5b7fa6", alpha=0.25, linewidth=0, label="95% interval (trinomial)")
    elo_axes.plot(games, _clip([p.elo for p in history], low, high), color="#c0504d", linewidth=0.9,
                  linestyle="--", label="Elo (trinomial, every game)")
    elo_axes.axhline(0.0, color="#777777", linewidth=0.8)
    elo_axes.set_ylim(low, high)
    elo_axes.set_xlim(0, max(games[-1], 2))
    elo_axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    elo_axes.set_ylabel("Elo (engine 1)")
    elo_axes.grid(True, color="#dddddd", linewidth=0.6)
    elo_axes.legend(loc="best", fontsize=8, framealpha=0.85)
    elo_axes.set_title(title_text(history, names, sprt, verdict), fontsize=10, loc="left")

    if llr_axes is not None:
        x = [0] + [point.games for point in paired]
        llr = [0.0] + [point.llr for point in paired]  # it moves only when a pair completes
        llr_axes.plot(x, llr, color="#2d4f77", linewidth=1.6, label="LLR",
                      marker="o" if len(x) <= 40 else None, markersize=3.5)
        llr_axes.axhline(sprt.upper, color="#3a8a3a", linewidth=1.2, linestyle="--")
        llr_axes.axhline(sprt.lower, color="#c0504d", linewidth=1.2, linestyle="--")
        llr_axes.axhline(0.0, color="#777777", linewidth=0.8)
        llr_axes.text(0.005, sprt.upper, " H1 (elo1 = %g) accepted" % sprt.elo1, color="#3a8a3a",
                      va="bottom", fontsize=8, transform=llr_axes.get_yaxis_transform())
        llr_axes.text(0.005, sprt.lower, " H0 (elo0 = %g) accepted" % sprt.elo0, color="#c0504d",
                      va="bottom", fontsize=8, transform=llr_axes.get_yaxis_transform())
        values = _finite(llr) + [sprt.lower, sprt.upper]
        pad = 0.15 * (max(values) - min(values))
        llr_axes.set_ylim(min(values) - pad, max(values) + pad)
        llr_axes.set_ylabel("log-likelihood ratio")
        llr_axes.grid(True, color="#dddddd", linewidth=0.6)
        llr_axes.set_xlabel("games played")
    else:
        elo_axes.set_xlabel("games played")
    figure.tight_layout()
    figure.savefig(stream, format=fmt)


class MatchPlot:
    """Redraws the chart into ``path`` every ``every`` counted games and at the end."""

    def __init__(self, path: str, every: int = DEFAULT_EVERY, sprt: Optional[Sprt] = None) -> None:
        self.path = path
        self.every = every
        self.sprt = sprt
        self._drawn_at = -1
        self._failed = False

    def game_finished(self, tally, names: Tuple[str, str]) -> None:
        """After each finished game: redraw when another ``every`` games are counted."""
        games = tally.games
        if self.every > 0 and games and games % self.every == 0 and games != self._drawn_at:
            self.write(tally.history, names)

    def finish(self, tally, names: Tuple[str, str], verdict: Optional[str]) -> None:
        """At the end of the match (also after an interrupt)."""
        if tally.history:
            self.write(tally.history, names, verdict)

    def write(self, history: List[TallyPoint], names: Tuple[str, str], verdict: Optional[str] = None) -> bool:
        """Draw and move the file into place; a failure is reported on stderr, never raised
        (a plot must not stop a long match)."""
        fmt = os.path.splitext(self.path)[1].lstrip(".").lower() or "png"
        try:
            with replaced(self.path) as handle:
                draw(history, handle, fmt, names, self.sprt, verdict)
        except Exception as exc:  # noqa: BLE001 - report once, keep playing
            if not self._failed:
                print("match plot %s: %s: %s" % (self.path, type(exc).__name__, exc), file=sys.stderr)
            self._failed = True
            return False
        self._drawn_at = history[-1].games
        return True
