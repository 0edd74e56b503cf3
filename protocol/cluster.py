"""Dask distributed clusters for ``pruner analyse --cluster`` and ``scripts/match.py --cluster``.

Dask is an optional extra (``pip install "pruner-chess[cluster]"``): nothing here imports it until a
cluster is opened, so every command works without it, and ``--cluster`` without it fails
with a message naming the extra.

    with open_cluster("local:2") as cluster:             # a LocalCluster of 2 worker processes
        cluster.check_workers(("pruner", "pruner.engine"))  # same Pruner code everywhere, or ClusterError
        future = cluster.client.submit(...)

``ADDRESS`` is a scheduler address (``tcp://host:8786``, ``host:8786``, ``tls://...``) or
``local:N``: a ``LocalCluster`` of N single-threaded worker processes, started for the run
and shut down after it.

Every worker must run the client's Pruner: ``code_identity`` (``engine.__version__``, the
python-chess version and a hash of the packages' sources) is compared on every worker with
``client.run`` before any work is sent, and again inside each task (``require_identity``),
which catches a worker that joins later.
"""

import contextlib
import hashlib
import importlib
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple

from pruner.extras import CLUSTER_HINT

LOCAL_PREFIX = "local:"


class ClusterError(Exception):
    """The cluster cannot be used: Dask missing, scheduler unreachable, workers of another version."""


class VersionMismatch(Exception):
    """Raised by a task on a worker whose Pruner code differs from the client's (never retried
    into success: the client stops the run with the message)."""


def parse_address(text: str) -> Tuple[Optional[str], int]:
    """``(scheduler_address, 0)`` or ``(None, n_workers)`` for ``local:N``; ValueError if bad."""
    text = text.strip()
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError("local:N needs a worker count of at least 1, got %r" % text)
        return None, int(count)
    if not text or text.startswith("-") or any(ch.isspace() for ch in text):
        raise ValueError("expected a scheduler address (tcp://host:8786) or local:N, got %r" % text)
    return text, 0


def import_distributed() -> Any:
    """The ``distributed`` module, or ClusterError naming the extra to install."""
    try:
        return importlib.import_module("distributed")
    except ImportError as exc:
        raise ClusterError("--cluster needs Dask distributed, which is not installed (%s): %s"
                           % (exc, CLUSTER_HINT)) from None


def dask_config() -> Any:
    """``dask.config`` (Dask is installed when this is called)."""
    return importlib.import_module("dask.config")


# -- code identity -------------------------------------------------------------------------

_IDENTITY_CACHE: Dict[Tuple[str, ...], Dict[str, str]] = {}
_IDENTITY_LOCK = threading.Lock()


MAPPED = {"pruner": ("engine", "lab")}
"""Subfolders a package's digest leaves out: packages pyproject maps from other folders
(pruner.engine, pruner.lab), nested in a normal install's pruner/ but not in an editable
install's protocol/; so both kinds of install hash the same files (name them to hash them)."""


def _package_digest(name: str, digest: "hashlib._Hash") -> None:
    module = importlib.import_module(name)
    folder = os.path.dirname(os.path.abspath(module.__file__ or ""))
    files = []
    for top, dirs, names in os.walk(folder):  # subpackages too (pruner.uci, pruner.analyse_app...)
        dirs[:] = [d for d in dirs if d != "__pycache__" and not (top == folder and d in MAPPED.get(name, ()))]
        files.extend(os.path.relpath(os.path.join(top, n), folder) for n in names if n.endswith(".py"))
    for entry in sorted(f.replace(os.sep, "/") for f in files):
        digest.update(("%s/%s\0" % (name, entry)).encode())
        with open(os.path.join(folder, entry), "rb") as handle:
            digest.update(handle.read())
        digest.update(b"\0")


