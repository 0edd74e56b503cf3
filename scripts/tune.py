#!/usr/bin/env python3
"""Texel tuning of Pruner's evaluation: self-play games, labelled quiet positions, a logistic fit.

    python3 scripts/tune.py gen --games 200 --nodes 3000 -o selfplay.pgn
    python3 scripts/tune.py extract selfplay.pgn -o positions.csv
    python3 scripts/tune.py fit positions.csv -o tuned.json --holdout 5 --patience 5 --iterations 100
    python3 scripts/tune.py write tuned.json -o engine/weights.py     # or --diff

``gen`` plays Pruner against itself at a fixed node count with scripts/match.py; ``extract``
keeps the quiet positions after the opening, each labelled with its game's result; ``fit``
finds the scale K of sigmoid(K * eval) for the current weights, then the weights that
minimise the mean squared error against the results; ``write`` turns the fitted vector into
a module shaped as engine/weights.py. See docs/tuning.md.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
from typing import List, Optional

from pruner.engine.cpus import usable_cpus
from pruner.arguments import ArgumentParser
from pruner.signals import is_ignored

MATCH_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "match.py")


def run_match(argv: List[str]) -> int:
    """scripts/match.py with ``argv``, run as the program it is (a script runs another, it does
    not import it) on this Python: its exit status. The match has a process group of its own and
    a Ctrl-C, SIGTERM or SIGHUP given to tune.py is passed on to it once, so it stops its games
    and ends as a match does, and tune.py then reports what the PGN holds (a signal ignored here,
    as a shell ignores SIGINT for a command it starts in the background, or ``nohup`` SIGHUP,
    stays ignored). In its own session the match sees no hangup of tune.py's terminal itself."""
    child = subprocess.Popen([sys.executable, MATCH_SCRIPT] + argv, start_new_session=True)

    def pass_on(signum: int, frame: object) -> None:
        child.send_signal(signum)

    passed = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {number: signal.signal(number, pass_on) for number in passed
                if not is_ignored(number)}
    try:
        return child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _gen(args: argparse.Namespace) -> int:
    from pruner.lab.tunelib import gen
    argv = gen.match_argv(args.output, args.games, args.nodes, args.engine, args.jobs, args.seed,
                          args.openings, args.dir, args.resume)
    print(gen.describe(argv), flush=True)
    start = time.monotonic()
    status = run_match(argv)
    print("gen: %d of %d games in the PGN after %.0f s -> %s"
          % (gen.count_games(args.output), args.games, time.monotonic() - start, args.output))
    return status


def _extract(args: argparse.Namespace) -> int:
    from pruner.lab.tunelib import extract
    start = time.monotonic()
    stats = extract.extract_files(args.pgn, args.output, skip_plies=args.skip_plies,
                                  max_ply=args.max_ply)
    print(stats.summary())
    print("extract: %.0f s -> %s" % (time.monotonic() - start, args.output))
    return 0


def _fit(args: argparse.Namespace) -> int:
    from pruner.lab.tunelib import fit
    start = time.monotonic()
    result = fit.fit_file(args.positions, iterations=args.iterations, seed=args.seed, step=args.step,
                          k=args.k, groups=args.groups, holdout=args.holdout, report=print, l2=args.l2,
                          patience=args.patience, method=args.method, rate=args.rate,
                          score_weight=args.score_weight)
    fit.save(result, args.output)
    print("fit: %.0f s -> %s" % (time.monotonic() - start, args.output))
    return 0


