"""Running one task of ``pruner analyse``: search its positions, build records and PGN.

``run_task`` is the whole job of a worker process, of a cluster worker and of the in-process
(``--jobs 1``) path alike, so all produce the same output. Each task starts on a fresh
searcher: a new ``Analyser``, or the caller's long-lived one after ``new_game()`` (which makes
it equal to a fresh one); one per EPD/FEN position, one per PGN game (reused through the
game's positions in order, so later positions profit from the table). Results therefore never
depend on which worker ran which task or on task order; only the ``time_ms`` fields differ
between runs.

A record is a flat JSON-ready dict, one per position; ``RECORD_KEYS`` lists its keys.
"""

import io
import traceback
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import chess
import chess.engine
import chess.pgn

from pruner import engine
from pruner.engine.analysis import Analyser, Analysis, Line
from pruner.engine.openings import classify
from pruner.analyse_app.annotate import annotate_move, export, judge, position_game
from pruner.analyse_app.inputs import GameTask, PositionTask, Task, read_game

RECORD_KEYS = (
    "source", "id", "game", "ply", "move_number", "fen", "turn", "move_uci", "move_san",
    "best_uci", "best_san", "white_cp", "white_mate", "cp", "mate", "wdl", "white_wdl", "pv_uci", "pv_san",
    "depth", "seldepth", "nodes", "time_ms", "game_over",
    "after_white_cp", "after_white_mate", "loss", "cp_loss", "judgement", "mate_judgement", "lines")
"""Keys of every record, in output order (fields that do not apply are null)."""

LINE_KEYS = ("multipv", "move_uci", "move_san", "white_cp", "white_mate", "cp", "mate", "wdl", "white_wdl",
             "pv_uci", "pv_san", "depth", "seldepth")
"""Keys of each entry of a record's ``lines`` (one per MultiPV line, best first)."""


@dataclass(frozen=True)
class Settings:
    """Search limits and output needs, the same for every task of a run (picklable)."""

    depth: Optional[int] = None
    nodes: Optional[int] = None
    movetime_ms: Optional[int] = None
    multipv: int = 1
    hash_mb: int = 16
    want_pgn: bool = False
    """Build the annotated PGN text as well."""
    variations: str = "judged"
    """Where the annotated PGN gets the engine's line (``annotate.VARIATIONS``)."""
    engine_name: Optional[str] = None
    """The UCI engine's name (``id name``) with ``--engine``; None: Pruner in-process."""

    def engine_text(self) -> str:
        """``Pruner 0.1.0`` or the UCI engine's name, for the ``Annotator`` tag and the review."""
        return self.engine_name or "Pruner %s" % engine.__version__

    def limits_text(self) -> str:
        """The limits, for the PGN ``Annotator`` tag."""
        parts = []
        if self.depth is not None:
            parts.append("depth %d" % self.depth)
        if self.nodes is not None:
            parts.append("nodes %d" % self.nodes)
        if self.movetime_ms is not None:
            parts.append("movetime %d ms" % self.movetime_ms)
        if self.multipv > 1:
            parts.append("multipv %d" % self.multipv)
        return ", ".join(parts)


class TaskFailure(Exception):
    """A task that cannot be done, for a reason worded for the user (``run_task`` reports the
    message alone, without the exception's name)."""


@dataclass
class TaskResult:
    """What a task produced: its records and PGN text, or the reason it failed."""

    source: str
    records: List[Dict] = field(default_factory=list)
    pgn: Optional[str] = None
    error: Optional[str] = None


Tick = Callable[[int], None]


def run_task(task: Task, settings: Settings, tick: Optional[Tick] = None,
             analyser: Optional[Analyser] = None) -> TaskResult:
    """Analyse ``task``; ``tick(1)`` after each position. Never raises for a bad position.

    ``analyser``: a long-lived searcher to reuse (anything with ``analyse`` and ``new_game``
    like ``Analyser``); it gets ``new_game()`` first, so results equal a fresh one's.
    """
    tick = tick or (lambda n: None)
    try:
        if analyser is None:
            analyser = Analyser(settings.hash_mb)
        else:
            analyser.new_game()
        if isinstance(task, GameTask):
            return _run_game(task, settings, tick, analyser)
        return _run_position(task, settings, tick, analyser)
    except TaskFailure as exc:
        return TaskResult(task.source, error=str(exc))
    except Exception as exc:  # an engine bug on one input must not end a long run
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return TaskResult(task.source, error="analysis failed: %s" % detail)


def _analyse(analyser: Analyser, board: chess.Board, settings: Settings) -> Analysis:
    return analyser.analyse(board, depth=settings.depth, nodes=settings.nodes,
                            time=None if settings.movetime_ms is None else settings.movetime_ms / 1000.0,
                            multipv=settings.multipv)


def _annotator(settings: Settings) -> str:
    return "%s (%s)" % (settings.engine_text(), settings.limits_text())


def _run_position(task: PositionTask, settings: Settings, tick: Tick, analyser: Analyser) -> TaskResult:
    board = chess.Board(task.fen, chess960=task.chess960)
    analysis = _analyse(analyser, board, settings)
    tick(1)
    record = position_record(analysis, board, source=task.source, epd_id=task.epd_id)
    pgn = None
    if settings.want_pgn:
        headers = {"Annotator": _annotator(settings), "Site": task.source}
        if task.epd_id:
            headers["Event"] = task.epd_id
        pgn = export(position_game(analysis, board, headers))
    return TaskResult(task.source, [record], pgn)


