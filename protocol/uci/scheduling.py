"""When ``go perft`` and ``bench`` may run beside the search, and how every thread ends.

``go perft`` and ``bench`` run on a task thread (protocol/uci/tasks.py), never beside a
search: ``perft`` ends a running search first, ``bench`` is refused during one, and the loop
holds a ``go`` that comes during a task until the task ends.

``quit`` stops a search like ``stop`` (its ``bestmove`` is printed, as Stockfish prints it)
before the engine exits; only Ctrl-C, SIGTERM, SIGHUP and a closed output end it without one
(``shutdown``). At the end of input a bounded search runs to its end (``finish_search``).
"""

import sys
import traceback
from typing import Optional

import chess

from pruner.uci.output import Writer, join_unless_output_lost
from pruner.uci.search_thread import SearchRunner
from pruner.uci.searcher_owner import SearcherOwner
from pruner.uci.tasks import Tasks, run_bench, run_perft
from pruner.uci.wire import UciError, ends_in_finite_time

QUIT_JOIN_SECONDS = 2.0
"""How long ``quit`` waits for a stopped search or task thread (a daemon: exit happens anyway)."""


class Scheduler:
    """Starts perft and bench around the search, and ends the search, the task and the searcher."""

    def __init__(self, writer: Writer, tasks: Tasks, searches: SearchRunner, owner: SearcherOwner) -> None:
        self.writer = writer
        self.tasks = tasks
        self.searches = searches
        self.owner = owner

    def perft(self, board: chess.Board, depth: int) -> None:
        """``go perft N`` of ``board`` on a task thread (a running search is stopped first)."""
        self.searches.end()
        self.tasks.start("perft", run_perft, board, depth)

    def bench(self, depth: Optional[int]) -> None:
        """``bench [depth]`` on a task thread; refused while a search runs."""
        search = self.searches.search
        if self.owner.searching and search is not None and search.stop.is_set() and search.thread is not None:
            search.thread.join()  # already told to stop: it ends within milliseconds
        if self.owner.searching:
            raise UciError("bench: a search is running; send stop first")
        self.tasks.start("bench", run_bench, depth)

    def begin_quit(self) -> None:
        """``quit``, first step: end a perft or bench silently; none starts any more."""
        self.tasks.close(QUIT_JOIN_SECONDS)

    def quit(self) -> None:
        """``quit``, last step: stop the search and let it print its ``bestmove`` (as
        Stockfish's ``quit`` does), then shut down."""
        self.searches.end(QUIT_JOIN_SECONDS)
        self.shutdown()

    def shutdown(self) -> None:
        """Stop any search without printing its ``bestmove`` (and any perft or bench) and wait
        briefly for their threads; close the searcher's helpers."""
        self.tasks.close(QUIT_JOIN_SECONDS)
        search = self.searches.search
        with self.owner.lock:
            self.owner.pending.clear()
            if search is not None:
                search.silent = True
        if search is not None:
            search.stop.set()
            if search.thread is not None:
                search.thread.join(QUIT_JOIN_SECONDS)
        close = getattr(self.owner.searcher, "close", None)
        if close is not None:
            try:
                close()  # Threads > 1: stop and join the helper processes
            except Exception:  # exiting anyway: stderr only
                traceback.print_exc(file=sys.stderr)

    def wait_threads(self, timeout: Optional[float] = None, search: bool = True) -> bool:
        """Wait for the running perft, bench or (with ``search``) search thread to end; True if
        none runs."""
        task = self.tasks.current
        searching = self.searches.search.thread if self.searches.search and search else None
        for thread in (task.thread if task is not None else None, searching):
            if thread is not None:
                thread.join(timeout)
                if thread.is_alive():
                    return False
        return True

    def wait_for_task(self) -> None:
        """End of input: let a perft or bench finish (a closed output stops it)."""
        task = self.tasks.current
        if task is not None and task.thread is not None:
            join_unless_output_lost(task.thread, task.stop, self.writer)

    def finish_search(self) -> None:
        """End of input: a search bounded by depth, nodes or a clock runs to its end and prints
        its ``bestmove`` (a script that pipes ``go depth 6`` gets depth 6); an
        ``infinite``/``ponder`` search, or ``go mate N`` alone (endless where there is no
        mate), is stopped and prints its ``bestmove`` at once, as after ``quit``. Stockfish
        stops every search at end of input (often before depth 1: ``bestmove a2a3``); a closed
        output stops the search too."""
        search = self.searches.search
        if search is None or search.thread is None:
            return
        if search.hold or not ends_in_finite_time(search.limits):
            self.searches.end()
            return
        join_unless_output_lost(search.thread, search.stop, self.writer)
