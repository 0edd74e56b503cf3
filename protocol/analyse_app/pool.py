"""``pruner analyse --jobs N``: the tasks run in worker processes of this machine.

``ProcessRunner`` takes any iterable of tasks and yields their results in input order; with
``jobs == 1`` it runs them in-process. Each worker process has a task queue and a result pipe
of its own, so a worker that dies (killed, out of memory) loses nothing: its tasks go to a new
worker, and a task that keeps killing workers fails with the reason. ``cli`` builds it from
the options; ``uci_engine.EngineRunner`` and ``cluster_runner.ClusterRunner`` are the other
runners with the same interface (a context manager, ``settings``, ``run(tasks)``).
"""

import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import pickle
import queue
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from pruner.analyse_app.inputs import Task
from pruner.analyse_app.stream import IN_FLIGHT_PER_JOB, READ_AHEAD, STALL_SECONDS, TaskFeed, in_order
from pruner.analyse_app.tasks import Settings, TaskResult, run_task

POLL_SECONDS = 0.1
"""How often the parent process looks whether the run is over while it waits for a result."""
ORPHAN_SECONDS = 1.0
"""How often an idle worker process looks whether ``pruner analyse`` is still there."""
HEARTBEAT_SECONDS = 1.0
"""How often a worker process says that it is alive, searching or not."""
EXIT_SECONDS = 5.0
"""How long a worker asked to stop (SIGTERM) may take before it is killed."""


class _Sender:
    """The writing end of a worker's result pipe, shared by its two threads (the tasks and
    the heartbeat): one message at a time."""

    def __init__(self, pipe) -> None:
        self._pipe = pipe
        self._lock = threading.Lock()

    def send(self, message: Tuple[str, object]) -> None:
        with self._lock:
            self._pipe.send(message)


def _heartbeat(sender: _Sender) -> None:
    """A worker's thread that says every ``HEARTBEAT_SECONDS`` that the process is alive (it
    runs between the search's bytecodes): a worker stopped or frozen falls silent."""
    try:
        while True:
            sender.send(("alive", None))
            time.sleep(HEARTBEAT_SECONDS)  # a period, not a synchronisation
    except (OSError, EOFError, ValueError):  # the parent has gone, or the pipe is closed
        return


