"""Move ordering: staged generation (hash move, good captures, killers, quiets by history,
losing captures), with static exchange evaluation (SEE) to tell good captures from bad. The
killers and the history are ``pruner.engine.history``'s; this module only reads them.

Stages are generated lazily, so a node that cuts off on the hash move or a capture never
pays for quiet-move generation (the most expensive generation step; ``pruner.engine.movegen``
generates captures and quiets). Moves are move codes (``pruner.engine.attacks``) on the search's
own board (``pruner.engine.board.Position``).

Sorting without a key function: each move is packed with its score and its place in the
generated list into one integer (score, then earlier first, then the code), so a plain
``sort(reverse=True)`` gives exactly the stable descending sort by score that a key function
gave, without a function call per move.
"""

from typing import Iterator, List, Tuple

from pruner.engine.attacks import (BACKRANKS, DIAG_ATTACKS, DIAG_MASKS, FILE_ATTACKS, FILE_MASKS, H8, KING, KNIGHT, LINE,
                            PAWN_ATTACKS, RANK_ATTACKS, RANK_MASKS, SQUARES)
from pruner.engine.board import Position, attackers
from pruner.engine.history import MoveStats
from pruner.engine.movegen import (ep_captures as _ep_captures, is_legal, legal_captures, legal_quiets, queen_promotions,
                            slider_blockers)

PIECE_VALUE = (0, 100, 320, 330, 500, 900, 20000)
"""Plain piece values for capture ordering and delta pruning (index by piece type)."""

SEE_VALUE = (0, 100, 320, 330, 500, 900, 0)
"""Piece values for static exchange evaluation (a king is never really captured)."""

_ORDER_SHIFT = 23
"""Packing for the sorts: score << 23 | (255 - place) << 15 | move code (15 bits)."""
_CAPTURE_SCORE = [[PIECE_VALUE[victim] * 8 - attacker for attacker in range(7)] for victim in range(7)]
"""MVV-LVA score by victim and attacker type (victim 0: en passant, scored as a pawn)."""
_CAPTURE_SCORE[0] = _CAPTURE_SCORE[1]


def see(pos: Position, move: int) -> int:
    """Static exchange evaluation: material the mover wins on the target square if both sides
    keep recapturing with their least valuable attacker (pins ignored, x-rays included)."""
    to = move & 63
    frm = move >> 6 & 63
    squares = pos.squares
    us = pos.turn
    occupied = pos.occupied ^ SQUARES[frm]
    victim = squares[to]
    if not victim and pos.ep and pos.ep == to and squares[frm] == 1:
        victim = 1
        occupied ^= SQUARES[to - 8 if us else to + 8]
    gains = [SEE_VALUE[victim]]
    on_square = squares[frm]
    promotion = move >> 12
    if promotion:
        gains[0] += SEE_VALUE[promotion] - SEE_VALUE[1]
        on_square = promotion
    side = us ^ 1
    bb = pos.bb
    by_type = (bb[1], bb[2], bb[3], bb[4], bb[5], bb[6])
    while True:
        found = attackers(pos, side, to, occupied) & occupied
        if not found:
            break
        for index, pieces in enumerate(by_type):
            mine = pieces & found
            if mine:
                break
        least = mine & -mine if mine != H8 else H8
        if index == 5 and attackers(pos, side ^ 1, to, occupied ^ least) & occupied:
            break  # the king cannot recapture onto a defended square
        gains.append(SEE_VALUE[on_square] - gains[-1])
        on_square = index + 1
        occupied ^= least
        side ^= 1
    for depth in range(len(gains) - 1, 0, -1):
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
    return gains[0]


def loses_material(pos: Position, move: int) -> bool:
    """True when a capture or promotion loses material by SEE (cheap test first: a capture of
    a piece worth at least the capturer never loses)."""
    squares = pos.squares
    victim = squares[move & 63]
    if victim and SEE_VALUE[victim] >= SEE_VALUE[squares[move >> 6 & 63]]:
        return False
    return see(pos, move) < 0


def tactical_moves(pos: Position, in_check: bool) -> List[int]:
    """Legal captures and queen promotions, most valuable victim / least valuable attacker first
    (``legal_captures`` then ``queen_promotions``, sorted by score, stable)."""
    us = pos.turn
    king = pos.king_squares[us]
    squares = pos.squares
    if in_check or king < 0:
        packed = []
        place = 255 << 15
        for move in legal_captures(pos, in_check):
            score = _CAPTURE_SCORE[squares[move & 63]][squares[move >> 6 & 63]]
            if move >> 12 == 5:
                score += 800
            packed.append(score << _ORDER_SHIFT | place | move)
            place -= 1 << 15
    else:
        packed = _scored_captures(pos, us, king, squares)
        place = (255 - len(packed)) << 15
    if pos.bb[1] & pos.occ[us] & (0xFF << 48 if us else 0xFF << 8):
        for move in queen_promotions(pos, in_check):
            packed.append(6400 << _ORDER_SHIFT | place | move)
            place -= 1 << 15
    packed.sort(reverse=True)
    return [code & 32767 for code in packed]


