"""Making moves with incremental state: Zobrist key and material/PST sums.

Computing a Zobrist key from scratch (``chess.polyglot.zobrist_hash``) costs about 25 µs and
summing the piece-square tables about 15 µs; updating both from the move costs about 1.5 µs,
so the search carries ``(key, mg, eg, phase)`` down the tree and updates them here.

Keys are our own (seeded random numbers): deterministic across processes and interpreters,
unlike ``hash(board._transposition_key())`` before Python 3.12. The en-passant file is hashed
only when a pawn of the side to move could capture (as in Polyglot), so transpositions that
differ only by an unusable en-passant square share a key.
"""

import random
from typing import Tuple

import chess

from engine.evaluate import PHASE_INC, PST_EG, PST_MG, material_pst

_rng = random.Random(0x5EED_C0DE)
PIECE_KEYS = [[[_rng.getrandbits(63) for _ in range(64)] for _ in range(2)] for _ in range(7)]
"""``PIECE_KEYS[piece_type][color][square]`` (piece type 0 unused)."""
CASTLE_KEYS = [_rng.getrandbits(63) for _ in range(64)]
"""One key per castling-rights rook square (python-chess keeps rights as a rook bitmask)."""
EP_KEYS = [_rng.getrandbits(63) for _ in range(8)]
"""One key per en-passant file."""
TURN_KEY = _rng.getrandbits(63)
"""XORed in when White is to move."""

BB_SQUARES = chess.BB_SQUARES
_PAWN_ATTACKS = chess.BB_PAWN_ATTACKS

State = Tuple[int, int, int, int]
"""(key, mg, eg, phase): what the search carries with each board."""


def ep_key(board: chess.Board) -> int:
    """Key component of the en-passant square, 0 when no pawn of the mover can capture there."""
    ep = board.ep_square
    if ep is not None and _PAWN_ATTACKS[not board.turn][ep] & board.pawns & board.occupied_co[board.turn]:
        return EP_KEYS[ep & 7]
    return 0


def castle_key(rights: int) -> int:
    """Key component of a castling-rights rook bitmask."""
    key = 0
    while rights:
        low = rights & -rights
        key ^= CASTLE_KEYS[low.bit_length() - 1]
        rights ^= low
    return key


def full_key(board: chess.Board) -> int:
    """Zobrist key of ``board`` from scratch (what ``do_move`` keeps up to date)."""
    key = TURN_KEY if board.turn else 0
    for sq, piece in board.piece_map().items():
        key ^= PIECE_KEYS[piece.piece_type][piece.color][sq]
    return key ^ castle_key(board.clean_castling_rights()) ^ ep_key(board)


def initial_state(board: chess.Board) -> State:
    """The incremental state of a root position.

    Normalises ``board.castling_rights`` to python-chess's clean rights, which every
    ``push`` keeps clean afterwards, so the incremental castling update stays exact.
    """
    board.castling_rights = board.clean_castling_rights()
    mg, eg, phase = material_pst(board)
    return full_key(board), mg, eg, phase


def do_move(board: chess.Board, move: chess.Move, key: int, mg: int, eg: int, phase: int) -> State:
    """Push ``move`` (legal) onto ``board`` and return the updated state."""
    frm = move.from_square
    to = move.to_square
    us = board.turn
    them = not us
    occ_us = board.occupied_co[us]
    pt = board.piece_type_at(frm)
    cr = board.castling_rights
    if board.ep_square is not None:
        key ^= ep_key(board)
    key ^= TURN_KEY

    if pt == chess.KING and (occ_us & BB_SQUARES[to] or (frm - to) in (2, -2)):
        # Castling: python-chess sends e1g1 (standard) or king-takes-rook (Chess960).
        rank = frm & 56
        if to > frm:
            rook_from = to if occ_us & BB_SQUARES[to] else rank + 7
            king_to, rook_to = rank + 6, rank + 5
        else:
            rook_from = to if occ_us & BB_SQUARES[to] else rank
            king_to, rook_to = rank + 2, rank + 3
        kt, rt = PIECE_KEYS[chess.KING][us], PIECE_KEYS[chess.ROOK][us]
        key ^= kt[frm] ^ kt[king_to] ^ rt[rook_from] ^ rt[rook_to]
        km, ke = PST_MG[chess.KING][us], PST_EG[chess.KING][us]
        rm, re = PST_MG[chess.ROOK][us], PST_EG[chess.ROOK][us]
        mg += km[king_to] - km[frm] + rm[rook_to] - rm[rook_from]
        eg += ke[king_to] - ke[frm] + re[rook_to] - re[rook_from]
    else:
        captured = board.piece_type_at(to)
        if captured:
            key ^= PIECE_KEYS[captured][them][to]
            mg -= PST_MG[captured][them][to]
            eg -= PST_EG[captured][them][to]
            phase -= PHASE_INC[captured]
        elif pt == chess.PAWN and to == board.ep_square:
            cap_sq = to - 8 if us else to + 8
            key ^= PIECE_KEYS[chess.PAWN][them][cap_sq]
            mg -= PST_MG[chess.PAWN][them][cap_sq]
            eg -= PST_EG[chess.PAWN][them][cap_sq]
        new_pt = move.promotion or pt
        if new_pt != pt:
            phase += PHASE_INC[new_pt]
        key ^= PIECE_KEYS[pt][us][frm] ^ PIECE_KEYS[new_pt][us][to]
        mg += PST_MG[new_pt][us][to] - PST_MG[pt][us][frm]
        eg += PST_EG[new_pt][us][to] - PST_EG[pt][us][frm]

    board.push(move)
    if board.castling_rights != cr:
        key ^= castle_key(cr ^ board.castling_rights)
    if board.ep_square is not None:
        key ^= ep_key(board)
    return key, mg, eg, phase


def do_null(board: chess.Board, key: int) -> int:
    """Push a null move (pass) and return the new key (material is unchanged)."""
    if board.ep_square is not None:
        key ^= ep_key(board)
    board.push(chess.Move.null())
    return key ^ TURN_KEY
