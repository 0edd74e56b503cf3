"""A user's own net in the searcher (issue 52, step 5; the UCI option ``EvalFile`` in
tests/uci/test_evalfile.py): ``Searcher.set_evalfile`` makes the evaluation now and empties the
table, a name that cannot be read changes nothing, a file read again under the same name is the
new net, a limited-strength search still evaluates classically, and the Lazy SMP helper
processes search with the main searcher's net (given as the file's bytes)."""

import chess
import pytest

from pruner.engine import nnue
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.shared_tt import SharedTranspositionTable
from pruner.engine.smp import HelperPool, HelperSearcher, ParallelSearcher, net_bytes
from pruner.engine.strength import calibrated_params
from pruner.engine.types import Limits
from pruner.engine.zobrist import full_key
from engine_process import WAIT
from net_helpers import random_net

MIDDLEGAME = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7"


@pytest.fixture
def net_file(tmp_path):
    """A net of random weights (not the shipped one: its scores differ) in a file."""
    path = tmp_path / "mine.nnue"
    path.write_bytes(random_net(52, hidden=16).to_bytes())
    return str(path)


def test_set_evalfile_makes_the_evaluation_now_and_empties_the_table(net_file):
    searcher = Searcher(1)
    board = chess.Board(MIDDLEGAME)
    searcher.search(board, Limits(depth=2))
    assert searcher.tt.probe(full_key(board)) is not None
    searcher.set_evalfile(net_file)
    assert searcher.params.evalfile == net_file
    assert searcher.evaluator.net.sha256 == nnue.load(net_file).sha256
    assert searcher.tt.probe(full_key(board)) is None  # its scores came from the other evaluation
    searcher.set_evalfile("classical")
    assert searcher.evaluator.net is None
    assert searcher.evaluator.describe() == "classical evaluation (no net asked for)"


def test_a_name_that_cannot_be_read_changes_nothing(tmp_path, net_file):
    searcher = Searcher(1)
    searcher.set_evalfile(net_file)
    evaluator = searcher.evaluator
    with pytest.raises(nnue.NetError, match="missing.nnue"):
        searcher.set_evalfile(str(tmp_path / "missing.nnue"))
    assert searcher.evaluator is evaluator and searcher.params.evalfile == net_file


def test_a_file_read_again_under_its_name_is_the_new_net(tmp_path):
    path = tmp_path / "again.nnue"
    path.write_bytes(random_net(1).to_bytes())
    first = nnue.read_named(str(path))
    path.write_bytes(random_net(2).to_bytes())  # trained anew, same name
    assert nnue.net_named(str(path)) is first  # net_named reads a file once a process
    second = nnue.read_named(str(path))
    assert second.sha256 != first.sha256 and nnue.net_named(str(path)) is second
    path.write_bytes(b"broken")
    with pytest.raises(nnue.NetError, match="shorter than"):
        nnue.read_named(str(path))
    assert nnue.net_named(str(path)) is second  # a refused read keeps the one before
    searcher = Searcher(1)
    searcher.set_evalfile(str(path))
    assert searcher.evaluator.net is second


def test_a_limited_search_evaluates_classically_and_the_next_one_with_the_users_net(net_file):
    searcher = Searcher(1)
    searcher.set_evalfile(net_file)
    board = chess.Board(MIDDLEGAME)
    searcher.search(board, Limits(depth=2), params=calibrated_params())  # UCI_LimitStrength's search
    assert searcher.evaluator.net is None and searcher.params.evalfile == net_file
    searcher.search(board, Limits(depth=2))
    assert searcher.evaluator.net is nnue.net_named(net_file)


def _helper_search(pool, board, depth):
    """The pool's one helper searches ``board`` to ``depth`` (into the shared table), then exits."""
    pool.start(board, Limits(depth=depth))
    pool.send_all(("quit",))  # read after the depth-limited search, never before
    pool.helpers[0].process.join(WAIT)
    assert pool.helpers[0].process.exitcode == 0


def _in_process_entry(params, board, depth):
    """What helper 1 stores for ``board`` searching in this process with ``params``' net."""
    table = SharedTranspositionTable(1)
    helper = HelperSearcher(1, SharedTranspositionTable(buffer=table.buffer, leader=False))
    helper.configure(params, net_bytes(params.evalfile))
    helper.search(board, Limits(depth=depth))
    return table.probe(full_key(board))


def test_a_helper_process_searches_with_the_net_it_is_given(net_file):
    board = chess.Board(MIDDLEGAME)
    params = SearchParams(evalfile=net_file)
    table = SharedTranspositionTable(1)
    pool = HelperPool(1, table.buffer, params, net_bytes(net_file))
    try:
        _helper_search(pool, board, 2)
        entry = table.probe(full_key(board))
    finally:
        pool.close()
    assert entry == _in_process_entry(params, board, 2)
    assert entry[2] != _in_process_entry(SearchParams(), board, 2)[2]  # the shipped net scores otherwise


def test_set_evalfile_reaches_the_running_helpers_and_the_ones_started_later(net_file):
    board = chess.Board(MIDDLEGAME)
    mine = _in_process_entry(SearchParams(evalfile=net_file), board, 2)
    searcher = ParallelSearcher(1, threads=2)
    try:
        searcher.set_evalfile(net_file)
        assert searcher.main.evaluator.net is nnue.net_named(net_file)
        pool = searcher._pool
        _helper_search(pool, board, 2)  # the running helper took the net
        assert searcher.tt.probe(full_key(board)) == mine
        searcher.clear_hash()
        _helper_search(pool, board, 2)  # the one started in place of the helper that quit
        assert searcher.tt.probe(full_key(board)) == mine
        assert board.is_legal(searcher.search(board, Limits(depth=3)).best_move)
    finally:
        searcher.close()
