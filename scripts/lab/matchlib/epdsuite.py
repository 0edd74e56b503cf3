"""EPD test suites: which move does the engine pick, and since when did it stick?

Opcodes: ``bm`` (best moves: the engine must play one), ``am`` (avoid moves: it must play
none), ``dm`` (direct mate in N: the engine must report exactly ``score mate N``), ``id``, and
STS-style ``c0 "Nf3=10, d4=5"`` point scores (points for the move played).  A position is
solved when the final move is a ``bm`` (if any) and not an ``am``, and with ``dm`` the last
score is that mate.  Time to solution: when the engine's principal-variation move (and mate
score) last became correct and then stayed correct until the end (the engine's reported
``time`` where given, else wall time).
"""

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import chess
import chess.engine

from .engines import EnginePlayer, EngineSpec
from pruner.engine.epd import EpdRecord, read_epd_file


@dataclass
class SuitePosition:
    """One test position."""

    number: int
    """1-based index in the suite."""
    id: str
    board: chess.Board
    best: List[chess.Move] = field(default_factory=list)
    avoid: List[chess.Move] = field(default_factory=list)
    points: Dict[chess.Move, int] = field(default_factory=dict)
    """STS ``c0`` points per move (empty when the file has none)."""
    mate: Optional[int] = None
    """``dm``: the side to move mates in this many moves (the engine must say ``mate N``)."""

    def is_correct(self, move: Optional[chess.Move]) -> bool:
        """True when ``move`` is one of the ``bm`` moves (when there are any) and none of the ``am`` moves."""
        if move is None:
            return False
        if self.best and move not in self.best:
            return False
        return move not in self.avoid

    @property
    def max_points(self) -> int:
        """The most STS points a move can earn here (0 without ``c0`` points)."""
        return max(self.points.values()) if self.points else 0

    def expected(self) -> str:
        """``bm Qg6`` / ``am Rd6 bm Rb6 Rg5+`` in SAN."""
        parts = []
        if self.avoid:
            parts.append("am " + " ".join(self.board.san(move) for move in self.avoid))
        if self.best:
            parts.append("bm " + " ".join(self.board.san(move) for move in self.best))
        if self.mate is not None:
            parts.append("dm %d" % self.mate)
        return " ".join(parts)

    def limit(self, default: chess.engine.Limit, mate_depth: bool) -> chess.engine.Limit:
        """The search limit: ``default``, or depth 2N+2 for a mate in N with ``mate_depth``."""
        if mate_depth and self.mate is not None:
            return chess.engine.Limit(depth=2 * self.mate + 2)
        return default


def parse_points(board: chess.Board, text: str) -> Dict[chess.Move, int]:
    """STS ``c0`` text ``"f5=10, Be5+=2"`` -> {move: points}; unparsable entries are skipped."""
    points: Dict[chess.Move, int] = {}
    for item in text.split(","):
        san, sep, value = item.strip().partition("=")
        if not sep:
            continue
        try:
            points[board.parse_san(san.strip())] = int(value.strip())
        except ValueError:
            continue
    return points


def load_suite(path: str, chess960: bool = False,
               report: Optional[Callable[[str], None]] = None) -> List[SuitePosition]:
    """The positions of an EPD suite that say what to find (``bm``, ``am``, ``dm`` or ``c0``
    points). engine/epd.py reads the quirks of real files; a line without a usable position
    or without anything to find is skipped and, like what the lenient reading left out,
    goes to ``report``."""
    positions: List[SuitePosition] = []
    found = read_epd_file(path, chess960, check=lambda record: _suite_position(record, positions))
    if report is not None:
        for message in found.problems:
            report(message)
    return positions


def _suite_position(record: EpdRecord, positions: List[SuitePosition]) -> Optional[str]:
    """Append the suite position of ``record``; the reason when it has nothing to find."""
    ops = record.ops
    number = len(positions) + 1
    position = SuitePosition(number, record.id or "#%d" % number, record.board,
                             list(ops.get("bm") or []), list(ops.get("am") or []))
    if isinstance(ops.get("c0"), str):
        position.points = parse_points(record.board, ops["c0"])
    if "dm" in ops:
        if not isinstance(ops["dm"], int) or ops["dm"] < 1:
            return "dm needs a whole number of moves >= 1"
        position.mate = ops["dm"]
    if not (position.best or position.avoid or position.points or position.mate):
        return "no bm, am, dm or c0 points to check the engine against"
    if position.points and not position.best:
        top = position.max_points
        position.best = [move for move, value in position.points.items() if value == top]
    positions.append(position)
    return None


@dataclass
class SolveResult:
    """The engine's answer to one position."""

    position: SuitePosition
    move: Optional[chess.Move] = None
    solved: bool = False
    points: int = 0
    time_to_solution: Optional[float] = None
    """Seconds until the PV move became correct for good (None when unsolved)."""
    depth_at_solution: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None
    """The last ``score mate N`` reported (None when the last score was not a mate)."""
    elapsed: float = 0.0
    error: Optional[str] = None


