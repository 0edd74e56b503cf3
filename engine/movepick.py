"""Move ordering: staged generation (hash move, good captures, killers, quiets by history,
losing captures), with static exchange evaluation (SEE) to tell good captures from bad.

Stages are generated lazily, so a node that cuts off on the hash move or a capture never
pays for quiet-move generation (the most expensive generation step; ``engine.movegen``
generates captures and quiets). Moves are move codes (``engine.attacks``) on the search's
own board (``engine.board.Position``).

Sorting without a key function: each move is packed with its score and its place in the
generated list into one integer (score, then earlier first, then the code), so a plain
``sort(reverse=True)`` gives exactly the stable descending sort by score that a key function
gave, without a function call per move.
"""

from typing import Iterator, List, Tuple

from engine.attacks import H8, SQUARES
from engine.board import Position, attackers
from engine.movegen import is_legal, legal_captures, legal_quiets, queen_promotions

PIECE_VALUE = (0, 100, 320, 330, 500, 900, 20000)
"""Plain piece values for capture ordering and delta pruning (index by piece type)."""

SEE_VALUE = (0, 100, 320, 330, 500, 900, 0)
"""Piece values for static exchange evaluation (a king is never really captured)."""

_ORDER_SHIFT = 23
"""Packing for the sorts: score << 23 | (255 - place) << 15 | move code (15 bits)."""
_CAPTURE_SCORE = [[PIECE_VALUE[victim] * 8 - attacker for attacker in range(7)] for victim in range(7)]
"""MVV-LVA score by victim and attacker type (victim 0: en passant, scored as a pawn)."""
_CAPTURE_SCORE[0] = _CAPTURE_SCORE[1]


def history_index(color: int, move: int) -> int:
    """Index of ``move`` by ``color`` in the flat history table (2 * 64 * 64 entries)."""
    return color << 12 | (move & 4095)


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
    """Legal captures and queen promotions, most valuable victim / least valuable attacker first."""
    squares = pos.squares
    packed = []
    place = 255 << 15
    for move in legal_captures(pos, in_check):
        score = _CAPTURE_SCORE[squares[move & 63]][squares[move >> 6 & 63]]
        if move >> 12 == 5:
            score += 800
        packed.append(score << _ORDER_SHIFT | place | move)
        place -= 1 << 15
    us = pos.turn
    if pos.bb[1] & pos.occ[us] & (0xFF << 48 if us else 0xFF << 8):
        for move in queen_promotions(pos, in_check):
            packed.append(6400 << _ORDER_SHIFT | place | move)
            place -= 1 << 15
    packed.sort(reverse=True)
    return [code & 32767 for code in packed]


def is_capture(pos: Position, move: int) -> bool:
    """python-chess's ``is_capture``: the target holds an enemy piece, or en passant."""
    to = move & 63
    if pos.occ[pos.turn ^ 1] & SQUARES[to]:
        return True
    frm = move >> 6 & 63
    return pos.ep != 0 and pos.ep == to and pos.squares[frm] == 1 and (to - frm) in (7, 9, -7, -9) \
        and not pos.occupied & SQUARES[to]


def ordered_moves(pos: Position, tt_move: int, killers: List[int], history: List[int],
                  in_check: bool) -> Iterator[Tuple[int, bool]]:
    """Yield ``(move, is_quiet)`` for every legal move, best-first by stage (``tt_move`` and
    killers 0 when there are none)."""
    if tt_move and is_legal(pos, tt_move):
        yield tt_move, not (is_capture(pos, tt_move) or tt_move >> 12 == 5)

    losing = []
    for move in tactical_moves(pos, in_check):
        if move != tt_move:
            if loses_material(pos, move):
                losing.append(move)  # bad captures go after the quiet moves
            else:
                yield move, False

    first = second = tt_move  # the killers yielded (tt_move when none)
    for killer in killers:
        if killer and killer != tt_move and killer != first and is_legal(pos, killer) \
                and not is_capture(pos, killer) and killer >> 12 != 5:
            if first == tt_move:
                first = killer
            else:
                second = killer
            yield killer, True

    base = pos.turn << 12
    packed = []
    place = 255 << 15
    for move in legal_quiets(pos, in_check):
        if move >> 12 != 5 and move != tt_move and move != first and move != second:
            packed.append(history[base | (move & 4095)] << _ORDER_SHIFT | place | move)
            place -= 1 << 15
    packed.sort(reverse=True)
    for code in packed:
        yield code & 32767, True
    for move in losing:
        yield move, False
