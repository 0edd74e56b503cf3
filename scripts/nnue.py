#!/usr/bin/env python3
"""The learned evaluation's lab: make training data, train a net, check it.

    python3 scripts/nnue.py gen --out DIR --games 40000 --jobs 2      # self-play data
    python3 scripts/nnue.py stats DIR                                  # what a run holds
    python3 scripts/nnue.py prepare DIR [DIR ...] -o data.npz          # features, deduplicated
    python3 scripts/nnue.py train data.npz -o engine/pruner.nnue      # numpy: pip install '.[nnue]'

Run ``gen`` under PyPy for speed (Pruner plays the games; Stockfish labels them).
docs/nnue.md says how the shipped net was made. ``gen``, ``games`` and ``relabel`` append to
their ``--out`` directory and lock it for the run: a second run on it is refused at once with
status 75 (``pruner.output_files.locked``).
"""

import argparse
import multiprocessing
import os
import shutil
import sys
import time

# One BLAS thread: a multi-threaded sum can add in another order from run to run, and the
# trainer promises the same net bit for bit from the same seed (set before numpy loads).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BOOK = os.path.join(HERE, "books", "noob_3moves_5000.epd")


def _stockfish() -> str:
    found = shutil.which("stockfish") or ("/usr/games/stockfish" if os.path.exists("/usr/games/stockfish") else None)
    return found or "stockfish"


def _appending(run):
    """``run(options)`` with its ``--out`` directory locked (made first: its folder holds the
    lock): a second run appending to it would splice its lines into this one's shards."""
    def locked_run(options) -> int:
        from pruner.output_files import EXIT_BUSY, OutputBusy, locked
        os.makedirs(options.out, exist_ok=True)
        try:
            with locked([("--out", options.out)]):
                return run(options)
        except OutputBusy as exc:
            print("error: %s" % exc, file=sys.stderr)
            return EXIT_BUSY
    return locked_run


def _gen_worker(args) -> None:
    from pruner.lab.nnuelib.datagen import run_worker
    directory, settings, worker, book, stockfish, games = args
    run_worker(directory, settings, worker, book, stockfish, games, report=sys.stderr)


def cmd_gen(options) -> int:
    from pruner.lab.nnuelib.datagen import Settings, SettingsMismatch, prepare_run
    settings = Settings(seed=options.seed, nodes=options.nodes, teacher=options.teacher, jobs=options.jobs,
                        book=os.path.basename(options.book), children=options.children)
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


def _relabel_worker(args) -> int:
    from pruner.lab.nnuelib.datagen import relabel_shard
    source, target, teacher, stockfish, limit = args
    return relabel_shard(source, target, teacher, stockfish, limit, report=sys.stderr)


def cmd_relabel(options) -> int:
    import json
    from pruner.lab.nnuelib.dataset import shard_paths
    os.makedirs(options.out, exist_ok=True)
    with open(os.path.join(options.source, "meta.json")) as handle:
        meta = json.load(handle)
    meta["teacher"] = options.teacher
    meta["relabelled_from"] = os.path.basename(os.path.normpath(options.source))
    with open(os.path.join(options.out, "meta.json"), "w") as handle:
        json.dump(meta, handle, indent=1)
    shards = shard_paths(options.source)
    limit = options.limit // len(shards) if options.limit else None
    work = [(path, os.path.join(options.out, os.path.basename(path)), options.teacher, options.stockfish, limit)
            for path in shards]
    with multiprocessing.Pool(options.jobs) as pool:
        made = pool.map(_relabel_worker, work)
    print("%d positions relabelled by %s" % (sum(made), options.teacher))
    return 0


def cmd_games(options) -> int:
    from pruner.lab.nnuelib.datagen import import_games
    made = import_games(options.pgn, options.out, options.teacher, options.stockfish, report=sys.stderr)
    print("%d positions from %s" % (made, ", ".join(options.pgn)))
    return 0


def cmd_stats(options) -> int:
    from pruner.lab.nnuelib.dataset import run_stats
    directory = getattr(options, "out", None) or options.directory
    for line in run_stats(directory):
        print(line)
    return 0


def cmd_prepare(options) -> int:
    from pruner.lab.nnuelib import train
    prepared = train.prepare(options.directories, mirror=not options.no_mirror,
                             progress=lambda line: print(line, file=sys.stderr))
    prepared.save(options.output)
    print("%d positions from %d games -> %s" % (len(prepared), len(set(prepared.game.tolist())), options.output))
    return 0


