"""Lazy SMP across processes: helper searchers filling one shared transposition table.

Python threads cannot search in parallel (the GIL), so the helpers are processes. With
``threads`` > 1, ``ParallelSearcher`` starts ``threads - 1`` helper processes once (not per
search) and keeps them alive; all of them and the main searcher use one
``SharedTranspositionTable`` in shared memory. At every ``search`` the main searcher sends
each helper the position (a board with the moves since the last irreversible one, for
repetitions); the helpers search it without a clock (``go depth`` and ``searchmoves``
apply), and the main searcher's own iterative deepening decides everything: its result is
the result; when it ends, the helpers are told to stop. The helpers help only through the
table: their entries (cutoffs, hash moves, deeper results) let the main search finish its
iterations sooner (Lazy SMP, as in Stockfish from version 7; see
https://www.chessprogramming.org/Lazy_SMP).

Diversity between searchers: odd helpers search every iteration one ply deeper than the
main searcher, and helpers from the second on start with slightly different history tables
(move ordering). A ``go nodes`` search runs without helpers, so node-limited searches (and
``UCI_LimitStrength``, which limits nodes) stay what they are with one thread.

The helpers search with the main searcher's ``SearchParams`` and its net: both are given to a
helper when it starts, and again when they change (``ParallelSearcher.set_evalfile``, the
``EvalFile`` option). A net read from a file goes as the file's bytes, so a helper never reads
the file itself and every searcher has the same net even if the file changed since.

Control: a small shared array holds the number of the last stopped search (a helper stops
when it reaches the number of its own) and each helper's node count for that search. Pipes
carry the commands (``go``, ``newgame``, ``quit``). A helper also stops and exits when its
parent process is gone (its pipe ends, or its parent process id changes), so no helper
outlives the engine.
"""

import os
import signal
from dataclasses import replace
from typing import Any, Callable, List, Optional

import chess

from pruner.engine import nnue
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.tablebase import Tablebases
from pruner.engine.tt import TranspositionTable
from pruner.engine.types import Limits, SearchInfo, SearchProgress, SearchResult

STOPPED = 0
"""Control word: number of the last search the main searcher ended."""

HELPER_WORDS = 1
"""Control words before the per-helper pairs (search number, nodes)."""

JOIN_SECONDS = 2.0
"""How long closing waits for a helper to exit before terminating it."""

START_SECONDS = 60.0
"""How long starting waits for helpers to report ready (an interpreter start and the engine's
imports: well under a second on an idle machine, also on PyPy)."""

_STOP_ALL = 1 << 62
"""Written to ``STOPPED`` on close: stops any search of any number."""

_context_made: List[Any] = []


def _context() -> Any:
    """The ``multiprocessing`` spawn context (fresh interpreters for helpers: no fork of a process
    with threads, same on every OS), made at the first helper: ``multiprocessing`` and
    ``ctypes`` (the shared table's) cost PyPy about 40 ms of start-up that one thread never needs."""
    if not _context_made:
        import multiprocessing
        _context_made.append(multiprocessing.get_context("spawn"))
    return _context_made[0]


def _view(array: Any) -> memoryview:
    return memoryview(array).cast("B").cast("q")


class _Helper:
    """One helper process and the parent's end of its pipe."""

    def __init__(self, index: int, process: Any, conn: Any) -> None:
        self.index = index
        self.process = process
        self.conn = conn


