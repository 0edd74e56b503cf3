#!/usr/bin/env python3
"""Re-make the ``UCI_Elo`` calibration (``CALIBRATION`` in engine/strength.py) from matches.

    python scripts/calibrate.py run --elo 1350,1500,1600,1700,1800 --games 200 --out calib/
    python scripts/calibrate.py chain --levels 800,1000,1200,1265 --games 200 --out calib/
    python scripts/calibrate.py fit calib/ [--write]
    python scripts/calibrate.py check holdout/ --fitted calib/

* ``run``: for each setting, a match (scripts/match.py, ``--json``) of Pruner at one level of
  the strength model against the opponent (Stockfish 15.1 by default) at ``UCI_Elo`` = the
  setting, ``UCI_LimitStrength`` on both. ``--elo X`` plays the level the current calibration
  gives X against the opponent at X (clamped to the opponent's ``UCI_Elo`` range: Debian's
  Stockfish 15.1 offers 1350 to 2850); ``--levels L`` plays level L against the opponent at the
  Elo the current calibration gives L. One file per point in ``--out``: match.py's JSON with a
  ``calibration`` object added (level, setting, opponent Elo, time control, the openings'
  FENs, the commit, the commands), and the games as ``NAME.pgn`` (scripts/play_quality.py
  measures how each level loses from them). ``--uci-elo`` sets Pruner's own ``UCI_Elo`` to the setting
  instead (the acceptance test exactly as a user meets it, for settings in Pruner's range).
  ``--resume`` skips the points done and finishes a point stopped half-way: the complete pairs
  of its PGN are kept, the other openings played, and the JSON counts every pair of the PGN.
* ``chain``: Pruner against Pruner between adjacent levels (``--levels 800,1000,1200``: 800 vs
  1000, 1000 vs 1200): Elo differences that carry the scale below the opponent's lowest
  ``UCI_Elo`` down from the calibrated points.
* ``fit``: the points of the given folders (chains anchored at the measured Elo of their top
  level, else the fit through the Stockfish points there), the fit of
  ``pruner.engine.strength.Calibration`` (local weighted lines), a table per point, the ``UCI_Elo`` range and the text of a
  new ``CALIBRATION`` tuple (``--write``: put it into engine/strength.py in place).
* ``check``: the issue's acceptance test: per setting, does Pruner at ``UCI_Elo`` X score
  50% ± 5% against the opponent at X (over at least ``--min-games``)? With ``--fitted``, the
  openings must be other than those the fit was made on. ``--pool`` judges repeated checks
  (folders) of a setting by their games together, each check's line printed above the verdict:
  a second check then narrows the first's error instead of being a second try at passing.
  Exit status 0 when every setting passes, 1 otherwise. Each line also says in how many games
  Pruner's clock fell under 1 s (from the point's PGN): where it did, the clock rather than the
  node budget bounded some searches, so the level played weaker than at a slower time control.

**How the level reaches Pruner.** Through the environment variable ``PRUNER_STRENGTH_LEVEL``
(match.py's ``--env1``), read only while ``UCI_LimitStrength`` is on, where it replaces the
level ``UCI_Elo`` would give (engine/strength.py, ``strength_for``). Not a UCI option: an option
is shown by every GUI to every user, and a second, uncalibrated strength scale beside
``UCI_Elo`` would be both confusing and a way round the calibration; nor can ``UCI_Elo`` itself
carry the level, since its range is what the calibration gives (a level beyond it could not be
measured, and the setting-to-level mapping is what is being re-made). An environment variable
is the developers' channel the project already uses for such matches (``PRUNER_PARAMS``).

Each point is played in the same openings, unless told otherwise: the seeded shuffle of
``--openings`` (``--seed``), pairs ``--opening-offset`` on, written to a file beside the point
and played in order. A check on openings the calibration was not fitted on takes
``--opening-offset`` past the fit's pairs (e.g. 100 after a fit of 200 games).
"""

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from chess import STARTING_FEN

from pruner.engine.strength import (LEVEL_VARIABLE, MODEL, UCI_ELO, Z95, Calibration,
                             CalibrationPoint)
from pruner.arguments import ArgumentParser

from pruner.lab import matchlib
from pruner.lab.matchlib.args import checked, game_pairs, positive_int, time_control
from pruner.lab.matchlib.engines import STOCKFISH_PATHS, find_stockfish, parse_engine_spec
from pruner.lab.matchlib.jsonout import tally_fields
from pruner.lab.matchlib.stats import trinomial_elo
from pruner.lab.matchlib.openings import load_openings, pair_order
from pruner.lab.matchlib.resume import FAULT_TERMINATIONS, RESULTS, pgn_games
from pruner.lab.matchlib.tally import Tally

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
ROOT = matchlib.ROOT
MATCH = os.path.join(SCRIPTS, "match.py")
STRENGTH = os.path.join(ROOT, "engine", "strength.py")
DEFAULT_BOOK = os.path.join(SCRIPTS, "books", "noob_3moves_5000.epd")
DEFAULT_ENGINE = "python3 -m pruner"
TOLERANCE = 0.05
"""The acceptance test: a score of 50% ± 5%."""
TUPLE_START = re.compile(r"^CALIBRATION: Tuple\[CalibrationPoint, \.\.\.\] = \(\n.*?^\)\n", re.M | re.S)
"""The ``CALIBRATION`` tuple in engine/strength.py, up to its closing line."""


