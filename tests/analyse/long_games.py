"""Seeded generators of the games that once made ``pruner analyse`` quadratic (issue 51,
items 5 and 6): a long game and a game with very many comments, as PGN text (never
committed as big files)."""

import random
from typing import List

import chess
import chess.pgn


START = "1n2k1n1/pppppppp/8/8/8/8/PPPPPPPP/1N2K1N1 w - - 0 1"
"""Where the long games start: kings, knights and pawns, so that a depth-1 search is quick
(no piece hangs for long) and the game never needs to end."""
PAWN_MOVES = 32
"""Single pawn steps the start allows before the pawns meet (two per pawn)."""


def long_game_moves(plies: int, seed: int = 51) -> List[chess.Move]:
    """``plies`` legal moves from ``START``, chosen at random (seeded): kings and knights
    move about without capturing, and a pawn steps forward every ``plies // PAWN_MOVES + 1``
    plies (under 100 for up to 3,100 plies), so the fifty-move counter stays low as in real
    games and the game never ends (no check, no capture, always a quiet reply)."""
    rng = random.Random(seed)
    board = chess.Board(START)
    gap = plies // PAWN_MOVES + 1
    moves = []
    while len(moves) < plies:
        legal = [move for move in board.legal_moves if not board.is_capture(move)]
        rng.shuffle(legal)
        pawn_due = board.halfmove_clock + 1 >= gap
        # a pawn when due, else a king or knight; single steps only, and no promotion
        legal.sort(key=lambda move: (board.piece_type_at(move.from_square) == chess.PAWN) != pawn_due)
        for move in legal:
            if board.piece_type_at(move.from_square) == chess.PAWN and \
                    (abs(move.to_square - move.from_square) != 8 or not pawn_due):
                continue
            board.push(move)
            if not board.is_check() and any(not board.is_capture(reply) for reply in board.generate_legal_moves()):
                break  # the other side can go on without capturing
            board.pop()
        else:
            raise RuntimeError("seed %d: no move keeps the game going at ply %d" % (seed, len(moves)))
        moves.append(move)
    return moves


def long_game_pgn(plies: int, seed: int = 51, headers: bool = True) -> str:
    """The PGN text of ``long_game_moves(plies, seed)``."""
    game = chess.pgn.Game()
    game.setup(chess.Board(START))
    if headers:
        game.headers["Event"] = "long game %d" % plies
        game.headers["White"] = "White %d" % seed
        game.headers["Black"] = "Black %d" % seed
    game.add_line(long_game_moves(plies, seed))
    game.headers["Result"] = "*"
    return str(game) + "\n\n"


def many_comments_pgn(comments: int, moves: int = 40, seed: int = 51, per_line: int = 10) -> str:
    """A game of ``moves`` plies (``long_game_moves``) with ``comments`` short comments
    (``{c12345}``, eight characters each) spread over its moves, most after the first move, so
    that python-chess sees long runs of comments on one node; ``per_line`` comments a line."""
    rng = random.Random(seed)
    played = long_game_moves(moves, seed)
    board = chess.Board(START)
    words = ['[Event "many comments"]', '[White "W"]', '[Black "B"]', '[Result "*"]',
             '[SetUp "1"]', '[FEN "%s"]' % START, ""]
    body: List[str] = []
    counts = [0] * len(played)
    for _ in range(comments):
        # half of them after the first move, the rest anywhere
        counts[0 if rng.random() < 0.5 else rng.randrange(len(played))] += 1
    number = 0
    for ply, move in enumerate(played):
        if board.turn == chess.WHITE:
            body.append("%d." % board.fullmove_number)
        body.append(board.san(move))
        board.push(move)
        for _ in range(counts[ply]):
            number += 1
            body.append("{c%05d}" % (number % 100000))
    body.append("*")
    lines = [" ".join(body[start:start + per_line]) for start in range(0, len(body), per_line)]
    return "\n".join(words + lines) + "\n\n"
