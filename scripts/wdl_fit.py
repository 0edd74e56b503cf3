#!/usr/bin/env python3
"""Fit the win/draw/loss model of engine/wdl.py to Pruner's own games.

    python3 scripts/wdl_fit.py selfplay.pgn [more.pgn ...] [--degree 1] [--min-move 9]
        [--max-cp 1000] [--depth N] [--folds 5] [--markdown]
    python3 scripts/wdl_fit.py docs/wdl-selfplay.pgn.gz      # the games engine/wdl.py was fitted to

Reads PGN games Pruner played against itself (scripts/match.py writes each engine move's
search score in its comment: ``+0.35/7 0.251s``, from the mover's side) and keeps, for every
engine move that passes the filters, the position before the move: its score ``cp`` from the
side to move, its material (``pruner.engine.wdl.material``) and the game's result from the side to
move. Games that ended by a fault (time forfeit, illegal move, crash: Termination other
than ``normal`` or ``adjudication``), unfinished games (``*``) and exact repeats of an
earlier game are left out. Moves without a score (book moves, other tools' PGN) are left out,
or with ``--depth N`` searched again at that depth (``pruner.engine.analysis.Analyser``, one per
game, in order).

The model (Stockfish's): the side to move wins with ``1 / (1 + exp((a - cp) / b))`` and loses
with the same curve at ``-cp``; a draw is the rest; ``a`` and ``b`` are polynomials of degree
``--degree`` in ``m = material / 58``. The fit maximises the likelihood of the observed
results (Newton-type steps with the outer-product Hessian approximation, BHHH, and a
backtracking line search; plain Python, no numpy); the constants printed come from all
games. Output: the data counts, the cross-validated log-loss (``--folds``: every game's
positions predicted by a fit to the other games) of the constant model (the overall
win/draw/loss rates) and of the model with ``a`` and ``b`` of degree 0 to 3, the fitted
constants (paste them into engine/wdl.py) with standard errors clustered by game, and
calibration tables (predicted and observed results per score bucket and per material
bucket); ``--markdown`` prints the tables as Markdown for docs/wdl.md.
"""

import argparse
import gzip
import math
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import chess
import chess.pgn

from pruner.engine import wdl as model
from pruner.arguments import ArgumentParser

from pruner.lab.matchlib.pgnread import ended_on_the_board, parse_score

RESULT_POINTS = {"1-0": 1, "1/2-1/2": 0, "0-1": -1}


@dataclass
class Sample:
    """One position: score and material, and the game's result, all from the side to move."""

    cp: int
    material: int
    outcome: int
    """1 the side to move won, 0 a draw, -1 it lost."""
    game: int
    """Index of the distinct game it comes from (games are the units held out)."""


@dataclass
class Counts:
    """What was read and what was left out, and why."""

    games: int = 0
    games_kept: int = 0
    skipped_games: Dict[str, int] = field(default_factory=dict)
    moves: int = 0
    kept: int = 0
    skipped_moves: Dict[str, int] = field(default_factory=dict)

    def skip_game(self, reason: str) -> None:
        self.skipped_games[reason] = self.skipped_games.get(reason, 0) + 1

    def skip_move(self, reason: str) -> None:
        self.skipped_moves[reason] = self.skipped_moves.get(reason, 0) + 1


def read_samples(paths: Iterable[str], min_move: int = 9, max_cp: int = 1000, depth: Optional[int] = None,
                 counts: Optional[Counts] = None) -> List[Sample]:
    """The positions of the games in ``paths`` that pass the filters (see the module docstring):
    from full move ``min_move`` on, side to move not in check, no mate score, ``|cp| <= max_cp``."""
    counts = counts if counts is not None else Counts()
    samples: List[Sample] = []
    seen = set()
    analyser = None
    if depth is not None:
        from pruner.engine.analysis import Analyser
        analyser = Analyser()
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                counts.games += 1
                result = RESULT_POINTS.get(game.headers.get("Result", "*"))
                termination = game.headers.get("Termination", "normal")
                if result is None:
                    counts.skip_game("unfinished")
                    continue
                if not ended_on_the_board(termination):
                    counts.skip_game(termination)
                    continue
                board = game.board()
                nodes = list(game.mainline())
                identity = (board.fen(), tuple(node.move for node in nodes))
                if identity in seen:
                    counts.skip_game("repeat of an earlier game")
                    continue
                seen.add(identity)
                index = counts.games_kept
                counts.games_kept += 1
                if analyser is not None:
                    analyser.new_game()
                for node in nodes:
                    counts.moves += 1
                    cp, mate = parse_score(node.comment)
                    reason = None
                    if board.fullmove_number < min_move:
                        reason = "before move %d" % min_move
                    elif board.is_check():
                        reason = "side to move in check"
                    elif cp is None and not mate:
                        if analyser is None:
                            reason = "no score (book move)"
                        else:
                            score = analyser.analyse(board, depth=depth).score.relative
                            mate = score.is_mate()
                            cp = None if mate else score.score()
                    if reason is None and mate:
                        reason = "mate score"
                    if reason is None and abs(cp) > max_cp:
                        reason = "|cp| > %d" % max_cp
                    if reason is None:
                        outcome = result if board.turn == chess.WHITE else -result
                        samples.append(Sample(cp, model.material(board), outcome, index))
                        counts.kept += 1
                    else:
                        counts.skip_move(reason)
                    board.push(node.move)
    return samples


