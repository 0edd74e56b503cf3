"""``pruner analyse --resume -o FILE``: continue a run that stopped, writing nothing twice.

Output is written in input order, a task (one position, one game) at a time, so a file left
by a killed run is: the output of the first tasks, then maybe part of the next task's output
(a game's first records, a torn last line). ``resume_output`` reads it back, matches it
against the tasks in order (JSON Lines and CSV by each record's ``source`` and ``ply``, PGN
by each game's headers), cuts the file after the last complete task and returns the tasks
still to run; the run then appends their output. A game that was cut is analysed again from
its start, because its later searches reuse the table of its earlier ones: the finished
file equals an uninterrupted run's (apart from ``time_ms``). Tasks that had failed (no
output) before the cut are not retried. A file that does not match the inputs is refused.
The file and the tasks are both read as streams (the tasks only as far as the file goes).

The settings that make the records (limits, MultiPV, hash, engine and its options, format,
which positions and games) are recorded beside the output, in ``FILE.settings.json``
(``record_settings``), when a run writes a regular file; ``check_settings`` refuses to resume
with other settings, naming each that differs. An output written before settings were
recorded (or whose record was deleted) is resumed unchecked, with a note.
"""

import csv
import functools
import io
import itertools
import json
import os
from dataclasses import dataclass
from typing import IO, Dict, Iterable, Iterator, List, Optional, Tuple

import chess
import chess.pgn

from pruner.engine.textlines import BoundedLines, LongLine
from pruner.analyse_app.inputs import GameTask, PositionTask, Task, read_game
from pruner.analyse_app.output import CSV_COLUMNS, CsvWriter, csv_writer, make_writer, unescape_cell
from pruner.output_files import describe_error, write_file

Key = Tuple[str, Optional[int]]
"""A record's identity: its ``source`` and ``ply`` (None for a FEN/EPD position)."""

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class ResumeError(Exception):
    """The existing output file cannot be continued (it does not match the inputs)."""


SETTINGS_SUFFIX = ".settings.json"
"""The settings of the run that wrote ``FILE`` are in ``FILE`` + this."""
SETTINGS_FORMAT = 1
"""Version of the settings file's layout."""

RunSettings = Dict[str, object]
"""The settings that make the records, by the option that sets each (``--depth``: 6)."""


def settings_path(output: str) -> str:
    """Where the settings of the run writing ``output`` are recorded."""
    return output + SETTINGS_SUFFIX


def record_settings(output: str, settings: RunSettings) -> None:
    """Record ``settings`` beside ``output`` (a whole file, replaced at once); OSError."""
    text = json.dumps({"program": "pruner analyse", "format": SETTINGS_FORMAT, "settings": settings},
                      indent=1, sort_keys=True)
    write_file(settings_path(output), (text + "\n").encode("utf-8"))


def check_settings(output: str, settings: RunSettings) -> Optional[str]:
    """None when ``output``'s recorded settings are ``settings``, a note when none are
    recorded (nothing to check); ResumeError naming every setting that differs, or an
    unreadable record. A setting that only one of the two states is not compared (a record
    of an older layout; the engine named by its command under ``--cluster``, by its ``id
    name`` otherwise)."""
    path = settings_path(output)
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)
    except FileNotFoundError:
        return "no settings are recorded beside %s (written by an older version?): not checked" % output
    except OSError as exc:
        raise ResumeError("%s: cannot read: %s" % (path, describe_error(exc)))
    try:
        recorded = json.loads(data.decode("utf-8"))["settings"]
        recorded.items()
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ResumeError("%s is not a settings record of pruner analyse" % path) from None
    differ = ["%s %s, this run %s" % (option, _shown(recorded[option]), _shown(value))
              for option, value in sorted(settings.items())
              if option in recorded and _comparable(recorded[option]) != _comparable(value)]
    if differ:
        raise ResumeError("%s was written with other settings (%s): %s; run with the same settings, or write "
                          "another file" % (output, path, "; ".join(differ)))
    return None


def _comparable(value: object) -> object:
    """JSON gives lists where Python has tuples."""
    return json.loads(json.dumps(value))


def _shown(value: object) -> str:
    if value is None:
        return "not given"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return " ".join(_shown(item) for item in value) if value else "none"
    return str(value)


@dataclass
class Resumed:
    """The output file reopened for appending, and what is left to do."""

    stream: IO[str]
    """Positioned at the end of the last complete task (the rest was cut off)."""
    tasks: Iterator[Task]
    """Tasks not in the file yet, in input order (the rest of the input, read as it goes)."""
    done_tasks: int
    """Tasks before the cut (including failed ones, which left no output)."""
    done_positions: int
    """Records (positions) kept."""
    cut_bytes: int
    """Bytes of incomplete output removed from the end."""
    csv_header: bool = False
    """A CSV header is already there."""

    def writer(self, fmt: str):
        """The format's writer on ``stream``, without a second CSV header."""
        if fmt == "csv" and self.csv_header:
            return _HeaderlessCsvWriter(self.stream)
        return make_writer(fmt, self.stream)


