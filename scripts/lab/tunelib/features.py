"""A position's evaluation as counts of features, linear in the weights.

``evaluate(board)`` (engine/evaluate.py) is, for any weights,

    mg = sum over terms t of count[t] * weight[mg weight of t]      (White's view)
    eg = sum over terms t of count[t] * weight[eg weight of t]
    score = taper(mg, eg, phase, side to move) + TEMPO

so a position is read once into its counts (White's count minus Black's per term, sparse)
and its phase, and the fit evaluates it for any weight vector with two dot products.
``evaluate`` below does that with the same integer taper as the engine, and a test checks it
against engine/evaluate.py's ``evaluate`` on many positions.
"""

from typing import Dict, List, NamedTuple, Sequence, Tuple

import chess

from pruner.engine import eval_terms
from pruner.engine.evaluate import PHASE_INC, PHASE_MAX, _ADJACENT_FILES, _FILE_COUNT, _FILES, _PASSED
from pruner.lab.tunelib.params import TERM_OF, TERMS

_VALUE = [TERM_OF.get("value%d" % pt, -1) for pt in range(7)]
_PST = [[TERM_OF.get("pst%d_%d" % (pt, index), -1) for index in range(64)] for pt in range(7)]
_PASSED_TERM = [TERM_OF.get("passed%d" % rank, -1) for rank in range(8)]
_ISOLATED = TERM_OF["ISOLATED"]
_DOUBLED = TERM_OF["DOUBLED"]
_BISHOP_PAIR = TERM_OF["BISHOP_PAIR"]
_ROOK_OPEN = TERM_OF["ROOK_OPEN_FILE"]
_ROOK_SEMI_OPEN = TERM_OF["ROOK_SEMI_OPEN_FILE"]
_CANDIDATES = [TERM_OF[name] for name in eval_terms.NAMES]


class Features(NamedTuple):
    """One position as the fit sees it."""

    terms: Tuple[Tuple[int, int], ...]
    """(term index, White's count minus Black's), nonzero counts only, by term index."""
    phase: int
    """Game phase, clamped to ``PHASE_MAX``."""
    white: bool
    """Side to move is White."""


def _add(counts: Dict[int, int], term: int, count: int) -> None:
    if term >= 0 and count:
        counts[term] = counts.get(term, 0) + count


def _side(board: chess.Board, color: bool, counts: Dict[int, int]) -> int:
    """Add one side's counts (negated for Black); its share of the phase."""
    sign = 1 if color else -1
    occupied = board.occupied_co[color]
    phase = 0
    for pt in range(1, 7):
        for sq in chess.scan_forward(board.pieces_mask(pt, color)):
            _add(counts, _VALUE[pt], sign)
            # PeSTO's tables are written from White's view, a8 first: White reads square ^ 56.
            _add(counts, _PST[pt][sq ^ 56 if color else sq], sign)
            phase += PHASE_INC[pt]
    own_pawns = board.pawns & occupied
    other_pawns = board.pawns & ~occupied
    files = pawns = isolated = 0
    for sq in chess.scan_forward(own_pawns):
        pawns += 1
        files |= 1 << (sq & 7)
        if not _PASSED[color][sq] & other_pawns:
            _add(counts, _PASSED_TERM[sq >> 3 if color else 7 - (sq >> 3)], sign)
        if not _ADJACENT_FILES[sq & 7] & own_pawns:
            isolated += 1
    _add(counts, _ISOLATED, sign * isolated)
    _add(counts, _DOUBLED, sign * (pawns - _FILE_COUNT[files]))
    bishops = board.bishops & occupied
    if bishops & (bishops - 1):
        _add(counts, _BISHOP_PAIR, sign)
    for sq in chess.scan_forward(board.rooks & occupied):
        file_mask = _FILES[sq & 7]
        if not board.pawns & file_mask:
            _add(counts, _ROOK_OPEN, sign)
        elif not own_pawns & file_mask:
            _add(counts, _ROOK_SEMI_OPEN, sign)
    for term, count in zip(_CANDIDATES, eval_terms.board_counts(board, color)):
        _add(counts, term, sign * count)
    return phase


def extract(board: chess.Board) -> Features:
    """The features of ``board`` (counted as engine/evaluate.py counts them)."""
    counts: Dict[int, int] = {}
    phase = _side(board, chess.WHITE, counts) + _side(board, chess.BLACK, counts)
    terms = tuple(sorted((term, count) for term, count in counts.items() if count))
    return Features(terms, min(phase, PHASE_MAX), board.turn == chess.WHITE)


def sums(features: Features, weights: Sequence[int]) -> Tuple[int, int]:
    """White-positive (mg, eg) of ``features`` under ``weights``."""
    mg = eg = 0
    for term, count in features.terms:
        mg_index, eg_index = TERMS[term]
        mg += weights[mg_index] * count
        eg += weights[eg_index] * count
    return mg, eg


def taper(mg: int, eg: int, phase: int, white: bool, tempo: int) -> int:
    """The score from the side to move, as engine/evaluate.py's ``_taper`` computes it."""
    if not white:
        mg, eg = -mg, -eg  # negate before dividing, as the engine does
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX + tempo


def evaluate(features: Features, weights: Sequence[int], tempo_index: int) -> int:
    """The evaluation from the side to move of a position's ``features`` under ``weights``."""
    mg, eg = sums(features, weights)
    return taper(mg, eg, features.phase, features.white, weights[tempo_index])


def white_score(features: Features, weights: Sequence[int], tempo_index: int) -> int:
    """``evaluate`` from White's view (the fit compares it with White's result)."""
    score = evaluate(features, weights, tempo_index)
    return score if features.white else -score


def occurrences(positions: List[Features], n_weights: int) -> List[List[Tuple[int, int]]]:
    """Per weight: the (position index, count) pairs of the positions it counts in (the
    positions a change of that weight moves)."""
    where: List[List[Tuple[int, int]]] = [[] for _ in range(n_weights)]
    for index, features in enumerate(positions):
        for term, count in features.terms:
            mg_index, eg_index = TERMS[term]
            where[mg_index].append((index, count))
            where[eg_index].append((index, count))
    return where
