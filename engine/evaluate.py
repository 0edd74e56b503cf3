"""Static evaluation: tapered middlegame/endgame material, piece-square tables and a few
positional terms (pawn structure, bishop pair, rooks on open files).

The weights are in engine/weights.py (scripts/tune.py writes it); the material and PST
figures there are PeSTO's (Ronald Friederich, published on the Chess Programming Wiki:
https://www.chessprogramming.org/PeSTO%27s_Evaluation_Function). Material+PST sums are kept
incrementally by ``engine.makemove``; ``blend`` adds the terms computed on demand and blends
middlegame and endgame by game phase. Scores are from the side to move. ``breakdown`` shows
the same evaluation term by term (the UCI ``eval`` command); it is never called by the search.
"""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import chess

from engine import eval_terms, nnue, weights
from engine.types import EVAL_LIMIT

PHASE_INC = (0, 0, 1, 1, 2, 4, 0)
"""Game-phase weight per piece type (index by python-chess piece type; 0 is unused)."""
PHASE_MAX = 24
"""Phase of the full starting material; more (after promotions) is clamped."""

TEMPO = weights.TEMPO
"""Bonus for the side to move (it can act first)."""

# The numbers live in engine/weights.py (scripts/tune.py writes it); the names below are
# the ones this module has always used.
_MG_VALUE = weights.MG_VALUE
_EG_VALUE = weights.EG_VALUE
_MG_TABLES = weights.MG_TABLES
_EG_TABLES = weights.EG_TABLES


def _signed_tables(values, tables) -> List[Tuple[Tuple[int, ...], Tuple[int, ...]]]:
    """Per piece type: (black squares, white squares) value + PST, signed White-positive.

    Indexed ``T[piece_type][color][square]`` with python-chess squares (a1 = 0) and
    ``color`` as python-chess's bool (False = black = 0, True = white = 1).
    """
    out = [((0,) * 64, (0,) * 64)]
    for pt in range(1, 7):
        table = tables[pt]
        white = tuple(values[pt] + table[sq ^ 56] for sq in range(64))
        black = tuple(-(values[pt] + table[sq]) for sq in range(64))
        out.append((black, white))
    return out


PST_MG = _signed_tables(_MG_VALUE, _MG_TABLES)
"""Middlegame material+PST, White-positive: ``PST_MG[piece_type][color][square]``."""
PST_EG = _signed_tables(_EG_VALUE, _EG_TABLES)
"""Endgame material+PST, White-positive: ``PST_EG[piece_type][color][square]``."""


def material_pst(board: chess.Board) -> Tuple[int, int, int]:
    """(mg, eg, phase) sums from scratch: White-positive material+PST and the game phase."""
    mg = eg = phase = 0
    for sq, piece in board.piece_map().items():
        pt, color = piece.piece_type, piece.color
        mg += PST_MG[pt][color][sq]
        eg += PST_EG[pt][color][sq]
        phase += PHASE_INC[pt]
    return mg, eg, phase


# -- positional terms (White-positive (mg, eg) pairs) ------------------------------------------

PASSED_MG = weights.PASSED_MG
"""Passed pawn bonus by relative rank (index 1 = second rank), middlegame."""
PASSED_EG = weights.PASSED_EG
"""Passed pawn bonus by relative rank, endgame (PeSTO's pawn table already rewards advance)."""
ISOLATED = weights.ISOLATED
DOUBLED = weights.DOUBLED
BISHOP_PAIR = weights.BISHOP_PAIR
ROOK_OPEN_FILE = weights.ROOK_OPEN_FILE
ROOK_SEMI_OPEN_FILE = weights.ROOK_SEMI_OPEN_FILE


_PASSED = eval_terms.PASSED_SPANS
_ADJACENT_FILES = [(chess.BB_FILES[f - 1] if f > 0 else 0) | (chess.BB_FILES[f + 1] if f < 7 else 0) for f in range(8)]
_FILES = chess.BB_FILES
_scan = chess.scan_forward


def _popcount(bb: int) -> int:
    return bin(bb).count("1")  # int.bit_count needs Python 3.10; PyPy 3.9 must run this


