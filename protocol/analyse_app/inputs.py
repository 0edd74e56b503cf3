"""Inputs of ``pruner analyse``: FEN arguments, EPD files and PGN files turned into tasks.

A task is the unit of work of one worker: a ``PositionTask`` (one FEN or EPD line) or a
``GameTask`` (one PGN game, whose positions are analysed in order on one searcher).
Unusable input (a bad FEN or EPD line, a PGN game with an illegal move or a bad FEN header,
a file without a game, a missing file) is reported through ``report`` as ``source: reason``
and left out. EPD/FEN lines are read by engine/epd.py, PGN by engine/pgn.py, both a line at
a time from files opened by ``sources`` (compressed ones included): ``Inputs`` is a stream of
tasks, and ``filters`` chooses games by their headers before their movetext is read.
"""

import os
import re
import sys
from dataclasses import dataclass, field
from typing import IO, Callable, Iterator, List, Optional, Tuple, Union

import chess

from pruner.engine.epd import FEN_FIELD_NAMES, PLACEMENT, EpdReader, Repeats, SkippedLine, clean_line, is_comment
from pruner.engine.pgn import PgnLines, PgnReader, decode_line, read_game  # noqa: F401 (read_game: for tasks, resume, review)
from pruner.engine.textlines import BoundedLines, Line, LongLine, UniversalNewlines
from pruner.analyse_app.filters import GameFilter
from pruner.analyse_app.sources import COMPRESSIONS, InputFormat, decompressed, from_name, read_errors

FILE_SUFFIXES = (".pgn", ".epd", ".fen", ".txt") + tuple("." + suffix for suffix in COMPRESSIONS)
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

    @property
    def size(self) -> int:
        """Characters of text it holds (what the read-ahead counts)."""
        return len(self.fen) + len(self.source)


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
    fen: str
    """The game's start position (Shredder-FEN castling for Chess960)."""
    chess960: bool
    moves: Tuple[chess.Move, ...]
    """The main line's moves, as the input's reading found them: the analysis and the review
    play them without parsing the text again (only ``--format pgn``, which annotates the
    game's own text, comments included, parses it once more)."""
    headers: Tuple[Tuple[str, str], ...]
    """The game's tags as read (``Result`` from the movetext when the tags lack it)."""

    @property
    def work(self) -> int:
        """Positions this task analyses (for the progress bar)."""
        return len(self.analysed)

    @property
    def size(self) -> int:
        """Characters of text it holds (what the read-ahead counts; a move counts as its UCI)."""
        return len(self.pgn) + len(self.source) + 5 * len(self.moves) + \
            sum(len(key) + len(value) for key, value in self.headers)

    def start_board(self) -> chess.Board:
        """The game's start position, without a move stack."""
        return chess.Board(self.fen, chess960=self.chess960)


Task = Union[PositionTask, GameTask]
Report = Callable[[str], None]


def parse_position(text: str, chess960: bool = False) -> Tuple[chess.Board, dict, List[str]]:
    """A board, its EPD operations and what the lenient reading left out (``"unknown opcode
    'tcsi'"``, one entry per kind, a few of a category then their count: ``EpdReader.kinds``)
    from a FEN, an EPD line, ``startpos`` or UCI's ``startpos moves e2e4 ...`` / ``<fen> moves
    ...`` (engine/epd.py, which also recognises Chess960; ``chess960=True`` forces it). Raises
    ValueError with the reason."""
    reader = EpdReader(chess960)
    board, ops = reader.parse(text)
    return board, ops, reader.kinds()


