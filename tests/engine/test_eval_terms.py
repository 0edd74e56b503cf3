"""The candidate evaluation terms (engine/eval_terms.py, issue 24): what each counts on named
positions, colour symmetry, the search's board and python-chess's agreeing once they count,
and no effect while their weights are zero."""

import random
from pathlib import Path

import chess
import pytest

from pruner.engine import eval_terms, evaluate as evaluation
from pruner.engine.attacks import from_move
from pruner.engine.board import Position
from pruner.engine.makemove import do_move

from paths import EPD
from playouts import random_moves

NAMES = eval_terms.NAMES


def _counts(fen, color):
    return dict(zip(NAMES, eval_terms.board_counts(chess.Board(fen), color)))


def test_king_shield_and_open_file():
    # White king g1 behind f2 g2 h3 (h3 is two ranks ahead: counted); Black king g8 with g7 only, f-file pawnless.
    white = _counts("6k1/6p1/8/8/8/7P/5PP1/6K1 w - - 0 1", chess.WHITE)
    black = _counts("6k1/6p1/8/8/8/7P/5PP1/6K1 w - - 0 1", chess.BLACK)
    assert white["KING_SHIELD"] == 3 and white["KING_OPEN_FILE"] == 0
    assert black["KING_SHIELD"] == 1 and black["KING_OPEN_FILE"] == 0
    assert _counts("5k2/6p1/8/8/8/8/8/6K1 w - - 0 1", chess.BLACK)["KING_OPEN_FILE"] == 1
    assert _counts("5k2/6p1/8/8/8/8/8/6K1 w - - 0 1", chess.WHITE)["KING_SHIELD"] == 0


def test_pawn_threats_count_pieces_not_pawns_or_kings():
    # The e4 pawn attacks d5 (knight) and f5 (pawn); the b2 pawn attacks a3 (queen) and c3 (king).
    fen = "8/8/8/3n1p2/4P3/q1k5/1P6/K7 w - - 0 1"
    assert _counts(fen, chess.WHITE)["PAWN_THREAT"] == 2
    # Black's f5 pawn attacks e4 (a pawn): nothing counted.
    assert _counts(fen, chess.BLACK)["PAWN_THREAT"] == 0


def test_passed_pawn_block_and_king_distances():
    # White's passed pawn on d6 (next square d7), blocked by a black bishop; kings on a1 and e8.
    fen = "4k3/3b4/3P4/8/8/8/8/K7 w - - 0 1"
    white = _counts(fen, chess.WHITE)
    assert white["PASSED_BLOCKED"] == 1
    assert white["PASSED_KING_OWN"] == chess.square_distance(chess.A1, chess.D7) == 6
    assert white["PASSED_KING_OTHER"] == chess.square_distance(chess.E8, chess.D7) == 1
    # Not passed (an enemy pawn ahead on an adjacent file): no passed-pawn counts.
    stopped = _counts("4k3/2p5/3P4/8/8/8/8/K7 w - - 0 1", chess.WHITE)
    assert stopped["PASSED_BLOCKED"] == stopped["PASSED_KING_OWN"] == stopped["PASSED_KING_OTHER"] == 0
    # Black's passed pawn on c3 runs to c2; its own king h8 is 6 squares away (file distance).
    black = _counts("7k/8/8/8/8/2p5/8/K7 b - - 0 1", chess.BLACK)
    assert black["PASSED_KING_OWN"] == 6 and black["PASSED_KING_OTHER"] == 2 and black["PASSED_BLOCKED"] == 0


def test_rooks_on_the_seventh_and_knight_outposts():
    # White: rook a7 (seventh), knight e5 defended by d4 with no black pawn on d/f files ahead.
    fen = "6k1/R7/8/4N3/3P4/8/8/6K1 w - - 0 1"
    assert _counts(fen, chess.WHITE)["ROOK_SEVENTH"] == 1
    assert _counts(fen, chess.WHITE)["KNIGHT_OUTPOST"] == 1
    # A black pawn on f7 can one day drive the knight away: no outpost.
    assert _counts("6k1/R4p2/8/4N3/3P4/8/8/6K1 w - - 0 1", chess.WHITE)["KNIGHT_OUTPOST"] == 0
    # Black's rook on the second rank and knight on d4 defended by e5, no white pawn on c/e files below.
    black = _counts("6k1/8/8/4p3/3n4/8/r7/6K1 b - - 0 1", chess.BLACK)
    assert black["ROOK_SEVENTH"] == 1 and black["KNIGHT_OUTPOST"] == 1


def _playout(seed, games=40):
    rng = random.Random(seed)
    for _ in range(games):
        board = chess.Board()
        for _ in random_moves(rng, board, rng.randrange(20, 160)):
            yield board


def test_counts_are_colour_symmetric():
    for board in _playout(3, games=20):
        mirrored = board.mirror()
        assert eval_terms.board_counts(board, chess.WHITE) == eval_terms.board_counts(mirrored, chess.BLACK)
        assert eval_terms.board_counts(board, chess.BLACK) == eval_terms.board_counts(mirrored, chess.WHITE)


