#!/usr/bin/env python3
"""How far the review's judgements can be trusted: Pruner's inaccuracies, mistakes, blunders
and accuracy at several search budgets, against a deep reference on the same games (issue 45).

    python scripts/judge_agreement.py run --out DIR --games 15 \\
        --reference "--engine /usr/games/stockfish --engine-option Threads=1 --hash 64 --depth 20" \\
        --budget "--depth 4" --budget "--depth 6" --budget "--movetime 1000" GAMES.pgn.gz
    python scripts/judge_agreement.py compare REFERENCE.jsonl CANDIDATE.jsonl...

``run`` analyses the first ``--games`` games of the PGN once per budget and once for the
reference, each with ``pruner analyse`` of this checkout (the running interpreter, ``--jobs 1``,
one run after the other), into ``DIR/<label>.jsonl``, with the run's wall and CPU time in
``DIR/<label>.time.json``; a run whose records are already there is not repeated (the
reference is made once). Then it prints the table ``compare`` prints.

``compare`` reads the records (``pruner analyse`` JSON lines of the same games) and says, per
candidate against the reference:

* **per move**: the judgement class (none, inaccuracy, mistake, blunder) of every move both
  judged (analysed before and after it), as a confusion matrix, the share of moves classed
  alike and Cohen's kappa (agreement beyond chance);
* **mistakes and blunders**: recall (the share of the reference's mistakes and blunders the
  candidate calls a mistake or a blunder) and precision (the share of the candidate's that the
  reference calls so), and the share of the reference's blunders the candidate calls a mistake
  or a blunder ("flagged");
* **per player** (each side of each game): the accuracy the review shows (lichess's formula,
  protocol/analyse_app/review/accuracy.py) minus the reference's, and the difference in the number
  of mistakes and blunders;
* **time**: seconds per game, CPU and wall (from ``run``'s time files; else the sum of the
  records' ``time_ms``).

With ``--bootstrap N`` the recall and kappa carry a 95% interval: the games drawn with
replacement N times (seeded), the 2.5th and 97.5th percentiles of the figure over the draws (the
moves of one game are not independent, the games are); and the difference in recall between
each row and the one before, with its interval from the same draws for both (paired).

Everything is computed by the review's own code (``GameReview``), so the numbers are those the
page would show.
"""

import argparse
import json
import math
import os
import random
import re
import resource
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import chess

from pruner.lab import matchlib
from pruner.analyse_app.review.model import JUDGEMENTS, GameReview, PlyView
from pruner.arguments import ArgumentParser

CLASSES = ("none",) + JUDGEMENTS
"""Judgement classes of a judged move, mildest first."""

SERIOUS = ("mistake", "blunder")
"""The judgements recall and precision count."""


# -- reading the records ----------------------------------------------------------------------

def read_games(path: str) -> Dict[int, Dict[int, Dict]]:
    """The records of ``path`` by game number, then by ply; positions (not games) are skipped."""
    games: Dict[int, Dict[int, Dict]] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise SystemExit("%s:%d: not a JSON record: %s" % (path, number, exc)) from None
            if record.get("game") is None or record.get("ply") is None:
                continue
            games.setdefault(record["game"], {})[record["ply"]] = record
    if not games:
        raise SystemExit("%s: no game records (pruner analyse output of a PGN file is expected)" % path)
    return games


def review_of(records: Dict[int, Dict]) -> GameReview:
    """The review the page would make of one game's records (counts, accuracy)."""
    ordered = [records[ply] for ply in sorted(records)]
    start = chess.Board(ordered[0]["fen"])
    plies = [PlyView(record["ply"], chess.Board(record["fen"]), chess.Move.from_uci(record["move_uci"]),
                     record.get("move_san") or record["move_uci"], record)
             for record in ordered if record.get("move_uci")]
    return GameReview(0, ordered[0].get("source") or "", {}, start, plies, records, "")


def judged_class(record: Dict) -> Optional[str]:
    """The move's class, or None when it was not judged (the position after it not analysed)."""
    if record.get("cp_loss") is None:
        return None
    return record.get("judgement") or "none"


# -- the comparison ---------------------------------------------------------------------------

