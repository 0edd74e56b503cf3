"""Bench: a fixed set of positions searched to a fixed depth with fresh tables.

The total node count is the search's signature (deterministic for a given code version,
interpreter and machine alike); nodes/second is the speed figure.
"""

import platform
import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

import chess

from pruner.engine.search import Searcher, SearchParams
from pruner.engine.types import Limits

DEFAULT_DEPTH = 5
"""Depth used when none is given (a few seconds on CPython)."""

POSITIONS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "8/8/8/3k4/8/8/3PK3/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
    "8/3k4/8/8/8/4B3/4KB2/2B5 w - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
]
"""Bench positions: openings, middlegames with tactics, endgames (>= 20 as promised)."""


@dataclass
class BenchResult:
    """Outcome of a bench run."""

    nodes: int
    """Total nodes over all positions: the signature."""
    seconds: float
    """Wall time of the searches."""
    stopped: bool = False
    """The ``stop`` event ended the run early: ``nodes`` is no signature."""

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


def run(depth: Optional[int] = None, on_position: Optional[Callable[[int, str, int], None]] = None,
        hash_mb: int = 16, params: Optional[SearchParams] = None,
        stop: Optional[threading.Event] = None) -> BenchResult:
    """Search every bench position to ``depth`` with fresh tables; ``on_position(i, fen, nodes)``.
    ``params``: the search's parameters (default: ``SearchParams()``, the engine's search).
    ``stop``: setting it ends the run within the current search (``stopped`` in the result)."""
    depth = depth or DEFAULT_DEPTH
    total = 0
    elapsed = 0.0
    for i, fen in enumerate(POSITIONS, 1):
        searcher = Searcher(hash_mb, params)
        board = chess.Board(fen)
        start = time.perf_counter()
        result = searcher.search(board, Limits(depth=depth), stop=stop)
        elapsed += time.perf_counter() - start
        total += result.nodes
        if stop is not None and stop.is_set():
            return BenchResult(total, elapsed, stopped=True)
        if on_position is not None:
            on_position(i, fen, result.nodes)
    return BenchResult(total, elapsed)


def report(depth: Optional[int], emit: Callable[[str], None], stop: Optional[threading.Event] = None) -> BenchResult:
    """``bench [depth]`` as ``pruner bench`` and the UCI ``bench`` command print it: one line
    per position through ``emit``, then the node signature and the speed (Stockfish's layout).
    Stopped early (``stop``), it prints no totals: a partial count is no signature."""
    depth = depth or DEFAULT_DEPTH

    def on_position(index: int, fen: str, nodes: int) -> None:
        emit("Position %d/%d: %d nodes  %s" % (index, len(POSITIONS), nodes, fen))

    result = run(depth, on_position=on_position, stop=stop)
    if result.stopped:
        return result
    emit("===========================")
    emit("Depth: %d" % depth)
    emit("Total time (ms): %d" % int(result.seconds * 1000))
    emit("Nodes searched: %d" % result.nodes)
    emit("Nodes/second: %d" % result.nps)
    emit("Interpreter: %s %s" % (platform.python_implementation(), platform.python_version()))
    return result
