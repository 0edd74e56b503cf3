"""Text output of a match: the live line per game, the summary and the final line."""

import math
from typing import List, Optional

from .game import GameRecord
from .stats import EloEstimate, Sprt, los
from .tally import Tally


def fmt_elo(value: float) -> str:
    """An Elo difference with its sign (``+12.3``, ``-inf``)."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return "%+.1f" % (value + 0.0)  # no "-0.0"


def fmt_estimate(estimate: Optional[EloEstimate]) -> str:
    """``+12.3 ± 45.6``, or ``n/a`` before the first game. ``stats.elo_estimate`` gives finite
    ends for every sample (small ones by the empirical logit, marked by ``adjusted_note``);
    an estimate with an unbounded end shows both ends, ``-240.8 [-inf, -55.3]``."""
    if estimate is None:
        return "n/a"
    if math.isfinite(estimate.low) and math.isfinite(estimate.high):
        return "%s ± %.1f" % (fmt_elo(estimate.elo), estimate.error)
    return "%s [%s, %s]" % (fmt_elo(estimate.elo), fmt_elo(estimate.low), fmt_elo(estimate.high))


def adjusted_note(estimate: Optional[EloEstimate]) -> str:
    """``", adjusted"`` for a small-sample (empirical-logit) estimate, else ``""``."""
    return ", adjusted" if estimate is not None and estimate.adjusted else ""


def wdl(tally: Tally) -> str:
    """``W 3 D 4 L 1``: engine 1's wins, draws and losses."""
    return "W %d D %d L %d" % (tally.wins, tally.draws, tally.losses)


def fmt_score(tally: Tally) -> str:
    """``score 62.5% (5/8)``: engine 1's points over the counted games; ``score n/a`` before any."""
    if not tally.games:
        return "score n/a"
    return "score %.1f%% (%g/%d)" % (100.0 * (tally.score or 0.0), tally.points, tally.games)


def progress_line(record: GameRecord, tally: Tally, total: int, sprt: Optional[Sprt]) -> str:
    """One line per finished game: the game, then the running totals."""
    moves = (len(record.board.move_stack) - record.book_plies + 1) // 2
    width = len(str(total))
    line = "[%*d/%d] %s - %s  %s  %s" % (width, record.job.number, total, record.white, record.black,
                                          record.result, record.reason)
    if record.counted:
        line += " (%d moves, %.1fs)" % (moves, record.duration)
    estimate, _ = tally.best_elo()
    line += "  | %s  %.1f%%  Elo %s" % (wdl(tally), 100.0 * (tally.score or 0.0), fmt_estimate(estimate))
    if sprt is not None:
        line += "  LLR %.2f" % sprt.llr(tally.pentanomial)
    if tally.faults:
        line += "  faults %d" % len(tally.faults)
    return line


def summary_lines(tally: Tally, name1: str, name2: str, sprt: Optional[Sprt],
                  verdict: Optional[str], pgn: Optional[str]) -> List[str]:
    """The block printed after the last game (before the final line)."""
    lines = ["", "Results of %s vs %s (engine 1's point of view):" % (name1, name2)]
    lines.append("  %s  %s  draw ratio %s" % (
        wdl(tally), fmt_score(tally),
        "%.1f%%" % (100.0 * tally.draws / tally.games) if tally.games else "n/a"))
    lines.append("  as White: W %d D %d L %d   as Black: W %d D %d L %d" % (tuple(tally.white) + tuple(tally.black)))
    trinomial, pentanomial = tally.elo(), tally.penta_elo()
    lines.append("  Elo (trinomial, 95%%%s): %s   LOS %.1f%%" % (
        adjusted_note(trinomial), fmt_estimate(trinomial), 100.0 * los(tally.wins, tally.losses)))
    lines.append("  Pentanomial [LL LD DD+WL WD WW]: %s over %d pairs, Elo (95%%%s): %s" % (
        tally.pentanomial, tally.pairs, adjusted_note(pentanomial), fmt_estimate(pentanomial)))
    if sprt is not None:
        llr = sprt.llr(tally.pentanomial)
        state = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(verdict or "", "no decision")
        lines.append("  SPRT (%s Elo, pentanomial): elo0 %g elo1 %g alpha %g beta %g: LLR %.2f [%.2f, %.2f] %s" % (
            sprt.model, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, llr, sprt.lower, sprt.upper, state))
    if tally.terminations:
        lines.append("  Terminations: %s" % ", ".join("%s %d" % item for item in sorted(tally.terminations.items())))
    if tally.uncounted:
        lines.append("  Games without result (not counted): %d" % tally.uncounted)
    counts = tally.fault_counts()
    lines.append("Faults: %d (time losses %d, illegal moves %d, crashes/disconnects %d, failed starts %d)" % (
        len(tally.faults), counts["time"], counts["illegal"], counts["crash"], counts["start"]))
    for fault in tally.faults:
        game = "game %d" % fault.game if fault.game else "before the match"
        lines.append("  %s: engine %d (%s) %s: %s" % (game, fault.engine, fault.name, fault.kind, fault.detail))
    if pgn:
        lines.append("PGN: %s" % pgn)
    return lines


def final_line(tally: Tally, verdict: Optional[str] = None) -> str:
    """The last line: W/D/L, score, Elo ± 95% interval, fault count (and SPRT verdict)."""
    estimate, model = tally.best_elo()
    line = "Final: %s  %s  Elo %s (95%%, %s%s)  faults %d" % (
        wdl(tally), fmt_score(tally), fmt_estimate(estimate), model, adjusted_note(estimate), len(tally.faults))
    if verdict:
        line += "  SPRT %s" % verdict
    return line