def _worker_main(settings: Settings, work, results) -> None:
    """A worker process: tasks from ``work`` until None, results and progress to ``results``
    (the writing end of a pipe of its own), a heartbeat there too. Ctrl-C is left to the
    parent, which terminates the workers; a parent that died without doing so (killed) is
    noticed within ``ORPHAN_SECONDS`` of the last task, or at the next write (the pipe is
    broken)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    sender = _Sender(results)
    threading.Thread(target=_heartbeat, args=(sender,), name="pruner-analyse-heartbeat", daemon=True).start()
    try:
        while True:
            try:
                item = work.get(timeout=ORPHAN_SECONDS)
            except queue.Empty:
                if parent is not None and not parent.is_alive():
                    return
                continue
            if item is None:
                return
            index, task = item
            result = run_task(task, settings, lambda n: sender.send(("tick", n)))
            sender.send(("done", (index, result)))
    except (BrokenPipeError, EOFError):  # the parent has gone: nobody reads the results
        return


def _worker_context():
    """How worker processes start: from a fork server where there is one (Linux, macOS), so
    that a worker never inherits a lock that the input reader's thread holds at that moment
    (a fork of this process would: its standard input, the files being decompressed), else as
    the platform does (spawn on Windows). The server imports this module once, so a worker
    starts in milliseconds."""
    try:
        context = multiprocessing.get_context("forkserver")
    except ValueError:
        return multiprocessing.get_context()
    context.set_forkserver_preload(["pruner.analyse_app.pool"])
    return context


WORKER_ATTEMPTS = 2
"""A task whose worker process died (killed, out of memory) is given to a new worker; after
this many deaths on the same task it fails with a reason instead (it may be what kills them)."""


@dataclass
class _Worker:
    """A worker process, its own task queue, the reading end of its result pipe, and the tasks
    it holds (index -> task)."""

    process: multiprocessing.process.BaseProcess
    work: object
    reader: object
    held: Dict[int, Task] = field(default_factory=dict)
    heard: float = field(default_factory=time.monotonic)
    """When it last sent anything (a heartbeat, progress, a result): ``time.monotonic()``."""
    stalled: bool = False
    """Killed for giving no sign of life (see ``STALL_SECONDS``)."""


class ProcessRunner:
    """Runs tasks in order, in-process (``jobs == 1``) or in worker processes; a context manager.

    ``run`` takes any iterable of tasks, read ahead on a thread (``stream.TaskFeed``): at most
    ``jobs * IN_FLIGHT_PER_JOB`` tasks are in the workers' hands or done and waiting for an
    earlier one, at most ``READ_AHEAD`` more are read. Worker processes are started as tasks
    come, up to ``jobs``: never more than there are tasks (``_worker_context``).

    Each worker has a queue of its own, so the runner knows which tasks a worker holds: when a
    worker process dies (killed, out of memory), its tasks go to a new worker, and a task that
    has killed ``WORKER_ATTEMPTS`` workers fails with the reason, so a run never waits forever
    for a result that cannot come. A worker that holds tasks and has said nothing for
    ``stall_seconds`` (None: no limit) counts as dead: it is killed (``say`` tells why) and
    its tasks go to another worker the same way.
    """

    def __init__(self, settings: Settings, jobs: int, tick: Callable[[int], None],
                 stall_seconds: Optional[float] = STALL_SECONDS,
                 say: Callable[[str], None] = lambda message: None) -> None:
        self.settings = settings
        self.jobs = jobs
        self.tick = tick
        self.stall_seconds = stall_seconds
        self.say = say
        self.workers: List[multiprocessing.process.BaseProcess] = []
        """The worker processes started so far (replacements included)."""
        self._live: List[_Worker] = []
        self._owner: Dict[int, _Worker] = {}
        self._deaths: Dict[int, int] = {}
        self._stop = threading.Event()
        self._forwarder: Optional[threading.Thread] = None
        self._queues: List = []
        self._readers: List = []
        """The reading ends of the live workers' result pipes (the forwarder waits on them)."""
        self._readers_lock = threading.Lock()
        self._heard: Dict[int, _Worker] = {}
        """The worker of each result pipe (by the reader's id), whose ``heard`` the forwarder sets."""

    def __enter__(self) -> "ProcessRunner":
        return self

    def __exit__(self, *exc) -> None:
        for process in self.workers:  # nothing left to wait for, or interrupted: stop now
            if process.is_alive():
                process.terminate()
        for process in self.workers:
            process.join(EXIT_SECONDS)
            if process.exitcode is None:  # stopped (SIGSTOP): SIGTERM waits, SIGKILL does not
                process.kill()
                process.join()
        self._stop.set()
        if self._forwarder is not None:
            self._forwarder.join()
        for channel in self._queues:
            channel.cancel_join_thread()
            channel.close()
        with self._readers_lock:
            for reader in self._readers:
                reader.close()
            self._readers = []
        self.workers, self._queues, self._forwarder, self._live = [], [], None, []

    def run(self, tasks: Iterable[Task]) -> Iterator[TaskResult]:
        """Results in the order of ``tasks``."""
        if self.jobs <= 1:
            with TaskFeed(tasks, 1, read_ahead=READ_AHEAD) as feed:
                while True:
                    task = feed.take(wait=True)
                    if task is None:
                        return
                    yield run_task(task, self.settings, self.tick)
                    feed.done()
        context = _worker_context()
        events: "queue.Queue[Tuple[str, object]]" = queue.Queue()
        self._forwarder = threading.Thread(target=self._forward, args=(events,), daemon=True,
                                           name="pruner-analyse-results")
        self._forwarder.start()
        checked = [time.monotonic()]

        def collect() -> List[Tuple[int, TaskResult]]:
            finished: List[Tuple[int, TaskResult]] = []
            if time.monotonic() - checked[0] >= POLL_SECONDS:
                checked[0] = time.monotonic()
                self._replace_dead_workers(context, finished)
            try:
                kind, payload = events.get(timeout=POLL_SECONDS)
            except queue.Empty:
                return finished
            if kind == "tick":
                self.tick(payload)  # type: ignore[arg-type]
            elif kind == "done":
                index, result = payload  # type: ignore[misc]
                owner = self._owner.pop(index, None)
                if owner is not None:  # else a result already taken (from a worker that died after it)
                    owner.held.pop(index, None)
                    finished.append((index, result))
            return finished

        def submit(index: int, task: Task) -> None:
            self._assign(context, index, task)

        yield from in_order(tasks, self.jobs * IN_FLIGHT_PER_JOB, submit, collect, lambda: events.put(("input", None)))

    def _assign(self, context, index: int, task: Task) -> None:
        """Give a task to a new worker while fewer than ``jobs`` live, else to the least busy."""
        if len(self._live) < self.jobs:
            worker = self._start_worker(context)
        else:
            worker = min(self._live, key=lambda live: len(live.held))
        worker.held[index] = task
        self._owner[index] = worker
        worker.work.put((index, task))  # type: ignore[attr-defined]

    def _kill_stalled_workers(self) -> None:
        """Kill every worker that holds tasks and has said nothing for ``stall_seconds``."""
        if self.stall_seconds is None:
            return
        now = time.monotonic()
        for worker in self._live:
            if worker.held and worker.process.exitcode is None and now - worker.heard > self.stall_seconds:
                self.say("%s (pid %s) gave no sign of life for %g s (--stall-timeout; stopped?): killed, its "
                         "tasks go to another worker" % (worker.process.name, worker.process.pid,
                                                         self.stall_seconds))
                worker.stalled = True
                worker.process.kill()  # a stopped process ignores SIGTERM until it runs again
                worker.process.join(EXIT_SECONDS)

    def _replace_dead_workers(self, context, failed: List[Tuple[int, TaskResult]]) -> None:
        """Hand the tasks of every worker process that died or stalled to other workers, or
        fail them (into ``failed``: index, result)."""
        self._kill_stalled_workers()
        for worker in [live for live in self._live if live.process.exitcode is not None]:
            self._live.remove(worker)
            how = ("killed after no sign of life for %g s" % self.stall_seconds if worker.stalled
                   else "exit status %s" % worker.process.exitcode)
            for index, task in sorted(worker.held.items()):
                self._owner.pop(index, None)
                self._deaths[index] = self._deaths.get(index, 0) + 1
                if self._deaths[index] >= WORKER_ATTEMPTS:
                    failed.append((index, TaskResult(source=task.source, error=(
                        "the analysis worker process died %d times on this input (%s): "
                        "left out" % (self._deaths[index], how)))))
                else:
                    self._assign(context, index, task)

    def _start_worker(self, context) -> _Worker:
        # Each worker writes to a pipe of its own: a worker killed while writing (SIGKILL, the
        # out-of-memory killer) leaves at most its own pipe broken. With one queue for all
        # workers, a worker killed while holding the queue's shared write lock kept it for
        # ever, and every other worker's results waited behind it: the run hung.
        work = context.Queue()
        self._queues.append(work)
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_worker_main, args=(self.settings, work, writer), daemon=True,
                                  name="pruner-analyse-worker-%d" % (len(self.workers) + 1))
        process.start()
        writer.close()  # the worker holds the writing end: its death ends the pipe (EOF here)
        with self._readers_lock:
            self._readers.append(reader)
        self.workers.append(process)
        worker = _Worker(process, work, reader)
        with self._readers_lock:
            self._heard[id(reader)] = worker
        self._live.append(worker)
        return worker

    def _forward(self, events: "queue.Queue[Tuple[str, object]]") -> None:
        """The thread that hands the workers' messages to the run's event queue; a pipe whose
        worker died (EOF, or a message cut short by the death) is dropped."""
        while not self._stop.is_set():
            with self._readers_lock:
                readers = list(self._readers)
            if not readers:
                time.sleep(POLL_SECONDS)
                continue
            for reader in multiprocessing.connection.wait(readers, timeout=POLL_SECONDS):
                try:
                    message = reader.recv()
                    worker = self._heard.get(id(reader))
                    if worker is not None:
                        worker.heard = time.monotonic()
                    if message[0] != "alive":
                        events.put(message)
                except (EOFError, OSError, ValueError, pickle.UnpicklingError):
                    with self._readers_lock:
                        if reader in self._readers:
                            self._readers.remove(reader)
                    reader.close()
