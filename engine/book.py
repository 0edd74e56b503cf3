"""Opening book: Polyglot ``.bin`` files read through python-chess, weighted random choice.

The random generator is the caller's (seeded for reproducible games, e.g. in tests).
"""

import os
import random
from typing import Optional

import chess
import chess.polyglot

ENTRY_BYTES = 16
"""Size of one Polyglot entry (key, move, weight, learn)."""


class OpeningBook:
    """A Polyglot book; ``pick`` returns a legal book move or None when out of book."""

    def __init__(self, path: str) -> None:
        self.path = path
        if os.path.isdir(path):
            raise IsADirectoryError("%s is a directory, not a Polyglot book" % path)
        size = os.path.getsize(path)  # raises OSError on a missing file
        if size % ENTRY_BYTES:
            raise ValueError("%s is not a Polyglot book (%d bytes, not a multiple of %d)"
                             % (path, size, ENTRY_BYTES))
        self._reader = chess.polyglot.open_reader(path)

    def pick(self, board: chess.Board, rng: Optional[random.Random] = None) -> Optional[chess.Move]:
        """A move chosen with probability proportional to its weight, or None."""
        try:
            entry = self._reader.weighted_choice(board, random=rng)
        except IndexError:
            return None
        move = entry.move
        return move if board.is_legal(move) else None

    def close(self) -> None:
        """Release the file."""
        self._reader.close()
