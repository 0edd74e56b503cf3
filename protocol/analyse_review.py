"""Game review for ``pruner analyse --report FILE.html`` and ``--plot FILE.png``.

The analysis itself is the ordinary ``pruner analyse`` run: this module keeps every task's
result (``ReviewCollector`` wraps the output writer), pairs it with its task at the end and
builds one ``GameReview`` per game (or ``PositionReview`` per FEN/EPD position). The numbers
come straight from the records: the chart's points are the records' White scores capped
with the judging code's ``capped_cp``, the mistake counts are the records' ``judgement``
fields (set by ``analyse_annotate.judge``, the function behind the annotated PGN's NAGs).

Rendering lives elsewhere: ``analyse_review_html`` (the self-contained HTML page, inline
SVG) and ``analyse_plot`` (matplotlib, imported only for ``--plot``).
"""

import argparse
import io
import os
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple, Union

import chess
import chess.engine
import chess.pgn

import engine
from protocol.analyse_annotate import CP_CAP, capped_cp
from protocol.analyse_inputs import GameTask, PositionTask, Task, read_game
from protocol.analyse_tasks import Settings, TaskResult

JUDGEMENTS = ("inaccuracy", "mistake", "blunder")
"""Judgement names, mildest first (as ``analyse_annotate.THRESHOLDS`` names them)."""

DIAGRAM_JUDGEMENTS = ("mistake", "blunder")
"""Judgements that get a board diagram in the report."""

NAG_SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}

JUDGEMENT_COLOURS = {"inaccuracy": "#3d8fd1", "mistake": "#e69f00", "blunder": "#d64545"}
"""Marker colours on the charts (HTML and PNG alike)."""

CHART_LIMITS = (200, 300, 500, 1000)
"""A chart's vertical range is ± the first of these that holds every point."""

MATPLOTLIB_HINT = "pip install matplotlib (or: pip install 'pruner[plots]')"


@dataclass
class SideStats:
    """One side's moves in a reviewed game."""

    moves: int = 0
    """Moves of this side that were judged (analysed before and after)."""
    cp_loss_total: int = 0
    """Sum of the capped centipawn losses of those moves."""
    counts: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(JUDGEMENTS, 0))
    """Judged moves by judgement name."""

    @property
    def acpl(self) -> Optional[float]:
        """Average centipawn loss (None without judged moves)."""
        return self.cp_loss_total / self.moves if self.moves else None


@dataclass
class PlyView:
    """One move of a reviewed game, with what the analysis said about it."""

    ply: int
    """Plies from the game's start position (the position before the move)."""
    board: chess.Board
    """The position before the move (a copy with the game's move stack)."""
    move: chess.Move
    san: str
    record: Optional[Dict]
    """The analysis record of the position before the move (None when filtered out)."""

    @property
    def judgement(self) -> Optional[str]:
        return self.record.get("judgement") if self.record else None

    @property
    def label(self) -> str:
        """``14.`` or ``14...`` followed by the move in SAN."""
        number = self.board.fullmove_number
        return ("%d. %s" if self.board.turn == chess.WHITE else "%d... %s") % (number, self.san)


@dataclass
class GameReview:
    """Everything the report and the plot show about one analysed game."""

    index: int
    """1-based index in the report."""
    source: str
    headers: Dict[str, str]
    start: chess.Board
    plies: List[PlyView]
    records: Dict[int, Dict]
    """Analysis records by ply (0 = start position; the final position included)."""
    limits: str
    error: Optional[str] = None

    @property
    def anchor(self) -> str:
        return "game-%d" % self.index

    @property
    def title(self) -> str:
        white = self.headers.get("White", "?")
        black = self.headers.get("Black", "?")
        return "%s – %s" % (white, black)

    def points(self) -> List[Tuple[int, int]]:
        """``(ply, White's capped centipawns)`` for every analysed position, in order."""
        return chart_points(self.records.values())

    def marks(self) -> List[Tuple[int, int, PlyView]]:
        """``(ply after the move, White's capped score there, the move)`` for every judged move
        whose following position was analysed."""
        scores = dict(self.points())
        marks = []
        for view in self.plies:
            if view.judgement and view.ply + 1 in scores:
                marks.append((view.ply + 1, scores[view.ply + 1], view))
        return marks

    def stats(self) -> Dict[chess.Color, SideStats]:
        return side_stats(self.records.values())

    @property
    def nodes(self) -> int:
        return sum(record.get("nodes") or 0 for record in self.records.values())


