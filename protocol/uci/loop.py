"""The UCI server: a stdin reader thread, the command loop, one search thread, one stdout writer.

Threads and who owns what:

* The reader thread only turns stdin bytes into lines on a queue (it never blocks anyone).
* The main thread takes lines off the queue and runs every command, so ``isready`` is
  answered at once even while a search runs. It owns ``board`` and the option values.
* One search thread per ``go`` searches a private board copy. While it runs it owns the
  ``Searcher``: commands that would touch the searcher (``ucinewgame``, ``Hash``,
  ``Clear Hash``, ``Move Overhead``, ``Threads``) are queued and applied by the search thread
  right after its ``bestmove`` (or by the main thread at once when no search runs).
* ``go perft`` and ``bench`` run on a task thread of their own (never beside a search), so
  that the main thread still answers ``isready`` and ``stop``/``quit`` end them. Every other
  command is held and run in order when the task ends, as Stockfish runs commands after its
  perft (a script's ``go perft 5`` then ``go perft 4`` prints both counts); an ``isready``
  behind held commands is held with them, so ``readyok`` still means they are done. The task
  thread calls ``on_idle`` when it ends, and ``serve`` then runs the held commands.
* ``Writer`` is the only code that writes to stdout: one lock, one flushed write per line.

A ``go`` answered from the opening book (``OwnBook``) prints ``bestmove`` at once from the
main thread, without a search thread; with ``UCI_LimitStrength`` the search thread replaces
the best move by the strength model's choice before printing it.

``bestmove`` hand-off: the search thread stores its result and prints ``bestmove`` unless
the search is held (``go infinite``, or ``go ponder`` before ``ponderhit``); ``stop``/
``ponderhit`` release it. Both sides decide under one lock, and an ``emitted`` flag makes
sure each ``go`` gets exactly one ``bestmove``. ``quit`` stops a search like ``stop`` (its
``bestmove`` is printed, as Stockfish prints it) before the engine exits; only Ctrl-C, SIGTERM
and a closed output end it without one.
"""

import os
import queue
import random
import signal
import sys
import threading
import traceback
from collections import deque
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Deque, List, Optional, Set, Tuple

import chess

import engine
from engine.strength import StrengthLimit, calibrated_params, strength_for
from engine.types import Limits, SearchInfo, SearchProgress, SearchResult
from protocol.uci.options import OptionError, Options
from protocol.uci.wire import (Command, UciError, format_bestmove, format_info, format_no_moves, format_progress,
                               format_search_progress, ends_in_finite_time, parse_command, parse_go, parse_int,
                               parse_perft, parse_position, parse_setoption, quote)

AUTHOR = "The Pruner developers"

MAX_LINE_BYTES = 4 << 20
"""Longer input lines are dropped unread (with an error) so memory stays bounded; a real
``position ... moves`` line of the longest possible game is under 100 kB."""

QUIT_JOIN_SECONDS = 2.0
"""How long ``quit`` waits for a stopped search or task thread (a daemon: exit happens anyway)."""

ANSWERED_DURING_TASKS = frozenset(["isready", "stop", "quit"])
"""Commands run at once while ``go perft`` or ``bench`` runs; the others are held until it ends."""

_EOF = object()
_BROKEN = object()
_TOO_LONG = object()
_IDLE = object()


class Writer:
    """The single owner of stdout: thread-safe, one flushed write per line.

    When the output is gone (closed pipe, SIGPIPE ignored by Python -> ``BrokenPipeError``)
    it stops writing and calls ``on_broken`` once, so the loop can exit instead of spinning.
    """

    def __init__(self, write: Callable[[bytes], Any], on_broken: Optional[Callable[[], None]] = None) -> None:
        self._write = write
        self._on_broken = on_broken
        self._lock = threading.Lock()
        self.broken = False

    def send(self, line: str) -> None:
        """Write one line (embedded line breaks are flattened: one call, one line)."""
        data = (line.replace("\r", " ").replace("\n", " ") + "\n").encode("utf-8", "replace")
        with self._lock:
            if self.broken:
                return
            try:
                self._write(data)
                return
            except (OSError, ValueError):  # ValueError: the stream object was closed
                self.broken = True
        if self._on_broken is not None:
            self._on_broken()


