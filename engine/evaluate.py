"""Static evaluation: tapered middlegame/endgame material, piece-square tables and a few
positional terms (pawn structure, bishop pair, rooks on open files).

The weights are in engine/weights.py (scripts/tune.py writes it); the material and PST
figures there are PeSTO's (Ronald Friederich, published on the Chess Programming Wiki:
https://www.chessprogramming.org/PeSTO%27s_Evaluation_Function). Material+PST sums are kept
incrementally by ``pruner.engine.makemove``; ``blend`` adds the terms computed on demand and blends
middlegame and endgame by game phase. Scores are from the side to move. ``breakdown`` shows
the same evaluation term by term (the UCI ``eval`` command); it is never called by the search.

An ``Evaluator`` is one evaluation (weights, net, their tables and caches), chosen by making it;
each ``Searcher`` owns one. ``DEFAULT`` is the engine's own; the module's functions use it.
"""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import chess

from pruner.engine import eval_terms, nnue, weights
from pruner.engine.types import EVAL_LIMIT

PHASE_INC = (0, 0, 1, 1, 2, 4, 0)
"""Game-phase weight per piece type (index by python-chess piece type; 0 is unused)."""
PHASE_MAX = 24
"""Phase of the full starting material; more (after promotions) is clamped."""

TEMPO = weights.TEMPO
"""engine/weights.py's bonus for the side to move (it can act first); an ``Evaluator`` holds
its own weights' (``Evaluator.tempo``)."""


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


_PASSED = eval_terms.PASSED_SPANS
_ADJACENT_FILES = [(chess.BB_FILES[f - 1] if f > 0 else 0) | (chess.BB_FILES[f + 1] if f < 7 else 0) for f in range(8)]
_FILES = chess.BB_FILES
_scan = chess.scan_forward

_FILE_COUNT = [bin(files).count("1") for files in range(256)]
"""Number of files in an 8-bit set of files."""

_PAWN_CACHE_MAX = 1 << 16
"""Entries an evaluator's pawn caches hold before they are emptied."""
_EVAL_CACHE_MAX = 1 << 16
"""Entries an evaluator's evaluation cache holds before it is emptied."""


