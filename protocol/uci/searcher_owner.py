"""The searcher of the UCI server and who may touch it.

The searcher is made on first use (``isready`` or ``go``) from the current option values.
The loop's thread owns it, except while a search runs: then the search thread does, and the
actions that would touch it (``ucinewgame``, ``Hash``, ``Clear Hash``, ``Move Overhead``,
``Threads``) are queued and applied by the search thread right after its ``bestmove``, in
the order they came.
"""

import sys
import threading
from typing import Any, Callable, List, Tuple

from pruner.uci.options import Options
from pruner.uci.output import Writer


def default_searcher(hash_mb: int) -> Any:
    """The engine's searcher (``Threads`` processes), with ``PRUNER_PARAMS`` applied."""
    # Imported on first use: `uci` -> `uciok` does not wait for the search modules.
    from pruner.engine.search import SearchParams
    from pruner.engine.smp import ParallelSearcher
    params, problem = SearchParams.from_environment()
    if problem:
        sys.stderr.write(problem + "\n")  # stderr: not a UCI line, but seen in a match's log
    return ParallelSearcher(hash_mb, params)


def preload_search_modules() -> None:
    """Import the search modules after ``uciok``, while the GUI sends its options: the first
    ``isready`` was where they were imported, and python-chess sends it inside the first
    ``play``, so its clock paid for them (400 ms of a one-second game on PyPy, 110 ms on
    CPython, on a slow 2-core machine). An import error is left for ``isready`` to report."""
    try:
        import pruner.engine.search  # noqa: F401
        import pruner.engine.smp  # noqa: F401
    except Exception:  # reported by the first isready, which imports them again
        pass


class SearcherOwner:
    """The searcher, its deferred actions, and the lock the ``bestmove`` hand-off shares."""

    def __init__(self, writer: Writer, options: Options, factory: Callable[[int], Any],
                 debug_line: Callable[[str], None]) -> None:
        self.writer = writer
        self.options = options
        self.factory = factory
        self.debug_line = debug_line
        self.searcher: Any = None
        """The searcher, created on first use (``isready`` or ``go``)."""
        self.lock = threading.Lock()
        """Guards ``searching``, ``pending`` and the hand-off fields of each ``Search``."""
        self.searching = False
        """A search thread owns the searcher (guarded by ``lock``)."""
        self.pending: List[Tuple[str, Callable[[Any], None]]] = []
        """Searcher actions deferred until the running search ends (guarded by ``lock``)."""

    def get(self) -> Any:
        """The searcher, created from the current option values on first use."""
        if self.searcher is None:
            searcher = self.factory(self.options["Hash"])
            for option in self.options.declared:
                if option.apply is not None and option.apply_at_start:
                    option.apply(searcher, self.options.argument(option.name))
            self.searcher = searcher
        return self.searcher

    def act(self, label: str, action: Callable[[Any], None], always: bool = False) -> None:
        """Run ``action(searcher)`` now, or after the running search if there is one.

        Without a searcher the action is skipped (the searcher will be built from the current
        values), unless ``always``: then it runs with ``None``.
        """
        with self.lock:
            if self.searching:
                self.pending.append((label, action))
                deferred = True
            else:
                deferred = False
        if deferred:
            self.debug_line("%s: applied when the search ends" % label)
        elif self.searcher is not None or always:
            self._run(label, action, always)

    def _run(self, label: str, action: Callable[[Any], None], always: bool = False) -> None:
        if self.searcher is None and not always:
            return
        try:
            action(self.searcher)
        except Exception as exc:
            self.writer.internal(exc, label)

    def hand_back(self) -> None:
        """Search thread, after its result: apply deferred actions in order, then hand the
        searcher back to the loop's thread."""
        while True:
            with self.lock:
                if not self.pending:
                    self.searching = False
                    return
                actions, self.pending = self.pending, []
            for label, action in actions:
                self._run(label, action)
