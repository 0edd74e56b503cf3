"""The engine behind the UCI loop: the position, the options, the searcher and the searches,
the ``bestmove`` hand-off, the book, the limited strength, and ``go perft``/``bench``.

The loop (protocol/uci/loop.py) parses each line and calls one method here with parsed
values; this module never reads input (Stockfish keeps ``uci.cpp`` apart from ``engine.cpp``
the same way). It prints through the one ``Writer``.

Threads and who owns what:

* The loop's thread calls every method. It owns ``board`` and the option values.
* One search thread per ``go`` searches a private board copy. While it runs it owns the
  ``Searcher``: actions that would touch the searcher (``ucinewgame``, ``Hash``,
  ``Clear Hash``, ``Move Overhead``, ``Threads``) are queued and applied by the search thread
  right after its ``bestmove`` (or by the loop's thread at once when no search runs).
* ``go perft`` and ``bench`` run on a task thread (protocol/uci/tasks.py), never beside a
  search: ``perft`` ends a running search first, ``bench`` is refused during one, and the loop
  holds a ``go`` that comes during a task until the task ends.

A ``go`` answered from the opening book (``OwnBook``) prints ``bestmove`` at once from the
loop's thread, without a search thread; with ``UCI_LimitStrength`` (or a ``Skill Level`` below
20) the search thread replaces the best move by the strength model's choice before printing it,
and on a clock holds it back until the move has taken a human-like time (``Human Time``).

``bestmove`` hand-off: the search thread stores its result and prints ``bestmove`` unless
the search is held (``go infinite``, or ``go ponder`` before ``ponderhit``); ``stop``/
``ponderhit`` release it. Both sides decide under one lock, and an ``emitted`` flag makes
sure each ``go`` gets exactly one ``bestmove``. ``quit`` stops a search like ``stop`` (its
``bestmove`` is printed, as Stockfish prints it) before the engine exits; only Ctrl-C, SIGTERM
and a closed output end it without one.
"""

import random
import sys
import threading
import traceback
from dataclasses import replace
from functools import partial
from typing import Any, Callable, List, Optional, Set, Tuple

import chess

from pruner.engine.strength import StrengthLimit, calibrated_params, strength_for_options
from pruner.engine.timeman import human_time
from pruner.engine.types import Limits, SearchInfo, SearchProgress, SearchResult
from pruner.uci.game_line import GameLine
from pruner.uci.options import Options
from pruner.uci.output import Writer, join_unless_output_lost
from pruner.uci.tasks import Tasks, run_bench, run_perft
from pruner.uci.wire import (UciError, ends_in_finite_time, format_bestmove, format_info, format_no_moves,
                               format_progress, format_search_progress)

QUIT_JOIN_SECONDS = 2.0
"""How long ``quit`` waits for a stopped search or task thread (a daemon: exit happens anyway)."""


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
                 strength: Optional[StrengthLimit] = None, wdl: bool = False) -> None:
        self.board = board
        self.limits = limits
        self.wdl = wdl
        """``UCI_ShowWDL``: ``info`` lines carry ``wdl W D L``."""
        self.shown = multipv
        """Lines the GUI asked for (``MultiPV``); a weakened search computes more, shows these."""
        self.strength = strength
        """``UCI_LimitStrength`` or ``Skill Level``: the model that picks the move among the lines, or None."""
        self.stop = threading.Event()
        self.thread: Optional[threading.Thread] = None
        # The fields below are guarded by EngineState._lock.
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
    """``EngineState.human_wait`` by default: wait ``seconds``, or less when ``stop`` is set."""
    stop.wait(seconds)


