"""Legal move generation on the search's own board (``pruner.engine.board.Position``), as move codes.

Every list comes out in python-chess's order, move for move (pieces from the highest square
down, each to its targets from the highest down, then castling, pawn captures, single and
double pushes, en passant; in check python-chess's evasions), so the stable sorts of move
ordering, the search and its node counts are what they were with python-chess's generators.
tests/engine/test_movegen.py checks the equality on the perft suites and random games.

* ``generate(pos, from_mask, to_mask)``: python-chess's ``generate_legal_moves``.
* ``legal_captures(pos, in_check)``: ``generate_legal_captures`` (captures, then en passant).
* ``legal_quiets(pos, in_check)``: the legal moves that capture nothing (``generate_legal_moves``
  to the squares the opponent does not occupy, less en passant).
* ``queen_promotions(pos, in_check)``: the legal non-capturing promotions to a queen.
* ``is_legal(pos, move)``: python-chess's ``is_legal`` for the moves these functions produce.

The captures and quiets of a side not in check (most nodes) have their own plain loops;
everything else goes through ``generate``, a line-by-line port of python-chess's generator.
The highest square of a bitboard is written out (``63 if bb < 0 else bb.bit_length() - 1``,
``pruner.engine.attacks.msb``) in these loops: a call per square cost CPython about 3% of the bench.
"""

from typing import List

from pruner.engine.attacks import (ALL, BACKRANKS, BETWEEN, BISHOP_RAYS, DIAG_ATTACKS, DIAG_MASKS, FILE_ATTACKS,
                            FILE_MASKS, KING, KNIGHT, LINE, PAWN_ATTACKS, RANK_ATTACKS, RANK_MASKS, RANKS,
                            ROOK_RAYS, SQUARES)
from pruner.engine.board import Position, attackers

_PROMOTIONS = (5 << 12, 4 << 12, 3 << 12, 2 << 12)
"""python-chess's promotion order: queen, rook, bishop, knight."""


def slider_blockers(pos: Position, king: int, us: int) -> int:
    """Our pieces that are the only piece between our king and an enemy slider (pinned)."""
    bb = pos.bb
    queens = bb[5]
    snipers = ((ROOK_RAYS[king] & (bb[4] | queens)) | (BISHOP_RAYS[king] & (bb[3] | queens))) & pos.occ[us ^ 1]
    if not snipers:
        return 0
    occupied = pos.occupied
    blockers = 0
    base = king << 6
    while snipers:
        sniper = 63 if snipers < 0 else snipers.bit_length() - 1
        snipers ^= SQUARES[sniper]
        between = BETWEEN[base | sniper] & occupied  # never holds h8 (a corner)
        if between and not between & (between - 1):
            blockers |= between
    return blockers & pos.occ[us]


def piece_attacks(pt: int, square: int, occupied: int) -> int:
    """Squares a knight, bishop, rook, queen or king (``pt``) on ``square`` attacks."""
    if pt == 2:
        return KNIGHT[square]
    if pt == 6:
        return KING[square]
    attacks = 0
    if pt != 4:
        attacks = DIAG_ATTACKS[square][DIAG_MASKS[square] & occupied]
    if pt != 3:
        attacks |= (RANK_ATTACKS[square][RANK_MASKS[square] & occupied]
                    | FILE_ATTACKS[square][FILE_MASKS[square] & occupied])
    return attacks


def _ep_safe(pos: Position, king: int, blockers: int, capturer: int) -> bool:
    """python-chess's ``_is_safe`` for an en-passant capture: the capturer not pinned off the
    line, and the king not exposed along the rank (or a diagonal) when both pawns leave."""
    ep = pos.ep
    if blockers & SQUARES[capturer] and not LINE[capturer << 6 | ep] & SQUARES[king]:
        return False
    us = pos.turn
    last_double = ep - 8 if us else ep + 8
    occupancy = pos.occupied & ~SQUARES[last_double] & ~SQUARES[capturer] | SQUARES[ep]
    bb = pos.bb
    them = pos.occ[us ^ 1]
    if RANK_ATTACKS[king][RANK_MASKS[king] & occupancy] & them & (bb[4] | bb[5]):
        return False
    if DIAG_ATTACKS[king][DIAG_MASKS[king] & occupancy] & them & (bb[3] | bb[5]):
        return False
    return True


def _pseudo_ep(pos: Position, from_mask: int, to_mask: int, king: int, blockers: int, moves: List[int]) -> None:
    """python-chess's ``generate_pseudo_legal_ep``, kept when safe (all of them without a king)."""
    ep = pos.ep
    if not ep or not SQUARES[ep] & to_mask or SQUARES[ep] & pos.occupied:
        return
    us = pos.turn
    capturers = pos.bb[1] & pos.occ[us] & from_mask & PAWN_ATTACKS[us ^ 1][ep] & RANKS[4 if us else 3]
    while capturers:
        frm = 63 if capturers < 0 else capturers.bit_length() - 1
        capturers ^= SQUARES[frm]
        if king < 0 or _ep_safe(pos, king, blockers, frm):
            moves.append(frm << 6 | ep)