class Evaluator:
    """One evaluation and what it needs: the classical weights (a module shaped as
    engine/weights.py), the learned net or none, the candidate terms' weights, the tables made
    from them and the caches of their results. It is chosen by constructing it, never switched:
    a ``Searcher`` owns one (``SearchParams.weights`` and ``evalfile`` choose it), a
    ``Position`` is set up with one and ``pruner.engine.makemove`` updates the position's incremental
    sums with that evaluator's tables, so two searchers with different evaluations share nothing
    but constants. ``DEFAULT`` is the engine's own (engine/weights.py and the shipped net)."""

    def __init__(self, module=weights, net: "Optional[nnue.Net]" = None, candidates=None,
                 evalfile: str = "") -> None:
        # Everything is read (and may raise) here: a module that lacks a number makes no evaluator.
        self.weights = module
        """The weights module the numbers come from."""
        self.net = net
        """The net (None: the classical evaluation alone)."""
        self.evalfile = evalfile
        """The name the net was asked for by (``SearchParams.evalfile``, the ``EvalFile`` option):
        "" the shipped one, ``classical`` none, else a path; ``describe`` says why there is no net."""
        self.tempo = module.TEMPO
        """Bonus for the side to move."""
        self.mg_value, self.eg_value = module.MG_VALUE, module.EG_VALUE
        self.pst_mg = _signed_tables(module.MG_VALUE, module.MG_TABLES)
        """Middlegame material+PST, White-positive: ``pst_mg[piece_type][color][square]``
        (``pruner.engine.makemove`` keeps ``Position.mg`` with it)."""
        self.pst_eg = _signed_tables(module.EG_VALUE, module.EG_TABLES)
        """Endgame material+PST, White-positive: ``pst_eg[piece_type][color][square]``."""
        representation = net.representation if net is not None else None
        self.columns = net.columns if representation == "packed" else None
        """The net's packed columns, ``columns[piece_type][color][square]``, which
        ``pruner.engine.makemove.do_move_packed`` adds to ``Position.acc`` inline; None without
        a net (no accumulator work at all) or with one of another representation."""
        self.list_columns = net.columns if representation in ("lists", "lazy") else None
        """The net's columns as lists (``pruner.engine.nnue.ListAccumulators``), which
        ``pruner.engine.makemove.do_move_lists`` updates ``Position.acc`` with (or
        ``do_move_lazy`` defers to the evaluation); None otherwise."""
        self.lazy = representation == "lazy"
        """Whether the list accumulator is brought up to date only at an evaluation
        (``pruner.engine.nnue.LazyAccumulators``)."""
        self.passed_mg, self.passed_eg = module.PASSED_MG, module.PASSED_EG
        """Passed pawn bonus by relative rank (index 1 = second rank), middlegame and endgame."""
        self.isolated, self.doubled = module.ISOLATED, module.DOUBLED
        self.bishop_pair = module.BISHOP_PAIR
        self.rook_open_file, self.rook_semi_open_file = module.ROOK_OPEN_FILE, module.ROOK_SEMI_OPEN_FILE
        self.candidates = tuple(candidates) if candidates is not None else eval_terms.weights_of(module)
        """The candidate terms' (mg, eg) weights in ``eval_terms.NAMES`` order: the module's
        ((0, 0) for a term it lacks), or the table given (tests and the tuner's checks)."""
        self.extra = eval_terms.enabled(self.candidates)
        """Whether the candidate terms count (false with today's weights: no call to
        ``pruner.engine.eval_terms`` at all)."""
        self.extra_pieces = eval_terms.pieces_enabled(self.candidates)
        """Whether one that needs more than the pawns counts: the search then calls
        ``eval_terms.piece_terms`` at every evaluation (the pawn-structure ones are in its pawn cache)."""
        self.pawn_cache: dict = {}
        """Memo of ``pawn_structure`` (a pure function of the two pawn bitboards under these
        weights). Pawn structures repeat across most of the tree: the hit rate is above 95% in
        the bench."""
        self.evaluate_position, self.classical_position, self.pawn_entries, self.eval_cache, \
            self.evaluate_outside = _position_evaluation(self)

    @property
    def weights_name(self) -> str:
        """The name of the weights module (``pruner.engine.weights`` for the engine's own)."""
        return self.weights.__name__

    def material_pst(self, board: chess.Board) -> Tuple[int, int, int]:
        """(mg, eg, phase) sums from scratch: White-positive material+PST and the game phase."""
        pst_mg, pst_eg = self.pst_mg, self.pst_eg
        mg = eg = phase = 0
        for sq, piece in board.piece_map().items():
            pt, color = piece.piece_type, piece.color
            mg += pst_mg[pt][color][sq]
            eg += pst_eg[pt][color][sq]
            phase += PHASE_INC[pt]
        return mg, eg, phase

    def accumulator(self, board: chess.Board) -> int:
        """The accumulator of ``board`` for this evaluation's net, in its representation (0
        without a net)."""
        net = self.net
        return net.accumulator(nnue.board_pieces(board)) if net is not None else 0

    def pawn_terms(self, own: int, other: int, color: bool) -> Tuple[int, int, int, int, int, int]:
        """One side's pawn structure term by term: (mg, eg) of its passed pawns, then of its
        isolated pawns, then of its doubled pawns."""
        # Plain integer loops (no generator, no bin()): this runs on every pawn-cache miss, and
        # PyPy's JIT compiles neither a generator per bitboard nor string counting well.
        passed_mg_table, passed_eg_table = self.passed_mg, self.passed_eg
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
                passed_mg += passed_mg_table[rank]
                passed_eg += passed_eg_table[rank]
            if not _ADJACENT_FILES[sq & 7] & own:
                isolated += 1
        doubled = pawns - _FILE_COUNT[files]  # the pawns beyond the first on each file
        return (passed_mg, passed_eg, self.isolated[0] * isolated, self.isolated[1] * isolated,
                self.doubled[0] * doubled, self.doubled[1] * doubled)

    def _pawn_side(self, own: int, other: int, color: bool) -> Tuple[int, int]:
        """(mg, eg) of one side's pawn structure: passed, isolated and doubled pawns."""
        passed_mg, passed_eg, isolated_mg, isolated_eg, doubled_mg, doubled_eg = self.pawn_terms(own, other, color)
        return passed_mg + isolated_mg + doubled_mg, passed_eg + isolated_eg + doubled_eg

    def pawn_structure(self, white_pawns: int, black_pawns: int) -> Tuple[int, int]:
        """White-positive (mg, eg) of the pawn structure, memoised."""
        cache = self.pawn_cache
        key = (white_pawns, black_pawns)
        cached = cache.get(key)
        if cached is None:
            wmg, weg = self._pawn_side(white_pawns, black_pawns, chess.WHITE)
            bmg, beg = self._pawn_side(black_pawns, white_pawns, chess.BLACK)
            cached = (wmg - bmg, weg - beg)
            if len(cache) >= _PAWN_CACHE_MAX:
                cache.clear()
            cache[key] = cached
        return cached

    def _pieces(self, board: chess.Board, color: bool, pawns_all: int, own_pawns: int) -> Tuple[int, int]:
        """(mg, eg) of one side's bishop pair and rooks on open / semi-open files."""
        mg = eg = 0
        occ = board.occupied_co[color]
        bishops = board.bishops & occ
        if bishops & (bishops - 1):
            mg += self.bishop_pair[0]
            eg += self.bishop_pair[1]
        for sq in _scan(board.rooks & occ):
            file_mask = _FILES[sq & 7]
            if not pawns_all & file_mask:
                mg += self.rook_open_file[0]
                eg += self.rook_open_file[1]
            elif not own_pawns & file_mask:
                mg += self.rook_semi_open_file[0]
                eg += self.rook_semi_open_file[1]
        return mg, eg

    def positional(self, board: chess.Board) -> Tuple[int, int]:
        """White-positive (mg, eg) of the terms not kept incrementally."""
        pawns = board.pawns
        white_pawns = pawns & board.occupied_co[chess.WHITE]
        black_pawns = pawns & board.occupied_co[chess.BLACK]
        mg, eg = self.pawn_structure(white_pawns, black_pawns)
        wmg, weg = self._pieces(board, chess.WHITE, pawns, white_pawns)
        bmg, beg = self._pieces(board, chess.BLACK, pawns, black_pawns)
        mg += wmg - bmg
        eg += weg - beg
        if self.extra:
            emg, eeg = eval_terms.board_score(board, self.candidates)
            mg += emg
            eg += eeg
        return mg, eg

    def blend(self, board: chess.Board, mg: int, eg: int, phase: int) -> int:
        """Score from the side to move, given the incremental White-positive sums."""
        pmg, peg = self.positional(board)
        return _taper(mg + pmg, eg + peg, phase, board.turn) + self.tempo

    def classical(self, board: chess.Board) -> int:
        """The classical evaluation of ``board`` (material, piece-square tables, positional
        terms) in centipawns from the side to move."""
        return self.blend(board, *self.material_pst(board))

    def evaluate(self, board: chess.Board) -> int:
        """Static evaluation of ``board`` in centipawns from the side to move: the classical one
        with the net's correction, or the net alone; what ``evaluate_position`` gives for the
        same position in the search."""
        net = self.net
        if net is None:
            return bounded(self.classical(board))
        learned = net.evaluate(net.accumulator(nnue.board_pieces(board)), 1 if board.turn else 0)
        return bounded(self.classical(board) + learned if net.residual else learned)

    def pawn_entry(self, white_pawns: int, black_pawns: int) -> tuple:
        """What ``evaluate_position`` keeps per pawn structure: both pawn bitboards (to tell a
        structure from another with the same cache key), the White-positive (mg, eg) of
        ``pawn_structure``, and the squares of the open files, of the files half-open for White
        (black pawns only) and of those half-open for Black (signed bitboards); when the candidate
        terms count, also what ``_extra_position`` reads."""
        mg, eg = self.pawn_structure(white_pawns, black_pawns)
        open_files = white_half_open = black_half_open = 0
        for file_mask in _SFILES:
            if not (white_pawns | black_pawns) & file_mask:
                open_files |= file_mask
            elif not white_pawns & file_mask:
                white_half_open |= file_mask
            elif not black_pawns & file_mask:
                black_half_open |= file_mask
        if not self.extra:
            return white_pawns, black_pawns, mg, eg, open_files, white_half_open, black_half_open
        # The candidate terms count: their pawn-structure part goes into the sums, and each side's
        # passed pawns, pawn attacks and outposts stay for _extra_position (indices 7 and 8).
        extra_mg, extra_eg, black_info, white_info = eval_terms.pawn_terms(white_pawns, black_pawns, self.candidates)
        return (white_pawns, black_pawns, mg + extra_mg, eg + extra_eg, open_files, white_half_open, black_half_open,
                black_info, white_info)

    def breakdown(self, board: chess.Board) -> "Breakdown":
        """The evaluation of ``board`` term by term; ``breakdown(board).score == evaluate(board)``."""
        white, white_phase = self._side_terms(board, chess.WHITE)
        black, black_phase = self._side_terms(board, chess.BLACK)
        names = TERM_NAMES + (EXTRA_TERM_NAMES if self.extra else ())
        terms = [Term(name, w, b) for name, w, b in zip(names, white, black)]
        phase = min(white_phase + black_phase, PHASE_MAX)
        mg = sum(term.total[0] for term in terms)
        eg = sum(term.total[1] for term in terms)
        tapered = _taper(mg, eg, phase, board.turn)
        tempo = self.tempo
        classical_score = tapered + tempo
        net = self.net
        if net is None:
            return Breakdown(terms, phase, board.turn, tapered, tempo, bounded(classical_score), classical_score,
                             net_description=self.describe())
        learned = net.evaluate(net.accumulator(nnue.board_pieces(board)), 1 if board.turn else 0)
        score = bounded(classical_score + learned if net.residual else learned)
        return Breakdown(terms, phase, board.turn, tapered, tempo, score, classical_score, learned, describe_net(net))

    def _side_terms(self, board: chess.Board, color: bool):
        """One side's own terms (positive = good for it): material, piece-square tables, then
        bishop pair and rooks on open and semi-open files (as ``_pieces`` counts them)."""
        occupied = board.occupied_co[color]
        mg_value, eg_value = self.mg_value, self.eg_value
        material = [0, 0]
        squares = [0, 0]
        phase = 0
        sign = 1 if color else -1
        for piece_type in range(1, 7):
            for sq in _scan(board.pieces_mask(piece_type, color)):
                material[0] += mg_value[piece_type]
                material[1] += eg_value[piece_type]
                squares[0] += sign * self.pst_mg[piece_type][color][sq] - mg_value[piece_type]
                squares[1] += sign * self.pst_eg[piece_type][color][sq] - eg_value[piece_type]
                phase += PHASE_INC[piece_type]
        bishops = board.bishops & occupied
        pair = self.bishop_pair if bishops & (bishops - 1) else (0, 0)
        pawns = board.pawns
        own_pawns = pawns & occupied
        rooks = [0, 0]
        for sq in _scan(board.rooks & occupied):
            file_mask = _FILES[sq & 7]
            if not pawns & file_mask:
                rooks[0] += self.rook_open_file[0]
                rooks[1] += self.rook_open_file[1]
            elif not own_pawns & file_mask:
                rooks[0] += self.rook_semi_open_file[0]
                rooks[1] += self.rook_semi_open_file[1]
        pawn = self.pawn_terms(own_pawns, pawns & board.occupied_co[not color], color)
        terms = (tuple(material), tuple(squares), pawn[0:2], pawn[2:4], pawn[4:6], pair, tuple(rooks))
        if self.extra:
            counts = eval_terms.board_counts(board, color)
            terms += tuple((weight[0] * count, weight[1] * count) for weight, count in zip(self.candidates, counts))
        return terms, phase

    def describe(self) -> str:
        """Which evaluation this is, in one line (``uci``, ``eval``, ``pruner --version``): its
        net, or the classical evaluation and why (the shipped net's file and what is wrong with it,
        or none asked for: ``evalfile`` ``classical``)."""
        if self.net is not None:
            return "NNUE evaluation using " + describe_net(self.net)
        problem = nnue.shipped_net()[1]
        if problem is not None and self.evalfile != "classical":
            return "classical evaluation, because the shipped net cannot be used: " + problem
        return "classical evaluation (no net asked for)"


