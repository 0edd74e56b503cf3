#!/usr/bin/env python3
"""Warm-up curve: nodes/second in each 250 ms slice of one search in a fresh process.

    python3 scripts/warmup.py [--seconds 10] [--slice-ms 250] [--fen FEN]
    PYPY_GC_NURSERY=4M pypy3 scripts/warmup.py ...   (as ``pruner`` runs itself on PyPy)

The search runs on the interpreter that runs the script, from the start position (or
``--fen``) with ``go movetime``; a second thread reads the searcher's node counter at every
slice boundary. On CPython the curve is flat from the first slice; on PyPy it shows how long the
JIT takes to compile the search (the figure issue 23 asks for: speed within the first second).
The lines are: slice end (ms), nodes/second in the slice, and the mean since the start.
"""

import platform
import threading
import time

import chess

from pruner.engine.search import Searcher
from pruner.engine.types import Limits
from pruner.arguments import ArgumentParser


def sample(searcher: Searcher, slice_seconds: float, stop: threading.Event, samples: list) -> None:
    """Append (seconds since start, nodes) at every slice boundary until ``stop`` is set."""
    start = time.perf_counter()
    boundary = start + slice_seconds
    while not stop.is_set():
        delay = boundary - time.perf_counter()
        if delay > 0:
            stop.wait(delay)
            if stop.is_set():
                return
        samples.append((time.perf_counter() - start, searcher.nodes))
        boundary += slice_seconds


def main(argv=None) -> int:
    """Run one timed search, print the nodes/second of each slice."""
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="search time (default 10)")
    parser.add_argument("--slice-ms", type=int, default=250, help="slice length (default 250)")
    parser.add_argument("--fen", default=chess.STARTING_FEN, help="position (default: the start position)")
    parser.add_argument("--hash", type=int, default=64, help="Hash MB (default 64)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.slice_ms <= 0:
        parser.error("--seconds and --slice-ms must be positive")
    searcher = Searcher(args.hash)
    board = chess.Board(args.fen)
    samples: list = []
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(searcher, args.slice_ms / 1000.0, stop, samples), daemon=True)
    sampler.start()
    result = searcher.search(board, Limits(movetime=int(args.seconds * 1000)))
    stop.set()
    sampler.join()
    print("Warm-up curve, %s %s, %s, %d ms slices; depth %d, %d nodes"
          % (platform.python_implementation(), platform.python_version(), args.fen, args.slice_ms,
             result.depth, result.nodes))
    print("%8s %12s %12s" % ("ms", "nodes/s", "mean nodes/s"))
    previous_time, previous_nodes = 0.0, 0
    for seconds, nodes in samples:
        rate = (nodes - previous_nodes) / (seconds - previous_time)
        print("%8d %12d %12d" % (round(seconds * 1000), rate, nodes / seconds))
        previous_time, previous_nodes = seconds, nodes
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
