"""An output that another run is writing is refused (issue 51, item 1).

``pruner.output_files.locked`` holds a ``flock`` on a ``.NAME.lock`` file beside each output
for the whole run: a second run given one of them ends at once with status 75 and a line naming
the output and the other run, before anything is written; the lock goes with its holder,
``kill -9`` included. Two ``pruner analyse --resume`` on one output at once used to both run
and splice their records.
"""

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pruner import output_files
from pruner.analyse_app.cli import main
from pruner.output_files import EXIT_BUSY, OutputBusy, lock_path, locked

from paths import ROOT

pytestmark = pytest.mark.skipif(output_files.fcntl is None, reason="flock: POSIX")

DEADLINE = 60


def busy_message(what, path, pid):
    return "%s %s: another run (pid %d) is writing it (lock %s); try again when it has ended" % (
        what, path, pid, lock_path(str(path)))


def wait_until(condition, what):
    """Wait (polling; there is no event to wait on) until ``condition()``, failing after DEADLINE."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("still not %s after %d s" % (what, DEADLINE))
        time.sleep(0.02)


# -- the lock ---------------------------------------------------------------------------------

def test_a_locked_output_is_refused_until_its_holder_lets_it_go(tmp_path):
    out = tmp_path / "out.jsonl"
    with locked([("-o", str(out))]):
        assert os.path.exists(lock_path(str(out)))
        with pytest.raises(OutputBusy) as busy:
            with locked([("--report", str(tmp_path / "other.html")), ("-o", str(out))]):
                pass
        assert str(busy.value) == busy_message("-o", out, os.getpid())
        assert not os.path.exists(lock_path(str(tmp_path / "other.html")))  # the one it took, let go
    assert not os.path.exists(lock_path(str(out)))  # nothing left behind
    with locked([("-o", str(out))]):
        pass


def test_a_link_and_its_target_share_one_lock(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("")
    (tmp_path / "link.jsonl").symlink_to(target)
    with locked([("-o", str(tmp_path / "link.jsonl"))]):
        with pytest.raises(OutputBusy):
            with locked([("-o", str(target))]):
                pass


def test_devices_are_not_locked_and_get_no_lock_file():
    with locked([("-o", os.devnull)]), locked([("-o", os.devnull)]):
        assert not os.path.exists(lock_path(os.devnull))


def test_an_output_whose_folder_takes_no_lock_file_is_locked_itself(tmp_path):
    # Root may write anywhere: a directory in the lock file's place stands for a folder that
    # takes no new file.
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    os.mkdir(lock_path(str(out)))
    with locked([("-o", str(out))]):
        with pytest.raises(OutputBusy, match="-o %s: another run is writing it \\(lock %s\\)" % (out, out)):
            with locked([("-o", str(out))]):
                pass
    assert out.read_text() == "kept\n" and os.path.isdir(lock_path(str(out)))


def test_without_fcntl_runs_are_not_locked(tmp_path, monkeypatch):
    monkeypatch.setattr(output_files, "fcntl", None)
    out = tmp_path / "out.jsonl"
    with locked([("-o", str(out))]), locked([("-o", str(out))]):
        assert not os.path.exists(lock_path(str(out)))


def test_a_lock_file_removed_by_its_last_holder_meanwhile_is_taken_again(tmp_path, monkeypatch):
    # Between this run's open and its flock, the run that held the lock ends and removes the
    # file; a lock on the removed file would keep nobody out.
    out = tmp_path / "out.jsonl"
    real_flock = output_files.fcntl.flock
    calls = []

    def flock(descriptor, operation):
        if not calls:
            os.unlink(lock_path(str(out)))
        calls.append(descriptor)
        return real_flock(descriptor, operation)

    monkeypatch.setattr(output_files.fcntl, "flock", flock)
    with locked([("-o", str(out))]):
        monkeypatch.setattr(output_files.fcntl, "flock", real_flock)
        assert len(calls) == 2
        with pytest.raises(OutputBusy):
            with locked([("-o", str(out))]):
                pass


def test_a_holder_killed_with_sigkill_leaves_no_lock(tmp_path):
    out = tmp_path / "out.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pruner.output_files import locked\n"
                               "with locked([('-o', sys.argv[1])]):\n print('held', flush=True); sys.stdin.read()",
         str(out)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(OutputBusy, match="pid %d" % holder.pid):
            with locked([("-o", str(out))]):
                pass
    finally:
        holder.kill()
        holder.wait(DEADLINE)
    assert os.path.exists(lock_path(str(out)))  # the file stays, its lock went with the holder
    with locked([("-o", str(out))]):
        pass


# -- pruner analyse ---------------------------------------------------------------------------

def run(argv):
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), err.getvalue()


@pytest.mark.parametrize("resume", [False, True], ids=["new", "resume"])
def test_analyse_refuses_an_output_another_run_holds_and_leaves_it_as_it_was(tmp_path, resume):
    out = tmp_path / "out.jsonl"
    assert run(["--depth", "1", "-q", "-o", str(out), "startpos"])[0] == 0
    before = out.read_bytes()
    with locked([("-o", str(out))]):
        status, err = run(["--depth", "1", "-q", "-o", str(out)] + (["--resume"] if resume else []) +
                          ["startpos", "8/8/8/8/8/8/k7/K7 w - - 0 1"])
    assert status == EXIT_BUSY
    assert err == "pruner analyse: %s\n" % busy_message("-o", out, os.getpid())
    assert out.read_bytes() == before


def test_analyse_refuses_a_report_another_run_holds(tmp_path):
    report = tmp_path / "review.html"
    with locked([("--report", str(report))]):
        status, err = run(["--depth", "1", "-q", "--report", str(report), "-o", str(tmp_path / "o.jsonl"),
                           "startpos"])
    assert status == EXIT_BUSY and err == "pruner analyse: %s\n" % busy_message("--report", report, os.getpid())
    assert not report.exists() and not (tmp_path / "o.jsonl").exists()


def test_two_resumes_on_one_output_at_once_do_not_both_run(tmp_path):
    """The issue's case, with two processes: the first reads its positions from a pipe, so it
    is still running (the lock held) when the second starts."""
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "pruner", "analyse", "--depth", "1", "-q", "--jobs", "1", "-o", str(out),
            "--resume", "-"]
    first = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        first.stdin.write(b"startpos\n")
        first.stdin.flush()
        wait_until(lambda: out.exists() and out.stat().st_size > 0, "written by the first run")
        second = subprocess.run(argv, cwd=ROOT, input=b"8/8/8/8/8/8/k7/K7 w - - 0 1\n", stderr=subprocess.PIPE,
                                timeout=DEADLINE)
        assert second.returncode == EXIT_BUSY, second.stderr
        assert second.stderr.decode() == "pruner analyse: %s\n" % busy_message("-o", out, first.pid)
        first.stdin.write(b"r3k2r/pp1nbppp/2p1pn2/q7/3P4/2N1PN2/PPQ1BPPP/R3K2R b KQkq - 0 10\n")
        first.stdin.close()
        assert first.wait(DEADLINE) == 0, first.stderr.read()
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [record["source"] for record in records] == ["<stdin>:1", "<stdin>:2"]
    assert records[0]["fen"].startswith("rnbqkbnr/") and records[1]["fen"].startswith("r3k2r/")
    assert not os.path.exists(lock_path(str(out)))
