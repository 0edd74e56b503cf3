"""lichess's accuracy (``pruner.analyse_app.review.accuracy``): a worked example by hand, the
volatility windows, properties, and the review page's numbers from a real analysis."""

import io
import math
import random
import re

import chess
import chess.pgn
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pruner.engine.analysis import Analyser
from pruner.analyse_app.cli import main
from pruner.analyse_app.review.accuracy import (game_accuracy, move_accuracies, move_accuracy, volatility_weights,
                                              win_percent, window_size)


def test_win_percent_is_lichess_curve():
    assert win_percent(0) == 50
    # 50 + 50 * (2 / (1 + exp(-0.00368208 * 300)) - 1): exp(-1.104624) = 0.331336, 2 / 1.331336 = 1.502251
    assert win_percent(300) == pytest.approx(75.11255, abs=1e-5)
    assert win_percent(-300) == pytest.approx(100 - 75.11255, abs=1e-5)
    # exp(-3.68208) = 0.025171, 2 / 1.025171 = 1.950895: 97.54474; capped at ±1000
    assert win_percent(5000) == win_percent(1000) == pytest.approx(97.54474, abs=1e-5)


def test_move_accuracy_is_lichess_fit():
    assert move_accuracy(60, 60) == move_accuracy(40, 70) == 100  # no drop: perfect
    # 103.1668100711649 * exp(-0.04354415386753951 * 10) - 3.166924740191411 + 1
    #   = 103.16681 * 0.647014 - 2.166925 = 64.579828
    assert move_accuracy(60, 50) == pytest.approx(103.1668100711649 * math.exp(-0.4354415386753951)
                                                  - 3.166924740191411 + 1)
    assert move_accuracy(60, 50) == pytest.approx(64.579828, abs=1e-6)
    assert move_accuracy(100, 0) == 0  # clamped at 0
    assert move_accuracy(50, 49.99) == 100  # a tiny drop: 100 + 1 bonus, clamped at 100


def test_worked_example_by_hand():
    # Four plies, White's scores of the five positions: +0.20 (start), -0.80, +1.50, +1.20, -3.00.
    # White's win%: 51.840208, 42.688631, 63.467183, 60.869967, 24.887450
    cps = [20, -80, 150, 120, -300]
    wins = [win_percent(cp) for cp in cps]
    assert wins == pytest.approx([51.840208, 42.688631, 63.467183, 60.869967, 24.887450], abs=1e-6)
    # 4 plies: window clamp(4 // 10, 2, 8) = 2 positions; the deviation of two values is half
    # their difference: 4.575789, 10.389276, 1.298608, 17.991258 -> clamped to 12
    assert window_size(4) == 2
    assert volatility_weights(wins) == pytest.approx([4.575789, 10.389276, 1.298608, 12.0], abs=1e-6)
    # Move accuracies, from the mover's win% before and after:
    #   1. White 51.840 -> 42.689, drop 9.151578:   103.16681 * exp(-0.0435442 * 9.151578) - 2.16692 = 67.091825
    #   1... Black 57.311 -> 36.533 (100 - White's), drop 20.778552:                           39.577367
    #   2. White 63.467 -> 60.870, drop 2.597216:                                              89.967958
    #   2... Black's win% rises (39.130 -> 75.113): 100
    moves = move_accuracies(wins, chess.WHITE)
    assert [side for side, _, _ in moves] == [chess.WHITE, chess.BLACK, chess.WHITE, chess.BLACK]
    assert [accuracy for _, accuracy, _ in moves] == pytest.approx([67.091825, 39.577367, 89.967958, 100.0],
                                                                   abs=1e-6)
    # White: weighted (67.091825 * 4.575789 + 89.967958 * 1.298608) / 5.874397 = 72.148876,
    #        harmonic 2 / (1/67.091825 + 1/89.967958) = 76.863909; mean 74.506393
    # Black: weighted (39.577367 * 10.389276 + 100 * 12) / 22.389276 = 71.962139,
    #        harmonic 2 / (1/39.577367 + 1/100) = 56.710294; mean 64.336216
    accuracy = game_accuracy(wins, chess.WHITE)
    assert accuracy[chess.WHITE] == pytest.approx(74.506393, abs=1e-6)
    assert accuracy[chess.BLACK] == pytest.approx(64.336216, abs=1e-6)
    # The same scores from a position with Black to move: the sides swap
    swapped = game_accuracy(wins, chess.BLACK)
    assert swapped[chess.WHITE] != accuracy[chess.WHITE]
    assert [side for side, _, _ in move_accuracies(wins, chess.BLACK)][:2] == [chess.BLACK, chess.WHITE]