def _pawn_terms(own: int, other: int, color: bool) -> Tuple[int, int, int, int, int, int]:
    """One side's pawn structure term by term: (mg, eg) of its passed pawns, then of its
    isolated pawns, then of its doubled pawns."""
    # Plain integer loops (no generator, no bin()): this runs on every pawn-cache miss, and
    # PyPy's JIT compiles neither a generator per bitboard nor string counting well.
    passed_mg = passed_eg = isolated = pawns = 0
    passed = _PASSED[color]
    files = 0
    rest = own
    while rest:
        sq = rest.bit_length() - 1
        rest ^= 1 << sq
        pawns += 1
        files |= 1 << (sq & 7)
        if not passed[sq] & other:
            rank = sq >> 3 if color else 7 - (sq >> 3)
            passed_mg += PASSED_MG[rank]
            passed_eg += PASSED_EG[rank]
        if not _ADJACENT_FILES[sq & 7] & own:
            isolated += 1
    doubled = pawns - _FILE_COUNT[files]  # the pawns beyond the first on each file
    return (passed_mg, passed_eg, ISOLATED[0] * isolated, ISOLATED[1] * isolated,
            DOUBLED[0] * doubled, DOUBLED[1] * doubled)


_FILE_COUNT = [bin(files).count("1") for files in range(256)]
"""Number of files in an 8-bit set of files."""


def _pawn_side(own: int, other: int, color: bool) -> Tuple[int, int]:
    """(mg, eg) of one side's pawn structure: passed, isolated and doubled pawns."""
    passed_mg, passed_eg, isolated_mg, isolated_eg, doubled_mg, doubled_eg = _pawn_terms(own, other, color)
    return passed_mg + isolated_mg + doubled_mg, passed_eg + isolated_eg + doubled_eg


_pawn_cache = {}
"""Memo of ``pawn_structure`` (a pure function of the two pawn bitboards, so sharing it
between searchers cannot change a result). Pawn structures repeat across most of the
tree: the hit rate is above 95% in the bench."""
_PAWN_CACHE_MAX = 1 << 16


def pawn_structure(white_pawns: int, black_pawns: int) -> Tuple[int, int]:
    """White-positive (mg, eg) of the pawn structure, memoised."""
    key = (white_pawns, black_pawns)
    cached = _pawn_cache.get(key)
    if cached is None:
        wmg, weg = _pawn_side(white_pawns, black_pawns, chess.WHITE)
        bmg, beg = _pawn_side(black_pawns, white_pawns, chess.BLACK)
        cached = (wmg - bmg, weg - beg)
        if len(_pawn_cache) >= _PAWN_CACHE_MAX:
            _pawn_cache.clear()
        _pawn_cache[key] = cached
    return cached


def _pieces(board: chess.Board, color: bool, pawns_all: int, own_pawns: int) -> Tuple[int, int]:
    """(mg, eg) of one side's bishop pair and rooks on open / semi-open files."""
    mg = eg = 0
    occ = board.occupied_co[color]
    bishops = board.bishops & occ
    if bishops & (bishops - 1):
        mg += BISHOP_PAIR[0]
        eg += BISHOP_PAIR[1]
    for sq in _scan(board.rooks & occ):
        file_mask = _FILES[sq & 7]
        if not pawns_all & file_mask:
            mg += ROOK_OPEN_FILE[0]
            eg += ROOK_OPEN_FILE[1]
        elif not own_pawns & file_mask:
            mg += ROOK_SEMI_OPEN_FILE[0]
            eg += ROOK_SEMI_OPEN_FILE[1]
    return mg, eg


def positional(board: chess.Board) -> Tuple[int, int]:
    """White-positive (mg, eg) of the terms not kept incrementally."""
    pawns = board.pawns
    white_pawns = pawns & board.occupied_co[chess.WHITE]
    black_pawns = pawns & board.occupied_co[chess.BLACK]
    mg, eg = pawn_structure(white_pawns, black_pawns)
    wmg, weg = _pieces(board, chess.WHITE, pawns, white_pawns)
    bmg, beg = _pieces(board, chess.BLACK, pawns, black_pawns)
    mg += wmg - bmg
    eg += weg - beg
    if _EXTRA:
        emg, eeg = eval_terms.board_score(board)
        mg += emg
        eg += eeg
    return mg, eg


_EXTRA = eval_terms.ENABLED
"""Whether the candidate terms of ``engine.eval_terms`` count (some weight of theirs is not
zero); false with today's weights, so neither evaluation calls that module."""
_EXTRA_PIECES = eval_terms.PIECES_ENABLED
"""Whether one that needs more than the pawns counts: the search then calls
``eval_terms.piece_terms`` at every evaluation (the pawn-structure ones are in its pawn cache)."""


