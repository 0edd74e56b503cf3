"""Search correctness: mates with the right distance, draws, determinism, limits, MultiPV."""

import threading

import chess
import pytest

from pruner.engine import bench
from pruner.engine.attacks import to_move
from pruner.engine.search import Searcher
from pruner.engine.types import Limits, SearchInfo
from loop_helpers import FailsAtDepth

MATES = [
    # (fen, mate in N moves)
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1),
    ("k7/8/1K6/8/8/8/8/1Q6 w - - 0 1", 2),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 0", 2),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3),
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1),
    ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2),
]


@pytest.mark.parametrize("fen,mate", MATES)
def test_finds_mate_with_exact_distance(fen, mate):
    result = Searcher().search(chess.Board(fen), Limits(depth=2 * mate + 2))
    assert result.lines[0].mate == mate
    board = chess.Board(fen)
    for move in result.lines[0].pv:
        assert board.is_legal(move)
        board.push(move)
    assert board.is_checkmate(), "the PV of a mate score must end in mate"
    assert len(result.lines[0].pv) == 2 * mate - 1


def test_mated_side_sees_negative_mate():
    # Black to move is mated next move whatever it does.
    board = chess.Board("7k/8/6K1/8/8/8/8/R7 b - - 0 1")
    result = Searcher().search(board, Limits(depth=4))
    assert result.lines[0].mate == -1


def test_stalemate_and_mate_roots_have_no_move():
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemate.is_stalemate()
    assert Searcher().search(stalemate, Limits(depth=3)).best_move is None
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert Searcher().search(mated, Limits(depth=3)).best_move is None


def test_stalemate_trap_is_scored_as_draw():
    # White is a queen up; Qf7?? stalemates; every other legal line keeps a winning score.
    board = chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    searcher = Searcher()
    board.push_uci("f1f7")
    assert board.is_stalemate()
    board.pop()
    result = searcher.search(board, Limits(depth=4, searchmoves=[chess.Move.from_uci("f1f7")]))
    assert result.best_move == chess.Move.from_uci("f1f7")
    assert result.score == 0


def _played(*ucis: str) -> chess.Board:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board


KNIGHTS_OUT_AND_BACK = ["g1f3", "g8f6", "f3g1", "f6g8"]


def test_threefold_repetition_with_the_game_is_a_draw():
    # After 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1, 4...Ng8 makes the start position a third
    # time: a draw, while the static evaluation there is not 0 (tempo).
    board = _played(*KNIGHTS_OUT_AND_BACK, "g1f3", "g8f6", "f3g1")
    back = chess.Move.from_uci("f6g8")
    result = Searcher().search(board, Limits(depth=4, searchmoves=[back]))
    assert result.best_move == back
    assert result.score == 0
    # Without the history the same move is not a draw.
    fresh = chess.Board(board.fen())
    assert Searcher().search(fresh, Limits(depth=4, searchmoves=[back])).score != 0
    # At the horizon too: at depth 1 the position after the move goes to the quiescence
    # search, which must not score a drawn position by its material.
    assert Searcher().search(board, Limits(depth=1, searchmoves=[back])).score == 0


def test_quiescence_sees_captures_into_insufficient_material():
    # Nxc2 wins the rook but leaves a bare knight: a draw, not a knight up.
    board = chess.Board("7k/8/8/8/8/8/2r5/K3N3 w - - 0 1")
    assert Searcher().quiescence_score(board) == 0


def test_one_earlier_occurrence_in_the_game_is_not_yet_a_draw():
    # 3...Nf6 4.Ng1 makes the position after 2.Ng1 a second time only: the opponent need not
    # repeat again (Stockfish's rule). At depth 1 the score is the evaluation, not 0.
    board = _played(*KNIGHTS_OUT_AND_BACK, "g1f3", "g8f6")
    back = chess.Move.from_uci("f3g1")
    once = Searcher().search(board, Limits(depth=1, searchmoves=[back])).score
    fresh = Searcher().search(chess.Board(board.fen()), Limits(depth=1, searchmoves=[back])).score
    assert once == fresh != 0


