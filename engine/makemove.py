"""Making moves on the search's own board (``pruner.engine.board.Position``) with incremental state.

Computing a Zobrist key from scratch (``chess.polyglot.zobrist_hash``) costs about 25 µs and
summing the piece-square tables about 15 µs; updating both from the move costs about 1.5 µs,
so the position carries its key and material/PST sums and ``do_move`` updates them.

The keys are ``pruner.engine.zobrist``'s.

The net's accumulator (``Position.acc``) is kept in the representation its net was made with
(``pruner.engine.nnue``): ``do_move_packed`` adds a packed one's columns inline (CPython's path,
the hottest function there) and skips the accumulator without a net; ``do_move_lists`` plays
the board with it, then makes a list accumulator's new value (PyPy's path). ``do_move`` takes
whichever ``pos`` needs; the search binds ``mover(pos)`` once instead.

``do_move`` follows python-chess's ``push`` rule for rule (castling given as e1g1 or as king
takes rook, en passant, promotions, castling rights, the fifty-move counter, the en-passant
square): tests/engine/test_fastpush.py checks every field against ``push`` on the perft suites.
"""

import chess

from pruner.engine.attacks import BETWEEN, BISHOP_RAYS, KNIGHT, LINE, PAWN_ATTACKS, ROOK_RAYS, SQUARES, signed
from pruner.engine.board import Position, in_check
from pruner.engine.evaluate import PHASE_INC
from pruner.engine.nnue import Pending, castled, moved
from pruner.engine.zobrist import EP_KEYS, PIECE_KEYS, TURN_KEY, castle_key

_RANK_1 = signed(chess.BB_RANK_1)
_RANK_8 = signed(chess.BB_RANK_8)
_NO_EXTRA = ()
_CHECKS = [[[0] * 64, PAWN_ATTACKS[color], KNIGHT, BISHOP_RAYS, ROOK_RAYS,
            [BISHOP_RAYS[sq] | ROOK_RAYS[sq] for sq in range(64)], [0] * 64] for color in (0, 1)]
"""``_CHECKS[color][piece][square]``: where a piece of ``color`` on ``square`` attacks on an
empty board (none for a king: it never gives check)."""


def do_move(pos: Position, move: int) -> bool:
    """Play ``move`` (a legal move code, ``pruner.engine.attacks``) on ``pos``; ``undo_move`` takes it back.
    Returns whether the move gives check (the side to move now is in check). Whatever ``pos``'s
    accumulator: ``do_move_packed`` or ``do_move_lists``, as ``mover`` says (the search calls
    that one itself, one call fewer)."""
    return mover(pos)(pos, move)


def mover(pos: Position):
    """The ``do_move`` body for ``pos``: ``do_move_lists`` when its net's accumulator is a list,
    ``do_move_lazy`` when it is a lazy one, else ``do_move_packed`` (a packed one, or none
    without a net)."""
    if pos.list_columns is None:
        return do_move_packed
    return do_move_lazy if pos.lazy else do_move_lists


