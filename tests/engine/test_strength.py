"""UCI_LimitStrength / UCI_Elo: the strength model (engine/strength.py); its use by the loop is
tested in tests/uci/test_engine_options.py."""

import math
import random

import chess
import pytest

from pruner.engine import bench
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.strength import (CALIBRATED_BENCH, MODEL, Calibration, CalibrationPoint, StrengthLimit,
                             calibrated_params)
from pruner.engine.types import MATE, Limits, SearchInfo
from loop_helpers import SteppingClock

POSITIONS = bench.POSITIONS[:20]


def line(rank, score, move, depth=4):
    return SearchInfo(depth=depth, seldepth=depth, score=score, nodes=1, time_ms=1,
                      pv=[chess.Move.from_uci(move)], multipv=rank)


def test_model_gets_stronger_with_the_level_and_clamps_the_range():
    weak, mid, strong = StrengthLimit(MODEL.min_level), StrengthLimit(1400), StrengthLimit(MODEL.max_level)
    assert weak.nodes == MODEL.nodes_at_min and strong.nodes == MODEL.nodes_at_max
    assert weak.nodes < mid.nodes < strong.nodes
    assert weak.temperature > mid.temperature > strong.temperature
    assert weak.max_loss > mid.max_loss > strong.max_loss
    assert StrengthLimit(100).level == MODEL.min_level and StrengthLimit(9999).level == MODEL.max_level
    assert weak.limits_for(Limits(depth=5)).nodes == weak.nodes
    assert weak.limits_for(Limits(nodes=10)).nodes == 10  # a smaller node limit stands
    assert weak.limits_for(Limits(wtime=1000)).wtime == 1000  # kept as the safety cap


def test_limited_strength_is_governed_by_nodes_not_the_clock(monkeypatch):
    import pruner.engine.search
    from pruner import engine
    from pruner.engine import timeman
    limit = StrengthLimit(1400)
    blitz = limit.limits_for(Limits(wtime=3000, btime=3000, winc=50, binc=50))
    assert blitz.time_cap_only and blitz.nodes == limit.nodes
    soft, hard = timeman.allocate(blitz, chess.WHITE)
    assert soft is None and hard is not None  # only the safety cap is left
    # Each clock reading moves on 5 ms (a reading every 128 nodes): the old soft limit
    # (no new iteration after 0.6 x 130 ms) ended the search after about 1,000 nodes at
    # 3+0.05, while 60+0.6 let it use its budget; now both search the same nodes.
    results = []
    for clock_ms, inc_ms in ((3000, 50), (60000, 600)):
        monkeypatch.setattr(engine.search, "time", SteppingClock(0.005))
        limits = limit.limits_for(Limits(wtime=clock_ms, btime=clock_ms, winc=inc_ms, binc=inc_ms))
        result = Searcher().search(chess.Board(POSITIONS[5]), limits, multipv=limit.multipv)
        results.append((result.nodes, result.best_move, [line.pv[0] for line in result.lines]))
    assert results[0] == results[1] and results[0][0] == limit.nodes


def test_limited_searches_run_the_search_the_calibration_measured():
    """CALIBRATED_BENCH is the bench signature of the search every CALIBRATION point played
    with. When this fails, a search change moved the limited levels: switch the new technique
    off in CALIBRATED_SEARCH, or re-calibrate (docs/lab/strength.md) and write the new signature."""
    assert bench.run(params=calibrated_params()).nodes == CALIBRATED_BENCH


def test_a_search_with_its_own_parameters_leaves_the_searchers_own():
    searcher = Searcher(params=SearchParams(nmp_depth=5))
    board = chess.Board(POSITIONS[1])
    calibrated = searcher.search(board, Limits(depth=4), params=calibrated_params())
    assert searcher.params == SearchParams(nmp_depth=5)
    assert calibrated.nodes == Searcher(params=calibrated_params()).search(board, Limits(depth=4)).nodes


def test_beginners_levels_choose_among_more_lines_more_loosely_and_leave_the_rest_as_it_was():
    base = StrengthLimit(MODEL.base_level)
    assert (base.nodes, base.temperature, base.max_loss, base.multipv) == (
        MODEL.nodes_at_base, MODEL.temperature_at_base, MODEL.max_loss_at_base, MODEL.multipv)
    levels = [StrengthLimit(level) for level in range(MODEL.base_level, MODEL.min_level - 1, -100)]
    for stronger, weaker in zip(levels, levels[1:]):
        assert weaker.temperature > stronger.temperature and weaker.max_loss > stronger.max_loss
        assert weaker.multipv >= stronger.multipv
    bottom = levels[-1]
    assert (bottom.level, bottom.multipv, bottom.max_loss, bottom.nodes) == (
        MODEL.min_level, MODEL.multipv_at_min, MODEL.max_loss_at_min, MODEL.nodes_at_min)
    # Enough nodes for two plies of every line: the noisy choice, not the bare best line, decides
    # (with the search a limited level runs: CALIBRATED_SEARCH).
    limits = bottom.limits_for(Limits(depth=64))
    result = Searcher(params=calibrated_params()).search(chess.Board(POSITIONS[5]), limits, multipv=bottom.multipv)
    assert result.depth >= MODEL.min_depth and len(result.lines) == bottom.multipv


def test_choose_respects_the_loss_bound_mates_and_shallow_searches():
    weak = StrengthLimit(MODEL.base_level)
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


def point(level, elo, error=100.0):
    return CalibrationPoint(level=level, opponent=1500, games=40, elo=elo, error=error)


