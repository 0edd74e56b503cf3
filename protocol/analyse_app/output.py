"""Output of ``pruner analyse``: JSON Lines, CSV or PGN writers, and the stderr progress bar.

Every writer flushes after each task's output, so an interrupted run leaves whole lines
(whole games for PGN) behind.
"""

import csv
import json
import time
from typing import Any, Callable, Dict, IO, List, Optional

from pruner.analyse_app.tasks import RECORD_KEYS, TaskResult

FORMATS = ("jsonl", "csv", "pgn")

CSV_COLUMNS = tuple(key for key in RECORD_KEYS if key != "lines") + ("multipv",)
"""CSV has one row per MultiPV line: the position's columns, then that line's move, score and PV."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet runs a cell beginning with one of these as a formula (OWASP, "CSV Injection")."""


class JsonLinesWriter:
    """One JSON object per position and line."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, result: TaskResult) -> int:
        """Write the records of ``result``; returns how many."""
        for record in result.records:
            self.stream.write(json.dumps(record) + "\n")
        self.stream.flush()
        return len(result.records)


class CsvWriter:
    """One row per (position, MultiPV line); PV columns are space-separated moves."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.writer = csv_writer(stream)
        self.writer.writerow(CSV_COLUMNS)
        stream.flush()

    def write(self, result: TaskResult) -> int:
        for record in result.records:
            for row in csv_rows(record):
                self.writer.writerow([_cell(row[key]) for key in CSV_COLUMNS])
        self.stream.flush()
        return len(result.records)


def csv_rows(record: Dict) -> List[Dict]:
    """The CSV rows of one record: its best line first, then the other MultiPV lines."""
    rows = []
    for line in record["lines"] or [None]:
        row = dict(record, multipv=None)
        if line is not None:
            row.update(multipv=line["multipv"], best_uci=line["move_uci"], best_san=line["move_san"],
                       white_cp=line["white_cp"], white_mate=line["white_mate"], cp=line["cp"],
                       mate=line["mate"], wdl=line["wdl"], white_wdl=line["white_wdl"],
                       pv_uci=line["pv_uci"], pv_san=line["pv_san"],
                       depth=line["depth"], seldepth=line["seldepth"])
        rows.append(row)
    return rows


def csv_writer(stream: IO[str]) -> Any:
    """The CSV writer of ``pruner analyse``: every text cell quoted, numbers bare (so that a
    spreadsheet reads a score of -35 as a number, and quoted cells as text)."""
    return csv.writer(stream, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)


def escape_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it and never runs it: a leading single quote before a
    formula start (OWASP's escape), and before a single quote of the text's own, which a
    spreadsheet would swallow (so that ``unescape_cell`` gives back the text exactly)."""
    return "'" + text if text.startswith(FORMULA_STARTS + ("'",)) else text


def unescape_cell(text: str) -> str:
    """The text that ``escape_cell`` escaped (a resume compares it with the input's)."""
    return text[1:] if text.startswith("'") else text


def _cell(value: object) -> object:
    # Only text is escaped, whatever the column: ids, sources, moves, FENs. Numbers (scores,
    # depths, counts) are ints and stay numbers, a negative one too.
    if value is None:
        return ""
    if isinstance(value, list):
        value = " ".join(str(item) for item in value)
    return escape_cell(value) if isinstance(value, str) else value


class PgnWriter:
    """The annotated games (and one small game per FEN/EPD position)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, result: TaskResult) -> int:
        if result.pgn:
            self.stream.write(result.pgn)
            self.stream.flush()
        return len(result.records)


def make_writer(fmt: str, stream: IO[str]):
    """The writer of format ``fmt`` (one of ``FORMATS``) on ``stream``."""
    return {"jsonl": JsonLinesWriter, "csv": CsvWriter, "pgn": PgnWriter}[fmt](stream)


class Progress:
    """The progress line on stderr, rewritten in place: ``[#####.....]  12/24 positions  2.1/s
    ETA 0:06`` when the total is known, ``812 positions, 12 games  40.6/s  0:20`` (done, rate,
    elapsed) while it is not (an input still being read); ``set_total`` turns the one into the
    other once the input is read to its end.

    Disabled (does nothing) unless ``enabled``; redraws at most every ``interval`` seconds.
    """

    WIDTH = 24

    def __init__(self, total: Optional[int], stream: IO[str], enabled: bool, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        """Positions in all, or None while unknown."""
        self.done = 0
        self.games = 0
        """Games done (shown while the total is unknown)."""
        self.stream = stream
        self.enabled = enabled and (total is None or total > 0)
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self._drawn_at: Optional[float] = None
        self._width = 0

    def set_total(self, total: int) -> None:
        """The number of positions is known now."""
        self.total = total

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more positions done."""
        self.done += n
        if not self.enabled:
            return
        now = self.clock()
        if self._drawn_at is None or now - self._drawn_at >= self.interval or \
                (self.total is not None and self.done >= self.total):
            self.draw(now)

    def text(self, now: float) -> str:
        """The line's text at time ``now``."""
        elapsed = now - self.start
        if self.total is None or self.total <= 0:
            rate = self.done / elapsed if elapsed > 0 else 0.0
            games = ", %d game%s" % (self.games, "" if self.games == 1 else "s") if self.games else ""
            return "%d positions%s  %.1f/s  %s" % (self.done, games, rate, _clock(elapsed))
        done, total = min(self.done, self.total), self.total
        filled = self.WIDTH * done // total
        rate = done / elapsed if elapsed > 0 else 0.0
        if done >= total:
            eta = "done in %s" % _clock(elapsed)
        elif rate > 0:
            eta = "ETA %s" % _clock((total - done) / rate)
        else:
            eta = "ETA ?"
        return "[%s%s] %d/%d positions  %.1f/s  %s" % ("#" * filled, "." * (self.WIDTH - filled),
                                                        done, total, rate, eta)

    def draw(self, now: Optional[float] = None) -> None:
        """Redraw the bar."""
        if not self.enabled:
            return
        now = self.clock() if now is None else now
        text = self.text(now)
        self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
        self.stream.flush()
        self._width = len(text)
        self._drawn_at = now

    def clear(self) -> None:
        """Erase the bar (before printing a message); ``draw`` brings it back."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def finish(self) -> None:
        """Erase the bar for good."""
        self.clear()
        self.enabled = False


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return "%d:%02d:%02d" % (hours, minutes, seconds)
    return "%d:%02d" % (minutes, seconds)
