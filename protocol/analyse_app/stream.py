"""Tasks as a stream: read ahead of the analysis on a thread, within a bound, and results
handed on in input order.

Every runner of ``pruner analyse`` (in-process, ``--jobs`` processes, ``--engine`` threads,
``--cluster``) takes an iterable of tasks of any length. A ``TaskFeed`` reads it on a thread
of its own, so that the files are read (and decompressed, and their games parsed) while the
searches run, and so that a runner never waits on its input while results are ready to be
written; it stops reading when ``limit`` tasks are read and not yet handed on (``done``), or
when the text they hold reaches ``MAX_HELD_CHARS``, so what is held in memory is bounded
whatever the size of the input and of its games. ``InOrder`` puts results that arrive in any
order back in input order; ``in_order`` is the loop of a runner with workers, both together.
"""

import collections
import threading
from typing import Callable, Deque, Dict, Generic, Iterable, Iterator, Optional, Tuple, TypeVar

POLL_SECONDS = 0.1
"""How often a blocked reader looks whether the run is over."""
IN_FLIGHT_PER_JOB = 4
"""Tasks handed to a worker (process or engine thread) and not yet written: one running, the
others queued or finished and waiting for an earlier one, so the results held are bounded."""
READ_AHEAD = 500
"""Tasks read beyond those in flight: a small input is read whole at once (so its total is
known and the progress bar can show it), a large one never more than this ahead."""
STALL_SECONDS = 60.0
"""A worker (a process of ``pool``, an engine of ``uci_engine``) that holds a task and gives no
sign of life for this long is stopped and its task retried or failed (``--stall-timeout``):
a search that runs is never that silent (a worker process says it is alive every second,
engines print ``info`` lines)."""
MAX_HELD_CHARS = 64 << 20
"""Text of the tasks read and not yet done at which reading waits (a task's ``size``): 500
games of a few kilobytes are far below it, 500 games near ``pruner.engine.textlines.MAX_GAME_BYTES``
would not be."""

T = TypeVar("T")


