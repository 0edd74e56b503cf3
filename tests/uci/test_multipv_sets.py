"""MultiPV lines of one depth form one set (issue 54, item 3): sent together when the iteration
ends, ranks 1..K in order, one depth, one node count and one time for the set, as Stockfish
sends them; a search stopped inside an iteration repeats the last complete set.

The in-process tests run the loop on a real ``Searcher`` whose clock reads its node count (no
sleeps, no timing assertions); the process tests read the lines through python-chess's
``chess.engine``, as GUIs and scripts do.
"""

import re
from typing import List, Tuple

import chess
import chess.engine
import pytest

from pruner.engine.search import Searcher
from pruner.engine.smp import ParallelSearcher
from pruner.engine.types import Limits
from loop_helpers import WAIT, Output, run
from pruner.uci.loop import UciLoop
from pruner.uci.output import Writer

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

INFO = re.compile(r"info depth (\d+) seldepth \d+ multipv (\d+) .* nodes (\d+) nps \d+ hashfull \d+ "
                  r"tbhits \d+ time (\d+)")

MIDDLEGAME = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def scored(lines: List[str]) -> List[Tuple[int, int, int, int]]:
    """(depth, multipv, nodes, time) of every ``info`` line with a score, in output order."""
    return [tuple(int(group) for group in INFO.match(line).groups()) for line in lines if " multipv " in line]


def sets_of(rows, k: int):
    """``rows`` cut into runs of ``k``; each run must be one set: one depth, ranks 1..k, one
    node count and one time."""
    assert len(rows) % k == 0, rows
    runs = [rows[i:i + k] for i in range(0, len(rows), k)]
    for run_ in runs:
        assert [rank for _, rank, _, _ in run_] == list(range(1, k + 1)), run_
        assert len({(depth, nodes, time) for depth, _, nodes, time in run_}) == 1, run_
    return runs


class StopsInside(Searcher):
    """A real searcher whose stop flag is raised as the second line of depth ``depth`` starts
    (what a GUI's ``stop`` does when it comes in the middle of an iteration)."""

    def __init__(self, depth: int) -> None:
        super().__init__()
        self.stop_depth = depth
        self.lines_started = 0

    def _aspiration(self, depth, moves, guess, track=False):
        if depth == self.stop_depth:
            self.lines_started += 1
            if self.lines_started == 2:
                self._stop.set()
        return super()._aspiration(depth, moves, guess, track)


def node_clock_loop(make=Searcher):
    """A loop over one real searcher (``make()``) whose clock reads its nodes."""
    output = Output()

    def factory(hash_mb):
        searcher = make()
        searcher.clock = lambda: searcher.nodes / 10000
        return searcher

    return UciLoop(Writer(output.write), factory), output


def test_the_lines_of_each_depth_come_as_one_set_in_rank_order():
    loop, output = node_clock_loop()
    run(loop, "setoption name MultiPV value 3", "position fen " + MIDDLEGAME, "go depth 5")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove ")
    runs = sets_of(scored(output.lines), 3)
    assert [run_[0][0] for run_ in runs] == [1, 2, 3, 4, 5]  # no depth repeated, none missing
    assert [run_[0][2] for run_ in runs] == sorted(run_[0][2] for run_ in runs)
    # Nothing but progress reports between the lines of a set: they are written back to back.
    first = next(i for i, line in enumerate(output.lines) if " multipv 1 " in line and "depth 5 " in line)
    assert all(" multipv %d " % rank in output.lines[first + rank - 1] for rank in (1, 2, 3))


def test_only_the_reporting_changed_the_set_carries_the_nodes_of_the_whole_iteration():
    searcher = Searcher()
    infos = []
    result = searcher.search(chess.Board(MIDDLEGAME), Limits(depth=4), on_info=infos.append, multipv=3)
    assert [(info.depth, info.multipv) for info in infos[-3:]] == [(4, 1), (4, 2), (4, 3)]
    assert {info.nodes for info in infos[-3:]} == {result.nodes}  # the last set: every node of the search
    assert result.lines == infos[-3:]


def test_a_stop_inside_an_iteration_repeats_the_last_complete_set():
    loop, output = node_clock_loop(lambda: StopsInside(4))
    run(loop, "setoption name MultiPV value 3", "position fen " + MIDDLEGAME, "go infinite")
    output.wait_for(lambda lines: any(line.startswith("info depth 3 ") and " multipv 3 " in line
                                      for line in lines))
    run(loop, "stop")  # the search stopped itself inside depth 4; this releases the bestmove
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove ")
    runs = sets_of(scored(output.lines), 3)
    assert [run_[0][0] for run_ in runs] == [1, 2, 3, 3]  # depth 4 never completed: depth 3 again
    assert runs[-1][0][2] >= runs[-2][0][2]  # ... with the final node count
    best = output.lines[-1].split()[1]
    assert " pv %s" % best in [line for line in output.lines if " multipv 1 " in line][-1]


# -- through chess.engine -----------------------------------------------------------------------


@pytest.fixture
def engine(engine_command, repo_root):
    process = chess.engine.SimpleEngine.popen_uci(engine_command, cwd=repo_root, timeout=30)
    yield process
    try:
        process.quit()
    except chess.engine.EngineTerminatedError:
        pass


def test_chess_engine_analyse_reads_one_set_at_a_fixed_depth(engine):
    board = chess.Board(MIDDLEGAME)
    infos = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert {info["depth"] for info in infos} == {5}
    assert len({(info["nodes"], info["time"]) for info in infos}) == 1
    assert len({info["pv"][0] for info in infos}) == 3
    assert all(board.is_legal(info["pv"][0]) for info in infos)


def test_chess_engine_analysis_streams_whole_sets(engine):
    board = chess.Board(MIDDLEGAME)
    rows = []
    with engine.analysis(board, chess.engine.Limit(depth=5), multipv=3) as analysis:
        for info in analysis:
            if "multipv" in info:
                rows.append((info["depth"], info["multipv"], info["nodes"], int(info["time"] * 1000)))
    runs = sets_of(rows, 3)
    assert [run_[0][0] for run_ in runs] == [1, 2, 3, 4, 5]


class CountingPool:
    """A stand-in for the helper processes: their node count grows at every reading."""

    def __init__(self) -> None:
        self.readings = 0

    def start(self, board, limits) -> int:
        return 1

    def nodes(self, generation: int) -> int:
        self.readings += 1
        return 1000 * self.readings

    def stop(self, generation: int) -> None:
        pass


def test_with_helpers_the_set_shows_one_node_count():
    searcher = ParallelSearcher(1, threads=1)
    searcher._pool, searcher._table = CountingPool(), Searcher().tt  # helpers without processes
    infos = []
    try:
        searcher.search(chess.Board(MIDDLEGAME), Limits(depth=3), on_info=infos.append, multipv=3)
    finally:
        searcher._pool = searcher._table = None
    runs = sets_of([(info.depth, info.multipv, info.nodes, info.time_ms) for info in infos], 3)
    assert [run_[0][0] for run_ in runs] == [1, 2, 3]
    assert len({run_[0][2] for run_ in runs}) == 3  # the helpers' nodes still count, read once per set
