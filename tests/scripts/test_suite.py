"""scripts/suite.py: EPD parsing (bm/am/dm/c0), solving with a fake engine, crashes, and Pruner on WAC
and on mates (dm, --mate-depth); scripts/mate_suite.py with Pruner as the reference."""

import os
import re
import subprocess
import sys

import chess
import pytest

import suite as suite_cli
from pruner.lab.matchlib.engines import EngineStartError, parse_engine_spec
from pruner.lab.matchlib.epdsuite import load_suite, parse_points, run_suite
from paths import QUIRKY, QUIRKY_FILES, QUIRKY_SUMMARY, ROOT, SCRIPTS

pytestmark = pytest.mark.one_interpreter

DATA = os.path.join(ROOT, "tests", "data", "epd")
WAC = os.path.join(DATA, "wac.epd")
BK = os.path.join(DATA, "bk.epd")
FAKE = os.path.join(ROOT, "tests", "fake_engines", "fake_uci.py")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"

# The fake engine plays e2e4 whenever it can: solved, unsolved (6 of 10 points), avoided move played.
STS_LINES = [
    START + ' bm e4; id "T.1"; c0 "e4=10, d4=8";',
    START + ' bm d4; id "T.2"; c0 "d4=10, e4=6, Nf3=3";',
    START + ' am e4; id "T.3";',
]


@pytest.fixture
def sts_file(tmp_path):
    path = tmp_path / "sts.epd"
    path.write_text("\n".join(STS_LINES) + "\n")
    return str(path)


def fake_spec(*args):
    return parse_engine_spec(" ".join([sys.executable, FAKE, "--best", "e2e4"] + list(args)))


def test_load_wac_and_bk():
    wac = load_suite(WAC)
    assert len(wac) == 300 and wac[0].id == "WAC.001"
    assert [wac[0].board.san(m) for m in wac[0].best] == ["Qg6"]
    avoid = next(p for p in wac if p.id == "WAC.274")
    assert avoid.expected() == "am Rd6 bm Rb6 Rg5+"
    assert avoid.is_correct(chess.Move.from_uci("g6b6")) and not avoid.is_correct(chess.Move.from_uci("g6d6"))
    assert not avoid.is_correct(chess.Move.from_uci("a3a2")) and not avoid.is_correct(None)
    assert len(load_suite(BK)) == 24


def test_points_and_am_only(sts_file):
    positions = load_suite(sts_file)
    board = positions[0].board
    assert parse_points(board, "e4=10, d4=8, Zz9=4") == {board.parse_san("e4"): 10, board.parse_san("d4"): 8}
    assert [p.max_points for p in positions] == [10, 10, 0]
    am_only = positions[2]
    assert am_only.is_correct(board.parse_san("d4")) and not am_only.is_correct(board.parse_san("e4"))


def test_lines_without_anything_to_find_are_skipped_and_reported(tmp_path):
    path = tmp_path / "bad.epd"
    path.write_text(START + ' id "no solution";\n' + START + ' dm 0;\n' + STS_LINES[0] + "\n")
    reports = []
    positions = load_suite(str(path), report=reports.append)
    assert [p.id for p in positions] == ["T.1"]
    assert len(reports) == 2, reports
    assert reports[0].endswith(":1: skipped: no bm, am, dm or c0 points to check the engine against")
    assert reports[1].endswith(":2: skipped: dm needs a whole number of moves >= 1")


@pytest.mark.parametrize("name", sorted(QUIRKY_FILES))
def test_suite_script_reads_the_quirky_files(name):
    reports = []
    positions = load_suite(os.path.join(QUIRKY, name), report=reports.append)
    assert len(positions) == QUIRKY_FILES[name][1]
    summary = [line.split(": ", 1)[1] for line in reports if ": skipped: " not in line]
    assert summary == (QUIRKY_SUMMARY if name == "mixed_quirks.epd" else [])


MATES = [  # mate in 1, in 2 and in 3 (distances checked with Stockfish 15.1)
    '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; dm 1; id "M.1";',
    'k7/8/1K6/8/8/8/8/1Q6 w - - dm 2; id "M.2";',
    '3k4/8/8/8/8/8/R7/1R4K1 w - - dm 3; id "M.3";',
]


def test_dm_needs_the_exact_mate_score(tmp_path):
    path = tmp_path / "mates.epd"
    path.write_text("\n".join(MATES) + "\n")
    positions = load_suite(str(path))
    assert [p.mate for p in positions] == [1, 2, 3] and positions[0].expected() == "bm Rd8# dm 1"
    assert positions[2].limit(chess.engine.Limit(time=1), mate_depth=True) == chess.engine.Limit(depth=8)
    assert positions[2].limit(chess.engine.Limit(time=1), mate_depth=False) == chess.engine.Limit(time=1)
    # The fake engine reports 'score cp 0': never the mate, so nothing is solved.
    results = run_suite(positions, fake_spec(), chess.engine.Limit(depth=1), jobs=1, timeout=10,
                        on_result=lambda r: None, mate_depth=True)
    assert [(r.solved, r.mate, r.error) for r in results] == [(False, None, None)] * 3
    # Pruner at depth 2N+2 finds each mate with the exact distance.
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "suite.py"), str(path), "--engine",
                           "%s -m pruner" % sys.executable, "--dir", ROOT, "--depth", "1", "--mate-depth",
                           "--jobs", "1", "--verbose"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "solved 3/3", proc.stdout