def _taper(mg: int, eg: int, phase: int, turn: int) -> int:
    """The tapered sum from the side to move (without the tempo)."""
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    if not turn:
        mg, eg = -mg, -eg  # negate before dividing: floor division keeps colour symmetry
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


def bounded(score: int) -> int:
    """``score`` within ``EVAL_LIMIT`` either way: a net may say anything (its header fields are
    checked, its weights' sum is not), and a static evaluation must never read as a mate."""
    return EVAL_LIMIT if score > EVAL_LIMIT else -EVAL_LIMIT if score < -EVAL_LIMIT else score


# -- the same evaluation on the search's own board (pruner.engine.board.Position) ----------------------

_SFILES = [file_mask - (1 << 64) if file_mask >> 63 else file_mask for file_mask in _FILES]
"""The file masks as signed bitboards (``pruner.engine.attacks``)."""
_H8 = -(1 << 63)


def _count(squares: int) -> int:
    """Number of squares in a small signed bitboard (a side's rooks on some files)."""
    count = 0
    while squares:
        if squares == _H8:
            return count + 1
        squares &= squares - 1
        count += 1
    return count


def _position_evaluation(evaluator: Evaluator):
    """``evaluator``'s evaluation of an ``pruner.engine.board.Position``: (evaluate_position,
    classical_position, their pawn cache, their evaluation cache). The two functions hold the
    evaluator's numbers in their closure: the search's hot path (about a quarter of its time)
    reads local names, as it read module constants before, not an attribute per number."""
    pawn_entries: dict = {}
    """``pawn_entry`` memo for the search, by ``white_pawns ^ black_pawns >> 8 * 12289`` (63 bits:
    a machine word on PyPy); an entry holds its bitboards, so a shared key is only a miss."""
    eval_cache: dict = {}
    """``evaluate_position`` by Zobrist key (pieces and side to move decide the evaluation; the key
    also holds castling and en passant, which only split entries). About 38% of the bench's
    evaluations are of a position evaluated before (re-searches, transpositions), and a lookup
    costs a tenth of an evaluation with the net. A dict emptied at ``_EVAL_CACHE_MAX`` entries:
    a direct-mapped table of two lists (eaf9dea) answered as many evaluations but was slower on
    PyPy (bench 8, whole processes alternated on an idle machine: the dict 1.28x its nodes/s,
    median of 4 paired runs; CPython even), so the dict came back (docs/nnue.md)."""
    pawn_entry = evaluator.pawn_entry
    pair_mg, pair_eg = evaluator.bishop_pair
    open_mg, open_eg = evaluator.rook_open_file
    semi_open_mg, semi_open_eg = evaluator.rook_semi_open_file
    tempo = evaluator.tempo
    extra_pieces = evaluator.extra_pieces
    candidates = evaluator.candidates
    net = evaluator.net
    net_evaluate = net.accumulators.evaluate if net is not None else None
    """The net's evaluation of an accumulator, bound once (``nnue.PackedAccumulators.evaluate``
    or ``nnue.ListAccumulators.evaluate``)."""

    def classical_position(pos) -> int:
        """The classical evaluation of an ``pruner.engine.board.Position``: its incremental sums plus
        the terms ``positional`` adds, from the side to move."""
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
        entry = pawn_entries.get(key)
        if entry is None or entry[0] != white_pawns or entry[1] != black_pawns:
            entry = pawn_entry(white_pawns, black_pawns)
            if len(pawn_entries) >= _PAWN_CACHE_MAX:
                pawn_entries.clear()
            pawn_entries[key] = entry
        mg = pos.mg + entry[2]
        eg = pos.eg + entry[3]
        bishops = bb[3] & white
        if bishops != _H8 and bishops & (bishops - 1):  # a pair (h8 alone is the sign bit)
            mg += pair_mg
            eg += pair_eg
        bishops = bb[3] & black
        if bishops != _H8 and bishops & (bishops - 1):
            mg -= pair_mg
            eg -= pair_eg
        rooks = bb[4]
        if rooks:
            open_files = entry[4]
            own = rooks & white
            if own:
                on_open = own & open_files
                if on_open:
                    count = _count(on_open)
                    mg += open_mg * count
                    eg += open_eg * count
                on_half_open = own & entry[5]
                if on_half_open:
                    count = _count(on_half_open)
                    mg += semi_open_mg * count
                    eg += semi_open_eg * count
            own = rooks & black
            if own:
                on_open = own & open_files
                if on_open:
                    count = _count(on_open)
                    mg -= open_mg * count
                    eg -= open_eg * count
                on_half_open = own & entry[6]
                if on_half_open:
                    count = _count(on_half_open)
                    mg -= semi_open_mg * count
                    eg -= semi_open_eg * count
        if extra_pieces:
            mg, eg = _extra_position(pos, mg, eg, entry, candidates)
        phase = pos.phase
        if phase > 24:
            phase = 24
        if not pos.turn:
            mg, eg = -mg, -eg  # negate before dividing: floor division keeps colour symmetry
        return (mg * phase + eg * (24 - phase)) // 24 + tempo

    def evaluate_position(pos) -> int:
        """``evaluate`` of an ``pruner.engine.board.Position`` set up with this evaluator, from the side
        to move: the classical evaluation plus the net's correction (its accumulator is
        ``pos.acc``), or the net alone."""
        key = pos.key
        value = eval_cache.get(key)
        if value is not None:
            return value
        if net is None:
            value = classical_position(pos)
        else:
            learned = net_evaluate(pos.acc, pos.turn)
            value = classical_position(pos) + learned if net.residual else learned
        if not -EVAL_LIMIT <= value <= EVAL_LIMIT:  # ``bounded``, inline: this is the search's hot path
            value = EVAL_LIMIT if value > 0 else -EVAL_LIMIT
        if len(eval_cache) >= _EVAL_CACHE_MAX:
            eval_cache.clear()
        eval_cache[key] = value
        return value

    def evaluate_outside(pos, alpha: int, beta: int, margin: int) -> int:
        """``evaluate_position``, except that a net which corrects the classical evaluation is
        not asked when the classical score lies more than ``margin`` outside (``alpha``,
        ``beta``): then the classical score alone (the net's correction is below 277 cp at 99%
        of the bench's evaluations, so the side of the window rarely changes), not kept in the
        evaluation cache. For the quiescence search's stand pat (``SearchParams.lazy_net_margin``)."""
        value = eval_cache.get(pos.key)
        if value is not None:
            return value
        if net is None or not net.residual:
            return evaluate_position(pos)
        classical = value = classical_position(pos)
        outside = classical - margin >= beta or classical + margin <= alpha
        if not outside:  # the net too, on the classical score computed once
            value = classical + net_evaluate(pos.acc, pos.turn)
        if not -EVAL_LIMIT <= value <= EVAL_LIMIT:
            value = EVAL_LIMIT if value > 0 else -EVAL_LIMIT
        if not outside:
            if len(eval_cache) >= _EVAL_CACHE_MAX:
                eval_cache.clear()
            eval_cache[pos.key] = value
        return value

    return evaluate_position, classical_position, pawn_entries, eval_cache, evaluate_outside


