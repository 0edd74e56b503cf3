"""The search thread of each ``go`` and its ``bestmove`` hand-off.

One search thread per ``go`` searches a private board copy; while it runs it owns the
searcher (protocol/uci/searcher_owner.py), which it hands back after its result. It prints
the ``info`` lines of each iteration, makes sure the GUI gets a legal move (the engine's
one-ply choice when the search fails), plays the strength model's choice for a limited
strength and waits out its ``Human Time``.

``bestmove`` hand-off: the search thread stores its result and prints ``bestmove`` unless
the search is held (``go infinite``, or ``go ponder`` before ``ponderhit``); ``stop``/
``ponderhit`` release it. Both sides decide under one lock (the searcher owner's), and an
``emitted`` flag makes sure each ``go`` gets exactly one ``bestmove``. A silenced search
(Ctrl-C, SIGTERM, a closed output) prints nothing more.
"""

import random
import threading
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Optional

import chess

from pruner.engine.strength import StrengthLimit, calibrated_params
from pruner.engine.types import Limits, SearchInfo, SearchProgress, SearchResult
from pruner.uci.book_and_strength import weaker_choice
from pruner.uci.output import Writer, report_problems
from pruner.uci.searcher_owner import SearcherOwner
from pruner.uci.wire import format_bestmove, format_info, format_no_moves, format_progress, format_search_progress


def _any_legal_move(board: chess.Board) -> Optional[chess.Move]:
    return next(iter(board.legal_moves), None)


def _fallback_move(board: chess.Board) -> Optional[chess.Move]:
    """The search failed before depth 1: the engine's one-ply choice, the first legal move
    only if even that fails (a GUI must get a legal move)."""
    try:
        from pruner.engine.search import fallback_move
        return fallback_move(board.copy(stack=False))
    except Exception:
        return _any_legal_move(board)


class Search:
    """One ``go``: private board, limits, stop flag, and its ``bestmove`` hand-off state."""

    def __init__(self, board: chess.Board, limits: Limits, multipv: int = 1,
                 strength: Optional[StrengthLimit] = None, wdl: bool = False,
                 rng: Optional[random.Random] = None) -> None:
        self.board = board
        self.limits = limits
        self.wdl = wdl
        """``UCI_ShowWDL``: ``info`` lines carry ``wdl W D L``."""
        self.shown = multipv
        """Lines the GUI asked for (``MultiPV``); a weakened search computes more, shows these."""
        self.strength = strength
        """``UCI_LimitStrength`` or ``Skill Level``: the model that picks the move among the lines, or None."""
        self.rng = rng if rng is not None else random.Random()
        """What ``strength`` picks with (the engine state's, which tests seed)."""
        self.stop = threading.Event()
        self.thread: Optional[threading.Thread] = None
        # The fields below are guarded by the searcher owner's lock.
        self.hold = limits.infinite or limits.ponder
        """Keep ``bestmove`` back until ``stop``/``ponderhit``."""
        self.result: Optional[SearchResult] = None
        self.emitted = False
        """``bestmove`` was printed (exactly one per ``go``)."""
        self.silent = False
        """Ctrl-C, SIGTERM or a closed output: print nothing more for this search."""
        self.ponderhit = threading.Event()
        """Set by ``ponderhit``: the searcher starts its clock when it sees it."""
        self.last_info_nodes = -1
        self.human_ms = 0
        """``Human Time``: milliseconds the move should take in all (the search's own time
        included); ``bestmove`` is held back for the rest unless ``stop`` ends the wait."""


def wait_for_stop(stop: threading.Event, seconds: float) -> None:
    """``SearchRunner.human_wait`` by default: wait ``seconds``, or less when ``stop`` is set."""
    stop.wait(seconds)


