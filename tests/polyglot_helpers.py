"""Test helper: write small Polyglot opening books (``.bin``) from (board, move, weight) rows."""

import struct

import chess
import chess.polyglot


def polyglot_move(move: chess.Move) -> int:
    """A move in Polyglot's 16-bit encoding (to file/rank, from file/rank, promotion)."""
    promo = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    return (move.to_square & 7) | (move.to_square >> 3) << 3 | (move.from_square & 7) << 6 \
        | (move.from_square >> 3) << 9 | promo << 12


def write_book(path, entries):
    """entries: (board, move, weight); Polyglot books are sorted by key."""
    rows = sorted((chess.polyglot.zobrist_hash(b), polyglot_move(m), w) for b, m, w in entries)
    with open(path, "wb") as f:
        for key, move, weight in rows:
            f.write(struct.pack(">QHHI", key, move, weight, 0))
