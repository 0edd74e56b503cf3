"""scripts/match.py's output files (issue 44): ``--json`` and ``--plot`` written through a
symbolic link or into a FIFO without replacing them, and an output that names the openings
file refused before a game is played; an output another match is writing refused at once,
status 75, and left as it was (issue 51)."""

import json
import os
import stat
import subprocess
import sys

import pytest

import match as match_cli
from pruner.output_files import EXIT_BUSY, lock_path, locked
from os_helpers import (FULL_DEVICE, SAME_FILE_NAMES, device_node, fifo_with_reader, live_processes_with,
                        same_file)
from paths import ROOT

pytestmark = [pytest.mark.one_interpreter,
              pytest.mark.skipif(os.name != "posix", reason="FIFOs and links as POSIX has them")]

FAKE = os.path.join(ROOT, "tests", "fake_engines", "fake_uci.py")
BOOK_LINES = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
              "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"]


def fake(*args: str) -> str:
    return " ".join([sys.executable, FAKE] + list(args))


def quick_match(*extra: str):
    return ["--engine", fake("--name", "A"), "--engine", fake("--name", "B"), "--depth", "1",
            "--games", "2", "--max-moves", "3", "--seed", "1", "--jobs", "1"] + list(extra)


@pytest.fixture
def book(tmp_path):
    path = tmp_path / "book.epd"
    path.write_text("\n".join(BOOK_LINES) + "\n")
    return path


@pytest.mark.parametrize("flag", ["--pgn", "--json"])
@pytest.mark.parametrize("how", SAME_FILE_NAMES)
def test_an_output_that_is_the_openings_file_is_refused(capsys, book, flag, how):
    output = same_file(str(book), how)
    with pytest.raises(SystemExit) as exit_:
        match_cli.main(quick_match("--openings", str(book), flag, output))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "%s %s is the input %s: writing it would destroy it" % (flag, output, book) in err
    assert book.read_text() == "\n".join(BOOK_LINES) + "\n"


def test_two_outputs_on_one_file_are_refused(capsys, book, tmp_path):
    path = str(tmp_path / "out.txt")
    with pytest.raises(SystemExit):
        match_cli.main(quick_match("--openings", str(book), "--pgn", path, "--json", path))
    assert "--json %s is the same file as --pgn %s" % (path, path) in capsys.readouterr().err
    assert not os.path.exists(path)


@pytest.mark.parametrize("flag, resume", [("--pgn", False), ("--pgn", True), ("--json", False)])
def test_an_output_another_match_is_writing_is_refused_and_left_as_it_was(capsys, book, tmp_path, flag, resume):
    pgn, result = tmp_path / "games.pgn", tmp_path / "result.json"
    argv = quick_match("--openings", str(book), "--pgn", str(pgn), "--json", str(result))
    assert match_cli.main(argv) == 0
    before = pgn.read_bytes(), result.read_bytes()
    capsys.readouterr()
    held = pgn if flag == "--pgn" else result
    with locked([(flag, str(held))]):
        assert match_cli.main(argv + (["--resume"] if resume else [])) == EXIT_BUSY
    out, err = capsys.readouterr()
    assert err == "match.py: error: %s %s: another run (pid %d) is writing it (lock %s); try again when it has " \
                  "ended\n" % (flag, held, os.getpid(), lock_path(str(held)))
    assert out == "" and (pgn.read_bytes(), result.read_bytes()) == before


def test_json_through_a_symbolic_link_keeps_the_link(capsys, book, tmp_path):
    target = tmp_path / "result.json"
    link = tmp_path / "latest.json"
    link.symlink_to(target.name)
    assert match_cli.main(quick_match("--openings", str(book), "--json", str(link))) == 0
    assert link.is_symlink() and json.loads(target.read_text())["games"] == 2


def test_json_into_a_fifo_reaches_its_reader_and_the_fifo_stays(capsys, book, tmp_path):
    fifo = tmp_path / "result.json"
    thread, received = fifo_with_reader(str(fifo))
    assert match_cli.main(quick_match("--openings", str(book), "--json", str(fifo))) == 0
    thread.join(30)
    assert stat.S_ISFIFO(os.lstat(str(fifo)).st_mode)
    assert received and json.loads(received[0].decode())["games"] == 2


# -- an output that cannot be written ends the match, and its engines ---------------------------

def _match_process(marker, book, extra, **kwargs):
    argv = [sys.executable, os.path.join(ROOT, "scripts", "match.py"), "--engine", fake("--name", marker),
            "--engine", fake("--name", marker + "-b"), "--depth", "1", "--games", "40", "--max-moves", "20",
            "--seed", "1", "--jobs", "2", "--openings", str(book)] + extra
    try:
        return subprocess.run(argv, stderr=subprocess.PIPE, universal_newlines=True, timeout=60, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail("match.py still running 60 s after its output failed (engines: %s)" % live_processes_with(marker))


@pytest.mark.skipif(not os.path.isdir("/proc") or not os.path.exists("/dev/full"), reason="Linux /proc and /dev/full")
def test_standard_output_on_a_full_device_ends_the_match_and_its_engines(book):
    marker = "engine-%d" % os.getpid()
    with open("/dev/full", "w") as full:
        done = _match_process(marker, book, [], stdout=full)
    assert done.returncode == 74
    assert "match.py: error: standard output: cannot write: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr
    assert live_processes_with(marker) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_pgn_on_a_full_device_ends_the_match_with_one_line(book):
    done = _match_process("pgn-%d" % os.getpid(), book, ["--pgn", "/dev/full"], stdout=subprocess.DEVNULL)
    assert done.returncode == 74
    assert "match.py: error: --pgn /dev/full: cannot write: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr


def test_json_on_a_full_device_is_one_line(book, tmp_path):
    """On a full device of its own: 03b47ba renamed over --json, which as root would replace
    the system's /dev/full."""
    device = device_node(str(tmp_path / "full"), FULL_DEVICE)
    done = _match_process("json-%d" % os.getpid(), book, ["--games", "2", "--json", str(device)],
                          stdout=subprocess.DEVNULL)
    assert done.returncode == 74
    assert "match.py: error: --json %s: cannot write: No space left on device" % device in done.stderr
    assert "Traceback" not in done.stderr and stat.S_ISCHR(os.lstat(device).st_mode)