_weights_module = weights
"""The weights module the evaluation's numbers come from now (``use_weights``)."""


def weights_name() -> str:
    """The name of the weights module the evaluation uses now (``engine.weights`` unless
    ``use_weights`` chose another)."""
    return _weights_module.__name__


def use_weights(module) -> bool:
    """Evaluate with ``module``'s numbers (a module shaped as engine/weights.py) from now on in
    this process; True when that changed the module in use.

    Why: a limited-strength search must keep the evaluation its calibration measured when the
    engine's own weights are re-tuned (``engine.strength.CALIBRATED_SEARCH``). Every name derived
    from the weights is set again; ``PST_MG``/``PST_EG`` are refilled in place because
    ``engine.makemove`` holds them; the pawn caches (weighted sums) are emptied. A ``Position``
    made before the change carries the old material sums: the search makes its own after it.
    A candidate term ``module`` lacks counts (0, 0), as at import (``eval_terms.WEIGHTS``)."""
    global _weights_module, TEMPO, _TEMPO, _MG_VALUE, _EG_VALUE, _MG_TABLES, _EG_TABLES
    global PASSED_MG, PASSED_EG, ISOLATED, DOUBLED, BISHOP_PAIR, ROOK_OPEN_FILE, ROOK_SEMI_OPEN_FILE
    global _PAIR_MG, _PAIR_EG, _OPEN_MG, _OPEN_EG, _SEMI_OPEN_MG, _SEMI_OPEN_EG
    if module is _weights_module:
        return False
    # Everything is read (and may raise) before anything changes: a module that lacks a
    # number leaves the evaluation as it was, not half switched.
    read = (module.TEMPO, module.MG_VALUE, module.EG_VALUE, module.MG_TABLES, module.EG_TABLES,
            _signed_tables(module.MG_VALUE, module.MG_TABLES), _signed_tables(module.EG_VALUE, module.EG_TABLES),
            module.PASSED_MG, module.PASSED_EG, module.ISOLATED, module.DOUBLED, module.BISHOP_PAIR,
            module.ROOK_OPEN_FILE, module.ROOK_SEMI_OPEN_FILE, eval_terms.weights_of(module))
    (TEMPO, _MG_VALUE, _EG_VALUE, _MG_TABLES, _EG_TABLES, mg_tables, eg_tables, PASSED_MG, PASSED_EG, ISOLATED,
     DOUBLED, BISHOP_PAIR, ROOK_OPEN_FILE, ROOK_SEMI_OPEN_FILE, candidates) = read
    _weights_module = module
    _TEMPO = TEMPO
    PST_MG[:] = mg_tables
    PST_EG[:] = eg_tables
    _PAIR_MG, _PAIR_EG = BISHOP_PAIR
    _OPEN_MG, _OPEN_EG = ROOK_OPEN_FILE
    _SEMI_OPEN_MG, _SEMI_OPEN_EG = ROOK_SEMI_OPEN_FILE
    use_candidate_weights(candidates)  # also empties the pawn caches
    return True


def use_candidate_weights(table) -> None:
    """Give the candidate terms the weights ``table`` ((mg, eg) per ``eval_terms.NAMES``) in
    this process, and empty the pawn caches that hold weighted sums (tests and experiments;
    the engine reads engine/weights.py once)."""
    global _EXTRA, _EXTRA_PIECES
    eval_terms.set_weights(table)
    _EXTRA = eval_terms.ENABLED
    _EXTRA_PIECES = eval_terms.PIECES_ENABLED
    _pawn_cache.clear()
    _pawn_entries.clear()
    _eval_cache.clear()


def blend(board: chess.Board, mg: int, eg: int, phase: int) -> int:
    """Score from the side to move, given the incremental White-positive sums."""
    pmg, peg = positional(board)
    return _taper(mg + pmg, eg + peg, phase, board.turn)


def _taper(mg: int, eg: int, phase: int, turn: int) -> int:
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    if not turn:
        mg, eg = -mg, -eg  # negate before dividing: floor division keeps colour symmetry
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX + TEMPO


def classical(board: chess.Board) -> int:
    """The classical evaluation of ``board`` (material, piece-square tables, positional terms)
    in centipawns from the side to move."""
    return blend(board, *material_pst(board))


