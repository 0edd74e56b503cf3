"""Play one game between two engine processes with the clocks kept by the runner.

For each move: build the UCI limit from the runner's clocks, time ``engine.play()`` with the
wall clock, and charge the elapsed time to the mover.  ``elapsed > remaining + margin`` is a
loss on time; the runner stops waiting at that point and kills an engine that has not moved.
Illegal moves, crashes and failures to start become faults; a game the engines never got to
play (start failure, match aborted) has result ``*`` and is not counted.
"""

import datetime
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import chess
import chess.engine

from .adjudication import Adjudicator, AdjudicationRules, Ending, MATE_CP, rules_outcome
from .engines import EngineCrash, EnginePlayer, EngineStartError, IllegalMove, MoveTimeout
from .openings import Opening
from .timecontrol import TimeControl

#: fault kinds, in report order
FAULT_KINDS = ("time", "illegal", "crash", "start")


@dataclass
class GameJob:
    """Which game to play: its number, pair, opening and colours."""

    number: int
    """1-based game number (the PGN Round)."""
    pair: int
    """1-based pair number; games 2k-1 and 2k share an opening with colours reversed."""
    opening_index: int
    opening: Opening
    engine1_white: bool


@dataclass
class Fault:
    """One engine failure."""

    game: int
    engine: int
    """1 or 2."""
    name: str
    kind: str
    """One of FAULT_KINDS."""
    detail: str


@dataclass
class GameSettings:
    """Per-game parameters shared by every game of a match."""

    tc: TimeControl
    margin: float = 0.1
    """Seconds an engine may exceed its clock (or move time) before losing on time."""
    rules: AdjudicationRules = field(default_factory=AdjudicationRules)
    move_timeout: float = 60.0
    """Hard limit per move (seconds) for depth/nodes games, where there is no clock."""


@dataclass
class GameRecord:
    """A finished (or abandoned) game, everything the PGN writer and the tally need."""

    job: GameJob
    white: str
    """Display name of White."""
    black: str
    board: chess.Board
    """Final position; its move stack starts at the opening's root (book moves first)."""
    book_plies: int
    result: str = "*"
    termination: str = "unterminated"
    """PGN Termination tag value."""
    reason: str = ""
    comments: List[str] = field(default_factory=list)
    """One comment per move of the stack (``book`` for book moves)."""
    fault: Optional[Fault] = None
    started: datetime.datetime = field(default_factory=datetime.datetime.now)
    duration: float = 0.0

    @property
    def counted(self) -> bool:
        """Whether the game has a result (start failures and aborted games do not)."""
        return self.result != "*"

    def engine1_score(self) -> Optional[float]:
        """1, 1/2 or 0 from engine 1's point of view; None when not counted."""
        if not self.counted:
            return None
        white_score = {"1-0": 1.0, "0-1": 0.0}.get(self.result, 0.5)
        return white_score if self.job.engine1_white else 1.0 - white_score


def _score_cp(info: Dict[str, object], mover: bool) -> Optional[int]:
    score = info.get("score")
    if isinstance(score, chess.engine.PovScore):
        return score.pov(mover).score(mate_score=MATE_CP)
    return None


def _move_comment(info: Dict[str, object], mover: bool, elapsed: float) -> str:
    """cutechess-style ``+0.35/12 0.251s`` (score from the mover's side, depth, time used)."""
    parts = []
    score = info.get("score")
    if isinstance(score, chess.engine.PovScore):
        own = score.pov(mover)
        mate = own.mate()
        if mate is not None:
            text = "%sM%d" % ("+" if mate > 0 else "-", abs(mate))
        else:
            text = "%+.2f" % ((own.score() or 0) / 100.0)
        depth = info.get("depth")
        parts.append("%s/%s" % (text, depth) if depth is not None else text)
    parts.append("%.3fs" % elapsed)
    return " ".join(parts)


