"""Zobrist keys of the search's positions: the random numbers and a key from scratch.

Keys are our own (seeded random numbers): deterministic across processes and interpreters,
unlike ``hash(board._transposition_key())`` before Python 3.12. The en-passant file is hashed
only when a pawn of the side to move could capture (as in Polyglot), so transpositions that
differ only by an unusable en-passant square share a key. ``pruner.engine.makemove`` keeps a
position's key up to date move by move; ``full_key`` computes it from a python-chess board.
"""

import random

import chess

from pruner.engine.attacks import SQUARES, msb, signed

_rng = random.Random(0x5EED_C0DE)
PIECE_KEYS = [[[_rng.getrandbits(63) for _ in range(64)] for _ in range(2)] for _ in range(7)]
"""``PIECE_KEYS[piece_type][color][square]`` (piece type 0 unused)."""
CASTLE_KEYS = [_rng.getrandbits(63) for _ in range(64)]
"""One key per castling-rights rook square (python-chess keeps rights as a rook bitmask)."""
EP_KEYS = [_rng.getrandbits(63) for _ in range(8)]
"""One key per en-passant file."""
TURN_KEY = _rng.getrandbits(63)
"""XORed in when White is to move."""
FIFTY_KEYS = [_rng.getrandbits(63) for _ in range(12)]
"""Transposition-table keys only: one per band of 8 half-moves of the fifty-move counter from
14 on (``pruner.engine.tt.tt_key``), so a result is not re-used where the counter changes it."""


def ep_key(board: chess.Board) -> int:
    """Key component of the en-passant square, 0 when no pawn of the mover can capture there."""
    ep = board.ep_square
    if ep is not None and chess.BB_PAWN_ATTACKS[not board.turn][ep] & board.pawns & board.occupied_co[board.turn]:
        return EP_KEYS[ep & 7]
    return 0


def castle_key(rights: int) -> int:
    """Key component of a castling-rights rook bitmask (signed or not)."""
    key = 0
    rights = signed(rights)
    while rights:
        square = msb(rights)
        key ^= CASTLE_KEYS[square]
        rights ^= SQUARES[square]
    return key


def full_key(board: chess.Board) -> int:
    """Zobrist key of a python-chess ``board`` from scratch (what ``do_move`` keeps up to date)."""
    key = TURN_KEY if board.turn else 0
    for sq, piece in board.piece_map().items():
        key ^= PIECE_KEYS[piece.piece_type][piece.color][sq]
    return key ^ castle_key(board.clean_castling_rights()) ^ ep_key(board)