def _scored_captures(pos: Position, us: int, king: int, squares: List[int]) -> List[int]:
    """``legal_captures`` of a side not in check, each packed with its MVV-LVA score and its
    place for the sort."""
    # Hot path (every quiescence node): pruner.engine.movegen's capture loop with the scoring inside,
    # one pass and one list instead of two; the same moves in the same order (tests/engine/
    # test_movegen.py compares the result with python-chess's captures sorted by score).
    them = us ^ 1
    bb = pos.bb
    occ = pos.occ
    opp = occ[them]
    own = occ[us]
    occupied = pos.occupied
    blockers = slider_blockers(pos, king, us)
    packed: List[int] = []
    append = packed.append
    place = 255 << 15
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
                    append(_CAPTURE_SCORE[squares[to]][6] << _ORDER_SHIFT | place | base | to)
                    place -= 32768
            continue
        if blockers & SQUARES[frm]:
            targets &= LINE[base | king]  # a pinned piece moves along its pin only
        while targets:
            to = 63 if targets < 0 else targets.bit_length() - 1
            targets ^= SQUARES[to]
            append(_CAPTURE_SCORE[squares[to]][pt] << _ORDER_SHIFT | place | base | to)
            place -= 32768

    pawn_attacks = PAWN_ATTACKS[us]
    while pawns:
        frm = pawns.bit_length() - 1  # pawns never stand on h8
        pawns ^= SQUARES[frm]
        targets = pawn_attacks[frm] & opp
        if not targets:
            continue
        base = frm << 6
        if blockers & SQUARES[frm]:
            targets &= LINE[base | king]
        while targets:
            to = 63 if targets < 0 else targets.bit_length() - 1
            targets ^= SQUARES[to]
            score = _CAPTURE_SCORE[squares[to]][1]
            if SQUARES[to] & BACKRANKS:
                base_to = base | to
                append((score + 800) << _ORDER_SHIFT | place | base_to | 20480)
                append(score << _ORDER_SHIFT | (place - 32768) | base_to | 16384)
                append(score << _ORDER_SHIFT | (place - 65536) | base_to | 12288)
                append(score << _ORDER_SHIFT | (place - 98304) | base_to | 8192)
                place -= 131072
            else:
                append(score << _ORDER_SHIFT | place | base | to)
                place -= 32768

    if pos.ep:
        for move in _ep_captures(pos, king, blockers):
            append(_CAPTURE_SCORE[0][1] << _ORDER_SHIFT | place | move)
            place -= 32768
    return packed


def is_capture(pos: Position, move: int) -> bool:
    """python-chess's ``is_capture``: the target holds an enemy piece, or en passant."""
    to = move & 63
    if pos.occ[pos.turn ^ 1] & SQUARES[to]:
        return True
    frm = move >> 6 & 63
    return pos.ep != 0 and pos.ep == to and pos.squares[frm] == 1 and (to - frm) in (7, 9, -7, -9) \
        and not pos.occupied & SQUARES[to]


def killer_moves(pos: Position, killers: List[int], tt_move: int) -> List[int]:
    """The killers to try here, in order: legal, quiet (no capture, no queen promotion), not
    the hash move, each once."""
    moves: List[int] = []
    for killer in killers:
        if killer and killer != tt_move and killer not in moves and is_legal(pos, killer) \
                and not is_capture(pos, killer) and killer >> 12 != 5:
            moves.append(killer)
    return moves


def quiet_moves(pos: Position, in_check: bool, history: List[int], tt_move: int, killers: List[int]) -> List[int]:
    """The quiet moves (queen promotions are tactical), less the hash move and the killers
    tried, by ``history`` (``MoveStats.history``; stable: generation order among equals)."""
    base = pos.turn << 12  # pruner.engine.history.history_index, inline: one call fewer per move
    packed = []
    place = 255 << 15
    for move in legal_quiets(pos, in_check):
        if move >> 12 != 5 and move != tt_move and move not in killers:
            packed.append(history[base | (move & 4095)] << _ORDER_SHIFT | place | move)
            place -= 1 << 15
    packed.sort(reverse=True)
    return [code & 32767 for code in packed]


def ordered_moves(pos: Position, tt_move: int, stats: MoveStats, ply: int,
                  in_check: bool) -> Iterator[Tuple[int, bool]]:
    """Yield ``(move, is_quiet)`` for every legal move, best-first by stage (``tt_move`` 0 when
    there is none; the killers of ``ply`` and the history from ``stats``). The search's move
    loop runs the same stages inline."""
    if tt_move and is_legal(pos, tt_move):
        yield tt_move, not (is_capture(pos, tt_move) or tt_move >> 12 == 5)

    losing = []
    for move in tactical_moves(pos, in_check):
        if move != tt_move:
            if loses_material(pos, move):
                losing.append(move)  # bad captures go after the quiet moves
            else:
                yield move, False

    tried = killer_moves(pos, stats.killers(ply), tt_move)
    for killer in tried:
        yield killer, True
    for move in quiet_moves(pos, in_check, stats.history, tt_move, tried):
        yield move, True
    for move in losing:
        yield move, False