def _loss(side: bool, termination: str, reason: str) -> Ending:
    return ("0-1" if side == chess.WHITE else "1-0"), termination, reason


def play_game(job: GameJob, white: EnginePlayer, black: EnginePlayer, names: Dict[bool, str],
              settings: GameSettings, abort: Optional[threading.Event] = None) -> GameRecord:
    """Play ``job`` with ``white`` and ``black`` (already-started players are reused)."""
    abort = abort or threading.Event()
    board = job.opening.start()
    record = GameRecord(job, names[chess.WHITE], names[chess.BLACK], board,
                        book_plies=len(board.move_stack), comments=["book"] * len(board.move_stack))
    started = time.perf_counter()
    players = {chess.WHITE: white, chess.BLACK: black}
    number = {chess.WHITE: 1 if job.engine1_white else 2, chess.BLACK: 2 if job.engine1_white else 1}
    side_name = {chess.WHITE: "White", chess.BLACK: "Black"}

    def fault(side: bool, kind: str, detail: str) -> None:
        record.fault = Fault(job.number, number[side], names[side], kind, detail)

    def finish(ending: Ending) -> GameRecord:
        record.result, record.termination, record.reason = ending
        record.duration = time.perf_counter() - started
        return record

    for side in (chess.WHITE, chess.BLACK):
        try:
            players[side].start()
        except EngineStartError as exc:
            fault(side, "start", str(exc))
            return finish(("*", "unterminated", "%s (%s) fails to start: %s" % (side_name[side], names[side], exc)))
    for side in (chess.WHITE, chess.BLACK):
        try:
            players[side].new_game(("match game", job.number))
        except EngineCrash as exc:
            fault(side, "crash", str(exc))
            return finish(_loss(side, "abandoned", "%s disconnects: %s" % (side_name[side], exc)))

    tc = settings.tc
    clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
    adjudicator = Adjudicator(settings.rules)
    ending = rules_outcome(board)
    while ending is None:
        if abort.is_set():
            return finish(("*", "unterminated", "Match stopped"))
        side = board.turn
        allowed = tc.allowed(clocks[side])
        timeout = allowed + settings.margin if allowed is not None else settings.move_timeout
        limit = tc.limit(clocks[chess.WHITE], clocks[chess.BLACK])
        try:
            result, elapsed = players[side].play(board, limit, timeout)
        except MoveTimeout as exc:
            if abort.is_set():
                return finish(("*", "unterminated", "Match stopped"))
            if allowed is None:
                detail = "no move within the %gs move timeout" % settings.move_timeout
            else:
                detail = "no move after %.3fs with %.3fs left (+%.3fs margin)" % (exc.elapsed, allowed, settings.margin)
            fault(side, "time", detail)
            ending = _loss(side, "time forfeit", "%s loses on time: %s" % (side_name[side], detail))
            break
        except IllegalMove as exc:
            fault(side, "illegal", str(exc))
            ending = _loss(side, "rules infraction", "%s makes an illegal move: %s" % (side_name[side], exc))
            break
        except EngineCrash as exc:
            if abort.is_set():
                return finish(("*", "unterminated", "Match stopped"))
            fault(side, "crash", str(exc))
            ending = _loss(side, "abandoned", "%s disconnects: %s" % (side_name[side], exc))
            break
        if allowed is not None and elapsed > allowed + settings.margin:
            detail = "used %.3fs with %.3fs left (+%.3fs margin)" % (elapsed, allowed, settings.margin)
            fault(side, "time", detail)
            ending = _loss(side, "time forfeit", "%s loses on time: %s" % (side_name[side], detail))
            break
        if tc.uses_clock:
            clocks[side] += tc.inc - elapsed
        board.push(result.move)
        record.comments.append(_move_comment(result.info, side, elapsed))
        ending = rules_outcome(board) or adjudicator.after_move(board, side, _score_cp(result.info, side))
    return finish(ending)
