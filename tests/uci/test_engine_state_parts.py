"""The parts of the engine state on their own (issue 53, item 4): the search thread and its
``bestmove`` hand-off run with a searcher owner and no options, position or loop; the book
and strength part answers from the option values alone."""

import random

import chess

from pruner.engine.types import Limits
from loop_helpers import WAIT, FakeSearcher, Output, first_legal
from pruner.uci.book_and_strength import BookAndStrength
from pruner.uci.options import Options
from pruner.uci.output import Writer
from pruner.uci.search_thread import Search, SearchRunner
from pruner.uci.searcher_owner import SearcherOwner


def make_runner():
    output = Output()
    writer = Writer(output.write)
    owner = SearcherOwner(writer, Options(), FakeSearcher, lambda message: None)
    return SearchRunner(writer, owner, lambda message: None), owner, output


def test_the_search_thread_holds_an_infinite_bestmove_until_stop_then_hands_the_searcher_back():
    runner, owner, output = make_runner()
    searcher = owner.get()
    searcher.block = True
    runner.start(Search(chess.Board(), Limits(infinite=True)), searcher, 1)
    assert searcher.searching.wait(WAIT)
    owner.act("ucinewgame", lambda held: held.new_game())  # the search thread owns the searcher
    assert ("new_game",) not in searcher.calls
    runner.stop()
    runner.search.thread.join(WAIT)
    assert not runner.search.thread.is_alive()
    assert output.with_prefix("bestmove") == ["bestmove " + first_legal()]
    assert searcher.calls[-1] == ("new_game",) and not owner.searching
    runner.stop()  # a second stop prints no second bestmove
    assert output.count("bestmove") == 1


def test_without_a_searcher_the_search_thread_still_answers_a_legal_move():
    runner, owner, output = make_runner()
    runner.start(Search(chess.Board(), Limits(depth=1)), None, 1)
    runner.end(WAIT)
    assert output.with_prefix("bestmove")[-1].split()[1] in {move.uci() for move in chess.Board().legal_moves}
    assert any("internal: RuntimeError: no searcher" in line for line in output.lines)


def test_strength_and_human_time_come_from_the_options_and_analysis_is_never_weakened():
    options = Options()
    part = BookAndStrength(Writer(Output().write), options, lambda message: None)
    assert part.strength(Limits(depth=5)) is None  # full strength by default
    options.set("UCI_LimitStrength", "true")
    assert part.strength(Limits(depth=5)) is not None
    assert part.strength(Limits(infinite=True)) is None
    clock = Limits(wtime=60000, btime=60000)
    assert part.human_ms(clock, chess.WHITE) > 0  # Human Time is on by default
    options.set("Human Time", "false")
    assert part.human_ms(clock, chess.WHITE) == 0
    assert part.book_move(chess.Board(), Limits(depth=5), random.Random(1)) is None  # no book loaded
