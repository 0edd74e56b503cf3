#!/usr/bin/env python3
"""Soak test: many fast games of Pruner against itself, counting everything that would break a
tournament.

    python scripts/soak.py                                   # 1000 games at 1+0.01, then 1000 at 10+0.1
    python scripts/soak.py --games 40 --tc 1+0.01            # a short run
    python scripts/soak.py --engine "pypy3 -m pruner" --games 200 --tc 1+0.01 --jobs 2

Games are played by scripts/match.py's library (runner-side clocks, colour-reversed pairs from
the opening book). Faults, per time control:

* time losses: games with a move that used more than the clock (by more than ``--margin``,
  default 0 ms as in cutechess-cli and fastchess without ``timemargin``), found by replaying
  the clocks from the move times;
* stalls: no move by ``--stall-grace`` (default 1000 ms) past the end of the clock (the
  runner then kills the engine), or no ``readyok`` after ``ucinewgame``;
* illegal moves (also malformed or missing ``bestmove``), crashes (exit, closed pipe, protocol
  error) and failed starts;
* stderr: anything the engines wrote on stderr (diagnostics only: a traceback is a bug).

It also reports the closest call (least time left after a move) and the slowest move. The
last line of each time control is its summary line (``--summary FILE`` appends them to a file
as well); the exit status is 0 without faults, 1 with faults, 2 when an engine cannot start.

Long soaks can be played in parts (say five runs of 200 games with seeds 1 to 5, on different
days): ``--tally FILE`` adds up the summary lines of a summary file per time control, engine
and commit (each line names the commit it played), and plays nothing.

    python scripts/soak.py --games 200 --tc 10+0.1 --seed 3 --summary soak.txt
    python scripts/soak.py --tally soak.txt
"""

import argparse
import datetime
import io
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO, Dict, List, Optional, Tuple

import chess
import chess.pgn

from pruner.arguments import ArgumentParser

from pruner.lab.matchlib.args import checked, game_pairs, positive_int, time_control
from pruner.lab.matchlib.engines import EngineSpec, parse_option
from pruner.lab.matchlib.game import GameSettings
from pruner.lab.matchlib.openings import Opening, load_openings, pair_order
from pruner.lab.matchlib.runner import Match, MatchConfig
from pruner.lab.matchlib.tally import Tally
from pruner.lab.matchlib.timecontrol import TimeControl, parse_tc

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BOOK = os.path.join(REPO, "scripts", "books", "noob_3moves_5000.epd")
DEFAULT_TCS = ["1+0.01", "10+0.1"]
FAULT_NAMES = ("time", "stall", "illegal", "crash", "start")
_ELAPSED = re.compile(r"(\d+\.\d+)s$")


@dataclass
class Margins:
    """Time left after each engine move, from the PGN comments and the time control."""

    closest: Optional[float] = None
    """Least clock left after a move (seconds; negative: over the clock)."""
    closest_at: str = ""
    slowest: float = 0.0
    """Longest single move (seconds)."""
    moves: int = 0
    overruns: Dict[int, str] = field(default_factory=dict)
    """Game number -> its first move over the clock by more than the margin."""


@dataclass
class SoakResult:
    """One time control's games: the tally, faults by class, clock margins, engine stderr, exit status."""

    tc: str
    games: int
    tally: Tally
    faults: dict
    margins: Margins
    stderr: str
    seconds: float
    exit_code: int
    details: List[str] = field(default_factory=list)


def classify(kind: str, detail: str) -> str:
    """The soak's fault class of a runner fault (``time``/``illegal``/``crash``/``start``)."""
    if kind == "time" and detail.startswith("no move"):
        return "stall"  # no answer by the clock + the stall grace: the runner killed it
    if kind == "crash" and "readyok" in detail:
        return "stall"
    return kind