def do_move_packed(pos: Position, move: int) -> bool:
    """``do_move`` on a position whose net's accumulator is packed (``Position.columns``: the
    columns are added inline) or that has no net accumulator to keep (``columns`` None: the
    accumulator is left as it is; ``do_move_lists`` plays the board with this, then makes
    the list's new value)."""
    # Hot path. Copy-on-make: the piece and colour lists are copied and changed, the old ones
    # go on the stack with the scalars, so undo_move restores by rebinding (no branch); the
    # square table changes in place and undo_move writes back the squares recorded here.
    frm = move >> 6 & 63
    to = move & 63
    squares = pos.squares
    pt = squares[frm]
    us = pos.turn
    them = us ^ 1
    old_bb = pos.bb
    old_occ = pos.occ
    bb = old_bb[:]
    occ = old_occ[:]
    occupied = pos.occupied
    cr = cr0 = pos.castling
    ep = pos.ep
    hmc = pos.hmc
    key = pos.key
    mg = pos.mg
    eg = pos.eg
    phase = pos.phase
    acc = pos.acc
    # The tables of the evaluator the position was set up with (``Position.pst_mg``, ...);
    # ``columns`` None (no net, or a list accumulator) skips the accumulator's lines.
    pst_mg = pos.pst_mg
    pst_eg = pos.pst_eg
    columns = pos.columns
    kings = pos.king_squares
    from_bb = SQUARES[frm]
    extra = _NO_EXTRA

    key ^= TURN_KEY
    if ep:
        if PAWN_ATTACKS[them][ep] & bb[1] & occ[us]:
            key ^= EP_KEYS[ep & 7]
    new_ep = 0

    if pt == 6:
        # As python-chess's _to_chess960: e1g1/e1c1 (e8g8/e8c8) mean king takes rook.
        if frm == 4 or frm == 60:
            if to == frm + 2 and not bb[4] & SQUARES[to]:
                to = frm + 3
            elif to == frm - 2 and not bb[4] & SQUARES[to]:
                to = frm - 4
        to_bb = SQUARES[to]
        if cr:
            cr &= ~(from_bb | to_bb) & (~_RANK_1 if us else ~_RANK_8)
        kings = kings[:]
        if occ[us] & to_bb:
            # Castling (king takes own rook): king and rook go to the g/f or c/d file.
            rank = 0 if us else 56
            if (to & 7) < (frm & 7):
                king_to, rook_to = rank + 2, rank + 3
            else:
                king_to, rook_to = rank + 6, rank + 5
            king_mask = from_bb ^ SQUARES[king_to]
            rook_mask = to_bb ^ SQUARES[rook_to]
            bb[6] ^= king_mask
            bb[4] ^= rook_mask
            occ[us] ^= king_mask ^ rook_mask
            occupied ^= king_mask ^ rook_mask
            kt, rt = PIECE_KEYS[6][us], PIECE_KEYS[4][us]
            key ^= kt[frm] ^ kt[king_to] ^ rt[to] ^ rt[rook_to]
            km, ke = pst_mg[6][us], pst_eg[6][us]
            rm, re = pst_mg[4][us], pst_eg[4][us]
            mg += km[king_to] - km[frm] + rm[rook_to] - rm[to]
            eg += ke[king_to] - ke[frm] + re[rook_to] - re[to]
            if columns is not None:
                kc, rc = columns[6][us], columns[4][us]
                acc += kc[king_to] - kc[frm] + rc[rook_to] - rc[to]
            kings[us] = king_to
            # Undo clears the new squares first, then puts king and rook back.
            pos.stack.append((old_bb, old_occ, pos.occupied, cr0, ep, hmc, pos.key, pos.mg, pos.eg, phase,
                              pos.king_squares, frm, 6, to, 4, ((king_to, 0), (rook_to, 0)), pos.acc))
            squares[frm] = 0
            squares[to] = 0
            squares[king_to] = 6
            squares[rook_to] = 4
            if cr != cr0:
                key ^= castle_key(cr0 ^ cr)
            pos.bb = bb
            pos.occ = occ
            pos.occupied = occupied
            pos.castling = cr
            pos.ep = 0
            pos.hmc = hmc + 1
            pos.turn = them
            pos.key = key
            pos.mg = mg
            pos.eg = eg
            pos.acc = acc
            pos.king_squares = kings
            return in_check(pos)
        kings[us] = to
    else:
        to_bb = SQUARES[to]
        if cr:
            cr &= ~(from_bb | to_bb)

    move_mask = from_bb | to_bb
    captured = squares[to]
    hmc += 1
    if captured:
        bb[captured] ^= to_bb
        occ[them] ^= to_bb
        occupied ^= from_bb
        key ^= PIECE_KEYS[captured][them][to]
        mg -= pst_mg[captured][them][to]
        eg -= pst_eg[captured][them][to]
        if columns is not None:
            acc -= columns[captured][them][to]
        phase -= PHASE_INC[captured]
        hmc = 0
    else:
        occupied ^= move_mask
        if pt == 1:
            hmc = 0
            diff = to - frm
            if diff == 16 and frm >> 3 == 1:
                new_ep = frm + 8
                if PAWN_ATTACKS[1][new_ep] & bb[1] & occ[0]:
                    key ^= EP_KEYS[frm & 7]
            elif diff == -16 and frm >> 3 == 6:
                new_ep = frm - 8
                if PAWN_ATTACKS[0][new_ep] & bb[1] & occ[1]:
                    key ^= EP_KEYS[frm & 7]
            elif to == ep and (diff == 7 or diff == 9 or diff == -7 or diff == -9):
                # En passant: the captured pawn stands behind the target square.
                cap_sq = ep - 8 if us else ep + 8
                cap_bb = SQUARES[cap_sq]
                bb[1] ^= cap_bb
                occ[them] ^= cap_bb
                occupied ^= cap_bb
                key ^= PIECE_KEYS[1][them][cap_sq]
                mg -= pst_mg[1][them][cap_sq]
                eg -= pst_eg[1][them][cap_sq]
                if columns is not None:
                    acc -= columns[1][them][cap_sq]
                squares[cap_sq] = 0
                extra = ((cap_sq, 1),)
    occ[us] ^= move_mask

    promotion = move >> 12
    if promotion:
        bb[1] ^= from_bb
        bb[promotion] ^= to_bb
        squares[to] = promotion
        phase += PHASE_INC[promotion]
        key ^= PIECE_KEYS[1][us][frm] ^ PIECE_KEYS[promotion][us][to]
        mg += pst_mg[promotion][us][to] - pst_mg[1][us][frm]
        eg += pst_eg[promotion][us][to] - pst_eg[1][us][frm]
        if columns is not None:
            acc += columns[promotion][us][to] - columns[1][us][frm]
    else:
        bb[pt] ^= move_mask
        squares[to] = pt
        keys = PIECE_KEYS[pt][us]
        key ^= keys[frm] ^ keys[to]
        table = pst_mg[pt][us]
        mg += table[to] - table[frm]
        table = pst_eg[pt][us]
        eg += table[to] - table[frm]
        if columns is not None:
            table = columns[pt][us]
            acc += table[to] - table[frm]
    squares[frm] = 0

    pos.stack.append((old_bb, old_occ, pos.occupied, cr0, ep, pos.hmc, pos.key, pos.mg, pos.eg, pos.phase,
                      pos.king_squares, frm, pt, to, captured, extra, pos.acc))
    if cr != cr0:
        key ^= castle_key(cr0 ^ cr)
    pos.bb = bb
    pos.occ = occ
    pos.occupied = occupied
    pos.castling = cr
    pos.ep = new_ep
    pos.hmc = hmc
    pos.turn = them
    pos.key = key
    pos.mg = mg
    pos.eg = eg
    pos.phase = phase
    pos.acc = acc
    pos.king_squares = kings

    # Does the move give check? Before it the opponent was not in check, so only the piece
    # now on ``to`` and the sliders behind the squares it left can give it: tables and a
    # between-mask, no attack lookup (en passant empties a third square: the full test).
    king = kings[them]
    if king < 0:
        return False
    if extra:
        return in_check(pos)
    # The moved piece: its attacks on an empty board reach the king and nothing stands
    # between (knights and pawns have nothing between); then the sliders behind ``frm``.
    # Tables instead of a branch per piece type: one path for every move (PyPy's JIT).
    if _CHECKS[us][promotion or pt][to] & SQUARES[king] and not BETWEEN[to << 6 | king] & occupied:
        return True
    line = LINE[king << 6 | frm]
    if line:
        # Discovered check: one of our sliders on the line through the king and ``frm``.
        sliders = (line & ROOK_RAYS[king] & (bb[4] | bb[5]) | line & BISHOP_RAYS[king] & (bb[3] | bb[5])) & occ[us]
        base = king << 6
        while sliders:
            square = 63 if sliders < 0 else sliders.bit_length() - 1
            sliders ^= SQUARES[square]
            if not BETWEEN[base | square] & occupied:
                return True
    return False