def cmd_train(options) -> int:
    from pruner.engine import nnue
    from pruner.lab.nnuelib import train
    settings = train.TrainSettings(hidden=options.hidden, epochs=options.epochs, batch=options.batch, lr=options.lr,
                                   lam=options.lam, residual=not options.replace, seed=options.seed,
                                   weight_decay=options.weight_decay, holdout=options.holdout)
    data = train.Prepared.load(options.data)
    if options.limit:
        data = data.subset(slice(0, options.limit))
    if options.teacher_scale == 0:
        settings.teacher_scale = train.fit_teacher_scale(data, settings.k)
        print("teacher scale fitted: %.2f" % settings.teacher_scale)
    else:
        settings.teacher_scale = options.teacher_scale
    print("settings: %s" % train.describe_settings(settings))
    start = None
    if options.init:
        try:
            start = nnue.load(options.init)
        except nnue.NetError as error:
            print("nnue.py train: --init: %s" % error, file=sys.stderr)
            return 2
        print("starting from %s (sha256 %s)" % (options.init, start.sha256))
    try:
        model = train.train(data, settings, report=lambda line: print(line, flush=True), start=start)
    except ValueError as error:
        print("nnue.py train: --init %s: %s" % (options.init, error), file=sys.stderr)
        return 2
    net = model.to_net()
    with open(options.output + ".tmp", "wb") as handle:
        handle.write(net.to_bytes())
    os.replace(options.output + ".tmp", options.output)
    error = train.quantisation_error(model, net, data)
    print("wrote %s (%d bytes, crc %s); integer net vs float net: %.2f cp mean absolute difference"
          % (options.output, os.path.getsize(options.output), train.checksum(options.output), error))
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
    gen.add_argument("--children", type=int, default=8,
                     help="also keep the positions after the teacher's N best moves (0: none)")
    gen.add_argument("--book", default=DEFAULT_BOOK)
    gen.add_argument("--stockfish", default=_stockfish())
    gen.set_defaults(run=_appending(cmd_gen))
    relabel = sub.add_parser("relabel", help="the same games scored by another teacher", allow_abbrev=False)
    relabel.add_argument("source", help="a run directory")
    relabel.add_argument("--out", required=True)
    relabel.add_argument("--teacher", required=True, help="stockfish:<depth> or pruner:<depth>")
    relabel.add_argument("--limit", type=int, default=0, help="about this many positions (0: all)")
    relabel.add_argument("--jobs", type=int, default=1)
    relabel.add_argument("--stockfish", default=_stockfish())
    relabel.set_defaults(run=_appending(cmd_relabel))
    games = sub.add_parser("games", help="positions of finished PGN games, labelled by a teacher", allow_abbrev=False)
    games.add_argument("pgn", nargs="+", help="PGN files (.pgn or .pgn.gz)")
    games.add_argument("--out", required=True, help="the run's directory (made, or resumed)")
    games.add_argument("--teacher", default="stockfish:8")
    games.add_argument("--stockfish", default=_stockfish())
    games.set_defaults(run=_appending(cmd_games))
    stats = sub.add_parser("stats", help="positions, games and duplicates of a run", allow_abbrev=False)
    stats.add_argument("directory")
    stats.set_defaults(run=cmd_stats)
    prep = sub.add_parser("prepare", help="a run's positions as training arrays (.npz)", allow_abbrev=False)
    prep.add_argument("directories", nargs="+")
    prep.add_argument("-o", "--output", required=True)
    prep.add_argument("--no-mirror", action="store_true",
                      help="no left-right mirrored copies of positions without castling rights")
    prep.set_defaults(run=cmd_prepare)
    tr = sub.add_parser("train", help="train a net on prepared arrays", allow_abbrev=False)
    tr.add_argument("data", help="a .npz from `prepare`")
    tr.add_argument("-o", "--output", required=True, help="the net file to write")
    tr.add_argument("--hidden", type=int, default=64)
    tr.add_argument("--epochs", type=int, default=16)
    tr.add_argument("--batch", type=int, default=8192)
    tr.add_argument("--lr", type=float, default=2e-3)
    tr.add_argument("--lam", type=float, default=1.0, help="the teacher's share of the label")
    tr.add_argument("--replace", action="store_true", help="the net replaces the classical evaluation")
    tr.add_argument("--teacher-scale", type=float, default=0.0,
                    help="divide the teacher's scores by this (0: fit it to the classical evaluation)")
    tr.add_argument("--seed", type=int, default=1)
    tr.add_argument("--holdout", type=int, default=50, help="hold out one game in this many")
    tr.add_argument("--weight-decay", type=float, default=3.0, help="AdamW decay of W1 and W2")
    tr.add_argument("--limit", type=int, default=0, help="use only the first N positions")
    tr.add_argument("--init", default="", metavar="NET",
                    help="start from this net file's weights (same kind; fewer hidden units: widened) instead of random ones")
    tr.set_defaults(run=cmd_train)
    options = parser.parse_args(argv)
    return options.run(options)


if __name__ == "__main__":
    from pruner.lab.matchlib.cli import warn_if_other_engine
    warn_if_other_engine("nnue.py")  # the games and the trainer's features are the imported engine's
    sys.exit(main())
