"""The incremental Zobrist key and material/PST sums equal their from-scratch values, and the
evaluation of the search's own board equals python-chess's."""

import random
from pathlib import Path

import chess
import pytest

from pruner.engine.attacks import from_move
from pruner.engine.board import Position
from pruner.engine.evaluate import DEFAULT, evaluate
from pruner.engine.makemove import do_move, do_null
from pruner.engine.zobrist import full_key

from paths import EPD
from playouts import random_moves

SHARED = Path(EPD)


def _fens(name):
    return [" ".join(line.split()[:4]) for line in (SHARED / name).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("suite,chess960", [("perft_standard.epd", False), ("perft_chess960.epd", True)])
def test_random_games_keep_state_exact(suite, chess960):
    rng = random.Random(2024)
    fens = _fens(suite)
    for _ in range(120):
        board = chess.Board(rng.choice(fens), chess960=chess960)
        pos = Position(board)
        for move in random_moves(rng, board, 60):
            do_move(pos, from_move(move))
            assert pos.key == full_key(board), (board.fen(), move)
            assert (pos.mg, pos.eg, pos.phase) == DEFAULT.material_pst(board), (board.fen(), move)
            assert DEFAULT.evaluate_position(pos) == evaluate(board), (board.fen(), move)


def test_null_move_key():
    board = chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
    pos = Position(board)
    assert pos.key == full_key(board)
    do_null(pos)
    board.push(chess.Move.null())
    assert pos.key == full_key(board)


def test_en_passant_only_hashed_when_capturable():
    with_ep = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
    without = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert full_key(with_ep) == full_key(without)
    capturable = chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
    assert full_key(capturable) != full_key(chess.Board(capturable.fen().replace(" e3 ", " - ")))


def test_evaluation_is_symmetric():
    rng = random.Random(7)
    for fen in rng.sample(_fens("perft_standard.epd"), 40):
        board = chess.Board(fen)
        mirrored = board.mirror()
        assert evaluate(board) == evaluate(mirrored), fen


def test_evaluation_with_pieces_on_h8():
    """h8 is the sign bit of the search's bitboards: a bishop, rook or king there counts once."""
    for fen in ["6kB/8/8/8/8/8/8/K7 w - - 0 1", "6kB/8/8/8/8/8/8/K6B w - - 0 1", "7b/8/8/8/8/8/8/K5kb b - - 0 1",
                "6kR/8/8/8/8/8/7P/K7 w - - 0 1", "6Rr/7p/8/8/8/8/8/K5k1 b - - 0 1", "7k/8/8/8/8/8/8/K7 w - - 0 1",
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]:
        board = chess.Board(fen)
        assert DEFAULT.evaluate_position(Position(board)) == evaluate(board), fen