def evaluate(board: chess.Board) -> int:
    """Static evaluation of ``board`` in centipawns from the side to move: the classical one
    with the net's correction, or the net alone (``use_net``); what ``evaluate_position``
    gives for the same position in the search."""
    net = _net
    if net is None:
        return bounded(classical(board))
    learned = net.evaluate(net.accumulator(nnue.board_pieces(board)), 1 if board.turn else 0)
    return bounded(classical(board) + learned if net.residual else learned)


def bounded(score: int) -> int:
    """``score`` within ``EVAL_LIMIT`` either way: a net may say anything (its header fields are
    checked, its weights' sum is not), and a static evaluation must never read as a mate."""
    return EVAL_LIMIT if score > EVAL_LIMIT else -EVAL_LIMIT if score < -EVAL_LIMIT else score


# -- the learned evaluation (engine.nnue) --------------------------------------------------------

NET_COLUMNS: List[List[List[int]]] = [[[0] * 64, [0] * 64] for _ in range(7)]
"""The net in use's packed columns, ``NET_COLUMNS[piece_type][color][square]`` (all 0 without
a net): ``engine.makemove`` holds this list and updates ``Position.acc`` with it, so
``use_net`` refills it in place."""

_net, _net_problem = nnue.load_default()
"""The net in use (None: the classical evaluation alone) and why the shipped one is not,
if it could not be loaded."""


def net_in_use() -> "Optional[nnue.Net]":
    """The network the evaluation uses now, or None."""
    return _net


def net_problem() -> Optional[str]:
    """Why the shipped net could not be loaded at import (None when it was)."""
    return _net_problem


def use_net(net: "Optional[nnue.Net]") -> bool:
    """Evaluate with ``net`` (None: the classical evaluation alone) from now on in this process;
    True when that changed the net in use. A ``Position`` made before carries the old net's
    accumulator: the search makes its own at every root."""
    global _net
    if net is _net:
        return False
    _net = net
    _eval_cache.clear()
    NET_COLUMNS[:] = net.columns if net is not None else [[[0] * 64, [0] * 64] for _ in range(7)]
    return True


_nets_by_name = {}
"""Nets loaded by ``net_named``, by the name asked for (each file is read once a process)."""


def net_named(name: str) -> "Optional[nnue.Net]":
    """The net a name stands for: "" the shipped one (None if it could not be loaded), ``classical``
    none, else the file at that path; ``nnue.NetError`` (a ``ValueError``) names the file and the reason it cannot be used."""
    if name == "classical":
        return None
    if name == "":
        return _default_net  # None when it could not be loaded: ``net_problem`` says why
    net = _nets_by_name.get(name)
    if net is None:
        net = _nets_by_name[name] = nnue.load(name)
    return net


def accumulator(board: chess.Board) -> int:
    """The packed accumulator of ``board`` for the net in use (0 without one)."""
    net = _net
    return net.accumulator(nnue.board_pieces(board)) if net is not None else 0


_default_net = _net
if _net is not None:
    NET_COLUMNS[:] = _net.columns


# -- the same evaluation on the search's own board (engine.board.Position) ----------------------

_SFILES = [file_mask - (1 << 64) if file_mask >> 63 else file_mask for file_mask in _FILES]
"""The file masks as signed bitboards (``engine.attacks``)."""
_H8 = -(1 << 63)


def _pawn_entry(white_pawns: int, black_pawns: int) -> tuple:
    """What ``evaluate_position`` keeps per pawn structure: both pawn bitboards (to tell a
    structure from another with the same cache key), the White-positive (mg, eg) of
    ``pawn_structure``, and the squares of the open files, of the files half-open for White
    (black pawns only) and of those half-open for Black (signed bitboards); when the candidate
    terms count, also what ``_extra_position`` reads."""
    mg, eg = pawn_structure(white_pawns, black_pawns)
    open_files = white_half_open = black_half_open = 0
    for file_mask in _SFILES:
        if not (white_pawns | black_pawns) & file_mask:
            open_files |= file_mask
        elif not white_pawns & file_mask:
            white_half_open |= file_mask
        elif not black_pawns & file_mask:
            black_half_open |= file_mask
    if not _EXTRA:
        return white_pawns, black_pawns, mg, eg, open_files, white_half_open, black_half_open
    # The candidate terms count: their pawn-structure part goes into the sums, and each side's
    # passed pawns, pawn attacks and outposts stay for _extra_position (indices 7 and 8).
    extra_mg, extra_eg, black_info, white_info = eval_terms.pawn_terms(white_pawns, black_pawns)
    return (white_pawns, black_pawns, mg + extra_mg, eg + extra_eg, open_files, white_half_open, black_half_open,
            black_info, white_info)


