"""pruner analyse --jobs N: a worker process that dies (killed, out of memory) costs no result
and never hangs the run; a task that keeps killing workers fails with the reason."""

import contextlib
import os
import signal
import time

import chess
import pytest

from pruner.analyse_app import pool
from pruner.analyse_app.pool import ProcessRunner
from pruner.analyse_app.inputs import PositionTask
from pruner.analyse_app.tasks import Settings


def tasks(n):
    board = chess.Board()
    found = []
    for move in list(board.legal_moves)[:n]:
        board.push(move)
        found.append(PositionTask(source="startpos+%s" % move.uci(), fen=board.fen(), chess960=False))
        board.pop()
    return found


def best_moves(results):
    return [(result.source, result.error, [r["best_uci"] for r in result.records]) for result in results]


@contextlib.contextmanager
def deadline(seconds):
    """Fail, rather than hang, when the block takes longer than ``seconds`` (the runner waits on
    its workers' queues; a recovery that regressed would wait forever)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum, frame):
        raise TimeoutError("no result after %d s: the run hangs" % seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_the_deadline_fails_a_block_that_hangs():
    import time
    with pytest.raises(TimeoutError):
        with deadline(1):
            time.sleep(30)  # not synchronisation: the hang the deadline must break


def test_a_worker_killed_mid_run_is_replaced_and_every_result_comes():
    work = tasks(12)
    with ProcessRunner(Settings(depth=1), 1, lambda n: None) as runner:
        expected = best_moves(runner.run(work))
    killed = []

    def tick(_):
        if not killed and runner.workers:  # the first position done: kill a worker mid-run
            victim = runner.workers[0].pid
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    with deadline(300), ProcessRunner(Settings(depth=4), 2, tick) as runner:
        got = best_moves(runner.run(work))
        started = len(runner.workers)
    assert killed and started >= 3  # a replacement was started
    assert [(source, error) for source, error, _ in got] == [(source, None) for source, _, _ in expected]
    assert all(moves for _, _, moves in got)


class DeadProcess:
    """A worker process that died the moment it started."""

    exitcode = -9
    pid = 0

    def start(self):
        pass

    def is_alive(self):
        return False

    def terminate(self):
        pass

    def kill(self):
        pass

    def join(self, timeout=None):
        pass


class FakeContext:
    def Process(self, **kwargs):
        return DeadProcess()

    def Pipe(self, duplex=True):
        import multiprocessing
        return multiprocessing.Pipe(duplex)  # its writing end is closed at once: the reader sees EOF

    def Queue(self):
        import queue

        class Channel(queue.Queue):
            def cancel_join_thread(self):
                pass

            def close(self):
                pass
        return Channel()


def test_a_task_that_kills_every_worker_fails_with_the_reason(monkeypatch):
    monkeypatch.setattr(pool, "_worker_context", lambda: FakeContext())
    work = tasks(2)
    with ProcessRunner(Settings(depth=1), 2, lambda n: None) as runner:
        results = list(runner.run(work))
        attempts = len(runner.workers)
    assert [result.source for result in results] == [task.source for task in work]
    for result in results:
        assert result.records == [] and "died %d times" % pool.WORKER_ATTEMPTS in result.error
        assert "exit status -9" in result.error
    assert attempts == len(work) * pool.WORKER_ATTEMPTS


class CutShortProcess(DeadProcess):
    """A worker killed in the middle of writing a result: part of a message in its pipe, then
    death (the runner closes its copy of the writing end once the process has started)."""

    def __init__(self, writer):
        self.writer = writer

    def start(self):
        import struct
        # Connection framing: a 4-byte length, then the bytes. Says 1000, writes 15.
        os.write(self.writer.fileno(), struct.pack("!i", 1000) + b"only part of it")


class CutShortContext(FakeContext):
    def Process(self, target=None, args=(), **kwargs):
        return CutShortProcess(args[2])  # _worker_main(settings, work, results)


def test_part_of_a_message_from_a_dying_worker_is_dropped_and_the_run_ends(monkeypatch):
    # The forwarder must neither wait for the rest of a message that will never come nor take
    # the part for a result: that worker's pipe is dropped and its tasks go to new workers.
    monkeypatch.setattr(pool, "_worker_context", lambda: CutShortContext())
    work = tasks(2)
    with deadline(60), ProcessRunner(Settings(depth=1), 2, lambda n: None) as runner:
        results = list(runner.run(work))
        waited = time.monotonic()
        while runner._readers and time.monotonic() - waited < 10:  # the forwarder drops them as it reads
            time.sleep(pool.POLL_SECONDS)
        assert runner._forwarder.is_alive() and runner._readers == []  # alive, every cut pipe dropped
    assert [result.source for result in results] == [task.source for task in work]
    assert all("died %d times" % pool.WORKER_ATTEMPTS in result.error for result in results)


class SilentProcess(DeadProcess):
    """A worker process that runs but never says anything (stopped with SIGSTOP, frozen)."""

    exitcode = None
    name = "silent-worker"

    def kill(self):
        self.exitcode = -9

    def is_alive(self):
        return self.exitcode is None


class SilentContext(FakeContext):
    def __init__(self):
        self.started = []

    def Process(self, target=None, args=(), **kwargs):
        self.started.append(SilentProcess())
        self.started[-1].writer = args[2]  # the pipe stays open: no EOF, just silence
        return self.started[-1]


def test_a_silent_worker_is_killed_after_the_stall_timeout_and_its_task_retried(monkeypatch):
    context = SilentContext()
    monkeypatch.setattr(pool, "_worker_context", lambda: context)
    said = []
    work = tasks(1)
    with deadline(60), ProcessRunner(Settings(depth=1), 2, lambda n: None, stall_seconds=0.2,
                                     say=said.append) as runner:
        results = list(runner.run(work))
    assert len(context.started) == pool.WORKER_ATTEMPTS and all(p.exitcode == -9 for p in context.started)
    assert len(said) == pool.WORKER_ATTEMPTS and "gave no sign of life for 0.2 s" in said[0]
    assert [result.source for result in results] == [work[0].source]
    assert "died 2 times on this input (killed after no sign of life for 0.2 s)" in results[0].error