def test_windows_of_a_long_game():
    rng = random.Random(5)
    wins = [rng.uniform(5, 95) for _ in range(41)]  # 40 plies: windows of 4 positions
    assert window_size(40) == 4 and window_size(19) == 2 and window_size(200) == 8
    weights = volatility_weights(wins)
    assert len(weights) == 40

    def deviation(values):
        mean = sum(values) / len(values)
        return min(12.0, max(0.5, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))))

    # the first size - 2 = 2 moves take the first window; then the window ending after the move
    assert weights[0] == weights[1] == weights[2] == pytest.approx(deviation(wins[0:4]))
    assert weights[3] == pytest.approx(deviation(wins[1:5]))
    assert weights[39] == pytest.approx(deviation(wins[37:41]))


def test_unknown_scores_leave_their_moves_out():
    wins = [50.0, 48.0, None, 47.0, 40.0, 41.0]
    moves = move_accuracies(wins, chess.WHITE)
    assert [accuracy is None for _, accuracy, _ in moves] == [False, True, True, False, False]
    assert game_accuracy([None, None], chess.WHITE) == {chess.WHITE: None, chess.BLACK: None}
    assert game_accuracy([50.0], chess.WHITE) == {chess.WHITE: None, chess.BLACK: None}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1500, 1500), min_size=3, max_size=120), st.booleans())
@example([-240, 860, -291], False)  # found by CI: Black's accuracy was 100.00000000000001
def test_a_side_that_never_loses_ground_is_perfect(deltas, white_starts):
    # White's win% never drops on White's moves; Black's moves do anything
    start = chess.WHITE if white_starts else chess.BLACK
    cps = [0]
    for index, delta in enumerate(deltas):
        white_moves = (index % 2 == 0) == white_starts
        cps.append(cps[-1] + abs(delta) if white_moves else cps[-1] + delta)
    accuracy = game_accuracy([win_percent(cp) for cp in cps], start)
    assert accuracy[chess.WHITE] == pytest.approx(100)
    assert accuracy[chess.BLACK] is None or 0 <= accuracy[chess.BLACK] <= 100


def test_the_engines_own_moves_are_about_perfect(tmp_path):
    # White plays Pruner's best move at depth 3 every time, Black a random move; the review of
    # the game at the same depth gives White about 100 and Black much less
    rng = random.Random(2)
    board, analyser = chess.Board(), Analyser()
    while not board.is_game_over() and len(board.move_stack) < 30:
        if board.turn == chess.WHITE:
            board.push(analyser.analyse(board, depth=3).best_move)
        else:
            board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
    pgn, report = tmp_path / "g.pgn", tmp_path / "g.html"
    pgn.write_text(str(chess.pgn.Game.from_board(board)))
    out, err = io.StringIO(), io.StringIO()
    assert main(["--depth", "3", "--jobs", "1", "-q", "--report", str(report), str(pgn)], stdout=out, stderr=err) == 0
    text = report.read_text(encoding="utf-8")
    white, black = [float(value) for value in re.findall(r'data-accuracy="([\d.]+)"', text)]
    assert white >= 95 and black < white - 10, (white, black)
    shown = re.search(r'<td>Accuracy</td><td[^>]*>(\d+)%</td><td[^>]*>(\d+)%</td>', text)
    assert (int(shown.group(1)), int(shown.group(2))) == (round(white), round(black))


def test_filtered_records_give_the_same_accuracy(tmp_path):
    # --side white keeps White's records only; the positions after them carry Black's scores
    from sample_games import OPERA_GAME
    pgn = tmp_path / "opera.pgn"
    pgn.write_text(OPERA_GAME)
    found = []
    for extra in ([], ["--side", "white"], ["--from-move", "9"]):
        report = tmp_path / "r.html"
        out, err = io.StringIO(), io.StringIO()
        assert main(["--depth", "2", "--jobs", "1", "-q", "--report", str(report)] + extra + [str(pgn)],
                    stdout=out, stderr=err) == 0, err.getvalue()
        found.append(re.findall(r'data-accuracy="([\d.]*)"', report.read_text(encoding="utf-8")))
    assert found[0] == found[1] and all(found[0])
    assert found[2] != found[0] and all(found[2])  # from move 9 on: fewer moves counted
