"""Time management: turn a ``go`` command's clock into a soft and a hard limit.

Pure functions, no clock reads. The soft limit is checked between iterations (do not start
another); the hard limit aborts a running iteration. Both are milliseconds from the start.
``human_time`` is how long a limited-strength move should take on a clock (the search is the
same; the UCI server holds ``bestmove`` back for the rest).
"""

from typing import Optional, Tuple

from pruner.engine.types import Limits

DEFAULT_MOVES_TO_GO = 30
"""Moves assumed left in sudden death (no ``movestogo``)."""
MIN_TIME_MS = 1
"""Never plan less than this. A search cut this short returns its fallback move (hash move or
best-ordered root move) after its first time check, within a few milliseconds: on a nearly
empty clock that is better than completing depth 1 and losing on time."""
LAST_MOVE_HARD_SHARE = (3, 4)
"""With ``movestogo 1`` the hard limit stays within this share of the clock (after the move
overhead). The rest covers the abort (up to ``CHECK_INTERVAL`` nodes), the ``bestmove`` reply
and a busy machine: 10-90 ms past the hard limit were measured on a loaded 2-core machine."""
CLOCK_RESERVE_MS = 100
"""What a game clock keeps besides the overhead: no move plans to spend it. Without it the
allocation below made the clock converge to zero at 1+0.01 (its share of the clock shrinks
with the clock, and the increment only pays the overhead), so a clock of 10-50 ms met a move
that took 20-80 ms (an iteration finishing past the soft limit, a JIT compile or a GC pause on
PyPy) and the game was lost on time (issue 54). With the reserve a clock below it gets moves
of the minimum budget, which cost a few ms (3 ms median on PyPy, 2 ms on CPython, against a
10 ms increment), so the clock climbs back above it. The increment beyond the overhead counts
against it (at 10+0.1, 90 ms of it, the reserve is 10 ms; from 0.11 s up, none): a clock that
gets more back each move than the share it spends settles well above zero by itself. Not kept
on the last move before the time control (``movestogo 1``): the clock is refilled after it."""
HARD_SHARE = (2, 5)
"""Otherwise the hard limit stays within this share of the clock (after the move overhead)."""
FORCED_MOVE_MS = 500
"""A forced move (one legal root move) is searched at most this long on a clock, as Stockfish
caps it: enough for a true score and a ponder move, no more, since the move is played anyway."""
FORCED_MOVE_SHARE = (1, 5)
"""... and at most this share of the move's soft limit (on a short clock a fifth of a normal
move's thinking reaches the same depths that give the score)."""


def allocate(limits: Limits, white_to_move: bool, overhead_ms: int = 10) -> Tuple[Optional[int], Optional[int]]:
    """(soft_ms, hard_ms) for a search, or (None, None) when no clock applies; with
    ``limits.time_cap_only`` the soft limit is None (only the hard limit stands)."""
    soft, hard = _allocate(limits, white_to_move, overhead_ms)
    return (None if limits.time_cap_only else soft), hard


def _allocate(limits: Limits, white_to_move: bool, overhead_ms: int) -> Tuple[Optional[int], Optional[int]]:
    if limits.movetime is not None:
        budget = max(MIN_TIME_MS, max(0, limits.movetime) - overhead_ms)
        return budget, budget
    if limits.wtime is None and limits.btime is None:
        return None, None
    # A clock for one side only (``go wtime 100``): the other side's is 0, as Stockfish reads it.
    time_left = (limits.wtime if white_to_move else limits.btime) or 0
    inc = (limits.winc if white_to_move else limits.binc) or 0
    time_left, inc = max(0, time_left), max(0, inc)
    # Every move costs the overhead on the GUI's clock, so only the increment beyond it can be
    # spent thinking: at 1+0.01 with 10 ms of overhead the engine lives off its clock, and the
    # reserve keeps it from converging to zero.
    inc -= overhead_ms
    last_move = limits.movestogo == 1
    reserve = 0 if last_move else max(0, CLOCK_RESERVE_MS - max(0, inc))
    available = max(0, time_left - overhead_ms - reserve)
    moves_to_go = DEFAULT_MOVES_TO_GO
    if limits.movestogo is not None and limits.movestogo > 0:
        moves_to_go = min(limits.movestogo, DEFAULT_MOVES_TO_GO)
    if inc >= 0:
        # Spend an even share of the clock plus most of the increment on a normal move.
        soft = available // moves_to_go + inc * 3 // 4
    else:
        # The increment does not cover the overhead (sudden death, or 1+0.01 with Move Overhead
        # 30): each move to go will also cost the clock the difference, so plan the share of
        # what is left after those, as Stockfish does (it subtracts the overhead of every move
        # to go). Without this the engine thought as if the clock were its own: at 1+0.01 with
        # Move Overhead 30 a 60-ply PyPy self-play game lost on time on its 30th move.
        soft = max(0, available + inc * (moves_to_go - 1)) // moves_to_go
    # Allow up to five times that (never more than the last-move share) when the search is
    # unstable. The soft limit only stops deepening; the hard limit aborts an iteration, so it
    # keeps at least the even share of the clock, where depth 1 fits, even when the soft limit
    # is down to the minimum.
    share = LAST_MOVE_HARD_SHARE if last_move else HARD_SHARE
    hard_cap = available * share[0] // share[1]
    hard = min(max(soft * 5, available // moves_to_go), hard_cap)
    soft = min(soft, hard)
    return max(MIN_TIME_MS, soft), max(MIN_TIME_MS, hard)


def forced_move(soft: int) -> Tuple[int, int]:
    """(soft_ms, hard_ms) for a forced move (one legal root move) from a clock search's soft
    limit: a small share of it, at most ``FORCED_MOVE_MS``, for both limits (no iteration may
    run past it)."""
    budget = max(MIN_TIME_MS, min(FORCED_MOVE_MS, soft * FORCED_MOVE_SHARE[0] // FORCED_MOVE_SHARE[1]))
    return budget, budget


HUMAN_SHARE = (1, 2)
"""``human_time``: a limited-strength move takes this share of the normal soft limit..."""
HUMAN_MAX_MS = 5000
"""... at most this long (a few seconds in a slow game: a beginner does not sit for a minute)..."""
HUMAN_MIN_CLOCK_MS = 30000
"""... and nothing when the clock left is below this (bullet, a time scramble): a person moves
at once there too, and the engine's margins stay what they are."""


def human_time(limits: Limits, white_to_move: bool, overhead_ms: int = 10) -> int:
    """Milliseconds a limited-strength move should take in all, from the GUI's ``go`` (before
    the strength model's node budget is applied): a human-like share of the normal allocation
    on a clock, 0 without one or when the ``go`` asks for something explicit (``depth``,
    ``nodes``, ``mate``, ``movetime``, ``infinite``, ``ponder``), and 0 on a short clock.
    The search is not changed by it: the caller holds ``bestmove`` back for the rest."""
    if limits.infinite or limits.ponder or any(
            value is not None for value in (limits.depth, limits.nodes, limits.mate, limits.movetime)):
        return 0
    if limits.wtime is None and limits.btime is None:
        return 0
    time_left = (limits.wtime if white_to_move else limits.btime) or 0
    if time_left < HUMAN_MIN_CLOCK_MS:
        return 0
    soft, _ = _allocate(limits, white_to_move, overhead_ms)
    return min(HUMAN_MAX_MS, (soft or 0) * HUMAN_SHARE[0] // HUMAN_SHARE[1])