assert PHASE_MAX == 24  # written out in classical_position


def _extra_position(pos, mg: int, eg: int, entry, candidates) -> Tuple[int, int]:
    """``mg`` and ``eg`` plus the candidate terms (``pruner.engine.eval_terms``, weighted by
    ``candidates``) of a Position other than the pawn-structure ones, which its pawn ``entry``
    already holds."""
    full = chess.BB_ALL  # the Position's bitboards are signed; eval_terms reads unsigned ones
    bb = pos.bb
    white = pos.occ[1] & full
    black = pos.occ[0] & full
    pawns, knights, rooks = bb[1] & full, bb[2] & full, bb[4] & full
    pieces = (bb[2] | bb[3] | bb[4] | bb[5]) & full
    kings = pos.king_squares
    wmg, weg = eval_terms.piece_terms(True, pawns & white, kings[1], kings[0], entry[8], knights & white,
                                      rooks & white, pieces & black, black, candidates)
    bmg, beg = eval_terms.piece_terms(False, pawns & black, kings[0], kings[1], entry[7], knights & black,
                                      rooks & black, pieces & white, white, candidates)
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


TERM_NAMES = ("Material", "Piece-square", "Passed pawns", "Isolated pawns", "Doubled pawns",
              "Bishop pair", "Rooks on files")
