"""The UCI server's command loop: a stdin reader thread, line parsing and dispatch.

Threads and who owns what:

* The reader thread only turns stdin bytes into lines on a queue (it never blocks anyone).
* The main thread takes lines off the queue, parses each (protocol/uci/wire.py) and calls one
  method of the ``EngineState`` (protocol/uci/engine_state.py), which owns the position and the
  options and composes the parts that own the searcher, the search and task threads and the
  ``bestmove`` hand-off; so
  ``isready`` is answered at once even while a search runs. This module holds no engine state
  (as Stockfish's ``uci.cpp`` parses and dispatches, its ``engine.cpp`` keeps the state).
* While ``go perft`` or ``bench`` runs on its task thread, ``isready`` is answered and
  ``stop``/``quit`` end it; every other command is held and run in order when it ends, as
  Stockfish runs commands after its perft (a script's ``go perft 5`` then ``go perft 4``
  prints both counts); an ``isready`` behind held commands is held with them, so ``readyok``
  still means they are done; a ``stop`` behind held commands ends the task and is held too,
  so that a held ``go`` before it is stopped in its turn. The task thread calls ``on_idle`` when it ends, and ``serve``
  then runs the held commands. Commands held when ``quit`` comes still run (each ``go`` gets
  its ``bestmove``), but no other perft or bench starts.
* ``Writer`` (protocol/uci/output.py) is the only code that writes to stdout.
"""

import os
import queue
import random
import signal
import sys
import threading
from collections import deque
from functools import partial
from typing import Any, Callable, Deque, Optional, Tuple

from pruner import engine
from pruner import interpreter
from pruner.uci.engine_state import EngineState
from pruner.uci.options import OptionError, Options
from pruner.uci.output import Writer, fd_writer
from pruner.uci.searcher_owner import preload_search_modules
from pruner.signals import is_ignored
from pruner.uci.wire import (Command, UciError, parse_bench, parse_command, parse_go, parse_perft,
                               parse_position_line, parse_setoption, quote)

AUTHOR = "The Pruner developers"

MAX_LINE_BYTES = 4 << 20
"""Longer input lines are dropped unread (with an error) so memory stays bounded; a real
``position ... moves`` line of the longest possible game is under 100 kB."""

ANSWERED_DURING_TASKS = frozenset(["isready", "stop", "quit"])
"""Commands run at once while ``go perft`` or ``bench`` runs; the others are held until it ends."""

_EOF = object()
_BROKEN = object()
_TOO_LONG = object()
_IDLE = object()


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