class EngineState:
    """What the UCI commands act on; each public method is one command, its arguments parsed."""

    def __init__(self, writer: Writer, searcher_factory: Optional[Callable[[int], Any]] = None,
                 options: Optional[Options] = None, rng: Optional[random.Random] = None,
                 on_idle: Optional[Callable[[], None]] = None) -> None:
        self.writer = writer
        self.options = options if options is not None else Options()
        self.board = chess.Board()
        """Position of the next ``go``; replaced (never mutated) by ``position``. Its stack holds
        only the recent moves repetitions need (protocol/uci/game_line.py)."""
        self.line: Optional[GameLine] = None
        """The last accepted ``position`` line (a longer one that starts with it plays only its new moves)."""
        self.position_refused: Optional[str] = None
        """Why the last ``position`` command was refused, until a valid one comes: a ``go``
        then must not answer for ``board`` (the GUI has another position in mind)."""
        self.rng = rng if rng is not None else random.Random()
        """Book picks and ``UCI_LimitStrength`` choices (tests pass a seeded one)."""
        self.debug = False
        """``debug on``: ``info string debug: ...`` lines about what the engine does."""
        self.tasks = Tasks(writer, on_idle)
        """The running or last ``go perft``/``bench``."""
        self.search: Optional[Search] = None
        """The running or last search."""
        self.searcher: Any = None
        """The searcher, created on first use (``isready`` or ``go``)."""
        self._reported: Set[str] = set()
        """Problems of the environment already written to stderr (each is written once)."""
        self._factory = searcher_factory or default_searcher
        self._lock = threading.Lock()
        self._searching = False
        """A search thread owns the searcher (guarded by ``_lock``)."""
        self._pending: List[Tuple[str, Callable[[Any], None]]] = []
        """Searcher actions deferred until the running search ends (guarded by ``_lock``)."""
        self.human_wait: Callable[[threading.Event, float], None] = wait_for_stop
        """How the search thread waits out ``Human Time`` (tests put a recorder here)."""

    # -- output -------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one output line through the single writer."""
        self.writer.send(line)

    def debug_line(self, message: str) -> None:
        """``info string debug: <message>`` when ``debug`` is on."""
        if self.debug:
            self.writer.send("info string debug: " + message)

    # -- the searcher and deferred actions ----------------------------------------------------

    def _get_searcher(self) -> Any:
        """The searcher, created from the current option values on first use."""
        if self.searcher is None:
            searcher = self._factory(self.options["Hash"])
            for option in self.options.declared:
                if option.apply is not None and option.apply_at_start:
                    option.apply(searcher, self.options.argument(option.name))
            self.searcher = searcher
        return self.searcher

    def _searcher_action(self, label: str, action: Callable[[Any], None], always: bool = False) -> None:
        """Run ``action(searcher)`` now, or after the running search if there is one.

        Without a searcher the action is skipped (the searcher will be built from the current
        values), unless ``always``: then it runs with ``None``.
        """
        with self._lock:
            if self._searching:
                self._pending.append((label, action))
                deferred = True
            else:
                deferred = False
        if deferred:
            self.debug_line("%s: applied when the search ends" % label)
        elif self.searcher is not None or always:
            self._run_action(label, action, always)

    def _run_action(self, label: str, action: Callable[[Any], None], always: bool = False) -> None:
        if self.searcher is None and not always:
            return
        try:
            action(self.searcher)
        except Exception as exc:
            self.writer.internal(exc, label)

    def _drain_pending(self) -> None:
        """Search thread, after its result: apply deferred actions in order, then hand back the searcher."""
        while True:
            with self._lock:
                if not self._pending:
                    self._searching = False
                    return
                actions, self._pending = self._pending, []
            for label, action in actions:
                self._run_action(label, action)

    # -- commands -----------------------------------------------------------------------------

    def ready(self) -> None:
        """``isready``: create the searcher if none exists, let the option changes queued during
        a finished search be applied, then ``readyok`` (at once during a search)."""
        search = self.search
        if search is not None and search.thread is not None:
            with self._lock:
                finished = search.result is not None
            if finished:
                # The search is over; its thread only applies the option changes that came
                # during it (Hash, Threads): readyok once they are done, as UCI asks.
                search.thread.join()
        if not self._searching and self.searcher is None:
            try:  # the first isready is where a GUI expects initialisation to happen
                self._get_searcher()
            except Exception as exc:
                self.writer.internal(exc)
        self.send("readyok")

    def set_option(self, name: str, text: Optional[str]) -> None:
        """``setoption``: validate (and load) the value, say what a value means when it needs
        saying, push it into the searcher now or after the search. Raises ``OptionError``; the
        old value stands."""
        old = self.options.loaded(name) if self.options.lookup(name).load is not None else None
        option = self.options.set(name, text)
        self._report_problems(self.options.loaded(option.name) if option.load is not None else None)
        value = self.options[option.name] if option.kind != "button" else None
        note = option.note(self.options.argument(option.name)) if option.note is not None else None
        if note:
            self.send("info string " + note)
        self.debug_line("option %s = %s" % (option.name, value if option.kind != "button" else "(pressed)"))
        if option.apply is not None:
            apply = option.apply
            argument = self.options.argument(option.name)
            self._searcher_action("setoption " + option.name, lambda searcher: apply(searcher, argument))
        if old is not None and hasattr(old, "close"):
            # The replaced book or tables: closed once no search can be using them.
            self._searcher_action("close the old " + option.name, lambda _: old.close(), always=True)

    def _report_problems(self, resource: Any) -> None:
        """Show once what a loaded resource (the tables, the book) could not use."""
        take = getattr(resource, "take_problems", None)
        if take is not None:
            for message in take():
                self.writer.error(message)

    def new_game(self) -> None:
        """``ucinewgame``: clear the searcher's tables (after the running search)."""
        self._searcher_action("ucinewgame", lambda searcher: searcher.new_game())

    def set_position(self, board: chess.Board, line: Optional[GameLine] = None) -> None:
        """``position``: the position of the next ``go`` (``line``: the command it came from,
        which the next ``position`` may extend)."""
        self.board = board
        self.line = line
        self.position_refused = None
        self.debug_line("position %s" % board.fen())

    def refuse_position(self, reason: str) -> None:
        """``position`` refused: no ``go`` answers for the old position until a valid one comes."""
        self.position_refused = reason

    def position_to_search(self) -> Optional[chess.Board]:
        """A copy of the position a ``go`` sent now searches (with the current
        ``UCI_Chess960``), or None after a refused ``position``."""
        if self.position_refused is not None:
            return None
        board = self.board.copy()
        board.chess960 = self.options["UCI_Chess960"]  # also when the option changed after `position`
        return board

    def pass_without_position(self) -> None:
        """``go`` after a refused ``position``: searching the previous position would answer a
        move that is illegal in the GUI's; say why and pass (a null move, as UCI writes it)."""
        self.end_search()
        self.writer.error("go: no position to search, the last position command was refused (%s)"
                          % self.position_refused)
        self.send("bestmove 0000")

    def go(self, board: chess.Board, limits: Limits) -> None:
        """``go``: stop a running search (it prints its bestmove), then answer from the book or
        start a search of ``board`` on a search thread."""
        self.end_search()
        book_move = self._book_move(board, limits)
        if book_move is not None:
            self.send("info string book move %s" % board.uci(book_move))
            self.send(format_bestmove(board, book_move))
            return
        searcher = None
        try:
            searcher = self._get_searcher()
        except Exception as exc:  # the search thread still answers with a legal move
            self.writer.internal(exc)
        multipv = self.options["MultiPV"]
        strength = None
        asked = limits
        if not limits.infinite:  # analysis is never weakened
            strength, problem = strength_for_options(self.options["UCI_LimitStrength"], self.options["UCI_Elo"],
                                                     self.options["Skill Level"])
            if problem and problem not in self._reported:
                self._reported.add(problem)
                sys.stderr.write(problem + "\n")  # stderr, once, as PRUNER_PARAMS's problems
            if strength is not None:
                limits = strength.limits_for(limits)
        self.debug_line("go %s multipv %d from %s; options %s" % (limits, multipv, board.fen(), self.options.summary()))
        search = Search(board, limits, multipv, strength, wdl=self.options["UCI_ShowWDL"])
        if strength is not None:
            multipv = max(multipv, strength.multipv)
            if self.options["Human Time"]:  # from the GUI's go: its depth, nodes, movetime... mean no wait
                search.human_ms = human_time(asked, board.turn, self.options["Move Overhead"])
        with self._lock:
            self._searching = True
            self.search = search
        thread = threading.Thread(target=self._run_search, args=(search, searcher, multipv),
                                  name="pruner-search", daemon=True)
        try:
            thread.start()
            search.thread = thread
        except RuntimeError as exc:  # no thread available: answer at once with a legal move
            self.writer.internal(exc)
            self._run_search(search, None, multipv)

    def _book_move(self, board: chess.Board, limits: Limits) -> Optional[chess.Move]:
        """``OwnBook``: a book move for a ``go`` that asks to play (not ``infinite``, ``ponder``,
        ``mate`` or ``searchmoves``), or None to search."""
        if not self.options["OwnBook"] or limits.infinite or limits.ponder or limits.mate is not None \
                or limits.searchmoves:
            return None
        book = self.options.loaded("BookFile")
        if book is None:
            return None
        try:
            move = book.pick(board, self.rng)
        except Exception as exc:  # a damaged book must not cost the move: search instead
            self.writer.internal(exc, "book")
            return None
        self._report_problems(book)  # a book changed on disk is left out: said once
        self.debug_line("book: %s" % (board.uci(move) if move is not None else "no move, searching"))
        return move

    def stop(self) -> None:
        """``stop``: end a perft or bench, or stop the search and release its ``bestmove``."""
        self.tasks.stop()
        search = self.search
        if search is not None:
            search.stop.set()
            self._release(search, hold=False)

    def ponderhit(self) -> None:
        """``ponderhit``: the ponder search becomes a normal one (its clock starts)."""
        search = self.search
        if search is None or not search.limits.ponder:
            return
        with self._lock:
            if search.emitted or not search.hold:
                return  # no longer pondering
        search.ponderhit.set()
        self._release(search, hold=search.limits.infinite)

    def perft(self, depth: int) -> None:
        """``go perft N`` on a task thread (a running search is stopped first)."""
        if self.position_refused is not None:
            raise UciError("go perft: no position, the last position command was refused")
        self.end_search()
        self.tasks.start("perft", run_perft, self.board, depth)

    def bench(self, depth: Optional[int]) -> None:
        """``bench [depth]`` on a task thread; refused while a search runs."""
        search = self.search
        if self._searching and search is not None and search.stop.is_set() and search.thread is not None:
            search.thread.join()  # already told to stop: it ends within milliseconds
        if self._searching:
            raise UciError("bench: a search is running; send stop first")
        self.tasks.start("bench", run_bench, depth)

    def begin_quit(self) -> None:
        """``quit``, first step: end a perft or bench silently; none starts any more."""
        self.tasks.close(QUIT_JOIN_SECONDS)

    def quit(self) -> None:
        """``quit``, last step: stop the search and let it print its ``bestmove`` (as
        Stockfish's ``quit`` does), then shut down."""
        search = self.search
        if search is not None:
            search.stop.set()
            self._release(search, hold=False)
            if search.thread is not None:
                search.thread.join(QUIT_JOIN_SECONDS)
        self.shutdown()

    def shutdown(self) -> None:
        """Stop any search without printing its ``bestmove`` (and any perft or bench) and wait
        briefly for their threads; close the searcher's helpers."""
        self.tasks.close(QUIT_JOIN_SECONDS)
        search = self.search
        with self._lock:
            self._pending.clear()
            if search is not None:
                search.silent = True
        if search is not None:
            search.stop.set()
            if search.thread is not None:
                search.thread.join(QUIT_JOIN_SECONDS)
        close = getattr(self.searcher, "close", None)
        if close is not None:
            try:
                close()  # Threads > 1: stop and join the helper processes
            except Exception:  # exiting anyway: stderr only
                traceback.print_exc(file=sys.stderr)

    def wait_threads(self, timeout: Optional[float] = None, search: bool = True) -> bool:
        """Wait for the running perft, bench or (with ``search``) search thread to end; True if
        none runs."""
        task = self.tasks.current
        searching = self.search.thread if self.search and search else None
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
        search = self.search
        if search is None or search.thread is None:
            return
        if search.hold or not ends_in_finite_time(search.limits):
            self.end_search()
            return
        join_unless_output_lost(search.thread, search.stop, self.writer)

    # -- the search thread --------------------------------------------------------------------

    def end_search(self) -> None:
        """Stop the current search, let it print its bestmove, and join its thread."""
        search = self.search
        if search is None:
            return
        search.stop.set()
        self._release(search, hold=False)
        if search.thread is not None:
            search.thread.join()

    def _release(self, search: Search, hold: bool) -> None:
        """``stop``/``ponderhit``: print a held ``bestmove`` now, or let the search print it."""
        with self._lock:
            search.hold = hold
            if not hold and search.result is not None:
                self._emit(search)

    def _run_search(self, search: Search, searcher: Any, multipv: int) -> None:
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
                self._report_problems(getattr(searcher, "tablebases", None))
                if result.error is not None and not search.silent:
                    # The search failed but answers with its last completed iteration.
                    self.writer.internal(result.error, "search stopped at depth %d" % result.depth)
                if search.strength is not None:
                    result = self._weaker_choice(search, result)
                result = self._legal_result(search, result)
                self._take_human_time(search, result)
            except Exception as exc:
                if not search.silent:
                    self.writer.internal(exc)
                result = SearchResult(_fallback_move(search.board))
            if result.best_move is None and not search.silent:
                self.send(format_no_moves(search.board))
            with self._lock:
                search.result = result
                if not search.hold:
                    self._emit(search)
        finally:
            self._drain_pending()  # also hands the searcher back to the loop's thread

    def _take_human_time(self, search: Search, result: SearchResult) -> None:
        """``Human Time``: hold the finished move until the move has taken ``human_ms`` in all.
        The result is not stored yet, so ``isready`` answers at once meanwhile; ``stop``,
        ``quit`` and a new ``go`` set the stop flag, which ends the wait."""
        rest = search.human_ms - result.time_ms
        if rest <= 0 or search.stop.is_set() or search.silent or result.best_move is None:
            return
        self.debug_line("human time: bestmove in %d ms" % rest)
        self.human_wait(search.stop, rest / 1000.0)

    def _weaker_choice(self, search: Search, result: SearchResult) -> SearchResult:
        """A limited strength: play the line the strength model picks instead of the best."""
        chosen = search.strength.choose(result.lines, self.rng)
        if chosen is None or not chosen.pv or chosen.pv[0] == result.best_move:
            return result
        return replace(result, best_move=chosen.pv[0], ponder_move=chosen.pv[1] if len(chosen.pv) > 1 else None)

    def _on_info(self, search: Search, info: SearchInfo) -> None:
        """Search callback: one ``info`` line per PV of each completed iteration."""
        with self._lock:
            silent = search.silent
        if silent:
            return
        if info.multipv <= search.shown:  # extra lines of a weakened search stay hidden
            try:
                line = format_info(search.board, info, wdl=search.wdl)
            except Exception as exc:  # a bad report must not abort the search
                self.writer.internal(exc, "info")
                return
            self.send(line)
        search.last_info_nodes = info.nodes

    def _on_progress(self, search: Search, progress: SearchProgress) -> None:
        """Search callback from inside a long iteration (after its first second): the root move
        being searched (``currmove``), or the nodes and time so far, so a GUI's counters move."""
        with self._lock:
            silent = search.silent
        if silent:
            return
        try:
            line = format_search_progress(search.board, progress)
        except Exception as exc:  # a bad report must not abort the search
            self.writer.internal(exc, "info")
            return
        self.send(line)

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
        """Print the final info line(s) and ``bestmove`` once. Caller holds ``_lock``."""
        if search.emitted or search.silent:
            return
        search.emitted = True
        result = search.result
        board = search.board
        try:
            if result.best_move is not None:
                # Like Stockfish, repeat the last completed iteration when the search was stopped
                # or cut inside an iteration, with the final node count and time.
                if result.lines:
                    if search.stop.is_set() or result.nodes != search.last_info_nodes:
                        for line in result.lines[:search.shown]:
                            self.send(format_info(board, line, nodes=result.nodes, time_ms=result.time_ms,
                                                  wdl=search.wdl))
                elif result.nodes:
                    self.send(format_progress(result.nodes, result.time_ms))
        except Exception as exc:  # never let a bad info line cost the bestmove
            self.writer.internal(exc, "info")
        self.send(format_bestmove(board, result.best_move, result.ponder_move))