def code_identity(packages: Sequence[str]) -> Dict[str, str]:
    """What must agree between client and workers: Pruner's version, python-chess's version
    and a SHA-256 of the ``.py`` files of ``packages`` (first 12 hex digits). Cached per
    process: computed when first asked, close to when the code was imported."""
    key = tuple(packages)
    with _IDENTITY_LOCK:
        cached = _IDENTITY_CACHE.get(key)
        if cached is not None:
            return cached
        import chess
        from pruner import engine
        digest = hashlib.sha256()
        for name in packages:
            _package_digest(name, digest)
        identity = {"pruner": engine.__version__, "chess": chess.__version__, "code": digest.hexdigest()[:12]}
        _IDENTITY_CACHE[key] = identity
        return identity


def describe_identity(identity: Dict[str, str]) -> str:
    """An identity in words: ``Pruner <version> (code <hash>), python-chess <version>``."""
    return "Pruner %s (code %s), python-chess %s" % (identity.get("pruner"), identity.get("code"),
                                                     identity.get("chess"))


def worker_identity(packages: Sequence[str]) -> Dict[str, str]:
    """Run on a worker by ``client.run``: its identity, or the import error as ``error``."""
    try:
        return code_identity(packages)
    except Exception as exc:  # noqa: BLE001 - reported to the client, which refuses the worker
        return {"error": "%s: %s" % (type(exc).__name__, exc)}


def require_identity(packages: Sequence[str], expected: Dict[str, str]) -> None:
    """Called first by every task on a worker: VersionMismatch unless it runs the client's code."""
    own = worker_identity(packages)
    if own != expected:
        raise VersionMismatch("worker runs %s, the client %s" % (
            own.get("error") or describe_identity(own), describe_identity(expected)))


# -- the cluster ---------------------------------------------------------------------------

@dataclass
class Cluster:
    """An open Dask client, and the LocalCluster behind it when this run started one."""

    client: Any
    address: str
    """What the user gave: ``tcp://...`` or ``local:N``."""
    local: Any = None

    def threads(self) -> Dict[str, int]:
        """Worker address -> threads, as the scheduler knows them now."""
        return dict(self.client.nthreads())

    def total_threads(self) -> int:
        """Threads of all the connected workers."""
        return sum(self.threads().values())

    def dashboard(self) -> Optional[str]:
        """The dashboard address when the scheduler serves one (it needs bokeh there)."""
        try:
            services = self.client.scheduler_info().get("services", {})
            if "dashboard" not in services:
                return None
            has_bokeh = self.client.run_on_scheduler(
                lambda: __import__("importlib.util").util.find_spec("bokeh") is not None)
            return self.client.dashboard_link if has_bokeh else None
        except Exception:  # noqa: BLE001 - only informative
            return None

    def describe(self) -> str:
        """``tcp://127.0.0.1:8786: 2 workers, 2 threads; dashboard http://...``."""
        threads = self.threads()
        text = "%s: %d worker%s, %d thread%s" % (
            self.scheduler_address(), len(threads), "" if len(threads) == 1 else "s",
            sum(threads.values()), "" if sum(threads.values()) == 1 else "s")
        dashboard = self.dashboard()
        return text + ("; dashboard %s" % dashboard if dashboard else "")

    def scheduler_address(self) -> str:
        """The scheduler's own address (``tcp://...``), or the one given when it cannot say."""
        try:
            return self.client.scheduler.address
        except Exception:  # noqa: BLE001
            return self.address

    def wait_for_workers(self, say, timeout: Optional[float] = None) -> None:
        """Block until at least one worker is connected (says so once while waiting)."""
        if self.threads():
            return
        say("waiting for workers to join %s (start them with: dask worker %s)"
            % (self.scheduler_address(), self.scheduler_address()))
        self.client.wait_for_workers(1, timeout=timeout)

    def check_workers(self, packages: Sequence[str]) -> Dict[str, str]:
        """Every connected worker must run this client's code; ClusterError listing the ones
        that do not. Returns the client's identity (tasks check it again on their worker)."""
        expected = code_identity(packages)
        try:
            found = self.client.run(worker_identity, list(packages))
        except Exception as exc:  # noqa: BLE001 - a worker that cannot even run the check
            raise ClusterError("cannot check the workers' Pruner version: %s: %s" % (type(exc).__name__, exc))
        bad = ["  %s: %s" % (worker, info.get("error") or describe_identity(info))
               for worker, info in sorted(found.items()) if info != expected]
        if bad:
            raise ClusterError(
                "refusing to run: %d of %d workers run another Pruner than this client (%s):\n%s\n"
                "Give every worker the same Pruner checkout and python-chess (see docs/cluster.md)."
                % (len(bad), len(found), describe_identity(expected), "\n".join(bad)))
        return expected

    def close(self) -> None:
        """Close the client, and the LocalCluster when this run started one; errors are ignored."""
        with contextlib.suppress(Exception):
            self.client.close()
        if self.local is not None:
            with contextlib.suppress(Exception):
                self.local.close()


