"""Inputs of ``pruner analyse``: FEN arguments, EPD files and PGN files turned into tasks.

A task is the unit of work of one worker: a ``PositionTask`` (one FEN or EPD line) or a
``GameTask`` (one PGN game, whose positions are analysed in order on one searcher).
Unusable input (a bad FEN or EPD line, a PGN game with an illegal move or a bad FEN header,
a missing file) is reported through ``report`` as ``source: reason`` and left out.
"""

import io
import os
import re
import sys
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple, Union

import chess
import chess.pgn

from engine.position import unplayable

PGN_SUFFIXES = (".pgn",)
"""Files with these suffixes are read as PGN; any other file as EPD/FEN lines."""

FILE_SUFFIXES = (".pgn", ".epd", ".fen", ".txt")
"""An argument ending like this is meant as a file, so a missing one is "no such file"."""


@dataclass(frozen=True)
class PositionTask:
    """One position from a FEN argument or an EPD line."""

    source: str
    """Where it came from: ``path:line`` or ``argument N``."""
    fen: str
    """The position (full FEN, clocks included)."""
    chess960: bool
    """Chess960 castling rules."""
    epd_id: Optional[str] = None
    """The EPD ``id`` operation, if any."""

    @property
    def work(self) -> int:
        """Positions this task analyses (for the progress bar)."""
        return 1


@dataclass(frozen=True)
class GameTask:
    """One PGN game."""

    source: str
    """``path:line`` of the game's first line."""
    game_number: int
    """1-based index of the game in its file."""
    pgn: str
    """The game's PGN text, as read from the file."""
    selected: Tuple[int, ...]
    """Plies (0 = start position) whose positions get a record."""
    analysed: Tuple[int, ...]
    """Plies analysed, in order: the selected ones and the positions right after their moves."""

    @property
    def work(self) -> int:
        """Positions this task analyses (for the progress bar)."""
        return len(self.analysed)


Task = Union[PositionTask, GameTask]
_NON_BLANK = re.compile(r"\S")
Report = Callable[[str], None]


class _QuietGameBuilder(chess.pgn.GameBuilder):
    """Collects PGN errors in ``game.errors`` without logging them (they are reported by us)."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def read_game(handle: io.TextIOBase) -> Optional[chess.pgn.Game]:
    """``chess.pgn.read_game`` without log output; errors end up in ``game.errors``."""
    return chess.pgn.read_game(handle, Visitor=_QuietGameBuilder)


def parse_position(text: str, chess960: bool = False) -> Tuple[chess.Board, dict]:
    """A board and its EPD operations from a FEN, an EPD line or ``startpos``.

    Chess960 is recognised on its own (Shredder-FEN or X-FEN castling rights that only make
    sense for Chess960); ``chess960=True`` forces it. Raises ValueError with the reason.
    """
    text = text.strip()
    if not text:
        raise ValueError("empty position")
    if text == "startpos":
        return chess.Board(chess960=chess960), {}
    board, ops = _parse(text, chess960)
    if not chess960 and board.status() & chess.STATUS_BAD_CASTLING_RIGHTS:
        try:
            board960, ops960 = _parse(text, True)
        except ValueError:
            pass
        else:
            if unplayable(board960) is None:
                board, ops = board960, ops960
    problem = unplayable(board)
    if problem:
        raise ValueError("illegal position: %s" % problem)
    return board, ops


def _parse(text: str, chess960: bool) -> Tuple[chess.Board, dict]:
    fields = text.split()
    if len(fields) == 6 and fields[4].isdigit() and fields[5].isdigit():
        return chess.Board(text, chess960=chess960), {}  # a full FEN
    return chess.Board.from_epd(text, chess960=chess960)  # FEN without clocks, EPD operations


def plan_game(board: chess.Board, n_moves: int, side: Optional[chess.Color],
              from_move: Optional[int]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Which plies of a game get a record (``selected``) and which are searched (``analysed``).

    A ply ``k`` stands for the position after ``k`` moves from ``board`` (the game's start);
    ``side`` keeps the positions with that side to move and ``from_move`` those from that
    full-move number on. Judging the move played at ``k`` needs the position after it too,
    so ``analysed`` adds ``k + 1`` for every selected ``k`` that has a move.
    """
    selected = []
    turn, fullmove = board.turn, board.fullmove_number
    for ply in range(n_moves + 1):
        if (side is None or turn == side) and (from_move is None or fullmove >= from_move):
            selected.append(ply)
        if turn == chess.BLACK:
            fullmove += 1
        turn = not turn
    analysed = set(selected)
    analysed.update(ply + 1 for ply in selected if ply < n_moves)
    return tuple(selected), tuple(sorted(analysed))


