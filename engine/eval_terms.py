"""Candidate evaluation terms for the tuner: king shelter, pawn threats, passed-pawn path and
king distances, rooks on the seventh, knight outposts, and three of pawn structure (pawns side
by side, pawns defended by pawns, backward pawns).

Issue 24 asks for terms added to the evaluation only once tuned weights win a match. Their
weights are in engine/weights.py (``KING_SHIELD`` ... ``PAWN_BACKWARD``) and are all zero
until a tuned module says otherwise; with every weight zero ``ENABLED`` is false and the
evaluation never calls this module, so the search and its bench stay as they were.

``side_counts`` counts one side's features from python-chess (unsigned) bitboards; the
python-chess board's evaluation (``pruner.engine.evaluate.evaluate``) and the tuner's features
(scripts/tunelib/features.py) both call it, so they cannot disagree on what a term counts.
The search's evaluation (``evaluate_position``) takes a faster path (``pawn_terms`` in its
pawn cache, ``piece_terms`` per node); tests compare it with the counting one.
"""

from typing import Dict, Tuple

import chess

from pruner.engine import weights

NAMES = ("KING_SHIELD", "KING_OPEN_FILE", "PAWN_THREAT", "PASSED_BLOCKED", "PASSED_KING_OWN",
         "PASSED_KING_OTHER", "ROOK_SEVENTH", "KNIGHT_OUTPOST", "PAWN_PHALANX", "PAWN_SUPPORTED", "PAWN_BACKWARD")
"""The terms, in the order of ``side_counts``; each is an (mg, eg) pair in engine/weights.py."""

DESCRIPTIONS = {
    "KING_SHIELD": "(mg, eg) per own pawn in front of the king (its file and the adjacent ones, 1-2 ranks ahead).",
    "KING_OPEN_FILE": "(mg, eg) for a king on a file without own pawns.",
    "PAWN_THREAT": "(mg, eg) per enemy knight, bishop, rook or queen attacked by an own pawn.",
    "PASSED_BLOCKED": "(mg, eg) per passed pawn whose next square holds an enemy piece.",
    "PASSED_KING_OWN": "(mg, eg) per square of distance from the own king to a passed pawn's next square.",
    "PASSED_KING_OTHER": "(mg, eg) per square of distance from the enemy king to a passed pawn's next square.",
    "ROOK_SEVENTH": "(mg, eg) per rook on the seventh rank (the second for Black).",
    "KNIGHT_OUTPOST": "(mg, eg) per knight on ranks 4-6 defended by a pawn and out of enemy pawns' reach.",
    "PAWN_PHALANX": "(mg, eg) per pawn with an own pawn beside it (same rank, adjacent file).",
    "PAWN_SUPPORTED": "(mg, eg) per pawn defended by an own pawn.",
    "PAWN_BACKWARD": "(mg, eg) per pawn behind its neighbours (none beside or behind it on the adjacent files) "
                     "whose next square an enemy pawn attacks.",
}
"""One line per term, for engine/weights.py's docstrings (scripts/tunelib/writer.py)."""

def weights_of(module) -> Tuple[Tuple[int, int], ...]:
    """The (mg, eg) weight of each term in a weights module, in ``NAMES`` order ((0, 0) for a
    term the module does not have: one written before the term existed, or while ``tune.py
    write`` adds it)."""
    return tuple(getattr(module, name, (0, 0)) for name in NAMES)


WEIGHTS = weights_of(weights)
"""The (mg, eg) weight of each term, in ``NAMES`` order (``weights_of`` engine/weights.py)."""

PAWN_TERMS = 3
"""The last ``PAWN_TERMS`` of ``NAMES`` depend on the pawns alone: the search keeps them in its
pawn cache, so they cost nothing per node."""


def enabled(table: Tuple[Tuple[int, int], ...]) -> bool:
    """Whether any term counts under ``table`` ((mg, eg) per ``NAMES``): when false the
    evaluation skips this module (no cost)."""
    return any(mg or eg for mg, eg in table)


def pieces_enabled(table: Tuple[Tuple[int, int], ...]) -> bool:
    """Whether a term that needs more than the pawns counts under ``table`` (``piece_terms``,
    run at every node)."""
    return any(mg or eg for mg, eg in table[:-PAWN_TERMS])


ENABLED = enabled(WEIGHTS)
"""Whether any term counts with engine/weights.py's weights (false today)."""

PIECES_ENABLED = pieces_enabled(WEIGHTS)
"""Whether one that needs more than the pawns counts with engine/weights.py's weights."""


_FULL = chess.BB_ALL


def _square_masks(ranks, file_offsets):
    """Per square: the squares on the ranks ``ranks(its rank)`` and on the files at
    ``file_offsets`` from its own (off-board ones left out)."""
    masks = []
    for sq in range(64):
        file, rank = sq & 7, sq >> 3
        mask = 0
        for r in ranks(rank):
            for f in (file + offset for offset in file_offsets):
                if 0 <= r < 8 and 0 <= f < 8:
                    mask |= chess.BB_SQUARES[r * 8 + f]
        masks.append(mask)
    return masks


