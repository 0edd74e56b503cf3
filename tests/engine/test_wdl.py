"""The win/draw/loss model (engine/wdl.py), its fit (scripts/wdl_fit.py, which reads the games'
scores with pruner.lab.matchlib.pgnread) and the evaluation term by term (engine/evaluate.py
``breakdown``, the UCI ``eval`` command)."""

import gzip
import math
import os
import random

import chess
import pytest

import wdl_fit
from pruner.engine import bench, wdl
from pruner.engine.epd import read_epd_file
from pruner.engine.evaluate import DEFAULT, PHASE_MAX, TEMPO, breakdown, evaluate
from pruner.engine.types import MATE, TB_WIN
from pruner.lab.matchlib.pgnread import parse_score
from paths import ROOT
from playouts import random_game_end


# -- the model ---------------------------------------------------------------------------------

@pytest.mark.parametrize("material", [0, 10, 17, 30, 45, 60, 78, 90])
def test_wdl_sums_to_1000_is_symmetric_and_grows_with_the_score(material):
    previous = None
    for cp in range(-5000, 5001, 25):
        w, d, l = wdl.wdl(cp, material)
        assert w + d + l == 1000 and min(w, d, l) >= 0
        assert wdl.wdl(-cp, material) == (l, d, w)
        if previous is not None:
            assert w >= previous[0] and l <= previous[2]
        previous = (w, d, l)
    assert wdl.wdl(4000, material)[0] >= 990 and wdl.wdl(-4000, material)[2] >= 990
    assert wdl.wdl(10 ** 9, material) == wdl.wdl(4000, material)  # no overflow, clamped


def test_wdl_of_mates_and_tablebase_results_is_certain():
    for score in (MATE - 1, MATE - 40, TB_WIN - 1, TB_WIN - 100):
        assert wdl.wdl_of_score(score, 30) == (1000, 0, 0)
        assert wdl.wdl_of_score(-score, 30) == (0, 0, 1000)
    assert wdl.wdl_of_score(37, 50) == wdl.wdl(37, 50)


