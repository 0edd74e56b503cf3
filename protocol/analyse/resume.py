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
"""

import csv
import functools
import io
import json
import os
import re
from dataclasses import dataclass
from typing import IO, List, Optional, Sequence, Tuple

import chess
import chess.pgn

from protocol.analyse.inputs import GameTask, PositionTask, Task, read_game
from protocol.analyse.output import CSV_COLUMNS, CsvWriter, make_writer

Key = Tuple[str, Optional[int]]
"""A record's identity: its ``source`` and ``ply`` (None for a FEN/EPD position)."""

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_UNIT_START = re.compile(r"(?<=\n\n)(?=\[)")


class ResumeError(Exception):
    """The existing output file cannot be continued (it does not match the inputs)."""


@dataclass
class Resumed:
    """The output file reopened for appending, and what is left to do."""

    stream: IO[str]
    """Positioned at the end of the last complete task (the rest was cut off)."""
    tasks: List[Task]
    """Tasks not in the file yet, in input order."""
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
        self.writer = csv.writer(stream, lineterminator="\n")


@dataclass
class _Unit:
    """One piece of existing output: a record (JSONL/CSV) or a game (PGN), and where it ends."""

    key: object
    end: int
    """Byte offset just after it."""
    complete: bool = True


def resume_output(path: str, fmt: str, tasks: Sequence[Task], multipv: int = 1) -> Resumed:
    """Open ``path`` to continue a run of ``tasks`` in format ``fmt`` (see the module doc).

    A missing or empty file starts from scratch. Raises ResumeError for a file that does
    not match the inputs, OSError when it cannot be read or written."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return Resumed(open(path, "w", encoding="utf-8", newline=""), list(tasks), 0, 0, 0)
    with open(path, "rb") as handle:
        data = handle.read()
    header_end = 0
    if fmt == "jsonl":
        units = _jsonl_units(data)
    elif fmt == "csv":
        header_end, units = _csv_units(data, multipv)
    else:
        units = _pgn_units(data)
    done_tasks, kept, boundary = _match(units, tasks, fmt, path)
    boundary = max(boundary, header_end)
    stream = open(path, "r+", encoding="utf-8", newline="")
    stream.truncate(boundary)
    stream.seek(0, io.SEEK_END)
    return Resumed(stream, list(tasks[done_tasks:]), done_tasks, kept, len(data) - boundary,
                   csv_header=fmt == "csv" and header_end > 0)


# -- reading the file back -------------------------------------------------------------------

def _lines(data: bytes) -> List[Tuple[bytes, int, bool]]:
    """(line, end offset, ends with a newline) for every line of ``data``."""
    lines = []
    start = 0
    while start < len(data):
        newline = data.find(b"\n", start)
        if newline < 0:
            lines.append((data[start:], len(data), False))
            break
        lines.append((data[start:newline], newline + 1, True))
        start = newline + 1
    return lines


def _jsonl_units(data: bytes) -> List[_Unit]:
    units = []
    lines = _lines(data)
    for number, (line, end, whole) in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
            key = (record["source"], record["ply"])
        except (ValueError, KeyError, TypeError):
            if number == len(lines):  # a torn last line: cut it
                break
            raise ResumeError("line %d is not a pruner analyse record" % number) from None
        if not whole:
            break  # the last line lost its newline: it may be torn, cut it
        units.append(_Unit(key, end))
    return units


def _csv_units(data: bytes, multipv: int) -> Tuple[int, List[_Unit]]:
    """(end of the header, records): a record has one row per MultiPV line."""
    lines = _lines(data)
    if not lines or not lines[0][2]:
        return 0, []
    header = next(csv.reader([lines[0][0].decode("utf-8")]))
    if tuple(header) != CSV_COLUMNS:
        raise ResumeError("the first line is not pruner analyse's CSV header")
    column = {name: index for index, name in enumerate(CSV_COLUMNS)}
    units: List[_Unit] = []
    rows = expected = 0
    for number, (line, end, whole) in enumerate(lines[1:], 2):
        if not whole:
            break  # maybe torn: cut it
        try:
            row = next(csv.reader([line.decode("utf-8")]))
            if len(row) != len(CSV_COLUMNS):
                raise ValueError("%d columns" % len(row))
            ply = row[column["ply"]]
            key = (row[column["source"]], int(ply) if ply else None)
        except (ValueError, StopIteration):
            if number == len(lines):
                break
            raise ResumeError("line %d is not a pruner analyse CSV row" % number) from None
        if units and units[-1].key == key and rows < expected:
            rows += 1  # the next MultiPV line of the same record
            units[-1].end = end
        else:
            rows, expected = 1, _csv_rows_expected(row, column, multipv)
            units.append(_Unit(key, end))
        units[-1].complete = rows >= expected
    return lines[0][1], units


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


def _pgn_units(data: bytes) -> List[_Unit]:
    """Games, each ending with its result and a blank line (a torn last game is left out)."""
    text = data.decode("utf-8", errors="replace")
    units = []
    offset = 0
    for piece in _UNIT_START.split(text):
        offset += len(piece.encode("utf-8"))
        headers = chess.pgn.read_headers(io.StringIO(piece))
        parts = piece.rstrip("\n").rsplit("\n\n", 1)
        tokens = parts[-1].split() if len(parts) == 2 else []
        if not (piece.endswith("\n\n") and headers is not None and tokens and tokens[-1] in RESULTS):
            break
        units.append(_Unit(headers, offset))
    return units


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


def _match(units: List[_Unit], tasks: Sequence[Task], fmt: str, path: str) -> Tuple[int, int, int]:
    """(tasks done, records kept, byte offset after the last complete task)."""
    done = kept = boundary = 0
    index: Optional[int] = None  # the task being read
    keys: List[object] = []
    position = 0
    for number, unit in enumerate(units, 1):
        if index is not None and position < len(keys):
            if not _same(unit.key, keys[position]):
                raise ResumeError("%s: output item %d (%s) breaks off task %s in the middle: was the file "
                                  "written by another command line?" % (path, number, _show(unit.key),
                                                                        tasks[index].source))
            position += 1
        else:
            found = _find_task(unit.key, tasks, 0 if index is None else index + 1, fmt)
            if found is None:
                raise ResumeError("%s: output item %d (%s) matches none of the inputs left: was the file "
                                  "written by another command line?" % (path, number, _show(unit.key)))
            index, keys, position = found, _task_keys(tasks[found], fmt), 1
        if not unit.complete:
            break
        if position == len(keys):
            done, boundary = index + 1, unit.end
            kept += _records(tasks[index])
    return done, kept, boundary


def _records(task: Task) -> int:
    return len(task.selected) if isinstance(task, GameTask) else 1


def _find_task(key: object, tasks: Sequence[Task], start: int, fmt: str) -> Optional[int]:
    for index in range(start, len(tasks)):
        if _same(key, _task_keys(tasks[index], fmt)[0]):
            return index
    return None


def _show(key: object) -> str:
    if isinstance(key, tuple):
        return "source %s, ply %s" % key
    if hasattr(key, "get"):
        return "game %s" % key.get("Site")  # type: ignore[union-attr]
    return repr(key)
