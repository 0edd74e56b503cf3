#!/usr/bin/env python3
"""Engine-vs-engine matches between UCI engines, with runner-side clocks, SPRT and PGN output.

    python scripts/match.py --engine "stockfish" --option1 UCI_LimitStrength=true \\
        --option1 UCI_Elo=1350 --tc 10+0.1 --games 100 --sprt 0 10

With one --engine, Pruner (``pruner``) is engine 2.  Results are from engine 1's point of
view.  See docs/match.md.
"""

import argparse
import logging
import os
import random
import signal
import sys
from typing import List, Optional

import chess

from pruner.engine.cpus import usable_cpus
from pruner.arguments import ArgumentParser
from pruner.output_files import EXIT_BUSY, OutputBusy, locked, same_file_problem
from pruner.signals import is_ignored

from pruner.lab.matchlib.adjudication import AdjudicationRules
from pruner.lab.matchlib.args import checked, game_pairs, positive_int, positive_ms, time_control
from pruner.lab.matchlib.cluster import ClusterMatch, cluster_address
from pruner.lab.matchlib import jsonout
from pruner.lab.matchlib.engines import EngineSpec, parse_engine_spec, this_pruner
from pruner.lab.matchlib.fastchess import DEFAULT_EVERY as DEFAULT_REPORT_EVERY
from pruner.lab.matchlib.game import GameSettings
from pruner.lab.matchlib.openings import Opening, load_openings, pair_order
from pruner.lab.matchlib.plot import DEFAULT_EVERY, MatchPlot, check_path
from pruner.lab.matchlib.resume import resume
from pruner.lab.matchlib.runner import (EXIT_DONE, EXIT_H0, EXIT_INCONCLUSIVE, EXIT_INTERRUPTED, EXIT_START,
                             Match, MatchConfig)
