#!/usr/bin/env python3
"""Run an EPD test suite (bm / am / dm / STS c0 points) against a UCI engine.

    python scripts/suite.py tests/data/epd/wac.epd --movetime 100 --verbose
    python scripts/suite.py tests/data/epd/bk.epd --engine /usr/games/stockfish --depth 12

Default engine: Pruner (``pruner``).  The last line reads ``solved X/Y`` (plus
``points P/Q`` for STS-style files).  See docs/suite.md.
"""

import argparse
import logging
import sys
from typing import List, Optional, Tuple

import chess.engine

from pruner.engine.cpus import usable_cpus
from pruner.arguments import ArgumentParser

from pruner.lab.matchlib.args import checked, positive_int, positive_ms, positive_seconds
from pruner.lab.matchlib.engines import EngineStartError, parse_engine_spec, this_pruner
from pruner.lab.matchlib.epdsuite import SolveResult, load_suite, run_suite


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``suite.py``."""
    parser = ArgumentParser(
        prog="suite.py",
        description="Run an EPD test suite against a UCI engine. A position is solved when the engine's "
                    "move is one of the 'bm' moves and none of the 'am' moves, and with 'dm N' its last score "
                    "is exactly 'mate N'; STS-style 'c0' points are summed when present. Time to solution is "
                    "when the PV move last became correct.",
        epilog="Engine commands accept leading cwd=DIR, name=NAME and VAR=value words like match.py. "
               "Exit status: 0 done, 2 a bad argument, a file without positions or an engine that could not "
               "be started. See docs/suite.md.")
    parser.add_argument("epd", help="EPD file (bm/am/id/c0 opcodes)")
    parser.add_argument("--engine", default=this_pruner(), metavar="CMD",
                        help="engine command (default: Pruner from this checkout, run as `pruner` runs)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="UCI option (repeatable), e.g. Hash=64")
    parser.add_argument("--dir", metavar="DIR", help="working directory of the engine")
    parser.add_argument("--env", action="append", default=[], metavar="VAR=VALUE",
                        help="environment variable for the engine (repeatable)")
    limit = parser.add_mutually_exclusive_group(required=True)
    limit.add_argument("--movetime", action=checked(positive_ms), metavar="MS", help="milliseconds per position")
    limit.add_argument("--time", action=checked(positive_seconds), metavar="S",
                       help="seconds per position (the old spelling of --movetime)")
    limit.add_argument("--depth", action=checked(positive_int), metavar="N", help="search depth per position")
    limit.add_argument("--nodes", action=checked(positive_int), metavar="N", help="nodes per position")
    parser.add_argument("--jobs", "--concurrency", dest="jobs", action=checked(positive_int), default=usable_cpus(),
                        metavar="N", help="engine processes solving positions in parallel (default: %(default)s; "
                                          "--concurrency as in match.py and soak.py)")
    parser.add_argument("--mate-depth", action="store_true",
                        help="search each 'dm N' position to depth 2N+2 (the other positions use the limit)")
    parser.add_argument("--first", action=checked(positive_int), metavar="N", help="run only the first N positions")
    parser.add_argument("--verbose", "-v", action="store_true", help="print one line per position")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="kill the engine when a position takes longer (default: time + 10 s, "
                             "or 120 s with --depth/--nodes)")
    parser.add_argument("--start-timeout", type=float, default=10.0, metavar="S",
                        help="seconds the engine has to answer 'uci' (default: %(default)s)")
    parser.add_argument("--chess960", action="store_true", help="read positions as Chess960")
    parser.add_argument("--debug", action="store_true", help="log all UCI traffic to stderr")
    return parser


def result_line(result: SolveResult) -> str:
    """``   3 WAC.003      bm Rg3              Rg3       ok    0.052s d9``"""
    position = result.position
    if result.error:
        played, status = "-", "ERROR " + result.error
    else:
        played = position.board.san(result.move) if result.move else "-"
        status = "ok" if result.solved else "--"
        if result.solved and result.time_to_solution is not None:
            status += "  %7.3fs" % result.time_to_solution
            if result.depth_at_solution is not None:
                status += " d%d" % result.depth_at_solution
        if position.points:
            status += "  %d/%d pts" % (result.points, position.max_points)
    return "%4d %-14s %-22s %-8s %s" % (position.number, position.id[:14], position.expected()[:22], played, status)


def position_limit(args: argparse.Namespace) -> Tuple[chess.engine.Limit, str, float]:
    """The limit per position (``--movetime`` is in milliseconds), how it reads in the header,
    and the timeout after which the engine is killed."""
    seconds = args.movetime / 1000.0 if args.movetime is not None else args.time
    if seconds is not None:
        return chess.engine.Limit(time=seconds), "%gs" % seconds, args.timeout or seconds + 10.0
    text = "depth %d" % args.depth if args.depth is not None else "%d nodes" % args.nodes
    return chess.engine.Limit(depth=args.depth, nodes=args.nodes), text, args.timeout or 120.0


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``suite.py``: solve the suite and print a line per position and the totals; the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.ERROR,
                        format="%(asctime)s %(threadName)s %(name)s: %(message)s")

    def report(message: str) -> None:
        sys.stderr.write("suite: %s\n" % message)

    try:
        positions = load_suite(args.epd, chess960=args.chess960, report=report)
        spec = parse_engine_spec(args.engine, cwd=args.dir, options=args.option, env=args.env)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
        return 2
    if not positions:
        parser.error("%s: no positions to solve (an EPD line needs a legal position and bm, am, dm or c0)"
                     % args.epd)
    if args.first is not None:
        positions = positions[:args.first]
    limit, limit_text, timeout = position_limit(args)
    print("Suite: %s, %d positions, %s per position, engine %s, %d jobs"
          % (args.epd, len(positions), limit_text, spec.describe(), min(args.jobs, len(positions))), flush=True)

    def on_result(result: SolveResult) -> None:
        if args.verbose:
            print(result_line(result), flush=True)

    try:
        results = run_suite(positions, spec, limit, args.jobs, timeout, on_result,
                            start_timeout=args.start_timeout, chess960=args.chess960,
                            mate_depth=args.mate_depth)
    except EngineStartError as exc:
        print("Engine failed to start: %s" % exc, flush=True)
        print("solved 0/%d" % len(positions))
        return 2
    except KeyboardInterrupt:
        print("Interrupted", flush=True)
        return 130

    solved = [r for r in results if r.solved]
    unsolved = [r for r in results if not r.solved and not r.error]
    errors = [r for r in results if r.error]
    times = [r.time_to_solution for r in solved if r.time_to_solution is not None]
    if times:
        print("Time to solution: mean %.3fs, max %.3fs (over %d solved)" % (sum(times) / len(times), max(times), len(times)))
    if unsolved:
        print("Unsolved: %s" % " ".join(r.position.id for r in unsolved))
    if errors:
        print("Errors: %d" % len(errors))
        for result in errors:
            print("  %s: %s" % (result.position.id, result.error))
    line = "solved %d/%d" % (len(solved), len(positions))
    if any(p.points for p in positions):
        line += "  points %d/%d" % (sum(r.points for r in results), sum(p.max_points for p in positions))
    print(line, flush=True)
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
