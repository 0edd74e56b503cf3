"""Searcher: iterative deepening, negamax alpha-beta with PVS, quiescence search.

One ``Searcher`` owns all search state (transposition table, move-ordering statistics, counters);
``new_game()`` resets it. ``search()`` takes a python-chess board and searches the tree on
its own board (``pruner.engine.board.Position``, moves as integer codes: ``pruner.engine.attacks``); moves
become ``chess.Move`` again only in what it reports (``SearchInfo.pv``, ``SearchResult``). It
reports every completed iteration through ``on_info`` and returns the last completed
iteration's result.
The stop flag, the hard time limit and the node limit are checked every ``CHECK_INTERVAL``
nodes and abort the running iteration by raising ``SearchAborted``. With an ``on_progress``
callback, the same check reports progress inside long iterations (see ``PROGRESS_AFTER``).
"""

import functools
import importlib
import math
import os
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional, Tuple

import chess

from pruner.engine.attacks import from_move, popcount, to_move
from pruner.engine.board import Position, in_check as is_in_check, is_insufficient_material
from pruner.engine import nnue, timeman
from pruner.engine.evaluate import Evaluator, evaluate
from pruner.engine.history import MoveStats
from pruner.engine.makemove import do_move, do_null, mover, undo_move
from pruner.engine.movegen import generate, is_legal
from pruner.engine.movepick import (PIECE_VALUE, is_capture, killer_moves, loses_material, ordered_moves, quiet_moves,
                             tactical_moves)
from pruner.engine.tablebase import Tablebases, rank_score
from pruner.engine.tt import EXACT, FIFTY_FREE, LOWER, UPPER, TranspositionTable, score_from_tt, score_to_tt, tt_key
from pruner.engine.types import (DRAW, INF, MATE, MATE_BOUND, MAX_PLY, TB_BOUND, Limits, SearchInfo, SearchProgress,
                          SearchResult, mate_in_moves)

CHECK_INTERVAL = 128
"""Nodes between checks of the stop flag and the clock (about 5-10 ms on CPython)."""

MAX_DEPTH = 100
"""Iterative deepening never goes deeper (reached only in trivial positions)."""

PROGRESS_AFTER = 1.0
"""Seconds into a search before ``on_progress`` hears anything: from then on each root move
is reported as it starts (``currmove``, as Stockfish does after 3 s) and a node/time report
comes about every ``PROGRESS_INTERVAL``. Shorter searches stay as quiet as before."""

PROGRESS_INTERVAL = 1.0
"""Seconds between node/time reports; a completed iteration (``on_info``) restarts the wait."""


def fallback_move(board: chess.Board) -> Optional[chess.Move]:
    """A move chosen without a search, for the rare case where the search failed before it
    completed depth 1: a mate in one, else the move after which the static evaluation is
    best for the mover (it takes a hanging rook; the first legal move would not)."""
    best, best_score = None, -INF
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                score = INF
            elif board.is_stalemate() or board.is_insufficient_material():
                score = DRAW
            else:
                score = -evaluate(board)
        finally:
            board.pop()
        if best is None or score > best_score:
            best, best_score = move, score
    return best


class SearchAborted(Exception):
    """Raised inside the tree when the search must stop now."""


PARAMS_VARIABLE = "PRUNER_PARAMS"
"""Environment variable read by ``SearchParams.from_environment``."""


@dataclass
class SearchParams:
    """Search tunables, kept together so that tuning touches one place."""

    pruning: bool = True
    """Forward pruning, reductions, extensions and aspiration windows; off = plain alpha-beta."""
    aspiration_depth: int = 4
    """First depth searched with an aspiration window."""
    aspiration_delta: int = 30
    """Initial half-width of the aspiration window (centipawns)."""
    rfp_depth: int = 6
    """Reverse futility pruning applies up to this depth."""
    rfp_margin: int = 80
    """Reverse futility margin per ply of depth."""
    nmp_depth: int = 3
    """Null-move pruning applies from this depth."""
    nmp_base: int = 3
    """Null-move reduction: ``nmp_base + depth // nmp_divisor`` plies."""
    nmp_divisor: int = 4
    """See ``nmp_base``."""
    lmr_depth: int = 3
    """Late move reductions apply from this depth."""
    lmr_moves: int = 3
    """... and from this many moves searched."""
    lmr_divisor: int = 150
    """Late move reduction ``log(depth) * log(moves) / (lmr_divisor / 100)``: smaller reduces more.
    150 since 2026-12-03 (225 before: +23.7 ± 18.1 Elo at 10+0.1, 1,000 games; docs/nnue.md)."""
    delta_margin: int = 200
    """Quiescence delta pruning margin (centipawns)."""
    lazy_net_margin: int = 0
    """Quiescence stand pat: the net is not asked when the classical score is this far outside
    the window (``Evaluator.evaluate_outside``; 0: always asked)."""
    weights: str = "pruner.engine.weights"
    """The module of evaluation weights the search evaluates with (its ``pruner.engine.evaluate.Evaluator``
    is made with it): the engine's own, or, for a limited-strength search, the ones its calibration measured
    (``pruner.engine.strength.CALIBRATED_SEARCH``) once the engine's own are re-tuned."""

    evalfile: str = ""
    """The learned evaluation's net: "" the shipped one (``pruner.engine.nnue.DEFAULT_NET``), a path
    another net file, ``classical`` none (the classical evaluation alone)."""

    @classmethod
    def parse(cls, text: str) -> "SearchParams":
        """Defaults overridden by ``name=value`` pairs separated by commas or spaces, e.g.
        ``"rfp_depth=0, nmp_depth=99"`` (the technique ablation matches use this). An unknown
        name, a value that is not a number (or a divisor below 1), or a ``weights`` module that cannot be imported
        raises ``ValueError``."""
        params = cls()
        for item in text.replace(",", " ").split():
            name, sep, value = item.partition("=")
            if not sep or name not in cls.__dataclass_fields__:
                raise ValueError("not a search parameter: %r" % item)
            if name == "weights":
                _weights_module(value)  # refused here, not at the first search
                params.weights = value
            elif name == "evalfile":
                nnue.net_named(value)  # a missing or damaged file is refused here too
                params.evalfile = value
            else:
                number = int(value) if name != "pruning" else value.lower() in ("1", "true", "on")
                if name in ("nmp_divisor", "lmr_divisor") and number < 1:
                    raise ValueError("%s must be at least 1: %r" % (name, item))
                setattr(params, name, number)
        return params

    @classmethod
    def from_environment(cls) -> "Tuple[SearchParams, Optional[str]]":
        """The parameters ``PRUNER_PARAMS`` sets (developers only: ablation and tuning matches
        pass it through ``--env1``), and the problem when it cannot be read (then the defaults:
        a typo must not stop an engine in a match; the caller reports the problem)."""
        try:
            return cls.parse(os.environ.get(PARAMS_VARIABLE, "")), None
        except ValueError as exc:
            return cls(), "%s ignored: %s" % (PARAMS_VARIABLE, exc)


