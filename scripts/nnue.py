#!/usr/bin/env python3
"""The learned evaluation's lab: make training data, train a net, check it.

    python3 scripts/nnue.py gen --out DIR --games 40000 --jobs 2      # self-play data
    python3 scripts/nnue.py stats DIR                                  # what a run holds

Run ``gen`` under PyPy for speed (Pruner plays the games; Stockfish labels them).
docs/nnue.md says how the shipped net was made.
"""

import argparse
import multiprocessing
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BOOK = os.path.join(HERE, "books", "noob_3moves_5000.epd")


def _stockfish() -> str:
    found = shutil.which("stockfish") or ("/usr/games/stockfish" if os.path.exists("/usr/games/stockfish") else None)
    return found or "stockfish"


def _gen_worker(args) -> None:
    from nnuelib.datagen import run_worker
    directory, settings, worker, book, stockfish, games = args
    run_worker(directory, settings, worker, book, stockfish, games, report=sys.stderr)


def cmd_gen(options) -> int:
    from nnuelib.datagen import Settings, SettingsMismatch, prepare_run
    settings = Settings(seed=options.seed, nodes=options.nodes, teacher=options.teacher, jobs=options.jobs,
                        book=os.path.basename(options.book))
    try:
        prepare_run(options.out, settings)
    except SettingsMismatch as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    start = time.monotonic()
    work = [(options.out, settings, k, options.book, options.stockfish, options.games) for k in range(options.jobs)]
    if options.jobs == 1:
        _gen_worker(work[0])
    else:
        with multiprocessing.Pool(options.jobs) as pool:
            pool.map(_gen_worker, work)
    print("done in %.0f s" % (time.monotonic() - start), file=sys.stderr)
    return cmd_stats(options)


def cmd_stats(options) -> int:
    from nnuelib.dataset import run_stats
    directory = getattr(options, "out", None) or options.directory
    for line in run_stats(directory):
        print(line)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("gen", help="self-play training data (resumable)", allow_abbrev=False)
    gen.add_argument("--out", required=True, help="the run's directory (made, or resumed)")
    gen.add_argument("--games", type=int, default=None, help="stop after this many games in all (default: until killed)")
    gen.add_argument("--jobs", type=int, default=1)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--nodes", type=int, default=1000, help="Pruner's nodes per move in the games")
    gen.add_argument("--teacher", default="stockfish:8", help="stockfish:<depth> or pruner:<depth>")
    gen.add_argument("--book", default=DEFAULT_BOOK)
    gen.add_argument("--stockfish", default=_stockfish())
    gen.set_defaults(run=cmd_gen)
    stats = sub.add_parser("stats", help="positions, games and duplicates of a run", allow_abbrev=False)
    stats.add_argument("directory")
    stats.set_defaults(run=cmd_stats)
    options = parser.parse_args(argv)
    return options.run(options)


if __name__ == "__main__":
    sys.exit(main())