def _write(args: argparse.Namespace) -> int:
    from pruner.lab.tunelib import writer
    return writer.main(args.tuned, args.output, args.diff)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``tune.py``: one subparser per step."""
    parser = ArgumentParser(prog="tune.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    gen = commands.add_parser("gen", help="self-play games at a fixed node count (scripts/match.py)")
    gen.add_argument("-o", "--output", required=True, metavar="FILE.pgn", help="PGN file to write")
    gen.add_argument("--games", type=int, default=200, help="number of games (even)")
    gen.add_argument("--nodes", type=int, default=3000, help="nodes per move")
    gen.add_argument("--engine", default="python3 -m pruner",
                     help="engine command for both sides (e.g. a PyPy: '/path/pypy -m pruner')")
    gen.add_argument("--dir", metavar="DIR", help="working directory of the engines (a frozen checkout)")
    gen.add_argument("--jobs", type=int, default=usable_cpus(), help="games at a time")
    gen.add_argument("--seed", type=int, default=24, help="seed of the opening order")
    gen.add_argument("--openings", metavar="FILE", help="opening book (default: match.py's)")
    gen.add_argument("--resume", action="store_true",
                     help="go on with a run that stopped (the same command): the PGN's finished pairs stay")
    gen.set_defaults(run=_gen)

    extract = commands.add_parser("extract", help="labelled quiet positions from PGN games")
    extract.add_argument("pgn", nargs="+", help="PGN files (.pgn or .pgn.gz)")
    extract.add_argument("-o", "--output", required=True, metavar="FILE.csv", help="positions to write")
    extract.add_argument("--skip-plies", type=int, default=16, metavar="N",
                         help="leave out the first N plies of each game (book and opening)")
    extract.add_argument("--max-ply", type=int, default=400, metavar="N", help="leave out plies from N on")
    extract.set_defaults(run=_extract)

    fit = commands.add_parser("fit", help="fit K, then the weights (mean squared error of sigmoid(K*eval))")
    fit.add_argument("positions", help="the CSV of extract")
    fit.add_argument("-o", "--output", required=True, metavar="FILE.json", help="fitted weights and figures")
    fit.add_argument("--method", choices=("coordinate", "gradient"), default="coordinate",
                     help="coordinate: one weight at a time by whole centipawns (Texel's); "
                          "gradient: all weights at once by Adam, rounded at the end")
    fit.add_argument("--iterations", type=int, default=3,
                     help="passes of coordinate descent over the weights, or epochs of the gradient method")
    fit.add_argument("--rate", type=float, default=1.0, help="the gradient method's step size (centipawns)")
    fit.add_argument("--score-weight", type=float, default=0.0, metavar="W",
                     help="fit to (1-W) x result + W x sigmoid(K x search score) (extract's score column); "
                          "the held-out error stays against results")
    fit.add_argument("--seed", type=int, default=1, help="seed of the order the weights are tried in")
    fit.add_argument("--step", type=int, default=1, help="first step size in centipawns")
    fit.add_argument("--k", type=float, help="use this K instead of fitting it")
    fit.add_argument("--groups", default="all",
                     help="which weights to tune: all, or a comma list of material, pst, pawns, pieces, tempo, "
                          "candidates (= candidate_pawns + candidate_pieces)")
    fit.add_argument("--holdout", type=int, default=10, metavar="N",
                     help="measure, not fit, the positions of every N-th game (0: fit them all)")
    fit.add_argument("--l2", type=float, default=0.0, metavar="LAMBDA",
                     help="add LAMBDA x the sum of squared moves from the current weights to the error")
    fit.add_argument("--patience", type=int, default=0, metavar="N",
                     help="stop when N passes in a row did not lower the held-out error; keep the best pass's weights")
    fit.set_defaults(run=_fit)

    write = commands.add_parser("write", help="a weights module from the fit's output")
    write.add_argument("tuned", help="the JSON of fit")
    write.add_argument("-o", "--output", metavar="FILE.py", help="module to write (default: stdout)")
    write.add_argument("--diff", action="store_true", help="print the changed weights instead")
    write.set_defaults(run=_write)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run one subcommand; its exit status (2, with the reason on stderr, for an input it
    cannot read: a missing file, a CSV or JSON that is not the step's)."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (OSError, ValueError) as error:  # json.JSONDecodeError is a ValueError
        print("tune.py %s: error: %s" % (args.command, error), file=sys.stderr)
        return 2


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
