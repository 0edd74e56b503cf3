"""Helpers shared by the in-process tests of the UCI loop and the search: the loop driven with
scripted lines and fake searchers (or a real one that fails), a fake clock, fake tablebases and
copies of the real ones with a broken file (no subprocess, no sleeps)."""

import shutil
import threading
from typing import Callable, List, Optional

import chess

from pruner.engine.search import Searcher
from pruner.engine.types import SearchInfo, SearchResult
from paths import SYZYGY
from pruner.uci.loop import UciLoop
from pruner.uci.output import Writer


WAIT = 10.0
"""Generous bound for waits on other threads (they normally take microseconds)."""


# -- fakes ----------------------------------------------------------------------------------

class Output:
    """Collects the writer's lines; lets a test wait for one."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self.cond = threading.Condition()

    def write(self, data: bytes) -> None:
        with self.cond:
            self.lines.extend(data.decode("utf-8").splitlines())
            self.cond.notify_all()

    def wait_for(self, predicate: Callable[[List[str]], bool], timeout: float = WAIT) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: predicate(self.lines), timeout), self.lines

    def count(self, prefix: str) -> int:
        with self.cond:
            return sum(1 for line in self.lines if line.startswith(prefix))

    def with_prefix(self, prefix: str) -> List[str]:
        with self.cond:
            return [line for line in self.lines if line.startswith(prefix)]


class FakeSearcher:
    """Records calls; ``search`` reports one iteration, then (if ``block``) waits for stop."""

    def __init__(self, hash_mb: int = 16, block: bool = False, raise_in_search: bool = False,
                 move: Optional[str] = None, ponder: Optional[str] = None, bad_info: bool = False) -> None:
        self.move_overhead_ms = 10  # set before `calls` exists: not recorded
        self.calls: List[tuple] = [("init", hash_mb)]
        self.block = block
        self.raise_in_search = raise_in_search
        self.move = move
        self.ponder = ponder
        self.bad_info = bad_info
        self.before_info = threading.Event()
        self.before_info.set()
        self.searching = threading.Event()

    def __setattr__(self, name, value):
        if name == "move_overhead_ms" and "calls" in self.__dict__:
            self.calls.append(("move_overhead_ms", value))
        object.__setattr__(self, name, value)

    def new_game(self) -> None:
        self.calls.append(("new_game",))

    def set_hash(self, mb: int) -> None:
        self.calls.append(("set_hash", mb))

    def clear_hash(self) -> None:
        self.calls.append(("clear_hash",))

    def search(self, board, limits, on_info=None, stop=None, multipv=1, ponderhit=None, on_progress=None,
               params=None):
        self.calls.append(("search", board.fen(), limits, multipv))
        self.params = params
        self.ponderhit_event = ponderhit
        self.searching.set()
        if self.raise_in_search:
            raise RuntimeError("boom")
        moves = list(board.legal_moves)
        if not moves:
            return SearchResult(None)
        best = chess.Move.from_uci(self.move) if self.move else moves[0]
        line = SearchInfo(depth=1, seldepth=1, score=12, nodes=10, time_ms=1, pv=[best])
        assert self.before_info.wait(WAIT)
        if on_info is not None:
            if self.bad_info:
                on_info(SearchInfo(depth=1, seldepth=1, score=0, nodes=5, time_ms=1, pv=[object()]))
            on_info(line)
        if self.block:
            assert stop.wait(WAIT)
        ponder = chess.Move.from_uci(self.ponder) if self.ponder else None
        return SearchResult(best, ponder, [line], nodes=25, time_ms=3)


class FailsAtDepth(Searcher):
    """A searcher whose tree raises (a bug, a resource failing) once ``depth`` is reached."""

    def __init__(self, depth: int) -> None:
        super().__init__()
        self.fail_depth = depth

    def _search_root(self, depth, alpha, beta, moves, track=False):
        if depth >= self.fail_depth:
            raise RuntimeError("disk on fire")
        return super()._search_root(depth, alpha, beta, moves, track)


def make_loop(**searcher_args):
    """A loop over a FakeSearcher; returns (loop, output, holder) with holder[0] the searcher."""
    output = Output()
    holder: List[FakeSearcher] = []

    def factory(hash_mb: int) -> FakeSearcher:
        holder.append(FakeSearcher(hash_mb, **searcher_args))
        return holder[0]

    loop = UciLoop(Writer(output.write), factory)
    return loop, output, holder


def first_legal(*moves: str) -> str:
    """What FakeSearcher plays after ``moves`` from the start: the first legal move."""
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return next(iter(board.legal_moves)).uci()


def run(loop: UciLoop, *lines: str) -> None:
    for line in lines:
        assert loop.handle_line(line) is not False or line.split()[0] == "quit"


# -- parse_command --------------------------------------------------------------------------


class SteppingClock:
    """``time.monotonic`` for the searcher that moves on ``step`` seconds at every reading:
    a slow machine, without waiting for one."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


class MockTables:
    """KQ v K: the side with the queen wins; DTZ grows with the defending king's centrality."""

    def __init__(self):
        self.probes = 0

    def _queen_side(self, board):
        return chess.WHITE if board.pieces(chess.QUEEN, chess.WHITE) else chess.BLACK

    def probe_wdl(self, board):
        self.probes += 1
        if not board.queens:
            return 0
        return 2 if board.turn == self._queen_side(board) else -2

    def probe_dtz(self, board):
        wdl = self.probe_wdl(board)
        if wdl == 0:
            return 0
        weak_king = board.king(not self._queen_side(board))
        centrality = 7 - max(abs(3.5 - (weak_king & 7)), abs(3.5 - (weak_king >> 3))) * 2
        return int(centrality + 1) * (1 if wdl > 0 else -1)


QUEEN_TAKES_ROOK = ("8/8/8/4k3/8/3r4/8/KQ6 w - - 0 1", chess.Move.from_uci("b1d3"))
"""KQ v KR with the rook en prise: (FEN, the capture), found with or without tables."""


def broken_copy(tmp_path, name: str, data: bytes):
    """A copy of the real tables (tests/data/syzygy) in ``tmp_path`` with file ``name`` holding ``data``."""
    directory = tmp_path / "syzygy"
    shutil.copytree(SYZYGY, str(directory))
    (directory / name).write_bytes(data)
    return directory