@dataclass
class PositionReview:
    """A FEN/EPD input in the report: the position, its best move and line."""

    index: int
    source: str
    record: Optional[Dict]
    board: chess.Board
    limits: str
    error: Optional[str] = None

    @property
    def anchor(self) -> str:
        return "position-%d" % self.index

    @property
    def title(self) -> str:
        epd_id = self.record.get("id") if self.record else None
        return "Position %s" % (epd_id or self.source)


Review = Union[GameReview, PositionReview]


def white_score(record: Dict) -> Optional[int]:
    """White's score of a record's position, capped to ±``CP_CAP`` (a mate counts as the cap);
    None when the search reported no score."""
    if record.get("mate") is not None:
        relative = chess.engine.Mate(record["mate"])  # 0: the side to move is checkmated
    elif record.get("cp") is not None:
        relative = chess.engine.Cp(record["cp"])
    else:
        return None
    turn = chess.WHITE if record.get("turn") == "w" else chess.BLACK
    return capped_cp(chess.engine.PovScore(relative, turn).white())


def chart_points(records) -> List[Tuple[int, int]]:
    """``(ply, White's capped centipawns)`` of the records that have a score, by ply."""
    points = []
    for record in records:
        score = white_score(record)
        if score is not None and record.get("ply") is not None:
            points.append((record["ply"], score))
    return sorted(points)


def chart_limit(points: List[Tuple[int, int]]) -> int:
    """The chart's range ± in centipawns: the smallest of ``CHART_LIMITS`` holding every point
    (a mate, at ±``CP_CAP``, always gets the full range and sits on the edge)."""
    largest = max((abs(score) for _, score in points), default=0)
    for limit in CHART_LIMITS:
        if largest <= limit:
            return limit
    return CP_CAP


def side_stats(records) -> Dict[chess.Color, SideStats]:
    """Average centipawn loss and judgement counts of each side's judged moves."""
    stats = {chess.WHITE: SideStats(), chess.BLACK: SideStats()}
    for record in records:
        if record.get("cp_loss") is None:
            continue
        side = stats[chess.WHITE if record["turn"] == "w" else chess.BLACK]
        side.moves += 1
        side.cp_loss_total += record["cp_loss"]
        if record.get("judgement") in side.counts:
            side.counts[record["judgement"]] += 1
    return stats


def format_score(white_cp: Optional[int], white_mate: Optional[int], turn: Optional[str] = None) -> str:
    """``+0.34``, ``#3``, ``#-2``; a checkmate on the board (mate 0) is ``#``."""
    if white_mate is not None:
        return "#" if white_mate == 0 else "#%d" % white_mate
    if white_cp is None:
        return ""
    return "%+.2f" % (white_cp / 100.0 + 0.0)


def numbered_line(board: chess.Board, sans: List[str]) -> str:
    """``14... Nc3 15. Be2 O-O`` for SAN moves played from ``board``."""
    parts = []
    number, turn = board.fullmove_number, board.turn
    for index, san in enumerate(sans):
        if turn == chess.WHITE:
            parts.append("%d. %s" % (number, san))
        elif index == 0:
            parts.append("%d... %s" % (number, san))
        else:
            parts.append(san)
        if turn == chess.BLACK:
            number += 1
        turn = not turn
    return " ".join(parts)