from pruner.lab.matchlib.cluster import EXIT_UNAVAILABLE
from pruner.lab.matchlib.cli import EXIT_OUTPUT
from pruner.lab.matchlib.stats import MODELS, Sprt
from pruner.lab.matchlib.timecontrol import TimeControl

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that stop a match as Ctrl-C does (Windows has no SIGHUP)."""

BOOKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "books")
DEFAULT_BOOK = os.path.join(BOOKS, "noob_3moves_5000.epd")
DEFAULT_960_BOOK = os.path.join(BOOKS, "chess960_starts.epd")
START_POSITION = "startpos"
"""``--openings startpos``: every game from the start position (say so to mean it)."""
START_POSITION_TEXT = "start position"
DEFAULT_OPPONENT = this_pruner()
"""Engine 2 with one --engine: Pruner from this checkout, on this Python (moved onto PyPy as
``pruner`` is), so the venv need not be on the PATH."""


class _HelpFormatter(argparse.HelpFormatter):
    """Shows a default only when there is one worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default not in (None, False, [], argparse.SUPPRESS) and "%(default)" not in text \
                and action.option_strings and action.nargs != 0:
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``match.py``; its checks refuse bad limits as the arguments are read."""
    parser = ArgumentParser(
        prog="match.py",
        description="Play a match between two UCI engines. Each opening is played twice with colours "
                    "reversed; results, Elo and SPRT are from engine 1's point of view (the first --engine, "
                    "the engine under test). The last line of output is the final result.",
        epilog="Engine commands: leading words cwd=DIR, name=NAME and VAR=value (environment) are taken by "
               "the runner, the rest is the command, e.g. --engine \"cwd=/tmp/base python -m protocol\". "
               "Exit status: %d done (with --sprt: H1 accepted), %d H0 accepted, %d SPRT inconclusive "
               "(the games ran out), %d an engine could not be started (or a usage error), %d the --cluster "
               "cannot be used, %d an output could not be written, %d another match is writing an output, %d "
               "interrupted (Ctrl-C, SIGTERM or SIGHUP); faults never change it. See docs/match.md."
               % (EXIT_DONE, EXIT_H0, EXIT_INCONCLUSIVE, EXIT_START, EXIT_UNAVAILABLE, EXIT_OUTPUT, EXIT_BUSY,
                  EXIT_INTERRUPTED),
        formatter_class=_HelpFormatter)

    engines = parser.add_argument_group("engines")
    engines.add_argument("--engine", action="append", metavar="CMD", required=True,
                         help="engine command; give it twice for engine 1 and engine 2, once to play against "
                              "Pruner from this checkout (this Python -m pruner, on PyPy when installed, as "
                              "`pruner` runs)")
    engines.add_argument("--name1", help="name of engine 1 in output and PGN (default: its 'id name')")
    engines.add_argument("--name2", help="name of engine 2")
    engines.add_argument("--dir1", metavar="DIR", help="working directory of engine 1 (e.g. a git worktree)")
    engines.add_argument("--dir2", metavar="DIR", help="working directory of engine 2")
    engines.add_argument("--option1", action="append", default=[], metavar="NAME=VALUE",
                         help="UCI option for engine 1 (repeatable), e.g. Hash=16")
    engines.add_argument("--option2", action="append", default=[], metavar="NAME=VALUE",
                         help="UCI option for engine 2 (repeatable)")
    engines.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                         help="UCI option for both engines (repeatable)")
    engines.add_argument("--env1", action="append", default=[], metavar="VAR=VALUE",
                         help="environment variable for engine 1 (repeatable), e.g. PYTHONPATH=/tmp/base")
    engines.add_argument("--env2", action="append", default=[], metavar="VAR=VALUE",
                         help="environment variable for engine 2 (repeatable)")
    engines.add_argument("--start-timeout", type=float, default=10.0, metavar="S",
                         help="seconds an engine has to answer 'uci' and 'isready'")

    limits = parser.add_argument_group("time control (give one)")
    clock = limits.add_mutually_exclusive_group()
    clock.add_argument("--tc", action=checked(time_control), metavar="BASE+INC",
                       help="clock per side in seconds plus increment, e.g. 10+0.1, 1+0.01, 60, 1:00+1")
    clock.add_argument("--movetime", action=checked(positive_ms), metavar="MS",
                       help="fixed time per move in milliseconds")
    limits.add_argument("--depth", action=checked(positive_int), metavar="N", help="fixed search depth per move")
    limits.add_argument("--nodes", action=checked(positive_int), metavar="N", help="fixed node count per move")
    limits.add_argument("--margin", type=float, default=100.0, metavar="MS",
                        help="milliseconds an engine may overrun its clock or move time before losing on time")
    limits.add_argument("--move-timeout", type=float, default=60.0, metavar="S",
                        help="with --depth/--nodes only: a move taking longer is a loss on time")

    games = parser.add_argument_group("games and openings")
    games.add_argument("--games", action=checked(game_pairs), default=2, metavar="N",
                       help="number of games: pairs of two with reversed colours, so an even number")
    games.add_argument("--jobs", "--concurrency", dest="concurrency", action=checked(positive_int),
                       default=usable_cpus(), metavar="N",
                       help="games played at the same time (with --cluster: one pair per worker thread)")
    games.add_argument("--cluster", metavar="ADDRESS", type=cluster_address,
                       help="play the games on a Dask cluster: a scheduler address (tcp://host:8786) or "
                            "local:N (N local worker processes); needs pip install 'pruner-chess[cluster]'. "
                            "See docs/cluster.md")
    games.add_argument("--openings", metavar="FILE",
                       help="EPD/FEN or PGN (*.pgn) openings, or 'startpos' to play every game from the start "
                            "position (default: %s, or %s with --chess960; a missing book is an error)"
                            % (DEFAULT_BOOK, DEFAULT_960_BOOK))
    games.add_argument("--book-plies", type=int, metavar="N", help="PGN openings: play at most N plies of each")
    order = games.add_mutually_exclusive_group()
    order.add_argument("--random", dest="random_order", action="store_true", default=True,
                       help="openings in seeded random order (the default)")
    order.add_argument("--sequential", dest="random_order", action="store_false",
                       help="openings in file order (from --opening-start)")
    games.add_argument("--seed", type=int, metavar="N", help="seed of the random order (default: random, printed)")
    games.add_argument("--opening-start", type=int, default=0, metavar="I",
                       help="with --sequential: 0-based index of the first opening")
    games.add_argument("--chess960", action="store_true",
                       help="Chess960: engines get UCI_Chess960, openings are read as Chess960 positions")

    adjudication = parser.add_argument_group("adjudication (draws by the rules are always applied)")
    adjudication.add_argument("--max-moves", type=int, metavar="N",
                              help="draw after N full moves played by the engines")
    adjudication.add_argument("--resign-score", type=int, metavar="CP",
                              help="resign when the loser's score <= -CP and the winner's >= CP ...")
    adjudication.add_argument("--resign-moves", type=int, default=3, metavar="N",
                              help="... for N consecutive moves of each engine")
    adjudication.add_argument("--draw-score", type=int, metavar="CP",
                              help="draw when both engines' |score| <= CP ...")
    adjudication.add_argument("--draw-moves", type=int, default=8, metavar="N",
                              help="... for N consecutive moves of each engine ...")
    adjudication.add_argument("--draw-after", type=int, default=40, metavar="MOVE",
                              help="... counted from this full-move number on")

    sprt = parser.add_argument_group("SPRT")
    sprt.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                      help="test H0: elo=ELO0 against H1: elo=ELO1; the match stops when a bound is crossed")
    sprt.add_argument("--alpha", type=float, default=0.05, help="SPRT false positive rate")
    sprt.add_argument("--beta", type=float, default=0.05, help="SPRT false negative rate")
    sprt.add_argument("--sprt-model", choices=MODELS, default="logistic",
                      help="Elo model of ELO0/ELO1: plain logistic Elo, or fishtest's normalized Elo")

    output = parser.add_argument_group("output")
    output.add_argument("--pgn", metavar="FILE", help="write every game to this PGN file (default: no PGN)")
    output.add_argument("--pgn-append", action="store_true", help="append to the PGN file instead of replacing it")
    output.add_argument("--resume", action="store_true",
                        help="go on with the stopped match whose --pgn FILE this is: its finished pairs count (SPRT "
                             "included) and are not played again; the same command otherwise (docs/match.md)")
    output.add_argument("--event", default="Pruner match", help="PGN Event tag")
    output.add_argument("--site", default="?", help="PGN Site tag ('?' is the PGN standard's 'unknown')")
    output.add_argument("--json", metavar="FILE", help="write the final numbers (W/D/L, Elo and interval, nElo, LOS, "
                        "pentanomial, SPRT and its decision, faults, exit status) as JSON to this file")
    output.add_argument("--report-every", type=int, default=DEFAULT_REPORT_EVERY, metavar="N",
                        help="print fastchess's result block after every N-th opening pair, as fastchess's "
                             "-ratinginterval does (0: only at the end, where it is always printed)")
    output.add_argument("--debug", action="store_true", help="log all UCI traffic (python-chess debug log) to stderr")
    output.add_argument("--plot", metavar="FILE.png", help="draw Elo ± 95%% and the SPRT's LLR against games "
                        "played into this picture (.png/.svg/.pdf; needs matplotlib)")
    output.add_argument("--plot-every", type=int, default=DEFAULT_EVERY, metavar="N",
                        help="with --plot: redraw after every N games (0: only at the end)")
    return parser


def _time_control(args: argparse.Namespace, parser: argparse.ArgumentParser) -> TimeControl:
    """Every limit given goes to ``TimeControl``, which refuses a clock with a move time."""
    base, inc = (args.tc.base, args.tc.inc) if args.tc is not None else (None, 0.0)
    try:
        return TimeControl(base=base, inc=inc,
                           movetime=args.movetime / 1000.0 if args.movetime is not None else None,
                           depth=args.depth, nodes=args.nodes)
    except ValueError as exc:
        parser.error(str(exc))
        raise  # unreachable


def _openings(args: argparse.Namespace, parser: argparse.ArgumentParser):
    """The openings and a description of where they come from. A match needs several: with the
    start position only, two deterministic engines replay the same game."""
    path = args.openings or (DEFAULT_960_BOOK if args.chess960 else DEFAULT_BOOK)
    if path == START_POSITION:
        if args.chess960:
            parser.error("--openings startpos: Chess960 needs start positions (%s)" % DEFAULT_960_BOOK)
        sys.stderr.write("WARNING: every game starts from the start position (--openings startpos): "
                         "deterministic engines will repeat the same games\n")
        return [Opening(chess.Board(), [], "start position")], START_POSITION_TEXT

    def report(message: str) -> None:
        sys.stderr.write("openings: %s\n" % message)

    try:
        openings = load_openings(path, chess960=args.chess960, plies=args.book_plies, report=report)
    except (OSError, ValueError) as exc:
        parser.error("--openings %s: %s" % (path, exc.strerror if isinstance(exc, OSError) and exc.strerror
                                              else exc))
        raise  # unreachable
    pairs = args.games // 2
    if len(openings) < pairs:
        sys.stderr.write("WARNING: %d openings for %d game pairs: openings repeat, and deterministic engines "
                         "may repeat games\n" % (len(openings), pairs))
    return openings, path


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``match.py``: play the match, here or on a cluster; its ``MatchResult.exit_code``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.ERROR,
                        format="%(asctime)s %(threadName)s %(name)s: %(message)s")
    if len(args.engine) > 2:
        parser.error("at most two --engine")
    commands = list(args.engine) + ([DEFAULT_OPPONENT] if len(args.engine) == 1 else [])
    try:
        spec1 = parse_engine_spec(commands[0], name=args.name1, cwd=args.dir1,
                                  options=args.option + args.option1, env=args.env1)
        spec2 = parse_engine_spec(commands[1], name=args.name2, cwd=args.dir2,
                                  options=args.option + args.option2, env=args.env2)
        sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta, args.sprt_model) if args.sprt else None
    except ValueError as exc:
        parser.error(str(exc))
        return 2
    if args.plot and check_path(args.plot):
        parser.error("--plot %s: %s" % (args.plot, check_path(args.plot)))
    if args.json and jsonout.check_path(args.json):
        parser.error("--json %s: %s" % (args.json, jsonout.check_path(args.json)))
    book = args.openings or (DEFAULT_960_BOOK if args.chess960 else DEFAULT_BOOK)
    outputs = [(flag, path) for flag, path in (("--pgn", args.pgn), ("--json", args.json), ("--plot", args.plot))
               if path]
    problem = same_file_problem(outputs, [("input", book)] if book != START_POSITION else [])
    if problem:
        parser.error(problem)
    if args.pgn_append and not args.pgn:
        parser.error("--pgn-append needs --pgn FILE")
    if args.resume and not args.pgn:
        parser.error("--resume needs the stopped match's --pgn FILE")
    if args.resume and args.cluster:
        parser.error("--resume cannot be used with --cluster")
    if args.report_every < 0:
        parser.error("--report-every must be 0 or more, got %d" % args.report_every)
    try:
        # Before --resume rewrites the PGN: a second match on one of these outputs is refused.
        with locked(outputs):
            return _play(args, parser, spec1, spec2, sprt)
    except OutputBusy as exc:
        print("match.py: error: %s" % exc, file=sys.stderr)
        return EXIT_BUSY


def _play(args: argparse.Namespace, parser: argparse.ArgumentParser, spec1: EngineSpec, spec2: EngineSpec,
          sprt: Optional[Sprt]) -> int:
    """The match of a checked command line, its outputs locked: its ``MatchResult.exit_code``."""
    tc = _time_control(args, parser)
    openings, source = _openings(args, parser)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    pairs = (args.games + 1) // 2
    order = pair_order(len(openings), pairs, args.random_order, seed, args.opening_start)
    if args.random_order:
        order_text = "random order, seed %d (repeat with --seed %d)" % (seed, seed)
    else:
        order_text = "sequential from %d" % args.opening_start
    header = ["Openings: %s (%d, %s)" % (source, len(openings), order_text)]
    resumed = None
    if args.resume:
        if args.seed is None and args.random_order:
            parser.error("--resume needs the stopped match's --seed (its openings' order)")
        try:
            resumed = resume(args.pgn, openings, order, args.games)
        except (OSError, ValueError) as exc:
            parser.error("--resume: %s" % exc)
    rules = AdjudicationRules(resign_score=args.resign_score, resign_moves=args.resign_moves,
                              draw_score=args.draw_score, draw_moves=args.draw_moves,
                              draw_after=args.draw_after, max_moves=args.max_moves)
    settings = GameSettings(tc=tc, margin=args.margin / 1000.0, rules=rules, move_timeout=args.move_timeout)
    config = MatchConfig(engine1=spec1, engine2=spec2, settings=settings, games=args.games,
                         openings=openings, order=order, concurrency=args.concurrency,
                         pgn=args.pgn or None, pgn_append=args.pgn_append or args.resume, sprt=sprt,
                         chess960=args.chess960, event=args.event, site=args.site,
                         start_timeout=args.start_timeout, header=tuple(header),
                         plot=MatchPlot(args.plot, args.plot_every, sprt) if args.plot else None,
                         book="" if source == START_POSITION_TEXT else source, report_every=args.report_every,
                         resumed=resumed)
    match = ClusterMatch(config, args.cluster) if args.cluster else Match(config)  # Dask: matchlib/cluster.py
    # `kill PID` stops a match as Ctrl-C does (games in progress abandoned, the finished ones
    # counted, the JSON written): a match started in the background by a shell (`cmd &`) has
    # SIGINT ignored, so Ctrl-C's path was out of reach there. SIGHUP (the terminal closed) too,
    # unless ignored (`nohup`).
    previous = {number: signal.signal(number, _interrupt) for number in STOP_SIGNALS
                if number == signal.SIGTERM or not is_ignored(number)}
    try:
        result = match.run()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if args.json:
        jsonout.write(args.json, result, config)
    return result.exit_code


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