def _columns_moved(pos: Position):
    """The list columns of the move ``do_move_packed`` just played on ``pos``, as its undo entry
    records it: (added, removed, captured, rook_to) for ``nnue.moved`` (rook_to None: the piece
    now on ``to`` added, the one that left ``frm`` removed, the captured piece or the pawn taken
    en passant, else the zero column), or for castling the king's columns to and from and the
    rook's from and to (``nnue.castled``)."""
    entry = pos.stack[-1]
    frm = entry[11]
    to = entry[13]
    extra = entry[15]
    columns = pos.list_columns
    them = pos.turn
    us = them ^ 1
    if extra:
        square = extra[0][0]
        if len(extra) == 2:  # castling: (king's square, rook's square), the king came from frm, the rook from to
            kings, rooks = columns[6][us], columns[4][us]
            return kings[square], kings[frm], rooks[to], rooks[extra[1][0]]
        captured = columns[1][them][square]  # en passant
    else:
        captured = columns[entry[14]][them][to]
    return columns[pos.squares[to]][us][to], columns[entry[12]][us][frm], captured, None


def do_move_lists(pos: Position, move: int) -> bool:
    """``do_move`` on a position whose net's accumulator is a list (``Position.list_columns``):
    ``do_move_packed`` plays the board (its ``columns`` are None), then the accumulator's new
    list is made in one loop over the lanes from what the move did (``_columns_moved``)."""
    # PyPy's path (nnue.ListAccumulators): a separate function keeps CPython's do_move_packed
    # as it was, and the JIT inlines do_move_packed and _columns_moved here (the tuple never
    # leaves the trace).
    gives_check = do_move_packed(pos, move)
    added, removed, captured, rook_to = _columns_moved(pos)
    if rook_to is None:
        pos.acc = moved(pos.acc, added, removed, captured)
    else:
        pos.acc = castled(pos.acc, added, removed, rook_to, captured)
    return gives_check


