"""The result block fastchess prints, so that scripts which read fastchess's output read ours.

fastchess (github.com/Disservin/fastchess, ``app/src/matchmaking/output/output_fastchess.hpp``)
prints this block, framed by lines of 50 dashes, every ``-ratinginterval`` pairs and at the
end of a two-engine match (with its default pentanomial reports)::

    --------------------------------------------------
    Results of dev vs base (10+0.1, 1t, 16MB, noob_3moves_5000.epd):
    Elo: 12.34 +/- 5.67, nElo: 20.10 +/- 9.20
    LOS: 99.99 %, DrawRatio: 40.00 %, PairsRatio: 1.20
    Games: 200, Wins: 80, Losses: 60, Draws: 60, Points: 110.0 (55.00 %)
    Ptnml(0-2): [5, 20, 40, 25, 10], WL/DD Ratio: 1.20
    LLR: 1.50 (51.0%) (-2.94, 2.94) [0.00, 5.00]
    --------------------------------------------------

and, when an SPRT decides, ``SPRT ([0.00, 5.00]) completed - H1 was accepted``.

The numbers are fastchess's (``elo_pentanomial.cpp``, ``stats.hpp``): score, variance, Elo and
the 95% error from the pentanomial counts, nElo ``(s - 1/2) / sqrt(2 var) * 800 / ln 10``,
LOS from the pair variance, DrawRatio the share of DD and WL pairs, PairsRatio
``(WW + WD) / (LD + LL)``, WL/DD the WL pairs over the DD pairs, each with C's floating-point
rules: a division by zero gives ``inf``, and 0/0 or inf - inf a NaN, printed ``-nan`` as
fastchess on x86-64 Linux prints it.

One exception, so that the block never contradicts the runner's final line: where fastchess's
normal interval is unbounded or has no width (a small or one-sided sample; for a perfect score
fastchess prints ``Elo: inf +/- -nan, nElo: inf +/- -nan``), the Elo line shows the final line's
bounded estimate (``stats.elo_estimate``: half an LL and half a WW pair added, the interval on
the Elo scale), and nElo and LOS are fastchess's formulas over those same adjusted counts. The
pair counts and their ratios (PairsRatio, WL/DD) stay as fastchess prints them, ``inf`` and
``-nan`` included. Before the first pair there is nothing to estimate, and the block prints
fastchess's ``-nan``.
"""

import math
import os
from dataclasses import dataclass, replace
from typing import List, Optional, Tuple

from .stats import Sprt
from .tally import Tally
from .timecontrol import TimeControl

RULE = "-" * 50
"""The line above and below the block."""

CI95ZSCORE = 1.959963984540054
"""fastchess's z for the 95% interval (``elo.hpp``)."""

DEFAULT_EVERY = 10
"""Pairs between two blocks: fastchess's default ``-ratinginterval``."""


def _div(a: float, b: float) -> float:
    """``a / b`` with C's (IEEE 754) rules where Python raises: x/0 is +-inf, 0/0 a NaN."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _log10(x: float) -> float:
    """``std::log10``: -inf at 0, a NaN below 0."""
    if math.isnan(x) or x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    return math.log10(x)


def _sqrt(x: float) -> float:
    return math.nan if math.isnan(x) or x < 0.0 else math.sqrt(x)


def fixed(value: float, digits: int) -> str:
    """fmt's ``{:.Nf}``: ``inf``, ``-inf``, and a NaN as ``-nan`` (x86-64's default NaN)."""
    if math.isnan(value):
        return "-nan"
    return "%.*f" % (digits, value)


def _shortest(value: float) -> str:
    """fmt's ``{}`` of a double: the shortest form that reads back, without a trailing ``.0``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def score_to_elo(score: float) -> float:
    """``-400 * log10(1 / score - 1)`` in C arithmetic (inf at 1, -inf at 0, NaN outside)."""
    return -400.0 * _log10(_div(1.0, score) - 1.0)


@dataclass(frozen=True)
class PentanomialElo:
    """fastchess's ``EloPentanomial`` and ``Stats`` ratios for one set of pair counts."""

    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float
    """Likelihood of superiority, 0..1."""
    draw_ratio: float
    """Percent of pairs that are DD or WL."""
    pairs_ratio: float
    """(WW + WD) / (LD + LL)."""
    wl_dd_ratio: float
    """WL pairs / DD pairs."""


