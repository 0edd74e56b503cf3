"""Time allocation: pure arithmetic on the go parameters."""

from engine.timeman import MIN_TIME_MS, allocate
from engine.types import Limits


def test_untimed_searches_have_no_limits():
    assert allocate(Limits(depth=5), True) == (None, None)
    assert allocate(Limits(infinite=True), True) == (None, None)


def test_movetime_minus_overhead():
    assert allocate(Limits(movetime=1000), True, overhead_ms=30) == (970, 970)
    assert allocate(Limits(movetime=1), True, overhead_ms=30) == (MIN_TIME_MS, MIN_TIME_MS)


def test_clock_uses_own_side():
    soft_w, hard_w = allocate(Limits(wtime=60000, btime=1000), True)
    soft_b, hard_b = allocate(Limits(wtime=60000, btime=1000), False)
    assert soft_w > soft_b and hard_w > hard_b


def test_soft_below_hard_and_hard_within_clock():
    for wtime in (50, 200, 1000, 10000, 60000, 600000):
        for winc in (0, 10, 100, 5000):
            for mtg in (None, 1, 2, 40):
                soft, hard = allocate(Limits(wtime=wtime, winc=winc, movestogo=mtg), True, overhead_ms=10)
                assert MIN_TIME_MS <= soft <= hard
                assert hard <= max(MIN_TIME_MS, wtime - 10), (wtime, winc, mtg, hard)


def test_missing_or_negative_clock_is_read_as_empty():
    # ``go wtime 100`` with Black to move: Black's clock counts as 0 (as Stockfish reads it).
    assert allocate(Limits(wtime=100), False) == (MIN_TIME_MS, MIN_TIME_MS)
    assert allocate(Limits(wtime=-500, btime=-500), True) == (MIN_TIME_MS, MIN_TIME_MS)


def test_increment_raises_budget():
    assert allocate(Limits(wtime=10000, winc=1000), True)[0] > allocate(Limits(wtime=10000), True)[0]