def do_move_lazy(pos: Position, move: int) -> bool:
    """``do_move`` on a position whose net's accumulator is lazy (``Position.lazy``,
    ``nnue.LazyAccumulators``): as ``do_move_lists``, but the new accumulator is a
    ``nnue.Pending`` node holding the columns, computed only when the position is evaluated."""
    # Measured against do_move_lists: docs/nnue.md "Lazy accumulators".
    gives_check = do_move_packed(pos, move)
    added, removed, captured, rook_to = _columns_moved(pos)
    pos.acc = Pending(None, pos.acc, added, removed, captured, rook_to)
    return gives_check


def do_null(pos: Position) -> None:
    """Play a null move (pass); undo with ``undo_move``. The side to move was not in check, so
    after it neither side is."""
    us = pos.turn
    ep = pos.ep
    key = pos.key
    pos.stack.append((pos.bb, pos.occ, pos.occupied, pos.castling, ep, pos.hmc, key, pos.mg, pos.eg, pos.phase,
                      pos.king_squares, 64, 0, 64, 0, _NO_EXTRA, pos.acc))
    if ep:
        if PAWN_ATTACKS[us ^ 1][ep] & pos.bb[1] & pos.occ[us]:
            key ^= EP_KEYS[ep & 7]
        pos.ep = 0
    pos.hmc += 1
    pos.turn = us ^ 1
    pos.key = key ^ TURN_KEY


def undo_move(pos: Position) -> None:
    """Take back the last ``do_move`` or ``do_null``: ``pos`` equals the position before it."""
    (pos.bb, pos.occ, pos.occupied, pos.castling, pos.ep, pos.hmc, pos.key, pos.mg, pos.eg, pos.phase,
     pos.king_squares, frm, pt, to, captured, extra, pos.acc) = pos.stack.pop()
    squares = pos.squares
    for square, piece in extra:
        squares[square] = piece
    squares[to] = captured
    squares[frm] = pt
    pos.turn ^= 1
