"""Threads: the shared transposition table and the helper processes of engine/smp.py.

The table tests are exact (round trip of every field, torn entries refused, the same answers
as the list table); the helper tests drive HelperPool and ParallelSearcher in this process.
The UCI program's Threads option and the helpers' clean-up when it exits are tested in
tests/uci/test_threads.py.
"""

import os
import sys

import chess
import pytest

from pruner.engine.zobrist import full_key
from pruner.engine.search import Searcher
from pruner.engine.attacks import from_move, to_move
from pruner.engine.shared_tt import SharedTranspositionTable
from pruner.engine.smp import HelperPool, HelperSearcher, ParallelSearcher
from pruner.engine.tt import EXACT, LOWER, UPPER, TranspositionTable, score_from_tt, score_to_tt
from pruner.engine.types import INF, MATE, Limits
from engine_process import WAIT

LINUX = sys.platform.startswith("linux")

MIDDLEGAME = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7"

MOVE_CASES = [0] + [from_move(chess.Move.from_uci(uci)) for uci in ("e2e4", "a7a8q", "h2h1n", "b7a8r", "g2g1b", "e1g1",
                                                                      "e1h1", "a1h8", "h8a1")]
"""Move codes (``pruner.engine.attacks``; 0: no move) the tables must keep."""
SCORE_CASES = [0, 1, -1, 150, -150, 2999, -2999, MATE - 1, -(MATE - 1), score_to_tt(MATE - 7, 5),
               score_to_tt(-(MATE - 7), 5), score_to_tt(MATE - 127, 127), INF, -INF, 32767, -32768]


# -- the shared table ---------------------------------------------------------------------------

def test_every_field_round_trips():
    table = SharedTranspositionTable(1)
    key = 1
    for move in MOVE_CASES:
        for score in SCORE_CASES:
            for depth in (0, 1, 7, 128, 255):
                for bound in (EXACT, LOWER, UPPER):
                    for age in (0, 1, 255):
                        key += 7919
                        table.age = age
                        table.store(key, move, score, depth, bound)
                        assert table.probe(key) == (key, move, score, depth, bound, age)
    assert table.probe(key + 1) is None


def test_mate_scores_keep_their_distance_through_the_table():
    table = SharedTranspositionTable(1)
    for score in (MATE - 9, -(MATE - 9), MATE - 1, -(MATE - 2)):
        table.store(42, 0, score_to_tt(score, 4), 3, EXACT)
        stored = table.probe(42)[2]
        assert score_from_tt(stored, 4) == score
        assert score_from_tt(stored, 6) == score + (-2 if score > 0 else 2)  # two plies further away


def test_a_torn_entry_is_never_returned():
    table = SharedTranspositionTable(1)
    size = table.size
    first, second = 12345, 12345 + size * 3  # same slot
    move = from_move(chess.Move.from_uci("g1f3"))
    table.store(first, move, 77, 6, LOWER)
    index = (first % size) * 2
    check, data = table.words[index], table.words[index + 1]
    table.store(second, 0, -300, 9, UPPER)
    assert table.probe(second) is not None and table.probe(first) is None
    # One word from each writer, both ways round: neither key accepts it.
    table.words[index + 1] = data
    assert table.probe(first) is None and table.probe(second) is None
    table.words[index] = check
    assert table.probe(first) == (first, move, 77, 6, LOWER, 0)
    for bit in (0, 15, 31, 40, 48, 62):
        table.words[index + 1] = data ^ (1 << bit)  # any flipped bit of the data word
        assert table.probe(first) is None, bit
        table.words[index + 1] = data
        table.words[index] = check ^ (1 << bit)  # or of the check word
        assert table.probe(first) is None, bit
        table.words[index] = check


def test_same_answers_as_the_list_table():
    shared, plain = SharedTranspositionTable(1), TranspositionTable(1)
    moves = [m for m in MOVE_CASES if m]
    operations = 0
    for round_ in range(3):
        shared.new_search()
        plain.new_search()
        for key in range(1, 400):
            move = moves[(key + round_) % len(moves)] if key % 5 else 0
            score, depth, bound = (key * 37 + round_) % 2000 - 1000, (key + round_) % 12, key % 3
            shared.store(key, move, score, depth, bound)
            plain.store(key, move, score, depth, bound)
            assert shared.probe(key) == plain.probe(key), key
            operations += 1
    assert operations == 3 * 399 and shared.probe(400) is None is plain.probe(400)


def test_replacement_keeps_deeper_entries_of_the_current_search():
    table = SharedTranspositionTable(1)
    deep, shallow = 5, 5 + table.size
    table.new_search()
    table.store(deep, from_move(chess.Move.from_uci("d2d4")), 10, 9, EXACT)
    table.store(shallow, 0, 20, 2, EXACT)  # 9 > 2 + 2: kept
    assert table.probe(deep)[3] == 9 and table.probe(shallow) is None
    table.store(deep, 0, 15, 3, UPPER)  # same key: replaced, the move kept
    assert table.probe(deep) == (deep, from_move(chess.Move.from_uci("d2d4")), 15, 3, UPPER, table.age)
    table.new_search()
    table.store(deep, from_move(chess.Move.from_uci("d2d4")), 10, 9, EXACT)
    table.new_search()
    table.store(shallow, 0, 20, 2, EXACT)  # an older search's entry gives way
    assert table.probe(shallow) is not None and table.probe(deep) is None