def test_run_suite_solved_points_and_time(sts_file):
    seen = []
    results = run_suite(load_suite(sts_file), fake_spec(), chess.engine.Limit(depth=1), jobs=2, timeout=10,
                        on_result=seen.append)
    assert [r.position.id for r in seen] == ["T.1", "T.2", "T.3"]  # reported in suite order
    assert [r.solved for r in results] == [True, False, False]
    assert [r.points for r in results] == [10, 6, 0]
    assert results[0].time_to_solution == 0.0 and results[0].depth_at_solution == 1
    assert results[1].time_to_solution is None
    assert all(r.error is None for r in results)


def test_crashing_engine_does_not_stop_the_suite(sts_file):
    results = run_suite(load_suite(sts_file), fake_spec("--crash-after", "0"), chess.engine.Limit(depth=1),
                        jobs=1, timeout=10, on_result=lambda r: None)
    assert len(results) == 3
    assert all(not r.solved and "crashing on purpose" in r.error for r in results)


def test_engine_that_never_starts():
    with pytest.raises(EngineStartError):
        run_suite(load_suite(BK)[:1], fake_spec("--fail-start", "exit"), chess.engine.Limit(depth=1),
                  jobs=1, timeout=10, on_result=lambda r: None)


def test_cli_verbose_and_last_line(sts_file):
    engine = "%s %s --best e2e4" % (sys.executable, FAKE)
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "suite.py"), sts_file, "--engine", engine,
                           "--depth", "1", "--verbose"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert re.match(r"\s+1 T\.1\s+bm e4\s+e4\s+ok\s+0\.000s d1\s+10/10 pts", lines[1]), lines[1]
    assert re.match(r"\s+2 T\.2\s+bm d4\s+e4\s+--\s+6/10 pts", lines[2]), lines[2]
    assert "Unsolved: T.2 T.3" in lines
    assert lines[-1] == "solved 1/3  points 16/20"


def test_cli_help():
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "suite.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    for option in ("--engine", "--movetime", "--time", "--depth", "--nodes", "--jobs", "--concurrency", "--verbose"):
        assert option in out



def limit_of(*argv):
    """(limit, description, timeout) that suite.py builds from these arguments."""
    return suite_cli.position_limit(suite_cli.build_parser().parse_args(["x.epd"] + list(argv)))


def test_movetime_is_read_in_milliseconds():
    assert limit_of("--movetime", "500") == (chess.engine.Limit(time=0.5), "0.5s", 10.5)
    assert limit_of("--movetime", "500") == limit_of("--time", "0.5")
    assert limit_of("--movetime", "250", "--timeout", "3") == (chess.engine.Limit(time=0.25), "0.25s", 3.0)
    assert limit_of("--depth", "7") == (chess.engine.Limit(depth=7), "depth 7", 120.0)
    assert limit_of("--nodes", "5000") == (chess.engine.Limit(nodes=5000), "5000 nodes", 120.0)


def test_concurrency_is_another_name_for_jobs():
    parser = suite_cli.build_parser()
    assert parser.parse_args(["x.epd", "--depth", "1", "--concurrency", "3"]).jobs == 3
    assert parser.parse_args(["x.epd", "--depth", "1", "--jobs", "3"]).jobs == 3


@pytest.mark.parametrize("argv, flag", [
    (["--movetime=-5"], "--movetime"), (["--movetime", "0"], "--movetime"), (["--movetime", "nan"], "--movetime"),
    (["--time", "0"], "--time"), (["--time", "inf"], "--time"), (["--depth", "0"], "--depth"),
    (["--nodes=-1"], "--nodes"), (["--depth", "1", "--jobs", "0"], "--jobs"),
    (["--depth", "1", "--concurrency", "0"], "--concurrency"), (["--depth", "1", "--first", "0"], "--first"),
])
def test_bad_limits_are_refused_when_the_arguments_are_read(capsys, argv, flag):
    with pytest.raises(SystemExit) as exit_info:
        suite_cli.build_parser().parse_args(["x.epd"] + argv)
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_info.value.code == 2 and error.startswith("suite.py: error: ") and flag in error, error


@pytest.mark.parametrize("content", ["", "hello world\ngarbage here\n", START + ' id "nothing to find";\n'])
def test_a_file_without_positions_is_an_error(capsys, tmp_path, content):
    path = tmp_path / "empty.epd"
    path.write_text(content)
    with pytest.raises(SystemExit) as exit_info:  # was "solved 0/0" with exit status 0
        suite_cli.main([str(path), "--engine", "%s %s" % (sys.executable, FAKE), "--depth", "1"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_info.value.code == 2 and error.startswith("suite.py: error: %s: " % path), error

def test_pruner_on_five_wac_positions(tmp_path):
    path = tmp_path / "wac5.epd"
    with open(WAC, encoding="utf-8") as handle:
        path.write_text("".join(handle.readlines()[:5]))
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "suite.py"), str(path), "--time", "0.3",
                           "--jobs", "2", "--verbose"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "Errors" not in proc.stdout, proc.stdout
    assert len([line for line in lines if re.match(r"\s+\d WAC\.00\d", line)]) == 5
    assert re.match(r"^solved [0-5]/5$", lines[-1]), lines[-1]


def test_mate_suite_keeps_the_proven_short_mates(tmp_path):
    source = tmp_path / "mixed.epd"
    source.write_text("\n".join(MATES + [START + ' bm e4; id "not a mate";']) + "\n")
    out = tmp_path / "mates.epd"
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "mate_suite.py"), str(source), "--engine",
                           "%s -m pruner" % sys.executable, "--depth", "8", "--max-mate", "2", "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "kept 2 of 4 positions" in proc.stderr
    kept = load_suite(str(out))
    assert [(p.id, p.mate) for p in kept] == [("M.1", 1), ("M.2", 2)]  # the mate in 3 is over --max-mate
    assert [kept[0].board.san(m) for m in kept[0].best] == ["Rd8#"]