@pytest.fixture
def counting(monkeypatch):
    """The terms switched on with distinct weights (as a tuned module would) in the engine's own
    evaluation (``pruner.engine.evaluate.DEFAULT``) for one test."""
    weights = tuple((3 + 2 * i, -5 + 3 * i) for i in range(len(NAMES)))
    monkeypatch.setattr(evaluation, "DEFAULT", evaluation.Evaluator(net=evaluation.DEFAULT.net, candidates=weights))
    yield weights


def test_both_boards_evaluate_the_terms_alike_once_they_count(counting):
    rng = random.Random(11)
    fens = [" ".join(line.split()[:4]) for line in (Path(EPD) / "perft_standard.epd").read_text().splitlines()
            if line.strip()]
    changed = counted = total = 0
    for _ in range(60):
        board = chess.Board(rng.choice(fens))
        pos = Position(board)
        for move in random_moves(rng, board, 40):
            do_move(pos, from_move(move))
            score = evaluation.evaluate(board)
            assert evaluation.DEFAULT.evaluate_position(pos) == score, board.fen()
            assert evaluation.breakdown(board).score == score, board.fen()
            wmg, weg = eval_terms.board_score(board, counting)
            changed += bool(wmg or weg)
            counted += any(eval_terms.board_counts(board, chess.WHITE) + eval_terms.board_counts(board, chess.BLACK))
            total += 1
    # The terms counted in most positions, and moved the score (not cancelling out) in many.
    assert total > 1000 and counted > total * 3 // 4 and changed > total // 4


def test_the_breakdown_names_the_terms_when_they_count(counting):
    names = [term.name for term in evaluation.breakdown(chess.Board()).terms]
    assert names[-len(NAMES):] == list(evaluation.EXTRA_TERM_NAMES)
    shield = evaluation.breakdown(chess.Board()).terms[names.index("King shield")]
    assert shield.white == shield.black == (3 * counting[0][0], 3 * counting[0][1])  # d2 e2 f2 before e1 (d7 e7 f7)


def test_with_todays_weights_the_terms_are_off():
    assert not eval_terms.ENABLED and not evaluation.DEFAULT.extra
    assert all(weight == (0, 0) for weight in eval_terms.WEIGHTS)
    assert [term.name for term in evaluation.breakdown(chess.Board()).terms] == list(evaluation.TERM_NAMES)


def test_pawn_structure_terms():
    # White: c4 d4 side by side (a phalanx of two), e3 defends d4, g2 alone; Black's b6/f6 cover nothing here.
    fen = "4k3/8/1p3p2/8/2PP4/4P3/6P1/4K3 w - - 0 1"
    white = _counts(fen, chess.WHITE)
    assert white["PAWN_PHALANX"] == 2 and white["PAWN_SUPPORTED"] == 1
    # Backward: White's d3 has no pawn beside or behind it on c/e (c4, e4 are ahead) and Black's e5
    # attacks d4, its next square. c4 and e4 are not backward (d3 is behind them).
    fen = "4k3/8/8/4p3/2P1P3/3P4/8/4K3 w - - 0 1"
    white = _counts(fen, chess.WHITE)
    assert white["PAWN_BACKWARD"] == 1 and white["PAWN_SUPPORTED"] == 2  # d3 defends c4 and e4
    assert _counts("4k3/8/8/4p3/2P1P3/2PP4/8/4K3 w - - 0 1", chess.WHITE)["PAWN_BACKWARD"] == 0  # c3 beside d3
    # Black mirrors it: d6 backward under White's e4 (e4 attacks d5).
    assert _counts("4k3/8/3p4/2p1p3/4P3/8/8/4K3 b - - 0 1", chess.BLACK)["PAWN_BACKWARD"] == 1


def test_pawn_structure_terms_alone_live_in_the_pawn_cache():
    # Only the three pawn-structure terms weighted: no per-node call, the same evaluation.
    table = tuple((0, 0) for _ in NAMES[:-eval_terms.PAWN_TERMS]) + ((7, 11), (5, -3), (-9, -13))
    evaluator = evaluation.Evaluator(net=evaluation.DEFAULT.net, candidates=table)
    assert evaluator.extra and not evaluator.extra_pieces
    assert eval_terms.NAMES[-eval_terms.PAWN_TERMS:] == ("PAWN_PHALANX", "PAWN_SUPPORTED", "PAWN_BACKWARD")
    rng = random.Random(5)
    changed = 0
    for _ in range(30):
        board = chess.Board()
        pos = Position(board, evaluator)
        for move in random_moves(rng, board, 50):
            do_move(pos, from_move(move))
            score = evaluator.evaluate(board)
            assert evaluator.evaluate_position(pos) == score, board.fen()
            changed += eval_terms.board_score(board, table) != (0, 0)
    assert changed > 300
