"""Transposition table: a fixed-size list of entries indexed by Zobrist key.

Entries are tuples ``(key, move, score, depth, bound, age)``: a tuple is the cheapest
record to build and unpack in Python; ``move`` is a move code (``pruner.engine.attacks``), 0 for none. Mate scores are stored relative to the node (distance
to mate from there) and converted back on probe, so a transposition reached at another ply
reports the right distance.
"""

import gc
import platform
from typing import Optional, Tuple

from pruner.engine.zobrist import FIFTY_KEYS
from pruner.engine.types import TB_BOUND

EXACT, LOWER, UPPER = 0, 1, 2
"""Bound types of a stored score."""

ENTRY_BYTES = 320
"""Bytes per slot that size the table (``Hash`` MB / 320 slots). Fixed: the number of slots
decides which entries share a slot, so changing it changes the search (and the bench
signature). It was one filled slot's upper bound on CPython 3.11 when entries held a
``chess.Move`` (about 260 measured); with move codes a filled slot takes about 150, so the
table stays well within ``Hash`` (``test_tt_memory_stays_within_hash`` in tests/engine/test_search.py)."""

Entry = Tuple[int, int, int, int, int, int]

_COLLECT_ON_RESIZE = platform.python_implementation() != "CPython"
"""CPython frees the old table by reference counting the moment it is replaced; PyPy's
collector frees it (a list and its entries, megabytes) only at its next major collection,
so resizes in a row held one old table each (RSS +7 MB per 256 MB resize in CI)."""


FIFTY_FREE = 14
"""Below this fifty-move counter a position has one key in the table; from it on, each band of
8 half-moves has its own (as in Stockfish 17), so a score found with the counter far from 100
(a tablebase win, a mate) is not re-used where the fifty-move rule may already spoil it."""


def tt_key(key: int, halfmove_clock: int) -> int:
    """The table key of a position with Zobrist ``key`` at ``halfmove_clock``."""
    if halfmove_clock < FIFTY_FREE:
        return key
    return key ^ FIFTY_KEYS[min((halfmove_clock - FIFTY_FREE) >> 3, len(FIFTY_KEYS) - 1)]


def score_to_tt(score: int, ply: int) -> int:
    """Make a mate or tablebase score relative to the storing node (distance from there), so
    that it means the same wherever the position is reached."""
    if score >= TB_BOUND:
        return score + ply
    if score <= -TB_BOUND:
        return score - ply
    return score


def score_from_tt(score: int, ply: int) -> int:
    """Turn a stored mate or tablebase score back into distance from the root."""
    if score >= TB_BOUND:
        return score - ply
    if score <= -TB_BOUND:
        return score + ply
    return score


class TranspositionTable:
    """Fixed-capacity table: depth- and age-aware replacement, one entry per slot."""

    def __init__(self, mb: int = 16) -> None:
        self.resize(mb)

    def resize(self, mb: int) -> None:
        """Allocate for ``mb`` megabytes (clears the table)."""
        size = max(1024, mb * 1024 * 1024 // ENTRY_BYTES)
        self.slots = [None] * size  # allocate first: a MemoryError leaves the old table intact
        self.size = size
        self.age = 0
        if _COLLECT_ON_RESIZE:
            gc.collect()  # a resize is a setoption, never in a search: the pause costs nothing

    def clear(self) -> None:
        """Drop every entry."""
        self.slots = [None] * self.size
        self.age = 0

    def new_search(self) -> None:
        """Age the table: entries of earlier searches become preferred victims."""
        self.age = (self.age + 1) & 255

    def probe(self, key: int) -> Optional[Entry]:
        """The entry stored for ``key``, or None."""
        entry = self.slots[key % self.size]
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: int, move: int, score: int, depth: int, bound: int) -> None:
        """Store a search result (``move`` 0: none found); keeps a deeper entry of the current
        search for another key."""
        index = key % self.size
        old = self.slots[index]
        if old is not None and old[0] != key and old[5] == self.age and old[3] > depth + 2:
            return
        if not move and old is not None and old[0] == key:
            move = old[1]  # keep the known best move when this search found none
        self.slots[index] = (key, move, score, depth, bound, self.age)

    def hashfull(self) -> int:
        """Permille of the first 1000 slots filled by the current search (as UCI defines it)."""
        sample = self.slots[:1000]
        age = self.age
        return sum(1 for e in sample if e is not None and e[5] == age) * 1000 // len(sample)
