"""``go perft`` and ``bench``: long work on a thread of its own, which ``stop`` ends early.

They run beside the command loop, never beside a search (the engine state makes sure), so
the loop still answers ``isready`` and ``stop``/``quit`` end them. A stopped perft or bench
never prints a total: a partial count is no result (no ``Nodes searched`` line). The thread
calls ``on_idle`` when it ends, after its last line, so that the loop runs the commands it
held meanwhile.
"""

import threading
from typing import Any, Callable, Optional

import chess

from pruner.uci.output import Writer


class Task:
    """One ``go perft`` or ``bench``: its thread, its stop flag, its output."""

    def __init__(self, name: str, writer: Writer) -> None:
        self.name = name
        self.writer = writer
        self.stop = threading.Event()
        self.silent = False
        """``quit`` or a signal came: print nothing more."""
        self.thread: Optional[threading.Thread] = None
        self.done = threading.Event()
        """Set by the task thread after its last line, before it wakes the loop (``on_idle``):
        from then on the held commands may run, though the thread may still be alive."""

    def running(self) -> bool:
        return self.thread is not None and not self.done.is_set()

    def send(self, line: str) -> None:
        """One output line, unless the task was silenced."""
        if not self.silent:
            self.writer.send(line)


class Tasks:
    """Runs one perft or bench at a time (the caller makes sure none runs when it starts one)."""

    def __init__(self, writer: Writer, on_idle: Optional[Callable[[], None]] = None) -> None:
        self.writer = writer
        self.on_idle = on_idle
        """Called by the task thread when it ends (``serve`` wakes its loop with it)."""
        self.current: Optional[Task] = None
        """The running or last task."""
        self.closed = False
        """After ``quit``: nothing starts any more."""

    def running(self) -> bool:
        """A perft or bench is still at work."""
        return self.current is not None and self.current.running()

    def start(self, name: str, body: Callable[..., None], *args: Any) -> None:
        """Run ``body(task, *args)`` on a task thread; nothing after ``close``."""
        if self.closed:
            return
        task = Task(name, self.writer)

        def run() -> None:
            try:
                body(task, *args)
            except Exception as exc:  # a bug must not pass silently, nor kill the engine
                if not task.silent:
                    self.writer.internal(exc, name)
            task.done.set()
            if self.on_idle is not None and threading.current_thread() is task.thread:
                self.on_idle()  # the held commands can run now

        self.current = task
        task.thread = threading.Thread(target=run, name="pruner-" + name, daemon=True)
        try:
            task.thread.start()
        except RuntimeError:  # no thread available: run it here, as before there were tasks
            task.thread = None
            run()

    def stop(self, silent: bool = False, timeout: Optional[float] = None) -> None:
        """End the running task (``silent``: without its last lines) and wait for its thread."""
        task = self.current
        if task is None or not task.running():
            return
        task.silent = task.silent or silent
        task.stop.set()
        task.thread.join(timeout)

    def close(self, timeout: Optional[float] = None) -> None:
        """``quit``: end the running task silently; start no other."""
        self.closed = True
        self.stop(silent=True, timeout=timeout)


def run_perft(task: Task, board: chess.Board, depth: int) -> None:
    """``go perft N``: the count below each move as it is done, a blank line, the total and a
    blank line, as Stockfish prints them; stopped, the moves counted and no total."""
    from pruner.engine.perft import PerftStopped, perft_divide
    total = counted = 0
    try:
        for move, count in perft_divide(board, depth, stop=task.stop):
            task.send("%s: %d" % (board.uci(move), count))
            total += count
            counted += 1
    except PerftStopped:
        task.send("info string perft stopped: %d of %d moves counted, no total" % (counted, board.legal_moves.count()))
        return
    task.send("")
    task.send("Nodes searched: %d" % total)
    task.send("")


def run_bench(task: Task, depth: Optional[int]) -> None:
    """``bench [depth]``: what ``pruner bench`` prints; stopped, no totals."""
    from pruner.engine import bench  # on first use, like the search modules
    result = bench.report(depth, task.send, stop=task.stop)
    if result.stopped:
        task.send("info string bench stopped: no totals (a partial count is no signature)")

