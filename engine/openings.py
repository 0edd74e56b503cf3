"""Opening names (ECO code and name) by position, from lichess's chess-openings data set.

The table is ``engine/data/openings.tsv.gz``: lichess's files ``a.tsv`` .. ``e.tsv``
(columns ``eco``, ``name``, ``pgn``; CC0) joined under one header, as engine/data/README.md
says. Each entry names the position its moves reach, keyed by the position's EPD (pieces,
side to move, castling, en passant only when a capture is legal: ``chess.Board.epd()``, the
key lichess's own tools use), so a game that reaches a named position by another move order
gets that name. ``classify`` names a game as lichess does: the last named position among the
first ``MAX_PLIES`` positions of the game.

The table is built on first use (replaying 3,800 short lines with python-chess: about
0.4 s on CPython) and kept for the process.
"""

import functools
import gzip
import os
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

import chess

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "openings.tsv.gz")

MAX_PLIES = 40
"""Plies of a game searched for a named position (lichess's ``SEARCH_MAX_PLIES``)."""


@dataclass(frozen=True)
class Opening:
    """One entry of the data set."""

    eco: str
    """The ECO code, ``C33``."""
    name: str
    """``Family: Variation, Subvariation``, e.g. ``King's Gambit Accepted: Bishop's Gambit``."""
    pgn: str
    """The data set's moves to the position from the standard start, ``1. e4 e5 2. f4 exf4 3. Bc4``."""

    @property
    def text(self) -> str:
        """``C33 King's Gambit Accepted: Bishop's Gambit``."""
        return "%s %s" % (self.eco, self.name)


def read_table(path: str = DATA_FILE) -> Dict[str, Opening]:
    """The data set as ``{EPD: Opening}``; ``ValueError`` naming the line of a malformed entry."""
    entries: List[Tuple[List[str], Opening]] = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        if header != ["eco", "name", "pgn"]:
            raise ValueError("%s: expected the columns eco, name, pgn, got %r" % (path, header))
        for number, line in enumerate(handle, 2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise ValueError("%s:%d: expected 3 tab-separated columns, got %d" % (path, number, len(fields)))
            sans = [token for token in fields[2].split() if not token[0].isdigit()]  # drop "1." move numbers
            entries.append((sans, Opening(*fields)))
    # In move order the lines that share a beginning follow each other: keep the boards of the
    # current line and replay only where the next line leaves it (half the moves are shared).
    entries.sort(key=lambda entry: entry[0])
    table: Dict[str, Opening] = {}
    path_sans: List[str] = []
    boards = [chess.Board()]
    for sans, opening in entries:
        common = 0
        while common < min(len(sans), len(path_sans)) and sans[common] == path_sans[common]:
            common += 1
        del boards[common + 1:]
        path_sans = path_sans[:common]
        for san in sans[common:]:
            board = boards[-1].copy(stack=False)
            try:
                board.push_san(san)
            except ValueError as exc:
                raise ValueError("%s: %s %s: %s" % (path, opening.eco, opening.name, exc)) from None
            boards.append(board)
            path_sans.append(san)
        table[boards[-1].epd()] = opening
    return table


@functools.lru_cache(maxsize=1)
def table() -> Dict[str, Opening]:
    """The shipped data set, read once per process."""
    return read_table()


def opening_at(board: chess.Board) -> Optional[Opening]:
    """The name of ``board``'s position, or None when the data set does not name it."""
    return table().get(board.epd())


def classify(start: chess.Board, moves: Iterable[chess.Move],
             max_plies: int = MAX_PLIES) -> Optional[Tuple[int, Opening]]:
    """``(plies played, Opening)`` of the last named position among the game's first
    ``max_plies`` positions after ``start``; None when no position is named. ``start`` itself
    counts (a game set up from an opening position gets its name; the standard start has none)."""
    board = start.copy(stack=False)
    opening = opening_at(board)
    found = (0, opening) if opening is not None else None
    for ply, move in enumerate(moves, 1):
        if ply > max_plies:
            break
        board.push(move)
        opening = opening_at(board)
        if opening is not None:
            found = (ply, opening)
    return found