def _run_game(task: GameTask, settings: Settings, tick: Tick, analyser: Analyser) -> TaskResult:
    moves = task.moves
    board = task.start_board()
    analyses: Dict[int, Analysis] = {}
    played = 0
    for ply in task.analysed:  # in game order: each search starts from the last one's table
        while played < ply:
            board = _played(board, moves[played])
            played += 1
        analyses[ply] = _analyse(analyser, board, settings)
        tick(1)

    game = nodes = None
    if settings.want_pgn:  # the annotated PGN is the game's own text with the engine's notes added
        game = read_game(io.StringIO(task.pgn))
        nodes = list(game.mainline())
    records = []
    board = task.start_board()
    played = 0
    for ply in task.selected:
        while played < ply:
            board = _played(board, moves[played])
            played += 1
        before = analyses[ply]
        move = moves[ply] if ply < len(moves) else None
        after = analyses.get(ply + 1) if move is not None else None
        judgement = judge(before, after, move) if after is not None else None
        record = position_record(before, board, source=task.source, game=task.game_number, ply=ply,
                                 move=move)
        if after is not None:
            record.update(after_white_cp=after.white_cp, after_white_mate=after.white_mate)
        if judgement is not None:
            record.update(loss=judgement.loss, cp_loss=judgement.cp_loss, judgement=judgement.name,
                          mate_judgement=judgement.mate)
        records.append(record)
        if nodes is not None and move is not None:
            annotate_move(nodes[ply], before, after, judgement, settings.variations)
    pgn = None
    if game is not None:
        game.headers["Annotator"] = _annotator(settings)
        name_opening(game)
        pgn = export(game)
    return TaskResult(task.source, records, pgn)


def _played(board: chess.Board, move: chess.Move) -> chess.Board:
    """``board`` after ``move``, keeping in its move stack only the moves since the last capture
    or pawn move: all that repetitions need (the search replays no more), while a search copies
    its board's stack, so a longer stack made a game's analysis grow with the square of its
    length."""
    zeroing = board.is_zeroing(move)
    board.push(move)
    return board.copy(stack=False) if zeroing else board


def name_opening(game: chess.pgn.Game) -> None:
    """Give ``game`` the ``ECO`` and ``Opening`` tags of the opening lichess's data set names
    (``pruner.engine.openings.classify``), as lichess's exports carry them; a game that has either
    tag keeps its own (the two always come from one source)."""
    if any(game.headers.get(tag, "?") not in ("", "?") for tag in ("ECO", "Opening")):
        return
    named = classify(game.board(), game.mainline_moves())
    if named is not None:
        game.headers["ECO"], game.headers["Opening"] = named[1].eco, named[1].name


def _score_fields(score: Optional[chess.engine.PovScore]) -> Dict:
    if score is None:
        return dict(white_cp=None, white_mate=None, cp=None, mate=None)
    white, mover = score.white(), score.relative
    return dict(white_cp=white.score(), white_mate=white.mate(), cp=mover.score(), mate=mover.mate())


def _wdl_fields(wdl: Optional[chess.engine.PovWdl]) -> Dict:
    """``wdl`` (side to move) and ``white_wdl`` as ``[wins, draws, losses]`` per mille, or null
    (an engine that reports none)."""
    if wdl is None:
        return dict(wdl=None, white_wdl=None)
    mover, white = wdl.relative, wdl.white()
    return dict(wdl=[mover.wins, mover.draws, mover.losses], white_wdl=[white.wins, white.draws, white.losses])


def line_record(line: Line) -> Dict:
    """The JSON-ready form of one MultiPV line (keys ``LINE_KEYS``)."""
    record = dict(multipv=line.multipv, move_uci=line.pv[0].uci() if line.pv else None,
                  move_san=line.pv_san[0] if line.pv_san else None)
    record.update(_score_fields(line.score))
    record.update(_wdl_fields(line.wdl))
    record.update(pv_uci=[move.uci() for move in line.pv], pv_san=list(line.pv_san),
                  depth=line.depth, seldepth=line.seldepth)
    return record


def position_record(analysis: Analysis, board: chess.Board, source: str, epd_id: Optional[str] = None,
                    game: Optional[int] = None, ply: Optional[int] = None,
                    move: Optional[chess.Move] = None) -> Dict:
    """The JSON-ready record of one analysed position (keys ``RECORD_KEYS``)."""
    record = dict.fromkeys(RECORD_KEYS)
    record.update(source=source, id=epd_id, game=game, ply=ply, move_number=board.fullmove_number,
                  fen=analysis.fen, turn="w" if analysis.turn == chess.WHITE else "b")
    if move is not None:
        record.update(move_uci=move.uci(), move_san=board.san(move))
    best = analysis.best_move
    record.update(best_uci=best.uci() if best is not None else None, best_san=analysis.best_san)
    record.update(_score_fields(analysis.score))
    record.update(_wdl_fields(analysis.wdl))
    record.update(pv_uci=[m.uci() for m in analysis.pv], pv_san=list(analysis.pv_san),
                  depth=analysis.depth, seldepth=analysis.seldepth, nodes=analysis.nodes,
                  time_ms=analysis.time_ms,
                  game_over=analysis.outcome.termination.name.lower() if analysis.outcome else None,
                  lines=[line_record(line) for line in analysis.lines])
    return record