def test_repetition_rule_inside_and_before_the_search():
    # The rule on the key history (index = ply since the game's last irreversible move):
    # once after the root is a draw; the root itself once is not; twice before the root is.
    searcher = Searcher()
    searcher.search(chess.Board(), Limits(depth=1))  # sets the search state the rule reads
    keys = searcher.run.keys
    keys[:] = [11, 12, 13, 14, 11]
    searcher.run.root_index = 0
    assert not searcher._is_repetition(11, 10)
    keys[:] = [10, 11, 12, 13, 14, 11]  # 11 first seen after the root (index 0 is the root)
    assert searcher._is_repetition(11, 10)
    keys[:] = [11, 12, 13, 14, 11, 12, 13, 14, 11]
    searcher.run.root_index = 8  # twice before the root: threefold
    assert searcher._is_repetition(11, 10)


def test_no_repetition_across_a_null_move():
    # A null move is no move of the game: a position before it is not repeated after it.
    searcher = Searcher()
    searcher.search(chess.Board(), Limits(depth=1))
    searcher.run.keys[:] = [19, 20, 21, 22, 23, 24, 25, 26, 21]
    searcher.run.root_index = 0
    assert searcher._is_repetition(21, 20)
    searcher.run.repetition_floor = 5  # the null move made the position at index 5
    assert not searcher._is_repetition(21, 20)
    searcher.run.repetition_floor = 0


def test_fifty_move_rule_is_a_draw():
    # A queen up, but the half-move clock is at 99: any non-zeroing move draws.
    board = chess.Board("7k/8/8/8/8/8/8/KQ6 w - - 99 200")
    result = Searcher().search(board, Limits(depth=3))
    assert result.score == 0


def test_insufficient_material_is_a_draw():
    board = chess.Board("7k/8/8/8/8/8/8/KN6 w - - 0 1")
    assert Searcher().search(board, Limits(depth=3)).score == 0


def test_search_does_not_modify_board():
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    board.push_uci("a2a3")
    before = (board.fen(), list(board.move_stack))
    Searcher().search(board, Limits(depth=3))
    assert (board.fen(), list(board.move_stack)) == before


def test_same_depth_same_nodes_and_result():
    fen = bench.POSITIONS[1]
    a = Searcher().search(chess.Board(fen), Limits(depth=4))
    b = Searcher().search(chess.Board(fen), Limits(depth=4))
    assert (a.nodes, a.best_move, a.score, a.lines[0].pv) == (b.nodes, b.best_move, b.score, b.lines[0].pv)


def test_bench_node_count_is_deterministic():
    assert bench.run(3).nodes == bench.run(3).nodes


def test_node_limit_is_exact():
    result = Searcher().search(chess.Board(), Limits(nodes=3000))
    assert result.nodes == 3000
    assert result.best_move in chess.Board().legal_moves


def test_stop_before_first_iteration_still_returns_legal_move():
    stop = threading.Event()
    stop.set()
    board = chess.Board(bench.POSITIONS[1])
    result = Searcher().search(board, Limits(infinite=True), stop=stop)
    assert result.best_move in board.legal_moves
    # At most the root moves searched before the first check (128 nodes) of depth 1.
    assert all(line.depth == 1 and line.pv[0] == result.best_move for line in result.lines)


def test_stopped_iteration_plays_a_new_best_move_it_found(monkeypatch):
    # Depth 2 prefers Nxc6 (-132); depth 3 finds Ne8 (+114) among its later root moves. A
    # search stopped inside depth 3 just after that plays Ne8, not the depth-2 move.
    board = chess.Board("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1")
    infos = []
    Searcher().search(board, Limits(depth=3), on_info=infos.append)
    depth_two, depth_three = infos[1], infos[2]
    assert depth_two.pv[0] != depth_three.pv[0] and depth_three.score > depth_two.score

    from pruner.engine import search as search_module
    found_at = []

    class RecordingRun(search_module.SearchRun):
        """Notes the node count when the running iteration first has the depth-3 move."""

        @property
        def partial(self):
            return self.__dict__.get("recorded")

        @partial.setter
        def partial(self, value):
            if value is not None and to_move(value[1][0]) == depth_three.pv[0] and not found_at:
                found_at.append(recording.nodes)
            self.__dict__["recorded"] = value

    recording = Searcher()
    monkeypatch.setattr(search_module, "SearchRun", RecordingRun)
    recording.search(board, Limits(depth=3))
    monkeypatch.undo()
    assert found_at and found_at[0] < depth_three.nodes
    stopped = Searcher().search(board, Limits(nodes=found_at[0] + 1))
    assert stopped.best_move == depth_three.pv[0]
    assert stopped.lines[0].depth == 3 and stopped.lines[0].pv[0] == depth_three.pv[0]
    # Stopped before it found the move, the search plays the last completed iteration's.
    earlier = Searcher().search(board, Limits(nodes=depth_two.nodes + 2))
    assert earlier.best_move == depth_two.pv[0]


