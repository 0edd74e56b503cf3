"""Move-ordering statistics: killer moves and the butterfly history, and the rule that updates
them when a quiet move cuts off (the role of Stockfish's ``history.h``).

One ``MoveStats`` belongs to each ``Searcher`` (``searcher.stats``); it lives across searches
and ``clear()`` forgets it (``ucinewgame``). The search's move loop reads the plain lists
(``killers(ply)``, ``history``) and calls ``reward`` on a quiet cut-off; ``pruner.engine.movepick``
orders quiet moves by ``history`` and tries the killers before them. Moves are move codes
(``pruner.engine.attacks``).
"""

import random
from typing import List, Optional

from pruner.engine.types import MAX_PLY

HISTORY_MAX = 16384
"""History scores saturate towards plus or minus this bound (history gravity)."""

HISTORY_SIZE = 2 * 64 * 64
"""Entries of the butterfly history: one per side and from-to pair (``history_index``)."""

BONUS_MAX = 400
"""The largest history bonus of one cut-off (reached at depth 20: the bonus is depth squared)."""

SEED_SPREAD = 64
"""With ``clear(seed)``: history scores start anywhere in ``range(SEED_SPREAD)``."""


def history_index(color: int, move: int) -> int:
    """Index of ``move`` by ``color`` in the flat history table: the side, then the move code's
    from-to bits (promotions share their pawn move's entry)."""
    return color << 12 | (move & 4095)


class MoveStats:
    """Killers by ply and the butterfly history by side and from-to, for one searcher."""

    __slots__ = ("history", "_killers")

    def __init__(self) -> None:
        self.history: List[int] = []
        """Butterfly history: quiet-move scores by ``history_index``, within ``HISTORY_MAX``."""
        self._killers: List[List[int]] = []
        self.clear()

    def clear(self, seed: Optional[int] = None) -> None:
        """Forget every killer and history score. With ``seed``, each history score starts at a
        small pseudo-random value from that seed instead of 0 (Lazy SMP helpers: the same search
        with a different order of equal quiet moves, so their trees differ)."""
        if seed is None:
            self.history = [0] * HISTORY_SIZE
        else:
            rng = random.Random(seed)
            self.history = [rng.randrange(SEED_SPREAD) for _ in range(HISTORY_SIZE)]
        self._killers = [[0, 0] for _ in range(MAX_PLY + 2)]

    def killers(self, ply: int) -> List[int]:
        """The two killer move codes of ``ply``, most recent first (0: none); the table's own
        list, not a copy."""
        return self._killers[ply]

    def reward(self, move: int, tried: List[int], depth: int, ply: int, color: int) -> None:
        """The quiet ``move`` of ``color`` cut off at ``depth`` and ``ply`` after the quiet moves
        ``tried``: it becomes the first of the ply's two killers, its history rises by a bonus
        of depth squared (at most ``BONUS_MAX``) and theirs fall by as much. History gravity:
        each change shrinks as the score nears the bound (``h += bonus - h * bonus /
        HISTORY_MAX``), so scores stay within ``HISTORY_MAX``."""
        killers = self._killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        history = self.history
        bonus = min(depth * depth, BONUS_MAX)
        index = history_index(color, move)
        history[index] += bonus - history[index] * bonus // HISTORY_MAX
        for other in tried:
            index = history_index(color, other)
            history[index] -= bonus + history[index] * bonus // HISTORY_MAX