def read_margins(pgn_path: str, tc: TimeControl, margin: float = 0.0) -> Margins:
    """Replay each game's clocks from the move times in the PGN comments (``margin``: seconds
    a move may overrun the clock before it counts as a time loss)."""
    margins = Margins()
    with open(pgn_path, encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
            board = game.board()
            for ply, node in enumerate(game.mainline(), 1):
                mover = board.turn
                board.push(node.move)
                match = _ELAPSED.search(node.comment.split(",")[0].strip())
                if node.comment.startswith("book") or match is None:
                    continue
                elapsed = float(match.group(1))
                left = clocks[mover] - elapsed
                margins.moves += 1
                margins.slowest = max(margins.slowest, elapsed)
                where = "game %s ply %d" % (game.headers.get("Round", "?"), ply)
                if margins.closest is None or left < margins.closest:
                    margins.closest = left
                    margins.closest_at = where
                number = int(game.headers.get("Round", "0") or 0)
                if left < -margin and number not in margins.overruns:
                    margins.overruns[number] = "%s: used %.3fs with %.3fs left" % (where, elapsed, clocks[mover])
                clocks[mover] = left + tc.inc
    return margins


def wrap_stderr(command: List[str], log: str) -> List[str]:
    """Run ``command`` with its stderr appended to ``log`` (``exec``: same process, same pid)."""
    if os.name != "posix":
        return command
    return ["sh", "-c", 'exec "$@" 2>>"$0"', log] + command


def soak(clock: TimeControl, args: argparse.Namespace, openings: List[Opening], out: IO[str]) -> SoakResult:
    """Play one time control; print the match's lines to ``out``; return the counts."""
    with tempfile.TemporaryDirectory(prefix="pruner-soak-") as workdir:
        return _soak(clock, args, openings, out, workdir)


def _soak(clock: TimeControl, args: argparse.Namespace, openings: List[Opening], out: IO[str],
          workdir: str) -> SoakResult:
    command = shlex.split(args.engine)
    options = dict(parse_option(text) for text in args.option)
    stderr_log = os.path.join(workdir, "engines.stderr")
    open(stderr_log, "w").close()
    pgn_path = args.pgn or os.path.join(workdir, "games.pgn")
    specs = [EngineSpec(command=wrap_stderr(command, stderr_log), name=name, cwd=REPO, options=dict(options))
             for name in ("Pruner A", "Pruner B")]
    seed = args.seed
    config = MatchConfig(
        engine1=specs[0], engine2=specs[1],
        settings=GameSettings(tc=clock, margin=args.stall_grace / 1000.0),
        games=args.games, openings=openings,
        order=pair_order(len(openings), (args.games + 1) // 2, True, seed, 0),
        concurrency=args.concurrency, pgn=pgn_path, pgn_append=bool(args.pgn), event="Pruner soak",
        site="?", start_timeout=args.start_timeout,
        header=("Soak: seed %d; a move over the clock by more than %g ms is a time loss, no move %g ms "
                "after the clock is a stall" % (seed, args.margin, args.stall_grace),))
    started = time.monotonic()
    result = Match(config, out=out).run()
    seconds = time.monotonic() - started
    margins = read_margins(pgn_path, clock, args.margin / 1000.0) if os.path.exists(pgn_path) else Margins()
    faults = {name: 0 for name in FAULT_NAMES}
    details = []
    late_games = dict(margins.overruns)
    for fault in result.tally.faults:
        kind = classify(fault.kind, fault.detail)
        if kind == "time":
            late_games.setdefault(fault.game, "%s: %s" % (fault.name, fault.detail))
            continue
        faults[kind] = faults.get(kind, 0) + 1
        details.append("game %d: %s (%s) %s: %s" % (fault.game, fault.name, kind, fault.kind, fault.detail))
    faults["time"] = len(late_games)
    details.extend("game %d: time loss: %s" % item for item in sorted(late_games.items()))
    with open(stderr_log, encoding="utf-8", errors="replace") as handle:
        stderr = handle.read()
    code = 2 if result.exit_code == 2 else (1 if any(faults.values()) or stderr else 0)
    return SoakResult(clock.pgn_tag(), args.games, result.tally, faults, margins, stderr, seconds, code, details)


def commit_label(repo: str = REPO) -> str:
    """The checkout's short commit, ``+dirty`` when tracked files differ from it; ``?`` without git."""
    try:
        commit = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"
    return commit + ("+dirty" if dirty else "") if commit else "?"


def summary_line(result: SoakResult, engine: str, load: Tuple[float, float], seed: int = 1,
                 commit: str = "?") -> str:
    """One line with everything that matters; the last line of each time control."""
    tally, faults, margins = result.tally, result.faults, result.margins
    total = sum(faults.values()) + (1 if result.stderr else 0)
    closest = "n/a" if margins.closest is None else "%+.0f ms (%s)" % (margins.closest * 1000, margins.closest_at)
    return ("soak %s: tc %s, %d/%d games, faults %d (time losses %d, stalls %d, illegal moves %d, crashes %d, "
            "failed starts %d, stderr %d bytes); W %d D %d L %d; closest call %s; slowest move %.3fs over %d moves; "
            "%.0fs; load %.2f -> %.2f; %s; seed %d; commit %s" % (
                datetime.date.today().isoformat(), result.tc, tally.games, result.games, total, faults["time"],
                faults["stall"], faults["illegal"], faults["crash"], faults["start"], len(result.stderr.encode()),
                tally.wins, tally.draws, tally.losses, closest, margins.slowest, margins.moves, result.seconds,
                load[0], load[1], engine, seed, commit))


SUMMARY = re.compile(
    r"^soak (?P<date>\S+): tc (?P<tc>\S+), (?P<played>\d+)/(?P<games>\d+) games, faults (?P<faults>\d+) "
    r"\(time losses (?P<time>\d+), stalls (?P<stall>\d+), illegal moves (?P<illegal>\d+), "
    r"crashes (?P<crash>\d+), failed starts (?P<start>\d+), stderr (?P<stderr>\d+) bytes\); "
    r"W (?P<w>\d+) D (?P<d>\d+) L (?P<l>\d+); closest call (?P<closest>[-+]\d+ ms|n/a)[^;]*; "
    r"slowest move (?P<slowest>[\d.]+)s over (?P<moves>\d+) moves; [^;]*; load [^;]*; (?P<engine>.+?)"
    r"(?:; seed (?P<seed>\d+))?(?:; commit (?P<commit>\S+))?$")
"""A summary line (lines written before seeds and commits were recorded have neither). The
engine label may hold ``;`` (``sh -c '...; exec ...'``), so it is matched lazily up to the end."""

_COUNTS = ("played", "faults", "time", "stall", "illegal", "crash", "start", "stderr", "w", "d", "l", "moves")


def tally(lines: List[str]) -> List[Tuple[str, int]]:
    """The summary lines added up per (time control, engine, commit): a (line, faults) pair per
    group, in order of first appearance; lines that are not summary lines are skipped."""
    groups: Dict[Tuple[str, str, str], dict] = {}
    for line in lines:
        match = SUMMARY.match(line.strip())
        if match is None:
            continue
        key = (match["tc"], match["engine"], match["commit"] or "?")
        group = groups.setdefault(key, dict({name: 0 for name in _COUNTS}, runs=0, seeds=[], dates=[],
                                            closest=None, slowest=0.0))
        group["runs"] += 1
        for name in _COUNTS:
            group[name] += int(match[name])
        group["seeds"].append(match["seed"] or "?")
        if match["date"] not in group["dates"]:
            group["dates"].append(match["date"])
        if match["closest"] != "n/a":
            ms = int(match["closest"].split()[0])
            group["closest"] = ms if group["closest"] is None else min(group["closest"], ms)
        group["slowest"] = max(group["slowest"], float(match["slowest"]))
    out: List[Tuple[str, int]] = []
    for (tc, engine, commit), g in groups.items():
        seeds = sorted(set(g["seeds"]))
        out.append((
            "soak total: tc %s, %s, commit %s: %d games in %d runs (seeds %s; %s), faults %d (time losses %d, "
            "stalls %d, illegal moves %d, crashes %d, failed starts %d, stderr %d bytes); W %d D %d L %d; "
            "closest call %s; slowest move %.3fs over %d moves%s" % (
                tc, engine, commit, g["played"], g["runs"], ", ".join(seeds), ", ".join(g["dates"]), g["faults"],
                g["time"], g["stall"], g["illegal"], g["crash"], g["start"], g["stderr"], g["w"], g["d"], g["l"],
                "n/a" if g["closest"] is None else "%+d ms" % g["closest"], g["slowest"], g["moves"],
                "; seeds repeated" if len(seeds) < len(g["seeds"]) else ""), g["faults"]))
    return out


def interpreter_label(engine: str) -> str:
    """The engine command as the summary names it: ``CPython 3.11.7 -m pruner`` for this interpreter."""
    words = shlex.split(engine)
    label = os.path.basename(words[0])
    if words[0] == sys.executable:
        label = "%s %s" % (platform.python_implementation(), platform.python_version())
    return label + " " + " ".join(words[1:])


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``soak.py``: play each time control, or add up summary lines with ``--tally``; the exit status."""
    parser = ArgumentParser(prog="soak.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="%s -m pruner" % shlex.quote(sys.executable),
                        help="engine command, run from the repository root (default: this Python -m pruner)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="UCI option for both engines (repeatable), e.g. Hash=16")
    parser.add_argument("--tc", action=checked(time_control, append=True), metavar="BASE+INC",
                        help="time control, repeatable (default: %s)" % " and ".join(DEFAULT_TCS))
    parser.add_argument("--games", action=checked(game_pairs), default=1000,
                        help="games per time control, in pairs with colours reversed: an even number (default 1000)")
    parser.add_argument("--jobs", "--concurrency", dest="concurrency", action=checked(positive_int), default=1,
                        metavar="N",
                        help="games at the same time (default 1; --concurrency is the old name)")
    parser.add_argument("--margin", type=float, default=0.0, metavar="MS",
                        help="milliseconds a move may overrun the clock before it is a time loss (default 0)")
    parser.add_argument("--stall-grace", type=float, default=1000.0, metavar="MS",
                        help="milliseconds past the clock before a move that has not come is a stall (default 1000)")
    parser.add_argument("--openings", default=DEFAULT_BOOK, metavar="FILE",
                        help="EPD/PGN openings (default: scripts/books/noob_3moves_5000.epd)")
    parser.add_argument("--seed", type=int, default=1, help="opening order seed (default 1)")
    parser.add_argument("--pgn", metavar="FILE", help="keep the games in this PGN file (appended)")
    parser.add_argument("--summary", metavar="FILE", help="also append each summary line to this file")
    parser.add_argument("--start-timeout", type=float, default=20.0, metavar="S",
                        help="seconds an engine has to answer uci/isready (default 20)")
    parser.add_argument("--quiet", action="store_true", help="no per-game lines, only faults and summaries")
    parser.add_argument("--tally", metavar="FILE",
                        help="play nothing: add up FILE's summary lines per time control, engine and commit")
    args = parser.parse_args(argv)
    if args.tally:
        try:
            with open(args.tally, encoding="utf-8") as handle:
                totals = tally(handle.read().splitlines())
        except OSError as exc:
            parser.error(str(exc))
        for line, _ in totals:
            print(line)
        if not totals:
            print("no summary lines in %s" % args.tally)
        return 1 if not totals or any(faults for _, faults in totals) else 0
    clocks = args.tc or [parse_tc(text) for text in DEFAULT_TCS]
    try:
        for text in args.option:
            parse_option(text)
        openings = load_openings(args.openings) if args.openings else [Opening(chess.Board(), [], "start position")]
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    engine_label = interpreter_label(args.engine)
    commit = commit_label()
    worst = 0
    for clock in clocks:
        load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        out = io.StringIO() if args.quiet else sys.stdout
        print("Soak: %d games at %s, %s, concurrency %d, load average %.2f" % (
            args.games, clock.pgn_tag(), engine_label, args.concurrency, load_before), flush=True)
        result = soak(clock, args, openings, out)
        load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        for line in result.details:
            print("fault: " + line)
        if result.stderr:
            print("engine stderr (first lines):")
            for line in result.stderr.splitlines()[:10]:
                print("  " + line)
        line = summary_line(result, engine_label, (load_before, load_after), args.seed, commit)
        print(line, flush=True)
        if args.summary:
            with open(args.summary, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        worst = max(worst, result.exit_code)
    return worst


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