class _HeaderlessCsvWriter(CsvWriter):
    """``CsvWriter`` appending to a file that has its header row already."""

    def __init__(self, stream: IO[str]) -> None:  # noqa: super().__init__ would write the header
        self.stream = stream
        self.writer = csv_writer(stream)


@dataclass
class _Unit:
    """One piece of existing output: a record (JSONL/CSV) or a game (PGN), and where it ends."""

    key: object
    end: int
    """Byte offset just after it."""
    complete: bool = True


def resume_output(path: str, fmt: str, tasks: Iterable[Task], multipv: int = 1) -> Resumed:
    """Open ``path`` to continue a run of ``tasks`` in format ``fmt`` (see the module doc).

    Both the file and ``tasks`` are read as streams, a line or a game at a time, so neither
    is held in memory. A missing or empty file starts from scratch. Raises ResumeError for a
    file that does not match the inputs, OSError when it cannot be read or written."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return Resumed(open(path, "w", encoding="utf-8", newline=""), iter(tasks), 0, 0, 0)
    source = iter(tasks)
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        lines = _lines(handle)
        header_end = 0
        if fmt == "jsonl":
            units = _jsonl_units(lines)
        elif fmt == "csv":
            header_end, units = _csv_units(lines, multipv)
        else:
            units = _pgn_units(lines)
        done_tasks, kept, boundary, current = _match(units, source, fmt, path)
    boundary = max(boundary, header_end)
    stream = open(path, "r+", encoding="utf-8", newline="")
    stream.truncate(boundary)
    stream.seek(0, io.SEEK_END)
    rest = itertools.chain([current], source) if current is not None else source
    return Resumed(stream, rest, done_tasks, kept, size - boundary, csv_header=fmt == "csv" and header_end > 0)


# -- reading the file back -------------------------------------------------------------------

Line = Tuple[bytes, int, bool]
"""A line of the file: its bytes (without the newline), the offset after it, whether it
ends with a newline."""


def _lines(handle: IO[bytes]) -> Iterator[Line]:
    """(line, end offset, ends with a newline) for every line of ``handle``, one at a time;
    ResumeError for a line too long to hold (no output of ours has one)."""
    end = 0
    lines = BoundedLines(handle.readline)
    for number in itertools.count(1):
        data = lines.readline()
        if isinstance(data, LongLine):
            raise ResumeError("line %d %s: not a pruner analyse output" % (number, data.reason()))
        if not data:
            return
        end += len(data)
        whole = data.endswith(b"\n")
        yield (data[:-1] if whole else data), end, whole


def _last(lines: Iterator[Line]) -> Iterator[Tuple[Line, bool]]:
    """Each line with whether it is the file's last."""
    previous: Optional[Line] = None
    for line in lines:
        if previous is not None:
            yield previous, False
        previous = line
    if previous is not None:
        yield previous, True


