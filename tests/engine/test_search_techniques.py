"""The search techniques behind ``SearchParams`` switches (counter-moves, continuation histories,
history-based LMR, improving, late move pruning, razoring, the null-move reduction by margin,
singular extensions, ProbCut, internal iterative reduction, checks extended only when SEE
allows, the table in the quiescence search, the compact table, time use by the best move's
stability): each switch reaches the search, and the search stays correct with all of them on
(exact mates, legal lines, determinism), whichever are on by default."""

from dataclasses import replace

import chess
import pytest

from engine import bench
from engine.search import Searcher, SearchParams
from engine.shared_tt import SharedTranspositionTable
from engine.tt import TranspositionTable
from engine.types import Limits

from test_pv_integrity import _sweep, epd_boards
from test_search import MATES

SWITCHES = {
    "countermove": 1,
    "cont_history": 1,
    "history_lmr": 8192,
    "improving": 1,
    "lmp_depth": 3,
    "razor_depth": 2,
    "nmp_eval_div": 200,
    "se_depth": 4,
    "qs_tt": 1,
    "probcut_depth": 5,
    "iir_depth": 4,
    "check_ext_see": 1,
}
"""Each technique's switch and the value that turns it on."""

ALL_ON = SearchParams(**SWITCHES)
ALL_OFF = SearchParams(**{name: 0 for name in SWITCHES})


def search_nodes(params: SearchParams, depth: int = 5) -> int:
    """Nodes of depth-``depth`` searches of the first bench positions."""
    return sum(Searcher(1, params).search(chess.Board(fen), Limits(depth=depth)).nodes
               for fen in bench.POSITIONS[:8])


_NODES = {}


def bench_nodes(params: SearchParams, depth: int = 5) -> int:
    """``search_nodes``, each configuration searched once per test run."""
    key = (repr(params), depth)
    if key not in _NODES:
        _NODES[key] = search_nodes(params, depth)
    return _NODES[key]


FIRST_CHANGED_DEPTH = {"probcut_depth": 6, "nmp_eval_div": 7}
"""The switches that leave the depth-5 search of the first bench positions as it is, and the
shallowest depth at which they change it (measured, 2026-11-28): ProbCut (`probcut_depth=5`) runs
only at zero-window nodes of depth 5 or more, and a depth-5 search has depth 5 only at its root;
the null-move margin's extra reduction first changes a node count at depth 7. Every other
switch is tested at depth 5: a depth-7 search of the eight positions cost 6.6 s against 1.5 s
at depth 5 on a slow machine, and at depth 7 for all the test ran 14 (12 switches and the search
without them once on each of two workers)."""


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_each_switch_changes_the_search(name):
    """Turned on alone, each technique searches other nodes than the search without any."""
    alone = replace(ALL_OFF, **{name: SWITCHES[name]})
    depth = FIRST_CHANGED_DEPTH.get(name, 5)
    assert bench_nodes(alone, depth=depth) != bench_nodes(ALL_OFF, depth=depth)


@pytest.mark.parametrize("fen,mate", MATES)
def test_mates_keep_their_exact_distance_with_every_technique(fen, mate):
    result = Searcher(params=ALL_ON).search(chess.Board(fen), Limits(depth=2 * mate + 2))
    assert result.lines[0].mate == mate
    board = chess.Board(fen)
    for move in result.lines[0].pv:
        board.push(move)
    assert board.is_checkmate()


def test_lines_stay_legal_with_every_technique(monkeypatch):
    import test_pv_integrity
    monkeypatch.setattr(test_pv_integrity, "Searcher", lambda hash_mb: Searcher(hash_mb, ALL_ON))
    boards = epd_boards("perft_standard.epd")[:40] + epd_boards("wac.epd", step=10)
    assert _sweep(boards, seed=3) >= 2 * len(boards)


def test_every_technique_is_deterministic():
    assert search_nodes(ALL_ON) == search_nodes(ALL_ON)


def test_counter_moves_and_continuations_are_learned_and_forgotten():
    searcher = Searcher(params=ALL_ON)
    searcher.search(chess.Board(bench.POSITIONS[1]), Limits(depth=5))
    assert any(searcher.countermoves)
    assert any(row and any(row) for row in searcher.cont_history)
    searcher.new_game()
    assert not any(searcher.countermoves)
    assert not any(row and any(row) for row in searcher.cont_history)


def test_the_compact_table_is_chosen_by_its_switch_and_searches_alike():
    """compact_tt: the shared table's 16-byte entries for one thread (same search, other slots)."""
    assert isinstance(Searcher(1).tt, TranspositionTable)
    compact = Searcher(1, SearchParams(compact_tt=1))
    assert isinstance(compact.tt, SharedTranspositionTable)
    board = chess.Board(bench.POSITIONS[1])
    result = compact.search(board, Limits(depth=5))
    assert result.best_move in board.legal_moves
    compact.set_hash(2)
    assert isinstance(compact.tt, SharedTranspositionTable) and compact.tt.size == 2 * 1024 * 1024 // 16 - 1


def test_the_quiescence_table_keeps_the_values_and_deeper_entries():
    """qs_tt: the quiescence value of each position is the one without the table (its bounds
    are sound), its entries go in at depth 0, and never over a deeper entry of the position."""
    from engine.attacks import from_move
    from engine.board import Position
    from engine.tt import EXACT
    boards = epd_boards("wac.epd", step=10)
    with_table, without = Searcher(1, SearchParams(qs_tt=1)), Searcher(1, SearchParams())
    assert [with_table.quiescence_score(b) for b in boards] == [without.quiescence_score(b) for b in boards]
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    key = Position(board).key
    assert without.tt.probe(key) is None  # off: the quiescence search stores nothing
    fresh = Searcher(1, SearchParams(qs_tt=1))
    fresh.quiescence_score(board)
    entry = fresh.tt.probe(key)  # Qxf7 mates: the capture is the move stored, at depth 0, exact
    assert entry[1] == from_move(chess.Move(chess.H5, chess.F7)) and entry[3:5] == (0, EXACT)
    fresh.tt.store(key, 0, 123, 5, EXACT)
    fresh.quiescence_score(board)
    assert fresh.tt.probe(key)[2:5] == (123, 5, EXACT)


@pytest.mark.parametrize("on", [0, 1])
def test_time_use_follows_the_best_moves_stability(monkeypatch, on):
    """tm_stability: the factor on the time budget after each iteration is STABILITY_SCALE's
    for the iterations the best move has stayed (off: x1.5 after a change), plus 0.3 when the
    score fell by more than 30 cp."""
    from engine import search as search_module
    seen = []
    original = Searcher._should_stop
    monkeypatch.setattr(Searcher, "_should_stop", lambda self, limits, score, n, instability:
                        seen.append(instability) or original(self, limits, score, n, instability))
    infos = []
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    Searcher(1, SearchParams(tm_stability=on)).search(
        board, Limits(depth=6, wtime=600000, btime=600000), on_info=infos.append)
    expected, stable, best, score = [], 0, None, 0
    for depth, info in enumerate(infos, 1):
        changed = depth > 1 and info.pv[0] != best
        if on:
            stable = 0 if changed else stable + 1
            factor = search_module.STABILITY_SCALE[min(stable, 4)]
        else:
            factor = 1.5 if changed else 1.0
        if depth > 1 and info.score < score - 30:
            factor += 0.3
        expected.append(factor)
        best, score = info.pv[0], info.score
    assert len(seen) == 6 and seen == pytest.approx(expected)
    if on:
        assert seen[-1] < 1.0 or any(x >= 1.6 for x in seen)  # it shrinks, or a change stretched it