class SearchRunner:
    """Starts each ``go``'s search thread, releases and ends it; the thread's body."""

    def __init__(self, writer: Writer, owner: SearcherOwner, debug_line: Callable[[str], None]) -> None:
        self.writer = writer
        self.owner = owner
        self.debug_line = debug_line
        self.search: Optional[Search] = None
        """The running or last search."""
        self.human_wait: Callable[[threading.Event, float], None] = wait_for_stop
        """How the search thread waits out ``Human Time`` (tests put a recorder here)."""

    def start(self, search: Search, searcher: Any, multipv: int) -> None:
        """Run ``search`` with ``searcher`` (None: it failed to build) computing ``multipv``
        lines on a search thread, which owns the searcher until its result."""
        with self.owner.lock:
            self.owner.searching = True
            self.search = search
        thread = threading.Thread(target=self._run, args=(search, searcher, multipv),
                                  name="pruner-search", daemon=True)
        try:
            thread.start()
            search.thread = thread
        except RuntimeError as exc:  # no thread available: answer at once with a legal move
            self.writer.internal(exc)
            self._run(search, None, multipv)

    def join_if_finished(self) -> None:
        """``isready``: a search that has its result only applies the option changes that came
        during it (Hash, Threads): wait for them, so that ``readyok`` follows them, as UCI asks."""
        search = self.search
        if search is not None and search.thread is not None:
            with self.owner.lock:
                finished = search.result is not None
            if finished:
                search.thread.join()

    def stop(self) -> None:
        """``stop``: stop the search and release its ``bestmove``."""
        search = self.search
        if search is not None:
            search.stop.set()
            self._release(search, hold=False)

    def end(self, timeout: Optional[float] = None) -> None:
        """Stop the current search, let it print its bestmove, and join its thread (for at
        most ``timeout`` seconds)."""
        search = self.search
        if search is None:
            return
        search.stop.set()
        self._release(search, hold=False)
        if search.thread is not None:
            search.thread.join(timeout)

    def ponderhit(self) -> None:
        """``ponderhit``: the ponder search becomes a normal one (its clock starts)."""
        search = self.search
        if search is None or not search.limits.ponder:
            return
        with self.owner.lock:
            if search.emitted or not search.hold:
                return  # no longer pondering
        search.ponderhit.set()
        self._release(search, hold=search.limits.infinite)

    def _release(self, search: Search, hold: bool) -> None:
        """``stop``/``ponderhit``: print a held ``bestmove`` now, or let the search print it."""
        with self.owner.lock:
            search.hold = hold
            if not hold and search.result is not None:
                self._emit(search)

    def _run(self, search: Search, searcher: Any, multipv: int) -> None:
        """Search thread body: search, guarantee a legal move, print or hold ``bestmove``."""
        try:
            try:
                if searcher is None:
                    raise RuntimeError("no searcher")
                # A limited search runs the search its calibration measured (pruner.engine.strength).
                params = calibrated_params() if search.strength is not None else None
                result = searcher.search(search.board, search.limits, stop=search.stop, multipv=multipv,
                                         on_info=partial(self._on_info, search), ponderhit=search.ponderhit,
                                         on_progress=partial(self._on_progress, search), params=params)
                report_problems(self.writer, getattr(searcher, "tablebases", None))
                if result.error is not None and not search.silent:
                    # The search failed but answers with its last completed iteration.
                    self.writer.internal(result.error, "search stopped at depth %d" % result.depth)
                if search.strength is not None:
                    result = weaker_choice(search.strength, result, search.rng)
                result = self._legal_result(search, result)
                self._take_human_time(search, result)
            except Exception as exc:
                if not search.silent:
                    self.writer.internal(exc)
                result = SearchResult(_fallback_move(search.board))
            if result.best_move is None and not search.silent:
                self.writer.send(format_no_moves(search.board))
            with self.owner.lock:
                search.result = result
                if not search.hold:
                    self._emit(search)
        finally:
            self.owner.hand_back()

    def _take_human_time(self, search: Search, result: SearchResult) -> None:
        """``Human Time``: hold the finished move until the move has taken ``human_ms`` in all.
        The result is not stored yet, so ``isready`` answers at once meanwhile; ``stop``,
        ``quit`` and a new ``go`` set the stop flag, which ends the wait."""
        rest = search.human_ms - result.time_ms
        if rest <= 0 or search.stop.is_set() or search.silent or result.best_move is None:
            return
        self.debug_line("human time: bestmove in %d ms" % rest)
        self.human_wait(search.stop, rest / 1000.0)

    def _on_info(self, search: Search, info: SearchInfo) -> None:
        """Search callback: one ``info`` line per PV of each completed iteration."""
        with self.owner.lock:
            silent = search.silent
        if silent:
            return
        if info.multipv <= search.shown:  # extra lines of a weakened search stay hidden
            try:
                line = format_info(search.board, info, wdl=search.wdl)
            except Exception as exc:  # a bad report must not abort the search
                self.writer.internal(exc, "info")
                return
            self.writer.send(line)
        search.last_info_nodes = info.nodes

    def _on_progress(self, search: Search, progress: SearchProgress) -> None:
        """Search callback from inside a long iteration (after its first second): the root move
        being searched (``currmove``), or the nodes and time so far, so a GUI's counters move."""
        with self.owner.lock:
            silent = search.silent
        if silent:
            return
        try:
            line = format_search_progress(search.board, progress)
        except Exception as exc:  # a bad report must not abort the search
            self.writer.internal(exc, "info")
            return
        self.writer.send(line)

    def _legal_result(self, search: Search, result: SearchResult) -> SearchResult:
        """The GUI must never see an illegal move: replace one (and report it as a bug)."""
        board = search.board
        best = result.best_move
        if best is None or not board.is_legal(best):
            fallback = _fallback_move(board)
            if fallback is None:
                return replace(result, best_move=None, ponder_move=None)
            if not search.silent:
                self.writer.error("internal: search returned %s; playing %s"
                                  % (best and best.uci() or "no move", fallback.uci()))
            return replace(result, best_move=fallback, ponder_move=None)
        ponder = result.ponder_move
        if ponder is not None:
            board.push(best)
            if not board.is_legal(ponder):
                ponder = None
            board.pop()
        return replace(result, ponder_move=ponder)

    def _emit(self, search: Search) -> None:
        """Print the final info line(s) and ``bestmove`` once. Caller holds the owner's lock."""
        if search.emitted or search.silent:
            return
        search.emitted = True
        result = search.result
        board = search.board
        send = self.writer.send
        try:
            if result.best_move is not None:
                # Like Stockfish, repeat the last completed iteration when the search was stopped
                # or cut inside an iteration, with the final node count and time.
                if result.lines:
                    if search.stop.is_set() or result.nodes != search.last_info_nodes:
                        for line in result.lines[:search.shown]:
                            send(format_info(board, line, nodes=result.nodes, time_ms=result.time_ms,
                                             wdl=search.wdl))
                elif result.nodes:
                    send(format_progress(result.nodes, result.time_ms))
        except Exception as exc:  # never let a bad info line cost the bestmove
            self.writer.internal(exc, "info")
        send(format_bestmove(board, result.best_move, result.ponder_move))