def test_stop_from_callback_ends_search():
    stop = threading.Event()
    seen = []

    def on_info(info: SearchInfo) -> None:
        seen.append(info.depth)
        if info.depth == 3:
            stop.set()

    result = Searcher().search(chess.Board(), Limits(infinite=True), on_info=on_info, stop=stop)
    assert seen[-1] == 3 and result.depth == 3


def test_iterations_are_reported_in_order_with_legal_pvs():
    infos = []
    board = chess.Board(bench.POSITIONS[5])
    Searcher().search(board, Limits(depth=5), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    for info in infos:
        assert info.seldepth >= 1 and info.nodes > 0
        replay = board.copy()
        for move in info.pv:
            assert replay.is_legal(move)
            replay.push(move)


def test_searchmoves_restricts_root():
    board = chess.Board()
    only = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h4")]
    result = Searcher().search(board, Limits(depth=3, searchmoves=only))
    assert result.best_move in only


def test_multipv_lines_are_distinct_and_ordered():
    board = chess.Board(bench.POSITIONS[6])
    result = Searcher().search(board, Limits(depth=4), multipv=4)
    lines = result.lines
    assert [line.multipv for line in lines] == [1, 2, 3, 4]
    assert len({line.pv[0] for line in lines}) == 4
    assert all(a.score >= b.score for a, b in zip(lines, lines[1:]))
    assert result.best_move == lines[0].pv[0]


def test_go_mate_stops_when_found():
    infos = []
    Searcher().search(chess.Board(MATES[2][0]), Limits(mate=2), on_info=infos.append)
    assert infos[-1].mate == 2


@pytest.mark.skipif(not hasattr(__import__("sys"), "getsizeof") or __import__("platform").python_implementation() != "CPython",
                    reason="sys.getsizeof measures CPython's object layout (PyPy has none; its objects are smaller)")
def test_tt_memory_stays_within_hash():
    import gc
    import sys
    searcher = Searcher(1)
    for fen in bench.POSITIONS:
        searcher.search(chess.Board(fen), Limits(depth=5))
        if sum(1 for e in searcher.tt.slots if e is not None) > len(searcher.tt.slots) // 2:
            break
    gc.collect()
    slots = searcher.tt.slots
    total = sys.getsizeof(slots)
    seen = set()
    for entry in slots:
        if entry is None:
            continue
        total += sys.getsizeof(entry)
        for item in entry:
            if id(item) not in seen:
                seen.add(id(item))
                total += sys.getsizeof(item) + (sys.getsizeof(item.__dict__) if hasattr(item, "__dict__") else 0)
    filled = sum(1 for e in slots if e is not None)
    assert filled > len(slots) // 2, "the searches should have filled most of a 1 MB table"
    # Extrapolate to a full table: still within 1 MB.
    per_entry = (total - sys.getsizeof(slots)) / filled
    assert sys.getsizeof(slots) + per_entry * len(slots) <= 1024 * 1024


SEE_CASES = [
    # (fen, move, expected SEE in centipawns)
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),
    ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),
    ("4k3/8/2p5/3q4/4P3/8/8/3RK3 w - - 0 1", "e4d5", 900),
    ("3rk3/8/8/3q4/8/8/8/3QK3 w - - 0 1", "d1d5", 0),
    ("4k3/8/8/3q4/8/8/8/3QK3 w - - 0 1", "d1d5", 900),
    # h8 is the sign bit of the search's bitboards: the least valuable attacker standing there
    ("6kr/8/8/8/8/8/7p/1K5R w - - 0 1", "h1h2", -400),
    ("6rr/6k1/8/8/8/8/7p/1K4RR w - - 0 1", "h1h2", -400),
    ("6kr/8/8/8/8/8/7p/1K5Q w - - 0 1", "h1h2", -800),
]


