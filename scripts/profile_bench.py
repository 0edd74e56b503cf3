#!/usr/bin/env python3
"""Profile the bench under cProfile and print the functions that cost the most.

    python scripts/profile_bench.py [--depth N] [--top N] [--sort tottime|cumtime]

Run it before and after a hot-loop change: the bench is deterministic, so the same calls
are counted each time and only their cost moves.
"""

import argparse
import cProfile
import pstats
import sys

import matchlib  # noqa: E402,F401 - puts this checkout's root on sys.path (matchlib/__init__.py)

from engine import bench  # noqa: E402


def main(argv=None) -> int:
    """Parse arguments, profile ``engine.bench.run`` and print the top functions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=bench.DEFAULT_DEPTH, help="bench depth")
    parser.add_argument("--top", type=int, default=25, help="how many functions to list")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumtime", "ncalls"))
    args = parser.parse_args(argv)
    profiler = cProfile.Profile()
    result = profiler.runcall(bench.run, args.depth)
    print(f"Nodes searched: {result.nodes} (under the profiler: {result.nps} nodes/second)")
    pstats.Stats(profiler).strip_dirs().sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
