"""The engine state without the command loop: driven with parsed values (boards, ``Limits``),
no line of text, no process (the split of issue 46: the loop only parses and dispatches)."""

import chess

from pruner.engine.types import Limits
from loop_helpers import WAIT, FakeSearcher, Output, first_legal
from pruner.uci.engine_state import EngineState
from pruner.uci.output import Writer


def make_state(**searcher_args):
    output = Output()
    searchers = []
    state = EngineState(Writer(output.write), lambda mb: searchers.append(FakeSearcher(mb, **searcher_args))
                        or searchers[0])
    return state, output, searchers


def test_a_held_search_answers_on_stop_and_quit_answers_a_running_one():
    state, output, searchers = make_state(block=True)
    state.ready()
    state.go(chess.Board(), Limits(infinite=True))
    assert searchers[0].searching.wait(WAIT)
    assert output.count("bestmove") == 0
    state.stop()
    assert state.wait_threads(WAIT)
    assert output.with_prefix("bestmove") == ["bestmove " + first_legal()]
    after = chess.Board()
    after.push_uci("e2e4")
    state.set_position(after)
    state.go(state.position_to_search(), Limits(infinite=True))
    state.begin_quit()
    state.quit()
    assert output.with_prefix("bestmove")[1:] == ["bestmove " + first_legal("e2e4")]
    assert output.lines[0] == "readyok"


def test_a_refused_position_passes_and_options_reach_the_searcher():
    state, output, searchers = make_state()
    state.set_option("Move Overhead", "250")
    state.ready()
    assert searchers[0].move_overhead_ms == 250
    state.refuse_position("illegal move")
    assert state.position_to_search() is None
    state.pass_without_position()
    assert output.lines[-2:] == [
        "info string error: go: no position to search, the last position command was refused (illegal move)",
        "bestmove 0000"]
    state.shutdown()
