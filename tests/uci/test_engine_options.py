"""What the UCI loop makes of the engine's own features: UCI_LimitStrength/UCI_Elo and Skill Level
(the strength model of engine/strength.py, tested alone in tests/engine/test_strength.py), search parameters
from PRUNER_PARAMS, and a search that fails part-way. In-process: scripted lines on the loop, with
fake or real searchers (tests/loop_helpers.py)."""

import random
import re

import chess
import pytest

from pruner.engine import bench, nnue
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.strength import MODEL, SKILL_LEVEL_MAX, UCI_ELO, calibrated_params, elo_for_skill_level, limit_for_uci_elo
from pruner.engine.types import Limits
from loop_helpers import WAIT, FailsAtDepth, Output, make_loop, run
from net_helpers import random_net
from pruner.uci.searcher_owner import default_searcher
from pruner.uci.loop import UciLoop
from pruner.uci.output import Writer

POSITIONS = bench.POSITIONS[:20]


# -- UCI_LimitStrength / UCI_Elo ------------------------------------------------------------

def test_low_elo_sometimes_plays_a_worse_move_never_an_illegal_one():
    """20 positions through the loop with a real searcher at the lowest Elo, seeded."""
    output = Output()
    loop = UciLoop(Writer(output.write), Searcher, rng=random.Random(2024))
    run(loop, "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value %d" % UCI_ELO.min_elo,
        "setoption name Human Time value false")  # a second a move on this clock otherwise
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
        assert nodes <= limit_for_uci_elo(UCI_ELO.min_elo).nodes  # the node budget
        infos = [l for l in lines if l.startswith("info depth")]
        assert all(" multipv 1 " in l for l in infos)  # only the lines the GUI asked for
        if infos:  # else the budget ran out inside depth 1: the first ordered move is played
            searched += 1
            differs += move != infos[-1].split(" pv ")[1].split()[0]
    assert searched >= 15
    assert 0 < differs < searched


