"""``pruner analyse --resume`` continues an output only with the settings that wrote it (issue 44).

The settings that make the records are recorded beside the output (``FILE.settings.json``);
a resume with another depth, MultiPV, hash, engine or selection is refused naming each
setting that differs, and the file is left as it was. Before, ``--resume --depth 8`` on a
file written at depth 6 silently appended depth-8 records.
"""

import io
import json
import shlex
import sys

import pytest

from pruner.analyse_app.cli import EXIT_USAGE, main

from paths import FAKE_ENGINE
from sample_games import OPERA_GAME

FENS = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
        "8/8/8/8/8/5k2/8/4K2R w K - 0 1"]


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = main(["-q", "--jobs", "1"] + list(argv), stdout=out, stderr=err)
    return status, err.getvalue()


def cut_after_first_record(path):
    """What a run killed after its first record leaves."""
    text = path.read_text()
    path.write_text(text[:text.index("\n") + 1] + text[text.index("\n") + 1:][:40])
    return path.read_text()


@pytest.fixture
def output(tmp_path):
    return tmp_path / "out.jsonl"


@pytest.mark.parametrize("first, then, differs", [
    (["--depth", "1"], ["--depth", "2"], "--depth 1, this run 2"),
    (["--depth", "1"], ["--nodes", "500"], "--depth 1, this run not given; --nodes not given, this run 500"),
    (["--depth", "1"], ["--depth", "1", "--multipv", "2"], "--multipv 1, this run 2"),
    (["--depth", "1"], ["--depth", "1", "--hash", "32"], "--hash 16, this run 32"),
    (["--depth", "1"], ["--depth", "1", "--chess960"], "--chess960 off, this run on"),
    ([], ["--depth", "7", "--movetime", "100"], "--movetime not given, this run 100"),
])
def test_a_resume_with_other_settings_is_refused_naming_them(output, first, then, differs):
    status, err = run(first + ["-o", str(output)] + FENS)
    assert status == 0, err
    before = cut_after_first_record(output)
    status, err = run(then + ["--resume", "-o", str(output)] + FENS)
    assert status == EXIT_USAGE
    assert "cannot resume: %s was written with other settings" % output in err and differs in err
    assert output.read_text() == before  # not cut, nothing appended


def test_a_resume_with_another_engine_is_refused(output):
    engine = shlex.join([sys.executable, FAKE_ENGINE, "--name", "FakeEngine 2.0"])
    status, err = run(["--depth", "1", "--engine", engine, "-o", str(output)] + FENS)
    assert status == 0, err
    cut_after_first_record(output)
    status, err = run(["--depth", "1", "--resume", "-o", str(output)] + FENS)
    assert status == EXIT_USAGE and "engine FakeEngine 2.0, this run Pruner " in err


def test_a_resume_with_other_games_is_refused(tmp_path, output):
    games = tmp_path / "games.pgn"
    games.write_text(OPERA_GAME)
    status, err = run(["--depth", "1", "--side", "white", "-o", str(output), str(games)])
    assert status == 0, err
    cut_after_first_record(output)
    status, err = run(["--depth", "1", "--side", "black", "--resume", "-o", str(output), str(games)])
    assert status == EXIT_USAGE and "--side white, this run black" in err


def test_a_resume_with_the_same_settings_ends_like_an_uninterrupted_run(tmp_path, output):
    whole = tmp_path / "whole.jsonl"
    assert run(["--depth", "2", "--multipv", "2", "-o", str(whole)] + FENS)[0] == 0
    assert run(["--depth", "2", "--multipv", "2", "-o", str(output)] + FENS)[0] == 0
    cut_after_first_record(output)
    status, err = run(["--multipv", "2", "--depth", "2", "--resume", "-o", str(output)] + FENS)
    assert status == 0, err

    def records(path):
        return [dict(json.loads(line), time_ms=None) for line in path.read_text().splitlines()]

    assert records(output) == records(whole)


def test_an_output_without_recorded_settings_is_resumed_with_a_note(output):
    assert run(["--depth", "1", "-o", str(output)] + FENS)[0] == 0
    recorded = output.parent / (output.name + ".settings.json")
    assert json.loads(recorded.read_text())["settings"]["--depth"] == 1
    recorded.unlink()  # as an older version left it
    cut_after_first_record(output)
    status, err = run(["--depth", "1", "--resume", "-o", str(output)] + FENS)
    assert status == 0, err
    assert "no settings are recorded beside %s (written by an older version?): not checked" % output in err
    assert len(output.read_text().splitlines()) == len(FENS) and recorded.exists()  # recorded from now on


def test_settings_are_recorded_only_beside_a_regular_file(tmp_path, monkeypatch):
    monkeypatch.chdir(str(tmp_path))
    assert run(["--depth", "1", "startpos"])[0] == 0
    assert run(["--depth", "1", "-o", "/dev/null", "startpos"])[0] == 0
    assert list(tmp_path.iterdir()) == []
