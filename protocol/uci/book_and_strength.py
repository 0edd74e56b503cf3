"""How a ``go`` may play other than the search's best move: the opening book and the limited
strength.

A ``go`` answered from the book (``OwnBook``) prints ``bestmove`` at once from the loop's
thread, without a search thread. With ``UCI_LimitStrength`` (or a ``Skill Level`` below 20)
the search runs with the strength model's limits and lines, the search thread replaces the
best move by the model's choice (``weaker_choice``), and on a clock holds it back until the
move has taken a human-like time (``Human Time``; protocol/uci/search_thread.py waits).
Analysis (``go infinite``) is never weakened.
"""

import random
import sys
from dataclasses import replace
from typing import Callable, Optional, Set

import chess

from pruner.engine.strength import StrengthLimit, strength_for_options
from pruner.engine.timeman import human_time
from pruner.engine.types import Limits, SearchResult
from pruner.uci.options import Options
from pruner.uci.output import Writer, report_problems


class BookAndStrength:
    """The book move and the strength model of a ``go``, from the current option values."""

    def __init__(self, writer: Writer, options: Options, debug_line: Callable[[str], None]) -> None:
        self.writer = writer
        self.options = options
        self.debug_line = debug_line
        self._reported: Set[str] = set()
        """Problems of the environment already written to stderr (each is written once)."""

    def book_move(self, board: chess.Board, limits: Limits, rng: random.Random) -> Optional[chess.Move]:
        """``OwnBook``: a book move for a ``go`` that asks to play (not ``infinite``, ``ponder``,
        ``mate`` or ``searchmoves``), or None to search."""
        if not self.options["OwnBook"] or limits.infinite or limits.ponder or limits.mate is not None \
                or limits.searchmoves:
            return None
        book = self.options.loaded("BookFile")
        if book is None:
            return None
        try:
            move = book.pick(board, rng)
        except Exception as exc:  # a damaged book must not cost the move: search instead
            self.writer.internal(exc, "book")
            return None
        report_problems(self.writer, book)  # a book changed on disk is left out: said once
        self.debug_line("book: %s" % (board.uci(move) if move is not None else "no move, searching"))
        return move

    def strength(self, limits: Limits) -> Optional[StrengthLimit]:
        """The strength model a ``go`` with ``limits`` plays by, or None (full strength)."""
        if limits.infinite:  # analysis is never weakened
            return None
        strength, problem = strength_for_options(self.options["UCI_LimitStrength"], self.options["UCI_Elo"],
                                                 self.options["Skill Level"])
        if problem and problem not in self._reported:
            self._reported.add(problem)
            sys.stderr.write(problem + "\n")  # stderr, once, as PRUNER_PARAMS's problems
        return strength

    def human_ms(self, asked: Limits, turn: chess.Color) -> int:
        """``Human Time``: milliseconds a weakened move should take in all, 0 for no wait. From
        the GUI's ``go`` (``asked``): its depth, nodes, movetime... mean no wait."""
        if not self.options["Human Time"]:
            return 0
        return human_time(asked, turn, self.options["Move Overhead"])


def weaker_choice(strength: StrengthLimit, result: SearchResult, rng: random.Random) -> SearchResult:
    """A limited strength: play the line the strength model picks instead of the best."""
    chosen = strength.choose(result.lines, rng)
    if chosen is None or not chosen.pv or chosen.pv[0] == result.best_move:
        return result
    return replace(result, best_move=chosen.pv[0], ponder_move=chosen.pv[1] if len(chosen.pv) > 1 else None)
