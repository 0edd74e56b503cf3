"""Inputs of ``pruner analyse``: FEN arguments, EPD files and PGN files turned into tasks.

A task is the unit of work of one worker: a ``PositionTask`` (one FEN or EPD line) or a
``GameTask`` (one PGN game, whose positions are analysed in order on one searcher).
Unusable input (a bad FEN or EPD line, a PGN game with an illegal move or a bad FEN header,
a file without a game, a missing file) is reported through ``report`` as ``source: reason``
and left out. EPD/FEN lines are read by engine/epd.py, PGN by engine/pgn.py.
"""

import io
import os
import re
import sys
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple, Union

import chess

from engine.epd import FEN_FIELD_NAMES, PLACEMENT, EpdReader, clean_line, is_comment, read_epd
from engine.pgn import PgnReader, read_game, read_pgn_file  # noqa: F401 (read_game: for tasks, resume, review)

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
Report = Callable[[str], None]


def parse_position(text: str, chess960: bool = False) -> Tuple[chess.Board, dict, List[str]]:
    """A board, its EPD operations and what the lenient reading left out (``"unknown opcode
    'tcsi'"``, one entry per kind) from a FEN, an EPD line, ``startpos`` or UCI's
    ``startpos moves e2e4 ...`` / ``<fen> moves ...`` (engine/epd.py, which also recognises
    Chess960; ``chess960=True`` forces it). Raises ValueError with the reason."""
    reader = EpdReader(chess960)
    board, ops = reader.parse(text)
    return board, ops, list(reader.ignored)


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

    An input is ``-`` (standard input: PGN, with or without tags, or EPD/FEN lines), a file
    (``.pgn`` = PGN, anything else = EPD/FEN lines), or a FEN/EPD string. A FEN split over
    several arguments (not quoted in the shell, or half-quoted) is joined back: its fields are
    never taken for other inputs (its ``-`` is not standard input), and when one of them is bad
    the whole FEN is refused, so no record is written for a position the user did not give.
    """
    tasks: List[Task] = []
    failed = 0
    for first, last, argument in _join_split_fens(inputs):
        if argument == "-":
            stream = stdin or sys.stdin
            if stream.isatty():
                report("reading positions or games from standard input (end with Ctrl-D)")
            text = stream.read()
            if _looks_like_pgn(text):
                found, bad = _read_pgn(text, "<stdin>", report, side, from_move)
            else:
                found, bad = _read_epd(text, "<stdin>", report, chess960)
        elif os.path.exists(argument) or argument.lower().endswith(FILE_SUFFIXES):
            pgn = argument.lower().endswith(PGN_SUFFIXES)
            try:
                if pgn:
                    text = read_pgn_file(argument)  # UTF-8, else Latin-1
                else:
                    with open(argument, encoding="utf-8-sig", errors="replace") as handle:
                        text = handle.read()
            except OSError as exc:
                report("%s: cannot read: %s" % (argument, exc.strerror or exc))
                failed += 1
                continue
            if pgn:
                found, bad = _read_pgn(text, argument, report, side, from_move)
            else:
                found, bad = _read_epd(text, argument, report, chess960)
        else:
            source = "argument %d" % first if first == last else "arguments %d-%d" % (first, last)
            try:
                board, ops, ignored = parse_position(argument, chess960)
            except ValueError as exc:
                if first == last:
                    report("%s: not a file, and not a FEN (%s): %r" % (source, exc, argument))
                else:
                    what = "FEN" if PLACEMENT.match(argument.split()[0]) else "position"
                    report("%s: not a %s (%s): %r; quote the %s to pass it as one argument"
                           % (source, what, exc, argument, what))
                found, bad = [], 1
            else:
                if first != last:
                    report("%s read as one position: %s (quote it to pass it as one argument)" % (source, argument))
                for kind in ignored:
                    report("%s: %s ignored" % (source, kind))
                found, bad = [_position_task(source, board, ops)], 0
        tasks.extend(found)
        failed += bad
    return tasks, failed


def _join_split_fens(inputs: List[str]) -> List[Tuple[int, int, str]]:
    """``(first, last, text)`` per input, 1-based argument numbers.

    A FEN the shell split (unquoted, or half-quoted: ``"<placement> b" KQkq - 0 1``) becomes one
    input: after an argument that is a FEN lacking fields, each following argument that can
    be the next field is taken as it, bad or not (``KQkx``, ``0 x``), so that the reader
    refuses the whole FEN instead of analysing a shorter one and reading its ``-`` as standard
    input. So does ``startpos moves e2e4 ...`` (or a FEN followed by ``moves``): every
    following argument that can be a move is one (``e7e6x`` refuses the whole line). Files,
    quoted positions, ``startpos``, ``moves`` and a piece placement always start a new input.
    """
    joined = []
    index = 0
    while index < len(inputs):
        words = [inputs[index]]
        if not _is_file(inputs[index]):
            have = _fen_fields_lacking(inputs[index])
            while 0 < have < len(FEN_FIELD_NAMES) and index + len(words) < len(inputs) \
                    and _can_be_fen_field(inputs[index + len(words)], have):
                words.append(inputs[index + len(words)])
                have += 1
            parts = " ".join(words).split()
            if parts and (parts[0] == "startpos" or PLACEMENT.match(parts[0])):
                moves = "moves" in parts
                if not moves and index + len(words) < len(inputs) and inputs[index + len(words)] == "moves":
                    words.append("moves")
                    moves = True
                while moves and index + len(words) < len(inputs) and _can_be_move(inputs[index + len(words)]):
                    words.append(inputs[index + len(words)])
        joined.append((index + 1, index + len(words), " ".join(words)))
        index += len(words)
    return joined


def _is_file(argument: str) -> bool:
    return os.path.exists(argument) or argument.lower().endswith(FILE_SUFFIXES)


def _starts_an_input(argument: str) -> bool:
    """True for an argument that is an input of its own, never a piece of a split FEN."""
    return (_is_file(argument) or argument in ("startpos", "moves") or bool(PLACEMENT.match(argument))
            or any(char.isspace() for char in argument) or not argument)


def _fen_fields_lacking(argument: str) -> int:
    """The number of FEN fields in ``argument`` when it is a FEN that lacks some (a placement
    alone, ``"<placement> b"``, ...), else 0."""
    parts = argument.split()
    if not parts or not PLACEMENT.match(parts[0]) or len(parts) >= len(FEN_FIELD_NAMES):
        return 0
    if len(parts) > 1 and parts[1] not in ("w", "b"):
        return 0
    if any(";" in part or '"' in part for part in parts) or "moves" in parts:
        return 0  # operations or moves: an EPD line or a UCI position, complete as it is
    if any(part[:1] not in "0123456789+-" for part in parts[4:]):
        return 0
    return len(parts)


def _can_be_fen_field(argument: str, index: int) -> bool:
    """Whether ``argument`` can be FEN field ``index`` (0-based) of a split FEN. The side to
    move must be ``w`` or ``b`` (without it the placement is refused anyway); any other field
    is taken even when malformed, for the reader to refuse; ``-`` is no counter (it may mean
    standard input after a complete four-field EPD)."""
    if _starts_an_input(argument):
        return False
    if index == 1:
        return argument in ("w", "b")
    return not (index >= 4 and argument == "-")


def _can_be_move(argument: str) -> bool:
    """Whether ``argument`` can be one of the moves after ``moves`` (legal or not: the reader
    refuses the whole line for a bad one)."""
    return not _starts_an_input(argument) and argument != "-"


_MOVETEXT = re.compile(r"\s*([0-9]+\s*\.|[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8]|O-O)")


def _position_task(source: str, board: chess.Board, ops: dict) -> PositionTask:
    epd_id = ops.get("id")
    return PositionTask(source, board.fen(shredder=board.chess960), board.chess960, epd_id if isinstance(epd_id, str) else None)


def _looks_like_pgn(text: str) -> bool:
    """PGN: a tag line, or movetext without tags (``1. e4 e5 2. Nf3``) as the first thing."""
    for raw in text.splitlines():
        line = clean_line(raw)
        if is_comment(line):
            continue
        if line.startswith("[") or line.startswith("{"):
            return True
        return bool(_MOVETEXT.match(line)) and not PLACEMENT.match(line.split()[0])
    return False


def _read_epd(text: str, path: str, report: Report, chess960: bool) -> Tuple[List[Task], int]:
    """One task per position line; blank and comment lines are skipped, what the lenient
    reading left out is reported once for the file."""
    found = read_epd(text.splitlines(), path, chess960, skipped_as="bad position, skipped")
    for message in found.problems:
        report(message)
    tasks: List[Task] = [_position_task("%s:%d" % (path, record.number), record.board, record.ops)
                         for record in found.records]
    if not tasks and not found.skipped:
        report("%s: no positions found" % path)
        return tasks, 1
    return tasks, found.skipped


def _read_pgn(text: str, path: str, report: Report, side: Optional[chess.Color],
              from_move: Optional[int]) -> Tuple[List[Task], int]:
    """One task per game (engine/pgn.py decides what a game is); a game with any problem is
    skipped whole, text that is not a game is reported once for the file."""
    tasks: List[Task] = []
    failed = 0
    reader = PgnReader()
    games = 0
    for item in reader.read(text):
        games += 1
        source = "%s:%d" % (path, item.line)
        if item.problem is not None:
            failed += 1
            report("%s: game %d skipped: %s" % (source, item.number, item.problem))
            continue
        board = item.game.board()
        n_moves = sum(1 for _ in item.game.mainline_moves())
        selected, analysed = plan_game(board, n_moves, side, from_move)
        if selected:
            tasks.append(GameTask(source, item.number, item.text, selected, analysed))
    if not games:
        report("%s: no games found (not a PGN file?)" % path)
        return tasks, failed + 1
    for message in reader.summary():
        report("%s: %s" % (path, message))
    return tasks, failed
