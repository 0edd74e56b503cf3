#!/usr/bin/env python3
"""Profile the bench and print the functions that cost the most.

    python3 scripts/profile_bench.py [--depth N] [--top N] [--sort tottime|cumtime|ncalls]
    PYPY_GC_NURSERY=4M pypy3 scripts/profile_bench.py --vmprof [--depth N] [--top N]

Without ``--vmprof``: cProfile, which counts every call (exact call counts, but on PyPy it
stops the JIT from compiling the search the way it runs, so its times mean little there).
With ``--vmprof`` (the ``profile`` extra: ``pip install '.[profile]'``, on PyPy): vmprof's
statistical sampler, which leaves the JIT at work, so the shares are those of the real search;
it prints each function's share of the samples spent in it (self) and under it (total).
Run it before and after a hot-loop change: the bench is deterministic, so the same work is
done each time and only its cost moves.
"""

import cProfile
import os
import pstats
import sys
import tempfile
from collections import Counter

from pruner.engine import bench
from pruner.engine.search import SearchParams
from pruner.arguments import ArgumentParser


def vmprof_profile(depth: int, top: int, params: SearchParams) -> int:
    """Run the bench under vmprof and print the top functions by self samples."""
    try:
        import vmprof  # type: ignore[import-not-found]
    except ImportError:
        print("profile_bench.py --vmprof: vmprof is not installed (pip install '.[profile]', on PyPy)",
              file=sys.stderr)
        return 2
    handle, path = tempfile.mkstemp(suffix=".vmprof")
    try:
        vmprof.enable(handle, period=0.001)
        result = bench.run(depth, params=params)
        vmprof.disable()
        os.close(handle)
        handle = -1
        stats = vmprof.read_profile(path)
    finally:
        if handle >= 0:
            os.close(handle)
        os.unlink(path)
    own, under = Counter(), Counter()

    def count(node, seen=()):
        # A node's ``count`` includes its children; a recursive function (negamax) is counted
        # once per sample in ``total``, however deep it recurses.
        name = short_name(node.name)
        own[name] += node.self_count
        if name not in seen:
            under[name] += node.count
            seen = seen + (name,)
        for child in node.children.values():
            count(child, seen)

    tree = stats.get_tree()
    count(tree)
    samples = tree.count or 1
    print("Nodes searched: %d (under vmprof: %d nodes/second); %d samples" % (result.nodes, result.nps, samples))
    print("%7s %7s  %s" % ("self %", "total %", "function"))
    for name, samples_in in own.most_common(top):
        print("%7.1f %7.1f  %s" % (100.0 * samples_in / samples, 100.0 * under[name] / samples, name))
    return 0


def short_name(name: str) -> str:
    """vmprof's ``py:negamax:590:/path/engine/search.py`` as ``negamax (search.py:590)``."""
    parts = name.split(":")
    if len(parts) >= 4 and parts[0] == "py":
        return "%s (%s:%s)" % (parts[1], os.path.basename(":".join(parts[3:])), parts[2])
    return name


def main(argv=None) -> int:
    """Parse arguments, profile ``pruner.engine.bench.run`` and print the top functions."""
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=bench.DEFAULT_DEPTH, help="bench depth")
    parser.add_argument("--top", type=int, default=25, help="how many functions to list")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumtime", "ncalls"))
    parser.add_argument("--vmprof", action="store_true", help="sample with vmprof (PyPy) instead of cProfile")
    parser.add_argument("--params", default="", metavar="NAME=VALUE,...",
                        help="search parameters as PRUNER_PARAMS takes them, e.g. evalfile=classical "
                             "(the bench itself always runs the engine's own)")
    args = parser.parse_args(argv)
    try:
        params = SearchParams.parse(args.params)
    except ValueError as exc:
        parser.error("--params: %s" % exc)
    if args.vmprof:
        return vmprof_profile(args.depth, args.top, params)
    profiler = cProfile.Profile()
    result = profiler.runcall(bench.run, args.depth, params=params)
    print(f"Nodes searched: {result.nodes} (under the profiler: {result.nps} nodes/second)")
    pstats.Stats(profiler).strip_dirs().sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
