"""Lines of text from streams of any size and content, with a bound on what is held.

A file of positions or games may hold a line of hundreds of megabytes, or never end a line at
all (``/dev/zero``, a binary file, a damaged compressed file): reading it whole would exhaust
memory. ``BoundedLines`` hands out the lines of a stream like ``readline``, but a line longer
than ``MAX_LINE_BYTES`` (the UCI server's cap too) is read past in pieces and stands as a
``LongLine`` (its size, nothing of its text), so the reader can name it and go on; a line with
no end within ``GIVE_UP_BYTES`` ends the stream. ``UniversalNewlines`` reads lines that end in
CR, LF or CRLF alike, as Python's text files do. ``MAX_GAME_BYTES`` bounds a PGN game, whose
lines ``engine/pgn.py`` keeps until the game is read.
"""

import collections
from dataclasses import dataclass
from typing import Callable, Deque, Optional, Union

MAX_LINE_BYTES = 4 << 20
"""Longest line kept (bytes, or characters of a text stream); a real EPD or PGN line is under
a few kilobytes."""
MAX_GAME_BYTES = 4 << 20
"""Longest PGN game kept (the text of all its lines); a game of 6,000 moves with a clock and an
evaluation after each is under 300 kB."""
GIVE_UP_BYTES = 1 << 30
"""A line still going after this much is no text: the rest of the stream is not read."""


def megabytes(size: int) -> str:
    """``4 MB`` for 4 << 20."""
    return "%d MB" % (size >> 20) if size >= 1 << 20 else "%d bytes" % size


@dataclass(frozen=True)
class LongLine:
    """A line longer than the bound, read past: only its size is known."""

    size: int
    """Bytes (characters) read of it, its line end included."""
    ended: bool
    """False when no end came within ``GIVE_UP_BYTES``: the stream is not read any further."""
    limit: int = MAX_LINE_BYTES
    """The bound it went beyond."""

    def reason(self) -> str:
        """Why it was skipped, after the words naming it (``line 12 is ...``)."""
        if not self.ended:
            return "has no end within %s (not a text file?); the rest is not read" % megabytes(self.size)
        return "is longer than %s (%d bytes)" % (megabytes(self.limit), self.size)


Line = Union[str, bytes, LongLine]
"""A line as ``BoundedLines.readline`` gives it: empty at the end of the stream."""


class BoundedLines:
    """``readline`` over ``readline(size)`` (any binary or text stream), holding at most
    ``limit`` bytes (characters) of a line (``MAX_LINE_BYTES``): a longer line comes as a
    ``LongLine``, and after a line with no end within ``give_up`` (``GIVE_UP_BYTES``) the
    stream ends."""

    def __init__(self, readline: Callable[[int], Union[str, bytes]], limit: Optional[int] = None,
                 give_up: Optional[int] = None) -> None:
        self._readline = readline
        self.limit = MAX_LINE_BYTES if limit is None else limit
        self.give_up = GIVE_UP_BYTES if give_up is None else give_up
        self._ended = False

    def readline(self) -> Line:
        """The next line (with its line end), a ``LongLine``, or empty at the end."""
        if self._ended:
            return b""
        line = self._readline(self.limit + 1)
        if len(line) <= self.limit or _ends_a_line(line):
            return line
        size = len(line)
        while size < self.give_up:  # read past it in pieces of the bound's size
            piece = self._readline(self.limit + 1)
            size += len(piece)
            if not piece or _ends_a_line(piece):
                return LongLine(size, True, self.limit)
        self._ended = True
        return LongLine(size, False, self.limit)


def _ends_a_line(text: Union[str, bytes]) -> bool:
    return text[-1:] in (b"\n", "\n")


class UniversalNewlines:
    """``readline(size)`` over a binary ``readline(size)`` whose lines may end in ``\\r\\n``,
    ``\\n`` or a lone ``\\r`` (old Mac files, a stray CR between two tags): every line comes
    with ``\\n``, as Python's text files (universal newlines) and so python-chess read them.
    A line is never longer than the stream's own read allows unless it goes on (a piece of
    ``size`` bytes or more without a line end comes as it is, for ``BoundedLines`` to bound)."""

    def __init__(self, readline: Callable[[int], bytes]) -> None:
        self._readline = readline
        self._lines: Deque[bytes] = collections.deque()
        self._partial = b""
        """The start of a line whose end is in the next read."""
        self._after_cr = False
        """The last read ended in ``\\r``: a ``\\n`` starting the next one ends that line too."""

    def readline(self, size: int = -1) -> bytes:
        """The next line, ending in ``\\n`` (or a piece of a long one; empty at the end)."""
        while not self._lines:
            chunk = self._readline(size)
            if self._after_cr and chunk.startswith(b"\n"):
                self._after_cr = False
                chunk = chunk[1:]
                if not chunk:
                    continue
            if not chunk:
                line, self._partial = self._partial, b""
                return line
            lines = (self._partial + chunk).splitlines(keepends=True)  # bytes: at \r, \n, \r\n only
            self._partial = b""
            if not lines[-1].endswith((b"\n", b"\r")) and 0 < size and len(lines[-1]) < size:
                self._partial = lines.pop()  # goes on in the next read (a longer piece is handed on)
            self._after_cr = chunk.endswith(b"\r")
            self._lines.extend(line.rstrip(b"\r\n") + b"\n" if line.endswith((b"\r", b"\n")) else line
                               for line in lines)
        return self._lines.popleft()