@dataclass
class Agreement:
    """A candidate's judgements against the reference's."""

    label: str
    matrix: Dict[Tuple[str, str], int] = field(default_factory=dict)
    """Moves by (reference class, candidate class)."""
    accuracy_deltas: List[float] = field(default_factory=list)
    """Candidate minus reference accuracy, one per player with both."""
    serious_deltas: List[int] = field(default_factory=list)
    """Candidate minus reference count of mistakes and blunders, one per player."""
    games: int = 0
    cpu_s: Optional[float] = None
    wall_s: Optional[float] = None
    search_s: float = 0.0
    """Sum of the records' ``time_ms``, in seconds."""
    intervals: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    """95% bootstrap intervals by measure (``recall``, ``kappa``), when computed."""
    parts: List["Agreement"] = field(default_factory=list, repr=False)
    """The agreement game by game, in game order (``compare``)."""

    @property
    def moves(self) -> int:
        return sum(self.matrix.values())

    def count(self, reference: Sequence[str] = CLASSES, candidate: Sequence[str] = CLASSES) -> int:
        return sum(n for (ref, cand), n in self.matrix.items() if ref in reference and cand in candidate)

    @property
    def agreement(self) -> Optional[float]:
        """Share of moves classed alike."""
        return sum(self.matrix.get((c, c), 0) for c in CLASSES) / self.moves if self.moves else None

    @property
    def kappa(self) -> Optional[float]:
        """Cohen's kappa of the two classings (1: identical, 0: no better than chance)."""
        n = self.moves
        if not n:
            return None
        observed = self.agreement
        expected = sum(self.count(reference=(c,)) * self.count(candidate=(c,)) for c in CLASSES) / (n * n)
        return 1.0 if expected == 1 else (observed - expected) / (1 - expected)

    @property
    def recall(self) -> Optional[float]:
        """Share of the reference's mistakes and blunders the candidate calls a mistake or blunder."""
        return _share(self.count(SERIOUS, SERIOUS), self.count(reference=SERIOUS))

    @property
    def precision(self) -> Optional[float]:
        """Share of the candidate's mistakes and blunders the reference calls so."""
        return _share(self.count(SERIOUS, SERIOUS), self.count(candidate=SERIOUS))

    @property
    def blunders_flagged(self) -> Optional[float]:
        """Share of the reference's blunders the candidate calls a mistake or a blunder."""
        return _share(self.count(("blunder",), SERIOUS), self.count(reference=("blunder",)))

    @property
    def accuracy_mean_abs(self) -> Optional[float]:
        return statistics.mean(abs(d) for d in self.accuracy_deltas) if self.accuracy_deltas else None

    @property
    def accuracy_bias(self) -> Optional[float]:
        return statistics.mean(self.accuracy_deltas) if self.accuracy_deltas else None

    @property
    def accuracy_p90(self) -> Optional[float]:
        """The 90th percentile of the absolute accuracy differences (nearest rank)."""
        if not self.accuracy_deltas:
            return None
        ordered = sorted(abs(d) for d in self.accuracy_deltas)
        return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]

    @property
    def serious_mean_abs(self) -> Optional[float]:
        return statistics.mean(abs(d) for d in self.serious_deltas) if self.serious_deltas else None


def _share(part: int, whole: int) -> Optional[float]:
    return part / whole if whole else None


def per_game(reference: Dict[int, Dict[int, Dict]], candidate: Dict[int, Dict[int, Dict]],
             label: str) -> List[Agreement]:
    """The agreement of ``candidate`` with ``reference`` game by game, over the games both
    analysed; the games must be the same (their positions are checked)."""
    games = []
    for number in sorted(set(reference) & set(candidate)):
        ref_game, cand_game = reference[number], candidate[number]
        result = Agreement(label, games=1)
        for ply in set(ref_game) & set(cand_game):
            if ref_game[ply]["fen"] != cand_game[ply]["fen"]:
                raise SystemExit("%s: game %d ply %d is not the reference's position: the runs analysed "
                                 "different games" % (label, number, ply))
            ref_class, cand_class = judged_class(ref_game[ply]), judged_class(cand_game[ply])
            if ref_class is not None and cand_class is not None:
                result.matrix[(ref_class, cand_class)] = result.matrix.get((ref_class, cand_class), 0) + 1
        ref_stats, cand_stats = review_of(ref_game).stats(), review_of(cand_game).stats()
        for side in (chess.WHITE, chess.BLACK):
            ref_side, cand_side = ref_stats[side], cand_stats[side]
            if ref_side.accuracy is not None and cand_side.accuracy is not None:
                result.accuracy_deltas.append(cand_side.accuracy - ref_side.accuracy)
            result.serious_deltas.append(sum(cand_side.counts[name] for name in SERIOUS)
                                         - sum(ref_side.counts[name] for name in SERIOUS))
        result.search_s = sum(record.get("time_ms") or 0 for record in cand_game.values()) / 1000
        games.append(result)
    if not games:
        raise SystemExit("%s: no game in common with the reference" % label)
    return games


def merged(parts: Sequence[Agreement], label: str) -> Agreement:
    """The agreements of several games as one."""
    result = Agreement(label)
    for part in parts:
        for key, moves in part.matrix.items():
            result.matrix[key] = result.matrix.get(key, 0) + moves
        result.accuracy_deltas += part.accuracy_deltas
        result.serious_deltas += part.serious_deltas
        result.games += part.games
        result.search_s += part.search_s
    return result