@pytest.mark.parametrize("fen,uci,expected", SEE_CASES)
def test_static_exchange_evaluation(fen, uci, expected):
    from pruner.engine.attacks import from_move
    from pruner.engine.board import Position
    from pruner.engine.movepick import see
    assert see(Position(chess.Board(fen)), from_move(chess.Move.from_uci(uci))) == expected


def test_ponder_search_ignores_the_clock_until_ponderhit():
    # A tiny clock: a timed search would stop at once. While pondering it must not; a
    # ponderhit set before the search even starts must not be lost (the clock applies).
    board = chess.Board(bench.POSITIONS[1])
    stop, hit = threading.Event(), threading.Event()
    seen = []

    def on_info(info: SearchInfo) -> None:
        seen.append(info.depth)
        if info.depth == 4:
            stop.set()

    Searcher().search(board, Limits(ponder=True, wtime=20, btime=20), on_info=on_info, stop=stop, ponderhit=hit)
    assert seen[-1] == 4  # only the stop flag ended it
    hit.set()
    result = Searcher().search(board, Limits(ponder=True, wtime=20, btime=20), ponderhit=hit)
    assert result.best_move in board.legal_moves  # returned by itself: the clock applied


def test_search_params_parse_overrides_and_rejects_unknown_names():
    from pruner.engine.search import SearchParams
    params = SearchParams.parse("rfp_depth=0, nmp_depth=99 pruning=off")
    assert (params.rfp_depth, params.nmp_depth, params.pruning) == (0, 99, False)
    assert params.lmr_depth == SearchParams().lmr_depth
    assert SearchParams.parse("") == SearchParams()
    for bad in ("nonsense=1", "rfp_depth", "rfp_depth=x", "nmp_divisor=0", "lmr_divisor=-5"):
        with pytest.raises(ValueError):
            SearchParams.parse(bad)


def test_reduction_parameters_change_the_tree_and_their_defaults_do_not():
    # The step-4 tuning knobs (issue 52): the defaults spelled out give the default tree (the
    # default LMR divisor uses the constant table), and another value reaches the search (a
    # different tree).
    from pruner.engine.search import SearchParams, lmr_table, LMR
    assert lmr_table(150) is LMR
    assert lmr_table(225)[20][20] < LMR[20][20]
    board = chess.Board(bench.POSITIONS[1])

    def nodes(text):
        return Searcher(16, SearchParams.parse(text)).search(board, Limits(depth=6)).nodes

    default = nodes("")
    assert nodes("nmp_base=3 nmp_divisor=4 lmr_divisor=150") == default
    assert nodes("lmr_divisor=225") != default
    assert nodes("nmp_base=2") != default


def test_movetime_is_used_to_the_end(monkeypatch):
    # `go movetime 1000` with 10 ms of move overhead: the search goes on until 990 ms (the
    # clock here moves on 10 ms at each reading), as Stockfish does; it used to stop starting
    # iterations at 60% of that.
    import pruner.engine.search
    from pruner import engine
    from loop_helpers import SteppingClock
    monkeypatch.setattr(engine.search, "time", SteppingClock(0.010))
    result = Searcher().search(chess.Board(bench.POSITIONS[1]), Limits(movetime=1000))
    assert result.time_ms >= 990
    assert result.best_move in chess.Board(bench.POSITIONS[1]).legal_moves


def test_failing_search_answers_with_its_last_completed_iteration():
    board = chess.Board(bench.POSITIONS[9])
    depth_three = Searcher().search(board, Limits(depth=3))
    result = FailsAtDepth(4).search(board, Limits(depth=6))
    assert isinstance(result.error, RuntimeError)
    assert result.depth == 3 and result.best_move == depth_three.best_move
    assert result.best_move != next(iter(board.legal_moves))  # not "any legal move"


