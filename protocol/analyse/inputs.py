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

from engine.epd import EpdReader, SkippedLine, clean_line, is_comment
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
    """A board and its EPD operations from a FEN, an EPD line, ``startpos`` or UCI's
    ``startpos moves e2e4 ...`` / ``<fen> moves ...`` (engine/epd.py, which also recognises
    Chess960; ``chess960=True`` forces it). Raises ValueError with the reason."""
    return EpdReader(chess960).parse(text)


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
    several arguments (not quoted in the shell) is joined back: its fields are never taken
    for other inputs (its ``-`` is not standard input).
    """
    tasks: List[Task] = []
    failed = 0
    for first, last, argument in _join_split_fens(inputs, report):
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
            source = "argument %d" % first if first == last else "arguments %d-%d" % (first, last)
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


_FEN_FIELDS = [re.compile(p) for p in (r"[wb]\Z", r"(-|[KQkqA-Ha-h]{1,4})\Z", r"(-|[a-h][36])\Z",
                                       r"[0-9]{1,9}\Z", r"[0-9]{1,9}\Z")]
"""The FEN fields after the piece placement, in order."""
_PLACEMENT = re.compile(r"[1-8pnbrqkPNBRQK]+(/[1-8pnbrqkPNBRQK]+){7}\Z")


def _join_split_fens(inputs: List[str], report: Report) -> List[Tuple[int, int, str]]:
    """``(first, last, text)`` per input, 1-based argument numbers: a piece placement followed by
    arguments that are the next FEN fields in order (the shell split an unquoted FEN) becomes
    one input, as does ``startpos moves e2e4 ...`` (and a FEN followed by ``moves ...``)."""
    joined = []
    index = 0
    while index < len(inputs):
        words = [inputs[index]]
        if _PLACEMENT.match(inputs[index]) and not os.path.exists(inputs[index]):
            for pattern in _FEN_FIELDS:
                nxt = index + len(words)
                if nxt < len(inputs) and pattern.match(inputs[nxt]) and not os.path.exists(inputs[nxt]):
                    words.append(inputs[nxt])
                else:
                    break
        if words[0] == "startpos" or len(words) > 1 or _PLACEMENT.match(words[0]):
            nxt = index + len(words)
            if nxt < len(inputs) and inputs[nxt] == "moves":
                words.append("moves")
                while index + len(words) < len(inputs) and _UCI_MOVE.match(inputs[index + len(words)]):
                    words.append(inputs[index + len(words)])
        if len(words) > 1:
            report("arguments %d-%d read as one position: %s (quote it to pass it as one argument)"
                   % (index + 1, index + len(words), " ".join(words)))
        joined.append((index + 1, index + len(words), " ".join(words)))
        index += len(words)
    return joined


_UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?\Z")
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
        return bool(_MOVETEXT.match(line)) and not _PLACEMENT.match(line.split()[0])
    return False


def _read_epd(text: str, path: str, report: Report, chess960: bool) -> Tuple[List[Task], int]:
    """One task per position line; blank and comment lines are skipped, what the lenient
    reading left out is reported once for the file."""
    tasks: List[Task] = []
    failed = 0
    reader = EpdReader(chess960)
    for item in reader.read(text.splitlines()):
        source = "%s:%d" % (path, item.number)
        if isinstance(item, SkippedLine):
            report("%s: bad position, skipped: %s" % (source, item.reason))
            failed += 1
        else:
            tasks.append(_position_task(source, item.board, item.ops))
    for message in reader.summary():
        report("%s: %s" % (path, message))
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
        n_moves = sum(1 for _ in game.mainline_moves())
        if not n_moves and not _TAG.search(text, start, end) and not game.errors:
            number -= 1  # no tag and no move: text that is not a game (random bytes read as one)
            continue
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
        selected, analysed = plan_game(board, n_moves, side, from_move)
        if selected:
            tasks.append(GameTask(source, number, text[start:end], selected, analysed))
    if number == 0:
        report("%s: no games found (not a PGN file?)" % path)
        failed += 1
    return tasks, failed


_TAG = re.compile(r'^\s*\[[A-Za-z0-9_]+\s+"', re.MULTILINE)
"""A PGN tag pair line."""