def test_limit_strength_off_leaves_the_search_as_it_was():
    loop, output, holder = make_loop()
    run(loop, "setoption name UCI_Elo value %d" % UCI_ELO.min_elo, "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits == Limits(depth=3) and multipv == 1
    run(loop, "setoption name UCI_LimitStrength value true", "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    weakest = limit_for_uci_elo(UCI_ELO.min_elo)
    assert limits.nodes == weakest.nodes and multipv == weakest.multipv  # a beginners' level searches more lines
    assert holder[0].params == calibrated_params()  # the search the calibration measured
    run(loop, "go infinite")  # analysis is never weakened
    run(loop, "stop")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits == Limits(infinite=True) and multipv == 1 and holder[0].params is None
    run(loop, "setoption name UCI_LimitStrength value false", "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    assert limits == Limits(depth=3) and multipv == 1


@pytest.mark.parametrize("value", [str(UCI_ELO.min_elo - 1), str(UCI_ELO.max_elo + 1), "strong"])
def test_uci_elo_out_of_range_is_refused(value):
    loop, output, _ = make_loop()
    run(loop, "setoption name UCI_Elo value %s" % value)
    assert output.lines[-1].startswith("info string error: option UCI_Elo")
    assert loop.state.options["UCI_Elo"] == UCI_ELO.default_elo


def test_uci_elo_option_declares_the_calibrated_range_and_maps_to_levels():
    loop, output, _ = make_loop()
    run(loop, "uci")
    declared = [l for l in output.lines if l.startswith("option name UCI_Elo ")]
    assert declared == ["option name UCI_Elo type spin default %d min %d max %d"
                        % (UCI_ELO.default_elo, UCI_ELO.min_elo, UCI_ELO.max_elo)]
    weakest, strongest = limit_for_uci_elo(UCI_ELO.min_elo), limit_for_uci_elo(UCI_ELO.max_elo)
    assert weakest.level < limit_for_uci_elo(UCI_ELO.default_elo).level < strongest.level
    # Every setting maps to a level whose fitted strength is that setting (within rounding).
    steepest = max(UCI_ELO.elo_at(level + 1) - UCI_ELO.elo_at(level)
                   for level in range(UCI_ELO.min_level, UCI_ELO.max_level))
    for elo in range(UCI_ELO.min_elo, UCI_ELO.max_elo + 1, 50):
        assert UCI_ELO.elo_at(limit_for_uci_elo(elo).level) == pytest.approx(elo, abs=steepest)


# -- Skill Level ----------------------------------------------------------------------------

def test_skill_level_is_declared_as_stockfish_declares_it():
    loop, output, _ = make_loop()
    run(loop, "uci")
    assert [l for l in output.lines if l.startswith("option name Skill Level ")] == \
        ["option name Skill Level type spin default 20 min 0 max 20"]
    assert loop.state.options["Skill Level"] == SKILL_LEVEL_MAX


def test_every_skill_level_is_accepted_and_plays_a_calibrated_setting():
    loop, output, _ = make_loop()
    for skill in range(0, SKILL_LEVEL_MAX + 1):
        run(loop, "setoption name Skill Level value %d" % skill)
        assert loop.state.options["Skill Level"] == skill
    assert not output.lines  # nothing to say about a valid value
    elos = [elo_for_skill_level(skill) for skill in range(SKILL_LEVEL_MAX)]
    assert elos[0] == UCI_ELO.min_elo and elos[-1] == UCI_ELO.max_elo  # the whole calibrated range
    assert all(low < high for low, high in zip(elos, elos[1:]))
    assert elo_for_skill_level(SKILL_LEVEL_MAX) is None  # full strength


@pytest.mark.parametrize("value", ["-1", "21", "ten", "", "5.5"])
def test_skill_level_out_of_range_is_refused_and_the_old_value_stands(value):
    loop, output, _ = make_loop()
    run(loop, "setoption name Skill Level value 5", "setoption name Skill Level value %s" % value)
    assert len(output.lines) == 1 and output.lines[0].startswith("info string error: option Skill Level"), output.lines
    assert loop.state.options["Skill Level"] == 5


def search_call(loop, holder, *lines):
    """The limits, MultiPV and search parameters of the search that ``lines`` end with."""
    run(loop, *lines)
    assert loop.wait_idle(WAIT)
    _, _, limits, multipv = holder[0].calls[-1]
    return limits, multipv, holder[0].params


def test_a_low_skill_level_searches_as_its_uci_elo_does():
    loop, output, holder = make_loop()
    skill = search_call(loop, holder, "setoption name Skill Level value 0", "go depth 3")
    run(loop, "setoption name Skill Level value 20")
    elo = search_call(loop, holder, "setoption name UCI_LimitStrength value true",
                      "setoption name UCI_Elo value %d" % UCI_ELO.min_elo, "go depth 3")
    weakest = limit_for_uci_elo(UCI_ELO.min_elo)
    assert skill == elo == (weakest.limits_for(Limits(depth=3)), weakest.multipv, calibrated_params())
    run(loop, "setoption name UCI_LimitStrength value false")
    assert search_call(loop, holder, "go depth 3") == (Limits(depth=3), 1, None)  # Skill Level 20: full strength
    run(loop, "setoption name Skill Level value 0", "go infinite", "stop")  # analysis is never weakened
    assert loop.wait_idle(WAIT)
    assert holder[0].calls[-1][2:] == (Limits(infinite=True), 1) and holder[0].params is None


def test_uci_limit_strength_takes_precedence_over_skill_level():
    """As in Stockfish: with UCI_LimitStrength on, UCI_Elo decides whatever Skill Level says."""
    loop, output, holder = make_loop()
    run(loop, "setoption name Skill Level value 0", "setoption name UCI_LimitStrength value true",
        "setoption name UCI_Elo value %d" % UCI_ELO.max_elo)
    limits, multipv, _ = search_call(loop, holder, "go depth 3")
    assert limits.nodes == limit_for_uci_elo(UCI_ELO.max_elo).nodes != limit_for_uci_elo(UCI_ELO.min_elo).nodes
    run(loop, "setoption name Skill Level value 20")  # and 20 does not switch UCI_Elo off
    limits, multipv, _ = search_call(loop, holder, "go depth 3")
    assert limits.nodes == limit_for_uci_elo(UCI_ELO.max_elo).nodes


def moves_played(setup, positions, seed=2024):
    """The bestmoves a loop with a real searcher plays after the ``setup`` lines, one ``go depth 4``
    a position (reproducible), with a seeded choice; and the node count of each search."""
    output = Output()
    loop = UciLoop(Writer(output.write), Searcher, rng=random.Random(seed))
    run(loop, *setup)
    played = []
    for fen in positions:
        before = len(output.lines)
        run(loop, "position fen %s" % fen, "go depth 4")
        assert loop.wait_idle(WAIT * 3), "no bestmove: the search hung"
        lines = output.lines[before:]
        assert lines[-1].startswith("bestmove ")
        played.append((lines[-1].split()[1], int(re.search(r" nodes (\d+) ", lines[-2]).group(1))))
    return played


def test_skill_level_zero_plays_the_moves_of_the_lowest_uci_elo_and_twenty_the_full_strength_ones():
    positions = POSITIONS[:6]
    skill = moves_played(["setoption name Skill Level value 0"], positions)
    elo = moves_played(["setoption name UCI_LimitStrength value true",
                        "setoption name UCI_Elo value %d" % UCI_ELO.min_elo], positions)
    assert skill == elo  # same seed, same level: the same moves
    assert all(nodes <= limit_for_uci_elo(UCI_ELO.min_elo).nodes for _, nodes in skill)
    full = [move for move, _ in moves_played(["setoption name Skill Level value 20"], positions[:3])]
    assert full == [move for move, _ in moves_played([], positions[:3])]
    assert full != [move for move, _ in skill[:3]]  # the limited level plays other moves


# -- the searcher behind the loop -------------------------------------------------------------

def test_pruner_params_environment_reaches_the_searcher(monkeypatch, capsys):
    monkeypatch.setenv("PRUNER_PARAMS", "nmp_depth=99")
    assert default_searcher(1).main.params.nmp_depth == 99
    monkeypatch.setenv("PRUNER_PARAMS", "bogus=1")
    assert default_searcher(1).main.params == SearchParams()   # the defaults, reported once
    assert "PRUNER_PARAMS ignored" in capsys.readouterr().err


def test_pruner_params_evalfile_stands_until_evalfile_is_set_and_a_limited_search_stays_classical(
        monkeypatch, tmp_path):
    path = tmp_path / "mine.nnue"
    path.write_bytes(random_net(5).to_bytes())
    monkeypatch.setenv("PRUNER_PARAMS", "evalfile=classical")
    output = Output()
    loop = UciLoop(Writer(output.write), default_searcher)
    run(loop, "isready")  # the searcher is made: EvalFile's default must not undo PRUNER_PARAMS
    searcher = loop.state.searcher
    assert searcher.main.evaluator.net is None
    run(loop, "setoption name EvalFile value %s" % path, "isready")
    assert searcher.main.evaluator.net.sha256 == nnue.load(str(path)).sha256
    run(loop, "setoption name UCI_LimitStrength value true", "setoption name Human Time value false",
        "position startpos", "go wtime 60000 btime 60000")
    assert loop.wait_idle(WAIT)
    assert searcher.main.evaluator.net is None  # the calibrated levels play the classical evaluation
    run(loop, "setoption name UCI_LimitStrength value false", "go depth 2")
    assert loop.wait_idle(WAIT)
    assert searcher.main.evaluator.net is nnue.net_named(str(path))
    loop.shutdown()


def test_failing_search_is_reported_over_uci_with_its_move():
    board = chess.Board(bench.POSITIONS[9])
    expected = Searcher().search(board, Limits(depth=3)).best_move
    output = Output()
    loop = UciLoop(Writer(output.write), lambda hash_mb: FailsAtDepth(4))
    run(loop, "position fen %s" % bench.POSITIONS[9], "go depth 6")
    assert loop.wait_idle(WAIT)
    assert any(line.startswith("info string error: internal: search stopped at depth 3")
               and "disk on fire" in line for line in output.lines)
    assert output.lines[-1].split()[:2] == ["bestmove", expected.uci()]


def test_the_environment_level_reaches_the_search(monkeypatch):
    """PRUNER_STRENGTH_LEVEL (scripts/calibrate.py) sets the level whatever UCI_Elo says."""
    from pruner.engine.strength import LEVEL_VARIABLE, StrengthLimit
    monkeypatch.setenv(LEVEL_VARIABLE, str(MODEL.max_level))
    loop, output, holder = make_loop()
    run(loop, "setoption name UCI_LimitStrength value true",
        "setoption name UCI_Elo value %d" % UCI_ELO.min_elo, "go depth 3")
    assert loop.wait_idle(WAIT)
    _, _, limits, _ = holder[0].calls[-1]
    assert limits.nodes == StrengthLimit(MODEL.max_level).nodes