def compare(reference: Dict[int, Dict[int, Dict]], candidate: Dict[int, Dict[int, Dict]],
            label: str, bootstrap: int = 0, seed: int = 1) -> Agreement:
    """The agreement of ``candidate`` with ``reference`` over the games both analysed (see
    ``per_game``); with ``bootstrap`` draws, the 95% intervals of recall and kappa."""
    games = per_game(reference, candidate, label)
    result = merged(games, label)
    result.parts = games
    if bootstrap:
        rng = random.Random(seed)
        draws = [merged([rng.choice(games) for _ in games], label) for _ in range(bootstrap)]
        for measure in ("recall", "kappa"):
            values = sorted(value for value in (getattr(draw, measure) for draw in draws) if value is not None)
            if values:
                result.intervals[measure] = (values[int(0.025 * len(values))],
                                             values[max(0, int(math.ceil(0.975 * len(values))) - 1)])
    return result


# -- the table --------------------------------------------------------------------------------

def _percent(value: Optional[float]) -> str:
    return "–" if value is None else "%.0f%%" % (100 * value)


def _number(value: Optional[float], form: str = "%.1f") -> str:
    return "–" if value is None else form % value


def _interval(agreement: Agreement, measure: str, form: str, scale: float = 1) -> str:
    if measure not in agreement.intervals:
        return ""
    low, high = agreement.intervals[measure]
    return " (%s-%s)" % (form % (scale * low), form % (scale * high))


def table(agreements: Sequence[Agreement]) -> str:
    """The Markdown table of the agreements, one row per candidate."""
    lines = ["| budget | CPU s/game | wall s/game | moves | same class | kappa | M+B recall | M+B precision "
             "| blunders flagged | accuracy diff (p90) | accuracy bias | M+B count diff |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for a in agreements:
        each_game = (lambda seconds: None if seconds is None else seconds / a.games)
        lines.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s (%s) | %s | %s |" % (
            a.label, _number(each_game(a.cpu_s), "%.0f"), _number(each_game(a.wall_s), "%.0f"), a.moves,
            _percent(a.agreement), _number(a.kappa, "%.2f") + _interval(a, "kappa", "%.2f"),
            _percent(a.recall) + _interval(a, "recall", "%.0f", 100), _percent(a.precision),
            _percent(a.blunders_flagged), _number(a.accuracy_mean_abs), _number(a.accuracy_p90),
            _number(a.accuracy_bias, "%+.1f"), _number(a.serious_mean_abs)))
    return "\n".join(lines)


def confusion(agreement: Agreement) -> str:
    """The confusion matrix as a Markdown table: rows the reference, columns the candidate."""
    lines = ["| %s: reference ↓ candidate → | %s |" % (agreement.label, " | ".join(CLASSES)),
             "|---|%s" % ("---|" * len(CLASSES))]
    for ref in CLASSES:
        lines.append("| %s | %s |" % (ref, " | ".join(str(agreement.matrix.get((ref, cand), 0)) for cand in CLASSES)))
    return "\n".join(lines)


# -- running the analyses ---------------------------------------------------------------------

def label_of(budget: str) -> str:
    """A file name for a budget's run: ``--depth 6`` -> ``depth-6``; the engine's base name
    first when ``--engine`` is given (``stockfish-depth-20``)."""
    words = shlex.split(budget)
    parts = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word == "--engine" and index + 1 < len(words):
            parts.insert(0, os.path.basename(shlex.split(words[index + 1])[0]))
            skip = True
        elif word in ("--engine-option", "--hash", "--jobs"):
            skip = True  # settings, not the budget
        else:
            parts.append(word.lstrip("-"))
    return re.sub(r"[^A-Za-z0-9.]+", "-", "-".join(parts)).strip("-") or "default"


def run_budget(budget: str, pgn: str, games: int, out: str, log=sys.stderr) -> Tuple[str, Dict]:
    """Analyse the first ``games`` games of ``pgn`` with ``budget`` (``pruner analyse`` options)
    unless ``out`` already holds the records; the records' path and the run's times."""
    label = label_of(budget)
    records = os.path.join(out, label + ".jsonl")
    times_path = os.path.join(out, label + ".time.json")
    if os.path.exists(records) and os.path.exists(times_path):
        with open(times_path, encoding="utf-8") as handle:
            return records, json.load(handle)
    argv = [sys.executable, "-m", "pruner", "analyse"] + shlex.split(budget) + [
        "--games", str(games), "--jobs", "1", "-q", "-o", records + ".tmp", os.path.abspath(pgn)]
    log.write("judge_agreement: %s\n" % " ".join(shlex.quote(word) for word in argv))
    log.flush()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(argv, cwd=matchlib.ROOT)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit("judge_agreement: %s failed (exit status %d)" % (label, done.returncode))
    os.replace(records + ".tmp", records)
    times = {"budget": budget, "games": games, "wall_s": round(wall, 2),
             "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2),
             "command": " ".join(shlex.quote(word) for word in argv[1:])}
    with open(times_path, "w", encoding="utf-8") as handle:
        json.dump(times, handle, indent=1)
    return records, times