def _weights_module(name: str):
    """The weights module called ``name``; ``ValueError`` naming it when it cannot be imported
    or lacks the evaluation's numbers."""
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise ValueError("no weights module %r: %s" % (name, exc)) from None
    if not hasattr(module, "MG_TABLES"):
        raise ValueError("not a weights module (no MG_TABLES): %r" % name)
    return module


def make_evaluator(params: SearchParams) -> Evaluator:
    """The evaluation ``params`` name: its ``weights`` module and its ``evalfile`` net."""
    return Evaluator(_weights_module(params.weights), nnue.net_named(params.evalfile), evalfile=params.evalfile)


LMR_DIVISOR = SearchParams.lmr_divisor
"""The default LMR divisor, whose table ``LMR`` the search uses without a lookup."""


@functools.lru_cache(maxsize=8)
def lmr_table(divisor: int = LMR_DIVISOR) -> List[List[int]]:
    """Reduction by depth and move number: the usual log(depth) * log(moves) shape, divided by
    ``divisor`` hundredths (``SearchParams.lmr_divisor``)."""
    scale = divisor / 100.0
    return [[0 if d == 0 or m == 0 else int(0.75 + math.log(d) * math.log(m) / scale) for m in range(64)]
            for d in range(64)]


LMR = lmr_table(LMR_DIVISOR)


class SearchRun:
    """One search's own state, made at its start (``Searcher.search``, ``quiescence_score``):
    its limits and clock, the search's board and keys, the principal variation table, the
    progress reports' schedule, the root's tablebase ranks and the best line found so far."""

    def __init__(self, start: float, evaluator: Evaluator, pos: Position, keys: List[int], repetition_floor: int,
                 root_board: Optional[chess.Board] = None, stop: Optional[threading.Event] = None,
                 soft: Optional[float] = None, hard: Optional[float] = None, node_limit: Optional[int] = None,
                 pondering: bool = False, ponderhit: Optional[threading.Event] = None,
                 on_progress: Optional[Callable[[SearchProgress], None]] = None) -> None:
        self.start = start
        """When the search started (``Searcher.clock``)."""
        self.tm_start = start
        """When the clock started: at ``ponderhit`` for a ponder search."""
        self.evaluate = evaluator.evaluate_position
        """The evaluation of ``pos`` (``Evaluator.evaluate_position``), bound once per search."""
        self.evaluate_outside = evaluator.evaluate_outside
        """... and the one that may leave the net out (``SearchParams.lazy_net_margin``)."""
        self.pos = pos
        """The search's own board (``pruner.engine.board.Position``, set up with the evaluator)."""
        self.do_move = mover(pos)
        """``pruner.engine.makemove.do_move``'s body for ``pos``'s accumulator (packed, a list or
        none), bound once: the tree calls it without the dispatch."""
        self.keys = keys
        """Zobrist keys of the positions since the last irreversible move, the root's last,
        then one per ply of the current line."""
        self.root_index = len(keys) - 1
        """Index of the root position in ``keys``."""
        self.repetition_floor = repetition_floor
        """Repetitions are looked for at this index of ``keys`` and later (see ``do_null``)."""
        self.root_board = root_board
        """The root as python-chess knows it (with the game's moves): root-move ranking, the
        ponder move's legality. The tree moves on ``pos`` only."""
        self.stop = stop
        self.soft, self.hard = soft, hard
        """Time limits in milliseconds (``pruner.engine.timeman.allocate``), None: none."""
        self.node_limit = node_limit
        self.pondering = pondering
        self.ponderhit = ponderhit
        self.on_progress = on_progress
        self.next_check = 0
        """The node count at which the limits are checked next (``Searcher._check``)."""
        self.show_currmove = False
        """Whether root moves are reported as they start (after ``PROGRESS_AFTER``)."""
        self.currmove_from = start + PROGRESS_AFTER
        self.next_report = start + PROGRESS_AFTER
        self.depth_now = 1
        self.root_offset = 0
        """Root moves of better MultiPV lines (``currmovenumber`` counts them too)."""
        self.pv: List[List[int]] = [[] for _ in range(MAX_PLY + 2)]
        """The principal variation found below each ply, as move codes."""
        self.tb_rank: Optional[Dict[int, int]] = None
        """Tablebase rank of each root move by its code when the root is in the tables."""
        self.partial: Optional[Tuple[int, List[int], str]] = None
        """The best root line of the running iteration so far: (score, pv, bound)."""