# -- the model and its likelihood --------------------------------------------------------------

def _powers(m: float, degree: int) -> List[float]:
    """``[m**degree, ..., m, 1]``: highest power first, as the coefficients are written."""
    return [m ** k for k in range(degree, -1, -1)]


def _scaled(material: int) -> float:
    return min(model.MATERIAL_MAX, max(model.MATERIAL_MIN, material)) / model.MATERIAL_SCALE


def sample_gradient(sample: Sample, a_coeffs: Sequence[float], b_coeffs: Sequence[float]
                    ) -> Tuple[float, List[float]]:
    """(log-likelihood, its gradient in (a coefficients + b coefficients)) of one sample."""
    powers = _powers(_scaled(sample.material), len(a_coeffs) - 1)
    a = sum(c * p for c, p in zip(a_coeffs, powers))
    b = sum(c * p for c, p in zip(b_coeffs, powers))
    b = max(b, 1.0)
    x = min(model.CP_LIMIT, max(-model.CP_LIMIT, sample.cp))
    u = (x - a) / b
    v = (-x - a) / b
    win = model._logistic(u)
    loss = model._logistic(v)
    # d(win)/da, d(win)/db and the same for loss; a draw is 1 - win - loss.
    dwin_da, dwin_db = -win * (1 - win) / b, -win * (1 - win) * u / b
    dloss_da, dloss_db = -loss * (1 - loss) / b, -loss * (1 - loss) * v / b
    if sample.outcome > 0:
        p, dp_da, dp_db = win, dwin_da, dwin_db
    elif sample.outcome < 0:
        p, dp_da, dp_db = loss, dloss_da, dloss_db
    else:
        p, dp_da, dp_db = 1.0 - win - loss, -dwin_da - dloss_da, -dwin_db - dloss_db
    p = max(p, 1e-12)
    da, db = dp_da / p, dp_db / p
    return math.log(p), [da * q for q in powers] + [db * q for q in powers]


def log_likelihood(samples: Sequence[Sample], a_coeffs: Sequence[float], b_coeffs: Sequence[float]) -> float:
    """Sum of the log-probabilities the model gives the observed results."""
    total = 0.0
    for sample in samples:
        win, draw, loss = model.probabilities(sample.cp, sample.material, a_coeffs, b_coeffs)
        p = win if sample.outcome > 0 else loss if sample.outcome < 0 else draw
        total += math.log(max(p, 1e-12))
    return total


