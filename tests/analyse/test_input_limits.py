"""What ``pruner analyse`` holds of its inputs stays bounded whatever they hold (issue 44).

A line longer than 4 MB (EPD, PGN, FEN lists, compressed or not) is read past in pieces and
skipped, named by file and line; a PGN game longer than 4 MB is skipped up to the next game;
a line without an end (``/dev/zero``) ends that input with a clear message, and the run goes
on. Before, a 200 MB line took 1.5-2.5 GB and ``/dev/zero`` grew until MemoryError: the
process tests run the real command with its address space capped, so that a regression fails
with MemoryError instead of taking the machine's memory.
"""

import bz2
import gzip
import io
import json
import lzma
import os
import subprocess
import sys

import pytest

from pruner.analyse_app.cli import main

from paths import ROOT
from sample_games import SCHOLAR

LONG = 5 << 20
"""A line longer than the 4 MB the readers hold."""
FEN = "8/8/8/8/8/5k2/8/4K2R w K - 0 1"
SECOND_GAME = '[Event "after"]\n\n1. d4 d5 *\n\n'
ADDRESS_SPACE = 768 << 20
"""The address space the process tests give ``pruner analyse`` (CPython and PyPy start in
well under half of it, with ``--jobs 1``)."""


def run(argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    status = main(["--depth", "1", "--jobs", "1", "-q"] + list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


COMPRESSORS = {"": lambda data: data, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def compressor(suffix):
    if suffix == ".zst":
        zstandard = pytest.importorskip("zstandard")
        return zstandard.ZstdCompressor().compress
    return COMPRESSORS[suffix]


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz", ".zst"])
def test_a_long_epd_line_is_skipped_by_name_and_the_rest_is_read(tmp_path, suffix):
    data = ("startpos\n" + "x" * LONG + "\n" + FEN + "\n").encode()
    path = tmp_path / ("suite.epd" + suffix)
    path.write_bytes(compressor(suffix)(data))
    status, items, err = run([str(path)])
    assert status == 1, err
    assert "%s:2: skipped: the line is longer than 4 MB (%d bytes)" % (path, LONG + 1) in err
    assert [item["source"] for item in items] == ["%s:1" % path, "%s:3" % path]


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_pgn_game_with_a_long_line_is_skipped_up_to_the_next_game(tmp_path, suffix):
    text = SCHOLAR + "\n" + '[Event "long"]\n\n1. e4 {' + "y" * LONG + "} e5 *\n\n" + SECOND_GAME
    path = tmp_path / ("games.pgn" + suffix)
    path.write_bytes(compressor(suffix)(text.encode()))
    status, items, err = run([str(path)])
    assert status == 1, err
    assert "%s:6: game 2 skipped: line 8 is longer than 4 MB" % path in err
    assert sorted({(item["source"], item["game"]) for item in items}) == [("%s:1" % path, 1), ("%s:10" % path, 3)]


def test_a_pgn_game_longer_than_the_bound_is_skipped(tmp_path):
    comment_lines = "{%s}\n" % ("z" * (1 << 20)) * 5  # 5 lines of 1 MB: each line fits, the game does not
    text = '[Event "huge"]\n\n1. e4\n' + comment_lines + "e5 *\n\n" + SECOND_GAME
    status, items, err = run(["-"], stdin=io.StringIO(text))
    assert status == 1, err
    assert "<stdin>:1: game 1 skipped: the game is longer than 4 MB; read past up to the next game" in err
    assert {item["game"] for item in items} == {2}


def test_a_long_line_in_a_text_stream_on_standard_input(tmp_path):
    status, items, err = run(["-"], stdin=io.StringIO("startpos\n" + "x" * LONG + "\n" + FEN + "\n"))
    assert status == 1 and "<stdin>:2: skipped: the line is longer than 4 MB" in err
    assert len(items) == 2


def test_an_output_with_a_long_line_is_not_resumed(tmp_path):
    output = tmp_path / "out.jsonl"
    output.write_text("x" * LONG + "\n")
    status, _, err = run(["--resume", "-o", str(output), "startpos"])
    assert status == 64 and "cannot resume: line 1 is longer than 4 MB" in err
    assert output.stat().st_size == LONG + 1


def test_the_read_ahead_waits_while_the_tasks_it_holds_are_large(monkeypatch):
    from pruner.analyse_app import stream

    class Big:
        size = 10

    monkeypatch.setattr(stream, "MAX_HELD_CHARS", 35)
    with stream.TaskFeed(iter([Big() for _ in range(100)]), 1000, read_ahead=0) as feed:
        first = feed.take(wait=True)
        while feed.read < 4:  # reading goes on up to the bound (4 tasks: 40 >= 35), no further
            feed.take(wait=False)
        feed._thread.join(5 * stream.POLL_SECONDS)
        assert first is not None and feed.read == 4
        feed.done(2)  # two tasks written: room for two more
        feed._thread.join(5 * stream.POLL_SECONDS)
        assert feed.read == 6


# -- the real process, its address space capped ------------------------------------------------

def capped(argv, stdin=None):
    """Run ``pruner analyse`` with ``ADDRESS_SPACE`` of memory: (status, records, stderr)."""
    resource = pytest.importorskip("resource")

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    done = subprocess.run([sys.executable, "-m", "pruner", "analyse", "--depth", "1", "--jobs", "1", "-q"] + argv,
                          cwd=ROOT, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120, preexec_fn=cap)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("input_format", [[], ["--input-format", "pgn"]])
def test_dev_zero_ends_with_a_clear_message(input_format):
    status, items, err = capped(input_format + ["/dev/zero", FEN])
    assert status == 1, err
    assert "/dev/zero:1: " in err and "no end within 1024 MB (not a text file?); the rest is not read" in err
    assert "MemoryError" not in err and "Traceback" not in err
    assert [item["source"] for item in items] == ["argument 2"]


@pytest.mark.parametrize("name, text, expected", [
    ("lines.epd", "{line}\nstartpos\n", ["{path}:2"]),
    ("games.pgn", '[Event "a"]\n\n1. e4 e5 *\n\n{line}\n\n' + SECOND_GAME, ["{path}:1", "{path}:7"]),
])
def test_a_200_mb_line_costs_no_memory(tmp_path, name, text, expected):
    """A line of 200 MB of NUL bytes (a sparse file: no disk used) between good records."""
    path = tmp_path / name
    before, after = text.split("{line}")
    with open(str(path), "wb") as handle:
        handle.write(before.encode())
        handle.seek(200 << 20, io.SEEK_CUR)
        handle.write(after.encode())
    status, items, err = capped([str(path)])
    assert status == 1, err
    assert "longer than 4 MB" in err and "MemoryError" not in err
    assert sorted({item["source"] for item in items}) == [item.format(path=path) for item in expected]