def solve_position(player: EnginePlayer, position: SuitePosition, limit: chess.engine.Limit,
                   timeout: float) -> SolveResult:
    """Analyse one position with ``limit``; the engine is killed after ``timeout`` seconds."""
    result = SolveResult(position)
    start = time.perf_counter()
    try:
        player.start()
        player.new_game(("suite", position.number))
    except Exception as exc:  # noqa: BLE001 - EngineStartError, EngineCrash
        result.error = str(exc)
        return result
    engine = player.engine
    assert engine is not None
    fired = threading.Event()

    def on_timeout() -> None:
        fired.set()
        player.kill()

    watchdog = threading.Timer(timeout, on_timeout)
    watchdog.daemon = True
    watchdog.start()
    solved_since: Optional[float] = None
    depth_since: Optional[int] = None
    last_pv_move: Optional[chess.Move] = None
    try:
        with engine.analysis(position.board, limit, game=("suite", position.number)) as analysis:
            for info in analysis:
                if "depth" in info:
                    result.depth = info["depth"]
                if "nodes" in info:
                    result.nodes = info["nodes"]
                if "score" in info:
                    result.mate = info["score"].relative.mate()
                pv = info.get("pv")
                if not pv:
                    continue
                moment = info.get("time")
                if moment is None:
                    moment = time.perf_counter() - start
                last_pv_move = pv[0]
                if position.is_correct(pv[0]) and (position.mate is None or result.mate == position.mate):
                    if solved_since is None:
                        solved_since, depth_since = moment, info.get("depth")
                else:
                    solved_since = depth_since = None
            best = analysis.wait()
        result.move = best.move or last_pv_move
    except Exception as exc:  # noqa: BLE001 - crash, protocol error or watchdog kill
        player.kill()
        if fired.is_set():
            result.error = "no result within %gs: engine killed" % timeout
        else:
            result.error = "%s: %s%s" % (type(exc).__name__, exc, player.stderr_note())
    finally:
        watchdog.cancel()
        result.elapsed = time.perf_counter() - start
    if result.error is None:
        result.solved = position.is_correct(result.move) and (position.mate is None or result.mate == position.mate)
        if position.points and result.move is not None:
            result.points = position.points.get(result.move, 0)
        if result.solved:
            if solved_since is not None and last_pv_move == result.move:
                result.time_to_solution, result.depth_at_solution = solved_since, depth_since
            else:
                result.time_to_solution, result.depth_at_solution = result.elapsed, result.depth
    return result


def run_suite(positions: List[SuitePosition], spec: EngineSpec, limit: chess.engine.Limit, jobs: int,
              timeout: float, on_result: Callable[[SolveResult], None],
              start_timeout: float = 10.0, chess960: bool = False, mate_depth: bool = False) -> List[SolveResult]:
    """Solve every position with ``jobs`` engine processes in parallel; ``on_result`` is called
    in the calling thread, in suite order.  With ``mate_depth`` a ``dm N`` position is searched
    to depth 2N+2 instead of ``limit``.  Raises EngineStartError if the engine never starts."""
    probe = EnginePlayer(spec, start_timeout=start_timeout, chess960=chess960)
    probe.start()  # fail fast on a wrong command or option
    todo: "queue.Queue[SuitePosition]" = queue.Queue()
    for position in positions:
        todo.put(position)
    done: "queue.Queue[SolveResult]" = queue.Queue()

    def worker(player: EnginePlayer) -> None:
        try:
            while True:
                try:
                    position = todo.get_nowait()
                except queue.Empty:
                    break
                done.put(solve_position(player, position, position.limit(limit, mate_depth), timeout))
        finally:
            player.quit()

    players = [probe] + [EnginePlayer(spec, start_timeout=start_timeout, chess960=chess960)
                         for _ in range(max(1, min(jobs, len(positions))) - 1)]
    threads = [threading.Thread(target=worker, args=(player,), daemon=True) for player in players]
    for thread in threads:
        thread.start()
    results: Dict[int, SolveResult] = {}
    ordered: List[SolveResult] = []
    try:
        while len(ordered) < len(positions):
            try:
                solved = done.get(timeout=0.5)
            except queue.Empty:
                if not any(thread.is_alive() for thread in threads) and done.empty():
                    break
                continue
            results[solved.position.number] = solved
            while len(ordered) < len(positions) and positions[len(ordered)].number in results:
                ready = results[positions[len(ordered)].number]
                ordered.append(ready)
                on_result(ready)
    finally:
        while True:  # on interrupt: drop the remaining positions, stop the engines
            try:
                todo.get_nowait()
            except queue.Empty:
                break
        for player in players:
            player.kill()
    return ordered
