"""Random games for tests that need many varied positions (openings, middlegames, endgames,
promotions) from a seeded ``random.Random``."""

import random
from typing import Iterator

import chess


def random_moves(rng: random.Random, board: chess.Board, plies: int) -> Iterator[chess.Move]:
    """Play up to ``plies`` random legal moves on ``board`` (fewer if the game ends), yielding
    each move once it is on the board."""
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        board.push(move)
        yield move


def random_game_end(rng: random.Random, low: int, high: int) -> chess.Board:
    """The board after a random game from the start of ``randrange(low, high)`` plies (or fewer)."""
    board = chess.Board()
    for _ in random_moves(rng, board, rng.randrange(low, high)):
        pass
    return board