def ep_captures(pos: Position, king: int, blockers: int) -> List[int]:
    """The legal en-passant captures of a side not in check (``king``: its square, ``blockers``:
    its pinned pieces)."""
    moves: List[int] = []
    _pseudo_ep(pos, ALL, ALL, king, blockers, moves)
    return moves


def _castling(pos: Position, from_mask: int, to_mask: int, moves: List[int]) -> None:
    """python-chess's ``generate_castling_moves`` (standard notation e1g1 unless Chess960)."""
    us = pos.turn
    king = pos.king_squares[us]
    backrank = RANKS[0] if us else RANKS[7]
    if king < 0:
        return
    king_bb = SQUARES[king]
    if not king_bb & backrank & from_mask:
        return
    candidates = pos.castling & backrank & to_mask
    occupied = pos.occupied
    them = us ^ 1
    rank = 0 if us else 56
    while candidates:
        candidate = 63 if candidates < 0 else candidates.bit_length() - 1
        candidates ^= SQUARES[candidate]
        rook = SQUARES[candidate]
        if candidate < king:
            king_to, rook_to = rank + 2, rank + 3
        else:
            king_to, rook_to = rank + 6, rank + 5
        king_to_bb = SQUARES[king_to]
        rook_to_bb = SQUARES[rook_to]
        king_path = BETWEEN[king << 6 | king_to]
        rook_path = BETWEEN[candidate << 6 | rook_to]
        if (occupied ^ king_bb ^ rook) & (king_path | rook_path | king_to_bb | rook_to_bb):
            continue
        if _attacked_for_king(pos, them, king_path | king_bb, occupied ^ king_bb):
            continue
        if _attacked_for_king(pos, them, king_to_bb, occupied ^ king_bb ^ rook ^ rook_to_bb):
            continue
        if not pos.chess960 and (king == 4 or king == 60) and (candidate & 7 == 7 or candidate & 7 == 0) \
                and candidate >> 3 == king >> 3:
            moves.append(king << 6 | king_to)  # python-chess's _from_chess960: e1g1, e1c1, e8g8, e8c8
        else:
            moves.append(king << 6 | candidate)


def _attacked_for_king(pos: Position, them: int, path: int, occupied: int) -> bool:
    while path:
        square = 63 if path < 0 else path.bit_length() - 1
        path ^= SQUARES[square]
        if attackers(pos, them, square, occupied):
            return True
    return False


def _pseudo(pos: Position, from_mask: int, to_mask: int, king: int, blockers: int, moves: List[int],
            en_passant: bool = True) -> None:
    """python-chess's ``generate_pseudo_legal_moves`` filtered by its ``_is_safe`` (no filter
    when ``king`` is -1: no king); ``en_passant=False`` leaves en-passant captures out."""
    us = pos.turn
    them = us ^ 1
    bb = pos.bb
    occ = pos.occ
    own = occ[us]
    occupied = pos.occupied
    squares = pos.squares
    append = moves.append
    king_bb = SQUARES[king] if king >= 0 else 0

    pieces = own & ~bb[1] & from_mask
    while pieces:
        frm = 63 if pieces < 0 else pieces.bit_length() - 1
        pieces ^= SQUARES[frm]
        targets = piece_attacks(squares[frm], frm, occupied) & ~own & to_mask
        base = frm << 6
        if frm == king:
            while targets:
                to = 63 if targets < 0 else targets.bit_length() - 1
                targets ^= SQUARES[to]
                if not attackers(pos, them, to, occupied):
                    append(base | to)
        elif blockers & SQUARES[frm]:
            while targets:
                to = 63 if targets < 0 else targets.bit_length() - 1
                targets ^= SQUARES[to]
                if LINE[base | to] & king_bb:
                    append(base | to)
        else:
            while targets:
                to = 63 if targets < 0 else targets.bit_length() - 1
                targets ^= SQUARES[to]
                append(base | to)

    if from_mask & bb[6]:
        _castling(pos, from_mask, to_mask, moves)

    pawns = bb[1] & own & from_mask
    if not pawns:
        return
    pawn_attacks = PAWN_ATTACKS[us]
    opp = occ[them] & to_mask
    capturers = pawns
    while capturers:
        frm = 63 if capturers < 0 else capturers.bit_length() - 1
        capturers ^= SQUARES[frm]
        targets = pawn_attacks[frm] & opp
        base = frm << 6
        pinned = blockers & SQUARES[frm]
        while targets:
            to = 63 if targets < 0 else targets.bit_length() - 1
            targets ^= SQUARES[to]
            if pinned and not LINE[base | to] & king_bb:
                continue
            if SQUARES[to] & BACKRANKS:
                for promotion in _PROMOTIONS:
                    append(base | to | promotion)
            else:
                append(base | to)

    empty = ~occupied
    if us:
        single = pawns << 8  # pawns stand on ranks 2-7: only h7 reaches the sign bit
        if single >> 63:
            single -= 1 << 64
        single &= empty
        double = (single & RANKS[2]) << 8 & empty
        step = 8
    else:
        single = pawns >> 8 & empty
        double = (single & RANKS[5]) >> 8 & empty
        step = -8
    single &= to_mask
    double &= to_mask
    while single:
        to = 63 if single < 0 else single.bit_length() - 1
        single ^= SQUARES[to]
        frm = to - step
        if blockers & SQUARES[frm] and not LINE[frm << 6 | to] & king_bb:
            continue
        if SQUARES[to] & BACKRANKS:
            for promotion in _PROMOTIONS:
                append(frm << 6 | to | promotion)
        else:
            append(frm << 6 | to)
    while double:
        to = 63 if double < 0 else double.bit_length() - 1
        double ^= SQUARES[to]
        frm = to - 2 * step
        if blockers & SQUARES[frm] and not LINE[frm << 6 | to] & king_bb:
            continue
        append(frm << 6 | to)

    if en_passant and pos.ep:
        _pseudo_ep(pos, from_mask, to_mask, king, blockers, moves)