_pawn_entries = {}
"""``_pawn_entry`` memo for the search, by ``white_pawns ^ black_pawns >> 8 * 12289`` (63 bits:
a machine word on PyPy); an entry holds its bitboards, so a shared key is only a miss."""


def _count(squares: int) -> int:
    """Number of squares in a small signed bitboard (a side's rooks on some files)."""
    count = 0
    while squares:
        if squares == _H8:
            return count + 1
        squares &= squares - 1
        count += 1
    return count


# Single names for the hot path (no tuple indexing per node); they were literals before the
# weights moved to engine/weights.py.
_PAIR_MG, _PAIR_EG = BISHOP_PAIR
_OPEN_MG, _OPEN_EG = ROOK_OPEN_FILE
_SEMI_OPEN_MG, _SEMI_OPEN_EG = ROOK_SEMI_OPEN_FILE
_TEMPO = TEMPO


def classical_position(pos) -> int:
    """The classical evaluation of an ``engine.board.Position``: its incremental sums plus the
    terms ``positional`` adds, from the side to move."""
    # Hot path (a quarter of the search's time before): one function, no tuple per side; the
    # rook terms come from file masks kept with the pawn structure instead of a loop per rook.
    bb = pos.bb
    occ = pos.occ
    white = occ[1]
    black = occ[0]
    pawns = bb[1]
    white_pawns = pawns & white  # pawns never stand on h8: never negative
    black_pawns = pawns & black
    key = white_pawns ^ (black_pawns >> 8) * 12289
    entry = _pawn_entries.get(key)
    if entry is None or entry[0] != white_pawns or entry[1] != black_pawns:
        entry = _pawn_entry(white_pawns, black_pawns)
        if len(_pawn_entries) >= _PAWN_CACHE_MAX:
            _pawn_entries.clear()
        _pawn_entries[key] = entry
    mg = pos.mg + entry[2]
    eg = pos.eg + entry[3]
    bishops = bb[3] & white
    if bishops != _H8 and bishops & (bishops - 1):  # a pair (h8 alone is the sign bit)
        mg += _PAIR_MG
        eg += _PAIR_EG
    bishops = bb[3] & black
    if bishops != _H8 and bishops & (bishops - 1):
        mg -= _PAIR_MG
        eg -= _PAIR_EG
    rooks = bb[4]
    if rooks:
        open_files = entry[4]
        own = rooks & white
        if own:
            on_open = own & open_files
            if on_open:
                count = _count(on_open)
                mg += _OPEN_MG * count
                eg += _OPEN_EG * count
            on_half_open = own & entry[5]
            if on_half_open:
                count = _count(on_half_open)
                mg += _SEMI_OPEN_MG * count
                eg += _SEMI_OPEN_EG * count
        own = rooks & black
        if own:
            on_open = own & open_files
            if on_open:
                count = _count(on_open)
                mg -= _OPEN_MG * count
                eg -= _OPEN_EG * count
            on_half_open = own & entry[6]
            if on_half_open:
                count = _count(on_half_open)
                mg -= _SEMI_OPEN_MG * count
                eg -= _SEMI_OPEN_EG * count
    if _EXTRA_PIECES:
        mg, eg = _extra_position(pos, mg, eg, entry)
    phase = pos.phase
    if phase > 24:
        phase = 24
    if not pos.turn:
        mg, eg = -mg, -eg  # negate before dividing: floor division keeps colour symmetry
    return (mg * phase + eg * (24 - phase)) // 24 + _TEMPO


assert PHASE_MAX == 24  # written out in classical_position


_eval_cache = {}
"""``evaluate_position`` by Zobrist key (pieces and side to move decide the evaluation; the key
also holds castling and en passant, which only split entries). About 38% of the bench's
evaluations are of a position evaluated before (re-searches, transpositions), and a lookup
costs a tenth of an evaluation with the net. Emptied whenever the evaluation changes."""
_EVAL_CACHE_MAX = 1 << 16