def _solve(matrix: List[List[float]], vector: List[float]) -> List[float]:
    """``matrix x = vector`` by Gaussian elimination with partial pivoting (small systems)."""
    n = len(vector)
    rows = [list(row) + [value] for row, value in zip(matrix, vector)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if abs(rows[col][col]) < 1e-300:
            raise ZeroDivisionError("singular system")
        for r in range(n):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                if factor:
                    for c in range(col, n + 1):
                        rows[r][c] -= factor * rows[col][c]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _outer_sum(vectors: Iterable[List[float]], n: int) -> List[List[float]]:
    total = [[0.0] * n for _ in range(n)]
    for g in vectors:
        for i in range(n):
            gi = g[i]
            if gi:
                row = total[i]
                for j in range(n):
                    row[j] += gi * g[j]
    return total


@dataclass
class Fit:
    """A fitted model: coefficients (highest power first), the log-likelihood, the iterations,
    and game-clustered standard errors of the coefficients."""

    a_coeffs: List[float]
    b_coeffs: List[float]
    log_likelihood: float
    iterations: int
    a_errors: List[float] = field(default_factory=list)
    b_errors: List[float] = field(default_factory=list)


def fit(samples: Sequence[Sample], degree: int = 1, start: Tuple[float, float] = (150.0, 80.0),
        max_iterations: int = 100, tolerance: float = 1e-9) -> Fit:
    """Maximum-likelihood coefficients of ``a(m)`` and ``b(m)``, polynomials of ``degree``."""
    if not samples:
        raise ValueError("no positions to fit")
    n = 2 * (degree + 1)
    theta = [0.0] * degree + [start[0]] + [0.0] * degree + [start[1]]
    split = degree + 1
    current = log_likelihood(samples, theta[:split], theta[split:])
    iterations = 0
    for iterations in range(1, max_iterations + 1):
        gradients = [sample_gradient(s, theta[:split], theta[split:])[1] for s in samples]
        total = [sum(g[i] for g in gradients) for i in range(n)]
        information = _outer_sum(gradients, n)
        for i in range(n):
            information[i][i] *= 1.0 + 1e-9  # keeps a nearly singular matrix solvable
        step = _solve(information, total)
        scale = 1.0
        while True:
            candidate = [t + scale * s for t, s in zip(theta, step)]
            value = log_likelihood(samples, candidate[:split], candidate[split:])
            if value >= current or scale < 1e-6:
                break
            scale /= 2
        improvement = value - current
        if value >= current:
            theta, current = candidate, value
        if improvement <= tolerance * len(samples) or scale < 1e-6:
            break
    errors = standard_errors(samples, theta[:split], theta[split:])
    return Fit(theta[:split], theta[split:], current, iterations, errors[:split], errors[split:])


def standard_errors(samples: Sequence[Sample], a_coeffs: Sequence[float], b_coeffs: Sequence[float]) -> List[float]:
    """Standard errors of the coefficients, robust to the positions of one game being alike:
    the sandwich ``B^-1 C B^-1`` with ``B`` the outer products per position and ``C`` per game."""
    n = len(a_coeffs) + len(b_coeffs)
    per_game: Dict[int, List[float]] = {}
    gradients = []
    for sample in samples:
        g = sample_gradient(sample, a_coeffs, b_coeffs)[1]
        gradients.append(g)
        acc = per_game.setdefault(sample.game, [0.0] * n)
        for i in range(n):
            acc[i] += g[i]
    bread = _outer_sum(gradients, n)
    meat = _outer_sum(per_game.values(), n)
    try:
        inverse_columns = [_solve(bread, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    except ZeroDivisionError:
        return [float("nan")] * n
    inverse = [[inverse_columns[j][i] for j in range(n)] for i in range(n)]
    result = []
    for k in range(n):
        row = inverse[k]
        variance = sum(row[i] * meat[i][j] * row[j] for i in range(n) for j in range(n))
        result.append(math.sqrt(max(variance, 0.0)))
    return result


# -- reports ----------------------------------------------------------------------------------

def constant_log_likelihood(train: Sequence[Sample], test: Sequence[Sample]) -> float:
    """Log-likelihood on ``test`` of the model that ignores the score: the win/draw/loss rates
    of ``train`` (from the side to move)."""
    total = len(train)
    rates = {o: max(sum(1 for s in train if s.outcome == o), 1) / total for o in (1, 0, -1)}
    return sum(math.log(rates[s.outcome]) for s in test)


def calibration(samples: Sequence[Sample], a_coeffs: Sequence[float], b_coeffs: Sequence[float],
                key, buckets: Sequence[Tuple[float, float]]) -> List[Tuple[Tuple[float, float], int, Tuple, Tuple]]:
    """Per bucket of ``key(sample)``: (bucket, positions, predicted W/D/L, observed W/D/L), in
    per mille."""
    rows = []
    for low, high in buckets:
        inside = [s for s in samples if low <= key(s) < high]
        if not inside:
            continue
        predicted = [0.0, 0.0, 0.0]
        observed = [0, 0, 0]
        for s in inside:
            for i, p in enumerate(model.probabilities(s.cp, s.material, a_coeffs, b_coeffs)):
                predicted[i] += p
            observed[{1: 0, 0: 1, -1: 2}[s.outcome]] += 1
        n = len(inside)
        rows.append(((low, high), n, tuple(round(1000 * p / n) for p in predicted),
                     tuple(round(1000 * o / n) for o in observed)))
    return rows


def _bucket_label(low: float, high: float) -> str:
    if low == -math.inf:
        return "< %d" % high
    if high == math.inf:
        return ">= %d" % low
    return "%d to %d" % (low, high - 1)


def print_table(title: str, rows, markdown: bool, out) -> None:
    header = ["%s" % title, "positions", "predicted W/D/L", "observed W/D/L"]
    lines = [[_bucket_label(*bucket), str(n), "%d/%d/%d" % predicted, "%d/%d/%d" % observed]
             for bucket, n, predicted, observed in rows]
    if markdown:
        out.write("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
        for line in lines:
            out.write("| " + " | ".join(line) + " |\n")
    else:
        widths = [max(len(r[i]) for r in [header] + lines) for i in range(len(header))]
        for line in [header] + lines:
            out.write("  ".join(text.rjust(width) for text, width in zip(line, widths)) + "\n")
    out.write("\n")


def cross_validate(samples: Sequence[Sample], folds: int, degree: Optional[int]) -> float:
    """Mean log-loss per position when each fold of games (game index modulo ``folds``) is
    predicted by the model fitted to the other folds; ``degree`` None: the constant model."""
    total = 0.0
    for fold in range(folds):
        train = [s for s in samples if s.game % folds != fold]
        test = [s for s in samples if s.game % folds == fold]
        if not train or not test:
            continue
        if degree is None:
            total -= constant_log_likelihood(train, test)
        else:
            model_fit = fit(train, degree)
            total -= log_likelihood(test, model_fit.a_coeffs, model_fit.b_coeffs)
    return total / len(samples)


CP_BUCKETS = [(-math.inf, -400)] + [(low, low + 100) for low in range(-400, 400, 100)] + [(400, math.inf)]
MATERIAL_BUCKETS = [(0, 20), (20, 30), (30, 40), (40, 50), (50, 60), (60, 70), (70, 100)]


def _coefficients(name: str, values: Sequence[float]) -> str:
    return "%s = (%s)" % (name, ", ".join("%.3f" % v for v in values))


def main(argv: Optional[List[str]] = None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pgn", nargs="+", help="PGN files of Pruner's games against itself (.pgn.gz too)")
    parser.add_argument("--degree", type=int, default=1, help="degree of a(m) and b(m) (default: 1)")
    parser.add_argument("--min-move", type=int, default=9,
                        help="first full move whose positions count (default: 9, after move 8)")
    parser.add_argument("--max-cp", type=int, default=1000, help="leave out |cp| above this (default: 1000)")
    parser.add_argument("--depth", type=int, default=None,
                        help="search positions without a score in their comment to this depth")
    parser.add_argument("--folds", type=int, default=5,
                        help="cross-validation by game: K folds (0: none) (default: 5)")
    parser.add_argument("--markdown", action="store_true", help="tables in Markdown")
    args = parser.parse_args(argv)
    if args.degree < 0 or args.min_move < 1 or args.max_cp < 1 or (args.depth is not None and args.depth < 1):
        parser.error("--degree >= 0, --min-move >= 1, --max-cp >= 1, --depth >= 1")
    out = sys.stdout

    counts = Counts()
    samples = read_samples(args.pgn, args.min_move, args.max_cp, args.depth, counts)
    out.write("games: %d read, %d kept%s\n" % (counts.games, counts.games_kept, "".join(
        "; %d %s" % (n, why) for why, n in sorted(counts.skipped_games.items()))))
    out.write("positions: %d moves, %d kept%s\n" % (counts.moves, counts.kept, "".join(
        "; %d %s" % (n, why) for why, n in sorted(counts.skipped_moves.items()))))
    if not samples:
        out.write("nothing to fit\n")
        return 1
    results = {o: sum(1 for s in samples if s.outcome == o) for o in (1, 0, -1)}
    out.write("results from the side to move: %d wins, %d draws, %d losses\n\n"
              % (results[1], results[0], results[-1]))

    if args.folds > 1 and counts.games_kept >= args.folds:
        out.write("%d-fold cross-validation by game (each game's positions predicted by a fit to the\n"
                  "other folds): mean log-loss per position, nats, lower is better\n" % args.folds)
        constant = cross_validate(samples, args.folds, None)
        out.write("  constant W/D/L rates      %.4f\n" % constant)
        for degree in sorted(set(range(0, 4)) | {args.degree}):
            loss = cross_validate(samples, args.folds, degree)
            out.write("  a, b of degree %d          %.4f  (%.1f%% below constant)\n"
                      % (degree, loss, 100 * (constant - loss) / constant))
        out.write("\n")

    final = fit(samples, args.degree)
    constant = -constant_log_likelihood(samples, samples) / len(samples)
    loss = -final.log_likelihood / len(samples)
    out.write("fit on all %d positions (%d games), degree %d, %d iterations: mean log-loss %.4f "
              "(constant rates %.4f)\n" % (len(samples), counts.games_kept, args.degree, final.iterations,
                                           loss, constant))
    out.write("standard errors (clustered by game): a %s, b %s\n\n" % (
        ", ".join("%.1f" % e for e in final.a_errors), ", ".join("%.1f" % e for e in final.b_errors)))
    out.write("# engine/wdl.py\n%s\n%s\n\n" % (_coefficients("A_COEFFS", final.a_coeffs),
                                               _coefficients("B_COEFFS", final.b_coeffs)))
    for material in (78, 60, 40, 20):
        a, b = model.parameters(material, final.a_coeffs, final.b_coeffs)
        out.write("material %2d: a = %.0f cp, b = %.0f cp\n" % (material, a, b))
    out.write("\n")
    print_table("cp (side to move)", calibration(samples, final.a_coeffs, final.b_coeffs,
                                                 lambda s: s.cp, CP_BUCKETS), args.markdown, out)
    print_table("material", calibration(samples, final.a_coeffs, final.b_coeffs,
                                        lambda s: s.material, MATERIAL_BUCKETS), args.markdown, out)
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