def read_inputs(inputs: List[str], report: Report, chess960: bool = False,
                side: Optional[chess.Color] = None, from_move: Optional[int] = None,
                stdin: Optional[io.TextIOBase] = None) -> Tuple[List[Task], int]:
    """Tasks for every usable position or game of ``inputs``, and the number of failures.

    An input is ``-`` (standard input: PGN if it has a ``[Tag ...]`` line, else EPD/FEN
    lines), a file (``.pgn`` = PGN, anything else = EPD/FEN lines), or a FEN/EPD string.
    """
    tasks: List[Task] = []
    failed = 0
    for number, argument in enumerate(inputs, 1):
        if argument == "-":
            text = (stdin or sys.stdin).read()
            if _looks_like_pgn(text):
                found, bad = _read_pgn(text, "<stdin>", report, side, from_move)
            else:
                found, bad = _read_epd(text, "<stdin>", report, chess960)
        elif os.path.exists(argument) or argument.lower().endswith(FILE_SUFFIXES):
            try:
                with open(argument, encoding="utf-8-sig", errors="replace") as handle:
                    text = handle.read()
            except OSError as exc:
                report("%s: cannot read: %s" % (argument, exc.strerror or exc))
                failed += 1
                continue
            if argument.lower().endswith(PGN_SUFFIXES):
                found, bad = _read_pgn(text, argument, report, side, from_move)
            else:
                found, bad = _read_epd(text, argument, report, chess960)
        else:
            source = "argument %d" % number
            try:
                board, ops = parse_position(argument, chess960)
            except ValueError as exc:
                report("%s: not a file, and not a FEN (%s): %r" % (source, exc, argument))
                found, bad = [], 1
            else:
                found, bad = [_position_task(source, board, ops)], 0
        tasks.extend(found)
        failed += bad
    return tasks, failed


def _position_task(source: str, board: chess.Board, ops: dict) -> PositionTask:
    epd_id = ops.get("id")
    return PositionTask(source, board.fen(shredder=board.chess960), board.chess960, epd_id if isinstance(epd_id, str) else None)


def _looks_like_pgn(text: str) -> bool:
    return any(line.lstrip().startswith("[") for line in text.splitlines())


def _read_epd(text: str, path: str, report: Report, chess960: bool) -> Tuple[List[Task], int]:
    """One task per position line; blank lines and ``#`` comments are skipped."""
    tasks: List[Task] = []
    failed = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        source = "%s:%d" % (path, number)
        try:
            board, ops = parse_position(line, chess960)
        except ValueError as exc:
            report("%s: bad position, skipped: %s" % (source, exc))
            failed += 1
            continue
        tasks.append(_position_task(source, board, ops))
    if not tasks and not failed:
        report("%s: no positions found" % path)
        failed = 1
    return tasks, failed


def _read_pgn(text: str, path: str, report: Report, side: Optional[chess.Color],
              from_move: Optional[int]) -> Tuple[List[Task], int]:
    """One task per game; a game with any PGN error is skipped whole."""
    tasks: List[Task] = []
    failed = 0
    handle = io.StringIO(text)
    number = 0
    line, counted = 1, 0  # line number of text[counted], advanced game by game (no rescans)
    while True:
        start = handle.tell()
        game = read_game(handle)
        if game is None:
            break
        end = handle.tell()
        number += 1
        first = _NON_BLANK.search(text, start, end)  # the game's first line
        offset = first.start() if first else start
        line += text.count("\n", counted, offset)
        counted = offset
        source = "%s:%d" % (path, line)
        board = game.board()
        if game.errors:
            failed += 1
            report("%s: game %d skipped: %s" % (source, number, game.errors[0]))
            continue
        if type(board) is not chess.Board:
            failed += 1
            report("%s: game %d skipped: variant %s is not supported" % (source, number, board.uci_variant))
            continue
        problem = unplayable(board)
        if problem:
            failed += 1
            report("%s: game %d skipped: illegal start position: %s" % (source, number, problem))
            continue
        n_moves = sum(1 for _ in game.mainline_moves())
        selected, analysed = plan_game(board, n_moves, side, from_move)
        if selected:
            tasks.append(GameTask(source, number, text[start:end], selected, analysed))
    if number == 0:
        report("%s: no games found" % path)
        failed += 1
    return tasks, failed