def evaluate_position(pos) -> int:
    """``evaluate`` of an ``engine.board.Position``, from the side to move: the classical
    evaluation plus the net's correction (its accumulator is ``pos.acc``), or the net alone."""
    key = pos.key
    value = _eval_cache.get(key)
    if value is not None:
        return value
    net = _net
    if net is None:
        value = classical_position(pos)
    else:
        learned = net.evaluate(pos.acc, pos.turn)
        value = classical_position(pos) + learned if net.residual else learned
    if not -EVAL_LIMIT <= value <= EVAL_LIMIT:  # ``bounded``, inline: this is the search's hot path
        value = EVAL_LIMIT if value > 0 else -EVAL_LIMIT
    if len(_eval_cache) >= _EVAL_CACHE_MAX:
        _eval_cache.clear()
    _eval_cache[key] = value
    return value


def _extra_position(pos, mg: int, eg: int, entry) -> Tuple[int, int]:
    """``mg`` and ``eg`` plus the candidate terms (``engine.eval_terms``) of a Position other
    than the pawn-structure ones, which its pawn ``entry`` already holds."""
    full = chess.BB_ALL  # the Position's bitboards are signed; eval_terms reads unsigned ones
    bb = pos.bb
    white = pos.occ[1] & full
    black = pos.occ[0] & full
    pawns, knights, rooks = bb[1] & full, bb[2] & full, bb[4] & full
    pieces = (bb[2] | bb[3] | bb[4] | bb[5]) & full
    kings = pos.king_squares
    wmg, weg = eval_terms.piece_terms(True, pawns & white, kings[1], kings[0], entry[8], knights & white,
                                      rooks & white, pieces & black, black)
    bmg, beg = eval_terms.piece_terms(False, pawns & black, kings[0], kings[1], entry[7], knights & black,
                                      rooks & black, pieces & white, white)
    return mg + wmg - bmg, eg + weg - beg


# -- the evaluation term by term (the UCI ``eval`` command) ------------------------------------

@dataclass
class Term:
    """One evaluation term: each side's own share (positive = good for that side), middlegame
    and endgame, in centipawns."""

    name: str
    white: Tuple[int, int]
    """White's (mg, eg)."""
    black: Tuple[int, int]
    """Black's (mg, eg)."""

    @property
    def total(self) -> Tuple[int, int]:
        """(mg, eg) from White's view: White's share minus Black's."""
        return self.white[0] - self.black[0], self.white[1] - self.black[1]


@dataclass
class Breakdown:
    """``evaluate(board)`` term by term, as ``blend`` computes it."""

    terms: List[Term]
    """Every tapered term; their totals add up to ``mg`` and ``eg``."""
    phase: int
    """Game phase, 0 (bare kings and pawns) to ``PHASE_MAX`` (all pieces): the middlegame
    weight; the endgame weight is ``PHASE_MAX - phase``."""
    turn: bool
    """Side to move (``chess.WHITE`` or ``chess.BLACK``)."""
    tapered: int
    """``(mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX`` from the side to move's view
    (negated before the division, as ``blend`` does)."""
    tempo: int
    """Bonus of the side to move (``TEMPO``)."""
    score: int
    """Equal to ``evaluate(board)``, from the side to move: ``classical`` with the net's share
    added (a residual net) or the net's alone."""
    classical: int = 0
    """``tapered + tempo``: the classical evaluation, from the side to move."""
    net: Optional[int] = None
    """The net's share from the side to move (None: no net in use)."""
    net_description: str = ""
    """Which net: its file, checksum, shape and whether it adds to the classical evaluation;
    without a net, why not (``describe_evaluation``)."""

    @property
    def mg(self) -> int:
        """Middlegame sum of the terms, White's view."""
        return sum(term.total[0] for term in self.terms)

    @property
    def eg(self) -> int:
        """Endgame sum of the terms, White's view."""
        return sum(term.total[1] for term in self.terms)

    @property
    def white_score(self) -> int:
        """``score`` from White's view."""
        return self.score if self.turn else -self.score


