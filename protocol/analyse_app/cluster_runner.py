"""``pruner analyse --cluster ADDRESS``: the same tasks and records, run on a Dask cluster.

The client reads the inputs into the usual tasks (``pruner.analyse_app.inputs``), as a stream
read ahead within a bound (``stream.TaskFeed``), and submits them as Dask tasks: one per PGN
game, or a chunk of consecutive FEN/EPD positions; a bounded number are submitted and not
yet handed on, so the client's memory does not grow with the input. A worker
thread keeps one searcher for all the tasks it runs (an in-process ``Analyser``, or with
``--engine CMD`` one UCI engine process such as a PyPy ``pruner``) and runs every task with
``run_task`` after ``new_game()``, exactly as ``--jobs`` does: the records are identical to
``--jobs 1`` at a fixed depth or node count. Results come back as they finish and are handed
on in input order; the caller writes and flushes them at once.

Faults: a task whose worker dies is run again elsewhere by the scheduler (after
``distributed.scheduler.allowed-failures`` deaths, 3 by default, its positions are reported
as failed); a task that raises is retried ``RETRIES`` times; a position that fails by itself
(an engine error on that input) is a failed result, reported once and not retried. Workers
that run other Pruner code than the client are refused before any work is sent
(``pruner.cluster``). Progress: each worker reports every analysed position as a Dask
event, so the progress bar moves per position as in local runs.
"""

import argparse
import atexit
import math
import queue
import time
import uuid
from collections import deque
from dataclasses import dataclass, replace
from typing import Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from pruner.engine.analysis import Analyser
from pruner.analyse_app.inputs import GameTask, Task
from pruner.analyse_app.stream import READ_AHEAD, InOrder, TaskFeed
from pruner.analyse_app.tasks import Settings, TaskResult, run_task
from pruner.cluster import (Cluster, ClusterError, VersionMismatch, WorkerCache, error_text, is_killed_worker,
                              open_cluster, parse_address, release_on_workers, require_identity)

PACKAGES = ("pruner", "pruner.engine")
"""The code every worker must share with the client (hashed by ``pruner.cluster.code_identity``)."""
EXIT_UNAVAILABLE = 69
"""The cluster cannot be used (sysexits.h ``EX_UNAVAILABLE``): Dask missing, scheduler
unreachable, workers of another Pruner version. Nothing more is analysed."""
RETRIES = 2
"""Extra attempts of a task that raised (a worker's death is handled by the scheduler)."""
CHUNK_DIVISOR = 8
"""A chunk of FEN/EPD positions holds the positions left / (worker threads * this)."""
MAX_CHUNK = 16
"""Positions per chunk at most."""
IN_FLIGHT_PER_THREAD = 2
"""Chunks submitted ahead per worker thread: one running, one waiting at the scheduler."""
WINDOW_PER_THREAD = 4
"""Chunks submitted and not yet handed on per worker thread: those in flight, and those back
and waiting for an earlier one (the results held are bounded)."""
POLL_SECONDS = 0.1
REFRESH_SECONDS = 2.0
"""How often the number of worker threads (and so the tasks in flight) is asked again."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cluster`` and ``--resume`` on the ``pruner analyse`` parser (``--engine``:
    ``uci_engine.add_arguments``)."""
    group = parser.add_argument_group("cluster and resuming (docs/cluster.md)")
    group.add_argument("--cluster", metavar="ADDRESS",
                       help="run on a Dask cluster: a scheduler address (tcp://host:8786) or local:N "
                            "(N local worker processes); needs pip install 'pruner-chess[cluster]'")
    group.add_argument("--resume", action="store_true",
                       help="with -o FILE: keep what FILE holds from an interrupted run of the same "
                            "command and analyse only the rest")


def check_arguments(args: argparse.Namespace) -> Optional[str]:
    """A usage error message for a bad combination of the options above, or None."""
    if args.resume and not args.output:
        return "--resume needs -o FILE"
    if args.cluster:
        try:
            parse_address(args.cluster)
        except ValueError as exc:
            return "--cluster: %s" % exc
    return None