# Each table is indexed [color][square] (python-chess colours: 0 black, 1 white); "ahead" is
# up the board for White, down for Black.
_AHEAD = (lambda rank: range(0, rank), lambda rank: range(rank + 1, 8))
_SHIELD = (_square_masks(lambda rank: (rank - 1, rank - 2), (-1, 0, 1)),
           _square_masks(lambda rank: (rank + 1, rank + 2), (-1, 0, 1)))
"""The king's file and the adjacent ones, one and two ranks ahead of it."""
_SPAN = (_square_masks(_AHEAD[0], (-1, 1)), _square_masks(_AHEAD[1], (-1, 1)))
"""The adjacent files ahead of a square: where an enemy pawn that can ever attack it stands."""
PASSED_SPANS = (_square_masks(_AHEAD[0], (-1, 0, 1)), _square_masks(_AHEAD[1], (-1, 0, 1)))
"""``PASSED_SPANS[color][square]``: where an enemy pawn stops a pawn there from being passed
(pruner.engine.evaluate's passed-pawn bonus reads it too)."""
_BEHIND = (_square_masks(lambda rank: range(rank, 8), (-1, 1)), _square_masks(lambda rank: range(0, rank + 1), (-1, 1)))
"""The adjacent files on a pawn's rank and behind it: where an own pawn that defends it, or
could by advancing, stands."""
_OUTPOST_RANKS = (chess.BB_RANK_5 | chess.BB_RANK_4 | chess.BB_RANK_3, chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6)
_SEVENTH = (chess.BB_RANK_2, chess.BB_RANK_7)
_NOT_A = _FULL & ~chess.BB_FILE_A
_NOT_H = _FULL & ~chess.BB_FILE_H


def pawn_attacks(pawns: int, color: bool) -> int:
    """Squares the pawns of ``color`` attack (unsigned bitboard)."""
    if color:
        return (((pawns & _NOT_A) << 7) | ((pawns & _NOT_H) << 9)) & _FULL
    return ((pawns & _NOT_A) >> 9) | ((pawns & _NOT_H) >> 7)


def _passed(own: int, other: int, color: bool) -> int:
    passed = 0
    spans = PASSED_SPANS[color]
    for sq in chess.scan_forward(own):
        if not spans[sq] & other:
            passed |= 1 << sq
    return passed


_pawn_memo: Dict[Tuple[int, int, bool], Tuple[int, int, int, int, int, int]] = {}


def _pawn_info(own: int, other: int, color: bool) -> Tuple[int, int, int, int, int, int]:
    """(passed pawns, own pawn attacks, outpost squares, phalanx, supported and backward pawn
    counts) of one side: pure functions of the pawns, memoised (pawn structures repeat across
    the tree)."""
    key = (own, other, color)
    info = _pawn_memo.get(key)
    if info is None:
        attacks = pawn_attacks(own, color)
        other_attacks = pawn_attacks(other, not color)
        beside = ((own & _NOT_A) >> 1) | ((own & _NOT_H) << 1)
        phalanx = _popcount(own & beside)
        supported = _popcount(own & attacks)
        backward = 0
        behind = _BEHIND[color]
        step = 8 if color else -8
        for sq in chess.scan_forward(own):
            stop = sq + step
            if 0 <= stop < 64 and other_attacks >> stop & 1 and not own & behind[sq]:
                backward += 1
        outposts = 0
        spans = _SPAN[color]
        for sq in chess.scan_forward(attacks & _OUTPOST_RANKS[color]):
            if not spans[sq] & other:
                outposts |= 1 << sq
        info = (_passed(own, other, color), attacks, outposts, phalanx, supported, backward)
        if len(_pawn_memo) >= 1 << 16:
            _pawn_memo.clear()
        _pawn_memo[key] = info
    return info


def _popcount(bb: int) -> int:
    return bin(bb).count("1")  # int.bit_count needs Python 3.10 (PyPy 3.9)


def side_counts(color: bool, own_pawns: int, other_pawns: int, own_knights: int, own_rooks: int,
                other_pieces: int, other_occupied: int, own_king: int, other_king: int
                ) -> Tuple[int, ...]:
    """One side's counts of the terms, in ``NAMES`` order, from unsigned bitboards.

    ``other_pieces``: the enemy's knights, bishops, rooks and queens; ``other_occupied``: all
    enemy pieces; kings as squares (-1 when a side has none: its king terms count 0).
    """
    passed, attacks, outposts, phalanx, supported, backward = _pawn_info(own_pawns, other_pawns, color)
    shield = open_file = 0
    if own_king >= 0:
        shield = _popcount(own_pawns & _SHIELD[color][own_king])
        open_file = 0 if own_pawns & chess.BB_FILES[own_king & 7] else 1
    threats = _popcount(attacks & other_pieces)
    blocked = own_distance = other_distance = 0
    step = 8 if color else -8
    for sq in chess.scan_forward(passed):
        stop = sq + step
        if other_occupied >> stop & 1:
            blocked += 1
        if own_king >= 0:
            own_distance += chess.square_distance(own_king, stop)
        if other_king >= 0:
            other_distance += chess.square_distance(other_king, stop)
    seventh = _popcount(own_rooks & _SEVENTH[color])
    outpost = _popcount(own_knights & outposts)
    return (shield, open_file, threats, blocked, own_distance, other_distance, seventh, outpost,
            phalanx, supported, backward)