# --- arguments -------------------------------------------------------------------------

def _int_list(text: str) -> List[int]:
    try:
        values = [int(item) for item in text.replace(" ", "").split(",") if item]
    except ValueError:
        raise ValueError("expected whole numbers separated by commas, e.g. 1350,1500,1600") from None
    if not values:
        raise ValueError("no value given")
    if len(set(values)) != len(values):
        raise ValueError("a value is given twice")
    return values


def level_list(text: str) -> List[int]:
    """``--levels``: levels of the strength model, in its range."""
    levels = _int_list(text)
    for level in levels:
        if not MODEL.min_level <= level <= MODEL.max_level:
            raise ValueError("level %d is outside the model's levels %d-%d" % (level, MODEL.min_level,
                                                                            MODEL.max_level))
    return levels


def elo_list(text: str) -> List[int]:
    """``--elo``: ``UCI_Elo`` settings (positive)."""
    settings = _int_list(text)
    if min(settings) < 1:
        raise ValueError("a UCI_Elo setting is a positive number")
    return settings


def tc_text(text: str) -> str:
    """``--tc``: checked as match.py checks it, passed on as typed."""
    time_control(text)
    return text


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError("not a whole number") from None
    if value < 0:
        raise ValueError("expected 0 or more")
    return value


def fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("not a number") from None
    if not 0 < value < 0.5:
        raise ValueError("expected a fraction of the score between 0 and 0.5, e.g. 0.05")
    return value


def _match_options(parser: argparse.ArgumentParser) -> None:
    """Options of the subcommands that play matches."""
    parser.add_argument("--out", required=True, metavar="DIR", help="folder of the per-point JSON files "
                        "(created when missing)")
    parser.add_argument("--games", action=checked(game_pairs), default=200, metavar="N",
                        help="games per point (an even number: pairs with colours reversed)")
    parser.add_argument("--tc", action=checked(tc_text), default="10+0.1", metavar="BASE+INC",
                        help="time control of every match")
    parser.add_argument("--jobs", action=checked(positive_int), default=2, metavar="N",
                        help="games at the same time (match.py --jobs)")
    parser.add_argument("--openings", default=DEFAULT_BOOK, metavar="FILE", help="EPD/FEN or PGN openings")
    parser.add_argument("--seed", type=int, default=1, metavar="N", help="seed of the openings' shuffle")
    parser.add_argument("--opening-offset", action=checked(non_negative_int), default=0, metavar="K",
                        help="first pair of the shuffle to play (past a fit's pairs for a check on other openings)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, metavar="CMD", help="Pruner's command")
    parser.add_argument("--engine-dir", default=ROOT, metavar="DIR",
                        help="Pruner's working directory: a checkout or worktree of the commit measured")
    parser.add_argument("--resume", action="store_true",
                        help="skip the points whose JSON is already in --out; a point stopped half-way keeps "
                             "the colour-reversed pairs of its PGN and plays the other openings")
    parser.add_argument("--match-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for match.py (repeatable), e.g. --match-arg=--margin=200")


def _read_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="folders of run and chain results")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="calibrate.py", description="Re-make the UCI_Elo calibration: "
                                     "matches, their fit and the acceptance check (see docs/lab/strength.md).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    run = commands.add_parser("run", help="Pruner at levels against Stockfish at UCI_Elo settings")
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--elo", action=checked(elo_list), metavar="X,Y,...",
                       help="UCI_Elo settings: the level the current calibration gives each, against the "
                            "opponent at the setting")
    which.add_argument("--levels", action=checked(level_list), metavar="L,M,...",
                       help="levels, against the opponent at the Elo the current calibration gives them")
    run.add_argument("--uci-elo", action="store_true",
                     help="with --elo: set Pruner's own UCI_Elo to the setting instead of passing the level "
                          "(the acceptance test as a GUI's user sees it; the setting must be in Pruner's range)")
    run.add_argument("--opponent", metavar="CMD", help="the opponent's command (default: stockfish on PATH, "
                     "else /usr/games/stockfish); UCI_LimitStrength and UCI_Elo are set on it")
    _match_options(run)

    chain = commands.add_parser("chain", help="Pruner against Pruner between adjacent levels")
    chain.add_argument("--levels", action=checked(level_list), required=True, metavar="L,M,...",
                       help="levels, at least two, the highest one anchored by run points (or the line)")
    _match_options(chain)

    fit = commands.add_parser("fit", help="fit the line, print the table and the new CALIBRATION")
    _read_options(fit)
    fit.add_argument("--write", action="store_true", help="rewrite the CALIBRATION tuple in --strength-file")
    fit.add_argument("--strength-file", default=STRENGTH, metavar="FILE",
                     help="the file holding CALIBRATION")
    fit.add_argument("--no-chain", action="store_true", help="leave the chain points out of the fit")
    fit.add_argument("--add", action="store_true", help="fit the folders' points together with the CALIBRATION "
                     "of --strength-file (and keep those in the tuple written) instead of alone")

    check = commands.add_parser("check", help="does each setting score 50%% ± 5%%? (exit 0/1)")
    _read_options(check)
    check.add_argument("--min-games", action=checked(positive_int), default=200, metavar="N",
                       help="games a point needs to count")
    check.add_argument("--tolerance", action=checked(fraction), default=TOLERANCE, metavar="F",
                       help="largest distance of the score from 50%%, as a fraction")
    check.add_argument("--fitted", nargs="+", default=[], metavar="DIR",
                       help="the fit's folders: a point sharing an opening with them fails")
    check.add_argument("--pool", action="store_true",
                       help="judge the points of one setting, level and time control in the folders "
                            "together (their games summed; an opening played in two of them fails)")
    return parser


