"""The numbers of a game review (``pruner analyse --report FILE.html`` and ``--plot FILE.png``).

``build_review`` pairs a task with its result and makes one ``GameReview`` per game (or
``PositionReview`` per FEN/EPD position), with everything both pictures show. The numbers
come straight from the records: the chart's points are the records' White scores capped
with the judging code's ``capped_cp``, the mistake counts are the records' ``judgement``
fields (set by ``annotate.judge``, the function behind the annotated PGN's NAGs).

This module imports nothing of the renderers: ``html`` (the self-contained page, inline SVG)
and ``plot`` (matplotlib) import it, and ``collect`` (the hook in ``pruner analyse``) imports
all three.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import chess
import chess.engine
import chess.pgn

from pruner.engine.openings import Opening, classify
from pruner.analyse_app.annotate import CP_CAP, MATE_JUDGEMENTS, capped_cp
from pruner.analyse_app.inputs import PositionTask, Task
from pruner.analyse_app.review.accuracy import game_accuracy, win_percent
from pruner.analyse_app.tasks import TaskResult

JUDGEMENTS = ("inaccuracy", "mistake", "blunder")
"""Judgement names, mildest first (as ``annotate.THRESHOLDS`` names them)."""

DIAGRAM_JUDGEMENTS = ("mistake", "blunder")
"""Judgements that get a board diagram in the report."""

NAG_SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}

JUDGEMENT_COLOURS = {"inaccuracy": "#3d8fd1", "mistake": "#e69f00", "blunder": "#d64545"}
"""Marker colours on the charts (HTML and PNG alike)."""

CHART_LIMITS = (200, 300, 500, 1000)
"""A chart's vertical range is ± the first of these that holds every point."""

@dataclass
class SideStats:
    """One side's moves in a reviewed game."""

    moves: int = 0
    """Moves of this side that were judged (analysed before and after)."""
    cp_loss_total: int = 0
    """Sum of the capped centipawn losses of those moves."""
    counts: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(JUDGEMENTS, 0))
    """Judged moves by judgement name."""
    accuracy: Optional[float] = None
    """lichess's accuracy 0..100 of the side's moves (``GameReview.accuracy``); None without one."""

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
    """The position before the move (a copy without the game's move stack: copying the stack
    at every ply made a review grow with the square of the game's length)."""
    move: chess.Move
    san: str
    record: Optional[Dict]
    """The analysis record of the position before the move (None when filtered out)."""

    @property
    def judgement(self) -> Optional[str]:
        """The move's judgement (``inaccuracy``, ``mistake``, ``blunder``), or None."""
        return self.record.get("judgement") if self.record else None

    @property
    def judgement_text(self) -> Optional[str]:
        """What lichess says of the move: ``Mistake``, ``Checkmate is now unavoidable``, ... or None."""
        if not self.judgement:
            return None
        mate = self.record.get("mate_judgement") if self.record else None
        return MATE_JUDGEMENTS[mate] if mate in MATE_JUDGEMENTS else self.judgement.capitalize()

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
    opening: Optional[Tuple[int, Opening]] = None
    """The game's opening as lichess names it, ``(plies played to its position, Opening)``
    (``pruner.engine.openings.classify``); None when no position of the game is named."""

    @property
    def anchor(self) -> str:
        """The game's HTML anchor (``game-3``)."""
        return "game-%d" % self.index

    @property
    def title(self) -> str:
        """``White – Black`` from the headers."""
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
        """Each side's judged moves, centipawn loss and accuracy."""
        stats = side_stats(self.records.values())
        for side, accuracy in self.accuracy().items():
            stats[side].accuracy = accuracy
        return stats

    def position_scores(self) -> List[Optional[int]]:
        """White's capped score of every position of the game (index = plies played, 0 = the
        start, the last = after the last move): a record's own score, else the score after
        the previous record's move; None where neither was analysed."""
        return self._per_position(white_score, after_white_score)

    def position_shares(self) -> List[Optional[float]]:
        """White's share 0..100 of the evaluation bar at every position (index as
        ``position_scores``, from the same scores): ``white_share``."""
        return self._per_position(
            lambda record: white_share(record.get("white_cp"), record.get("white_mate"), record.get("turn") == "w"),
            lambda record: white_share(record.get("after_white_cp"), record.get("after_white_mate"),
                                       record.get("turn") != "w"))

    def _per_position(self, own: Callable[[Dict], Any], after: Callable[[Dict], Any]) -> List[Any]:
        """``own(record)`` of every position's record, else ``after(record)`` of the previous
        position's record (the position after its move), else None."""
        values: List[Any] = []
        for ply in range(len(self.plies) + 1):
            record = self.records.get(ply)
            value = own(record) if record is not None else None
            if value is None and ply - 1 in self.records:
                value = after(self.records[ply - 1])
            values.append(value)
        return values

    def accuracy(self) -> Dict[chess.Color, Optional[float]]:
        """Each side's accuracy as lichess computes it (``accuracy.game_accuracy``)."""
        wins = [None if score is None else win_percent(score) for score in self.position_scores()]
        return game_accuracy(wins, self.start.turn)

    @property
    def nodes(self) -> int:
        """Nodes searched for all the game's analysed positions."""
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
        """The position's HTML anchor (``position-2``)."""
        return "position-%d" % self.index

    @property
    def title(self) -> str:
        """``Position`` and the EPD ``id``, else the source."""
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


