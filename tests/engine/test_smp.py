"""Threads: the shared transposition table, the helper processes, and their clean-up.

The table tests are exact (round trip of every field, torn entries refused, the same answers
as the list table). Helper processes are checked through ``/proc`` (Linux): they exist after
``setoption name Threads``, are replaced on a ``Hash`` change, and are gone after ``quit``,
end of input, SIGTERM, and even after the engine is killed. Waits for a process to end use a
pidfd (the kernel says when it exits); no sleeps, no timing assertions.
"""

import ctypes
import os
import select
import signal
import sys

import chess
import pytest

from engine.makemove import full_key
from engine.search import Searcher
from engine.shared_tt import MOVES, SharedTranspositionTable
from engine.smp import HelperPool, HelperSearcher, ParallelSearcher
from engine.tt import EXACT, LOWER, UPPER, TranspositionTable, score_from_tt, score_to_tt
from engine.types import INF, MATE, Limits
from engine_process import WAIT, EngineProcess
from protocol.uci.options import searcher_cap

LINUX = sys.platform.startswith("linux")
linux_only = pytest.mark.skipif(not LINUX, reason="reads /proc and waits on pidfds")

MIDDLEGAME = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7"

MOVE_CASES = [None, chess.Move.from_uci("e2e4"), chess.Move.from_uci("a7a8q"), chess.Move.from_uci("h2h1n"),
              chess.Move.from_uci("b7a8r"), chess.Move.from_uci("g2g1b"), chess.Move.from_uci("e1g1"),
              chess.Move.from_uci("e1h1"), chess.Move.from_uci("a1h8"), chess.Move.from_uci("h8a1")]
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
        table.store(42, None, score_to_tt(score, 4), 3, EXACT)
        stored = table.probe(42)[2]
        assert score_from_tt(stored, 4) == score
        assert score_from_tt(stored, 6) == score + (-2 if score > 0 else 2)  # two plies further away


def test_a_torn_entry_is_never_returned():
    table = SharedTranspositionTable(1)
    size = table.size
    first, second = 12345, 12345 + size * 3  # same slot
    move = chess.Move.from_uci("g1f3")
    table.store(first, move, 77, 6, LOWER)
    index = (first % size) * 2
    check, data = table.words[index], table.words[index + 1]
    table.store(second, None, -300, 9, UPPER)
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
    moves = [m for m in MOVE_CASES if m is not None]
    operations = 0
    for round_ in range(3):
        shared.new_search()
        plain.new_search()
        for key in range(1, 400):
            move = moves[(key + round_) % len(moves)] if key % 5 else None
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
    table.store(deep, chess.Move.from_uci("d2d4"), 10, 9, EXACT)
    table.store(shallow, None, 20, 2, EXACT)  # 9 > 2 + 2: kept
    assert table.probe(deep)[3] == 9 and table.probe(shallow) is None
    table.store(deep, None, 15, 3, UPPER)  # same key: replaced, the move kept
    assert table.probe(deep) == (deep, chess.Move.from_uci("d2d4"), 15, 3, UPPER, table.age)
    table.new_search()
    table.store(deep, chess.Move.from_uci("d2d4"), 10, 9, EXACT)
    table.new_search()
    table.store(shallow, None, 20, 2, EXACT)  # an older search's entry gives way
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
        follower.store(key, None, 0, 1, EXACT)
    assert table.hashfull() == 1000 and table.probe(500) == (500, None, 0, 1, EXACT, 2)
    table.clear()
    assert follower.probe(500) is None and follower.hashfull() == 0
    follower.new_search()
    assert follower.age == 0


def test_every_legal_move_has_its_code():
    board = chess.Board("r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1")
    for side in (chess.WHITE, chess.BLACK):
        board.turn = side
        for move in board.legal_moves:
            assert MOVES[move.from_square | move.to_square << 6 | (move.promotion or 0) << 12] == move