def _jsonl_units(lines: Iterator[Line]) -> Iterator[_Unit]:
    for number, ((line, end, whole), last) in enumerate(_last(lines), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
            key = (record["source"], record["ply"])
        except (ValueError, KeyError, TypeError):
            if last:  # a torn last line: cut it
                return
            raise ResumeError("line %d is not a pruner analyse record" % number) from None
        if not whole:
            return  # the last line lost its newline: it may be torn, cut it
        yield _Unit(key, end)


def _csv_units(lines: Iterator[Line], multipv: int) -> Tuple[int, Iterator[_Unit]]:
    """(end of the header, records): a record has one row per MultiPV line."""
    numbered = _last(lines)
    first = next(numbered, None)
    if first is None or not first[0][2]:
        return 0, iter(())
    header = next(csv.reader([first[0][0].decode("utf-8")]))
    if tuple(header) != CSV_COLUMNS:
        raise ResumeError("the first line is not pruner analyse's CSV header")
    return first[0][1], _csv_records(numbered, multipv)


def _csv_records(numbered: Iterator[Tuple[Line, bool]], multipv: int) -> Iterator[_Unit]:
    column = {name: index for index, name in enumerate(CSV_COLUMNS)}
    unit: Optional[_Unit] = None
    rows = expected = 0
    for number, ((line, end, whole), last) in enumerate(numbered, 2):
        if not whole:
            break  # maybe torn: cut it
        try:
            row = next(csv.reader([line.decode("utf-8")]))
            if len(row) != len(CSV_COLUMNS):
                raise ValueError("%d columns" % len(row))
            ply = row[column["ply"]]
            key = (unescape_cell(row[column["source"]]), int(ply) if ply else None)
        except (ValueError, StopIteration):
            if last:
                break
            raise ResumeError("line %d is not a pruner analyse CSV row" % number) from None
        if unit is not None and unit.key == key and rows < expected:
            rows += 1  # the next MultiPV line of the same record
            unit.end = end
        else:
            if unit is not None:
                yield unit
            rows, expected = 1, _csv_rows_expected(row, column, multipv)
            unit = _Unit(key, end)
        unit.complete = rows >= expected
    if unit is not None:
        yield unit


def _csv_rows_expected(row: List[str], column: dict, multipv: int) -> int:
    """Rows of a record: one per MultiPV line (at most one per legal move), or one without lines."""
    if not row[column["multipv"]]:
        return 1
    fen = row[column["fen"]]
    try:
        castling = fen.split()[2]
        board = chess.Board(fen, chess960=any(c not in "KQkq-" for c in castling))
    except (ValueError, IndexError):
        return 1
    return max(1, min(multipv, board.legal_moves.count()))


def _pgn_units(lines: Iterator[Line]) -> Iterator[_Unit]:
    """Games, each ending with its result and a blank line (a torn last game is left out). A
    game starts at a line beginning with ``[`` after a blank line."""
    piece: List[bytes] = []
    end = 0
    blank = False
    for line, line_end, whole in lines:
        if piece and blank and line.startswith(b"["):
            unit = _pgn_unit(piece, end)
            if unit is None:
                return
            yield unit
            piece = []
        piece.append(line + (b"\n" if whole else b""))
        end = line_end
        blank = whole and not line
    if piece:
        unit = _pgn_unit(piece, end)
        if unit is not None:
            yield unit


def _pgn_unit(piece: List[bytes], end: int) -> Optional[_Unit]:
    """The game of ``piece`` (its lines) when it is whole, else None."""
    text = b"".join(piece).decode("utf-8", errors="replace")
    headers = chess.pgn.read_headers(io.StringIO(text))
    parts = text.rstrip("\n").rsplit("\n\n", 1)
    tokens = parts[-1].split() if len(parts) == 2 else []
    if not (text.endswith("\n\n") and headers is not None and tokens and tokens[-1] in RESULTS):
        return None
    return _Unit(headers, end)


# -- matching the file against the tasks -------------------------------------------------------

def _task_keys(task: Task, fmt: str) -> List[object]:
    """What the output of ``task`` consists of, in order."""
    if fmt == "pgn":
        return [task]
    if isinstance(task, GameTask):
        return [(task.source, ply) for ply in task.selected]
    return [(task.source, None)]


def _same(unit_key: object, expected: object) -> bool:
    if isinstance(expected, PositionTask):
        return unit_key is not None and unit_key.get("Site") == expected.source  # type: ignore[union-attr]
    if isinstance(expected, GameTask):
        return unit_key is not None and all(unit_key.get(tag) == value  # type: ignore[union-attr]
                                            for tag, value in _game_headers(expected.pgn))
    return unit_key == expected


@functools.lru_cache(maxsize=64)
def _game_headers(pgn: str) -> Tuple[Tuple[str, str], ...]:
    """The headers an annotated game keeps from its input game (Result from the movetext too)."""
    game = read_game(io.StringIO(pgn))
    return tuple(game.headers.items()) if game is not None else ()


def _match(units: Iterable[_Unit], tasks: Iterator[Task], fmt: str,
           path: str) -> Tuple[int, int, int, Optional[Task]]:
    """(tasks done, records kept, byte offset after the last complete task, the task that was
    cut or None): ``tasks`` is read up to the last task with output, and no further."""
    done = kept = boundary = 0
    current: Optional[Task] = None  # the task being read: the last one taken from tasks
    index = -1
    keys: List[object] = []
    position = 0
    for number, unit in enumerate(units, 1):
        if current is not None and position < len(keys):
            if not _same(unit.key, keys[position]):
                raise ResumeError("%s: output item %d (%s) breaks off task %s in the middle: was the file "
                                  "written by another command line?" % (path, number, _show(unit.key),
                                                                        current.source))
            position += 1
        else:
            skipped = 0
            for current in tasks:  # tasks without output before this one had failed
                if _same(unit.key, _task_keys(current, fmt)[0]):
                    break
                skipped += 1
            else:
                raise ResumeError("%s: output item %d (%s) matches none of the inputs left: was the file "
                                  "written by another command line?" % (path, number, _show(unit.key)))
            index += skipped + 1
            keys, position = _task_keys(current, fmt), 1
        if not unit.complete:
            break
        if position == len(keys):
            done, boundary = index + 1, unit.end
            kept += _records(current)
            current = None
    return done, kept, boundary, current


def _records(task: Task) -> int:
    return len(task.selected) if isinstance(task, GameTask) else 1


def _show(key: object) -> str:
    if isinstance(key, tuple):
        return "source %s, ply %s" % key
    if hasattr(key, "get"):
        return "game %s" % key.get("Site")  # type: ignore[union-attr]
    return repr(key)
