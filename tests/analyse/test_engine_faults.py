"""``pruner analyse --engine``: an engine that answers a search with an illegal or garbled
``bestmove``, or not at all, fails that task with the reason and the run goes on (issue 44).

Before, python-chess left the search waiting for ever after an illegal ``bestmove`` (with a
traceback on stderr), with ``--jobs 1`` and ``--jobs 2``: these tests run the real command
with a deadline, so a hang fails them instead of hanging the suite.
"""

import json
import shlex
import subprocess
import sys

import pytest

from paths import FAKE_ENGINE, ROOT
from sample_games import OPERA_GAME

FENS = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "8/8/8/8/8/5k2/8/4K2R w K - 0 1"]
DEADLINE = 60
"""Seconds the command may take: it needs one or two; a hang fails the test."""


def fake(*flags):
    return shlex.join([sys.executable, FAKE_ENGINE] + list(flags))


def analyse(argv):
    try:
        done = subprocess.run([sys.executable, "-m", "pruner", "analyse"] + argv, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=DEADLINE)
    except subprocess.TimeoutExpired as exc:
        pytest.fail("pruner analyse still running after %d s (it hangs); stderr so far: %s"
                    % (DEADLINE, exc.stderr))
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


@pytest.fixture
def opera(tmp_path):
    path = tmp_path / "opera.pgn"
    path.write_text(OPERA_GAME)
    return str(path)


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("flag, reason", [
    ("--illegal-after", "the engine's answer is unusable: illegal uci: "),
    ("--garbage-after", "the engine's answer is unusable: expected uci string to be of length 4 or 5: 'banana'"),
])
def test_an_unusable_bestmove_fails_its_task_and_the_run_goes_on(opera, jobs, flag, reason):
    # The 4th search after ucinewgame is answered badly: the game fails there; each position
    # is a new game of one search, analysed by the same engine or a new one.
    status, items, err = analyse(["--engine", fake(flag, "3"), "--depth", "1", "--jobs", jobs, "-q", opera] + FENS)
    assert status == 1, err
    assert "%s:1: %s" % (opera, reason) in err and "Traceback" not in err
    assert [item["source"] for item in items] == ["argument 2", "argument 3"]
    assert all(item["best_uci"] for item in items)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_engine_that_stops_answering_fails_its_task_after_the_stall_timeout(opera, jobs):
    status, items, err = analyse(["--engine", fake("--sleep-after", "3", "--sleep", "600"), "--stall-timeout", "1",
                                  "--depth", "1", "--jobs", jobs, "-q", opera] + FENS)
    assert status == 1, err
    assert "%s:1: no answer from the engine for 1 s (--stall-timeout): stopped" % opera in err
    assert "Traceback" not in err and "never retrieved" not in err
    assert [item["source"] for item in items] == ["argument 2", "argument 3"]


def test_an_engine_that_crashes_fails_its_task_with_two_jobs(opera):
    status, items, err = analyse(["--engine", fake("--crash-after", "3"), "--depth", "1", "--jobs", "2", "-q", opera]
                                 + FENS)
    assert status == 1, err
    assert "%s:1: analysis failed: chess.engine.EngineTerminatedError: engine process died" % opera in err
    assert [item["source"] for item in items] == ["argument 2", "argument 3"]


def test_stall_timeout_must_be_a_number_of_seconds():
    status, _, err = analyse(["--stall-timeout", "soon", "startpos"])
    assert status == 64 and "--stall-timeout: 'soon' is not a number of seconds" in err