"""The terms of ``breakdown``, in order."""
EXTRA_TERM_NAMES = ("King shield", "King on open file", "Pawn threats", "Blocked passers", "Passer-own king",
                    "Passer-enemy king", "Rooks on 7th", "Knight outposts", "Pawn phalanx", "Supported pawns",
                    "Backward pawns")
"""The candidate terms' names (``pruner.engine.eval_terms.NAMES``' order), shown after ``TERM_NAMES``
when they count."""


def describe_net(net: "nnue.Net") -> str:
    """One line naming a net: file, short checksum (SHA-256's first 12 hex digits, as
    docs/nnue.md gives the shipped net's), shape, and how it is used."""
    checksum = " sha256 %s" % net.sha256[:12] if net.sha256 else ""
    return "%s%s (768->%dx2->1, %s)" % (net.name or "net", checksum, net.hidden,
                                        "added to the classical evaluation" if net.residual else "replaces it")


DEFAULT = Evaluator(weights, nnue.net_named(""))
"""The engine's own evaluation: engine/weights.py and the shipped net (the classical evaluation
alone when the shipped net cannot be used: ``net_problem`` says why). What the functions below
evaluate with; a ``Searcher`` makes its own (``SearchParams.weights``, ``evalfile``)."""


def evaluate(board: chess.Board) -> int:
    """``DEFAULT.evaluate(board)``: the engine's own static evaluation, from the side to move."""
    return DEFAULT.evaluate(board)


def classical(board: chess.Board) -> int:
    """``DEFAULT.classical(board)``: the classical evaluation with engine/weights.py, from the side to move."""
    return DEFAULT.classical(board)


def breakdown(board: chess.Board) -> Breakdown:
    """``DEFAULT.breakdown(board)``: the engine's own evaluation of ``board`` term by term."""
    return DEFAULT.breakdown(board)


def describe_evaluation() -> str:
    """``DEFAULT.describe()``: which evaluation the engine runs, in one line."""
    return DEFAULT.describe()


def net_in_use() -> "Optional[nnue.Net]":
    """The net of the engine's own evaluation (``DEFAULT``), or None."""
    return DEFAULT.net


def net_problem() -> Optional[str]:
    """Why the shipped net cannot be used (None when it can)."""
    return nnue.shipped_net()[1]
