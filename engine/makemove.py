"""Making moves with incremental state: Zobrist key and material/PST sums.

Computing a Zobrist key from scratch (``chess.polyglot.zobrist_hash``) costs about 25 µs and
summing the piece-square tables about 15 µs; updating both from the move costs about 1.5 µs,
so the search carries ``(key, mg, eg, phase)`` down the tree and updates them here.

Keys are our own (seeded random numbers): deterministic across processes and interpreters,
unlike ``hash(board._transposition_key())`` before Python 3.12. The en-passant file is hashed
only when a pawn of the side to move could capture (as in Polyglot), so transpositions that
differ only by an unusable en-passant square share a key.

``do_move`` and ``do_null`` also make the move themselves instead of python-chess's ``push``:
every field ``push`` sets comes out the same (tests/engine/test_fastpush.py checks them field by field
on the perft suites), but the position before is saved as a plain tuple on ``board._stack`` and
only ``undo_move`` takes it back. A board moved on this way must never reach python-chess code
that pops past its own pushes (``pop``, ``is_repetition``, ``outcome``, ``root``): a tuple has no
``restore``. Calls that push and pop their own moves (``is_legal``, Syzygy probes) are fine.
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
FIFTY_KEYS = [_rng.getrandbits(63) for _ in range(12)]
"""Transposition-table keys only: one per band of 8 half-moves of the fifty-move counter from
14 on (``engine.tt.tt_key``), so a result is not re-used where the counter changes it."""

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


_RANK_1 = chess.BB_RANK_1
_RANK_8 = chess.BB_RANK_8
_NULL_MOVE = chess.Move.null()


def do_move(board: chess.Board, move: chess.Move, key: int, mg: int, eg: int, phase: int) -> State:
    """Play ``move`` (legal) on ``board`` and return the updated state; ``undo_move`` takes it back.

    Leaves every field python-chess's ``push`` sets exactly as ``push`` would (tests/engine/test_fastpush.py
    checks field by field on the perft suites), but saves the previous position as a tuple in
    ``board._stack``: only ``undo_move`` may take it back, never ``board.pop()``.
    """
    # Hot path: python-chess's push (with _BoardState, _remove/_set_piece_at, _to/_from_chess960,
    # is_zeroing) merged into the key/PST update, at the price of repeating push's rules here
    # (pinned by tests/engine/test_fastpush.py). Measured with cachegrind, `bench 3` on CPython 3.11:
    # 5.17e9 -> 4.26e9 instructions (-17.6%), `bench 4` 9.24e9 -> 7.41e9 (-19.8%); PyPy `bench 5`
    # 19.96e9 -> 19.84e9 (mean of 3, within its +-0.7% JIT noise: no loss).
    frm = move.from_square
    to = move.to_square
    from_bb = BB_SQUARES[frm]
    us = board.turn
    them = not us
    occ_co = board.occupied_co
    occ_us = occ_co[us]
    occ_them = occ_co[them]
    pawns = board.pawns
    knights = board.knights
    bishops = board.bishops
    rooks = board.rooks
    queens = board.queens
    kings = board.kings
    occupied = board.occupied
    promoted = promoted0 = board.promoted  # promoted: cleared of the squares vacated below
    cr0 = board.castling_rights
    ep = board.ep_square
    hmc = board.halfmove_clock
    fmn = board.fullmove_number
    stack = board._stack
    saved = (pawns, knights, bishops, rooks, queens, kings, occ_co[0], occ_co[1], occupied, promoted0,
             us, cr0, ep, hmc, fmn)
    # python-chess cleans the rights only while its stack is empty (clean_castling_rights).
    cr = board.clean_castling_rights() if not stack else cr0
    stack.append(saved)

    if ep is not None:
        if _PAWN_ATTACKS[them][ep] & pawns & occ_us:
            key ^= EP_KEYS[ep & 7]
        board.ep_square = None
    key ^= TURN_KEY
    hmc += 1
    if not us:
        board.fullmove_number = fmn + 1

    if pawns & from_bb:
        pt = chess.PAWN
    elif knights & from_bb:
        pt = chess.KNIGHT
    elif bishops & from_bb:
        pt = chess.BISHOP
    elif rooks & from_bb:
        pt = chess.ROOK
    elif queens & from_bb:
        pt = chess.QUEEN
    else:
        pt = chess.KING

    if pt == chess.KING:
        # As python-chess's _to_chess960: e1g1/e1c1 (e8g8/e8c8) mean king takes rook.
        if frm == chess.E1 or frm == chess.E8:
            if to == frm + 2 and not rooks & BB_SQUARES[to]:
                to = frm + 3
            elif to == frm - 2 and not rooks & BB_SQUARES[to]:
                to = frm - 4
        to_bb = BB_SQUARES[to]
        if cr:
            cr &= ~(from_bb | to_bb)
            if not promoted & from_bb:
                cr &= ~_RANK_1 if us else ~_RANK_8
        board.move_stack.append(board._from_chess960(board.chess960, frm, to, move.promotion))
        if occ_us & to_bb:
            # Castling (king takes own rook): king and rook go to the g/f or c/d file.
            rank = 0 if us else 56
            if (to & 7) < (frm & 7):
                king_to, rook_to = rank + 2, rank + 3
            else:
                king_to, rook_to = rank + 6, rank + 5
            king_mask = from_bb ^ BB_SQUARES[king_to]
            rook_mask = to_bb ^ BB_SQUARES[rook_to]
            board.kings = kings ^ king_mask
            board.rooks = rooks ^ rook_mask
            occ_co[us] = occ_us ^ king_mask ^ rook_mask
            board.occupied = occupied ^ king_mask ^ rook_mask
            if promoted:
                board.promoted = promoted & ~(from_bb | to_bb)
            kt, rt = PIECE_KEYS[chess.KING][us], PIECE_KEYS[chess.ROOK][us]
            key ^= kt[frm] ^ kt[king_to] ^ rt[to] ^ rt[rook_to]
            km, ke = PST_MG[chess.KING][us], PST_EG[chess.KING][us]
            rm, re = PST_MG[chess.ROOK][us], PST_EG[chess.ROOK][us]
            mg += km[king_to] - km[frm] + rm[rook_to] - rm[to]
            eg += ke[king_to] - ke[frm] + re[rook_to] - re[to]
            board.halfmove_clock = hmc
            board.turn = them
            if cr != cr0:
                board.castling_rights = cr
                key ^= castle_key(cr0 ^ cr)
            return key, mg, eg, phase
    else:
        to_bb = BB_SQUARES[to]
        board.move_stack.append(move)
        if cr:
            cr &= ~(from_bb | to_bb)

    move_mask = from_bb | to_bb
    if occ_them & to_bb:
        # Capture: take the victim off its bitboard first (the mover may share it).
        if pawns & to_bb:
            captured = chess.PAWN
            board.pawns = pawns ^ to_bb
        elif knights & to_bb:
            captured = chess.KNIGHT
            board.knights = knights ^ to_bb
        elif bishops & to_bb:
            captured = chess.BISHOP
            board.bishops = bishops ^ to_bb
        elif rooks & to_bb:
            captured = chess.ROOK
            board.rooks = rooks ^ to_bb
        elif queens & to_bb:
            captured = chess.QUEEN
            board.queens = queens ^ to_bb
        else:
            captured = chess.KING
            board.kings = kings ^ to_bb
            if cr and pt != chess.KING and not promoted & to_bb:
                if us and to >= 56:
                    cr &= ~_RANK_8
                elif not us and to < 8:
                    cr &= ~_RANK_1
        key ^= PIECE_KEYS[captured][them][to]
        mg -= PST_MG[captured][them][to]
        eg -= PST_EG[captured][them][to]
        phase -= PHASE_INC[captured]
        occ_co[them] = occ_them ^ to_bb
        board.occupied = occupied ^ from_bb
        hmc = 0
        if promoted:
            promoted &= ~move_mask
    else:
        board.occupied = occupied ^ move_mask
        if promoted:
            promoted &= ~from_bb
        if pt == chess.PAWN:
            hmc = 0
            diff = to - frm
            if diff == 16 and frm >> 3 == 1:
                board.ep_square = frm + 8
                if _PAWN_ATTACKS[us][frm + 8] & pawns & occ_them:
                    key ^= EP_KEYS[frm & 7]
            elif diff == -16 and frm >> 3 == 6:
                board.ep_square = frm - 8
                if _PAWN_ATTACKS[us][frm - 8] & pawns & occ_them:
                    key ^= EP_KEYS[frm & 7]
            elif to == ep and (diff == 7 or diff == 9 or diff == -7 or diff == -9):
                # En passant: the captured pawn stands behind the target square.
                cap_sq = ep - 8 if us else ep + 8
                cap_bb = BB_SQUARES[cap_sq]
                pawns ^= cap_bb
                board.pawns = pawns
                occ_co[them] = occ_them ^ cap_bb
                board.occupied ^= cap_bb
                if promoted:
                    promoted &= ~cap_bb
                key ^= PIECE_KEYS[chess.PAWN][them][cap_sq]
                mg -= PST_MG[chess.PAWN][them][cap_sq]
                eg -= PST_EG[chess.PAWN][them][cap_sq]
    occ_co[us] = occ_us ^ move_mask

    promotion = move.promotion
    if promotion:
        board.pawns ^= from_bb
        if promotion == chess.QUEEN:
            board.queens ^= to_bb
        elif promotion == chess.KNIGHT:
            board.knights ^= to_bb
        elif promotion == chess.ROOK:
            board.rooks ^= to_bb
        else:
            board.bishops ^= to_bb
        board.promoted = promoted | to_bb
        phase += PHASE_INC[promotion]
        key ^= PIECE_KEYS[pt][us][frm] ^ PIECE_KEYS[promotion][us][to]
        mg += PST_MG[promotion][us][to] - PST_MG[pt][us][frm]
        eg += PST_EG[promotion][us][to] - PST_EG[pt][us][frm]
    else:
        if pt == chess.PAWN:
            board.pawns ^= move_mask
        elif pt == chess.KNIGHT:
            board.knights ^= move_mask
        elif pt == chess.BISHOP:
            board.bishops ^= move_mask
        elif pt == chess.ROOK:
            board.rooks ^= move_mask
        elif pt == chess.QUEEN:
            board.queens ^= move_mask
        else:
            board.kings ^= move_mask
        if promoted0:
            board.promoted = promoted | to_bb if promoted0 & from_bb else promoted
        key ^= PIECE_KEYS[pt][us][frm] ^ PIECE_KEYS[pt][us][to]
        mg += PST_MG[pt][us][to] - PST_MG[pt][us][frm]
        eg += PST_EG[pt][us][to] - PST_EG[pt][us][frm]

    board.halfmove_clock = hmc
    board.turn = them
    if cr != cr0:
        board.castling_rights = cr
        key ^= castle_key(cr0 ^ cr)
    return key, mg, eg, phase


def do_null(board: chess.Board, key: int) -> int:
    """Play a null move (pass) and return the new key (material is unchanged); undo with ``undo_move``."""
    occ_co = board.occupied_co
    us = board.turn
    ep = board.ep_square
    stack = board._stack
    saved = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
             occ_co[0], occ_co[1], board.occupied, board.promoted, us, board.castling_rights, ep,
             board.halfmove_clock, board.fullmove_number)
    if not stack:
        board.castling_rights = board.clean_castling_rights()
    stack.append(saved)
    board.move_stack.append(_NULL_MOVE)
    if ep is not None:
        if _PAWN_ATTACKS[not us][ep] & board.pawns & occ_co[us]:
            key ^= EP_KEYS[ep & 7]
        board.ep_square = None
    board.halfmove_clock += 1
    if not us:
        board.fullmove_number += 1
    board.turn = not us
    return key ^ TURN_KEY


def undo_move(board: chess.Board) -> None:
    """Take back the last ``do_move`` or ``do_null``: ``board`` equals the position before it."""
    board.move_stack.pop()
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings, white, black,
     board.occupied, board.promoted, board.turn, board.castling_rights, board.ep_square,
     board.halfmove_clock, board.fullmove_number) = board._stack.pop()
    occ_co = board.occupied_co
    occ_co[0] = white
    occ_co[1] = black
