"""Opening book: Polyglot ``.bin`` files read through python-chess, weighted random choice.

The file is opened through ``pruner.engine.datafile`` (a regular file only, never a FIFO or a
device) and checked where it is cheap before it is used: a size that is a multiple of 16
bytes and not absurd, and a sample of entries spread over the file in ascending key order
with real moves (a file of zeros or random bytes is no book). Before each look-up the file is
checked for changes on disk; a book modified in place is left out (with a message in
``problems``) instead of read, since reading a truncated mapped file kills the process.

The random generator is the caller's (seeded for reproducible games, e.g. in tests).
"""

import random
import struct
from typing import List, Optional

import chess
import chess.polyglot

from pruner.engine.datafile import MappedFile

ENTRY_BYTES = 16
"""Size of one Polyglot entry (key, move, weight, learn)."""

MAX_BOOK_BYTES = 4 << 30
"""Larger files are refused: the largest books in use are well under this (a 20 GB file is
a mistake, e.g. a disk image or a sparse file)."""

SAMPLED_ENTRIES = 257
"""Entries read at load time to check the order of the keys (evenly spread, first and last)."""

_ENTRY = struct.Struct(">QHHI")


class OpeningBook:
    """A Polyglot book; ``pick`` returns a legal book move or None when out of book."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: List[str] = []
        """Messages not yet shown to the user (see ``take_problems``)."""
        self._file: Optional[MappedFile] = MappedFile.open(path, accept_size=_check_size)
        try:
            _check_entries(self._file.data, self._file.size // ENTRY_BYTES)
        except ValueError:
            self._file.close()
            raise
        self._reader = _Reader(self._file.data)

    def pick(self, board: chess.Board, rng: Optional[random.Random] = None) -> Optional[chess.Move]:
        """A move chosen with probability proportional to its weight, or None (out of book,
        or the book was left out because its file changed on disk)."""
        if self._file is None:
            return None
        try:
            self._file.check()
        except OSError as exc:
            self.problems.append("book %s left out: %s" % (self.path, exc))
            self._file = None  # left out: never read again (close() unmaps it)
            return None
        try:
            entry = self._reader.weighted_choice(board, random=rng)
        except IndexError:
            return None
        move = entry.move
        return move if board.is_legal(move) else None

    def take_problems(self) -> List[str]:
        """The messages about the book found since the last call (each shown once)."""
        problems, self.problems = self.problems, []
        return problems

    def close(self) -> None:
        """Release the file."""
        self._reader.close()


class _Reader(chess.polyglot.MemoryMappedReader):
    """python-chess's Polyglot reader over a mapping ``pruner.engine.datafile`` opened (its own
    ``__init__`` opens the path itself, which could block on a FIFO)."""

    def __init__(self, data) -> None:  # noqa: the parent's __init__ would open the path again
        self.mmap = data


def _check_size(size: int) -> None:
    if size == 0:
        raise ValueError("not a Polyglot book (empty file)")
    if size % ENTRY_BYTES:
        raise ValueError("not a Polyglot book (%d bytes, not a multiple of %d)" % (size, ENTRY_BYTES))
    if size > MAX_BOOK_BYTES:
        raise ValueError("not a Polyglot book (%.1f GB; at most %d GB is accepted)"
                         % (size / 1e9, MAX_BOOK_BYTES >> 30))


def _check_entries(data, entries: int) -> None:
    """Raise ValueError unless a sample of entries has ascending keys (python-chess finds a
    position by bisection, which needs them sorted) and real moves (from-square != to-square)."""
    count = min(entries, SAMPLED_ENTRIES)
    indices = sorted({entries - 1 if count == 1 else i * (entries - 1) // (count - 1) for i in range(count)})
    previous = -1
    for index in indices:
        key, move, _, _ = _ENTRY.unpack_from(data, index * ENTRY_BYTES)
        if key < previous:
            raise ValueError("not a Polyglot book (keys not in ascending order at entry %d)" % index)
        if move & 0x3f == (move >> 6) & 0x3f:
            raise ValueError("not a Polyglot book (entry %d holds no move)" % index)
        previous = key