def _side_terms(board: chess.Board, color: bool):
    """One side's own terms (positive = good for it): material, piece-square tables, then
    bishop pair and rooks on open and semi-open files (as ``_pieces`` counts them)."""
    occupied = board.occupied_co[color]
    material = [0, 0]
    squares = [0, 0]
    phase = 0
    sign = 1 if color else -1
    for piece_type in range(1, 7):
        for sq in _scan(board.pieces_mask(piece_type, color)):
            material[0] += _MG_VALUE[piece_type]
            material[1] += _EG_VALUE[piece_type]
            squares[0] += sign * PST_MG[piece_type][color][sq] - _MG_VALUE[piece_type]
            squares[1] += sign * PST_EG[piece_type][color][sq] - _EG_VALUE[piece_type]
            phase += PHASE_INC[piece_type]
    bishops = board.bishops & occupied
    pair = BISHOP_PAIR if bishops & (bishops - 1) else (0, 0)
    pawns = board.pawns
    own_pawns = pawns & occupied
    rooks = [0, 0]
    for sq in _scan(board.rooks & occupied):
        file_mask = _FILES[sq & 7]
        if not pawns & file_mask:
            rooks[0] += ROOK_OPEN_FILE[0]
            rooks[1] += ROOK_OPEN_FILE[1]
        elif not own_pawns & file_mask:
            rooks[0] += ROOK_SEMI_OPEN_FILE[0]
            rooks[1] += ROOK_SEMI_OPEN_FILE[1]
    pawn = _pawn_terms(own_pawns, pawns & board.occupied_co[not color], color)
    terms = (tuple(material), tuple(squares), pawn[0:2], pawn[2:4], pawn[4:6], pair, tuple(rooks))
    if _EXTRA:
        counts = eval_terms.board_counts(board, color)
        terms += tuple((weight[0] * count, weight[1] * count) for weight, count in zip(eval_terms.WEIGHTS, counts))
    return terms, phase


TERM_NAMES = ("Material", "Piece-square", "Passed pawns", "Isolated pawns", "Doubled pawns",
              "Bishop pair", "Rooks on files")
"""The terms of ``breakdown``, in order."""
EXTRA_TERM_NAMES = ("King shield", "King on open file", "Pawn threats", "Blocked passers", "Passer-own king",
                    "Passer-enemy king", "Rooks on 7th", "Knight outposts", "Pawn phalanx", "Supported pawns",
                    "Backward pawns")
"""The candidate terms' names (``engine.eval_terms.NAMES``' order), shown after ``TERM_NAMES``
when they count."""


def breakdown(board: chess.Board) -> Breakdown:
    """The evaluation of ``board`` term by term; ``breakdown(board).score == evaluate(board)``."""
    white, white_phase = _side_terms(board, chess.WHITE)
    black, black_phase = _side_terms(board, chess.BLACK)
    names = TERM_NAMES + (EXTRA_TERM_NAMES if _EXTRA else ())
    terms = [Term(name, w, b) for name, w, b in zip(names, white, black)]
    phase = min(white_phase + black_phase, PHASE_MAX)
    mg = sum(term.total[0] for term in terms)
    eg = sum(term.total[1] for term in terms)
    if not board.turn:
        mg, eg = -mg, -eg
    tapered = (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX
    classical_score = tapered + TEMPO
    net = _net
    if net is None:
        return Breakdown(terms, phase, board.turn, tapered, TEMPO, bounded(classical_score), classical_score,
                         net_description=describe_evaluation())
    learned = net.evaluate(net.accumulator(nnue.board_pieces(board)), 1 if board.turn else 0)
    score = bounded(classical_score + learned if net.residual else learned)
    return Breakdown(terms, phase, board.turn, tapered, TEMPO, score, classical_score, learned, describe_net(net))


def describe_net(net: "nnue.Net") -> str:
    """One line naming a net: file, short checksum (SHA-256's first 12 hex digits, as
    docs/nnue.md gives the shipped net's), shape, and how it is used."""
    checksum = " sha256 %s" % net.sha256[:12] if net.sha256 else ""
    return "%s%s (768->%dx2->1, %s)" % (net.name or "net", checksum, net.hidden,
                                        "added to the classical evaluation" if net.residual else "replaces it")


def describe_evaluation() -> str:
    """Which evaluation runs, in one line (``uci``, ``eval``, ``pruner --version``): the net in
    use, or the classical evaluation and why (the shipped net's file and what is wrong with it)."""
    if _net is not None:
        return "NNUE evaluation using " + describe_net(_net)
    if _net_problem is not None:
        return "classical evaluation, because the shipped net cannot be used: " + _net_problem
    return "classical evaluation (no net asked for)"
