"""The review's hook in ``pruner analyse``: the ``--report``/``--plot`` options and the
collector that keeps every task's result as it passes through the output writer, then, at the
end, builds the reviews (``model``) and writes the page (``html``, with how far to trust its
budget: ``trust``) and the picture (``plot``).
matplotlib itself is imported only when a plot is drawn."""

import argparse
import io
import os
from typing import Callable, List, Optional, Tuple

from pruner.analyse_app.inputs import Task
from pruner.analyse_app.review.html import page_chunks
from pruner.analyse_app.review.model import GameReview, Review, build_review
from pruner.analyse_app.review.plot import FORMATS, MAX_PANELS, plot_games
from pruner.analyse_app.review.trust import stockfish_command, trust_note, trust_summary
from pruner.analyse_app.tasks import Settings, TaskResult
from pruner.extras import MATPLOTLIB_HINT, missing_matplotlib
from pruner.output_files import OutputError, replaced, unwritable, write_file
from pruner.stockfish import find_stockfish


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--report`` and ``--plot``; ``--format`` becomes "not given" by default so that a
    report-only run writes no records to stdout."""
    group = parser.add_argument_group("pictures")
    group.add_argument("--report", metavar="FILE.html",
                       help="write a game review: one self-contained HTML page with an evaluation chart, "
                            "mistakes, move list and board diagrams per game (no records on stdout then, "
                            "unless --format or -o is given)")
    group.add_argument("--plot", metavar="FILE.png",
                       help="draw the evaluation chart of every game into a PNG (or .svg/.pdf) with "
                            "matplotlib")
    parser.set_defaults(format=None)


def from_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Optional["ReviewCollector"]:
    """Check ``--report``/``--plot`` (``parser.error`` on a problem) and settle ``--format``.

    Returns the collector to wrap the output writer with, or None without either option.
    """
    wanted = args.report is not None or args.plot is not None
    if args.format is None:
        args.format = "jsonl"
        if wanted and args.output is None:
            args.output = os.devnull  # the pictures are the output
    if not wanted:
        return None
    if getattr(args, "resume", False):
        parser.error("--report/--plot cannot be combined with --resume: they would show only the inputs left")
    for option, path in (("--report", args.report), ("--plot", args.plot)):
        if path is not None:
            problem = unwritable(path)
            if problem:
                parser.error("%s %s: cannot write: %s" % (option, path, problem))
    if args.plot is not None:
        suffix = os.path.splitext(args.plot)[1].lower().lstrip(".")
        if suffix not in FORMATS:
            parser.error("--plot %s: the file name must end in %s" % (
                args.plot, ", ".join("." + name for name in FORMATS)))
        if missing_matplotlib():
            parser.error("--plot needs matplotlib, which is not installed: %s" % MATPLOTLIB_HINT)
    return ReviewCollector(args.report, args.plot)


MAX_REVIEWED = 100
"""Games and positions a review shows at most: the page holds every move of every game (about
150 KB a game), so it grows with the input, and so would the results kept for it until the
end. Beyond this the records are still written, and the review says it shows the first ones."""


class ReviewCollector:
    """Keeps the task results the review will show (the first ``MAX_REVIEWED``); ``finish``
    draws."""

    def __init__(self, report: Optional[str], plot: Optional[str], limit: Optional[int] = None) -> None:
        self.report = report
        self.plot = plot
        self.limit = MAX_REVIEWED if limit is None else limit
        self.kept: List[Tuple[Task, TaskResult]] = []
        self.left_out = 0
        """Tasks past ``limit``, not in the review."""

    def keep(self, task: Task, result: TaskResult, say: Callable[[str], None]) -> None:
        """Keep ``result`` of ``task`` for the review (results come in task order)."""
        if task.source != result.source:
            raise RuntimeError("results out of order: %s != %s" % (task.source, result.source))
        if len(self.kept) < self.limit:
            self.kept.append((task, result))
            return
        if not self.left_out:
            option = "--report %s" % self.report if self.report is not None else "--plot %s" % self.plot
            say("%s: the review shows the first %d games and positions; the records hold them all "
                "(--skip-games N and --games N choose others)" % (option, self.limit))
        self.left_out += 1

    def reviews(self, settings: Settings) -> List[Review]:
        """One review per task kept, in input order."""
        limits = "%s, %s" % (settings.engine_text(), settings.limits_text())
        return [build_review(index, task, result, limits) for index, (task, result) in enumerate(self.kept, 1)]

    def finish(self, settings: Settings, report: Callable[[str], None]) -> bool:
        """Write the report and the plot; False (after ``report``ing why) when there is no game
        to draw, OutputError when a file cannot be written."""
        reviews = self.reviews(settings)
        if self.report is not None:
            note = trust_note(settings)
            chunks = page_chunks(reviews, trust=(trust_summary(settings) or "", note) if note else None,
                                 stockfish=stockfish_command(settings, find_stockfish()))
            try:
                with replaced(self.report) as handle:  # in pieces: the whole page is never held
                    for chunk in chunks:
                        handle.write(chunk.encode("utf-8"))
            except OSError as exc:
                raise OutputError("--report %s" % self.report, exc) from None
        if self.plot is not None:
            games = [review for review in reviews if isinstance(review, GameReview) and review.points()]
            if not games:
                report("--plot %s: no analysed game to draw" % self.plot)
                return False
            if len(games) > MAX_PANELS:
                report("--plot %s: drawing the first %d of %d games" % (self.plot, MAX_PANELS, len(games)))
                games = games[:MAX_PANELS]
            buffer = io.BytesIO()
            plot_games(games, buffer, os.path.splitext(self.plot)[1].lstrip(".").lower())
            _write(self.plot, buffer.getvalue(), "--plot")
        return True


def _write(path: str, data: bytes, option: str) -> None:
    """Write ``data`` as the whole of ``path`` (protocol/output_files.py: a regular file
    through a temporary file, a device or FIFO in place); OutputError naming it."""
    try:
        write_file(path, data)
    except OSError as exc:
        raise OutputError("%s %s" % (option, path), exc) from None