def fd_writer(fd: int) -> Callable[[bytes], None]:
    """Unbuffered writes to a file descriptor (no Python buffer to flush or to fail at exit)."""
    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    return write


def read_lines(read: Callable[[int], bytes], put: Callable[[Any], None],
               max_line: int = MAX_LINE_BYTES) -> None:
    """Reader thread body: split ``read`` chunks into decoded lines and ``put`` them, then EOF.

    Bytes are decoded as UTF-8 with replacement, so garbage never raises. A line longer than
    ``max_line`` is skipped up to its newline and reported once as ``_TOO_LONG``.
    """
    buffer = bytearray()
    discarding = False
    while True:
        try:
            chunk = read(65536)
        except InterruptedError:
            continue
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            if buffer and not discarding:
                put(bytes(buffer).decode("utf-8", "replace"))
            put(_EOF)
            return
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not discarding:
                    buffer += chunk[start:]
                    if len(buffer) > max_line:
                        buffer.clear()
                        discarding = True
                        put(_TOO_LONG)
                break
            if discarding:
                discarding = False
            else:
                buffer += chunk[start:end]
                if len(buffer) > max_line:
                    put(_TOO_LONG)
                else:
                    put(bytes(buffer).decode("utf-8", "replace"))
            buffer.clear()
            start = end + 1


def _default_searcher(hash_mb: int) -> Any:
    # Imported on first use: `uci` -> `uciok` does not wait for the search modules.
    from engine.search import SearchParams
    from engine.smp import ParallelSearcher
    params, problem = SearchParams.from_environment()
    if problem:
        sys.stderr.write(problem + "\n")  # stderr: not a UCI line, but seen in a match's log
    return ParallelSearcher(hash_mb, params)


def _preload_search_modules() -> None:
    """Import the search modules after ``uciok``, while the GUI sends its options: the first
    ``isready`` was where they were imported, and python-chess sends it inside the first
    ``play``, so its clock paid for them (400 ms of a one-second game on PyPy, 110 ms on
    CPython, on a slow 2-core machine). An import error is left for ``isready`` to report."""
    try:
        import engine.search  # noqa: F401
        import engine.smp  # noqa: F401
    except Exception:  # reported by the first isready, which imports them again
        pass


def _any_legal_move(board: chess.Board) -> Optional[chess.Move]:
    return next(iter(board.legal_moves), None)


def _fallback_move(board: chess.Board) -> Optional[chess.Move]:
    """The search failed before depth 1: the engine's one-ply choice, the first legal move
    only if even that fails (a GUI must get a legal move)."""
    try:
        from engine.search import fallback_move
        return fallback_move(board.copy(stack=False))
    except Exception:
        return _any_legal_move(board)


def _describe(exc: BaseException) -> str:
    return "%s: %s" % (type(exc).__name__, exc) if str(exc) else type(exc).__name__


class _Search:
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
        """``UCI_LimitStrength``: the model that picks the move among the lines, or None."""
        self.stop = threading.Event()
        self.thread: Optional[threading.Thread] = None
        # The fields below are guarded by UciLoop._lock.
        self.hold = limits.infinite or limits.ponder
        """Keep ``bestmove`` back until ``stop``/``ponderhit``."""
        self.result: Optional[SearchResult] = None
        self.emitted = False
        """``bestmove`` was printed (exactly one per ``go``)."""
        self.silent = False
        """``quit`` came: print nothing more for this search."""
        self.ponderhit = threading.Event()
        """Set by ``ponderhit``: the searcher starts its clock when it sees it."""
        self.last_info_nodes = -1