class Searcher:
    """Iterative-deepening alpha-beta searcher: python-chess boards in, ``chess.Move`` out."""

    def __init__(self, hash_mb: int = 16, params: Optional[SearchParams] = None) -> None:
        self.params = params or SearchParams()
        self.tt = TranspositionTable(hash_mb)
        self.move_overhead_ms = 10
        """Milliseconds subtracted from every time budget (GUI and pipe latency)."""
        self.stats = MoveStats()
        """Move-ordering statistics (killers, history): kept across searches, cleared by ``new_game``."""
        self.nodes = 0
        self.seldepth = 0
        self.tablebases: Optional[Tablebases] = None
        """Syzygy tables probed in the tree and at the root, or None (no probe at all)."""
        self.tbhits = 0
        """Successful tablebase probes in the current search."""
        self.clock: Callable[[], float] = time.monotonic
        """Seconds from an arbitrary origin: every time limit and report reads this (tests
        put a fake clock here)."""
        self.evaluator = make_evaluator(self.params)
        """The evaluation the search runs (``SearchParams.weights`` and ``evalfile`` choose it)."""
        self._evaluation = (self.params.weights, self.params.evalfile)
        """The parameters ``evaluator`` was made for."""
        self.run: Optional[SearchRun] = None
        """The running (or last) search's own state, made at its start."""

    # -- state management -------------------------------------------------------------------

    def new_game(self) -> None:
        """Forget everything learned from earlier searches."""
        self.tt.clear()
        self.stats.clear()

    def set_hash(self, mb: int) -> None:
        """Resize the transposition table to ``mb`` megabytes (clears it)."""
        self.tt.resize(mb)

    def clear_hash(self) -> None:
        """Empty the transposition table."""
        self.tt.clear()

    def hashfull(self) -> int:
        """Transposition table fill in permille."""
        return self.tt.hashfull()

    def set_evalfile(self, name: str) -> None:
        """Evaluate with the net ``name`` stands for (as ``SearchParams.evalfile``: "" the shipped
        one, ``classical`` none, else a path) from now on: the evaluator is made now from the net
        ``pruner.engine.nnue.net_named`` keeps under that name (the ``EvalFile`` option reads the
        file again first, with ``nnue.read_named``), and the table is emptied (its scores came
        from the other evaluation). ``NetError`` (a ``ValueError``) and nothing changes when the
        name's net cannot be read."""
        self.use_params(replace(self.params, evalfile=name))
        self.tt.clear()

    def use_params(self, params: SearchParams) -> None:
        """Search with ``params`` from now on, the evaluation they name made now (a weights
        module or a net that cannot be read raises, and nothing changes). The table is left
        as it is (``set_evalfile`` empties it; a Lazy SMP helper's is the main searcher's)."""
        evaluator = make_evaluator(params)
        self.params = params
        self.evaluator = evaluator
        self._evaluation = (params.weights, params.evalfile)

    # -- entry points -----------------------------------------------------------------------

    def search(self, board: chess.Board, limits: Limits,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               stop: Optional[threading.Event] = None, multipv: int = 1,
               ponderhit: Optional[threading.Event] = None,
               on_progress: Optional[Callable[[SearchProgress], None]] = None,
               params: Optional[SearchParams] = None) -> SearchResult:
        """Search ``board`` (not modified) within ``limits``; see the module docstring.

        With ``limits.ponder`` no clock applies until ``ponderhit`` is set (the GUI's
        ``ponderhit``); the clock then starts. An event made per ``go`` cannot be lost or
        left over, whenever it is set. ``on_progress`` receives ``SearchProgress`` reports
        from inside iterations after the first ``PROGRESS_AFTER`` seconds; it changes
        nothing in what the search does (the same nodes, moves and scores without it).
        ``params``: this search's parameters instead of the searcher's own (the strength
        model's limited searches run the search its calibration measured).
        """
        if params is None:
            return self._search(board, limits, on_info, stop, multipv, ponderhit, on_progress)
        own = self.params
        self.params = params
        try:
            return self._search(board, limits, on_info, stop, multipv, ponderhit, on_progress)
        finally:
            self.params = own

    def _search(self, board: chess.Board, limits: Limits, on_info: Optional[Callable[[SearchInfo], None]],
                stop: Optional[threading.Event], multipv: int, ponderhit: Optional[threading.Event],
                on_progress: Optional[Callable[[SearchProgress], None]]) -> SearchResult:
        start = self.clock()
        evaluator = self._evaluator_for(self.params)
        pos, keys, floor = self._prepare(board, evaluator)
        soft, hard = timeman.allocate(limits, board.turn, self.move_overhead_ms)
        run = self.run = SearchRun(start, evaluator, pos, keys, floor, board.copy(), stop, soft, hard,
                                   limits.nodes if limits.nodes is not None and limits.nodes > 0 else None,
                                   limits.ponder, ponderhit, on_progress)
        self.nodes = 0
        self.seldepth = 0
        self.tbhits = 0
        run.next_check = self._next_check_at()
        self.tt.new_search()
        root_moves = self._root_moves(limits)
        root_error: Optional[Exception] = None
        if self.tablebases is not None and root_moves:
            try:
                root_moves = self._tablebase_root(root_moves)
            except Exception as exc:  # tables are outside data: search on without their ranking
                root_error = exc
                run.tb_rank = None
        if not root_moves:
            return SearchResult(None, time_ms=self._elapsed_ms())
        if len(root_moves) == 1 and run.soft is not None and limits.movetime is None:
            # A forced move is searched like any other (a true score, a ponder move), on a
            # small share of the clock; go depth/nodes/movetime/infinite keep their limits.
            run.soft, run.hard = timeman.forced_move(run.soft)

        multipv = max(1, min(multipv, len(root_moves)))
        max_depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
        # Until depth 1 completes, the best guess is the best-ordered root move (hash move,
        # tablebase rank, captures), never just the first legal move.
        result = SearchResult(to_move(root_moves[0]))
        previous_score = 0
        depth = 0
        try:
            for depth in range(1, max_depth + 1):
                run.partial = None
                lines = self._iterate(depth, root_moves, multipv, previous_score)
                # Time use grows when the best move just changed or the score fell.
                instability = 1.0
                if depth > 1 and lines[0].pv[0] != result.best_move:
                    instability += 0.5
                if depth > 1 and lines[0].score < previous_score - 30:
                    instability += 0.3
                previous_score = lines[0].score
                self._show_tablebase_scores(lines)
                result = self._result(lines)
                if on_info is not None:
                    for line in lines:
                        on_info(line)
                if on_progress is not None:  # the info just sent shows the nodes: wait again
                    run.next_report = max(run.next_report, self.clock() + PROGRESS_INTERVAL)
                if self._should_stop(limits, lines[0].score, instability):
                    break
        except SearchAborted:
            result = self._interrupted(result, depth, previous_score, multipv)
        except Exception as exc:  # a bug or a resource failing mid-search: keep what completed
            result.error = exc
        if result.error is None:
            result.error = root_error
        result.nodes = self.nodes
        result.time_ms = self._elapsed_ms()
        return result

    def quiescence_score(self, board: chess.Board, ply: int = 0) -> int:
        """The quiescence value of ``board`` with a full window (side to move's view).

        ``ply`` is the distance from the root it stands for: mate scores count from there.
        """
        self.nodes = 0
        self.seldepth = 0
        evaluator = self._evaluator_for(self.params)
        pos = Position(board, evaluator)
        self.run = SearchRun(self.clock(), evaluator, pos, [pos.key], 0)
        self.run.next_check = self._next_check_at()
        return self._qsearch(-INF, INF, ply)

    # -- iterative deepening helpers -----------------------------------------------------------

    def _evaluator_for(self, params: SearchParams) -> Evaluator:
        """The evaluator ``params`` ask for: the searcher's own while they ask for the same one
        (its caches kept), else a new one, and then the table is emptied (its scores came from
        the other evaluation; a GUI can switch UCI_LimitStrength between two moves)."""
        choice = (params.weights, params.evalfile)
        if choice != self._evaluation:
            self.evaluator = make_evaluator(params)
            self._evaluation = choice
            self.tt.clear()
        return self.evaluator

    @staticmethod
    def _prepare(board: chess.Board, evaluator: Evaluator):
        """The search's own board at the root (set up with ``evaluator``), the keys of the
        positions since the last irreversible move (the game's moves since then are replayed on
        it, for repetitions) and the index in them repetitions are looked for from (after the
        game's last null move)."""
        work = board.copy()
        replay = min(len(work.move_stack), work.halfmove_clock)
        moves = [work.pop() for _ in range(replay)][::-1]
        pos = Position(work, evaluator)
        keys = [pos.key]
        floor = 0
        for move in moves:
            if move:
                do_move(pos, from_move(move))
            else:  # a null move in the game (PGN "--"): a pass, and no repetition reaches across it
                do_null(pos)
                floor = len(keys)
            keys.append(pos.key)
        pos.stack.clear()  # the root: nothing below it is ever taken back
        return pos, keys, floor

    def _root_moves(self, limits: Limits) -> List[int]:
        """Legal root moves (restricted by ``searchmoves``), hash move and captures first."""
        pos = self.run.pos
        entry = self.tt.probe(tt_key(pos.key, pos.hmc))
        ordered = [m for m, _ in ordered_moves(pos, entry[1] if entry else 0, self.stats, 0, is_in_check(pos))]
        if limits.searchmoves:
            wanted = {from_move(m) for m in limits.searchmoves}
            restricted = [m for m in ordered if m in wanted]
            ordered = restricted or ordered
        return ordered

    def _tablebase_root(self, moves: List[int]) -> List[int]:
        """Root in the tables: the moves in tablebase rank order (``Tablebases.rank_root_moves``:
        a win by DTZ with the fifty-move counter, a move that draws by repetition or the rule
        as a draw); each line is then searched among the moves of one rank only, so the best
        line always keeps the best result and a win makes progress. Outside the tables, or
        with a table missing, ``moves`` as they are."""
        run = self.run
        tablebases = self.tablebases
        board = run.root_board
        if not tablebases.covers(board):
            return moves
        keys = run.keys
        pos = run.pos

        def is_draw_after(move: chess.Move) -> bool:
            do_move(pos, from_move(move))
            child_key = pos.key
            board.push(move)
            fifty = board.halfmove_clock >= 100 and not board.is_checkmate()
            board.pop()
            undo_move(pos)
            return fifty or keys.count(child_key) >= 2  # a third occurrence

        ranked = tablebases.rank_root_moves(board, [to_move(m) for m in moves], is_draw_after)
        if ranked is None:
            return moves
        self.tbhits += len(ranked)
        run.tb_rank = {from_move(move): rank for move, rank in ranked}
        return [from_move(move) for move, _ in ranked]

    def _rank_group_end(self, moves: List[int], index: int) -> int:
        """End of the run of moves from ``index`` that share its tablebase rank (all of them
        when the root is not in the tables)."""
        ranks = self.run.tb_rank
        if ranks is None:
            return len(moves)
        rank = ranks[moves[index]]
        end = index + 1
        while end < len(moves) and ranks[moves[end]] == rank:
            end += 1
        return end

    def _show_tablebase_scores(self, lines: List[SearchInfo]) -> None:
        """Root in the tables: report each line with its tablebase score (win, cursed win,
        draw, ...) unless the search proved a mate, as Stockfish does."""
        ranks = self.run.tb_rank
        if ranks is None:
            return
        for line in lines:
            if abs(line.score) < MATE_BOUND:
                line.score = rank_score(ranks[from_move(line.pv[0])])

    def _iterate(self, depth: int, root_moves: List[int], multipv: int, previous_score: int) -> List[SearchInfo]:
        """One iteration: ``multipv`` root searches, each excluding the moves of better lines.
        The lines are one set, as Stockfish reports it: the counters (nodes, time, seldepth,
        hashfull, tbhits) are the iteration's at its end, the same in every line, so a GUI
        never reads the lines of one depth as reports from different moments."""
        run = self.run
        lines = []
        run.depth_now = depth
        for index in range(multipv):
            run.root_offset = index  # currmovenumber counts the moves of better lines too
            candidates = root_moves[index:self._rank_group_end(root_moves, index)]
            score, pv = self._aspiration(depth, candidates,
                                         previous_score if index == 0 else None, index == 0)
            # Keep the root list ordered: this line's move goes to its rank.
            root_moves.remove(pv[0])
            root_moves.insert(index, pv[0])
            lines.append(SearchInfo(depth=depth, seldepth=0, score=score, nodes=0, time_ms=0,
                                    pv=[to_move(m) for m in pv], multipv=index + 1))
        seldepth, nodes, time_ms, hashfull = self.seldepth, self.nodes, self._elapsed_ms(), self.tt.hashfull()
        for line in lines:
            line.seldepth, line.nodes, line.time_ms, line.hashfull, line.tbhits = \
                seldepth, nodes, time_ms, hashfull, self.tbhits
        ranks = run.tb_rank
        if ranks is None:
            lines.sort(key=lambda line: -line.score)
        else:  # a better tablebase rank first, whatever the search thinks of the position
            lines.sort(key=lambda line: (-ranks[from_move(line.pv[0])], -line.score))
        for rank, line in enumerate(lines, 1):
            line.multipv = rank
        return lines

    def _aspiration(self, depth: int, moves: List[int], guess: Optional[int], track: bool = False):
        """Aspiration windows: search a narrow window around the last score, widen on failure.
        ``track``: keep the best line so far in ``SearchRun.partial`` (the first MultiPV line)."""
        params = self.params
        if not params.pruning or guess is None or depth < params.aspiration_depth or abs(guess) >= MATE_BOUND:
            return self._search_root(depth, -INF, INF, moves, track)
        delta = params.aspiration_delta
        alpha, beta = max(-INF, guess - delta), min(INF, guess + delta)
        while True:
            score, pv = self._search_root(depth, alpha, beta, moves, track)
            if score <= alpha:
                alpha = max(-INF, score - delta)
            elif score >= beta:
                beta = min(INF, score + delta)
            else:
                return score, pv
            delta *= 2
            if delta > 1000:
                alpha, beta = -INF, INF

    def _search_root(self, depth: int, alpha: int, beta: int, moves: List[int], track: bool = False):
        """PVS over the root moves; returns (score, pv of move codes). The first move gets the
        full window. ``track``: each new best line goes to ``SearchRun.partial`` as soon as it is found."""
        run = self.run
        pos = run.pos
        keys = run.keys
        pv_table = run.pv
        pruning = self.params.pruning
        do_move = run.do_move
        original_alpha = alpha
        best, best_pv = -INF, [moves[0]]
        for index, move in enumerate(moves):
            if run.show_currmove:
                self._report_currmove(depth, to_move(move), index)
            gives_check = do_move(pos, move)
            keys.append(pos.key)
            new_depth = depth - 1 + (1 if pruning and gives_check else 0)  # check extension
            if index == 0:
                score = -self._negamax(new_depth, -beta, -alpha, 1, True, gives_check)
            else:
                score = -self._negamax(new_depth, -alpha - 1, -alpha, 1, True, gives_check)
                if alpha < score < beta:
                    score = -self._negamax(new_depth, -beta, -alpha, 1, True, gives_check)
            undo_move(pos)
            keys.pop()
            if score > best:
                best = score
                if score > alpha:
                    best_pv = [move] + pv_table[1]
                    if track:
                        run.partial = (score, best_pv, "lower" if score >= beta else "exact")
                    alpha = score
                    if alpha >= beta:
                        break
        bound = LOWER if best >= beta else (EXACT if best > original_alpha else UPPER)
        self.tt.store(tt_key(pos.key, pos.hmc), best_pv[0], score_to_tt(best, 0), depth, bound)
        return best, best_pv

    def _result(self, lines: List[SearchInfo]) -> SearchResult:
        """Package a completed iteration; the ponder move comes from the PV or the hash table."""
        run = self.run
        pv = lines[0].pv
        ponder = pv[1] if len(pv) > 1 else None
        if ponder is None:
            pos = run.pos
            do_move(pos, from_move(pv[0]))
            entry = self.tt.probe(tt_key(pos.key, pos.hmc))
            undo_move(pos)
            if entry is not None and entry[1]:
                board = run.root_board
                board.push(pv[0])
                if board.is_legal(to_move(entry[1])):
                    ponder = to_move(entry[1])
                board.pop()
        return SearchResult(pv[0], ponder, lines, self.nodes, self._elapsed_ms())

    def _interrupted(self, result: SearchResult, depth: int, previous_score: int, multipv: int) -> SearchResult:
        """The search stopped inside iteration ``depth``: play what it already found there when
        it is a new best move scoring better than the last completed iteration (or when no
        iteration completed), as most engines do; otherwise the last completed iteration."""
        partial = self.run.partial
        if partial is None or multipv != 1:
            return result
        score, pv, bound = partial
        if result.lines and (to_move(pv[0]) == result.best_move or score <= previous_score):
            return result
        line = SearchInfo(depth=depth, seldepth=self.seldepth, score=score, nodes=self.nodes,
                          time_ms=self._elapsed_ms(), pv=[to_move(m) for m in pv], bound=bound, hashfull=self.tt.hashfull(),
                          tbhits=self.tbhits)
        self._show_tablebase_scores([line])
        return self._result([line])

    def _should_stop(self, limits: Limits, score: int, instability: float) -> bool:
        """Soft limits, checked between iterations; ``instability`` (>= 1) stretches the budget."""
        run = self.run
        if limits.mate is not None:
            mate = mate_in_moves(score)
            if mate is not None and 0 < mate <= limits.mate:
                return not (limits.infinite or limits.ponder)
        self._poll_ponderhit()
        if limits.infinite or run.pondering:
            return False
        if run.soft is None or limits.movetime is not None:
            return False  # movetime: the whole time is used, as Stockfish does (the hard limit ends it)
        elapsed = (self.clock() - run.tm_start) * 1000
        # The next iteration costs more than all previous ones together: once 60% of the
        # budget is gone it would most likely be cut off by the hard limit and wasted.
        return elapsed >= run.soft * 0.6 * instability

    def _elapsed_ms(self) -> int:
        return int((self.clock() - self.run.start) * 1000)

    def _next_check_at(self) -> int:
        run = self.run
        nxt = self.nodes + CHECK_INTERVAL
        if run.node_limit is not None and run.node_limit < nxt:
            nxt = run.node_limit
        return nxt

    def _poll_ponderhit(self) -> None:
        """Leave pondering once the ponder move was played; the clock starts then."""
        run = self.run
        if run.pondering and run.ponderhit is not None and run.ponderhit.is_set():
            run.pondering = False
            run.tm_start = self.clock()

    def _check(self) -> None:
        """Abort when stopped, out of nodes, or past the hard time limit."""
        run = self.run
        self._poll_ponderhit()
        if run.stop is not None and run.stop.is_set():
            raise SearchAborted
        if run.node_limit is not None and self.nodes >= run.node_limit:
            raise SearchAborted
        if run.hard is not None and not run.pondering \
                and (self.clock() - run.tm_start) * 1000 >= run.hard:
            raise SearchAborted
        run.next_check = self._next_check_at()
        if run.on_progress is not None:
            self._report_progress()

    def _report_progress(self) -> None:
        """From ``_check`` (every ``CHECK_INTERVAL`` nodes, with an ``on_progress`` callback):
        after ``PROGRESS_AFTER`` seconds switch the root-move reports on, and send a node/time
        report when ``PROGRESS_INTERVAL`` has passed without one."""
        run = self.run
        now = self.clock()
        if now < run.currmove_from:
            return
        run.show_currmove = True
        if now >= run.next_report:
            run.next_report = now + PROGRESS_INTERVAL
            run.on_progress(SearchProgress(
                depth=run.depth_now, seldepth=self.seldepth, nodes=self.nodes,
                time_ms=int((now - run.start) * 1000), hashfull=self.tt.hashfull(), tbhits=self.tbhits))

    def _report_currmove(self, depth: int, move: chess.Move, index: int) -> None:
        """The root move ``move`` (``index`` in this root search's list) starts: tell ``on_progress``."""
        run = self.run
        run.on_progress(SearchProgress(
            depth=depth, seldepth=self.seldepth, nodes=self.nodes, time_ms=self._elapsed_ms(),
            tbhits=self.tbhits, currmove=move, currmovenumber=run.root_offset + index + 1))

    # -- the tree -------------------------------------------------------------------------------

    def _is_repetition(self, key: int, halfmove_clock: int) -> bool:
        """True if ``key`` is a draw by repetition here, as Stockfish judges it: it occurred
        earlier inside the search (after the root), or twice before the root (a threefold
        repetition with the game). Only positions since the last irreversible move and since
        the last null move count: a null move is no move of the game."""
        run = self.run
        keys = run.keys
        last = len(keys) - 1
        stop = max(run.repetition_floor, last - halfmove_clock) - 1
        root = run.root_index
        seen_before_root = False
        for i in range(last - 4, stop, -2):
            if keys[i] == key:
                if i > root or seen_before_root:
                    return True
                seen_before_root = True
        return False

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, null_ok: bool, in_check: bool) -> int:
        """Fail-soft principal variation search on ``SearchRun.pos``; scores from the side to move.
        ``in_check``: whether the side to move is in check (the parent knows it already: it
        looked for the check extension)."""
        run = self.run
        # This node's line starts empty: a return before the move loop (draw, TT, tablebase,
        # quiescence) leaves no line of an earlier sibling here for the parent to adopt.
        pv_table = run.pv
        pv_table[ply] = []
        pos = run.pos
        key = pos.key

        # Step 1. Draws by the fifty-move rule, repetition, insufficient material (also at the
        # horizon: the quiescence search below never sees a repetition).
        hmc = pos.hmc
        if hmc >= 100 and (not in_check or generate(pos)):
            return DRAW
        if hmc >= 4 and self._is_repetition(key, hmc):
            return DRAW
        bb = pos.bb
        if not (bb[1] | bb[4] | bb[5]) and is_insufficient_material(pos):
            return DRAW
        if depth <= 0:
            return self._qsearch(alpha, beta, ply, in_check)
        self.nodes += 1
        if self.nodes >= run.next_check:
            self._check()
        if ply > self.seldepth:
            self.seldepth = ply
        pv_node = beta - alpha > 1
        if ply >= MAX_PLY:
            return run.evaluate(pos)

        # Step 1b. Tablebase probe right after a capture or pawn move (WDL is exact only with
        # a zeroed fifty-move counter); one attribute test when no tables are set.
        tablebases = self.tablebases
        if tablebases is not None and hmc == 0 and not pos.castling \
                and popcount(pos.occupied) <= tablebases.max_pieces:
            board = pos.to_board()
            if tablebases.covers(board):
                wdl = tablebases.wdl(board)
                if wdl is not None:
                    self.tbhits += 1
                    score = tablebases.wdl_score(wdl, ply)
                    self.tt.store(key, 0, score_to_tt(score, ply), MAX_PLY, EXACT)  # hmc 0: key is its table key
                    return score

        # Step 2. Mate distance pruning: no line here can beat a mate already found nearer the root.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha

        # Step 3. Transposition table cutoff (never at PV nodes, which keeps PVs whole).
        table_key = key if hmc < FIFTY_FREE else tt_key(key, hmc)
        entry = self.tt.probe(table_key)
        tt_move = 0
        if entry is not None:
            tt_move = entry[1]
            if entry[3] >= depth and not pv_node:
                tt_score = score_from_tt(entry[2], ply)
                bound = entry[4]
                if bound == EXACT or (bound == LOWER and tt_score >= beta) or (bound == UPPER and tt_score <= alpha):
                    return tt_score

        params = self.params
        pruning = params.pruning
        if pruning and not pv_node and not in_check:
            static = run.evaluate(pos)
            # Step 4. Reverse futility pruning: far above beta, a quiet move will not drop it.
            if depth <= params.rfp_depth and static - params.rfp_margin * depth >= beta \
                    and abs(beta) < MATE_BOUND:
                return static
            # Step 5. Null-move pruning, guarded against zugzwang by requiring pieces.
            if null_ok and depth >= params.nmp_depth and static >= beta \
                    and pos.occ[pos.turn] & ~(bb[1] | bb[6]):
                reduction = params.nmp_base + depth // params.nmp_divisor
                do_null(pos)
                keys = run.keys
                keys.append(pos.key)
                floor = run.repetition_floor
                run.repetition_floor = len(keys) - 1  # no repetition reaches across the pass
                # After a null move the opponent cannot be in check (we were not).
                score = -self._negamax(depth - 1 - reduction, -beta, -beta + 1, ply + 1, False, False)
                run.repetition_floor = floor
                undo_move(pos)
                keys.pop()
                if score >= beta:
                    return beta if score >= TB_BOUND else score  # an unproven mate or TB win

        # Step 6. The move loop: PVS with check extension and late move reductions. (Futility
        # and late move pruning of quiet moves were removed: without them Pruner scored +79.5
        # +- 50 Elo at 5+0.05, 120 games. docs/lab/strength.md lists the techniques tried since,
        # none adopted, with the commit each can be revived from.)
        keys = run.keys
        do_move = run.do_move
        stats = self.stats
        history = stats.history
        killers = stats.killers(ply)
        best = -INF
        best_move = 0
        searched = 0
        quiets_tried: List[int] = []
        # The stages of pruner.engine.movepick.ordered_moves, inline (a generator per node cost more):
        # 0 hash move, 1 good captures (losing ones put aside), 2 killers, 3 quiets by history,
        # 4 losing captures; each stage is generated when the one before is used up.
        stage = 0
        batch = [tt_move] if tt_move and is_legal(pos, tt_move) else []
        index = 0
        losing: List[int] = []
        while True:
            if index == len(batch):
                stage += 1
                if stage == 1:
                    batch = tactical_moves(pos, in_check)
                elif stage == 2:
                    batch = killer_moves(pos, killers, tt_move)
                elif stage == 3:
                    batch = quiet_moves(pos, in_check, history, tt_move, batch)
                elif stage == 4:
                    batch = losing
                else:
                    break
                index = 0
                continue
            move = batch[index]
            index += 1
            if stage == 1:
                if move == tt_move:
                    continue
                if loses_material(pos, move):
                    losing.append(move)  # bad captures go after the quiet moves
                    continue
                quiet = False
            elif stage == 0:
                quiet = not (is_capture(pos, move) or move >> 12 == 5)
            else:
                quiet = stage != 4
            gives_check = do_move(pos, move)
            keys.append(pos.key)
            new_depth = depth if pruning and gives_check else depth - 1  # check extension
            if searched == 0:
                score = -self._negamax(new_depth, -beta, -alpha, ply + 1, True, gives_check)
            else:
                reduction = 0
                if pruning and quiet and depth >= params.lmr_depth and searched >= params.lmr_moves \
                        and not in_check and not gives_check:
                    # Late move reductions: later quiet moves are searched shallower first.
                    table = LMR if params.lmr_divisor == LMR_DIVISOR else lmr_table(params.lmr_divisor)
                    reduction = table[min(depth, 63)][min(searched, 63)] - (1 if pv_node else 0)
                    reduction = max(0, min(reduction, new_depth - 1))
                score = -self._negamax(new_depth - reduction, -alpha - 1, -alpha, ply + 1, True, gives_check)
                if reduction and score > alpha:
                    score = -self._negamax(new_depth, -alpha - 1, -alpha, ply + 1, True, gives_check)
                if pv_node and alpha < score < beta:
                    score = -self._negamax(new_depth, -beta, -alpha, ply + 1, True, gives_check)
            undo_move(pos)
            keys.pop()
            searched += 1

            if score > best:
                best = score
                if score > alpha:
                    best_move = move
                    alpha = score
                    if pv_node:
                        pv_table[ply] = [move] + pv_table[ply + 1]
                    if alpha >= beta:
                        if quiet:  # a killer, and history for it and against the quiets tried before
                            stats.reward(move, quiets_tried, depth, ply, pos.turn)
                        break
            if quiet:
                quiets_tried.append(move)

        if searched == 0:
            return -MATE + ply if in_check else DRAW

        if best >= beta:
            bound = LOWER
        elif best_move:
            bound = EXACT
        else:
            bound = UPPER
        self.tt.store(table_key, best_move, score_to_tt(best, ply), depth, bound)
        return best

    def _qsearch(self, alpha: int, beta: int, ply: int, in_check: Optional[bool] = None) -> int:
        """Quiescence search: captures and queen promotions (all evasions when in check).
        ``in_check``: whether the side to move is in check (``do_move`` tells), None when the
        caller does not know."""
        run = self.run
        self.nodes += 1
        if self.nodes >= run.next_check:
            self._check()
        if ply > self.seldepth:
            self.seldepth = ply
        pos = run.pos
        if ply >= MAX_PLY:
            return run.evaluate(pos)
        if in_check is None:
            in_check = is_in_check(pos)
        # Draws the captures below can reach: bare kings and minor pieces (no repetition
        # can arise, every move here but an evasion is irreversible), the fifty-move rule
        # when evasions use up the counter.
        bb = pos.bb
        if not (bb[1] | bb[4] | bb[5]) and is_insufficient_material(pos):
            return DRAW
        if pos.hmc >= 100 and (not in_check or generate(pos)):
            return DRAW
        if in_check:
            best = -INF
            moves = generate(pos)
            stand = -INF
        else:
            lazy = self.params.lazy_net_margin
            stand = run.evaluate(pos) if not lazy else run.evaluate_outside(pos, alpha, beta, lazy)
            # Stand pat: the side to move may decline every capture.
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            moves = tactical_moves(pos, False)
        delta = self.params.delta_margin if self.params.pruning and not in_check else None
        squares = pos.squares
        do_move = run.do_move
        for move in moves:
            if delta is not None:
                # Delta pruning: even winning the victim for free cannot reach alpha.
                if not move >> 12 and stand + PIECE_VALUE[squares[move & 63] or 1] + delta <= alpha:
                    continue
                # SEE pruning: a capture that loses material in the exchange is not worth a look.
                if loses_material(pos, move):
                    continue
            score = -self._qsearch(-beta, -alpha, ply + 1, do_move(pos, move))
            undo_move(pos)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        if in_check and best == -INF:
            best = -MATE + ply
        return best
