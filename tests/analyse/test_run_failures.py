"""``pruner analyse`` ending well when its outputs or its processes fail (issue 44).

* An output that cannot be written (``-o /dev/full``, standard output on ``/dev/full`` or
  closed, a CSV header, a ``--report``) ends the run with one line and status 74, never a
  traceback.
* SIGTERM (``kill PID``) stops the run as Ctrl-C does: a message, whole records, the count
  written, status 143; SIGHUP (the terminal closed) the same way with status 129, unless it is
  ignored (``nohup``) (issue 51).
* A worker process that is stopped (SIGSTOP) is found by its silence (``--stall-timeout``),
  killed, and its tasks analysed by another worker.

Each test runs the real command with a deadline, so a hang fails it.
"""

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys

import pytest

from os_helpers import FULL_DEVICE, children, device_node
from paths import ROOT

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full and POSIX signals")

EXIT_IOERR = 74
EXIT_TERMINATED = 143
EXIT_HANGUP = 129
DEADLINE = 60
MIDDLEGAME = "r3k2r/pp1nbppp/2p1pn2/q7/3P4/2N1PN2/PPQ1BPPP/R3K2R b KQkq - 0 10"


def command(*argv):
    return [sys.executable, "-m", "pruner", "analyse"] + list(argv)


def finished(argv, **kwargs):
    try:
        return subprocess.run(command(*argv), cwd=ROOT, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=DEADLINE, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail("pruner analyse %s still running after %d s" % (" ".join(argv), DEADLINE))


def one_line_error(err, expected):
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [expected], err


@pytest.mark.parametrize("argv, expected", [
    (["-o", "/dev/full"], "pruner analyse: -o /dev/full: cannot write: No space left on device"),
    (["--format", "csv", "-o", "/dev/full"], "pruner analyse: -o /dev/full: cannot write: No space left on device"),
])
def test_an_output_on_a_full_device_is_one_line_and_status_74(argv, expected):
    done = finished(["--depth", "1", "-q"] + argv + ["startpos"], stdout=subprocess.DEVNULL)
    assert done.returncode == EXIT_IOERR
    one_line_error(done.stderr, expected)


def test_a_report_on_a_full_device_is_one_line_and_status_74(tmp_path):
    """On a full device of its own: a version that renamed over its --report (as 03b47ba did)
    must not replace the system's /dev/full when the test runs as root."""
    device = device_node(str(tmp_path / "full"), FULL_DEVICE)
    done = finished(["--depth", "1", "-q", "--report", device, "startpos"], stdout=subprocess.DEVNULL)
    assert done.returncode == EXIT_IOERR
    one_line_error(done.stderr, "pruner analyse: --report %s: cannot write: No space left on device" % device)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "pgn"])
def test_standard_output_on_a_full_device(fmt):
    with open("/dev/full", "w") as full:
        done = finished(["--depth", "1", "-q", "--format", fmt, "startpos"], stdout=full)
    assert done.returncode == EXIT_IOERR
    one_line_error(done.stderr, "pruner analyse: standard output: cannot write: No space left on device")


def test_standard_output_closed():
    done = finished(["--depth", "1", "-q", "startpos"], preexec_fn=lambda: os.close(1))
    assert done.returncode == EXIT_IOERR
    one_line_error(done.stderr, "pruner analyse: standard output: cannot write: it is closed (give -o FILE)")


def test_standard_output_closed_with_an_output_file(tmp_path):
    output = tmp_path / "out.jsonl"
    done = finished(["--depth", "1", "-q", "-o", str(output), "startpos"], preexec_fn=lambda: os.close(1))
    assert done.returncode == 0, done.stderr
    assert json.loads(output.read_text())["depth"] == 1


def _epd(tmp_path, count):
    path = tmp_path / "many.epd"
    path.write_text("\n".join([MIDDLEGAME] * count) + "\n")
    return str(path)


@contextlib.contextmanager
def running(*argv, **kwargs):
    """``pruner analyse`` in a session of its own, unbuffered (a first line can be read and
    ``communicate`` misses nothing after it); killed with all its processes on the way out."""
    process = subprocess.Popen(command(*argv), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               bufsize=0, start_new_session=True, **kwargs)
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def rest_of_run(process, why):
    """(the rest of its output, its stderr) once it has ended, failing the test after ``DEADLINE``."""
    try:
        return tuple(data.decode() for data in process.communicate(timeout=DEADLINE))
    except subprocess.TimeoutExpired:
        pytest.fail("still running %d s after %s" % (DEADLINE, why))


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("name, status", [("SIGTERM", EXIT_TERMINATED), ("SIGHUP", EXIT_HANGUP)])
def test_sigterm_and_sighup_stop_the_run_as_ctrl_c_does(tmp_path, jobs, name, status):
    with running("--depth", "6", "--jobs", jobs, _epd(tmp_path, 40)) as process:
        first = process.stdout.readline().decode()  # output has started: the run is well under way
        process.send_signal(getattr(signal, name))  # `kill PID`, or the terminal closed: the main process alone
        rest, err = rest_of_run(process, name)
    assert process.returncode == status, err
    items = [json.loads(line) for line in (first + rest).splitlines()]  # whole records only
    assert 1 <= len(items) < 40 and all(item["depth"] == 6 for item in items)
    # The whole of stderr: no traceback, and no resource tracker's warning of leaked semaphores
    assert err == "pruner analyse: terminated; %d positions written\n" % len(items)


def test_an_ignored_sighup_stays_ignored(tmp_path):
    """``nohup``: the run goes on through SIGHUP; the SIGTERM sent after it stops the run (had
    SIGHUP been taken, its handler would run first: Python runs them in signal order, and the
    status would be 129)."""
    with running("--depth", "6", "--jobs", "1", _epd(tmp_path, 40),
                 preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)) as process:
        first = process.stdout.readline().decode()
        process.send_signal(signal.SIGHUP)
        process.terminate()
        rest, err = rest_of_run(process, "SIGHUP and SIGTERM")
    assert process.returncode == EXIT_TERMINATED, err
    assert err == "pruner analyse: terminated; %d positions written\n" % len((first + rest).splitlines())


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the worker processes in /proc")
def test_a_stopped_worker_is_killed_and_its_tasks_analysed_by_another(tmp_path):
    # Worker processes start from a fork server, a child of pruner analyse: they are its
    # children. Once the first record is out both workers hold tasks (12 positions, 4 each).
    with running("--depth", "4", "--jobs", "2", "--stall-timeout", "1", "-q", _epd(tmp_path, 12)) as process:
        first = process.stdout.readline().decode()
        workers = [child for server in children(process.pid) for child in children(server)]
        assert workers, "no worker process found"
        stopped = workers[0]
        os.kill(stopped, signal.SIGSTOP)  # SIGKILL, from the run or from running(), ends it
        rest, err = rest_of_run(process, "stopping worker %d" % stopped)
    assert process.returncode == 0, err
    assert "(pid %d) gave no sign of life for 1 s (--stall-timeout; stopped?): killed" % stopped in err
    items = [json.loads(line) for line in (first + rest).splitlines()]
    assert [item["source"].rsplit(":", 1)[1] for item in items] == [str(n) for n in range(1, 13)]
