"""Transposition table in shared memory, for Lazy SMP across processes (``engine/smp.py``).

Same interface as ``pruner.engine.tt.TranspositionTable`` (``probe`` gives the same
``(key, move, score, depth, bound, age)`` tuple), so the searcher does not know which one it
has. Each entry is two 64-bit words in a block of shared memory that every searcher process
maps: ``key ^ data`` and ``data``. Processes write without locks; a reader recomputes
``word0 ^ word1`` and accepts the entry only when that equals its key, so an entry torn
between two writers (one word from each) is detected and treated as a miss (Hyatt and Mann,
"A lock-less transposition table implementation for parallel search chess engines", 2002).

The data word (49 bits, so both words stay non-negative 64-bit integers)::

    bits  0-14  move code (``pruner.engine.attacks``: to square, from square, promotion piece type); 0 = none
    bits 15-30  score, signed 16 bits (mate scores relative to the node, as in pruner.engine.tt)
    bits 31-38  depth, 0..255
    bits 39-40  bound (EXACT, LOWER, UPPER)
    bits 41-48  age of the search that stored it

Keys are the search's own 63-bit Zobrist keys (``pruner.engine.makemove``). The age is one shared
counter in the block's first word: the table that created the block (the leader) advances
it, views attached in other processes (followers) read it, so every process stores with the
same age.
"""

import ctypes
import multiprocessing
from typing import Any, Optional

from pruner.engine.tt import Entry

ENTRY_BYTES = 16
"""Two 64-bit words per entry: the table holds exactly ``Hash`` MB / 16 entries (minus the
header word)."""

HEADER_WORDS = 2
"""Words before the first entry: the shared age, then one spare word (keeps entries 16-byte aligned)."""

_SCORE_SHIFT = 15
_DEPTH_SHIFT = 31
_BOUND_SHIFT = 39
_AGE_SHIFT = 41
_KEY_MASK = (1 << 63) - 1


def allocate(mb: int) -> Any:
    """Zeroed shared memory for a table of ``mb`` megabytes: a ``multiprocessing`` RawArray,
    which child processes receive as a ``Process`` argument (any start method, any OS)."""
    words = max(HEADER_WORDS + 2 * 1024, mb * 1024 * 1024 // 8)
    return multiprocessing.get_context("spawn").RawArray("q", words)


class SharedTranspositionTable:
    """Lockless two-word entries in shared memory; see the module docstring."""

    def __init__(self, mb: int = 16, buffer: Any = None, leader: bool = True) -> None:
        """A new table of ``mb`` MB, or a view of ``buffer`` (from ``allocate``) shared with others.

        ``leader``: this view advances the shared age at ``new_search``; a follower adopts it.
        """
        self.leader = leader
        self.age = 0
        self._attach(buffer if buffer is not None else allocate(mb))

    def _attach(self, buffer: Any) -> None:
        words = memoryview(buffer).cast("B").cast("q")
        self.buffer = buffer
        """The shared block (pass it to helper processes)."""
        self.header = words[:HEADER_WORDS]
        self.words = words[HEADER_WORDS:]
        self.size = len(self.words) // 2
        """Number of entries."""
        self.age = self.header[0] & 255

    def resize(self, mb: int) -> None:
        """A new block of ``mb`` megabytes (clears the table; other processes keep the old block)."""
        buffer = allocate(mb)  # allocate first: a MemoryError leaves the old table intact
        self._attach(buffer)

    def clear(self) -> None:
        """Drop every entry (for every process sharing the block) and reset the age."""
        ctypes.memset(ctypes.addressof(self.buffer), 0, ctypes.sizeof(self.buffer))
        self.age = 0

    def new_search(self) -> None:
        """Leader: advance the shared age; follower: take the age the leader set."""
        if self.leader:
            self.header[0] = (self.header[0] + 1) & 255
        self.age = self.header[0]

    def probe(self, key: int) -> Optional[Entry]:
        """The entry stored for ``key``, or None (also when the two words do not belong together)."""
        words = self.words
        index = (key % self.size) << 1
        data = words[index + 1]
        if words[index] ^ data != key:
            return None
        score = (data >> _SCORE_SHIFT) & 0xFFFF
        return (key, data & 0x7FFF, score - 0x10000 if score & 0x8000 else score,
                (data >> _DEPTH_SHIFT) & 255, (data >> _BOUND_SHIFT) & 3, data >> _AGE_SHIFT)

    def store(self, key: int, move: int, score: int, depth: int, bound: int) -> None:
        """Store a search result; keeps a deeper entry of the current search for another key."""
        key &= _KEY_MASK
        words = self.words
        index = (key % self.size) << 1
        old = words[index + 1]
        age = self.age
        same = words[index] ^ old == key
        if not same and old >> _AGE_SHIFT == age and (old >> _DEPTH_SHIFT) & 255 > depth + 2:
            return
        if move:
            code = move
        elif same:
            code = old & 0x7FFF  # keep the known best move when this search found none
        else:
            code = 0
        depth = 0 if depth < 0 else (255 if depth > 255 else depth)
        data = (code | (score & 0xFFFF) << _SCORE_SHIFT | depth << _DEPTH_SHIFT
                | bound << _BOUND_SHIFT | age << _AGE_SHIFT)
        words[index] = key ^ data
        words[index + 1] = data

    def hashfull(self) -> int:
        """Permille of the first 1000 entries filled by the current search (as UCI defines it)."""
        words = self.words
        count = min(1000, self.size)
        age = self.age
        filled = sum(1 for i in range(0, 2 * count, 2) if words[i + 1] and words[i + 1] >> _AGE_SHIFT == age)
        return filled * 1000 // count