def test_size_age_clear_and_hashfull():
    table = SharedTranspositionTable(4)
    assert table.size * 16 <= 4 * 1024 * 1024 and table.size >= 4 * 1024 * 1024 // 16 - 1
    follower = SharedTranspositionTable(buffer=table.buffer, leader=False)
    table.new_search()
    table.new_search()
    follower.new_search()
    assert table.age == follower.age == 2
    for key in range(1000):
        follower.store(key, 0, 0, 1, EXACT)
    assert table.hashfull() == 1000 and table.probe(500) == (500, 0, 0, 1, EXACT, 2)
    table.clear()
    assert follower.probe(500) is None and follower.hashfull() == 0
    follower.new_search()
    assert follower.age == 0


def test_every_legal_move_has_its_code():
    board = chess.Board("r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1")
    for side in (chess.WHITE, chess.BLACK):
        board.turn = side
        for move in board.legal_moves:
            assert to_move(from_move(move)) == move


def test_a_searcher_over_the_shared_table_finds_its_own_entries():
    searcher = Searcher(1)
    searcher.tt = SharedTranspositionTable(1)
    board = chess.Board(MIDDLEGAME)
    result = searcher.search(board, Limits(depth=3))
    entry = searcher.tt.probe(full_key(board))
    assert board.is_legal(result.best_move) and to_move(entry[1]) == result.best_move and entry[3] == 3


# -- helpers ------------------------------------------------------------------------------------

def test_a_helper_fills_the_table_another_view_reads():
    table = SharedTranspositionTable(1)
    helper = HelperSearcher(1, SharedTranspositionTable(buffer=table.buffer, leader=False))
    board = chess.Board(MIDDLEGAME)
    helper.search(board, Limits(depth=3))
    entry = table.probe(full_key(board))
    assert entry is not None and entry[3] == 4  # the odd helper searched one ply deeper
    assert board.is_legal(to_move(entry[1]))


def test_a_helper_process_searches_into_the_shared_block():
    table = SharedTranspositionTable(1)
    pool = HelperPool(1, table.buffer)
    try:
        board = chess.Board(MIDDLEGAME)
        board.push_san("h3")
        generation = pool.start(board, Limits(depth=3))
        pool.send_all(("quit",))  # read after the depth-limited search, never before
        pool.helpers[0].process.join(WAIT)
        assert pool.helpers[0].process.exitcode == 0
        entry = table.probe(full_key(board))
        assert entry is not None and entry[3] == 4 and board.is_legal(to_move(entry[1]))
        assert pool.nodes(generation) > 0
    finally:
        pool.close()


def test_no_helper_stores_after_a_sync_so_a_clear_is_final():
    # ucinewgame right after a search: a helper still finishing the stopped search must not
    # write into the table the main process has just cleared (this failed under load on PyPy).
    table = SharedTranspositionTable(1)
    pool = HelperPool(1, table.buffer)
    try:
        generation = pool.start(chess.Board(MIDDLEGAME), Limits())  # no depth: until stopped
        while pool.nodes(generation) == 0:  # wait until it is inside the search
            pool.helpers[0].process.join(0.01)
            assert pool.helpers[0].process.is_alive()
        pool.stop(generation)
        pool.sync(("newgame",))
        table.clear()
        pool.sync(("sync",))  # a round trip through the helper: anything it stored is visible now
        assert not any(table.words)  # every word of every entry still zero
        assert pool.helpers[0].process.is_alive()
    finally:
        pool.close()


def test_parallel_searcher_searches_clears_resizes_and_closes():
    searcher = ParallelSearcher(2, threads=2)
    try:
        first = searcher.helper_pids()
        assert len(first) == 1
        board = chess.Board(MIDDLEGAME)
        infos = []
        result = searcher.search(board, Limits(depth=4), on_info=infos.append)
        assert board.is_legal(result.best_move) and result.depth == 4
        assert [info.depth for info in infos] == [1, 2, 3, 4] and result.nodes >= infos[-1].nodes
        assert searcher.tt.probe(full_key(board)) is not None
        searcher.new_game()
        assert searcher.tt.probe(full_key(board)) is None
        searcher.set_hash(1)
        assert searcher.tt.size == 1024 * 1024 // 16 - 1
        second = searcher.helper_pids()
        assert len(second) == 1 and second != first and not running(first)  # replaced, joined
        generation = searcher._pool.generation
        result = searcher.search(board, Limits(nodes=300))
        assert searcher._pool.generation == generation  # go nodes: no helpers
        assert board.is_legal(result.best_move)
    finally:
        searcher.close()
    assert searcher.threads == 1 and searcher.helper_pids() == [] and isinstance(searcher.tt, TranspositionTable)
    assert not running(second)


def running(pids):
    """Those of ``pids`` that still exist (children that were joined no longer do)."""
    return [pid for pid in pids if os.path.exists("/proc/%d" % pid)] if LINUX else []


def test_helpers_that_cannot_start_leave_one_working_thread(monkeypatch):
    def no_processes(count, table, *setup):
        raise RuntimeError("helper process 1 did not start")
    monkeypatch.setattr("pruner.engine.smp.HelperPool", no_processes)
    searcher = ParallelSearcher(1)
    with pytest.raises(RuntimeError):
        searcher.set_threads(2)
    assert searcher.threads == 1 and isinstance(searcher.tt, TranspositionTable)
    board = chess.Board(MIDDLEGAME)
    assert board.is_legal(searcher.search(board, Limits(depth=2)).best_move)


def test_invalid_thread_counts_are_refused():
    searcher = ParallelSearcher(1)
    with pytest.raises(ValueError):
        searcher.set_threads(0)
    assert searcher.threads == 1 and searcher.helper_pids() == []