@dataclass(frozen=True)
class RunSpec:
    """What every task of a run carries to its worker."""

    settings: Settings
    engine: Optional[Tuple[str, ...]]
    """UCI engine command, or None for the in-process searcher."""
    engine_options: Tuple[Tuple[str, str], ...]
    """Its ``--engine-option`` pairs."""
    identity: Tuple[Tuple[str, str], ...]
    """The client's ``code_identity`` (as items): a worker with other code refuses the task."""
    topic: str
    """Dask event topic of this run's progress reports."""


Item = Tuple[int, Task]
"""A task and its index in the run (its place in the output)."""


# -- on the workers ------------------------------------------------------------------------

def _close_analyser(analyser: object) -> None:
    close = getattr(analyser, "close", None)
    if close is not None:
        close()  # a UCI engine quits; Pruner's own searcher has nothing to close


_ANALYSERS = WorkerCache(_close_analyser)
"""This worker process's searchers, one per (thread, engine, options, hash size): kept across tasks."""


def _worker_analyser(engine: Optional[Tuple[str, ...]], options: Tuple[Tuple[str, str], ...], hash_mb: int):
    def make():
        if engine is None:
            return Analyser(hash_mb)
        from pruner.analyse_app.uci_engine import UciAnalyser
        return UciAnalyser(list(engine), hash_mb, options=options)

    return _ANALYSERS.get((engine, options, hash_mb), make,
                          usable=lambda analyser: engine is None or analyser.alive)


def probe_engine(engine: Tuple[str, ...], options: Tuple[Tuple[str, str], ...], hash_mb: int) -> str:
    """The Dask task run once before a ``--engine`` run: start the engine on a worker, check
    the options, quit; the engine's name (``uci_engine.probe``)."""
    from pruner.analyse_app.uci_engine import probe
    return probe(list(engine), hash_mb, options)


def release_analysers() -> int:
    """Close this process's searchers (quits UCI engines); run on every worker after a run."""
    return _ANALYSERS.release()


atexit.register(release_analysers)


def _event_logger(topic: str) -> Callable[[object], None]:
    try:
        from distributed import get_worker
        worker = get_worker()
    except (ImportError, ValueError):
        return lambda message: None
    return lambda message: worker.log_event(topic, message)


def analyse_chunk(spec: RunSpec, items: Sequence[Item]) -> List[Tuple[int, TaskResult]]:
    """The Dask task: run ``items`` in order on this thread's searcher; their results."""
    require_identity(PACKAGES, dict(spec.identity))
    analyser = _worker_analyser(spec.engine, spec.engine_options, spec.settings.hash_mb)
    log = _event_logger(spec.topic)
    results = []
    for index, task in items:
        done = [0]

        def tick(n: int, index: int = index, done: List[int] = done) -> None:
            done[0] += n
            log([index, done[0]])

        results.append((index, run_task(task, spec.settings, tick, analyser)))
    return results


# -- on the client -------------------------------------------------------------------------

def next_chunk(pending: Deque[Item], threads: int, left: Optional[int]) -> List[Item]:
    """The next chunk of the tasks read and not yet submitted: a game alone, or the next
    consecutive positions, as many as ``positions left / (threads * CHUNK_DIVISOR)`` (guided
    scheduling: small chunks at the end keep every worker busy), at most ``MAX_CHUNK``, and no
    more than have been read. ``left``: the positions left in all, None while the input is not
    read to its end (then chunks are as large as they can be)."""
    if not pending:
        return []
    if isinstance(pending[0][1], GameTask):
        return [pending.popleft()]
    size = MAX_CHUNK if left is None else max(1, min(MAX_CHUNK, math.ceil(left / (max(1, threads) * CHUNK_DIVISOR))))
    chunk: List[Item] = []
    while pending and len(chunk) < size and not isinstance(pending[0][1], GameTask):
        chunk.append(pending.popleft())
    return chunk


