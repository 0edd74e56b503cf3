"""``pruner analyse --engine CMD`` without ``--cluster``: any UCI engine behind the same
records, annotated PGN and review, on ``--jobs N`` engine processes, with ``--engine-option``.

The fake engine (tests/fake_engines/fake_uci.py, a random mover) covers the plumbing
everywhere; Pruner itself as a UCI engine must give exactly the in-process records; Stockfish,
where installed, covers a real foreign engine (skipped with the reason otherwise).
"""

import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import uuid

import chess
import chess.pgn
import pytest

from pruner.analyse_app.cli import EXIT_INTERRUPTED, EXIT_USAGE, main
from pruner.analyse_app.cluster_runner import EXIT_UNAVAILABLE
from pruner.analyse_app.inputs import read_inputs
from pruner.analyse_app.tasks import Settings
from pruner.analyse_app.uci_engine import EngineRunner

from os_helpers import live_processes_with
from paths import FAKE_ENGINE, ROOT
from sample_games import OPERA_GAME, OPERA_PLIES, SCHOLAR

STOCKFISH = shutil.which("stockfish") or ("/usr/games/stockfish" if os.access("/usr/games/stockfish", os.X_OK)
                                          else None)
needs_stockfish = pytest.mark.skipif(STOCKFISH is None, reason="Stockfish is not installed (apt-get install stockfish)")
PRUNER = shlex.join([sys.executable, "-m", "pruner"])

FENS = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
        "r3k2r/pp1nbppp/2p1pn2/q7/3P4/2N1PN2/PPQ1BPPP/R3K2R b KQkq - 0 10",
        "8/8/8/8/8/5k2/8/4K2R w K - 0 1"]


def fake(*flags):
    return shlex.join([sys.executable, FAKE_ENGINE] + list(flags))


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def records(text):
    return [json.loads(line) for line in text.splitlines()]


def without_time(items):
    for item in items:
        item.pop("time_ms")
    return items


@pytest.fixture
def games(tmp_path):
    paths = {}
    for name, text in (("opera.pgn", OPERA_GAME), ("two.pgn", SCHOLAR + "\n" + OPERA_GAME)):
        path = tmp_path / name
        path.write_text(text)
        paths[name] = str(path)
    return paths


# --- the fake engine: everywhere -------------------------------------------------------------

def test_a_fake_engine_feeds_records_pgn_and_review(games, tmp_path):
    engine = fake("--name", "FakeEngine 1.0", "--score", "25")
    status, out, err = run(["--engine", engine, "--jobs", "2", "--depth", "3", "-q", games["two.pgn"]] + FENS)
    assert status == 0, err
    items = records(out)
    assert [item["game"] for item in items] == [1] * 8 + [2] * (OPERA_PLIES + 1) + [None] * len(FENS)
    assert [item["source"].split(":")[0].endswith("two.pgn") for item in items].count(True) == 8 + OPERA_PLIES + 1
    for item in items:
        board = chess.Board(item["fen"])
        if item["game_over"] is None:
            move = chess.Move.from_uci(item["best_uci"])
            assert move in board.legal_moves and board.san(move) == item["best_san"]
            assert item["cp"] == 25 and item["depth"] == 1  # what the fake engine says
        else:
            assert item["best_uci"] is None
    assert items[7]["game_over"] == "checkmate" and items[7]["mate"] == 0  # 4. Qxf7#: answered unsearched
    # the annotated PGN and the review name the engine
    pgn, report = tmp_path / "a.pgn", tmp_path / "a.html"
    status, _, err = run(["--engine", engine, "--jobs", "2", "--depth", "3", "-q", "--format", "pgn",
                          "-o", str(pgn), "--report", str(report), games["opera.pgn"]])
    assert status == 0, err
    game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
    assert game.headers["Annotator"] == "FakeEngine 1.0 (depth 3)"
    assert len(list(game.mainline())) == OPERA_PLIES and game.errors == []
    text = report.read_text(encoding="utf-8")
    assert "analysed by FakeEngine 1.0, depth 3." in text and "Pruner" not in text.split("<body>")[1][:2000]


def test_jobs_n_runs_n_engine_processes(games, tmp_path):
    tasks, failed = read_inputs([games["opera.pgn"]] + FENS * 3, lambda message: None)
    assert failed == 0
    ticks = []
    settings = Settings(depth=2, engine_name="FakeUCI")
    # The fake engines answer their first search only once all three have started: without
    # this, a fast first engine could finish every task while the others are still starting.
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    with EngineRunner(shlex.split(fake("--barrier", "%s:3" % barrier)), (), settings, 3, ticks.append) as runner:
        results = list(runner.run(tasks))
        pids = {analyser.engine.transport.get_pid() for analyser in runner.started}
        assert len(runner.started) == 3 and len(pids) == 3
        assert all(analyser.alive for analyser in runner.started)
    assert [result.source for result in results] == [task.source for task in tasks]
    assert all(result.error is None for result in results)
    assert sum(ticks) == sum(task.work for task in tasks)
    assert not any(analyser.alive for analyser in runner.started)  # quit at the end
    with EngineRunner(shlex.split(fake()), (), settings, 8, ticks.append) as runner:
        list(runner.run(tasks[:2]))
        assert len(runner.started) <= 2  # never more engines than tasks