def _evasions(pos: Position, king: int, checkers: int, blockers: int, from_mask: int, to_mask: int,
              moves: List[int]) -> None:
    """python-chess's ``_generate_evasions`` filtered by ``_is_safe``."""
    us = pos.turn
    them = us ^ 1
    bb = pos.bb
    occupied = pos.occupied
    sliders = checkers & (bb[3] | bb[4] | bb[5])
    attacked = 0
    while sliders:
        checker = 63 if sliders < 0 else sliders.bit_length() - 1
        sliders ^= SQUARES[checker]
        attacked |= LINE[king << 6 | checker] & ~SQUARES[checker]
    if SQUARES[king] & from_mask:
        targets = KING[king] & ~pos.occ[us] & ~attacked & to_mask
        while targets:
            to = 63 if targets < 0 else targets.bit_length() - 1
            targets ^= SQUARES[to]
            if not attackers(pos, them, to, occupied):
                moves.append(king << 6 | to)
    checker = 63 if checkers < 0 else checkers.bit_length() - 1
    if SQUARES[checker] == checkers:
        # Capture or block a single checker.
        target = BETWEEN[king << 6 | checker] | checkers
        _pseudo(pos, ~bb[6] & from_mask, target & to_mask, king, blockers, moves)
        ep = pos.ep
        if ep and not SQUARES[ep] & target:
            # Capture the checking pawn en passant.
            if (ep - 8 if us else ep + 8) == checker:
                _pseudo_ep(pos, from_mask, to_mask, king, blockers, moves)


def generate(pos: Position, from_mask: int = ALL, to_mask: int = ALL) -> List[int]:
    """python-chess's ``generate_legal_moves(from_mask, to_mask)`` as a list of move codes."""
    moves: List[int] = []
    us = pos.turn
    king = pos.king_squares[us]
    if king < 0:
        _pseudo(pos, from_mask, to_mask, -1, 0, moves)
        return moves
    blockers = slider_blockers(pos, king, us)
    checkers = attackers(pos, us ^ 1, king, pos.occupied)
    if checkers:
        _evasions(pos, king, checkers, blockers, from_mask, to_mask, moves)
    else:
        _pseudo(pos, from_mask, to_mask, king, blockers, moves)
    return moves


def _legal_ep(pos: Position, moves: List[int]) -> None:
    """python-chess's ``generate_legal_ep``: en-passant captures that do not leave the king in check."""
    ep = pos.ep
    if not ep:
        return
    us = pos.turn
    king = pos.king_squares[us]
    if king < 0:
        _pseudo_ep(pos, ALL, ALL, -1, 0, moves)
        return
    checkers = attackers(pos, us ^ 1, king, pos.occupied)
    if checkers:
        # Legal only as an evasion: a single checker, the pawn that just moved or one the
        # capture blocks.
        checker = 63 if checkers < 0 else checkers.bit_length() - 1
        if SQUARES[checker] != checkers:
            return
        if not SQUARES[ep] & BETWEEN[king << 6 | checker] and (ep - 8 if us else ep + 8) != checker:
            return
    _pseudo_ep(pos, ALL, ALL, king, slider_blockers(pos, king, us), moves)


