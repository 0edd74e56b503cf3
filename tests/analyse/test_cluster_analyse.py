"""``pruner analyse --cluster`` on Dask ``LocalCluster``s of 2 worker processes.

Same output as ``--jobs 1`` (byte for byte apart from ``time_ms``), a worker killed mid-run,
``--resume`` after the client was killed, workers with other code refused. Depths 2-3 keep
it short; skipped when Dask is not installed.
"""

import io
import itertools
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

import chess
import pytest

from pruner import cluster as cluster_module  # Dask itself is imported when a cluster opens
from pruner.analyse_app.cli import main
from pruner.analyse_app.cluster_runner import EXIT_UNAVAILABLE, PACKAGES, ClusterRunner
from pruner.analyse_app.inputs import PositionTask
from pruner.analyse_app.stream import READ_AHEAD
from pruner.analyse_app.tasks import Settings

from paths import ROOT as REPO_ROOT

from sample_games import OPERA_GAME

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed "
                                                        "(pip install 'pruner-chess[cluster]')")

POSITIONS = 50
TIME_FIELD = re.compile(r'"time_ms": \d+')


def random_positions(count, seed=2024):
    """``count`` middlegame-ish positions from seeded random games (the same on every machine)."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(rng.randrange(6, 40)):
            board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
            if board.is_game_over():
                break
        if not board.is_game_over():
            fens.append(board.fen())
    return fens


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster")
    epd = folder / "positions.epd"
    epd.write_text("\n".join(random_positions(POSITIONS)) + "\n")
    pgn = folder / "opera.pgn"
    pgn.write_text(OPERA_GAME)
    return str(epd), str(pgn)


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of 2 single-threaded worker processes shared by the tests below."""
    import logging
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    yield cluster, client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def reference_depth3(inputs, tmp_path_factory):
    """``--jobs 1`` output at depth 3, the reference of the fault tests."""
    path = str(tmp_path_factory.mktemp("reference") / "jobs1.jsonl")
    status, _ = run(["--depth", "3", "--jobs", "1", "-o", path, inputs[0]])
    assert status == 0
    return read(path)


def run(argv):
    err = io.StringIO()
    status = main(["-q"] + list(argv), stdout=io.StringIO(), stderr=err)
    return status, err.getvalue()


def read(path):
    with open(path, encoding="utf-8") as handle:
        return TIME_FIELD.sub('"time_ms": 0', handle.read())


def keys(text):
    return [(record["source"], record["ply"]) for record in map(json.loads, text.splitlines())]


def test_local_cluster_output_equals_jobs_1(inputs, tmp_path):
    """50 positions and a game at depth 2: identical bytes apart from time_ms."""
    local, cluster = str(tmp_path / "jobs1.jsonl"), str(tmp_path / "cluster.jsonl")
    assert run(["--depth", "2", "--jobs", "1", "-o", local] + list(inputs))[0] == 0
    status, err = run(["--depth", "2", "--cluster", "local:2", "-o", cluster] + list(inputs))
    assert status == 0, err
    expected = read(local)
    assert len(expected.splitlines()) == POSITIONS + 34
    assert read(cluster) == expected


def test_worker_killed_mid_run(inputs, scheduler, reference_depth3, tmp_path):
    """SIGKILL a worker process while it analyses: its tasks run again elsewhere, every
    position is written exactly once, and the output is still the reference."""
    cluster, client = scheduler
    out = str(tmp_path / "killed.jsonl")
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.update(
        result=run(["--depth", "3", "--cluster", cluster.scheduler_address, "-o", out, inputs[0]])))
    runner.start()
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and runner.is_alive() and time.monotonic() < deadline:
        busy = {worker: tasks for worker, tasks in client.processing().items() if tasks}
        if busy and os.path.exists(out) and os.path.getsize(out) > 0:
            worker = sorted(busy)[0]
            victim = client.run(os.getpid, workers=[worker])[worker]
            os.kill(victim, signal.SIGKILL)
        time.sleep(0.01)
    assert victim is not None, "the run ended before a worker could be killed"
    killed_mid_run = runner.is_alive()
    runner.join(120)
    status, err = outcome["result"]
    assert status == 0, err
    assert killed_mid_run
    text = read(out)
    assert sorted(keys(text)) == sorted(set(keys(text)))  # each position once
    assert text == reference_depth3


def test_resume_after_the_client_was_killed(inputs, scheduler, reference_depth3, tmp_path):
    """Kill the client process mid-run, tear its last line, resume: the reference, nothing twice."""
    cluster, _ = scheduler
    out = tmp_path / "resumed.jsonl"
    command = [sys.executable, "-m", "pruner", "analyse", "-q", "--depth", "3",
               "--cluster", cluster.scheduler_address, "-o", str(out), inputs[0]]
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 10:
            break
        time.sleep(0.01)
    assert process.poll() is None, process.stderr.read().decode()
    process.kill()
    process.wait()
    process.stderr.close()
    written = out.read_text()
    done = written.count("\n")
    assert 10 <= done < POSITIONS
    with open(out, "a", encoding="utf-8") as handle:
        handle.write('{"source": "torn')  # a line the killed client did not finish

    status, err = run(["--depth", "3", "--cluster", cluster.scheduler_address, "--resume", "-o", str(out),
                       inputs[0]])
    assert status == 0, err
    assert read(str(out)) == reference_depth3
    assert out.read_text().startswith(written)  # the kept part was not rewritten


def test_the_cluster_runner_hands_results_on_from_an_endless_input(scheduler):
    """Tasks without end: results come in order after a bounded number of tasks was read."""
    cluster, _ = scheduler
    pulled = [0]

    def endless():
        for number in itertools.count(1):
            pulled[0] += 1
            assert number < 5000, "the endless input is being read to its end"  # fail, not hang
            yield PositionTask("endless:%d" % number, chess.STARTING_FEN, False)

    with ClusterRunner(cluster.scheduler_address, Settings(depth=1), lambda n: None, lambda message: None) as runner:
        results = runner.run(endless())
        first = [next(results) for _ in range(40)]
        assert pulled[0] <= 40 + ClusterRunner._limit(2) + READ_AHEAD + 1
        results.close()
    assert [result.source for result in first] == ["endless:%d" % n for n in range(1, 41)]
    assert all(result.error is None for result in first)


def test_workers_with_other_code_are_refused(inputs, scheduler, tmp_path, monkeypatch):
    """The client's code hash differs from the workers': refused before any work, exit 69."""
    cluster, client = scheduler
    fake = dict(cluster_module.code_identity(PACKAGES), code="000000000000")
    monkeypatch.setitem(cluster_module._IDENTITY_CACHE, tuple(PACKAGES), fake)
    out = tmp_path / "refused.jsonl"
    status, err = run(["--depth", "2", "--cluster", cluster.scheduler_address, "-o", str(out), inputs[0]])
    assert status == EXIT_UNAVAILABLE
    assert "refusing to run: 2 of 2 workers run another Pruner" in err
    assert "code 000000000000" in err
    assert out.read_text() == ""