def agreements_of(reference_path: str, candidates: Sequence[Tuple[str, str, Optional[Dict]]],
                  bootstrap: int = 0) -> List[Agreement]:
    """``compare`` of each ``(label, records path, times or None)`` with the reference's records."""
    reference = read_games(reference_path)
    results = []
    for label, path, times in candidates:
        agreement = compare(reference, read_games(path), label, bootstrap)
        if times is not None:
            agreement.cpu_s, agreement.wall_s = times.get("cpu_s"), times.get("wall_s")
        results.append(agreement)
    return results


def recall_difference(first: Agreement, second: Agreement, bootstrap: int, seed: int = 1
                      ) -> Optional[Tuple[float, float, float]]:
    """``second``'s recall minus ``first``'s, with its 95% interval from ``bootstrap`` draws of
    the same games for both (paired: a game hard for one budget is hard for the other), or None
    when the two were not compared on the same games."""
    if len(first.parts) != len(second.parts) or not first.parts or first.recall is None or second.recall is None:
        return None
    rng = random.Random(seed)
    count = len(first.parts)
    differences = []
    for _ in range(bootstrap):
        drawn = [rng.randrange(count) for _ in range(count)]
        low = merged([first.parts[i] for i in drawn], "").recall
        high = merged([second.parts[i] for i in drawn], "").recall
        if low is not None and high is not None:
            differences.append(high - low)
    differences.sort()
    if not differences:
        return None
    return (second.recall - first.recall, differences[int(0.025 * len(differences))],
            differences[max(0, int(math.ceil(0.975 * len(differences))) - 1)])


def report(agreements: Sequence[Agreement], matrices: bool, bootstrap: int = 0) -> str:
    parts = [table(agreements)]
    if bootstrap:
        lines = []
        for first, second in zip(agreements, agreements[1:]):
            difference = recall_difference(first, second, bootstrap)
            if difference is not None:
                lines.append("* M+B recall, %s minus %s: %+.0f points (95%%: %+.0f to %+.0f, paired)"
                             % ((second.label, first.label) + tuple(100 * value for value in difference)))
        if lines:
            parts.append("\n".join(lines))
    if matrices:
        parts += [confusion(agreement) for agreement in agreements]
    return "\n\n".join(parts) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="analyse the games once per budget and for the reference, then compare")
    run.add_argument("pgn", help="the games (PGN, may be compressed)")
    run.add_argument("--out", required=True, help="directory for the records and times (kept out of git)")
    run.add_argument("--games", type=int, default=15, help="the first N games of the PGN (default 15)")
    run.add_argument("--reference", required=True, help="pruner analyse options of the reference run")
    run.add_argument("--budget", action="append", required=True,
                     help="pruner analyse options of one candidate run (repeatable), e.g. '--depth 6'")
    run.add_argument("--matrices", action="store_true", help="print each confusion matrix too")
    run.add_argument("--bootstrap", type=int, default=0, metavar="N",
                     help="95%% intervals of recall and kappa from N draws of the games (e.g. 2000)")
    cmp = commands.add_parser("compare", help="compare records already made")
    cmp.add_argument("reference", help="the reference's records (JSON lines)")
    cmp.add_argument("candidates", nargs="+", help="candidates' records (JSON lines; LABEL=FILE names a row)")
    cmp.add_argument("--matrices", action="store_true", help="print each confusion matrix too")
    cmp.add_argument("--bootstrap", type=int, default=0, metavar="N",
                     help="95%% intervals of recall and kappa from N draws of the games (e.g. 2000)")
    args = parser.parse_args(argv)
    if args.command == "run":
        os.makedirs(args.out, exist_ok=True)
        reference, _ = run_budget(args.reference, args.pgn, args.games, args.out)
        candidates = []
        for budget in args.budget:
            path, times = run_budget(budget, args.pgn, args.games, args.out)
            candidates.append((label_of(budget), path, times))
        sys.stdout.write(report(agreements_of(reference, candidates, args.bootstrap), args.matrices, args.bootstrap))
        return 0
    candidates = []
    for item in args.candidates:
        label, sep, path = item.partition("=")
        if not sep:
            label, path = os.path.splitext(os.path.basename(item))[0], item
        times_path = os.path.splitext(path)[0] + ".time.json"
        times = None
        if os.path.exists(times_path):
            with open(times_path, encoding="utf-8") as handle:
                times = json.load(handle)
        candidates.append((label, path, times))
    sys.stdout.write(report(agreements_of(args.reference, candidates, args.bootstrap), args.matrices,
                            args.bootstrap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
