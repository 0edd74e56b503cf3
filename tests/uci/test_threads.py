"""Threads in the UCI program: the option as declared, and the helper processes it starts.

Helper processes are checked through ``/proc`` (Linux): they exist after ``setoption name
Threads``, are replaced on a ``Hash`` change, and are gone after ``quit``, end of input,
SIGTERM, and even after the engine is killed. Waits for a process to end use a pidfd (the
kernel says when it exits); no sleeps, no timing assertions. The shared table and the helper
pool themselves are tested in tests/engine/test_smp.py.
"""

import ctypes
import os
import select
import signal
import sys

import chess
import pytest

from engine_process import WAIT, EngineProcess
from pruner.uci.options import searcher_cap

LINUX = sys.platform.startswith("linux")
linux_only = pytest.mark.skipif(not LINUX, reason="reads /proc and waits on pidfds")

MIDDLEGAME = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7"


def children(pid):
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


def helpers_of(pid):
    """The engine's helper processes (not multiprocessing's resource tracker)."""
    found = []
    for child in children(pid):
        try:
            with open("/proc/%d/cmdline" % child, "rb") as cmdline:
                if b"spawn_main" in cmdline.read():
                    found.append(child)
        except OSError:
            pass
    return found


def pidfd_open(pid):
    """A pidfd for ``pid`` (os.pidfd_open, or the raw system call on interpreters without it),
    or None when the process is already gone."""
    try:
        if hasattr(os, "pidfd_open"):
            return os.pidfd_open(pid)
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.syscall(434, pid, 0)  # SYS_pidfd_open (same number on every architecture)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "pidfd_open")
        return fd
    except ProcessLookupError:
        return None
    except OSError as exc:
        if exc.errno == 3:  # ESRCH
            return None
        raise


def wait_gone(pids, timeout=WAIT):
    """Wait until every process in ``pids`` has exited (a zombie awaiting its reaper counts)."""
    for pid in pids:
        fd = pidfd_open(pid)
        if fd is None:
            continue
        try:
            readable, _, _ = select.select([fd], [], [], timeout)
            assert readable, "process %d is still running" % pid
        finally:
            os.close(fd)


@pytest.fixture
def engine(engine_command, repo_root):
    process = EngineProcess(engine_command, repo_root)
    yield process
    process.kill()


def start_with_threads(engine, threads=2):
    engine.send_line("uci")
    engine.wait_for(lambda line: line == "uciok")
    engine.send_line("setoption name Threads value %d" % threads)
    engine.sync()  # the first isready builds the searcher and starts the helpers
    helpers = helpers_of(engine.pid)
    assert len(helpers) == threads - 1, children(engine.pid)
    return helpers


def searching_with_threads(engine):
    """Threads 2 and a ``go infinite`` under way; the engine's child processes (the helper
    and multiprocessing's resource tracker)."""
    start_with_threads(engine)
    engine.send_line("go infinite")
    engine.wait_for(lambda line: line.startswith("info depth 2 "))
    return children(engine.pid)


def search_once(engine, fen=MIDDLEGAME, go="go depth 4"):
    number = engine.count(lambda line: line.startswith("bestmove ")) + 1
    engine.send_line("position fen " + fen)
    engine.send_line(go)
    engine.wait_for(lambda line: line.startswith("bestmove "), number)
    bestmove = [line for line in engine.lines if line.startswith("bestmove ")][-1]
    assert chess.Board(fen).is_legal(chess.Move.from_uci(bestmove.split()[1])), bestmove


def test_threads_is_declared_as_stockfish_does_whatever_the_cpu_count(engine):
    engine.send_line("uci")
    engine.wait_for(lambda line: line == "uciok")
    assert "option name Threads type spin default 1 min 1 max 1024" in engine.lines
    for bad, reason in (("0", "out of range"), ("1025", "out of range"),
                        ("two", "not an integer"), ("", "needs a value")):
        engine.send_line("setoption name Threads value %s" % bad if bad else "setoption name Threads")
        engine.wait_for(lambda line: line.startswith("info string error: option Threads") and reason in line)
    engine.sync()
    assert engine.finish() == 0


