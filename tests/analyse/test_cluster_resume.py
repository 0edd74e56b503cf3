"""``pruner analyse --resume`` and the ``--cluster`` options, without Dask.

Resume: a run cut anywhere (between records, inside a game, inside a line) and resumed gives
the file an uninterrupted run gives, in every format; a file from other inputs is refused.
Options: bad combinations are usage errors; ``--cluster`` without Dask names the extra.
"""

import csv
import io
import json
import sys

import pytest

from pruner import cluster
from pruner.analyse_app.cli import EXIT_USAGE, main
from pruner.analyse_app.cluster_runner import EXIT_UNAVAILABLE, plan_chunks
from pruner.analyse_app.inputs import read_inputs

from sample_games import SCHOLAR

EPD = [
    '1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";',
    '3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - bm d5; id "BK.02";',
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "8/8/8/8/8/8/8/K6k w - - 0 1",
]


@pytest.fixture
def inputs(tmp_path):
    epd = tmp_path / "suite.epd"
    epd.write_text("\n".join(EPD[:2]) + "\n")
    pgn = tmp_path / "scholar.pgn"
    pgn.write_text(SCHOLAR)
    more = tmp_path / "more.epd"
    more.write_text("\n".join(EPD[2:]) + "\n")
    return [str(epd), str(pgn), str(more)]


def run(argv):
    err = io.StringIO()
    status = main(list(argv), stdout=io.StringIO(), stderr=err)
    return status, err.getvalue()


def normalised(fmt, text):
    """The output without its timing fields."""
    if fmt == "jsonl":
        records = [json.loads(line) for line in text.splitlines()]
        for record in records:
            record.pop("time_ms")
        return records
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        column = rows[0].index("time_ms")
        return [row[:column] + row[column + 1:] for row in rows]
    return text


# Left to CPython (the PyPy leg skips `one_interpreter`): reading back torn files is the same
# code on both, and on PyPy each of the many short in-process runs is cold (44 s of the PyPy
# leg for the three formats, about 5 s on CPython, 2026-11-28).
@pytest.mark.one_interpreter
@pytest.mark.parametrize("fmt,multipv", [("jsonl", 1), ("csv", 2), ("pgn", 2)])
def test_resume_from_every_cut(inputs, tmp_path, fmt, multipv):
    """Cut the finished file at many places (torn lines, half games); resuming restores it."""
    base = ["-q", "--depth", "2", "--jobs", "1", "--format", fmt, "--multipv", str(multipv)]
    full = tmp_path / ("full." + fmt)
    assert run(base + ["-o", str(full)] + inputs)[0] == 0
    data = full.read_bytes()
    expected = normalised(fmt, data.decode())
    newlines = [index + 1 for index, byte in enumerate(data) if byte == ord("\n")]
    cuts = sorted(set([0, 1, len(data) - 1, len(data)] + newlines[::3] + [n - 5 for n in newlines[1::4]]))
    part = tmp_path / ("part." + fmt)
    for cut in cuts:
        part.write_bytes(data[:cut])
        status, err = run(base + ["--resume", "-o", str(part)] + inputs)
        assert status == 0, (cut, err)
        assert normalised(fmt, part.read_text()) == expected, cut


def test_resume_keeps_the_finished_part_and_redoes_a_cut_game(inputs, tmp_path):
    base = ["--depth", "2", "--jobs", "1"]
    full = tmp_path / "full.jsonl"
    assert run(["-q"] + base + ["-o", str(full)] + inputs)[0] == 0
    lines = full.read_text().splitlines(True)
    game_lines = [n for n, line in enumerate(lines) if json.loads(line)["ply"] is not None]
    keep = lines[:game_lines[3]]  # the two EPD positions and three of the game's positions
    part = tmp_path / "part.jsonl"
    part.write_text("".join(keep))
    status, err = run(base + ["--resume", "-o", str(part)] + inputs)
    assert status == 0
    assert "resuming %s: 2 positions kept, 2 inputs done" % part in err
    text = part.read_text()
    assert text.startswith("".join(lines[:2]))
    assert normalised("jsonl", text) == normalised("jsonl", "".join(lines))