class UciLoop:
    """Runs UCI commands: ``handle_line`` for each input line, ``shutdown`` at the end. Each
    command's arguments are parsed here and handed to ``state``, the ``EngineState``."""

    def __init__(self, writer: Writer, searcher_factory: Optional[Callable[[int], Any]] = None,
                 options: Optional[Options] = None, rng: Optional[random.Random] = None,
                 on_idle: Optional[Callable[[], None]] = None) -> None:
        self.writer = writer
        self.state = EngineState(writer, searcher_factory, options, rng, on_idle)
        """What the commands act on (position, options, searcher, searches, perft, bench)."""
        self._held: Deque[Tuple[Command, str]] = deque()
        """Commands that came while a perft or bench ran, in order."""
        self._evaluation_reported = False
        """The unusable shipped net was named on stderr (once a process, however many ``uci``)."""
        self._handlers = {
            "uci": self._uci, "debug": self._debug, "isready": self._isready,
            "setoption": self._setoption, "register": self._register, "ucinewgame": self._ucinewgame,
            "position": self._position, "go": self._go, "stop": self._stop, "ponderhit": self._ponderhit,
            "quit": self._quit, "bench": self._bench, "d": self._show_board, "eval": self._show_eval,
        }

    def handle_line(self, line: str) -> bool:
        """Run one input line (or hold it while a perft or bench runs); False after ``quit``.
        Never raises: errors become ``info string``."""
        if not self.run_held():
            return False
        try:
            command = parse_command(line)
        except Exception as exc:  # a bug in the parser must not kill the engine
            self.writer.internal(exc)
            return True
        if command is None:
            return True
        if self.state.tasks.running() and (command.name not in ANSWERED_DURING_TASKS
                                           or (command.name == "isready" and self._held)):
            self._held.append((command, line))
            return True
        if command.name == "stop" and self._held and self.state.tasks.running():
            # It ends the perft or bench now, and is held too: a `go` held before it must be
            # stopped as well, or `go perft 1`, `go`, `stop` read while the perft still runs
            # would leave an endless search nobody stops (as the stream's order says).
            self._held.append((command, line))
        return self._run(command, line)

    def run_held(self) -> bool:
        """Run the commands held while a perft or bench ran, in order, until one starts another
        (the rest stay held); False after ``quit``."""
        while self._held and not self.state.tasks.running():
            command, line = self._held.popleft()
            if not self._run(command, line):
                return False
        return True

    def _run(self, command: Command, line: str) -> bool:
        try:
            if command.name is None:
                self.writer.error("unknown command %s" % quote(line.strip()))
                return True
            if command.skipped:
                self.writer.error("unknown token(s) %s before %s ignored"
                                  % (quote(" ".join(command.skipped)), command.name))
            return self._handlers[command.name](command) is not False
        except (UciError, OptionError) as exc:
            self.writer.error(str(exc))
        except Exception as exc:  # a bug in a command must not kill the engine
            self.writer.internal(exc)
        return True

    def shutdown(self) -> None:
        """Stop any search without printing its ``bestmove`` (and any perft or bench, dropping
        the commands held behind it) and wait briefly for their threads."""
        self._held.clear()
        self.state.shutdown()

    def wait_idle(self, timeout: Optional[float] = None, search: bool = True) -> bool:
        """Wait for the running perft or bench thread and (with ``search``; a search may be
        endless) the search thread to end and run the commands held behind a perft or bench
        (for in-process tests); True if idle."""
        while True:
            if not self.state.wait_threads(timeout, search):
                return False
            if not self._held or not self.run_held():
                return True

    def finish_at_end_of_input(self) -> None:
        """Input ended: a perft or bench runs to its end, and so do the commands held behind it;
        then the search ends as ``EngineState.finish_search`` says (a bounded one runs to its
        end, an endless one is stopped and answers)."""
        while True:
            self.state.wait_for_task()
            if not self._held or not self.run_held():
                break
        self.state.finish_search()

    # -- commands -----------------------------------------------------------------------------

    def _uci(self, command: Command) -> None:
        self.writer.send("id name Pruner %s" % engine.__version__)
        self.writer.send("id author %s" % AUTHOR)
        self.writer.send("info string " + interpreter.describe())  # before uciok: python-chess warns of lines after it
        self._report_evaluation()
        for line in self.state.options.uci_lines():
            self.writer.send(line)
        self.writer.send("uciok")
        preload_search_modules()

    def _report_evaluation(self) -> None:
        """Which evaluation runs, as an ``info string`` (as Stockfish names its net; it does so at
        ``go``, Pruner before ``uciok``, where a GUI's log shows it first); a shipped net that
        cannot be used is also named on stderr, once a process, with the reason."""
        # Imported here, not after uciok: it loads the net (40-50 ms of CPU on CPython).
        from pruner.engine.evaluate import net_problem
        evaluator = self.state.evaluator()  # EvalFile's once it is set
        line = evaluator.describe()
        self.writer.send("info string " + line)
        if evaluator.net is None and evaluator.evalfile == "" and net_problem() is not None \
                and not self._evaluation_reported:
            self._evaluation_reported = True
            sys.stderr.write("pruner: %s\n" % line)  # stderr too: a match's log keeps it
            sys.stderr.flush()

    def _debug(self, command: Command) -> None:
        if not command.args or command.args[0] not in ("on", "off"):
            raise UciError("debug: expected on or off")
        self.state.debug = command.args[0] == "on"

    def _isready(self, command: Command) -> None:
        self.state.ready()

    def _register(self, command: Command) -> None:
        """Pruner needs no registration: accepted and ignored."""

    def _setoption(self, command: Command) -> None:
        self.state.set_option(*parse_setoption(command))

    def _ucinewgame(self, command: Command) -> None:
        self.state.new_game()

    def _position(self, command: Command) -> None:
        try:
            line = parse_position_line(command.args, chess960=self.state.options["UCI_Chess960"],
                                       previous=self.state.line)
        except Exception as exc:  # also a bug: the next go must not answer for the old position
            self.state.refuse_position(str(exc))
            raise
        self.state.set_position(line.board, line)

    def _go(self, command: Command) -> None:
        if command.args[:1] == ["perft"]:
            self.state.perft(parse_perft(command.args))
            return
        board = self.state.position_to_search()
        if board is None:
            self.state.pass_without_position()
            return
        limits, errors = parse_go(command.args, board)
        for message in errors:
            self.writer.error(message)
        self.state.go(board, limits)

    def _stop(self, command: Command) -> None:
        self.state.stop()

    def _ponderhit(self, command: Command) -> None:
        self.state.ponderhit()

    def _quit(self, command: Command) -> bool:
        """End a perft or bench, run the commands held behind it, stop the search (it prints
        its ``bestmove``, as Stockfish's does) and end the loop."""
        self.state.begin_quit()
        self.run_held()
        self.state.quit()
        return False

    def _bench(self, command: Command) -> None:
        self.state.bench(parse_bench(command.args))

    def _show_board(self, command: Command) -> None:
        """``d``: the board, its FEN, its Polyglot key and the checking pieces (as Stockfish)."""
        from pruner.uci.display import board_diagram
        for line in board_diagram(self.state.board):
            self.writer.send(line)

    def _show_eval(self, command: Command) -> None:
        """``eval``: the static evaluation term by term (as Stockfish's classical ``eval``), with
        the net ``EvalFile`` chose."""
        from pruner.uci.display import eval_table
        board = self.state.board
        for line in eval_table(self.state.evaluator().breakdown(board), in_check=board.is_check()):
            self.writer.send(line)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: leave the command loop the way Ctrl-C does (not an
    ``Exception``, so no command handler can swallow it); the status is 128 + ``signum``."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__()
        self.signum = signum


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""SIGTERM, and SIGHUP (the terminal closed; Windows has none): each ends the server cleanly.
Left at its default, SIGHUP would kill it in the middle of a line."""


def _on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signum, signal.SIG_DFL)  # a second one kills at once
    raise Terminated(signum)


def serve(in_fd: int = 0, out_fd: int = 1, searcher_factory: Optional[Callable[[int], Any]] = None) -> int:
    """Run the UCI protocol on file descriptors until ``quit`` or EOF; the exit status.

    0 after ``quit`` or end of input, 1 when the output was closed, 130 on Ctrl-C, 143 on
    SIGTERM, 129 on SIGHUP unless it is ignored (``nohup``) (any search is stopped without a
    ``bestmove``; output ends with a whole line).
    """
    events: "queue.Queue[Any]" = queue.Queue()
    writer = Writer(fd_writer(out_fd), on_broken=lambda: events.put(_BROKEN))
    loop = UciLoop(writer, searcher_factory, on_idle=lambda: events.put(_IDLE))
    # The reader is a daemon reading the raw descriptor: at exit it may still sit in os.read,
    # which holds no Python-level lock (a blocked sys.stdin.readline would).
    reader = threading.Thread(target=read_lines, args=(partial(os.read, in_fd), events.put),
                              name="pruner-reader", daemon=True)
    reader.start()
    previous = {}
    if threading.current_thread() is threading.main_thread():  # handlers can only be set there
        previous = {number: signal.signal(number, _on_sigterm) for number in STOP_SIGNALS
                    if number == signal.SIGTERM or not is_ignored(number)}
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
                loop.writer.error("input line longer than %d bytes ignored" % MAX_LINE_BYTES)
                continue
            if item is _IDLE:
                if not loop.run_held():
                    break
                continue
            if not loop.handle_line(item):
                break
    except KeyboardInterrupt:
        status = 130
    except Terminated as exc:
        status = 128 + exc.signum
    try:
        loop.shutdown()
    except Terminated as exc:  # SIGTERM or SIGHUP while shutting down after quit or end of input
        status = 128 + exc.signum
    for number, handler in previous.items():
        signal.signal(number, handler)
    return status