class HelperPool:
    """``count`` helper processes searching over the shared block ``table`` with ``params`` (None:
    the defaults) and, when they name a net file, its bytes ``net_data`` (``net_bytes``)."""

    def __init__(self, count: int, table: Any, params: Optional[SearchParams] = None,
                 net_data: Optional[bytes] = None) -> None:
        self.table = table
        self.params = params
        """The search parameters every helper searches with (None: the defaults)."""
        self.net_data = net_data
        """The net file's bytes when ``params.evalfile`` names a file, else None."""
        self.control = _context().RawArray("q", HELPER_WORDS + 2 * count)
        self._words = _view(self.control)
        self.generation = 0
        """Number of the last search started."""
        self.helpers: List[_Helper] = []
        try:
            for index in range(1, count + 1):
                self.helpers.append(self._spawn(index))
            for helper in self.helpers:  # they start side by side; the first search has them all
                self._wait_ready(helper)
        except BaseException:
            self.close()
            raise

    def _spawn(self, index: int) -> _Helper:
        parent, child = _context().Pipe()
        process = _context().Process(target=helper_main,
                                   args=(index, self.table, self.control, child, self.params, self.net_data),
                                   name="pruner-helper-%d" % index, daemon=True)
        try:
            process.start()
        finally:
            child.close()
        return _Helper(index, process, parent)

    @staticmethod
    def _wait_ready(helper: _Helper) -> None:
        try:
            if helper.conn.poll(START_SECONDS) and helper.conn.recv() == ("ready",):
                return
        except (EOFError, OSError):
            pass
        raise RuntimeError("helper process %d did not start (exit code %s)"
                           % (helper.index, helper.process.exitcode))

    def pids(self) -> List[int]:
        """Process ids of the helpers."""
        return [helper.process.pid for helper in self.helpers]

    def start(self, board: chess.Board, limits: Limits) -> int:
        """Send every helper the position and the depth and ``searchmoves`` of ``limits`` (no
        clock: a helper searches until it is stopped); returns the new search number. A helper
        that died is replaced first."""
        self.generation += 1
        replay = min(len(board.move_stack), board.halfmove_clock)
        message = ("go", self.generation, board.copy(stack=replay), limits.depth, limits.searchmoves)
        for slot, helper in enumerate(self.helpers):
            if not helper.process.is_alive():
                self._retire(helper)
                helper = self.helpers[slot] = self._spawn(helper.index)
            try:
                helper.conn.send(message)
            except OSError:
                pass  # exiting: it is replaced at the next search
        return self.generation

    def stop(self, generation: int) -> None:
        """End search ``generation`` in every helper (each sees it within its check interval)."""
        self._words[STOPPED] = generation

    def nodes(self, generation: int) -> int:
        """Nodes the helpers searched so far in search ``generation``."""
        words = self._words
        return sum(words[HELPER_WORDS + 2 * k + 1] for k in range(len(self.helpers))
                   if words[HELPER_WORDS + 2 * k] == generation)

    def send_all(self, message: tuple) -> None:
        """Send a command to every helper (one that died is replaced at the next search)."""
        for helper in self.helpers:
            try:
                helper.conn.send(message)
            except OSError:
                pass

    def sync(self, message: tuple) -> None:
        """Send ``message`` (``newgame`` or ``sync``) and wait until every live helper has
        answered it. A helper reads its pipe only between searches, so after this no helper
        is still inside an earlier search storing into the table: clearing the table is then
        final (without it, a helper finishing a stopped search could write into a table just
        cleared by ``ucinewgame``)."""
        self.send_all(message)
        for helper in self.helpers:
            try:
                if helper.conn.poll(START_SECONDS):  # a helper that died reads as EOF at once
                    helper.conn.recv()
            except (EOFError, OSError):
                pass  # dead: it is replaced at the next search, with nothing to wait for

    def configure(self, params: SearchParams, net_data: Optional[bytes]) -> None:
        """From now on every helper searches with ``params`` and the net ``net_data`` holds (a
        helper started later too); returns when each live helper has taken them, so no helper is
        still searching with the old evaluation (the caller then empties the table)."""
        self.params, self.net_data = params, net_data
        self.sync(("params", params, net_data))

    def close(self) -> None:
        """Stop every search, ask every helper to exit, wait; terminate the ones that do not."""
        self._words[STOPPED] = _STOP_ALL
        self.send_all(("quit",))
        for helper in self.helpers:
            self._retire(helper)
        self.helpers = []

    def _retire(self, helper: _Helper) -> None:
        process = helper.process
        process.join(JOIN_SECONDS)
        if process.is_alive():
            process.terminate()
            process.join(JOIN_SECONDS)
        if process.is_alive():
            process.kill()
            process.join()
        helper.conn.close()
        process.close()