# --- playing ---------------------------------------------------------------------------

def uci_elo_range(command: str, timeout: float = 10.0) -> Tuple[int, int]:
    """The ``UCI_Elo`` range an engine declares (it is started, asked ``uci`` and quit)."""
    spec = parse_engine_spec(command)
    env = dict(os.environ, **spec.env)
    try:
        done = subprocess.run(spec.command, input="uci\nquit\n", capture_output=True, text=True,
                              timeout=timeout, cwd=spec.cwd, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError("cannot ask %s for its options: %s" % (command, exc)) from None
    for line in done.stdout.splitlines():
        match = re.match(r"option name UCI_Elo type spin .*\bmin (-?\d+) max (-?\d+)", line.strip())
        if match:
            return int(match.group(1)), int(match.group(2))
    raise ValueError("%s declares no UCI_Elo option" % command)


def git_commit(folder: str) -> Optional[str]:
    """The commit checked out in ``folder`` (with ``+dirty`` when files differ), or None."""
    try:
        head = subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=30)
        if head.returncode:
            return None
        status = subprocess.run(["git", "-C", folder, "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("+dirty" if status.stdout.strip() else "")


def opening_fens(path: str, seed: int, offset: int, pairs: int) -> List[str]:
    """The FENs of pairs ``offset`` to ``offset + pairs`` of the seeded shuffle of a book."""
    openings = load_openings(path)
    order = pair_order(len(openings), offset + pairs, True, seed)[offset:]
    return [openings[index].start().fen() for index in order]


def complete_pairs(games: Sequence[Tuple[Any, str]], name: str) -> Tuple[List[Tuple[Any, str]],
                                                                          List[Tuple[str, float, float]]]:
    """The games (``pgn_games``) that form colour-reversed pairs for engine ``name`` (each
    opening's games with ``name`` as White matched in order with those as Black; a game without
    a result counts in no pair): those games, and per pair (opening FEN, ``name``'s score with
    White, with Black)."""
    by_opening: Dict[str, Tuple[List[Tuple[Any, float]], List[Tuple[Any, float]]]] = {}
    for game in games:
        headers = game[0]
        white_score = RESULTS.get(headers.get("Result", "*"))
        if white_score is None or name not in (headers.get("White"), headers.get("Black")):
            continue
        sides = by_opening.setdefault(headers.get("FEN", STARTING_FEN), ([], []))
        if headers.get("White") == name:
            sides[0].append((game, white_score))
        else:
            sides[1].append((game, 1.0 - white_score))
    kept: List[Tuple[Any, str]] = []
    pairs = []
    for fen, (as_white, as_black) in by_opening.items():
        for (white_game, white_score), (black_game, black_score) in zip(as_white, as_black):
            kept += [white_game, black_game]
            pairs.append((fen, white_score, black_score))
    return kept, pairs


def pairs_tally(pairs: Sequence[Tuple[str, float, float]]) -> Tally:
    """The match totals of these pairs, as match.py counts them."""
    tally = Tally()
    for number, (_, white_score, black_score) in enumerate(pairs):
        tally.count(number, white_score, True)
        tally.count(number, black_score, False)
    return tally


def resume_point(path: str, name: str, fens: Sequence[str]) -> Tuple[List[str], int, int]:
    """A point stopped half-way (its PGN, no JSON): keep the complete pairs of the PGN at
    ``path``, rewritten in place with only those games; return the openings of ``fens`` still
    to play, the number of pairs kept and the faults among their games. Raises ValueError when
    a kept game's opening is not among ``fens`` (the point was started with other openings)."""
    kept, pairs = complete_pairs(pgn_games(path), name)
    still = list(fens)
    for fen, _, _ in pairs:
        if fen not in still:
            raise ValueError("%s: a game's opening is not one of this point's openings (%s); "
                             "move the file away to start the point again" % (path, fen))
        still.remove(fen)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write("".join(text for _, text in kept))
    os.replace(path + ".tmp", path)
    faults = sum(1 for headers, _ in kept if headers.get("Termination") in FAULT_TERMINATIONS)
    return still, len(pairs), faults


def recount(result: Dict[str, Any], path: str, name: str, earlier_faults: int) -> None:
    """Replace a resumed point's numbers (match.py's JSON counts only the games it played)
    by those of every complete pair in its PGN; add the faults of the games kept from before."""
    result.update(tally_fields(pairs_tally(complete_pairs(pgn_games(path), name)[1])))
    faults = result.setdefault("faults", {})
    faults["before_resume"] = earlier_faults
    faults["total"] = faults.get("total", 0) + earlier_faults


@dataclass
class Job:
    """One match to play: a point (against the opponent) or a link of the chain."""

    name: str
    """File name stem in ``--out``."""
    argv: List[str]
    """match.py's arguments, without --json/--openings."""
    meta: Dict[str, Any]


def _pruner_args(n: int, args: argparse.Namespace, level: int) -> List[str]:
    return ["--engine", args.engine, "--dir%d" % n, args.engine_dir, "--name%d" % n, "Pruner-L%d" % level,
            "--option%d" % n, "UCI_LimitStrength=true", "--env%d" % n, "%s=%d" % (LEVEL_VARIABLE, level)]


def run_jobs(jobs: Sequence[Job], args: argparse.Namespace) -> int:
    """Play each job not yet done; 0 when every one has its JSON, 1 when one failed."""
    os.makedirs(args.out, exist_ok=True)
    pending = []
    for job in jobs:
        final = os.path.join(args.out, job.name + ".json")
        if os.path.exists(final):
            if not args.resume:
                sys.stderr.write("calibrate.py: error: %s exists: --resume skips the points done, or "
                                 "give another --out\n" % final)
                return 2
            print("%s: done already (%s), skipped" % (job.name, final))
            continue
        pending.append(job)
    if not pending:
        return 0
    try:
        fens = opening_fens(args.openings, args.seed, args.opening_offset, args.games // 2)
    except (OSError, ValueError) as exc:
        sys.stderr.write("calibrate.py: error: --openings %s: %s\n" % (args.openings, exc))
        return 2
    commit = git_commit(args.engine_dir)
    for job in pending:
        final = os.path.join(args.out, job.name + ".json")
        book = os.path.join(args.out, job.name + ".openings.epd")
        partial = os.path.join(args.out, job.name + ".match.json")
        log = os.path.join(args.out, job.name + ".log")
        games = os.path.join(args.out, job.name + ".pgn")  # for scripts/play_quality.py
        name1 = job.argv[job.argv.index("--name1") + 1]
        with open(book, "w", encoding="utf-8") as handle:
            handle.write("".join(fen + "\n" for fen in fens))
        to_play, kept_pairs, earlier_faults, play_book = fens, 0, 0, book
        resumed = args.resume and os.path.exists(games)
        if resumed:  # stopped half-way (a crash, a restart): keep its complete pairs
            try:
                to_play, kept_pairs, earlier_faults = resume_point(games, name1, fens)
            except (OSError, ValueError) as exc:
                sys.stderr.write("calibrate.py: error: %s\n" % exc)
                return 2
            print("%s: resumed: %d pairs kept from %s, %d to play" % (job.name, kept_pairs, games, len(to_play)),
                  flush=True)
            play_book = os.path.join(args.out, job.name + ".rest.epd")
            with open(play_book, "w", encoding="utf-8") as handle:
                handle.write("".join(fen + "\n" for fen in to_play))
        argv = [sys.executable, MATCH] + job.argv + [
            "--tc", args.tc, "--games", str(2 * len(to_play)), "--jobs", str(args.jobs), "--openings", play_book,
            "--sequential", "--json", partial, "--pgn", games] + (["--pgn-append"] if resumed else []) + \
            list(args.match_arg)
        started = time.time()
        if to_play:
            print("%s: %s" % (job.name, " ".join(shlex.quote(word) for word in argv)), flush=True)
            with open(log, "a" if resumed else "w", encoding="utf-8") as out:
                code = subprocess.call(argv, stdout=out, stderr=subprocess.STDOUT)
        else:  # every pair was played before the stop
            code = 0
            with open(partial, "w", encoding="utf-8") as handle:
                json.dump({"engine1": name1, "faults": {"total": 0}}, handle)
        if code != 0 or not os.path.exists(partial):
            sys.stderr.write("calibrate.py: %s: match.py ended with exit status %d; see %s\n" % (job.name, code, log))
            return 1
        with open(partial, encoding="utf-8") as handle:
            result = json.load(handle)
        if resumed:
            recount(result, games, name1, earlier_faults)
        result["calibration"] = dict(job.meta, tc=args.tc, seed=args.seed, book=os.path.abspath(args.openings),
                                     opening_offset=args.opening_offset, openings=fens, engine=args.engine,
                                     engine_dir=os.path.abspath(args.engine_dir), commit=commit,
                                     date=time.strftime("%Y-%m-%d"), seconds=round(time.time() - started, 1),
                                     command=argv, resumed_pairs=kept_pairs if resumed else None)
        with open(final + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
            handle.write("\n")
        os.replace(final + ".tmp", final)
        os.remove(partial)
        print("%s: W %d D %d L %d, score %.1f%% -> %s" % (job.name, result["wins"], result["draws"],
                                                          result["losses"], 100 * result["score"], final), flush=True)
    return 0


def command_run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.uci_elo and not args.elo:
        parser.error("--uci-elo needs --elo (settings, not levels)")
    opponent = args.opponent or find_stockfish()
    if opponent is None:
        parser.error("--opponent: no stockfish on PATH nor at %s; give the opponent's command"
                     % ", ".join(STOCKFISH_PATHS))
    try:
        low, high = uci_elo_range(opponent)
    except ValueError as exc:
        parser.error("--opponent: %s" % exc)
    jobs = []
    points = [(UCI_ELO.level_for(setting), setting) for setting in args.elo] if args.elo else \
        [(level, None) for level in args.levels]
    for level, setting in points:
        wanted = setting if setting is not None else int(round(UCI_ELO.elo_at(level)))
        elo = max(low, min(high, wanted))
        if elo != wanted:
            print("note: %s: the opponent's UCI_Elo goes from %d to %d: it plays at %d"
                  % ("setting %d" % setting if setting is not None else "level %d" % level, low, high, elo))
        if setting is not None and not UCI_ELO.min_elo <= setting <= UCI_ELO.max_elo:
            print("note: setting %d is outside today's UCI_Elo range %d-%d: level %d"
                  % (setting, UCI_ELO.min_elo, UCI_ELO.max_elo, level))
        name = "point-elo%04d" % setting if setting is not None else "point-level%04d" % level
        pruner = _pruner_args(1, args, level)
        if args.uci_elo:  # Pruner's own UCI_Elo, in place of the level's variable
            pruner = pruner[:-2] + ["--option1", "UCI_Elo=%d" % setting]
        argv = pruner + [
            "--engine", opponent, "--name2", "Opponent-%d" % elo,
            "--option2", "UCI_LimitStrength=true", "--option2", "UCI_Elo=%d" % elo]
        jobs.append(Job(name, argv, {"kind": "opponent", "level": level, "setting": setting, "opponent": opponent,
                                     "opponent_elo": elo, "via": "UCI_Elo" if args.uci_elo else LEVEL_VARIABLE}))
    return run_jobs(jobs, args)


def command_chain(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    levels = sorted(args.levels)
    if len(levels) < 2:
        parser.error("--levels: a chain needs two levels at least")
    jobs = []
    for low, high in zip(levels, levels[1:]):
        argv = _pruner_args(1, args, low) + _pruner_args(2, args, high)
        jobs.append(Job("chain-level%04d-level%04d" % (low, high), argv,
                        {"kind": "chain", "level": low, "against_level": high}))
    return run_jobs(jobs, args)


# --- reading and fitting -----------------------------------------------------------------

@dataclass
class Result:
    """One JSON file of ``run`` or ``chain``."""

    path: str
    kind: str
    """``opponent`` or ``chain``."""
    level: int
    setting: Optional[int]
    opponent_elo: Optional[int]
    against_level: Optional[int]
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    diff: Optional[float]
    """Elo difference of the level against its opponent (None when the score is 0% or 100%)."""
    error: Optional[float]
    """95% half-width of ``diff``."""
    openings: List[str]
    tc: str = ""
    """The time control the point was played at."""
    parts: int = 1
    """How many points ``pool_results`` summed into this one."""


def read_results(dirs: Sequence[str]) -> List[Result]:
    """Every ``point-*.json`` and ``chain-*.json`` of the folders; raises ValueError on a bad one."""
    results = []
    for folder in dirs:
        if not os.path.isdir(folder):
            raise ValueError("%s: no such folder" % folder)
        for name in sorted(os.listdir(folder)):
            if not (name.startswith("point-") or name.startswith("chain-")) or not name.endswith(".json") \
                    or name.endswith(".match.json"):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, encoding="utf-8") as handle:
                    data = json.load(handle)
                meta = data["calibration"]
                estimate = data.get("elo") or {}
                results.append(Result(
                    path=path, kind=meta["kind"], level=int(meta["level"]), setting=meta.get("setting"),
                    opponent_elo=meta.get("opponent_elo"), against_level=meta.get("against_level"),
                    games=int(data["games"]), wins=int(data["wins"]), draws=int(data["draws"]),
                    losses=int(data["losses"]), score=float(data["score"]), diff=estimate.get("value"),
                    error=estimate.get("error"), openings=list(meta.get("openings", [])),
                    tc=str(meta.get("tc") or "")))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ValueError("%s: not a calibration result (%s)" % (path, exc)) from None
    return results


def _usable(result: Result) -> bool:
    return result.diff is not None and result.error is not None and result.error > 0


def _line_spread(points: Sequence[Tuple[float, float, float]]) -> Tuple[float, float, float]:
    """(mean level, total weight, spread) of (level, elo, sigma) points: what the error of a
    weighted straight line at a level needs."""
    weights = [1.0 / sigma ** 2 for _, _, sigma in points]
    total = sum(weights)
    mean_level = sum(w * p[0] for w, p in zip(weights, points)) / total
    spread = sum(w * (p[0] - mean_level) ** 2 for w, p in zip(weights, points))
    return mean_level, total, spread


def anchor_elo(level: int, points: Sequence[CalibrationPoint]) -> Optional[Tuple[float, float]]:
    """Elo (± 95%) of a level from measured points: their weighted mean when some are at that
    level, else the fit ``UCI_Elo`` would use (``Calibration``, local lines) at it, with the
    error of one weighted straight line there (the local fit's own uncertainty left out);
    None when there is neither."""
    sigmas = [(p.level, p.elo, max(p.error, 1.0) / Z95) for p in points]
    here = [(elo, sigma) for at, elo, sigma in sigmas if at == level]
    if here:
        total = sum(1 / sigma ** 2 for _, sigma in here)
        return sum(elo / sigma ** 2 for elo, sigma in here) / total, Z95 / math.sqrt(total)
    if len({at for at, _, _ in sigmas}) < 2:
        return None
    mean_level, total, spread = _line_spread(sigmas)
    variance = 1 / total + (level - mean_level) ** 2 / spread
    try:
        elo = Calibration(points, MODEL).elo_at(level)
    except ValueError:
        return None  # the points fall with the level: no scale to anchor on
    return elo, Z95 * math.sqrt(variance)


def build_points(results: Sequence[Result], use_chain: bool = True, known: Sequence[CalibrationPoint] = ()
                 ) -> Tuple[List[Tuple[Result, CalibrationPoint]], List[str]]:
    """The calibration points of the results (opponent points, then the chain from its top
    down), and notes on what was left out. ``known``: measured points from before (``fit
    --add``), which anchor a chain as the results' own do."""
    notes = []
    direct = []
    for result in results:
        if result.kind != "opponent":
            continue
        if not _usable(result):
            notes.append("%s: score %.0f%% has no finite Elo: left out of the fit" % (result.path, 100 * result.score))
            continue
        direct.append((result, CalibrationPoint(level=result.level, opponent=int(result.opponent_elo),
                                                games=result.games, elo=round(result.opponent_elo + result.diff, 1),
                                                error=round(result.error, 1))))
    measured = [point for _, point in direct] + [point for point in known if point.against_level is None]
    chained: List[Tuple[Result, CalibrationPoint]] = []
    links = sorted((r for r in results if r.kind == "chain"), key=lambda r: (-r.against_level, -r.level))
    if use_chain:
        for result in links:
            if not _usable(result):
                notes.append("%s: score %.0f%% has no finite Elo: the chain stops here" % (result.path, 100 * result.score))
                continue
            above = [p for _, p in chained if p.level == result.against_level]
            anchor = anchor_elo(result.against_level, above or measured)
            if anchor is None:
                notes.append("%s: level %d has no measured Elo to anchor the chain on" % (result.path, result.against_level))
                continue
            elo, error = anchor
            chained.append((result, CalibrationPoint(
                level=result.level, opponent=int(round(elo)), games=result.games, elo=round(elo + result.diff, 1),
                error=round(math.hypot(error, result.error), 1), against_level=result.against_level)))
    return direct + chained, notes


def within(score: float, tolerance: float = TOLERANCE) -> bool:
    return abs(score - 0.5) <= tolerance + 1e-9


def point_text(point: CalibrationPoint) -> str:
    extra = ", against_level=%d" % point.against_level if point.against_level is not None else ""
    return ("    CalibrationPoint(level=%d, opponent=%d, games=%d, elo=%.1f, error=%.1f%s),"
            % (point.level, point.opponent, point.games, point.elo, point.error, extra))


def tuple_text(points: Sequence[CalibrationPoint], results: Sequence[Result], dirs: Sequence[str],
               kept: str = "") -> str:
    """The ``CALIBRATION`` tuple's text: ``kept`` (the lines of the tuple before, ``fit --add``,
    as they were, comments on where each point came from included), then the new points under a
    comment naming their folders, commits, dates and time controls."""
    commits = sorted({_meta(r.path).get("commit") or "?" for r in results})
    tcs = sorted({_meta(r.path).get("tc") or "?" for r in results})
    dates = sorted({_meta(r.path).get("date") or "?" for r in results})
    when = dates[0] if len(dates) == 1 else "%s to %s" % (dates[0], dates[-1])
    lines = ["CALIBRATION: Tuple[CalibrationPoint, ...] = ("] + kept.splitlines()
    lines += [
             "    # scripts/calibrate.py fit %s" % " ".join(os.path.basename(os.path.normpath(d)) for d in dirs),
             "    # (%s, commit %s, tc %s): Pruner at a level against Stockfish at" % (when, ", ".join(commits),
                                                                                    ", ".join(tcs)),
             "    # UCI_Elo=opponent, or (against_level) against Pruner at that level."]
    lines += [point_text(point) for point in points]
    lines.append(")")
    return "\n".join(lines) + "\n"


_META_CACHE: Dict[str, Dict[str, Any]] = {}


def _meta(path: str) -> Dict[str, Any]:
    if path not in _META_CACHE:
        with open(path, encoding="utf-8") as handle:
            _META_CACHE[path] = json.load(handle).get("calibration", {})
    return _META_CACHE[path]


def _tuple_span(path: str) -> Tuple[str, Any]:
    """The text of a strength file and the match of its ``CALIBRATION`` tuple."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    found = TUPLE_START.search(source)
    if found is None:
        raise ValueError("%s: no 'CALIBRATION: Tuple[CalibrationPoint, ...] = (' ... ')' found" % path)
    return source, found


def tuple_body(path: str) -> str:
    """The lines inside the ``CALIBRATION`` tuple of a strength file, comments included."""
    source, found = _tuple_span(path)
    return "".join(found.group(0).splitlines(True)[1:-1])


def write_tuple(path: str, text: str) -> None:
    """Replace the ``CALIBRATION`` tuple of ``path`` by ``text``, keeping the rest of the file."""
    source, found = _tuple_span(path)
    source = source[:found.start()] + text + source[found.end():]
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(source)
    os.replace(path + ".tmp", path)


def current_points(path: str) -> Tuple[CalibrationPoint, ...]:
    """The ``CALIBRATION`` tuple of a strength file (engine/strength.py or a copy of it)."""
    spec = importlib.util.spec_from_file_location("calibrated_strength", path)
    if spec is None or spec.loader is None:
        raise ValueError("not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(CalibrationPoint(**dataclasses.asdict(point)) for point in module.CALIBRATION)


def _label(result: Result) -> str:
    if result.kind == "chain":
        return "chain"
    return str(result.setting) if result.setting is not None else "level"


def command_fit(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        results = read_results(args.dirs)
    except ValueError as exc:
        parser.error(str(exc))
    kept: List[CalibrationPoint] = []
    kept_text = ""
    if args.add:
        try:
            kept = list(current_points(args.strength_file))
            kept_text = tuple_body(args.strength_file)
        except (OSError, ValueError, SyntaxError, AttributeError) as exc:
            parser.error("--add: cannot read CALIBRATION from %s: %s" % (args.strength_file, exc))
    pairs, notes = build_points(results, use_chain=not args.no_chain, known=kept)
    for note in notes:
        print("note: " + note)
    points = [point for _, point in pairs]
    try:
        calibration = Calibration(kept + points, MODEL)
    except (ValueError, ZeroDivisionError) as exc:
        print("calibrate.py: no line: %s (%d usable points)" % (exc, len(kept) + len(points)), file=sys.stderr)
        return 1
    print("%-8s %6s %-11s %5s %-13s %7s %-15s %7s %s" % ("setting", "level", "opponent", "games", "W / D / L",
                                                       "score", "measured Elo", "fitted", "50% ± 5%"))
    for result, point in pairs:
        opponent = "L%d=%d" % (point.against_level, point.opponent) if point.against_level is not None \
            else "SF %d" % point.opponent
        if result.kind == "chain":
            verdict = "-"
        elif result.setting is not None and result.setting != result.opponent_elo:
            verdict = "- (opponent clamped)"
        else:
            verdict = "yes" if within(result.score) else "no"
        print("%-8s %6d %-11s %5d %-13s %6.1f%% %-15s %7.0f %s" % (
            _label(result), point.level, opponent, point.games,
            "%d / %d / %d" % (result.wins, result.draws, result.losses), 100 * result.score,
            "%.0f ± %.0f" % (point.elo, point.error), calibration.elo_at(point.level), verdict))
    if kept:
        print("and the %d points of the CALIBRATION before (--add)" % len(kept))
    print("fit: %s (weighted by 1/error², %d points, chi-square %.1f, leave-one-out %.1f)"
          % (calibration.describe(), len(kept) + len(points), calibration.chi2, calibration.loo_chi2))
    print("UCI_Elo: %d to %d, default %d (levels %d-%d)" % (calibration.min_elo, calibration.max_elo,
                                                           calibration.default_elo, MODEL.min_level, MODEL.max_level))
    text = tuple_text(points, [r for r, _ in pairs], args.dirs, kept_text)
    print()
    print(text, end="")
    if args.write:
        try:
            write_tuple(args.strength_file, text)
        except (OSError, ValueError) as exc:
            parser.error("--strength-file %s" % exc)
        print("written to %s" % args.strength_file)
    return 0


LOW_CLOCK = 1.0
"""Seconds: a Pruner clock below this before a move means the clock, not the node budget,
bounded that search (the safety cap is 2/5 of the clock, under 0.4 s then)."""

_MOVE_TIME = re.compile(r"(\d+(?:\.\d+)?)s\b")


def clock_lows(pgn_path: str, tc: str, player_prefix: str = "Pruner") -> List[float]:
    """For each game of a point's PGN: the lowest clock ``player_prefix``'s engine had before a
    move, from the move times match.py writes into the comments (``{ +0.12/8 0.215s }``)."""
    import chess.pgn
    base, _, inc = tc.partition("+")
    start, increment = float(base), float(inc or 0)
    lows = []
    with open(pgn_path, encoding="utf-8") as handle:
        for game in iter(lambda: chess.pgn.read_game(handle), None):
            white = game.headers.get("White", "").startswith(player_prefix)
            clock = low = start
            turn = game.board().turn
            for node in game.mainline():
                found = _MOVE_TIME.search(node.comment or "")
                if turn == white and found:
                    clock -= float(found.group(1))
                    low = min(low, clock)
                    clock += increment
                turn = not turn
            lows.append(low)
    return lows


def clock_text(result: Result) -> str:
    """How often the clock cut Pruner's node budget in a point's games ('' without its PGN)."""
    pgn_path = result.path[:-len(".json")] + ".pgn"
    if not os.path.exists(pgn_path) or not result.tc:
        return ""
    try:
        lows = clock_lows(pgn_path, result.tc)
    except (OSError, ValueError):
        return ""
    if not lows:
        return ""
    short = sum(1 for low in lows if low < LOW_CLOCK)
    return "; Pruner's clock under %.0f s in %d of %d games (%s)" % (
        LOW_CLOCK, short, len(lows), "the clock cut some searches" if short else "the node budget governed")


def _position_key(fen: str) -> str:
    """A FEN without its move counters: the same opening whatever the book numbered it."""
    return " ".join(fen.split()[:4])


def pool_results(results: Sequence[Result]) -> List[Result]:
    """The points of one setting, level, opponent and time control as one point, their games
    summed (``path`` names the parts; ``diff`` and ``error`` from the summed W/D/L, each game
    counted as independent: the parts' pairs are not re-read); a point with no such partner is
    returned as it is. The pooled ``openings`` keep repeats, so an opening played in two of the
    parts shows."""
    groups: Dict[Tuple[Any, ...], List[Result]] = {}
    for result in results:
        key = (result.kind, result.setting, result.opponent_elo, result.against_level, result.level, result.tc)
        groups.setdefault(key, []).append(result)
    pooled = []
    for group in groups.values():
        if len(group) == 1:
            pooled.append(group[0])
            continue
        games = sum(r.games for r in group)
        wins, draws = sum(r.wins for r in group), sum(r.draws for r in group)
        losses = sum(r.losses for r in group)
        estimate = trinomial_elo(wins, draws, losses)
        pooled.append(dataclasses.replace(
            group[0], path=" + ".join(r.path for r in group), games=games, wins=wins, draws=draws,
            losses=losses, score=(wins + draws / 2) / games if games else 0.5,
            diff=estimate.elo if estimate else None, error=estimate.error if estimate else None,
            openings=[fen for r in group for fen in r.openings], parts=len(group)))
    return pooled


def command_check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        results = read_results(args.dirs)
        fitted = read_results(args.fitted) if args.fitted else []
    except ValueError as exc:
        parser.error(str(exc))
    fitted_fens = {_position_key(fen) for result in fitted for fen in result.openings}
    if args.pool:
        for result in results:
            if result.kind != "chain" and result.setting is not None:
                print("  part %s: level %d, %d games, W %d D %d L %d, score %.1f%%%s" % (
                    result.path, result.level, result.games, result.wins, result.draws, result.losses,
                    100 * result.score, clock_text(result)))
        results = pool_results(results)
    counted = failed = 0
    for result in results:
        head = "%s (level %d vs %s): " % (_label(result) if result.kind != "chain" else "chain", result.level,
                                         "level %d" % result.against_level if result.kind == "chain"
                                         else "opponent %s" % result.opponent_elo)
        if result.kind == "chain" or result.setting is None:
            print(head + "not a check (no UCI_Elo setting)")
            continue
        if result.setting != result.opponent_elo:
            print(head + "not a check (the opponent plays at %d)" % result.opponent_elo)
            continue
        counted += 1
        problems = []
        if result.games < args.min_games:
            problems.append("%d games, fewer than %d" % (result.games, args.min_games))
        if not within(result.score, args.tolerance):
            problems.append("score outside 50%% ± %.0f%%" % (100 * args.tolerance))
        shared = sum(_position_key(fen) in fitted_fens for fen in result.openings)
        if shared:
            problems.append("%d openings also in the fit" % shared)
        distinct = {_position_key(fen) for fen in result.openings}
        repeated = len(result.openings) - len(distinct) if result.parts > 1 else 0
        if repeated:
            problems.append("%d openings played in two of the pooled points" % repeated)
        failed += bool(problems)
        pooled = ""
        if result.parts > 1:
            pooled = "pooled (Elo %+.1f ± %.1f, trinomial), " % (result.diff, result.error) if _usable(result) \
                else "pooled, "
        print(head + "%s%d games, W %d D %d L %d, score %.1f%%: %s%s" % (
            pooled, result.games, result.wins, result.draws, result.losses, 100 * result.score,
            "FAIL (%s)" % "; ".join(problems) if problems else "pass", "" if pooled else clock_text(result)))
    if not counted:
        print("check: no point with a UCI_Elo setting to check")
        return 1
    print("check: %d of %d settings pass" % (counted - failed, counted))
    return 1 if failed else 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    commands = {"run": command_run, "chain": command_chain, "fit": command_fit, "check": command_check}
    sub = parser._subparsers._group_actions[0].choices[args.command]  # errors name the subcommand
    return commands[args.command](args, sub)


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