def test_engine_options_are_checked_before_anything_is_analysed(tmp_path):
    output = tmp_path / "out.jsonl"
    for options, message in (
            (["Nonsense=1"], "--engine-option 'Nonsense=1': the engine has no option 'Nonsense' (it has: Hash, "),
            (["Hash=abc"], "--engine-option 'Hash=abc': expected integer for spin option 'Hash', got: 'abc'"),
            (["Hash=5000"], "--engine-option 'Hash=5000': expected value for option 'Hash' to be at most 1024"),
            (["MultiPV=3"], "--engine-option 'MultiPV=3': the engine has no option"),
            (["UCI_Chess960=true"], "UCI_Chess960 is set by pruner analyse itself")):
        argv = ["--engine", fake()] + ["--engine-option=%s" % option for option in options]
        status, out, err = run(argv + ["-o", str(output), "startpos"])
        assert status == EXIT_USAGE and message in err, err
        assert not output.exists()  # refused before the output was opened
    status, _, err = run(["--engine", fake(), "--hash", "4096", "startpos"])
    assert status == EXIT_USAGE and "--hash 4096: expected value for option 'Hash' to be at most 1024" in err
    status, out, err = run(["--engine", fake(), "--engine-option", "hash=64", "--depth", "2", "startpos"])
    assert status == 0 and len(records(out)) == 1, err  # names as the engine spells them, any case


def test_pruner_as_a_uci_engine_checks_every_option_type():
    for option, message in (("OwnBook=maybe", "OwnBook is a check option: true or false"),
                            ("Clear Hash=1", "Clear Hash is a button, not a setting"),
                            ("MultiPV=2", "MultiPV is set by pruner analyse itself (use --multipv)"),
                            ("ponder=true", "Ponder is set by pruner analyse itself (analysis never ponders)")):
        status, _, err = run(["--engine", PRUNER, "--engine-option", option, "startpos"])
        assert status == EXIT_USAGE and "--engine-option '%s': %s" % (option, message) in err, err
    status, out, err = run(["--engine", PRUNER, "--engine-option", "OwnBook=FALSE", "--engine-option",
                            "Move Overhead=20", "--depth", "2", "-q", "startpos"])
    assert status == 0, err


def test_an_engine_that_cannot_start_is_unavailable():
    status, _, err = run(["--engine", "/nonexistent/engine", "startpos"])
    assert status == EXIT_UNAVAILABLE and "--engine /nonexistent/engine: cannot start it:" in err
    status, _, err = run(["--engine", fake("--fail-start", "exit"), "startpos"])
    assert status == EXIT_UNAVAILABLE and "cannot start it" in err and "Traceback" not in err


def test_an_engine_that_dies_fails_its_task_and_is_replaced(games):
    # --crash-after 3: the engine exits instead of its 4th search of a game (counted from
    # ucinewgame); the game fails, the positions after it get a new engine
    status, out, err = run(["--engine", fake("--crash-after", "3"), "--jobs", "1", "--depth", "2", "-q",
                            games["opera.pgn"]] + FENS)
    assert status == 1, err
    assert "opera.pgn:1: analysis failed: chess.engine.EngineTerminatedError: engine process died unexpectedly" in err
    assert [item["source"] for item in records(out)] == ["argument %d" % n for n in range(2, 2 + len(FENS))]


# --- Pruner through UCI: the same records as in-process ----------------------------------------

def test_pruner_through_uci_equals_pruner_in_process(games):
    argv = ["--depth", "3", "-q", games["opera.pgn"]] + FENS[:2]
    status, inside, err = run(argv + ["--jobs", "1"])
    assert status == 0, err
    status, through, err = run(argv + ["--engine", PRUNER, "--jobs", "2"])
    assert status == 0, err
    assert without_time(records(through)) == without_time(records(inside))


# --- Stockfish ----------------------------------------------------------------------------------

@needs_stockfish
def test_stockfish_jobs_give_the_same_records_as_one_job(games, tmp_path):
    argv = ["--engine", STOCKFISH, "--engine-option", "Threads=1", "--depth", "8", "-q", games["two.pgn"]] + FENS
    status, one, err = run(argv + ["--jobs", "1"])
    assert status == 0, err
    status, two, err = run(argv + ["--jobs", "2"])
    assert status == 0, err
    assert without_time(records(two)) == without_time(records(one))
    items = records(one)
    assert all(item["depth"] >= 8 for item in items if item["game_over"] is None)
    assert any(item["judgement"] for item in items)
    report, pgn = tmp_path / "sf.html", tmp_path / "sf.pgn"
    status, _, err = run(argv + ["--jobs", "2", "--report", str(report), "--format", "pgn", "-o", str(pgn)])
    assert status == 0, err
    assert chess.pgn.read_game(io.StringIO(pgn.read_text())).headers["Annotator"].startswith("Stockfish")
    assert "analysed by Stockfish" in report.read_text(encoding="utf-8")


