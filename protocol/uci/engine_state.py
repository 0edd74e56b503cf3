"""The engine behind the UCI loop: the position and the options, and the one object the loop
talks to, which composes the other parts.

The loop (protocol/uci/loop.py) parses each line and calls one method here with parsed
values; this module never reads input (Stockfish keeps ``uci.cpp`` apart from ``engine.cpp``
the same way). It prints through the one ``Writer``. The parts, one concern each:

* protocol/uci/searcher_owner.py: the searcher, made on first use, and the actions on it
  that wait while a search thread owns it;
* protocol/uci/search_thread.py: one search thread per ``go`` and its ``bestmove`` hand-off;
* protocol/uci/book_and_strength.py: the book move and the limited strength of a ``go``;
* protocol/uci/scheduling.py: ``go perft``/``bench`` beside the search, ``quit``, the end of
  input and the shutdown.

The loop's thread calls every method. It owns ``board`` and the option values.
"""

import random
from typing import Any, Callable, Optional

import chess

from pruner.engine.types import Limits
from pruner.uci.book_and_strength import BookAndStrength
from pruner.uci.game_line import GameLine
from pruner.uci.options import Options
from pruner.uci.output import Writer, report_problems
from pruner.uci.scheduling import Scheduler
from pruner.uci.search_thread import Search, SearchRunner
from pruner.uci.searcher_owner import SearcherOwner, default_searcher
from pruner.uci.tasks import Tasks
from pruner.uci.wire import UciError, format_bestmove


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
        self.owner = SearcherOwner(writer, self.options, searcher_factory or default_searcher, self.debug_line)
        self.searches = SearchRunner(writer, self.owner, self.debug_line)
        self.book_and_strength = BookAndStrength(writer, self.options, self.debug_line)
        self.scheduler = Scheduler(writer, self.tasks, self.searches, self.owner)

    @property
    def searcher(self) -> Any:
        """The searcher, or None until its first use (``isready`` or ``go``)."""
        return self.owner.searcher

    @property
    def search(self) -> Optional[Search]:
        """The running or last search."""
        return self.searches.search

    @property
    def human_wait(self) -> Callable[[Any, float], None]:
        """How the search thread waits out ``Human Time`` (tests put a recorder here)."""
        return self.searches.human_wait

    @human_wait.setter
    def human_wait(self, wait: Callable[[Any, float], None]) -> None:
        self.searches.human_wait = wait

    # -- output -------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one output line through the single writer."""
        self.writer.send(line)

    def debug_line(self, message: str) -> None:
        """``info string debug: <message>`` when ``debug`` is on."""
        if self.debug:
            self.writer.send("info string debug: " + message)

    def evaluator(self) -> Any:
        """The evaluation ``eval`` shows and ``uci`` names: the one ``EvalFile`` chose, or until
        it is set the engine's own (``pruner.engine.evaluate.DEFAULT``: engine/weights.py and the
        shipped net). Imported on first use: it loads the shipped net."""
        choice = self.options.loaded("EvalFile")
        if choice is not None:
            return choice.evaluator
        from pruner.engine.evaluate import DEFAULT
        return DEFAULT

    # -- options and position -----------------------------------------------------------------

    def ready(self) -> None:
        """``isready``: create the searcher if none exists, let the option changes queued during
        a finished search be applied, then ``readyok`` (at once during a search)."""
        self.searches.join_if_finished()
        if not self.owner.searching and self.owner.searcher is None:
            try:  # the first isready is where a GUI expects initialisation to happen
                self.owner.get()
            except Exception as exc:
                self.writer.internal(exc)
        self.send("readyok")

    def set_option(self, name: str, text: Optional[str]) -> None:
        """``setoption``: validate (and load) the value, say what a value means when it needs
        saying, push it into the searcher now or after the search. Raises ``OptionError``; the
        old value stands."""
        old = self.options.loaded(name) if self.options.lookup(name).load is not None else None
        option = self.options.set(name, text)
        report_problems(self.writer, self.options.loaded(option.name) if option.load is not None else None)
        value = self.options[option.name] if option.kind != "button" else None
        note = option.note(self.options.argument(option.name)) if option.note is not None else None
        if note:
            self.send("info string " + note)
        self.debug_line("option %s = %s" % (option.name, value if option.kind != "button" else "(pressed)"))
        if option.apply is not None:
            apply = option.apply
            argument = self.options.argument(option.name)
            self.owner.act("setoption " + option.name, lambda searcher: apply(searcher, argument))
        if old is not None and hasattr(old, "close"):
            # The replaced book or tables: closed once no search can be using them.
            self.owner.act("close the old " + option.name, lambda _: old.close(), always=True)

    def new_game(self) -> None:
        """``ucinewgame``: clear the searcher's tables (after the running search)."""
        self.owner.act("ucinewgame", lambda searcher: searcher.new_game())

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

    # -- go and its answers -------------------------------------------------------------------

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
        book_move = self.book_and_strength.book_move(board, limits, self.rng)
        if book_move is not None:
            self.send("info string book move %s" % board.uci(book_move))
            self.send(format_bestmove(board, book_move))
            return
        searcher = None
        try:
            searcher = self.owner.get()
        except Exception as exc:  # the search thread still answers with a legal move
            self.writer.internal(exc)
        multipv = self.options["MultiPV"]
        strength = self.book_and_strength.strength(limits)
        searched = strength.limits_for(limits) if strength is not None else limits
        if self.debug:  # formatted only when shown: the FEN alone was a tenth of a short go on PyPy
            self.debug_line("go %s multipv %d from %s; options %s"
                            % (searched, multipv, board.fen(), self.options.summary()))
        search = Search(board, searched, multipv, strength, wdl=self.options["UCI_ShowWDL"], rng=self.rng)
        if strength is not None:
            multipv = max(multipv, strength.multipv)
            search.human_ms = self.book_and_strength.human_ms(limits, board.turn)
        self.searches.start(search, searcher, multipv)

    def stop(self) -> None:
        """``stop``: end a perft or bench, or stop the search and release its ``bestmove``."""
        self.tasks.stop()
        self.searches.stop()

    def ponderhit(self) -> None:
        """``ponderhit``: the ponder search becomes a normal one (its clock starts)."""
        self.searches.ponderhit()

    def end_search(self) -> None:
        """Stop the current search, let it print its bestmove, and join its thread."""
        self.searches.end()

    # -- perft, bench and the end -------------------------------------------------------------

    def perft(self, depth: int) -> None:
        """``go perft N`` on a task thread (a running search is stopped first)."""
        if self.position_refused is not None:
            raise UciError("go perft: no position, the last position command was refused")
        self.scheduler.perft(self.board, depth)

    def bench(self, depth: Optional[int]) -> None:
        """``bench [depth]`` on a task thread; refused while a search runs."""
        self.scheduler.bench(depth)

    def begin_quit(self) -> None:
        """``quit``, first step: end a perft or bench silently; none starts any more."""
        self.scheduler.begin_quit()

    def quit(self) -> None:
        """``quit``, last step: stop the search and let it print its ``bestmove``, then shut down."""
        self.scheduler.quit()

    def shutdown(self) -> None:
        """Stop any search without printing its ``bestmove`` (and any perft or bench); close the searcher."""
        self.scheduler.shutdown()

    def wait_threads(self, timeout: Optional[float] = None, search: bool = True) -> bool:
        """Wait for the running perft, bench or (with ``search``) search thread; True if none runs."""
        return self.scheduler.wait_threads(timeout, search)

    def wait_for_task(self) -> None:
        """End of input: let a perft or bench finish (a closed output stops it)."""
        self.scheduler.wait_for_task()

    def finish_search(self) -> None:
        """End of input: a bounded search runs to its end, an endless one is stopped and answers."""
        self.scheduler.finish_search()
