"""UCI_LimitStrength / UCI_Elo: the strength model (engine/strength.py) and its use by the loop."""

import random
import re

import chess
import pytest

from engine import bench
from engine.search import Searcher
from engine.strength import MODEL, StrengthLimit
from engine.types import MATE, Limits, SearchInfo
from protocol.loop import UciLoop, Writer
from test_uci_parse import WAIT, Output, make_loop, run

POSITIONS = bench.POSITIONS[:20]


def line(rank, score, move, depth=4):
    return SearchInfo(depth=depth, seldepth=depth, score=score, nodes=1, time_ms=1,
                      pv=[chess.Move.from_uci(move)], multipv=rank)


def test_model_gets_stronger_with_elo_and_clamps_the_range():
    weak, mid, strong = StrengthLimit(MODEL.min_elo), StrengthLimit(1400), StrengthLimit(MODEL.max_elo)
    assert weak.nodes == MODEL.nodes_at_min and strong.nodes == MODEL.nodes_at_max
    assert weak.nodes < mid.nodes < strong.nodes
    assert weak.temperature > mid.temperature > strong.temperature
    assert weak.max_loss > mid.max_loss > strong.max_loss
    assert StrengthLimit(100).elo == MODEL.min_elo and StrengthLimit(9999).elo == MODEL.max_elo
    assert weak.limits_for(Limits(depth=5)).nodes == weak.nodes
    assert weak.limits_for(Limits(nodes=10)).nodes == 10  # a smaller node limit stands
    assert weak.limits_for(Limits(wtime=1000)).wtime == 1000


def test_choose_respects_the_loss_bound_mates_and_shallow_searches():
    weak = StrengthLimit(MODEL.min_elo)
    rng = random.Random(3)
    lines = [line(1, 50, "e2e4"), line(2, 40, "d2d4"), line(3, 30, "g1f3"), line(4, 50 - weak.max_loss - 1, "g2g4")]
    picks = [weak.choose(lines, rng).pv[0].uci() for _ in range(300)]
    assert set(picks) == {"e2e4", "d2d4", "g1f3"}  # never the line beyond max_loss
    assert picks.count("e2e4") > picks.count("g1f3")  # softmax: the better, the likelier
    # A mate found is always played; a line walking into a mate never is.
    mating = [line(1, MATE - 3, "e2e4"), line(2, 45, "d2d4")]
    assert all(weak.choose(mating, rng).pv[0].uci() == "e2e4" for _ in range(50))
    into_mate = [line(1, 10, "e2e4"), line(2, -(MATE - 2), "f2f3")]
    assert all(weak.choose(into_mate, rng).pv[0].uci() == "e2e4" for _ in range(50))
    # Too shallow to see a mate threat: the best line.
    shallow = [line(1, 10, "e2e4", depth=1), line(2, 9, "d2d4", depth=1)]
    assert all(weak.choose(shallow, rng).pv[0].uci() == "e2e4" for _ in range(50))
    assert weak.choose([], rng) is None
    # Same lines, same seed: same choice.
    assert [weak.choose(lines, random.Random(9)) for _ in range(5)] == [weak.choose(lines, random.Random(9))] * 5


def test_low_elo_sometimes_plays_a_worse_move_never_an_illegal_one():
    """20 positions through the loop with a real searcher at the lowest Elo, seeded."""
    output = Output()
    loop = UciLoop(Writer(output.write), Searcher, rng=random.Random(2024))
    run(loop, "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value %d" % MODEL.min_elo)
    differs = searched = 0
    for fen in POSITIONS:
        before = len(output.lines)
        run(loop, "position fen %s" % fen, "go wtime 60000 btime 60000")
        assert loop.wait_idle(WAIT * 3), "no bestmove: the search hung"
        lines = output.lines[before:]
        assert lines[-1].startswith("bestmove ")
        move = lines[-1].split()[1]
        assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves
        nodes = int(re.search(r" nodes (\d+) ", lines[-2]).group(1))
        assert nodes <= MODEL.nodes_at_min  # the node budget
        infos = [l for l in lines if l.startswith("info depth")]
        assert all(" multipv 1 " in l for l in infos)  # only the lines the GUI asked for
        if infos:  # else the budget ran out inside depth 1: the first ordered move is played
            searched += 1
            differs += move != infos[-1].split(" pv ")[1].split()[0]
    assert searched >= 15
    assert 0 < differs < searched


def test_limit_strength_off_leaves_the_search_as_it_was():
    loop, output, holder = make_loop()
    run(loop, "setoption name UCI_Elo value 900", "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits == Limits(depth=3) and multipv == 1
    run(loop, "setoption name UCI_LimitStrength value true", "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits.nodes == StrengthLimit(900).nodes and multipv == MODEL.multipv
    run(loop, "go infinite")  # analysis is never weakened
    run(loop, "stop")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits == Limits(infinite=True) and multipv == 1
    run(loop, "setoption name UCI_LimitStrength value false", "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits == Limits(depth=3) and multipv == 1


@pytest.mark.parametrize("value", ["799", "2001", "strong"])
def test_uci_elo_out_of_range_is_refused(value):
    loop, output, _ = make_loop()
    run(loop, "setoption name UCI_Elo value %s" % value)
    assert output.lines[-1].startswith("info string error: option UCI_Elo")
    assert loop.options["UCI_Elo"] == MODEL.default_elo