@needs_stockfish
@pytest.mark.parametrize("option,message", [
    ("Skill Level=40", "--engine-option 'Skill Level=40': expected value for option 'Skill Level' to be at most 20"),
    ("UCI_LimitStrength=maybe", "UCI_LimitStrength is a check option: true or false"),
    ("Threads=two", "expected integer for spin option 'Threads'"),
    ("Contempt=10", "the engine has no option 'Contempt'"),
])
def test_stockfish_refuses_bad_options_by_name(option, message):
    status, out, err = run(["--engine", STOCKFISH, "--engine-option", option, "startpos"])
    assert status == EXIT_USAGE and message in err and out == "", err


@needs_stockfish
def test_stockfish_options_take_effect():
    # Skill Level 0 with MultiPV... is still a search; UCI_LimitStrength changes nothing at a
    # fixed depth but must be accepted in any case
    status, out, err = run(["--engine", STOCKFISH, "--engine-option", "skill level=3", "--engine-option",
                            "UCI_LimitStrength=TRUE", "--depth", "5", "-q", "startpos"])
    assert status == 0, err
    assert records(out)[0]["depth"] >= 5


@needs_stockfish
def test_records_carry_the_engines_own_wdl():
    """Stockfish declares UCI_ShowWDL: it is switched on and its wdl goes into the records
    (Pruner's model would not fit another engine's scores)."""
    status, out, err = run(["--engine", STOCKFISH, "--depth", "8", "--multipv", "2", "-q",
                            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3"])
    assert status == 0, err
    record = records(out)[0]
    wins, draws, losses = record["wdl"]
    assert wins + draws + losses == 1000 and record["white_wdl"] == [losses, draws, wins]
    assert all(sum(line["wdl"]) == 1000 for line in record["lines"])


def test_an_engine_without_wdl_leaves_it_null():
    status, out, err = run(["--engine", fake("--score", "25"), "--depth", "2", "-q", "startpos"])
    assert status == 0, err
    record = records(out)[0]
    assert record["wdl"] is None and record["white_wdl"] is None


# --- Ctrl-C -------------------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for engine processes")
def test_ctrl_c_stops_the_engines(tmp_path):
    """A terminal's Ctrl-C reaches pruner analyse only (the engines have their own process
    group); it kills its engines, even in the middle of a search, and exits 130."""
    marker = "Engine-%s" % uuid.uuid4().hex
    (tmp_path / "first.epd").write_text("\n".join(FENS) + "\n")
    (tmp_path / "game.pgn").write_text(OPERA_GAME)
    (tmp_path / "many.epd").write_text("\n".join(FENS * 10) + "\n")
    # an engine answers the first search of a task at once and sleeps 600 s in the next one:
    # the game's second search never ends, and the output stops after the first positions
    engine = fake("--name", marker, "--sleep-after", "1", "--sleep", "600")
    process = subprocess.Popen([sys.executable, "-m", "pruner", "analyse", "--engine", engine, "--jobs", "2",
                                "--depth", "2"] + [str(tmp_path / name) for name in ("first.epd", "game.pgn", "many.epd")],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = process.stdout.readline().decode()  # the first record: the engines are running
        assert first, process.stderr.read().decode()
        assert [pid for pid in live_processes_with(marker) if pid != process.pid]
        os.killpg(process.pid, signal.SIGINT)
        rest, err = (data.decode() for data in process.communicate(timeout=60))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == EXIT_INTERRUPTED, err
    written = records(first + rest)
    assert 1 <= len(written) <= len(FENS)  # the game never finished: nothing after it
    assert "interrupted; %d positions written" % len(written) in err and "Traceback" not in err
    assert live_processes_with(marker) == []


# --- with --cluster: the options are checked on a worker ------------------------------------------

def test_cluster_engine_options_are_checked_on_a_worker(tmp_path):
    pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install 'pruner-chess[cluster]')")
    status, _, err = run(["--cluster", "local:1", "--engine", fake(), "--engine-option", "Nonsense=1", "-q",
                          "startpos"])
    assert status == EXIT_USAGE and "--engine-option 'Nonsense=1': the engine has no option 'Nonsense'" in err, err
    report = tmp_path / "r.html"
    status, out, err = run(["--cluster", "local:1", "--engine", fake("--name", "FakeEngine 2"), "--engine-option",
                            "Hash=8", "--depth", "2", "-q", "--format", "pgn", "--report", str(report), SCHOLAR_FEN])
    assert status == 0, err
    assert chess.pgn.read_game(io.StringIO(out)).headers["Annotator"] == "FakeEngine 2 (depth 2)"
    assert "analysed by FakeEngine 2, depth 2." in report.read_text(encoding="utf-8")


SCHOLAR_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