def white_share(white_cp: Optional[int], white_mate: Optional[int], white_to_move: bool) -> Optional[float]:
    """White's share 0..100 of an evaluation bar, as lichess's gauge fills it: the win% of
    White's score capped at ±``CP_CAP`` (``accuracy.win_percent``), all (or none) of it for a
    mate; a mate of 0 (checkmate on the board) is against the side to move. None without a
    score."""
    if white_mate is not None:
        if white_mate == 0:
            return 0.0 if white_to_move else 100.0
        return 100.0 if white_mate > 0 else 0.0
    if white_cp is None:
        return None
    return win_percent(white_cp)


def after_white_score(record: Dict) -> Optional[int]:
    """White's capped score of the position after a record's move (None: not analysed)."""
    if record.get("after_white_mate") is not None:
        mate = record["after_white_mate"]
        if mate == 0:  # checkmate on the board: the side to move after the move, the opponent, is mated
            return CP_CAP if record.get("turn") == "w" else -CP_CAP
        return capped_cp(chess.engine.Mate(mate))
    if record.get("after_white_cp") is not None:
        return capped_cp(chess.engine.Cp(record["after_white_cp"]))
    return None


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


def build_review(index: int, task: Task, result: TaskResult, limits: str) -> Review:
    """The review of one task from its result."""
    if isinstance(task, PositionTask):
        board = chess.Board(task.fen, chess960=task.chess960)
        record = result.records[0] if result.records else None
        return PositionReview(index, task.source, record, board, limits, result.error)
    records = {record["ply"]: record for record in result.records}
    board = task.start_board()  # the game as the input read it: not parsed again
    start = board.copy(stack=False)
    plies = []
    for ply, move in enumerate(task.moves):
        plies.append(PlyView(ply, board.copy(stack=False), move, board.san(move), records.get(ply)))
        board.push(move)
    # PGN's placeholders: "?" unknown, "-" not applicable (lichess's Round), "????.??.??" no date
    headers = {key: value for key, value in task.headers if value not in ("", "?", "-", "????.??.??")}
    opening = classify(start, (view.move for view in plies))
    return GameReview(index, task.source, headers, start, plies, records, limits, result.error, opening)


def move_ticks(start: chess.Board, last_ply: int) -> List[Tuple[int, int]]:
    """``(ply, full-move number)`` of about a dozen axis labels: the plies before White's moves
    numbered 1, 2, 5, 10, ... apart (``start`` may be any position, e.g. from a FEN)."""
    offset = 0 if start.turn == chess.WHITE else 1
    first_move = start.fullmove_number
    last_move = first_move + (last_ply + offset) // 2
    count = last_move - first_move + 1
    step = next(step for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10 ** 9) if count / step <= 12)
    ticks = []
    for move in range(first_move, last_move + 1):
        ply = 2 * (move - first_move) - offset
        if move % step == 0 and 0 <= ply <= last_ply:
            ticks.append((ply, move))
    return ticks
