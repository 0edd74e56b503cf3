"""The incremental Zobrist key and material/PST sums equal their from-scratch values."""

import random
from pathlib import Path

import chess
import pytest

from engine.evaluate import evaluate, material_pst
from engine.makemove import do_move, do_null, full_key, initial_state

from paths import EPD

SHARED = Path(EPD)


def _fens(name):
    return [" ".join(line.split()[:4]) for line in (SHARED / name).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("suite,chess960", [("perft_standard.epd", False), ("perft_chess960.epd", True)])
def test_random_games_keep_state_exact(suite, chess960):
    rng = random.Random(2024)
    fens = _fens(suite)
    for _ in range(120):
        board = chess.Board(rng.choice(fens), chess960=chess960)
        state = initial_state(board)
        for _ in range(60):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            state = do_move(board, move, *state)
            assert state[0] == full_key(board), (board.fen(), move)
            assert state[1:] == material_pst(board), (board.fen(), move)


def test_null_move_key():
    board = chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
    key = full_key(board)
    assert do_null(board, key) == full_key(board)


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
