"""How far a review's judgements can be trusted: what scripts/judge_agreement.py measured of the
search budget that made them (docs/analysis.md, "How far to trust the judgements").

The measurement: 15 lichess games of players rated 800-1999 (docs/data), every move judged by
Pruner at several budgets and by Stockfish 15.1 at depth 20 (the reference), the judgements
compared move by move. ``MEASURED`` keeps, per budget, the three figures the review page
quotes; the page says them for its own budget (``trust_note``) and, when Pruner judged and
Stockfish is installed, how to judge with Stockfish (``stockfish_command``).
"""

import shlex
from dataclasses import dataclass
from typing import Optional, Tuple

from pruner.engine.analysis import DEFAULT_DEPTH
from pruner.analyse_app.tasks import Settings

REFERENCE = "Stockfish at depth 20"
"""What the figures compare with."""

SAMPLE = "15 lichess games of players rated 800-1999"
"""What they were measured on."""


@dataclass(frozen=True)
class Measured:
    """The agreement of one engine at one budget with the reference."""

    engine: str
    """``Pruner`` (in-process, CPython) or ``Stockfish`` (``--engine``)."""
    depth: Optional[int]
    movetime_ms: Optional[int]
    recall: float
    """Share of the reference's mistakes and blunders this budget calls a mistake or a blunder."""
    precision: float
    """Share of this budget's mistakes and blunders the reference calls so."""
    accuracy_diff: float
    """Mean absolute difference of a player's accuracy from the reference's, in points."""
    seconds: float
    """CPU seconds per game of the measurement (CPython for Pruner; games of 74 plies on average), on
    the machine the comment over ``MEASURED`` names: Pruner's rows and Stockfish's differ."""

    @property
    def budget(self) -> str:
        """``depth 6`` or ``1 s a move``."""
        if self.depth is not None:
            return "depth %d" % self.depth
        return "%g s a move" % (self.movetime_ms / 1000)

    def summary(self) -> str:
        """The figure the page shows on one line (``sentence`` under it, unfolded on a click)."""
        return "%s at %s finds %.0f%% of the mistakes and blunders %s finds" % (
            self.engine, self.budget, 100 * self.recall, REFERENCE)

    def sentence(self) -> str:
        """What the page says of this budget."""
        return ("%s at %s finds %.0f%% of the mistakes and blunders that %s finds in the same games, and "
                "%.0f%% of the mistakes and blunders it reports are among them; a player's accuracy is %.1f "
                "points from the one %s gives, on average (measured on %s)."
                % (self.engine, self.budget, 100 * self.recall, REFERENCE, 100 * self.precision,
                   self.accuracy_diff, REFERENCE, SAMPLE))


MEASURED: Tuple[Measured, ...] = (
    # scripts/judge_agreement.py, 2026-12-03, commit 71ff1c9, CPython, half-speed machine (docs/analysis.md):
    # mistakes and blunders found / the reference's 102, found / all this budget marked.
    Measured("Pruner", 4, None, recall=42 / 102, precision=42 / 70, accuracy_diff=5.40, seconds=8.02),
    Measured("Pruner", 6, None, recall=42 / 102, precision=42 / 64, accuracy_diff=5.52, seconds=32.93),
    Measured("Pruner", 7, None, recall=42 / 102, precision=42 / 66, accuracy_diff=6.53, seconds=65.06),
    Measured("Pruner", 8, None, recall=44 / 102, precision=44 / 74, accuracy_diff=5.34, seconds=121.27),
    Measured("Pruner", None, 1000, recall=40 / 102, precision=40 / 66, accuracy_diff=5.91, seconds=73.93),
    # Stockfish's rows: 2026-11-28, 4e3017b's run on the shared machine (about twice the half-speed
    # one's speed); its judgements do not depend on Pruner's commit.
    Measured("Stockfish", 12, None, recall=83 / 102, precision=83 / 110, accuracy_diff=1.44, seconds=2.59),
    Measured("Stockfish", 16, None, recall=89 / 102, precision=89 / 105, accuracy_diff=1.02, seconds=13.79),
)
"""scripts/judge_agreement.py's table (docs/analysis.md has it whole, with its commands)."""

STOCKFISH_DEPTH = 16
"""The depth the page suggests for Stockfish: it finds 87% of depth 20's mistakes and blunders
and every blunder, in 14 s a game (depth 12: 81%, 3 s)."""


def measured(settings: Settings) -> Optional[Measured]:
    """The measurement of exactly the budget of ``settings``, or None when it was not measured
    (another budget, ``--nodes``, another engine, several limits at once)."""
    engine = "Pruner" if settings.engine_name is None else (
        "Stockfish" if settings.engine_name.startswith("Stockfish") else None)
    if engine is None or settings.nodes is not None:
        return None
    depth = settings.depth
    if depth is None and settings.movetime_ms is None:
        depth = DEFAULT_DEPTH
    if depth is not None and settings.movetime_ms is not None:
        return None
    for row in MEASURED:
        if row.engine == engine and row.depth == depth and row.movetime_ms == settings.movetime_ms:
            return row
    return None


def trust_note(settings: Settings) -> Optional[str]:
    """The page's line on how far to trust its judgements: the measurement of its budget; for
    Pruner at a budget not measured, which were; None for another engine's budget not measured."""
    row = measured(settings)
    if row is not None:
        return row.sentence()
    if settings.engine_name is not None:
        return None
    budgets = [row.budget for row in MEASURED if row.engine == "Pruner"]
    return "not measured at this budget (docs/analysis.md compares Pruner at %s and %s with %s)." % (
        ", ".join(budgets[:-1]), budgets[-1], REFERENCE)


def trust_summary(settings: Settings) -> Optional[str]:
    """``trust_note``'s one-line form: the recall of the measured budget, "not measured at this
    budget" for Pruner at another, None for another engine's budget not measured."""
    row = measured(settings)
    if row is not None:
        return row.summary()
    return None if settings.engine_name is not None else "not measured at this budget"


def stockfish_command(settings: Settings, stockfish: Optional[str]) -> Optional[str]:
    """The command that reviews with Stockfish, for a review Pruner made where Stockfish is
    installed (``stockfish``: its path, ``pruner.stockfish.find_stockfish``); else None."""
    if settings.engine_name is not None or not stockfish:
        return None
    return "pruner analyse --engine %s --depth %d --report review.html GAMES.pgn" % (
        shlex.quote(stockfish), STOCKFISH_DEPTH)