def test_a_searcher_over_the_shared_table_finds_its_own_entries():
    searcher = Searcher(1)
    searcher.tt = SharedTranspositionTable(1)
    board = chess.Board(MIDDLEGAME)
    result = searcher.search(board, Limits(depth=3))
    entry = searcher.tt.probe(full_key(board))
    assert board.is_legal(result.best_move) and entry[1] == result.best_move and entry[3] == 3


# -- helpers ------------------------------------------------------------------------------------

def test_a_helper_fills_the_table_another_view_reads():
    table = SharedTranspositionTable(1)
    helper = HelperSearcher(1, SharedTranspositionTable(buffer=table.buffer, leader=False))
    board = chess.Board(MIDDLEGAME)
    helper.search(board, Limits(depth=3))
    entry = table.probe(full_key(board))
    assert entry is not None and entry[3] == 4  # the odd helper searched one ply deeper
    assert board.is_legal(entry[1])


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
        assert entry is not None and entry[3] == 4 and board.is_legal(entry[1])
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
    def no_processes(count, table):
        raise RuntimeError("helper process 1 did not start")
    monkeypatch.setattr("engine.smp.HelperPool", no_processes)
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


# -- the real process -----------------------------------------------------------------------------

def children(pid):
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


def helpers_of(pid):
    """The engine's helper processes (not multiprocessing's resource tracker)."""
    found = []
    for child in children(pid):
        try:
            with open("/proc/%d/cmdline" % child, "rb") as cmdline:
                if b"spawn_main" in cmdline.read():
                    found.append(child)
        except OSError:
            pass
    return found


def pidfd_open(pid):
    """A pidfd for ``pid`` (os.pidfd_open, or the raw system call on interpreters without it),
    or None when the process is already gone."""
    try:
        if hasattr(os, "pidfd_open"):
            return os.pidfd_open(pid)
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.syscall(434, pid, 0)  # SYS_pidfd_open (same number on every architecture)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "pidfd_open")
        return fd
    except ProcessLookupError:
        return None
    except OSError as exc:
        if exc.errno == 3:  # ESRCH
            return None
        raise


def wait_gone(pids, timeout=WAIT):
    """Wait until every process in ``pids`` has exited (a zombie awaiting its reaper counts)."""
    for pid in pids:
        fd = pidfd_open(pid)
        if fd is None:
            continue
        try:
            readable, _, _ = select.select([fd], [], [], timeout)
            assert readable, "process %d is still running" % pid
        finally:
            os.close(fd)


@pytest.fixture
def engine(engine_command, repo_root):
    process = EngineProcess(engine_command, repo_root)
    yield process
    process.kill()


def start_with_threads(engine, threads=2):
    engine.send_line("uci")
    engine.wait_for(lambda line: line == "uciok")
    engine.send_line("setoption name Threads value %d" % threads)
    engine.sync()  # the first isready builds the searcher and starts the helpers
    helpers = helpers_of(engine.pid)
    assert len(helpers) == threads - 1, children(engine.pid)
    return helpers


def searching_with_threads(engine):
    """Threads 2 and a ``go infinite`` under way; the engine's child processes (the helper
    and multiprocessing's resource tracker)."""
    start_with_threads(engine)
    engine.send_line("go infinite")
    engine.wait_for(lambda line: line.startswith("info depth 2 "))
    return children(engine.pid)


def search_once(engine, fen=MIDDLEGAME, go="go depth 4"):
    number = engine.count(lambda line: line.startswith("bestmove ")) + 1
    engine.send_line("position fen " + fen)
    engine.send_line(go)
    engine.wait_for(lambda line: line.startswith("bestmove "), number)
    bestmove = [line for line in engine.lines if line.startswith("bestmove ")][-1]
    assert chess.Board(fen).is_legal(chess.Move.from_uci(bestmove.split()[1])), bestmove