def plan_game(board: chess.Board, n_moves: int, side: Optional[chess.Color],
              from_move: Optional[int], to_move: Optional[int] = None) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Which plies of a game get a record (``selected``) and which are searched (``analysed``).

    A ply ``k`` stands for the position after ``k`` moves from ``board`` (the game's start);
    ``side`` keeps the positions with that side to move, ``from_move`` those from that
    full-move number on and ``to_move`` those up to that one. Judging the move played at ``k`` needs the position after it too,
    so ``analysed`` adds ``k + 1`` for every selected ``k`` that has a move.
    """
    selected = []
    turn, fullmove = board.turn, board.fullmove_number
    for ply in range(n_moves + 1):
        if (side is None or turn == side) and (from_move is None or fullmove >= from_move) \
                and (to_move is None or fullmove <= to_move):
            selected.append(ply)
        if turn == chess.BLACK:
            fullmove += 1
        turn = not turn
    analysed = set(selected)
    analysed.update(ply + 1 for ply in selected if ply < n_moves)
    return tuple(selected), tuple(sorted(analysed))


@dataclass
class Selection:
    """How the inputs are read and which of their positions get a record."""

    chess960: bool = False
    """Read FEN/EPD castling rights as Chess960."""
    side: Optional[chess.Color] = None
    """PGN: only the positions with this side to move."""
    from_move: Optional[int] = None
    """PGN: only the positions from this full-move number on."""
    to_move: Optional[int] = None
    """PGN: only the positions up to this full-move number."""
    games: GameFilter = field(default_factory=GameFilter)
    """PGN: which games (``--where``, ``--skip-games``, ``--games``)."""
    input_format: InputFormat = (None, None)
    """``--input-format``: the format and compression of every file and of ``-`` (None: from
    the file name, or for ``-`` from the content)."""


class Inputs:
    """The tasks of the command line's inputs, read as a stream: iterating reads the files a
    game or a line at a time, decompressing as it goes, so a task is ready as soon as its game
    is read, whatever the size of the file. ``failed`` counts the inputs that failed so far.

    An input is ``-`` (standard input: PGN, with or without tags, or EPD/FEN lines), a file
    (``*.pgn`` = PGN, anything else = EPD/FEN lines; ``.gz``/``.bz2``/``.xz``/``.zst``
    decompressed), or a FEN/EPD string. A FEN split over several arguments (not quoted in the
    shell, or half-quoted) is joined back: its fields are never taken for other inputs (its
    ``-`` is not standard input), and when one of them is bad the whole FEN is refused, so no
    record is written for a position the user did not give.
    """

    def __init__(self, inputs: List[str], report: Report, selection: Optional[Selection] = None,
                 stdin: Optional[IO[str]] = None) -> None:
        self.inputs = list(inputs)
        self.report = report
        self.selection = selection or Selection()
        self.stdin = stdin
        self.failed = 0
        """Inputs that failed so far: bad FEN/EPD lines and arguments, PGN games with an error,
        unreadable files, files without a position or game."""

    def __iter__(self) -> Iterator[Task]:
        for first, last, argument in _join_split_fens(self.inputs):
            if argument == "-":
                yield from self._stdin()
            elif _is_file(argument):
                yield from self._file(argument)
            else:
                yield from self._argument(first, last, argument)

    def _argument(self, first: int, last: int, argument: str) -> Iterator[Task]:
        source = "argument %d" % first if first == last else "arguments %d-%d" % (first, last)
        try:
            board, ops, ignored = parse_position(argument, self.selection.chess960)
        except ValueError as exc:
            if first == last:
                self.report("%s: not a file, and not a FEN (%s): %r" % (source, exc, argument))
            else:
                what = "FEN" if PLACEMENT.match(argument.split()[0]) else "position"
                self.report("%s: not a %s (%s): %r; quote the %s to pass it as one argument"
                            % (source, what, exc, argument, what))
            self.failed += 1
            return
        if first != last:
            self.report("%s read as one position: %s (quote it to pass it as one argument)" % (source, argument))
        for kind in ignored:
            self.report("%s: %s ignored" % (source, kind))
        yield _position_task(source, board, ops)

    def _file(self, path: str) -> Iterator[Task]:
        named_format, named_compression = from_name(path)
        fmt = self.selection.input_format[0] or named_format
        compression = self.selection.input_format[1] or named_compression
        if fmt == "pgn" and self.selection.games.full:
            return  # --games N reached: nothing more of it would be taken
        try:
            raw = open(path, "rb")
        except OSError as exc:
            self.report("%s: cannot read: %s" % (path, exc.strerror or exc))
            self.failed += 1
            return
        with raw:
            yield from self._stream(decompressed(raw, compression), path, fmt)

    def _stdin(self) -> Iterator[Task]:
        stream = self.stdin or sys.stdin
        if stream.isatty():
            self.report("reading positions or games from standard input (end with Ctrl-D)")
        fmt, compression = self.selection.input_format
        binary = getattr(stream, "buffer", None)
        if binary is None:  # a text stream handed in by a caller
            if compression is not None:
                self.report("<stdin>: cannot decompress a text stream")
                self.failed += 1
                return
            yield from self._stream(stream, "<stdin>", fmt, text=True)
            return
        yield from self._stream(decompressed(binary, compression), "<stdin>", fmt)

    def _stream(self, stream: IO, path: str, fmt: Optional[str], text: bool = False) -> Iterator[Task]:
        """The tasks of one file or standard input (``stream``: binary, or ``text``); ``fmt``
        None: PGN when the first line that is not blank or a comment is a tag or movetext."""
        done = 0
        try:
            # a binary stream's lines may end in CR, LF or CRLF: read alike, as python-chess reads text
            replay = _Replay(BoundedLines(stream.readline if text else UniversalNewlines(stream.readline).readline).readline)
            if fmt is None:
                fmt = "pgn" if replay.looks_like_pgn() else "epd"
            if fmt == "pgn":
                found = self._pgn(replay if text else PgnLines(replay), path)  # type: ignore[arg-type]
            else:
                found = self._epd(replay.text_lines(), path)
            for task in found:
                done += 1
                yield task
        except read_errors() as exc:
            detail = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            if done:
                self.report("%s: cannot read further (after %d inputs): %s" % (path, done, detail))
            else:
                self.report("%s: cannot read: %s" % (path, detail))
            self.failed += 1

    def _epd(self, lines: Iterator[Union[str, LongLine]], path: str) -> Iterator[Task]:
        """One task per position line; blank and comment lines are skipped, what the lenient
        reading left out is reported once for the file, a line too long to hold is skipped."""
        reader = EpdReader(self.selection.chess960)
        repeats = Repeats()  # a few of each kind worded, the rest counted at the end
        found = skipped = 0
        for number, line in enumerate(lines, 1):
            if isinstance(line, LongLine):
                if repeats.admit("long lines skipped"):
                    self.report("%s:%d: skipped: the line %s" % (path, number, line.reason()))
                skipped += 1
                continue
            for item in reader.read([line], number):
                if isinstance(item, SkippedLine):
                    if repeats.admit("bad positions skipped"):
                        self.report("%s:%d: bad position, skipped: %s" % (path, item.number, item.reason))
                    skipped += 1
                    continue
                found += 1
                yield _position_task("%s:%d" % (path, item.number), item.board, item.ops)
        self.failed += skipped
        for message in repeats.tail():
            self.report("%s: %s" % (path, message))
        for message in reader.summary():
            self.report("%s: %s" % (path, message))
        if not found and not skipped:
            self.report("%s: no positions found" % path)
            self.failed += 1

    def _pgn(self, handle: IO[str], path: str) -> Iterator[Task]:
        """One task per game (engine/pgn.py decides what a game is); a game with any problem is
        skipped whole, text that is not a game is reported once for the file. Games left out
        by ``--where``/``--skip-games`` are not read past their headers."""
        selection = self.selection
        reader = PgnReader(selection.games.want if selection.games.active else None)
        repeats = Repeats()  # a few skipped games worded, the rest counted at the end
        for item in reader.read(handle):
            source = "%s:%d" % (path, item.line)
            if item.problem is not None:
                self.failed += 1
                if repeats.admit("games skipped"):
                    self.report("%s: game %d skipped: %s" % (source, item.number, item.problem))
            else:
                board = item.game.board()
                moves = tuple(item.game.mainline_moves())
                selected, analysed = plan_game(board, len(moves), selection.side, selection.from_move,
                                               selection.to_move)
                if selected:
                    yield GameTask(source, item.number, item.text, selected, analysed,
                                   board.fen(shredder=board.chess960), board.chess960, moves,
                                   tuple(item.game.headers.items()))
            if selection.games.full:
                break  # --games N: the rest is not read
        for message in repeats.tail():
            self.report("%s: %s" % (path, message))
        if not reader.games:
            self.report("%s: no games found (not a PGN file?)" % path)
            self.failed += 1
            return
        for message in reader.summary():
            self.report("%s: %s" % (path, message))


def file_arguments(inputs: List[str]) -> List[str]:
    """The arguments that ``Inputs`` reads as files (standard input ``-`` left out)."""
    return [argument for _, _, argument in _join_split_fens(inputs) if argument != "-" and _is_file(argument)]


def read_inputs(inputs: List[str], report: Report, chess960: bool = False,
                side: Optional[chess.Color] = None, from_move: Optional[int] = None,
                stdin: Optional[IO[str]] = None) -> Tuple[List[Task], int]:
    """Every task of ``inputs`` at once (``Inputs`` read whole), and the number of failures."""
    source = Inputs(inputs, report, Selection(chess960=chess960, side=side, from_move=from_move), stdin)
    tasks = list(source)
    return tasks, source.failed


class _Replay:
    """``readline`` over a binary or text stream that first gives back the lines read to
    look at its content (``looks_like_pgn``)."""

    def __init__(self, readline: Callable[[], Line]) -> None:
        self._readline = readline
        self._seen: List[Line] = []

    def readline(self) -> Line:
        return self._seen.pop(0) if self._seen else self._readline()

    def looks_like_pgn(self) -> bool:
        """PGN: a tag line, or movetext without tags (``1. e4 e5 2. Nf3``) as the first thing
        that is not blank or a comment (or too long to hold)."""
        while True:
            line = self._readline()
            if not line:
                return False
            self._seen.append(line)
            if isinstance(line, LongLine):
                if not line.ended:
                    return False
                continue
            text = clean_line(line if isinstance(line, str) else decode_line(line))
            if is_comment(text):
                continue
            if text.startswith("[") or text.startswith("{"):
                return True
            return bool(_MOVETEXT.match(text)) and not PLACEMENT.match(text.split()[0])

    def text_lines(self) -> Iterator[Union[str, LongLine]]:
        """The lines as ``str.splitlines`` splits a text (binary lines decoded as UTF-8, bad
        bytes replaced), a line too long to hold as its ``LongLine``."""
        while True:
            line = self.readline()
            if not line:
                return
            if isinstance(line, LongLine):
                yield line
                continue
            if isinstance(line, bytes):
                line = line.decode("utf-8", errors="replace")
            yield from line.splitlines() or [""]


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