def pentanomial_elo(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> PentanomialElo:
    """The numbers of fastchess's block, computed in the same order with the same rules."""
    pairs = float(ll + ld + wl + dd + wd + ww)
    p_ww, p_wd, p_wl = _div(ww, pairs), _div(wd, pairs), _div(wl, pairs)
    p_dd, p_ld, p_ll = _div(dd, pairs), _div(ld, pairs), _div(ll, pairs)
    score = p_ww + 0.75 * p_wd + 0.5 * (p_wl + p_dd) + 0.25 * p_ld
    variance = (p_ww * (1 - score) ** 2 + p_wd * (0.75 - score) ** 2 + (p_wl + p_dd) * (0.5 - score) ** 2
                + p_ld * (0.25 - score) ** 2 + p_ll * (0 - score) ** 2)
    per_pair = _div(variance, pairs)
    upper = score + CI95ZSCORE * _sqrt(per_pair)
    lower = score - CI95ZSCORE * _sqrt(per_pair)

    def nelo(value: float) -> float:
        return _div(value - 0.5, _sqrt(2 * variance)) * (800 / math.log(10))

    erf_arg = _div(-(score - 0.5), _sqrt(2.0 * per_pair))
    los = (1 - (math.nan if math.isnan(erf_arg) else math.erf(erf_arg))) / 2.0
    return PentanomialElo(
        elo=score_to_elo(score),
        elo_error=(score_to_elo(upper) - score_to_elo(lower)) / 2.0,
        nelo=nelo(score),
        nelo_error=(nelo(upper) - nelo(lower)) / 2.0,
        los=los,
        draw_ratio=_div(wl + dd, pairs) * 100.0,
        pairs_ratio=_div(ww + wd, ld + ll),
        wl_dd_ratio=_div(wl, dd))


def tally_elo(tally: Tally) -> PentanomialElo:
    """``pentanomial_elo`` of a match's completed pairs; for a sample whose normal interval is
    unbounded or has no width, the final line's bounded Elo ± and nElo and LOS of its adjusted
    counts (module docstring)."""
    ll, ld, _, wd, ww = tally.pentanomial
    exact = pentanomial_elo(ll, ld, tally.pairs_wl, tally.pairs_dd, wd, ww)
    estimate = tally.penta_elo()
    if estimate is None or not estimate.adjusted:
        return exact  # the same Elo ± as the final line's
    adjusted = pentanomial_elo(ll + 0.5, ld, tally.pairs_wl, tally.pairs_dd, wd, ww + 0.5)
    return replace(exact, elo=estimate.elo, elo_error=estimate.error, nelo=adjusted.nelo,
                   nelo_error=adjusted.nelo_error, los=adjusted.los)


def time_text(tc: TimeControl) -> str:
    """fastchess's ``getTime``: ``10+0.1``, ``60``, ``0.5/move``, ``6 plies``, ``5000 nodes``."""
    if tc.uses_clock:
        base = round((tc.base or 0.0) * 1000) / 1000.0  # fastchess keeps milliseconds
        inc = round(tc.inc * 1000) / 1000.0
        return _shortest(base) + ("+%.2g" % inc if inc > 0 else "")
    if tc.movetime is not None:
        return "%s/move" % _shortest(round(tc.movetime * 1000) / 1000.0)
    if tc.depth is not None:
        return "%d plies" % tc.depth
    if tc.nodes is not None:
        return "%d nodes" % tc.nodes
    return ""


def _pair(first: str, second: str) -> str:
    """One value when both engines share it, else ``first - second`` (fastchess's form)."""
    return first if first == second else "%s - %s" % (first, second)


@dataclass(frozen=True)
class Setup:
    """What the block's first line names besides the engines."""

    time: str
    """``time_text`` of the time control."""
    threads: Tuple[Optional[str], Optional[str]] = (None, None)
    """Each engine's ``Threads`` value, None when it has no such option."""
    hash: Tuple[Optional[str], Optional[str]] = (None, None)
    """Each engine's ``Hash`` value (MB), None when it has no such option."""
    book: str = ""
    """The opening file ('' for none): its name is shown without the directory."""


def heading(name1: str, name2: str, setup: Setup) -> str:
    """``Results of A vs B (10+0.1, 1t, 16MB, book.epd):``."""
    threads = _pair(*["%st" % value if value is not None else "NULL" for value in setup.threads])
    hash_mb = _pair(*["%sMB" % value if value is not None else "NULL" for value in setup.hash])
    book = os.path.basename(setup.book.replace("\\", "/"))
    return "Results of %s vs %s (%s, %s, %s%s):" % (name1, name2, setup.time, threads, hash_mb,
                                                   ", %s" % book if book else "")


def sprt_line(sprt: Sprt, llr: float) -> str:
    """``LLR: 1.50 (51.0%) (-2.94, 2.94) [0.00, 5.00]``: the LLR, its share of the bound it
    heads for, the bounds and the hypotheses."""
    fraction = llr / sprt.upper if llr >= 0 else -llr / sprt.lower
    return "LLR: %s (%s%%) (%s, %s) [%s, %s]" % (
        fixed(llr, 2), fixed(fraction * 100.0, 1), fixed(sprt.lower, 2), fixed(sprt.upper, 2),
        fixed(sprt.elo0, 2), fixed(sprt.elo1, 2))


def block(tally: Tally, name1: str, name2: str, setup: Setup, sprt: Optional[Sprt] = None) -> List[str]:
    """The block's lines, rules included, from engine 1's point of view."""
    elo = tally_elo(tally)
    ll, ld, middle, wd, ww = tally.pentanomial
    lines = [RULE, heading(name1, name2, setup),
             "Elo: %s +/- %s, nElo: %s +/- %s" % (fixed(elo.elo, 2), fixed(elo.elo_error, 2),
                                                  fixed(elo.nelo, 2), fixed(elo.nelo_error, 2)),
             "LOS: %s %%, DrawRatio: %s %%, PairsRatio: %s" % (fixed(elo.los * 100.0, 2), fixed(elo.draw_ratio, 2),
                                                              fixed(elo.pairs_ratio, 2)),
             "Games: %d, Wins: %d, Losses: %d, Draws: %d, Points: %s (%s %%)" % (
                 tally.games, tally.wins, tally.losses, tally.draws, fixed(tally.points, 1),
                 fixed(_div(tally.points, tally.games) * 100, 2)),
             "Ptnml(0-2): [%d, %d, %d, %d, %d], WL/DD Ratio: %s" % (ll, ld, middle, wd, ww, fixed(elo.wl_dd_ratio, 2))]
    if sprt is not None:
        lines.append(sprt_line(sprt, sprt.llr(tally.pentanomial)))
    lines.append(RULE)
    return lines


def verdict_line(sprt: Sprt, verdict: str) -> str:
    """``SPRT ([0.00, 5.00]) completed - H1 was accepted`` (``verdict``: "H0" or "H1")."""
    return "SPRT ([%s, %s]) completed - %s was accepted" % (fixed(sprt.elo0, 2), fixed(sprt.elo1, 2), verdict)