def test_resume_of_a_complete_file_analyses_nothing(inputs, tmp_path):
    out = tmp_path / "out.jsonl"
    assert run(["-q", "--depth", "1", "--jobs", "1", "-o", str(out)] + inputs)[0] == 0
    before = out.read_text()
    status, err = run(["--depth", "1", "--jobs", "1", "--resume", "-o", str(out)] + inputs)
    assert status == 0
    assert "0 positions in" in err
    assert out.read_text() == before


def test_resume_without_a_file_starts_afresh(inputs, tmp_path):
    out = tmp_path / "new.jsonl"
    assert run(["-q", "--depth", "1", "--jobs", "1", "--resume", "-o", str(out)] + inputs)[0] == 0
    assert len(out.read_text().splitlines()) == 2 + 8 + 2


def test_resume_refuses_a_file_of_other_inputs(inputs, tmp_path):
    out = tmp_path / "other.jsonl"
    assert run(["-q", "--depth", "1", "--jobs", "1", "-o", str(out), inputs[2]])[0] == 0
    before = out.read_text()
    status, err = run(["--depth", "1", "--jobs", "1", "--resume", "-o", str(out), inputs[0]])
    assert status == EXIT_USAGE
    assert "cannot resume" in err and "another command line" in err
    assert out.read_text() == before  # untouched
    csv_out = tmp_path / "other.csv"
    csv_out.write_text(before)
    status, err = run(["--depth", "1", "--format", "csv", "--resume", "-o", str(csv_out), inputs[0]])
    assert status == EXIT_USAGE and "CSV header" in err


@pytest.mark.parametrize("argv,message", [
    (["--resume", "startpos"], "--resume needs -o FILE"),
    (["--engine-option", "Hash=1", "startpos"], "--engine-option needs --engine"),
    (["--engine", "x", "--engine-option", "Hash", "startpos"], "expected NAME=VALUE"),
    (["--engine", "x", "--engine-option", "Hash=1", "--engine-option", "hash=2", "startpos"], "given twice"),
    (["--cluster", "local:0", "startpos"], "local:N needs a worker count"),
    (["--cluster", "local:two", "startpos"], "local:N needs a worker count"),
    (["--cluster", "local:2", "--engine", " ", "startpos"], "--engine: empty command"),
])
def test_bad_cluster_options_are_usage_errors(argv, message):
    status, err = run(argv)
    assert status == EXIT_USAGE
    assert message in err


def test_cluster_without_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    status, err = run(["-q", "--depth", "1", "--cluster", "local:2", "startpos"])
    assert status == EXIT_UNAVAILABLE
    assert "--cluster needs Dask distributed" in err
    assert 'pip install "pruner-chess[cluster]"' in err


def test_parse_address():
    assert cluster.parse_address("local:3") == (None, 3)
    assert cluster.parse_address("tcp://10.0.0.5:8786") == ("tcp://10.0.0.5:8786", 0)
    assert cluster.parse_address("sched:8786") == ("sched:8786", 0)
    for bad in ("", "local:", "local:-1", "a b", "--depth"):
        with pytest.raises(ValueError):
            cluster.parse_address(bad)


def test_plan_chunks_keeps_games_alone_and_input_order(inputs):
    tasks, failed = read_inputs([inputs[0]] * 20 + [inputs[1]] + [inputs[2]] * 20, lambda message: None)
    assert failed == 0
    chunks = plan_chunks(tasks, threads=1)
    flat = [index for chunk in chunks for index, _ in chunk]
    assert flat == list(range(len(tasks)))
    for chunk in chunks:
        kinds = {type(task).__name__ for _, task in chunk}
        assert kinds == {"PositionTask"} or (kinds == {"GameTask"} and len(chunk) == 1)
    # 80 positions on 1 thread: positions left / 8 per chunk, the game alone in between
    assert [len(chunk) for chunk in chunks] == [10, 9, 8, 7, 6, 1, 5, 5, 4, 4, 3, 3, 2, 2, 2, 2] + [1] * 8
    assert type(chunks[5][0][1]).__name__ == "GameTask"
    assert max(len(chunk) for chunk in plan_chunks(tasks, threads=64)) == 1