def build_review(index: int, task: Task, result: TaskResult, limits: str) -> Review:
    """The review of one task from its result."""
    if isinstance(task, PositionTask):
        board = chess.Board(task.fen, chess960=task.chess960)
        record = result.records[0] if result.records else None
        return PositionReview(index, task.source, record, board, limits, result.error)
    game = read_game(io.StringIO(task.pgn))
    records = {record["ply"]: record for record in result.records}
    board = game.board()
    start = board.copy()
    plies = []
    for ply, move in enumerate(game.mainline_moves()):
        plies.append(PlyView(ply, board.copy(), move, board.san(move), records.get(ply)))
        board.push(move)
    headers = {key: value for key, value in game.headers.items() if value not in ("", "?", "????.??.??")}
    return GameReview(index, task.source, headers, start, plies, records, limits, result.error)


# --- the hooks in ``pruner analyse`` -------------------------------------------------------------

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
            problem = _unwritable(path)
            if problem:
                parser.error("%s %s: cannot write: %s" % (option, path, problem))
    if args.plot is not None:
        from protocol.analyse_plot import FORMATS, missing_matplotlib
        suffix = os.path.splitext(args.plot)[1].lower().lstrip(".")
        if suffix not in FORMATS:
            parser.error("--plot %s: the file name must end in %s" % (
                args.plot, ", ".join("." + name for name in FORMATS)))
        if missing_matplotlib():
            parser.error("--plot needs matplotlib, which is not installed: %s" % MATPLOTLIB_HINT)
    return ReviewCollector(args.report, args.plot)


def _unwritable(path: str) -> Optional[str]:
    if os.path.isdir(path):
        return "is a directory"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return "no such directory"
    if not os.access(folder, os.W_OK):
        return "permission denied"
    return None


class ReviewCollector:
    """Keeps every task result that passes through the output writer; ``finish`` draws."""

    def __init__(self, report: Optional[str], plot: Optional[str]) -> None:
        self.report = report
        self.plot = plot
        self.results: List[TaskResult] = []

    def wrap(self, writer):
        """A writer that writes through ``writer`` and keeps each result."""
        collector = self

        class _Tee:
            def write(self, result: TaskResult) -> int:
                collector.results.append(result)
                return writer.write(result)

        return _Tee()

    def reviews(self, tasks: List[Task], settings: Settings) -> List[Review]:
        """One review per task, in input order (results come in task order)."""
        limits = "Pruner %s, %s" % (engine.__version__, settings.limits_text())
        reviews = []
        for index, (task, result) in enumerate(zip(tasks, self.results), 1):
            if task.source != result.source:
                raise RuntimeError("results out of order: %s != %s" % (task.source, result.source))
            reviews.append(build_review(index, task, result, limits))
        return reviews

    def finish(self, tasks: List[Task], settings: Settings, report: Callable[[str], None]) -> bool:
        """Write the report and the plot; False (after ``report``ing why) when one failed."""
        reviews = self.reviews(tasks, settings)
        ok = True
        if self.report is not None:
            from protocol.analyse_review_html import render_report
            ok = _write_atomic(self.report, render_report(reviews).encode("utf-8"), "--report", report) and ok
        if self.plot is not None:
            from protocol.analyse_plot import MAX_PANELS, plot_games
            games = [review for review in reviews if isinstance(review, GameReview) and review.points()]
            if not games:
                report("--plot %s: no analysed game to draw" % self.plot)
                return False
            if len(games) > MAX_PANELS:
                report("--plot %s: drawing the first %d of %d games" % (self.plot, MAX_PANELS, len(games)))
                games = games[:MAX_PANELS]
            buffer = io.BytesIO()
            plot_games(games, buffer, os.path.splitext(self.plot)[1].lstrip(".").lower())
            ok = _write_atomic(self.plot, buffer.getvalue(), "--plot", report) and ok
        return ok


def _write_atomic(path: str, data: bytes, option: str, report: Callable[[str], None]) -> bool:
    """Write ``data`` to a temporary file next to ``path`` and move it into place."""
    temporary = "%s.%d.tmp" % (path, os.getpid())
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError as exc:
        report("%s %s: cannot write: %s" % (option, path, exc.strerror or exc))
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False
    return True


__all__ = ["CP_CAP", "GameReview", "PositionReview", "ReviewCollector", "SideStats", "add_arguments",
           "build_review", "chart_points", "format_score", "from_args", "numbered_line", "side_stats",
           "white_score"]
