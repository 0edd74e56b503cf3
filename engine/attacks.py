"""Attack tables and move codes for the search's own board (``pruner.engine.board``).

Bitboards here are *signed* 64-bit integers: square h8 (bit 63) is the sign bit, so a
bitboard holding h8 is negative. PyPy keeps an integer in a machine word only while it fits
in a signed 64-bit word; python-chess's unsigned bitboards with h8 set (black's rook in most
openings) are big integers there, about a hundred times slower to AND, OR and XOR than
machine words, and every result is a new object. AND, OR, XOR and NOT give the same bits
on signed values (Python's integers behave as infinite two's complement), so the tables are
python-chess's own (``chess.BB_*``), only converted. What differs, and is handled where it
is used: the highest set bit (``msb``: 63 for any negative value), ``x & -x`` and
``x & (x - 1)`` when ``x`` is h8 alone (``H8``), and shifts.

Moves inside the tree are plain integers: ``from_square << 6 | to_square | promotion << 12``
(``chess.Move`` only at the boundary: ``to_move``, ``from_move``). The low twelve bits are the
history table's index within one colour.
"""

from typing import List, Optional

import chess

MASK64 = (1 << 64) - 1


def signed(bb: int) -> int:
    """python-chess's unsigned bitboard as a signed one (h8 is the sign bit); a signed one stays."""
    return bb - (1 << 64) if bb >= 1 << 63 else bb


def unsigned(bb: int) -> int:
    """A signed bitboard as python-chess's unsigned one."""
    return bb & MASK64


SQUARES: List[int] = [signed(1 << sq) for sq in range(64)]
"""Bitboard of each square."""
H8 = SQUARES[63]
"""The sign bit: ``-2**63``, h8 alone."""
ALL = -1
"""Every square."""

KNIGHT: List[int] = [signed(bb) for bb in chess.BB_KNIGHT_ATTACKS]
KING: List[int] = [signed(bb) for bb in chess.BB_KING_ATTACKS]
PAWN_ATTACKS: List[List[int]] = [[signed(bb) for bb in chess.BB_PAWN_ATTACKS[color]] for color in (0, 1)]
"""``PAWN_ATTACKS[color][square]``: squares a pawn of ``color`` on ``square`` attacks."""

# Sliding attacks as python-chess computes them: the blockers on a line (edges excluded,
# so a key never holds h8 and is never negative) index a dict of attack sets.
RANK_MASKS: List[int] = list(chess.BB_RANK_MASKS)
FILE_MASKS: List[int] = list(chess.BB_FILE_MASKS)
DIAG_MASKS: List[int] = list(chess.BB_DIAG_MASKS)
RANK_ATTACKS = [{key: signed(bb) for key, bb in table.items()} for table in chess.BB_RANK_ATTACKS]
FILE_ATTACKS = [{key: signed(bb) for key, bb in table.items()} for table in chess.BB_FILE_ATTACKS]
DIAG_ATTACKS = [{key: signed(bb) for key, bb in table.items()} for table in chess.BB_DIAG_ATTACKS]
ROOK_RAYS: List[int] = [RANK_ATTACKS[sq][0] | FILE_ATTACKS[sq][0] for sq in range(64)]
"""Rook attacks from each square on an empty board."""
BISHOP_RAYS: List[int] = [DIAG_ATTACKS[sq][0] for sq in range(64)]
"""Bishop attacks from each square on an empty board."""

BETWEEN: List[int] = [signed(chess.between(a, b)) for a in range(64) for b in range(64)]
"""``BETWEEN[a << 6 | b]``: the squares strictly between ``a`` and ``b`` on a line (else 0)."""
LINE: List[int] = [signed(chess.BB_RAYS[a][b]) for a in range(64) for b in range(64)]
"""``LINE[a << 6 | b]``: the whole line through ``a`` and ``b`` (python-chess's ``ray``), else 0."""

FILES: List[int] = [signed(bb) for bb in chess.BB_FILES]
RANKS: List[int] = [signed(bb) for bb in chess.BB_RANKS]
BACKRANKS = signed(chess.BB_RANK_1 | chess.BB_RANK_8)

assert all(mask >= 0 for mask in RANK_MASKS + FILE_MASKS + DIAG_MASKS)


def msb(bb: int) -> int:
    """Highest set square of a non-empty signed bitboard (python-chess's ``msb``)."""
    return 63 if bb < 0 else bb.bit_length() - 1


def popcount(bb: int) -> int:
    """Number of squares in a signed bitboard."""
    if bb < 0:
        return bin(bb & 0x7FFF_FFFF_FFFF_FFFF).count("1") + 1
    return bin(bb).count("1")


def encode(from_square: int, to_square: int, promotion: int = 0) -> int:
    """The integer move code."""
    return from_square << 6 | to_square | promotion << 12


def from_move(move: chess.Move) -> int:
    """A ``chess.Move``'s code (0 for the null move)."""
    return move.from_square << 6 | move.to_square | (move.promotion or 0) << 12


_MOVES: List[Optional[chess.Move]] = [None] * (1 << 15)
for _frm in range(64):
    for _to in range(64):
        if _frm != _to:
            _MOVES[_frm << 6 | _to] = chess.Move(_frm, _to)
            if (_frm >> 3, _to >> 3) in ((6, 7), (1, 0)):
                for _piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
                    _MOVES[_frm << 6 | _to | _piece << 12] = chess.Move(_frm, _to, _piece)
del _frm, _to, _piece


def to_move(code: int) -> Optional[chess.Move]:
    """The ``chess.Move`` of a code (one shared object per code), None for 0 (no move)."""
    return _MOVES[code]