class TaskFeed(Generic[T]):
    """The items of ``tasks`` read on a thread, at most ``limit`` of them read and not yet
    ``done``, ``read_ahead`` more once the first one is done (until then the reading does not
    compete with the first searches for the processor), and none while those read and not
    done hold ``MAX_HELD_CHARS`` of text (an item's ``size``, if it has one); ``notify()`` is
    called (on the reading thread) after each item read and at the end. A context manager:
    leaving it stops the reading.

    The items are taken with ``take`` (the next one read, or None); ``finished`` says whether
    the input is read to its end and every item taken. An exception of the iterable is raised
    again by ``take`` once the items before it are taken.
    """

    def __init__(self, tasks: Iterable[T], limit: int, notify: Callable[[], None] = lambda: None,
                 read_ahead: int = 0) -> None:
        self.limit = max(1, limit)
        self._read_ahead = read_ahead
        self._tasks = iter(tasks)
        self._notify = notify
        self._room = threading.Semaphore(self.limit)
        self._ready: Deque[T] = collections.deque()
        self._arrived = threading.Condition()
        self._stop = threading.Event()
        self._sizes: Deque[int] = collections.deque()
        """The ``size`` of each item read and not yet done, in order."""
        self._held = 0
        self._error: Optional[BaseException] = None
        self.ended = False
        """The input is read to its end (or failed)."""
        self.read = 0
        """Items read so far."""
        self._thread = threading.Thread(target=self._read, name="pruner-analyse-reader", daemon=True)
        self._thread.start()

    def __enter__(self) -> "TaskFeed[T]":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self) -> None:
        try:
            while not self._stop.is_set():
                with self._arrived:
                    if self._held >= MAX_HELD_CHARS:  # some large tasks are held: wait for done()
                        self._arrived.wait(POLL_SECONDS)
                        continue
                if not self._room.acquire(timeout=POLL_SECONDS):
                    continue
                try:
                    item = next(self._tasks)
                except StopIteration:
                    break
                with self._arrived:
                    self._ready.append(item)
                    size = getattr(item, "size", 0)
                    self._sizes.append(size)
                    self._held += size
                    self.read += 1
                    self._arrived.notify_all()
                self._notify()
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer by take()
            self._error = exc
        finally:
            if self._stop.is_set():
                close = getattr(self._tasks, "close", None)
                if close is not None:  # a generator stopped early: its files are closed now
                    try:
                        close()
                    except Exception:  # noqa: BLE001 - closing only
                        pass
            with self._arrived:
                self.ended = True
                self._arrived.notify_all()
            self._notify()

    def take(self, wait: bool = False) -> Optional[T]:
        """The next item read, or None when none is ready (with ``wait``: only once the
        input has ended)."""
        with self._arrived:
            while wait and not self._ready and not self.ended:
                self._arrived.wait(POLL_SECONDS)
            if self._ready:
                return self._ready.popleft()
            if self.ended and self._error is not None:
                error, self._error = self._error, None
                raise error
        return None

    def done(self, count: int = 1) -> None:
        """``count`` items taken earlier are finished with (their results handed on): that
        much more may be read (and the read-ahead, after the first)."""
        with self._arrived:
            for _ in range(min(count, len(self._sizes))):
                self._held -= self._sizes.popleft()
            self._arrived.notify_all()
        count += self._read_ahead
        self._read_ahead = 0
        for _ in range(count):
            self._room.release()

    def grow(self, limit: int) -> None:
        """Allow up to ``limit`` items (and the read-ahead) read and not done; never less than
        before."""
        for _ in range(limit - self.limit):
            self._room.release()
        self.limit = max(self.limit, limit)

    @property
    def finished(self) -> bool:
        """Every item of the input is read and taken."""
        with self._arrived:
            return self.ended and not self._ready and self._error is None

    def pending(self) -> int:
        """Items read and not taken yet."""
        with self._arrived:
            return len(self._ready)

    def close(self) -> None:
        """Stop reading (the thread ends once a read in progress returns)."""
        self._stop.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(2 * POLL_SECONDS if not self.ended else None)


R = TypeVar("R")


def in_order(tasks: Iterable[T], window: int, submit: Callable[[int, T], None],
             collect: Callable[[], Iterable[Tuple[int, R]]], notify: Callable[[], None]) -> Iterator[R]:
    """The results of ``tasks`` in their order, from workers that may finish them in any
    order (every runner's loop but the in-process one): the tasks are read ahead by a
    ``TaskFeed`` and handed to ``submit(index, task)`` while fewer than ``window`` of them are
    submitted and not yet yielded; ``collect()`` waits a moment (about ``POLL_SECONDS``, less
    when ``notify()`` says a task was read) and returns the ``(index, result)`` pairs finished
    since."""
    order: InOrder[R] = InOrder()
    submitted = 0
    with TaskFeed(tasks, window, notify, READ_AHEAD) as feed:
        while True:
            for result in order.ready():
                feed.done()
                yield result
            while submitted - order.next < window:
                task = feed.take()
                if task is None:
                    break
                submit(submitted, task)
                submitted += 1
            if feed.finished and order.next == submitted:
                return
            for index, result in collect():
                order.add(index, result)


class InOrder(Generic[T]):
    """Results of numbered tasks, which may finish in any order, handed on in task order."""

    def __init__(self) -> None:
        self.next = 0
        """Number of the next result to hand on (= results handed on so far)."""
        self._finished: Dict[int, T] = {}

    def add(self, index: int, result: T) -> None:
        self._finished[index] = result

    def ready(self) -> Iterator[T]:
        """The results that can be handed on now, in order."""
        while self.next in self._finished:
            result = self._finished.pop(self.next)
            self.next += 1
            yield result

    def __len__(self) -> int:
        """Results waiting for an earlier one."""
        return len(self._finished)