def legal_captures(pos: Position, in_check: bool) -> List[int]:
    """python-chess's ``list(generate_legal_captures())`` as move codes. ``in_check``: whether
    the side to move is in check (the caller knows)."""
    us = pos.turn
    them = us ^ 1
    king = pos.king_squares[us]
    occ = pos.occ
    opp = occ[them]
    if in_check or king < 0:
        moves = generate(pos, ALL, opp)
        _legal_ep(pos, moves)
        return moves
    # Hot path (quiescence): python-chess's generator for the captures of a side not in check,
    # in one plain loop (no masks to carry, no castling or pushes to skip).
    bb = pos.bb
    own = occ[us]
    occupied = pos.occupied
    squares = pos.squares
    blockers = slider_blockers(pos, king, us)
    king_bb = SQUARES[king]
    moves: List[int] = []
    append = moves.append
    pawns = bb[1] & own

    pieces = own & ~pawns
    while pieces:
        frm = 63 if pieces < 0 else pieces.bit_length() - 1
        pieces ^= SQUARES[frm]
        pt = squares[frm]
        if pt == 2:
            targets = KNIGHT[frm] & opp
        elif pt == 6:
            targets = KING[frm] & opp
        else:
            targets = 0
            if pt != 4:
                targets = DIAG_ATTACKS[frm][DIAG_MASKS[frm] & occupied]
            if pt != 3:
                targets |= (RANK_ATTACKS[frm][RANK_MASKS[frm] & occupied]
                            | FILE_ATTACKS[frm][FILE_MASKS[frm] & occupied])
            targets &= opp
        if not targets:
            continue
        base = frm << 6
        if frm == king:
            while targets:
                to = 63 if targets < 0 else targets.bit_length() - 1
                targets ^= SQUARES[to]
                if not attackers(pos, them, to, occupied):
                    append(base | to)
        elif blockers & SQUARES[frm]:
            while targets:
                to = 63 if targets < 0 else targets.bit_length() - 1
                targets ^= SQUARES[to]
                if LINE[base | to] & king_bb:
                    append(base | to)
        else:
            while targets:
                to = 63 if targets < 0 else targets.bit_length() - 1
                targets ^= SQUARES[to]
                append(base | to)

    pawn_attacks = PAWN_ATTACKS[us]
    while pawns:
        frm = 63 if pawns < 0 else pawns.bit_length() - 1
        pawns ^= SQUARES[frm]
        targets = pawn_attacks[frm] & opp
        if not targets:
            continue
        base = frm << 6
        pinned = blockers & SQUARES[frm]
        while targets:
            to = 63 if targets < 0 else targets.bit_length() - 1
            targets ^= SQUARES[to]
            if pinned and not LINE[base | to] & king_bb:
                continue
            if SQUARES[to] & BACKRANKS:
                append(base | to | 20480)
                append(base | to | 16384)
                append(base | to | 12288)
                append(base | to | 8192)
            else:
                append(base | to)

    if pos.ep:
        _pseudo_ep(pos, ALL, ALL, king, blockers, moves)
    return moves


def legal_quiets(pos: Position, in_check: bool) -> List[int]:
    """The legal moves that capture nothing, in python-chess's order: ``generate_legal_moves``
    to the squares the opponent does not occupy, less its en-passant captures (which land on
    an empty square and are captures all the same)."""
    us = pos.turn
    king = pos.king_squares[us]
    moves: List[int] = []
    if in_check or king < 0:
        moves = generate(pos, ALL, ~pos.occ[us ^ 1])
        ep = pos.ep
        if ep:
            # A pawn move onto the en-passant square is always the en-passant capture.
            squares = pos.squares
            moves = [move for move in moves if not ((move & 63) == ep and squares[move >> 6 & 63] == 1)]
        return moves
    _pseudo(pos, ALL, ~pos.occ[us ^ 1], king, slider_blockers(pos, king, us), moves, False)
    return moves


def queen_promotions(pos: Position, in_check: bool) -> List[int]:
    """The legal promotions to a queen that capture nothing (python-chess's
    ``generate_legal_moves(pawns, back ranks & ~occupied)``, queens only)."""
    us = pos.turn
    pawns = pos.bb[1] & pos.occ[us] & (RANKS[6] if us else RANKS[1])
    if not pawns:
        return []
    moves = generate(pos, pawns, BACKRANKS & ~pos.occupied)
    return [move for move in moves if move >> 12 == 5]


def is_legal(pos: Position, move: int) -> bool:
    """python-chess's ``is_legal`` for a move code as these generators write it (castling as
    e1g1 on a standard board, king takes rook in Chess960)."""
    frm = move >> 6 & 63
    if not pos.occ[pos.turn] & SQUARES[frm]:
        return False
    return move in generate(pos, SQUARES[frm], ALL)