@contextlib.contextmanager
def open_cluster(address: str, threads_per_worker: int = 1) -> Iterator[Cluster]:
    """A connected ``Cluster`` for ``address``; closed (and a LocalCluster shut down) on exit.

    Raises ClusterError when Dask is missing or the scheduler cannot be reached."""
    scheduler, n_workers = parse_address(address)
    distributed = import_distributed()
    local = None
    quiet = _QuietLogs() if scheduler is None else None  # the in-process scheduler's chatter
    try:
        if scheduler is None:
            # Dask's statistical profiler walks the deep search stacks every 10 ms: ~4% of a
            # worker's CPU, so it is off here (remote workers: docs/cluster.md).
            with dask_config().set({"distributed.worker.profile.enabled": False}):
                local = distributed.LocalCluster(
                    n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                    dashboard_address=":0",  # any free port; served when bokeh is installed
                    silence_logs=logging.ERROR)
            client = distributed.Client(local)
        else:
            client = distributed.Client(scheduler, timeout="20s")
    except (OSError, TimeoutError) as exc:
        if local is not None:
            local.close()
        if quiet is not None:
            quiet.restore()
        raise ClusterError("cannot connect to the Dask scheduler at %s: %s" % (address, exc)) from None
    cluster = Cluster(client, address, local)
    try:
        yield cluster
    finally:
        cluster.close()
        if quiet is not None:
            quiet.restore()


class _QuietLogs:
    """Only errors from the ``distributed`` loggers while a LocalCluster runs in this process."""

    def __init__(self) -> None:
        self.logger = logging.getLogger("distributed")
        self.level = self.logger.level
        self.logger.setLevel(logging.ERROR)

    def restore(self) -> None:
        self.logger.setLevel(self.level)


def error_text(exc: BaseException) -> str:
    """One line for a task's exception, as reported to the user."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()
    return "%s: %s" % (name, text[0]) if text else name


def is_killed_worker(exc: BaseException) -> bool:
    """Dask gave up on a task after its workers died ``allowed-failures`` times."""
    return type(exc).__name__ == "KilledWorker"


class WorkerCache:
    """What a worker process keeps across tasks (searchers, engine processes), one object per
    (thread, key), because starting one per task would cost more than most tasks: ``get``
    makes it on first use (again when ``usable`` says the kept one is dead), ``release``
    closes them all (run on every worker when a run ends, and at exit)."""

    def __init__(self, close: Any) -> None:
        self._close = close
        self._items: Dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple, make: Any, usable: Any = None) -> Any:
        """This thread's object for ``key``: the kept one, or ``make()``."""
        key = (threading.get_ident(),) + tuple(key)
        with self._lock:
            item = self._items.get(key)
        if item is not None and usable is not None and not usable(item):
            self._close(item)
            item = None
        if item is None:
            item = make()
            with self._lock:
                self._items[key] = item
        return item

    def release(self) -> int:
        """Close every kept object; how many there were."""
        with self._lock:
            items = list(self._items.values())
            self._items.clear()
        for item in items:
            self._close(item)
        return len(items)


def release_on_workers(cluster: Cluster, function, *args) -> None:
    """``client.run(function, *args)`` on every worker, ignoring failures (cleanup only)."""
    with contextlib.suppress(Exception):
        cluster.client.run(function, *args)


__all__ = ["Cluster", "ClusterError", "VersionMismatch", "WorkerCache", "code_identity",
                      "describe_identity", "error_text", "import_distributed", "is_killed_worker",
                      "open_cluster", "parse_address", "release_on_workers", "require_identity",
                      "worker_identity"]