class ParallelSearcher:
    """The ``Searcher`` interface (``search``, ``new_game``, ``set_hash``, ``clear_hash``,
    ``hashfull``, ``move_overhead_ms``, ``tablebases``) over ``threads`` searchers.

    With one thread it is the plain ``Searcher`` and its list table (cheapest per probe on
    CPython); with more, the main searcher and the helpers share one table of ``Hash`` MB.
    """

    def __init__(self, hash_mb: int = 16, params: Optional[SearchParams] = None, threads: int = 1) -> None:
        self.main = Searcher(hash_mb, params)
        """The searcher whose result is the result (it runs in this process)."""
        self.hash_mb = hash_mb
        self.threads = 1
        self._table: Optional[Any] = None
        """The shared table (``pruner.engine.shared_tt.SharedTranspositionTable``) while helpers run."""
        self._pool: Optional[HelperPool] = None
        self.set_threads(threads)

    # -- the Searcher interface ---------------------------------------------------------------

    @property
    def move_overhead_ms(self) -> int:
        """Milliseconds kept back from every time budget."""
        return self.main.move_overhead_ms

    @move_overhead_ms.setter
    def move_overhead_ms(self, value: int) -> None:
        self.main.move_overhead_ms = value

    @property
    def tablebases(self) -> Optional[Tablebases]:
        """Syzygy tables probed by the main searcher (helpers search without them)."""
        return self.main.tablebases

    @tablebases.setter
    def tablebases(self, value: Optional[Tablebases]) -> None:
        self.main.tablebases = value

    @property
    def tt(self) -> Any:
        """The main searcher's table (the shared one with helpers)."""
        return self.main.tt

    def new_game(self) -> None:
        """Forget earlier searches: clear the (shared) table, every searcher's history and killers."""
        if self._pool is not None:
            self._pool.sync(("newgame",))  # first: no helper may store after the clear
        self.main.new_game()

    def set_hash(self, mb: int) -> None:
        """Resize the table to ``mb`` MB (clears it); with helpers, they restart on the new table."""
        if self._pool is None:
            self.main.set_hash(mb)
        else:
            self._start_helpers(self.threads, mb)
        self.hash_mb = mb

    def clear_hash(self) -> None:
        """Empty the table (shared: for every searcher)."""
        if self._pool is not None:
            self._pool.sync(("sync",))  # first: no helper may store after the clear
        self.main.clear_hash()

    def hashfull(self) -> int:
        """Table fill in permille."""
        return self.main.hashfull()

    def set_evalfile(self, name: str) -> None:
        """Evaluate with the net ``name`` stands for (``Searcher.set_evalfile``) in every searcher:
        the helpers take it first (and stop storing), then the main searcher, which empties the
        shared table. ``NetError`` and nothing changes when the name's net cannot be read."""
        params = replace(self.main.params, evalfile=name)
        data = net_bytes(name)
        if self._pool is not None:
            self._pool.configure(params, data)
        self.main.set_evalfile(name)

    def set_threads(self, threads: int) -> None:
        """Search with ``threads`` searchers: start or stop helper processes (not per search)."""
        if threads < 1:
            raise ValueError("threads must be at least 1, got %d" % threads)
        if threads == self.threads:
            return
        if threads == 1:
            table = TranspositionTable(self.hash_mb)
            self._stop_helpers()
            self.main.tt = table
            self._table = None
        else:
            self._start_helpers(threads, self.hash_mb)
        self.threads = threads

    def helper_pids(self) -> List[int]:
        """Process ids of the running helpers (empty with one thread)."""
        return self._pool.pids() if self._pool is not None else []

    def close(self) -> None:
        """Stop and join the helper processes; the searcher goes on with one thread."""
        if self._pool is not None:
            self.set_threads(1)

    def search(self, board: chess.Board, limits: Limits,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               stop: Any = None, multipv: int = 1, ponderhit: Any = None,
               on_progress: Optional[Callable[[SearchProgress], None]] = None,
               params: Optional[SearchParams] = None) -> SearchResult:
        """``Searcher.search``, with the helpers searching the same position meanwhile.

        ``info``, the progress reports and the result carry the main searcher's lines and
        moves (helpers never report); node counts include the helpers' nodes. A search with
        its own ``params`` (the strength model's) runs on the main searcher alone, as a
        node-limited search does.
        """
        pool = self._pool
        if pool is not None:
            self._table.new_search()  # the shared age every searcher stores with
        if pool is None or limits.nodes is not None or params is not None:
            return self.main.search(board, limits, on_info=on_info, stop=stop, multipv=multipv,
                                    ponderhit=ponderhit, on_progress=on_progress, params=params)
        generation = pool.start(board, limits)
        report = on_info
        if on_info is not None:
            shown = {}  # the helpers' nodes per set: the lines of one iteration show one count

            def report(info: SearchInfo) -> None:
                key = (info.depth, info.nodes)
                if key not in shown:
                    shown.clear()
                    shown[key] = pool.nodes(generation)
                on_info(replace(info, nodes=info.nodes + shown[key]))
        progress = on_progress
        if on_progress is not None:
            def progress(update: SearchProgress) -> None:
                on_progress(replace(update, nodes=update.nodes + pool.nodes(generation)))
        try:
            result = self.main.search(board, limits, on_info=report, stop=stop, multipv=multipv,
                                      ponderhit=ponderhit, on_progress=progress)
        finally:
            pool.stop(generation)
        result.nodes += pool.nodes(generation)
        return result

    # -- helpers --------------------------------------------------------------------------------

    def _start_helpers(self, threads: int, mb: int) -> None:
        from pruner.engine.shared_tt import SharedTranspositionTable  # here: see _context
        table = SharedTranspositionTable(mb)  # allocate first: a MemoryError changes nothing
        self._stop_helpers()
        try:
            pool = HelperPool(threads - 1, table.buffer, self.main.params, net_bytes(self.main.params.evalfile))
        except BaseException:  # no helper could start: go on with one thread
            self.main.tt = TranspositionTable(mb)
            self._table = None
            self.threads = 1
            self.hash_mb = mb
            raise
        self.main.tt = SharedTranspositionTable(buffer=table.buffer, leader=False)
        self._table = table
        self._pool = pool

    def _stop_helpers(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


def net_bytes(name: str) -> Optional[bytes]:
    """The file of the net ``name`` names as bytes for a helper (``nnue.net_named``'s net, which
    the main process read), or None for "" and ``classical`` (a helper reads the shipped net
    itself, from the same file)."""
    if name in ("", "classical"):
        return None
    return nnue.net_named(name).to_bytes()


# -- the helper process ----------------------------------------------------------------------


class HelperSearcher(Searcher):
    """A helper's searcher: the shared table, its own history and killers, a depth offset."""

    def __init__(self, index: int, table: Any) -> None:
        super().__init__(1)
        self.tt = table
        self.index = index
        self.depth_offset = index % 2
        """Lazy SMP: odd helpers search each iteration one ply deeper than the main searcher."""
        self.reset()

    def configure(self, params: Optional[SearchParams], net_data: Optional[bytes]) -> None:
        """Search with the main searcher's ``params`` and net (the file's bytes ``net_data``, kept
        under the file's name: ``nnue.read_named``); the table is the main process's to empty."""
        if params is None:
            return
        if net_data is not None:
            nnue.read_named(params.evalfile, net_data)
        self.use_params(params)

    def reset(self) -> None:
        """New game: fresh history and killers (the main process clears the shared table)."""
        # Lazy SMP: from the second helper on, a little noise in the history orders quiet
        # moves differently per helper.
        self.stats.clear(seed=self.index if self.index >= 2 else None)

    def _iterate(self, depth: int, root_moves: List[int], multipv: int, previous_score: int) -> List[SearchInfo]:
        return super()._iterate(depth + self.depth_offset, root_moves, multipv, previous_score)


class _HelperStop:
    """The helper's stop flag (``Searcher`` calls ``is_set`` every few milliseconds): publishes
    the node count, then stops when the main searcher ended this search or the parent is gone."""

    def __init__(self, searcher: Searcher, words: memoryview, slot: int, generation: int, parent: int) -> None:
        self.searcher = searcher
        self.words = words
        self.slot = slot
        self.generation = generation
        self.parent = parent

    def is_set(self) -> bool:
        words = self.words
        words[self.slot + 1] = self.searcher.nodes
        words[self.slot] = self.generation
        return words[STOPPED] >= self.generation or os.getppid() != self.parent


def helper_main(index: int, table: Any, control: Any, conn: Any, params: Optional[SearchParams] = None,
                net_data: Optional[bytes] = None) -> None:
    """Body of helper process ``index`` (1-based), searching with ``params`` and the net
    ``net_data`` (``HelperSearcher.configure``): run commands from the pipe until ``quit`` or
    until the parent's end closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # never hold the GUI's pipes (stderr stays, for tracebacks)
    os.dup2(null, 1)
    os.close(null)
    words = _view(control)
    slot = HELPER_WORDS + 2 * (index - 1)
    from pruner.engine.shared_tt import SharedTranspositionTable
    searcher = HelperSearcher(index, SharedTranspositionTable(buffer=table, leader=False))
    searcher.configure(params, net_data)
    parent = os.getppid()
    conn.send(("ready",))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "quit":
            return
        if kind == "newgame":
            searcher.reset()
            conn.send(("done",))
        elif kind == "sync":
            conn.send(("done",))
        elif kind == "params":
            searcher.configure(message[1], message[2])
            conn.send(("done",))
        elif kind == "go":
            _, generation, board, depth, searchmoves = message
            if words[STOPPED] >= generation:
                continue  # already over (this helper was still starting)
            stop = _HelperStop(searcher, words, slot, generation, parent)
            searcher.search(board, Limits(depth=depth, searchmoves=searchmoves), stop=stop)
            if stop.is_set() and os.getppid() != parent:
                return
