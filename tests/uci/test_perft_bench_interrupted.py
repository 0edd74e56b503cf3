"""``go perft`` and ``bench`` through the real process while other commands arrive: ``isready``
is answered during them, ``stop`` ends them without a total (a partial count is no result),
``quit`` ends them and exits at once, any other command waits for them and runs in order, and
end of input lets them finish (a script that pipes ``go perft 3`` gets the whole count).

Stockfish 15.1 answers nothing during its perft or bench (they block its command loop);
Pruner's perft in Python is a thousand times slower, so a deep one must be stoppable.
Waits are ``expect``s with timeouts (the exits' bounds only catch a hang); no sleeps."""

import subprocess

import chess
import pytest

from uci_process import Uci, legal

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

ENDLESS = ["go perft 6", "bench 99999"]
"""Hours of work in Python: each ends only when stopped."""


@pytest.fixture
def uci(uci_after_handshake):
    return uci_after_handshake


def started(uci: Uci, line: str) -> None:
    """Send ``line`` and check that ``isready`` is answered while it runs."""
    uci.send(line)
    uci.sync()


@pytest.mark.parametrize("line", ENDLESS)
def test_quit_during_perft_or_bench_exits_at_once(uci, line):
    started(uci, line)
    uci.send("quit")
    assert uci.exit_status(timeout=10) == 0
    assert "Nodes searched" not in uci.child.before  # no total of a count cut short


def test_go_perft_beyond_six_is_refused_at_once(uci):
    # Depth 7 from the start is 3.2 billion leaves, days of Python: refused, as before.
    uci.send("go perft 7")
    uci.error("go perft: depth must be 1 to 6, got 7")
    uci.sync()


def test_stop_ends_a_perft_without_a_total_and_the_engine_goes_on(uci):
    started(uci, "go perft 6")
    uci.send("stop")
    counted = int(uci.expect(r"info string perft stopped: (\d+) of 20 moves counted, no total\r?\n").group(1))
    assert "Nodes searched" not in uci.child.before
    assert counted < 20
    uci.send("go perft 2")
    assert uci.expect(r"Nodes searched: (\d+)\r?\n").group(1) == "400"
    uci.send("go depth 1")
    assert legal(chess.Board(), uci.bestmove()[0])


def test_stop_ends_a_bench_without_its_signature(uci):
    started(uci, "bench 99999")
    uci.send("stop")
    uci.expect(r"info string bench stopped: no totals")
    assert "Nodes searched" not in uci.child.before
    uci.send("go depth 1")
    assert legal(chess.Board(), uci.bestmove()[0])
    assert "Nodes searched" not in uci.sync()


def test_commands_during_a_perft_wait_for_it_and_run_in_order(uci):
    uci.send("go perft 3")
    uci.send("position startpos moves e2e4")  # held: the perft counts the start position
    uci.send("d")
    uci.send("go perft 1")
    uci.send("isready")  # behind held commands: held too, readyok still means they are done
    uci.expect(r"Nodes searched: 8902\r?\n")
    uci.expect(r"Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\r?\n")
    uci.expect(r"Nodes searched: 20\r?\n")
    uci.expect(r"readyok\r?\n")


def test_stop_behind_a_held_go_ends_the_perft_and_then_the_search(uci):
    # In the stream's order: the stop comes after the go, so it stops the search the go starts
    # (an endless one otherwise; the fuzz found `go perft 1`, `go`, `stop` on a loaded machine).
    started(uci, "go perft 6")
    uci.send("go infinite")
    uci.send("stop")
    uci.expect(r"info string perft stopped: \d+ of 20 moves counted, no total\r?\n")
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    uci.sync()
    assert uci.count_bestmoves() == 1


def test_quit_behind_held_commands_still_answers_each_go(uci):
    # The go sent before quit runs (stopped at once by the quit) and gets its bestmove.
    started(uci, "go perft 6")
    uci.send("go depth 30")
    uci.send("quit")
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    assert uci.exit_status(timeout=10) == 0
    assert uci.count_bestmoves() == 1


def test_end_of_input_lets_a_perft_finish(engine_command, repo_root):
    done = subprocess.run(engine_command, cwd=repo_root, input=b"go perft 3\n", stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and done.stderr == b""
    assert len(lines) == 23 and lines[-3:] == ["", "Nodes searched: 8902", ""]