def board_counts(board: chess.Board, color: bool) -> Tuple[int, ...]:
    """``side_counts`` of ``color`` on a python-chess board."""
    own = board.occupied_co[color]
    other = board.occupied_co[not color]
    own_king = board.king(color)
    other_king = board.king(not color)
    return side_counts(color, board.pawns & own, board.pawns & other, board.knights & own, board.rooks & own,
                       (board.knights | board.bishops | board.rooks | board.queens) & other, other,
                       -1 if own_king is None else own_king, -1 if other_king is None else other_king)


def pawn_terms(white_pawns: int, black_pawns: int,
               table: Tuple[Tuple[int, int], ...]) -> Tuple[int, int, Tuple[int, int, int], Tuple[int, int, int]]:
    """For the search's pawn cache (``pruner.engine.evaluate``): the White-positive (mg, eg) of the
    three pawn-structure terms weighted by ``table`` ((mg, eg) per ``NAMES``), then Black's and
    White's (passed pawns, pawn attacks, outpost squares) for ``piece_terms``."""
    white = _pawn_info(white_pawns, black_pawns, True)
    black = _pawn_info(black_pawns, white_pawns, False)
    phalanx, supported, backward = white[3] - black[3], white[4] - black[4], white[5] - black[5]
    phalanx_w, supported_w, backward_w = table[-PAWN_TERMS:]
    mg = phalanx_w[0] * phalanx + supported_w[0] * supported + backward_w[0] * backward
    eg = phalanx_w[1] * phalanx + supported_w[1] * supported + backward_w[1] * backward
    return mg, eg, black[:3], white[:3]


def piece_terms(color: bool, own_pawns: int, own_king: int, other_king: int, pawn_info: Tuple[int, int, int],
                own_knights: int, own_rooks: int, other_pieces: int, other_occupied: int,
                table: Tuple[Tuple[int, int], ...]) -> Tuple[int, int]:
    """(mg, eg) of one side's terms other than the three of pawn structure, weighted by
    ``table``: the search's fast path (``side_counts`` counts the same; a test compares the
    two). Unsigned bitboards; ``pawn_info`` is this side's (passed, attacks, outposts) from
    ``pawn_terms``."""
    # Per node when the terms count: weights applied as the counts come, popcounts only for
    # non-empty sets, no counts tuple, the pawn part from the search's pawn cache. With the terms
    # on, evaluate_position took 4.3 us through side_counts and score, 2.3 us this way (0.7 us
    # with them off; timeit over the 22 bench positions, CPython 3.11, a loaded machine).
    passed, attacks, outposts = pawn_info
    (shield_w, open_w, threat_w, blocked_w, king_own_w, king_other_w, seventh_w, outpost_w) = \
        table[:-PAWN_TERMS]
    mg = eg = 0
    if own_king >= 0:
        shield = own_pawns & _SHIELD[color][own_king]
        if shield:
            count = _popcount(shield)
            mg += shield_w[0] * count
            eg += shield_w[1] * count
        if not own_pawns & chess.BB_FILES[own_king & 7]:
            mg += open_w[0]
            eg += open_w[1]
    threats = attacks & other_pieces
    if threats:
        count = _popcount(threats)
        mg += threat_w[0] * count
        eg += threat_w[1] * count
    if passed:
        step = 8 if color else -8
        distance = chess.square_distance
        for sq in chess.scan_forward(passed):
            stop = sq + step
            if other_occupied >> stop & 1:
                mg += blocked_w[0]
                eg += blocked_w[1]
            if own_king >= 0:
                count = distance(own_king, stop)
                mg += king_own_w[0] * count
                eg += king_own_w[1] * count
            if other_king >= 0:
                count = distance(other_king, stop)
                mg += king_other_w[0] * count
                eg += king_other_w[1] * count
    seventh = own_rooks & _SEVENTH[color]
    if seventh:
        count = _popcount(seventh)
        mg += seventh_w[0] * count
        eg += seventh_w[1] * count
    outposts = own_knights & outposts
    if outposts:
        count = _popcount(outposts)
        mg += outpost_w[0] * count
        eg += outpost_w[1] * count
    return mg, eg


def score(counts: Tuple[int, ...], table: Tuple[Tuple[int, int], ...]) -> Tuple[int, int]:
    """(mg, eg) of one side's counts under ``table`` ((mg, eg) per ``NAMES``)."""
    mg = eg = 0
    for count, (wmg, weg) in zip(counts, table):
        if count:
            mg += wmg * count
            eg += weg * count
    return mg, eg


def board_score(board: chess.Board, table: Tuple[Tuple[int, int], ...]) -> Tuple[int, int]:
    """White-positive (mg, eg) of the terms on a python-chess board, weighted by ``table``."""
    wmg, weg = score(board_counts(board, chess.WHITE), table)
    bmg, beg = score(board_counts(board, chess.BLACK), table)
    return wmg - bmg, weg - beg
