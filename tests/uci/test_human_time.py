"""``Human Time`` (issue 54, item 6): a weakened move on a slow clock is held back for a
human-like share of the clock, after the same search; never in bullet, never for an explicit
``go``, never with the option off; ``stop``, ``quit`` and a new ``go`` end the wait, ``isready``
is answered during it.

In-process tests replace the wait (``EngineState.human_wait``) by a recorder, so nothing sleeps;
the process test waits for real and is marked ``clock``.
"""

import random
import re
import threading

import pytest

from pruner.engine.search import Searcher
from pruner.engine.strength import limit_for_uci_elo, UCI_ELO
from pruner.engine.timeman import HUMAN_MAX_MS, HUMAN_MIN_CLOCK_MS, human_time
from pruner.engine.types import Limits
from loop_helpers import WAIT, Output, make_loop, run
from pruner.uci.loop import UciLoop
from pruner.uci.output import Writer
from uci_process import Uci

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

SLOW = "go wtime 60000 btime 60000"
"""A one-minute clock: a person takes about a second a move."""

FAKE_SEARCH_MS = 3
"""What FakeSearcher's result says the search took (tests/loop_helpers.py)."""


class Recorder:
    """``human_wait`` that records the seconds asked for and returns at once."""

    def __init__(self) -> None:
        self.waits = []

    def __call__(self, stop: threading.Event, seconds: float) -> None:
        self.waits.append(seconds)


def limited_loop(*options: str):
    """A loop over a FakeSearcher at the lowest UCI_Elo, its wait recorded."""
    loop, output, holder = make_loop()
    recorder = Recorder()
    loop.state.human_wait = recorder
    run(loop, "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value %d" % UCI_ELO.min_elo,
        *options)
    return loop, output, holder, recorder


def test_a_limited_move_on_a_slow_clock_is_held_for_a_human_share_of_it():
    loop, output, holder, recorder = limited_loop()
    run(loop, SLOW)
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove ")
    expected = human_time(Limits(wtime=60000, btime=60000), True, loop.state.options["Move Overhead"])
    assert recorder.waits == [(expected - FAKE_SEARCH_MS) / 1000.0]
    assert 0.5 <= recorder.waits[0] <= HUMAN_MAX_MS / 1000.0  # a second or so, not 0.03 s
    # The search is what it was: the calibrated node budget, the clock only as its cap.
    assert holder[0].calls[-1][2] == limit_for_uci_elo(UCI_ELO.min_elo).limits_for(Limits(wtime=60000, btime=60000))


def test_the_share_grows_with_the_clock_and_is_capped():
    one = human_time(Limits(wtime=60000, btime=60000), True)
    three = human_time(Limits(wtime=180000, btime=180000, winc=2000, binc=2000), True)
    assert 0 < one < three <= HUMAN_MAX_MS
    assert human_time(Limits(wtime=3600000, btime=3600000), False) == HUMAN_MAX_MS
    assert human_time(Limits(wtime=HUMAN_MIN_CLOCK_MS - 1, btime=600000), True) == 0  # White's clock is short
    assert human_time(Limits(wtime=HUMAN_MIN_CLOCK_MS - 1, btime=600000), False) > 0


@pytest.mark.parametrize("go", [
    "go wtime 20000 btime 20000 winc 100 binc 100",  # bullet
    "go wtime 1000 btime 1000 winc 10 binc 10",
    "go depth 3", "go nodes 500", "go movetime 2000", "go mate 2",
    "go wtime 60000 btime 60000 depth 3", "go wtime 60000 btime 60000 movestogo 1 nodes 800",
])
def test_no_wait_in_bullet_nor_for_an_explicit_go(go):
    loop, output, _, recorder = limited_loop()
    run(loop, go)
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove ") and recorder.waits == []


def test_no_wait_when_pondering_nor_after_ponderhit():
    loop, output, _, recorder = limited_loop()
    run(loop, "go ponder wtime 60000 btime 60000", "ponderhit")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove ") and recorder.waits == []


def test_no_wait_with_the_option_off_nor_at_full_strength():
    loop, output, _, recorder = limited_loop("setoption name Human Time value false")
    run(loop, SLOW)
    assert loop.wait_idle(WAIT)
    run(loop, "setoption name Human Time value true", "setoption name UCI_LimitStrength value false", SLOW)
    assert loop.wait_idle(WAIT)
    assert output.count("bestmove ") == 2 and recorder.waits == []
    run(loop, "setoption name Skill Level value 3", SLOW)  # Skill Level's weak levels share the path
    assert loop.wait_idle(WAIT)
    assert len(recorder.waits) == 1


def test_the_wait_does_not_change_the_search():
    """A real searcher, the same seed: the same nodes and the same move with and without it."""
    def play(human: str):
        output = Output()
        loop = UciLoop(Writer(output.write), Searcher, rng=random.Random(7))
        loop.state.human_wait = Recorder()
        run(loop, "setoption name UCI_LimitStrength value true", "setoption name Human Time value " + human,
            "position startpos moves e2e4", SLOW)
        assert loop.wait_idle(WAIT * 3)
        nodes = [int(n) for n in re.findall(r" nodes (\d+) ", "\n".join(output.lines))]
        return nodes, output.lines[-1], loop.state.human_wait.waits

    on_nodes, on_move, on_waits = play("true")
    off_nodes, off_move, off_waits = play("false")
    assert (on_nodes, on_move) == (off_nodes, off_move) and len(on_waits) == 1 and off_waits == []


@pytest.mark.parametrize("command", ["stop", "quit", "go depth 1"])
def test_stop_quit_and_go_end_the_wait_and_isready_is_answered_during_it(command):
    loop, output, _ = make_loop()
    entered = threading.Event()

    def wait(stop, seconds):
        entered.set()
        stop.wait(WAIT)  # as long as nothing stops it

    loop.state.human_wait = wait
    run(loop, "setoption name UCI_LimitStrength value true", SLOW)
    assert entered.wait(WAIT)
    run(loop, "isready")
    assert output.lines[-1] == "readyok" and output.count("bestmove ") == 0  # at once, the move still held
    run(loop, command)
    output.wait_for(lambda lines: any(line.startswith("bestmove ") for line in lines))
    assert loop.wait_idle(WAIT)


@pytest.mark.clock
def test_the_process_holds_the_move_and_stop_sends_it_at_once(engine_command, repo_root):
    uci = Uci(engine_command, repo_root)
    try:
        uci.handshake()
        uci.send("setoption name UCI_LimitStrength value true")
        uci.send("debug on")
        uci.sync()
        uci.send("go wtime 600000 btime 600000")  # ten minutes: a wait of HUMAN_MAX_MS
        held = int(uci.expect(r"info string debug: human time: bestmove in (\d+) ms").group(1))
        assert held > 3000
        uci.sync()  # isready answered during the wait
        uci.no_bestmove_for(1.0)
        uci.send("stop")
        uci.bestmove(timeout=2.0)  # well before the wait would have ended
    finally:
        uci.close()