def test_null_move_in_the_game_history():
    # PGN files from other tools hold null moves ("--"); the search replays the history since
    # the last irreversible move and must pass there, not move a piece from a1 to a1.
    board = chess.Board("5rk1/2p1R2p/p5pb/2PPR2q/8/2Q2B2/5P2/5K2 b - - 0 41")
    board.push(chess.Move.null())
    board.push_uci("f1e1")
    infos = []
    result = Searcher().search(board, Limits(depth=2), on_info=infos.append, multipv=3)
    for info in infos:
        position = board.copy()
        for move in info.pv:
            assert position.is_legal(move), (info.multipv, info.pv)
            position.push(move)
    assert result.best_move in board.legal_moves
    assert board.fen() == "5rk1/2p1R2p/p5pb/2PPR2q/8/2Q2B2/5P2/4K3 b - - 2 42"


def test_time_use_grows_when_the_best_move_changes_or_the_score_falls(monkeypatch):
    """The factor on the time budget after each iteration: x1.5 after a new best move, +0.3
    when the score fell by more than 30 cp, else x1.0."""
    seen = []
    original = Searcher._should_stop
    monkeypatch.setattr(Searcher, "_should_stop", lambda self, limits, score, instability:
                        seen.append(instability) or original(self, limits, score, instability))
    infos = []
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    Searcher(1).search(board, Limits(depth=6, wtime=600000, btime=600000), on_info=infos.append)
    expected, best, score = [], None, 0
    for depth, info in enumerate(infos, 1):
        factor = 1.5 if depth > 1 and info.pv[0] != best else 1.0
        if depth > 1 and info.score < score - 30:
            factor += 0.3
        expected.append(factor)
        best, score = info.pv[0], info.score
    assert len(seen) == 6 and seen == pytest.approx(expected)


FORCED_MATED = "r1bqr1k1/p1R4Q/1p3bp1/3pB3/3p4/4P3/PP3PPP/5RK1 b - - 0 19"
"""Issue 44, item 8: Kf8 is the only move, and white mates next (Rf7 or Qf7)."""
FORCED = "r1b2rk1/2p1qnQp/p1pp2p1/5p2/2P1P3/1PN2N1P/PB3PP1/3R1RK1 b - - 0 1"
"""Kxg7 is the only move; no mate in sight."""


def _mates_after(fen: str, *moves: chess.Move) -> bool:
    board = chess.Board(fen)
    for move in moves:
        board.push(move)
    return board.is_checkmate()


@pytest.mark.parametrize("clock_ms", [60000, 3000])
def test_a_forced_move_on_a_clock_is_searched_for_a_true_score_and_a_ponder_move(clock_ms):
    """One legal move: searched (it used to stop at depth 1, `score cp 33` here) within a small
    share of the clock, reporting the mate and the mating reply as its ponder move. The clock
    moves on 2 ms at each reading (every 128 nodes and each iteration): no wall time."""
    from pruner.engine.timeman import FORCED_MOVE_MS
    from loop_helpers import SteppingClock
    searcher = Searcher()
    searcher.clock = SteppingClock(0.002).monotonic
    result = searcher.search(chess.Board(FORCED_MATED), Limits(wtime=clock_ms, btime=clock_ms))
    assert result.best_move == chess.Move.from_uci("g8f8") and result.lines[0].mate == -1
    assert result.ponder_move is not None and _mates_after(FORCED_MATED, result.best_move, result.ponder_move)
    searcher = Searcher()
    searcher.clock = SteppingClock(0.002).monotonic
    result = searcher.search(chess.Board(FORCED), Limits(wtime=clock_ms, btime=clock_ms))
    assert result.best_move == chess.Move.from_uci("g8g7") and result.ponder_move is not None
    # within the budget, give or take three readings (6 ms): the one that finds the deadline
    # passed, the iteration's end and the result's own
    assert result.depth >= 2 and result.time_ms <= min(FORCED_MOVE_MS, clock_ms // 30 // 5) + 6


def test_a_forced_move_keeps_the_depth_node_and_time_limits_it_is_given(monkeypatch):
    import pruner.engine.search
    from pruner import engine
    from loop_helpers import SteppingClock
    board = chess.Board(FORCED)
    assert Searcher().search(board, Limits(depth=6)).depth == 6
    assert Searcher().search(board, Limits(nodes=3000)).nodes == 3000
    monkeypatch.setattr(engine.search, "time", SteppingClock(0.010))
    assert Searcher().search(board, Limits(movetime=1000)).time_ms >= 990  # movetime: used to the end