def test_threads_is_declared_as_stockfish_does_whatever_the_cpu_count(engine):
    engine.send_line("uci")
    engine.wait_for(lambda line: line == "uciok")
    assert "option name Threads type spin default 1 min 1 max 1024" in engine.lines
    for bad, reason in (("0", "out of range"), ("1025", "out of range"),
                        ("two", "not an integer"), ("", "needs a value")):
        engine.send_line("setoption name Threads value %s" % bad if bad else "setoption name Threads")
        engine.wait_for(lambda line: line.startswith("info string error: option Threads") and reason in line)
    engine.sync()
    assert engine.finish() == 0


@linux_only
def test_threads_beyond_the_cpus_starts_one_searcher_per_cpu_and_says_so(engine):
    # Threads 1024 on any machine: one helper process per usable CPU after the first (at
    # least one), never 1023; one info string says so when the option is set.
    engine.send_line("uci")
    engine.wait_for(lambda line: line == "uciok")
    engine.send_line("setoption name Threads value 1024")
    engine.sync()
    notes = [line for line in engine.lines if line.startswith("info string Threads 1024: ")]
    assert notes == ["info string Threads 1024: %d searcher processes (the main search and %d helper%s), "
                     "one per usable CPU; more would only share the CPUs and slow the main search"
                     % (searcher_cap(), searcher_cap() - 1, "" if searcher_cap() == 2 else "s")]
    assert len(helpers_of(engine.pid)) == searcher_cap() - 1
    search_once(engine, go="go depth 3")
    engine.send_line("setoption name Threads value 1")
    engine.sync()
    assert helpers_of(engine.pid) == []
    assert engine.count(lambda line: line.startswith("info string Threads")) == 1
    assert engine.finish() == 0
    assert "error" not in " ".join(engine.lines)


@linux_only
def test_quit_ends_the_helpers(engine):
    helpers = start_with_threads(engine)
    search_once(engine)
    engine.send_line("ucinewgame")
    search_once(engine, go="go depth 3")
    processes = children(engine.pid)  # the helper and multiprocessing's resource tracker
    assert set(helpers) < set(processes)
    engine.send_line("quit")
    assert engine.exited_within(WAIT) == 0
    wait_gone(processes)
    assert not engine.stderr.strip()


@linux_only
def test_end_of_input_ends_the_helpers_even_mid_search(engine):
    processes = searching_with_threads(engine)
    assert engine.finish() == 0
    wait_gone(processes)
    assert not engine.stderr.strip()


@linux_only
def test_sigterm_ends_the_helpers(engine):
    processes = searching_with_threads(engine)
    engine.process.send_signal(signal.SIGTERM)
    assert engine.exited_within(WAIT) == 143
    wait_gone(processes)


@linux_only
def test_helpers_of_a_killed_engine_exit_by_themselves(engine):
    processes = searching_with_threads(engine)
    engine.process.kill()  # no clean-up code runs in the engine
    assert engine.exited_within(WAIT) == -signal.SIGKILL
    wait_gone(processes)
    for reader in engine.readers:  # the GUI sees the end of the output: no helper holds the pipe
        reader.join(WAIT)
        assert not reader.is_alive()


@linux_only
def test_hash_and_threads_changes_replace_and_stop_the_helpers(engine):
    first = start_with_threads(engine)
    engine.send_line("setoption name Hash value 8")
    engine.sync()
    wait_gone(first)
    second = helpers_of(engine.pid)
    assert len(second) == 1 and second != first
    search_once(engine)
    engine.send_line("setoption name Threads value 1")
    engine.sync()
    wait_gone(second)
    assert helpers_of(engine.pid) == []
    search_once(engine, go="go depth 3")
    engine.send_line("setoption name Threads value 2")
    engine.sync()
    third = helpers_of(engine.pid)
    assert len(third) == 1
    engine.send_line("go infinite")
    engine.send_line("setoption name Threads value 1")  # applied after the search's bestmove
    engine.send_line("stop")
    engine.wait_for(lambda line: line.startswith("bestmove "), 3)
    engine.sync()
    wait_gone(third)
    engine.send_line("quit")
    assert engine.exited_within(WAIT) == 0
    assert "error" not in " ".join(engine.lines) and not engine.stderr.strip()