def plan_chunks(tasks: Sequence[Task], threads: int) -> List[List[Item]]:
    """The chunks ``next_chunk`` makes of ``tasks`` read whole."""
    pending: Deque[Item] = deque(enumerate(tasks))
    left = sum(1 for task in tasks if not isinstance(task, GameTask))
    chunks = []
    while pending:
        chunk = next_chunk(pending, threads, left)
        left -= sum(1 for _, task in chunk if not isinstance(task, GameTask))
        chunks.append(chunk)
    return chunks


class ClusterRunner:
    """``pool.ProcessRunner`` for ``--cluster``: ``run(tasks)`` yields results in input order;
    a context manager that connects (or starts a LocalCluster), checks the workers and cleans
    up."""

    def __init__(self, address: str, settings: Settings, tick: Callable[[int], None],
                 say: Callable[[str], None], engine: Optional[Sequence[str]] = None,
                 engine_options: Tuple[Tuple[str, str], ...] = ()) -> None:
        self.address = address
        self.settings = settings
        """The run's settings; with ``--engine``, ``engine_name`` is filled in on entering."""
        self.tick = tick
        self.say = say
        self.engine = tuple(engine) if engine else None
        self.engine_options = tuple(engine_options)
        self.cluster: Optional[Cluster] = None
        self._context = None
        self._identity: Dict[str, str] = {}
        self._futures: Dict[str, object] = {}

    def __enter__(self) -> "ClusterRunner":
        self._context = open_cluster(self.address)
        self.cluster = self._context.__enter__()
        try:
            self.cluster.wait_for_workers(self.say)
            self._identity = self.cluster.check_workers(PACKAGES)
            self.say("cluster %s" % self.cluster.describe())
            if self.engine is not None:  # options refused before any work, naming them
                name = self.cluster.client.submit(probe_engine, self.engine, self.engine_options,
                                                  self.settings.hash_mb, pure=False).result()
                self.settings = replace(self.settings, engine_name=name)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        cluster, self.cluster = self.cluster, None
        if cluster is None:
            return
        futures = list(self._futures.values())
        self._futures.clear()
        if futures:
            try:
                cluster.client.cancel(futures)
            except Exception:  # noqa: BLE001 - closing anyway
                pass
        if self.engine is not None and cluster.local is None:
            release_on_workers(cluster, release_analysers)  # long-lived workers: quit the engines
        self._context.__exit__(None, None, None)

    def run(self, tasks: Iterable[Task]) -> Iterator[TaskResult]:
        """Results in the order of ``tasks`` (any iterable, read ahead on a thread: at most
        ``WINDOW_PER_THREAD`` chunks per worker thread submitted and not yet handed on, at most
        ``READ_AHEAD`` more tasks read); raises ClusterError when the cluster fails us."""
        assert self.cluster is not None, "use ClusterRunner as a context manager"
        client = self.cluster.client
        threads = max(1, self.cluster.total_threads())
        spec = RunSpec(self.settings, self.engine, self.engine_options, tuple(sorted(self._identity.items())),
                       "pruner-analyse-%s" % uuid.uuid4().hex[:12])
        events: "queue.Queue[Tuple[str, object]]" = queue.Queue()
        client.subscribe_topic(spec.topic, lambda event: events.put(("tick", event[1])))
        pending: Deque[Item] = deque()
        """Tasks read, not submitted yet."""
        positions = 0
        """FEN/EPD positions among them."""
        chunks: Dict[str, List[Item]] = {}
        """Submitted chunks not back yet, by Dask key."""
        open_ends: Deque[int] = deque()
        """The last task of every chunk submitted and not yet handed on, in order."""
        ticked: Dict[int, List[int]] = {}
        """Task index -> [positions reported, positions in all], until its result is back."""
        order: InOrder[TaskResult] = InOrder()
        read = number = 0
        refreshed = time.monotonic()
        try:
            with TaskFeed(tasks, self._limit(threads), lambda: events.put(("input", None)), READ_AHEAD) as feed:
                while True:
                    for result in order.ready():
                        feed.done()
                        yield result
                    while open_ends and open_ends[0] < order.next:
                        open_ends.popleft()
                    task = feed.take()
                    while task is not None:
                        pending.append((read, task))
                        ticked[read] = [0, task.work]
                        positions += not isinstance(task, GameTask)
                        read += 1
                        task = feed.take()
                    while pending and len(chunks) < IN_FLIGHT_PER_THREAD * threads \
                            and len(open_ends) < WINDOW_PER_THREAD * threads:
                        chunk = next_chunk(pending, threads, positions if feed.finished else None)
                        positions -= sum(1 for _, task in chunk if not isinstance(task, GameTask))
                        future = client.submit(analyse_chunk, spec, chunk, key="%s-%d" % (spec.topic, number),
                                               priority=-number, retries=RETRIES, pure=False)
                        number += 1
                        chunks[future.key] = chunk
                        open_ends.append(chunk[-1][0])
                        self._futures[future.key] = future
                        future.add_done_callback(lambda done: events.put(("done", done)))
                    if feed.finished and not pending and order.next == read:
                        return
                    if time.monotonic() - refreshed > REFRESH_SECONDS:  # workers come and go
                        threads = max(1, self.cluster.total_threads())
                        feed.grow(self._limit(threads))
                        refreshed = time.monotonic()
                    try:
                        kind, payload = events.get(timeout=POLL_SECONDS)
                    except queue.Empty:
                        continue
                    if kind == "tick":
                        index, count = payload  # type: ignore[misc]
                        self._advance(ticked, int(index), int(count))
                    elif kind == "done":
                        future = payload
                        chunk = chunks.pop(future.key, None)  # type: ignore[attr-defined]
                        self._futures.pop(future.key, None)  # type: ignore[attr-defined]
                        if chunk is None:
                            continue
                        for index, result in self._collect(future, chunk):
                            self._advance(ticked, index, ticked[index][1])
                            del ticked[index]
                            order.add(index, result)
        finally:
            try:
                client.unsubscribe_topic(spec.topic)
            except Exception:  # noqa: BLE001
                pass

    @staticmethod
    def _limit(threads: int) -> int:
        """Tasks read and not yet handed on, at most, besides the read-ahead: the window."""
        return WINDOW_PER_THREAD * threads * MAX_CHUNK

    def _advance(self, ticked: Dict[int, List[int]], index: int, count: int) -> None:
        """Progress of task ``index`` is ``count`` positions (reports of a retried attempt
        restart from 0 and are ignored until they pass the first one's; reports after the
        result are ignored)."""
        if index not in ticked:
            return
        reported, work = ticked[index]
        count = min(count, work)
        if count > reported:
            self.tick(count - reported)
            ticked[index][0] = count

    def _collect(self, future, chunk: List[Item]) -> List[Tuple[int, TaskResult]]:
        status = future.status
        if status == "finished":
            return list(future.result())
        if status == "error":
            exc = future.exception()
            if isinstance(exc, VersionMismatch) or type(exc).__name__ == "VersionMismatch":
                raise ClusterError("refusing to go on: a worker that joined during the run has other code: %s"
                                   % exc)
            if is_killed_worker(exc):
                reason = "lost: the workers running it died %s (Dask KilledWorker)" % _times_text()
            else:
                reason = "failed on the cluster after %d retries: %s" % (RETRIES, error_text(exc))
            return [(index, TaskResult(task.source, error=reason)) for index, task in chunk]
        raise ClusterError("lost the Dask scheduler (task %s is %s); rerun with --resume to continue"
                           % (future.key, status))


def _times_text() -> str:
    try:
        import dask
        return "%d times" % int(dask.config.get("distributed.scheduler.allowed-failures"))
    except Exception:  # noqa: BLE001
        return "repeatedly"