def test_material_counts_as_stockfish_does():
    assert wdl.material(chess.Board()) == 78
    assert wdl.material(chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")) == 1
    assert wdl.material(chess.Board("r3k3/8/8/8/8/8/8/1N2KQ2 w - - 0 1")) == 3 + 9 + 5


def test_the_shipped_model_is_the_fit_of_docs_wdl_md():
    # The constants of engine/wdl.py are those docs/wdl.md reports (fit to Pruner's games at
    # 10,000 nodes a move): a level score is a likely draw in an ending, rarely with all the
    # pieces on the board (fast self-play games are decisive); three pawns up is a win.
    assert wdl.parameters(78) == pytest.approx((31.7, 104.5), abs=0.1)
    assert wdl.parameters(20) == pytest.approx((138.2, 98.0), abs=0.1)
    assert wdl.wdl(0, 78) == (425, 150, 425)
    assert wdl.wdl(0, 20) == (196, 608, 196)
    assert wdl.wdl(300, 78)[0] > 900 and wdl.wdl(100, 40)[0] > 450


# -- the fit -------------------------------------------------------------------------------------

def synthetic_samples(a_coeffs, b_coeffs, games=400, per_game=30, seed=7):
    """Positions whose results are drawn from a known model (one result per position, so that
    the positions are independent and the fit must find the coefficients)."""
    rng = random.Random(seed)
    samples = []
    for game in range(games):
        for _ in range(per_game):
            cp = rng.randint(-700, 700)
            material = rng.randint(10, 78)
            w, d, l = wdl.probabilities(cp, material, a_coeffs, b_coeffs)
            r = rng.random()
            outcome = 1 if r < w else (0 if r < w + d else -1)
            samples.append(wdl_fit.Sample(cp, material, outcome, game))
    return samples


def test_the_fit_finds_the_coefficients_that_made_the_data():
    truth_a, truth_b = (-60.0, 250.0), (70.0, 40.0)
    samples = synthetic_samples(truth_a, truth_b)
    result = wdl_fit.fit(samples, degree=1)
    for material in (20, 50, 78):
        a, b = wdl.parameters(material, result.a_coeffs, result.b_coeffs)
        true_a, true_b = wdl.parameters(material, truth_a, truth_b)
        assert abs(a - true_a) < 15 and abs(b - true_b) < 12, (material, a, b, true_a, true_b)
    assert all(error > 0 for error in result.a_errors + result.b_errors)
    # The maximum: no small step along any coefficient raises the likelihood.
    theta = result.a_coeffs + result.b_coeffs
    for i in range(len(theta)):
        for step in (-0.5, 0.5):
            moved = list(theta)
            moved[i] += step
            assert wdl_fit.log_likelihood(samples, moved[:2], moved[2:]) <= result.log_likelihood + 1e-6
    # Better than knowing nothing about the score.
    assert -result.log_likelihood < -wdl_fit.constant_log_likelihood(samples, samples)


def test_scores_are_read_from_match_comments():
    assert parse_score("+0.35/7 0.251s") == (35, False)
    assert parse_score("-1.07/12 1.002s") == (-107, False)
    assert parse_score("+M3/30 0.4s") == (3, True)
    assert parse_score("-M2/100 0.2s, White mates") == (-2, True)
    assert parse_score("book") == (None, False)
    assert parse_score("") == (None, False)


GAME = """[Event "t"]
[Result "0-1"]
[Termination "normal"]

1. e4 {book} 1... e5 {book} 2. Nf3 {+0.30/5 0.1s} 2... Nc6 {-0.25/5 0.1s} 3. Bc4 {+0.35/5 0.1s}
3... Nd4 {-0.20/5 0.1s} 4. Nxe5 {+0.80/5 0.1s} 4... Qg5 {-0.50/5 0.1s} 5. Nxf7 {+1.20/5 0.1s}
5... Qxg2 {+15.00/5 0.1s} 6. Rf1 {+0.90/5 0.1s} 6... Qxe4+ {-0.40/5 0.1s} 7. Be2 {-9.00/5 0.1s}
7... Nf3# {+M1/5 0.1s, Black mates} 0-1

"""

PGN = GAME + GAME + """[Event "t"]
[Result "0-1"]
[Termination "time forfeit"]

1. d4 {+0.10/5 0.1s} 0-1

[Event "t"]
[Result "1/2-1/2"]
[Termination "adjudication"]

1. d4 {+0.10/5 0.1s} 1... d5 {-0.10/5 0.1s} 2. c4 {book} 2... e6 {-0.15/5 0.1s} 1/2-1/2
"""


def test_positions_are_filtered_and_labelled_from_the_side_to_move(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    counts = wdl_fit.Counts()
    samples = wdl_fit.read_samples([str(path)], min_move=2, max_cp=1000, counts=counts)
    assert (counts.games, counts.games_kept, counts.moves, counts.kept) == (4, 2, 14 + 4, 9 + 1)
    assert counts.skipped_games == {"repeat of an earlier game": 1, "time forfeit": 1}
    assert counts.skipped_moves == {
        "before move 2": 2 + 2,       # 1. e4 e5, 1. d4 d5
        "|cp| > 1000": 1,             # 5... Qxg2 +15.00
        "side to move in check": 1,   # 7. Be2 after 6... Qxe4+
        "mate score": 1,              # 7... Nf3#
        "no score (book move)": 1,    # 2. c4 {book}
    }
    # Scores and results from the side to move: White lost this game, Black won it.
    assert [(s.cp, s.outcome, s.game) for s in samples] == [
        (30, -1, 0), (-25, 1, 0), (35, -1, 0), (-20, 1, 0), (80, -1, 0), (-50, 1, 0), (120, -1, 0),
        (90, -1, 0), (-40, 1, 0), (-15, 0, 1)]
    assert samples[0].material == 78 and samples[5].material == 78 - 1 and samples[-1].material == 78
    compressed = tmp_path / "games.pgn.gz"
    with gzip.open(str(compressed), "wt") as handle:
        handle.write(PGN)
    assert wdl_fit.read_samples([str(compressed)], min_move=2) == samples


def test_the_script_prints_the_constants_and_the_calibration(tmp_path, capsys):
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    assert wdl_fit.main([str(path), "--min-move", "2", "--folds", "0", "--degree", "0"]) == 0
    out = capsys.readouterr().out
    assert "A_COEFFS = (" in out and "B_COEFFS = (" in out and "predicted W/D/L" in out


# -- the evaluation term by term -----------------------------------------------------------------

def positions(count=300, seed=11):
    """Bench and Win At Chess positions, and positions of seeded random games (all phases,
    promotions, both sides to move)."""
    boards = [chess.Board(fen) for fen in bench.POSITIONS]
    wac = os.path.join(ROOT, "tests", "data", "epd", "wac.epd")
    boards += [record.board for record in read_epd_file(wac).records][:100]
    rng = random.Random(seed)
    while len(boards) < count:
        boards.append(random_game_end(rng, 10, 201))  # randint(10, 200) is randrange(10, 201)
    return boards


def test_the_terms_add_up_to_the_evaluation_exactly():
    for board in positions():
        parts = breakdown(board)
        assert parts.score == evaluate(board), board.fen()
        mg, eg, phase = DEFAULT.material_pst(board)
        pmg, peg = DEFAULT.positional(board)
        assert (parts.mg, parts.eg) == (mg + pmg, eg + peg), board.fen()
        assert parts.phase == min(phase, PHASE_MAX) and parts.tempo == TEMPO
        assert parts.white_score == (parts.score if board.turn else -parts.score)
        # Each term's total is White's share minus Black's; a mirrored board swaps the shares.
        mirrored = breakdown(board.mirror())
        for term, other in zip(parts.terms, mirrored.terms):
            assert (term.white, term.black) == (other.black, other.white), (board.fen(), term.name)
        assert mirrored.score == parts.score


def test_the_start_position_is_level_but_for_the_tempo(classical_evaluation):
    parts = breakdown(chess.Board())
    assert all(term.total == (0, 0) for term in parts.terms)
    assert parts.phase == PHASE_MAX and parts.score == TEMPO
    assert [term.name for term in parts.terms][:2] == ["Material", "Piece-square"]
    assert math.isclose(parts.terms[0].white[0], 8 * 82 + 2 * 337 + 2 * 365 + 2 * 477 + 1025)


# -- pruner.engine.analysis --------------------------------------------------------------------------------

def test_analysis_results_carry_wdl_from_the_side_to_move():
    import chess.engine
    from pruner.engine.analysis import analyse
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3")
    result = analyse(board, depth=3, multipv=2)
    for line in result.lines:
        expected = wdl.wdl(line.cp, wdl.material(board))
        assert line.wdl.relative == chess.engine.Wdl(*expected)
        assert line.wdl.white() == chess.engine.Wdl(expected[2], expected[1], expected[0])  # Black to move
    assert result.wdl == result.lines[0].wdl
    mate = analyse(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), depth=3)
    assert mate.wdl.white() == chess.engine.Wdl(1000, 0, 0)
    assert analyse(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")).wdl.relative == chess.engine.Wdl(0, 0, 1000)
    assert analyse(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")).wdl.relative == chess.engine.Wdl(0, 1000, 0)