def test_calibration_fits_a_weighted_line_and_offers_only_the_range_it_reached():
    exact = Calibration([point(800, 1100), point(1400, 1400), point(2000, 1700)])
    # Three levels: every kernel width predicts each point alike, and the widest (a line) wins.
    assert exact.bandwidth == math.inf and exact.chi2 == pytest.approx(0, abs=1e-6)
    assert exact.describe() == ("one weighted straight line: level 800 = 1100, level 1100 = 1250, "
                                "level 1400 = 1400, level 1700 = 1550, level 2000 = 1700")
    assert (exact.min_elo, exact.max_elo, exact.default_elo) == (1100, 1700, 1400)
    assert exact.level_for(1400) == 1400 and exact.level_for(1250) == 1100
    assert exact.level_for(0) == 800 and exact.level_for(5000) == MODEL.max_level
    # Only the measured levels are offered: no setting maps beyond the weakest or strongest match.
    middle = Calibration([point(1000, 1200), point(1600, 1500)])
    assert (middle.min_level, middle.max_level, middle.min_elo, middle.max_elo) == (1000, 1600, 1200, 1500)
    assert middle.level_for(900) == 1000 and middle.level_for(2000) == 1600
    assert middle.elo_at(700) == pytest.approx(1050) and middle.elo_at(1900) == pytest.approx(1650)  # the line extended
    # The range is rounded inwards: never a setting beyond what the line reaches.
    inner = Calibration([point(800, 1111), point(2000, 1789)])
    assert (inner.min_elo, inner.max_elo) == (1150, 1750)
    assert inner.elo_at(inner.level_for(inner.min_elo)) >= 1111
    # A precise point pulls the line more than a vague one.
    pulled = Calibration([point(800, 1100, 20), point(1400, 1600, 300), point(2000, 1700, 20)])
    assert abs(pulled.elo_at(1400) - 1400) < abs(pulled.elo_at(1400) - 1600)
    with pytest.raises(ValueError):
        Calibration([point(800, 1500), point(2000, 1400)])  # weaker at the stronger level
    with pytest.raises(ValueError):
        Calibration([point(1400, 1500), point(1400, 1600)])  # one level only


def test_calibration_follows_the_points_where_they_bend_and_a_line_where_they_scatter():
    # Precise points on 0.8 per level up to 1600, then 0.2 per level: a narrow kernel follows them.
    bent = Calibration(bent_points(20))
    assert bent.bandwidth <= 100
    assert bent.elo_at(1200) == pytest.approx(1060, abs=1) and bent.elo_at(1900) == pytest.approx(1440, abs=1)
    assert bent.elo_at(1600) == pytest.approx(1380, abs=15)
    # level_for inverts the fit, and the range is what it reaches.
    assert bent.level_for(1060) == 1200 and bent.level_for(1440) == 1900
    assert (bent.min_elo, bent.max_elo) == (900, 1450)
    steepest = max(bent.elo_at(level + 1) - bent.elo_at(level) for level in range(1000, 1950))
    for elo in range(bent.min_elo, bent.max_elo + 1, 10):
        assert bent.elo_at(bent.level_for(elo)) == pytest.approx(elo, abs=steepest)
    # Points scattered about a line within their error bars: the straight line predicts them best.
    scatter = (30, -30, 25, -35, 30, -25, 35, -30)
    scattered = Calibration([point(700 + 150 * i, 1050 + 75 * i + miss) for i, miss in enumerate(scatter)])
    assert scattered.bandwidth == math.inf
    # A fit that would fall somewhere is never used: a wider kernel, rising everywhere, is.
    falling = Calibration([point(level, 100 + 0.8 * level if level <= 1600 else 2660 - 0.8 * level, 20)
                           for level in (1000, 1200, 1400, 1600, 1800, 1950)])
    assert falling.bandwidth > 100
    assert all(falling.elo_at(level + 1) > falling.elo_at(level) for level in range(1000, 1950))
    # A narrow kernel that cannot predict a point from the others is not chosen for it.
    sparse = Calibration([point(800, 1100, 20), point(1400, 1600, 300), point(2000, 1700, 20)],
                         bandwidths=(150, 2000))
    assert sparse.bandwidth == 2000


def bent_points(error):
    """Points on 0.8 Elo per level up to level 1600, then 0.2 per level, each ± ``error``."""
    return [point(level, 100 + 0.8 * level if level <= 1600 else 1060 + 0.2 * level, error)
            for level in (1000, 1200, 1400, 1600, 1800, 1950)]


# -- PRUNER_STRENGTH_LEVEL (scripts/calibrate.py plays levels, not settings) ------------------

def test_the_environment_level_replaces_the_setting(monkeypatch):
    from pruner.engine.strength import LEVEL_VARIABLE, UCI_ELO, strength_for
    monkeypatch.delenv(LEVEL_VARIABLE, raising=False)
    limit, problem = strength_for(UCI_ELO.min_elo)
    assert problem is None and limit.level == UCI_ELO.level_for(UCI_ELO.min_elo)
    monkeypatch.setenv(LEVEL_VARIABLE, "1234")
    limit, problem = strength_for(UCI_ELO.min_elo)
    assert problem is None and limit.level == 1234
    for bad in ("x", "12.5", str(MODEL.max_level + 1), str(MODEL.min_level - 1)):
        monkeypatch.setenv(LEVEL_VARIABLE, bad)
        limit, problem = strength_for(UCI_ELO.min_elo)
        assert LEVEL_VARIABLE in problem and limit.level == UCI_ELO.level_for(UCI_ELO.min_elo)


def test_a_chain_point_keeps_the_level_it_was_measured_against():
    point = CalibrationPoint(level=800, opponent=1100, games=10, elo=1000.0, error=50.0, against_level=1000)
    assert point.against_level == 1000
    assert CalibrationPoint(level=800, opponent=1350, games=10, elo=1000.0, error=50.0).against_level is None
