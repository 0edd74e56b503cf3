"""Lines of text from streams of any size and content, with a bound on what is held.

A file of positions or games may hold a line of hundreds of megabytes, or never end a line at
all (``/dev/zero``, a binary file, a damaged compressed file): reading it whole would exhaust
memory. ``BoundedLines`` hands out the lines of a stream like ``readline``, but a line longer
than ``MAX_LINE_BYTES`` (the UCI server's cap too) is read past in pieces and stands as a
``LongLine`` (its size, nothing of its text), so the reader can name it and go on; a line with
no end within ``GIVE_UP_BYTES`` ends the stream. ``MAX_GAME_BYTES`` bounds a PGN game, whose
lines ``engine/pgn.py`` keeps until the game is read.
"""

from dataclasses import dataclass
from typing import Callable, Optional, Union

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