@linux_only
def test_threads_beyond_the_cpus_starts_one_searcher_per_cpu_and_says_so(engine):
    # Threads 1024 on any machine: one helper process per usable CPU after the first (at
    # least one), never 1023; one info string says so when the option is set.
    engine.send_line("uci")
    engine.wait_for(lambda line: line == "uciok")
    engine.send_line("setoption name Threads value 1024")
    engine.sync()
    notes = [line for line in engine.lines if line.startswith("info string Threads 1024: ")]
    assert notes == ["info string Threads 1024: %d searcher processes (the main search and %d helper%s), "
                     "one per usable CPU; more would only share the CPUs and slow the main search"
                     % (searcher_cap(), searcher_cap() - 1, "" if searcher_cap() == 2 else "s")]
    assert len(helpers_of(engine.pid)) == searcher_cap() - 1
    search_once(engine, go="go depth 3")
    engine.send_line("setoption name Threads value 1")
    engine.sync()
    assert helpers_of(engine.pid) == []
    assert engine.count(lambda line: line.startswith("info string Threads")) == 1
    assert engine.finish() == 0
    assert "error" not in " ".join(engine.lines)


@linux_only
def test_quit_ends_the_helpers(engine):
    helpers = start_with_threads(engine)
    search_once(engine)
    engine.send_line("ucinewgame")
    search_once(engine, go="go depth 3")
    processes = children(engine.pid)  # the helper and multiprocessing's resource tracker
    assert set(helpers) < set(processes)
    engine.send_line("quit")
    assert engine.exited_within(WAIT) == 0
    wait_gone(processes)
    assert not engine.stderr.strip()


@linux_only
def test_end_of_input_ends_the_helpers_even_mid_search(engine):
    processes = searching_with_threads(engine)
    assert engine.finish() == 0
    wait_gone(processes)
    assert not engine.stderr.strip()


@linux_only
def test_sigterm_ends_the_helpers(engine):
    processes = searching_with_threads(engine)
    engine.process.send_signal(signal.SIGTERM)
    assert engine.exited_within(WAIT) == 143
    wait_gone(processes)


@linux_only
def test_helpers_of_a_killed_engine_exit_by_themselves(engine):
    processes = searching_with_threads(engine)
    engine.process.kill()  # no clean-up code runs in the engine
    assert engine.exited_within(WAIT) == -signal.SIGKILL
    wait_gone(processes)
    for reader in engine.readers:  # the GUI sees the end of the output: no helper holds the pipe
        reader.join(WAIT)
        assert not reader.is_alive()


@linux_only
def test_hash_and_threads_changes_replace_and_stop_the_helpers(engine):
    first = start_with_threads(engine)
    engine.send_line("setoption name Hash value 8")
    engine.sync()
    wait_gone(first)
    second = helpers_of(engine.pid)
    assert len(second) == 1 and second != first
    search_once(engine)
    engine.send_line("setoption name Threads value 1")
    engine.sync()
    wait_gone(second)
    assert helpers_of(engine.pid) == []
    search_once(engine, go="go depth 3")
    engine.send_line("setoption name Threads value 2")
    engine.sync()
    third = helpers_of(engine.pid)
    assert len(third) == 1
    engine.send_line("go infinite")
    engine.send_line("setoption name Threads value 1")  # applied after the search's bestmove
    engine.send_line("stop")
    engine.wait_for(lambda line: line.startswith("bestmove "), 3)
    engine.sync()
    wait_gone(third)
    engine.send_line("quit")
    assert engine.exited_within(WAIT) == 0
    assert "error" not in " ".join(engine.lines) and not engine.stderr.strip()
