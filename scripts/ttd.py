#!/usr/bin/env python3
"""Time to depth: how long Threads=1 and Threads=2 (or more) take to complete a depth.

    python scripts/ttd.py [--depth D] [--positions N] [--threads 1,2] [--repeat R] [--hash MB]
    pypy3 scripts/ttd.py ...      (the searchers run on the interpreter that runs the script)

For each of the first N bench positions (engine/bench.py) and each thread count, a fresh
table (``new_game``) and ``go depth D``; the positions are interleaved across thread counts
so that a change in machine load hits every column alike. With ``--repeat R`` each search
runs R times and the median time counts (Lazy SMP is not deterministic). The table shows
seconds and nodes (helpers' included) per position, the speed-up of each thread count over
the first, and at the end the totals and the geometric mean of the speed-ups. Run it on an
otherwise idle machine with at least as many cores as the largest thread count.
"""

import argparse
import math
import os
import statistics
import sys
import time

import chess

from pruner.engine import bench
from pruner.engine.smp import ParallelSearcher
from pruner.engine.types import Limits
from pruner.arguments import ArgumentParser


def thread_counts(text: str):
    """The ``--threads`` list ``1,2`` as integers (each at least 1)."""
    counts = [int(word) for word in text.split(",") if word.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("thread counts are integers >= 1, e.g. 1,2")
    return counts


def timed_search(searcher: ParallelSearcher, fen: str, depth: int):
    """(seconds, nodes) of one ``go depth`` from a fresh table."""
    searcher.new_game()
    board = chess.Board(fen)
    start = time.perf_counter()
    result = searcher.search(board, Limits(depth=depth))
    seconds = time.perf_counter() - start
    if result.depth != depth:
        raise RuntimeError("depth %d not reached in %s" % (depth, fen))
    return seconds, result.nodes


def main(argv=None) -> int:
    """Run ``ttd.py``: time each position at each thread count and print the table."""
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8, help="depth to reach (default 8)")
    parser.add_argument("--positions", type=int, default=len(bench.POSITIONS),
                        help="first N bench positions (default all %d)" % len(bench.POSITIONS))
    parser.add_argument("--threads", type=thread_counts, default=[1, 2], help="thread counts, e.g. 1,2 (default)")
    parser.add_argument("--repeat", type=int, default=1, help="searches per cell, median time (default 1)")
    parser.add_argument("--hash", type=int, default=64, help="Hash MB per engine (default 64)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed searches of the first position first (PyPy's JIT; default 1)")
    args = parser.parse_args(argv)
    if args.depth < 1 or args.positions < 1 or args.repeat < 1:
        parser.error("--depth, --positions and --repeat must be at least 1")
    positions = bench.POSITIONS[:args.positions]
    searchers = [ParallelSearcher(args.hash, threads=count) for count in args.threads]
    try:
        for searcher in searchers:
            for _ in range(args.warmup):
                timed_search(searcher, positions[0], min(args.depth, 6))
        print("Time to depth %d, %s; Hash %d MB, median of %d, %d CPUs"
              % (args.depth, sys.implementation.name, args.hash, args.repeat, os.cpu_count() or 0))
        header = "%3s  " % "#" + "  ".join("%9s %10s" % ("T=%d s" % count, "nodes") for count in args.threads)
        header += "".join("  %7s" % ("x T=%d" % count) for count in args.threads[1:])
        print(header)
        totals = [0.0] * len(searchers)
        node_totals = [0] * len(searchers)
        ratios = [[] for _ in searchers[1:]]
        for number, fen in enumerate(positions, 1):
            cells = []
            for column, searcher in enumerate(searchers):
                runs = [timed_search(searcher, fen, args.depth) for _ in range(args.repeat)]
                seconds = statistics.median(run[0] for run in runs)
                nodes = int(statistics.median(run[1] for run in runs))
                totals[column] += seconds
                node_totals[column] += nodes
                cells.append((seconds, nodes))
            line = "%3d  " % number + "  ".join("%9.3f %10d" % cell for cell in cells)
            for column in range(1, len(cells)):
                ratio = cells[0][0] / max(cells[column][0], 1e-9)
                ratios[column - 1].append(ratio)
                line += "  %7.2f" % ratio
            print(line, flush=True)
        line = "all  " + "  ".join("%9.3f %10d" % cell for cell in zip(totals, node_totals))
        line += "".join("  %7.2f" % (totals[0] / max(total, 1e-9)) for total in totals[1:])
        print(line)
        for column, count in enumerate(args.threads[1:], 1):
            geomean = math.exp(sum(math.log(r) for r in ratios[column - 1]) / len(positions))
            print("T=%d vs T=%d: total time x%.2f, geometric mean of per-position speed-ups x%.2f"
                  % (count, args.threads[0], totals[0] / max(totals[column], 1e-9), geomean))
    finally:
        for searcher in searchers:
            searcher.close()
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