class _Task:
    """A ``go perft`` or ``bench`` on its own thread; ``stop`` ends it early."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stop = threading.Event()
        self.silent = False
        """``quit`` or a signal came: print nothing more."""
        self.thread: Optional[threading.Thread] = None
        self.done = threading.Event()
        """Set by the task thread after its last line, before it wakes the loop (``on_idle``):
        from then on the held commands may run, though the thread may still be alive."""

    def running(self) -> bool:
        return self.thread is not None and not self.done.is_set()


def _join_unless_output_lost(thread: threading.Thread, stop: threading.Event, writer: "Writer") -> None:
    """Wait for ``thread`` to end; set ``stop`` if the output is lost meanwhile (nobody would
    read the rest, and the loop cannot see the loss while it waits here)."""
    while thread.is_alive():
        thread.join(0.05)
        if writer.broken:
            stop.set()


class UciLoop:
    """Runs UCI commands: ``handle_line`` for each input line, ``shutdown`` at the end."""

    def __init__(self, writer: Writer, searcher_factory: Optional[Callable[[int], Any]] = None,
                 options: Optional[Options] = None, rng: Optional[random.Random] = None,
                 on_idle: Optional[Callable[[], None]] = None) -> None:
        self.writer = writer
        self.on_idle = on_idle
        """Called by a perft or bench thread when it ends, so that the caller runs ``run_held``
        (``serve`` wakes its loop with it; in-process tests call ``wait_idle`` instead)."""
        self.options = options if options is not None else Options()
        self.board = chess.Board()
        """Position of the next ``go``; replaced (never mutated) by ``position``."""
        self.position_refused: Optional[str] = None
        """Why the last ``position`` command was refused, until a valid one comes: a ``go``
        then must not answer for ``board`` (the GUI has another position in mind)."""
        self.rng = rng if rng is not None else random.Random()
        """Book picks and ``UCI_LimitStrength`` choices (tests pass a seeded one)."""
        self.debug = False
        self._reported: Set[str] = set()
        """Problems of the environment already written to stderr (each is written once)."""
        self._factory = searcher_factory or _default_searcher
        self._searcher: Any = None
        self._search: Optional[_Search] = None
        self._task: Optional[_Task] = None
        """The running or last ``go perft``/``bench`` (main thread only)."""
        self._held: Deque[Tuple[Command, str]] = deque()
        """Commands that came while a perft or bench ran, in order (main thread only)."""
        self._quitting = False
        """``quit`` came: the held commands run, but no perft or bench starts any more."""
        self._lock = threading.Lock()
        self._searching = False
        """A search thread owns the searcher (guarded by ``_lock``)."""
        self._pending: List[Tuple[str, Callable[[Any], None]]] = []
        """Searcher actions deferred until the running search ends (guarded by ``_lock``)."""
        self._handlers = {
            "uci": self._uci, "debug": self._debug_command, "isready": self._isready,
            "setoption": self._setoption, "register": self._register, "ucinewgame": self._ucinewgame,
            "position": self._position, "go": self._go, "stop": self._stop, "ponderhit": self._ponderhit,
            "quit": self._quit, "bench": self._bench, "d": self._show_board, "eval": self._show_eval,
        }

    # -- plumbing -----------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one output line through the single writer."""
        self.writer.send(line)

    def error(self, message: str) -> None:
        """Report a problem to the GUI: ``info string error: <message>``."""
        self.writer.send("info string error: " + message)

    def _internal(self, exc: BaseException, context: str = "") -> None:
        """A bug, not bad input: traceback to stderr, one ``info string error: internal`` line."""
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        self.error("internal: %s%s" % (context + ": " if context else "", _describe(exc)))

    def _debug(self, message: str) -> None:
        if self.debug:
            self.writer.send("info string debug: " + message)

    def handle_line(self, line: str) -> bool:
        """Run one input line (or hold it while a perft or bench runs); False after ``quit``.
        Never raises: errors become ``info string``."""
        if not self.run_held():
            return False
        try:
            command = parse_command(line)
        except Exception as exc:  # a bug in the parser must not kill the engine
            self._internal(exc)
            return True
        if command is None:
            return True
        if self._task_running() and (command.name not in ANSWERED_DURING_TASKS
                                     or (command.name == "isready" and self._held)):
            self._held.append((command, line))
            return True
        return self._run(command, line)

    def run_held(self) -> bool:
        """Run the commands held while a perft or bench ran, in order, until one starts another
        (the rest stay held); False after ``quit``."""
        while self._held and not self._task_running():
            command, line = self._held.popleft()
            if not self._run(command, line):
                return False
        return True

    def _run(self, command: Command, line: str) -> bool:
        try:
            if command.name is None:
                self.error("unknown command %s" % quote(line.strip()))
                return True
            if command.skipped:
                self.error("unknown token(s) %s before %s ignored" % (quote(" ".join(command.skipped)), command.name))
            return self._handlers[command.name](command) is not False
        except (UciError, OptionError) as exc:
            self.error(str(exc))
        except Exception as exc:  # a bug in a command must not kill the engine
            self._internal(exc)
        return True

    def shutdown(self) -> None:
        """Stop any search without printing its ``bestmove`` (and any perft or bench, dropping
        the commands held behind it) and wait briefly for their threads."""
        self._held.clear()
        self._stop_task(silent=True)
        search = self._search
        with self._lock:
            self._pending.clear()
            if search is not None:
                search.silent = True
        if search is not None:
            search.stop.set()
            if search.thread is not None:
                search.thread.join(QUIT_JOIN_SECONDS)
        close = getattr(self._searcher, "close", None)
        if close is not None:
            try:
                close()  # Threads > 1: stop and join the helper processes
            except Exception:  # exiting anyway: stderr only
                traceback.print_exc(file=sys.stderr)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait for the running search, perft or bench thread to end and run the commands held
        behind a perft or bench (for in-process tests); True if idle."""
        while True:
            for work in (self._task, self._search):
                if work is not None and work.thread is not None:
                    work.thread.join(timeout)
                    if work.thread.is_alive():
                        return False
            if not self._held or not self.run_held():
                return True

    # -- the searcher and deferred actions ----------------------------------------------------

    def _get_searcher(self) -> Any:
        """The searcher, created from the current option values on first use."""
        if self._searcher is None:
            searcher = self._factory(self.options["Hash"])
            for option in self.options.declared:
                if option.apply is not None and option.apply_at_start:
                    option.apply(searcher, self.options.argument(option.name))
            self._searcher = searcher
        return self._searcher

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
            self._debug("%s: applied when the search ends" % label)
        elif self._searcher is not None or always:
            self._run_action(label, action, always)

    def _run_action(self, label: str, action: Callable[[Any], None], always: bool = False) -> None:
        if self._searcher is None and not always:
            return
        try:
            action(self._searcher)
        except Exception as exc:
            self._internal(exc, label)

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

    def _uci(self, command: Command) -> None:
        self.send("id name Pruner %s" % engine.__version__)
        self.send("id author %s" % AUTHOR)
        for line in self.options.uci_lines():
            self.send(line)
        self.send("uciok")
        _preload_search_modules()

    def _debug_command(self, command: Command) -> None:
        if not command.args or command.args[0] not in ("on", "off"):
            raise UciError("debug: expected on or off")
        self.debug = command.args[0] == "on"

    def _isready(self, command: Command) -> None:
        search = self._search
        if search is not None and search.thread is not None:
            with self._lock:
                finished = search.result is not None
            if finished:
                # The search is over; its thread only applies the option changes that came
                # during it (Hash, Threads): readyok once they are done, as UCI asks.
                search.thread.join()
        if not self._searching and self._searcher is None:
            try:  # the first isready is where a GUI expects initialisation to happen
                self._get_searcher()
            except Exception as exc:
                self._internal(exc)
        self.send("readyok")

    def _register(self, command: Command) -> None:
        """Pruner needs no registration: accepted and ignored."""

    def _setoption(self, command: Command) -> None:
        name, text = parse_setoption(command)
        old = self.options.loaded(name) if self.options.lookup(name).load is not None else None
        option = self.options.set(name, text)  # raises OptionError; the old value stands
        self._report_problems(self.options.loaded(option.name) if option.load is not None else None)
        value = self.options[option.name] if option.kind != "button" else None
        note = option.note(value) if option.note is not None else None
        if note:
            self.send("info string " + note)
        self._debug("option %s = %s" % (option.name, value if option.kind != "button" else "(pressed)"))
        if option.apply is not None:
            apply = option.apply
            argument = self.options.argument(option.name)
            self._searcher_action("setoption " + option.name, lambda searcher: apply(searcher, argument))
        if old is not None and hasattr(old, "close"):
            # The replaced book or tables: closed once no search can be using them.
            self._searcher_action("close the old " + option.name, lambda _: old.close(), always=True)

    def _report_problems(self, resource: Any) -> None:
        """Show once what a loaded resource (the tables) could not use, e.g. an unreadable file."""
        take = getattr(resource, "take_problems", None)
        if take is not None:
            for message in take():
                self.error(message)

    def _ucinewgame(self, command: Command) -> None:
        self._searcher_action("ucinewgame", lambda searcher: searcher.new_game())

    def _position(self, command: Command) -> None:
        try:
            self.board = parse_position(command.args, chess960=self.options["UCI_Chess960"])
        except UciError as exc:
            self.position_refused = str(exc)
            raise
        self.position_refused = None
        self._debug("position %s" % self.board.fen())

    def _go(self, command: Command) -> None:
        if command.args[:1] == ["perft"]:
            self._perft(command)
            return
        if self.position_refused is not None:
            # Searching the previous position would answer a move that is illegal in the
            # GUI's: say why and pass instead (a null move, as UCI writes it).
            self._end_search()
            self.error("go: no position to search, the last position command was refused (%s)"
                       % self.position_refused)
            self.send("bestmove 0000")
            return
        board = self.board.copy()
        board.chess960 = self.options["UCI_Chess960"]  # also when the option changed after `position`
        limits, errors = parse_go(command.args, board)
        for message in errors:
            self.error(message)
        # Go while searching: stop the running search (it prints its bestmove), then start.
        self._end_search()
        book_move = self._book_move(board, limits)
        if book_move is not None:
            self.send("info string book move %s" % board.uci(book_move))
            self.send(format_bestmove(board, book_move))
            return
        searcher = None
        try:
            searcher = self._get_searcher()
        except Exception as exc:  # the search thread still answers with a legal move
            self._internal(exc)
        multipv = self.options["MultiPV"]
        strength = None
        if self.options["UCI_LimitStrength"] and not limits.infinite:
            strength, problem = strength_for(self.options["UCI_Elo"])
            if problem and problem not in self._reported:
                self._reported.add(problem)
                sys.stderr.write(problem + "\n")  # stderr, once, as PRUNER_PARAMS's problems
            limits = strength.limits_for(limits)
        self._debug("go %s multipv %d from %s; options %s" % (limits, multipv, board.fen(), self.options.summary()))
        search = _Search(board, limits, multipv, strength, wdl=self.options["UCI_ShowWDL"])
        if strength is not None:
            multipv = max(multipv, strength.multipv)
        with self._lock:
            self._searching = True
            self._search = search
        thread = threading.Thread(target=self._run_search, args=(search, searcher, multipv),
                                  name="pruner-search", daemon=True)
        try:
            thread.start()
            search.thread = thread
        except RuntimeError as exc:  # no thread available: answer at once with a legal move
            self._internal(exc)
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
            self._internal(exc, "book")
            return None
        self._report_problems(book)  # a book changed on disk is left out: said once
        self._debug("book: %s" % (board.uci(move) if move is not None else "no move, searching"))
        return move

    def _stop(self, command: Command) -> None:
        self._stop_task()
        search = self._search
        if search is not None:
            search.stop.set()
            self._release(search, hold=False)

    def _ponderhit(self, command: Command) -> None:
        search = self._search
        if search is None or not search.limits.ponder:
            return
        with self._lock:
            if search.emitted or not search.hold:
                return  # no longer pondering
        search.ponderhit.set()
        self._release(search, hold=search.limits.infinite)

    def _quit(self, command: Command) -> bool:
        """Stop a perft or bench; run the commands held behind it (without starting another
        perft or bench: every ``go`` before ``quit`` still gets its ``bestmove``); stop a
        search and let it print its ``bestmove`` (as Stockfish's ``quit`` does); then exit."""
        self._quitting = True
        self._stop_task(silent=True)
        self.run_held()
        search = self._search
        if search is not None:
            search.stop.set()
            self._release(search, hold=False)
            if search.thread is not None:
                search.thread.join(QUIT_JOIN_SECONDS)
        self.shutdown()
        return False

    def _show_board(self, command: Command) -> None:
        """``d``: the board, its FEN, its Polyglot key and the checking pieces (as Stockfish)."""
        from protocol.uci.display import board_diagram
        for line in board_diagram(self.board):
            self.send(line)

    def _show_eval(self, command: Command) -> None:
        """``eval``: the static evaluation term by term (as Stockfish's classical ``eval``)."""
        from engine.evaluate import breakdown
        from protocol.uci.display import eval_table
        for line in eval_table(breakdown(self.board), in_check=self.board.is_check()):
            self.send(line)

    def finish_at_end_of_input(self) -> None:
        """Input ended: a search bounded by depth, nodes or a clock runs to its end and
        prints its ``bestmove`` (a script that pipes ``go depth 6`` gets depth 6), and so do
        ``go perft`` and ``bench``; an ``infinite``/``ponder`` search, or ``go mate N`` alone
        (endless where there is no mate), is stopped and prints its ``bestmove`` at once, as
        after ``quit``. Stockfish stops every search at end of input (often before depth 1:
        ``bestmove a2a3``); a closed output stops the search too."""
        while True:
            task = self._task
            if task is not None and task.thread is not None:
                _join_unless_output_lost(task.thread, task.stop, self.writer)
            if not self._held or not self.run_held():
                break
        search = self._search
        if search is None or search.thread is None:
            return
        if search.hold or not ends_in_finite_time(search.limits):
            self._end_search()
            return
        _join_unless_output_lost(search.thread, search.stop, self.writer)

    # -- perft and bench ------------------------------------------------------------------------

    def _perft(self, command: Command) -> None:
        """``go perft N``: the count below each move as it is done, then the total, as Stockfish
        prints them (no ``bestmove``). Runs on a task thread: ``stop`` ends it without a total."""
        depth = parse_perft(command.args)
        if self.position_refused is not None:
            raise UciError("go perft: no position, the last position command was refused")
        self._end_search()
        self._start_task("perft", self._run_perft, self.board, depth)

    def _run_perft(self, task: _Task, board: chess.Board, depth: int) -> None:
        from engine.perft import PerftStopped, perft_divide
        total = counted = 0
        try:
            for move, count in perft_divide(board, depth, stop=task.stop):
                self._task_send(task, "%s: %d" % (board.uci(move), count))
                total += count
                counted += 1
        except PerftStopped:
            self._task_send(task, "info string perft stopped: %d of %d moves counted, no total"
                            % (counted, board.legal_moves.count()))
            return
        self._task_send(task, "")
        self._task_send(task, "Nodes searched: %d" % total)
        self._task_send(task, "")

    def _bench(self, command: Command) -> None:
        search = self._search
        if self._searching and search is not None and search.stop.is_set() and search.thread is not None:
            search.thread.join()  # already told to stop: it ends within milliseconds
        if self._searching:
            raise UciError("bench: a search is running; send stop first")
        depth = None
        if command.args:
            try:
                depth = parse_int(command.args[0])
            except ValueError:
                raise UciError("bench: depth must be an integer, got %s" % quote(command.args[0])) from None
            if depth < 1:
                raise UciError("bench: depth must be at least 1")
        self._start_task("bench", self._run_bench, depth)

    def _run_bench(self, task: _Task, depth: Optional[int]) -> None:
        from engine import bench  # on first use, like the search modules
        result = bench.report(depth, partial(self._task_send, task), stop=task.stop)
        if result.stopped:
            self._task_send(task, "info string bench stopped: no totals (a partial count is no signature)")

    def _start_task(self, name: str, body: Callable[..., None], *args: Any) -> None:
        """Run ``body(task, *args)`` on a task thread (the caller made sure none runs); after
        ``quit``, do nothing."""
        if self._quitting:
            return
        task = _Task(name)

        def run() -> None:
            try:
                body(task, *args)
            except Exception as exc:  # a bug must not pass silently, nor kill the engine
                if not task.silent:
                    self._internal(exc, name)
            task.done.set()
            if self.on_idle is not None and threading.current_thread() is task.thread:
                self.on_idle()  # the held commands can run now

        self._task = task
        task.thread = threading.Thread(target=run, name="pruner-" + name, daemon=True)
        try:
            task.thread.start()
        except RuntimeError:  # no thread available: run it here, as before there were tasks
            task.thread = None
            run()

    def _task_send(self, task: _Task, line: str) -> None:
        if not task.silent:
            self.send(line)

    def _task_running(self) -> bool:
        return self._task is not None and self._task.running()

    def _stop_task(self, silent: bool = False) -> None:
        """``stop``/``quit``: end a running perft or bench (``silent``: without its last lines)."""
        task = self._task
        if task is None or not task.running():
            return
        task.silent = task.silent or silent
        task.stop.set()
        task.thread.join(QUIT_JOIN_SECONDS if silent else None)

    # -- the search thread --------------------------------------------------------------------

    def _end_search(self) -> None:
        """Stop the current search, let it print its bestmove, and join its thread."""
        search = self._search
        if search is None:
            return
        search.stop.set()
        self._release(search, hold=False)
        if search.thread is not None:
            search.thread.join()

    def _release(self, search: _Search, hold: bool) -> None:
        """``stop``/``ponderhit``: print a held ``bestmove`` now, or let the search print it."""
        with self._lock:
            search.hold = hold
            if not hold and search.result is not None:
                self._emit(search)

    def _run_search(self, search: _Search, searcher: Any, multipv: int) -> None:
        """Search thread body: search, guarantee a legal move, print or hold ``bestmove``."""
        try:
            try:
                if searcher is None:
                    raise RuntimeError("no searcher")
                # A limited search runs the search its calibration measured (engine.strength).
                params = calibrated_params() if search.strength is not None else None
                result = searcher.search(search.board, search.limits, stop=search.stop, multipv=multipv,
                                         on_info=partial(self._on_info, search), ponderhit=search.ponderhit,
                                         on_progress=partial(self._on_progress, search), params=params)
                self._report_problems(getattr(searcher, "tablebases", None))
                if result.error is not None and not search.silent:
                    # The search failed but answers with its last completed iteration.
                    self._internal(result.error, "search stopped at depth %d" % result.depth)
                if search.strength is not None:
                    result = self._weaker_choice(search, result)
                result = self._legal_result(search, result)
            except Exception as exc:
                if not search.silent:
                    self._internal(exc)
                result = SearchResult(_fallback_move(search.board))
            if result.best_move is None and not search.silent:
                self.send(format_no_moves(search.board))
            with self._lock:
                search.result = result
                if not search.hold:
                    self._emit(search)
        finally:
            self._drain_pending()  # also hands the searcher back to the main thread

    def _weaker_choice(self, search: _Search, result: SearchResult) -> SearchResult:
        """``UCI_LimitStrength``: play the line the strength model picks instead of the best."""
        chosen = search.strength.choose(result.lines, self.rng)
        if chosen is None or not chosen.pv or chosen.pv[0] == result.best_move:
            return result
        return replace(result, best_move=chosen.pv[0], ponder_move=chosen.pv[1] if len(chosen.pv) > 1 else None)

    def _on_info(self, search: _Search, info: SearchInfo) -> None:
        """Search callback: one ``info`` line per PV of each completed iteration."""
        with self._lock:
            silent = search.silent
        if silent:
            return
        if info.multipv <= search.shown:  # extra lines of a weakened search stay hidden
            try:
                line = format_info(search.board, info, wdl=search.wdl)
            except Exception as exc:  # a bad report must not abort the search
                self._internal(exc, "info")
                return
            self.send(line)
        search.last_info_nodes = info.nodes

    def _on_progress(self, search: _Search, progress: SearchProgress) -> None:
        """Search callback from inside a long iteration (after its first second): the root move
        being searched (``currmove``), or the nodes and time so far, so a GUI's counters move."""
        with self._lock:
            silent = search.silent
        if silent:
            return
        try:
            line = format_search_progress(search.board, progress)
        except Exception as exc:  # a bad report must not abort the search
            self._internal(exc, "info")
            return
        self.send(line)

    def _legal_result(self, search: _Search, result: SearchResult) -> SearchResult:
        """The GUI must never see an illegal move: replace one (and report it as a bug)."""
        board = search.board
        best = result.best_move
        if best is None or not board.is_legal(best):
            fallback = _fallback_move(board)
            if fallback is None:
                return replace(result, best_move=None, ponder_move=None)
            if not search.silent:
                self.error("internal: search returned %s; playing %s" % (best and best.uci() or "no move", fallback.uci()))
            return replace(result, best_move=fallback, ponder_move=None)
        ponder = result.ponder_move
        if ponder is not None:
            board.push(best)
            if not board.is_legal(ponder):
                ponder = None
            board.pop()
        return replace(result, ponder_move=ponder)

    def _emit(self, search: _Search) -> None:
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
            self._internal(exc, "info")
        self.send(format_bestmove(board, result.best_move, result.ponder_move))


class Terminated(BaseException):
    """SIGTERM arrived: leave the command loop the way Ctrl-C does (not an ``Exception``, so no
    command handler can swallow it)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM kills at once
    raise Terminated


def serve(in_fd: int = 0, out_fd: int = 1, searcher_factory: Optional[Callable[[int], Any]] = None) -> int:
    """Run the UCI protocol on file descriptors until ``quit`` or EOF; the exit status.

    0 after ``quit`` or end of input, 1 when the output was closed, 130 on Ctrl-C, 143 on
    SIGTERM (any search is stopped without a ``bestmove``; output ends with a whole line).
    """
    events: "queue.Queue[Any]" = queue.Queue()
    writer = Writer(fd_writer(out_fd), on_broken=lambda: events.put(_BROKEN))
    loop = UciLoop(writer, searcher_factory, on_idle=lambda: events.put(_IDLE))
    # The reader is a daemon reading the raw descriptor: at exit it may still sit in os.read,
    # which holds no Python-level lock (a blocked sys.stdin.readline would).
    reader = threading.Thread(target=read_lines, args=(partial(os.read, in_fd), events.put),
                              name="pruner-reader", daemon=True)
    reader.start()
    previous = None
    if threading.current_thread() is threading.main_thread():  # handlers can only be set there
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    status = 0
    try:
        while True:
            item = events.get()
            if item is _EOF:
                loop.finish_at_end_of_input()
                break
            if item is _BROKEN:
                status = 1
                break
            if item is _TOO_LONG:
                loop.error("input line longer than %d bytes ignored" % MAX_LINE_BYTES)
                continue
            if item is _IDLE:
                if not loop.run_held():
                    break
                continue
            if not loop.handle_line(item):
                break
    except KeyboardInterrupt:
        status = 130
    except Terminated:
        status = 143
    try:
        loop.shutdown()
    except Terminated:  # SIGTERM while shutting down after quit or end of input
        status = 143
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)
    return status
