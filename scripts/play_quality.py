#!/usr/bin/env python3
"""How a player loses: the centipawn losses of each player's moves in PGN games, judged by a
strong engine, with the two failures a weakened engine must not show (issue 26).

    python scripts/play_quality.py calib/point-elo1350.pgn calib/point-elo1700.pgn
    python scripts/play_quality.py --group rating humans.pgn          # by rating band
    python scripts/play_quality.py --records losses.jsonl games.pgn   # analyse once, re-read after

Every position of every game is analysed by ``pruner analyse`` (the review tool: the same
capped centipawn loss, lichess judgements and records as ``--report``) with ``--engine``
(Stockfish by default) at ``--depth``. Then, per player (``--group name``: the PGN's White/Black
name; ``--group rating``: the mover's own WhiteElo/BlackElo in bands of ``--band`` points):

* **the distribution of centipawn losses**: average (ACPL), median, 90th and 99th percentile,
  and the share of moves in each loss bin (``BINS``); losses are capped at 1000 as in the review;
* **judgements**: lichess's inaccuracies, mistakes and blunders per 100 moves;
* **queen hangs**: moves after which the judging engine's best reply takes the mover's queen
  and that lose at least ``HANG_LOSS`` centipawns (a one-move hang, not a queen trade);
* **won endgames**: games where the player, to move in an endgame (``is_endgame``), stood at
  least ``WON_CP`` better by the judging engine, and how those games ended (won, drawn by which
  rule, lost) and how many plies the win took from there: aimless shuffling shows as draws by
  repetition or the fifty-move rule and as long conversions.

``--records FILE`` keeps the analysis (JSON lines): when the file exists it is read instead of
analysing again (it must come from the same PGN files), so the table can be re-made at once.
"""

import argparse
import io
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import chess
import chess.pgn

from pruner.analyse_app.sources import decompressed, from_name
from pruner.arguments import ArgumentParser

from pruner.lab import matchlib
from pruner.lab.matchlib.args import checked, positive_int
from pruner.lab.matchlib.engines import find_stockfish

BINS = (0, 10, 25, 50, 100, 200, 400)
"""Lower edges of the loss bins (centipawns): 0-9, 10-24, ..., 400 and more."""
HANG_LOSS = 500
"""A queen hang loses at least this much (a queen for nothing is about 900)."""
WON_CP = 400
"""An endgame counts as won from this score (the mover's view) on, or a mate for the mover."""
PIECE_VALUES = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
ENDGAME_MATERIAL = 13
"""Endgame: each side has at most this much material besides king and pawns (a rook and a
minor piece each, or a queen and nothing else but pawns)."""


@dataclass
class GameInfo:
    """What the report needs of one PGN game: names, ratings, result and how it ended."""

    white: str
    black: str
    white_elo: Optional[int]
    black_elo: Optional[int]
    result: str
    ending: str
    """checkmate, stalemate, repetition, fifty moves, insufficient material, or 'other' (resignation,
    adjudication, time, unfinished)."""
    plies: int


@dataclass
class GroupStats:
    """The moves and games of one player (or one rating band)."""

    losses: List[int] = field(default_factory=list)
    judgements: Dict[str, int] = field(default_factory=lambda: {"inaccuracy": 0, "mistake": 0, "blunder": 0})
    queen_hangs: int = 0
    games: set = field(default_factory=set)
    won_endgames: Dict[str, int] = field(default_factory=dict)
    """How the games with a won endgame ended: 'won', 'lost', 'drawn: repetition', ..."""
    plies_to_win: List[int] = field(default_factory=list)


def is_endgame(board: chess.Board) -> bool:
    """Each side has at most ``ENDGAME_MATERIAL`` of material besides king and pawns."""
    for color in chess.COLORS:
        material = sum(value * len(board.pieces(piece, color)) for piece, value in PIECE_VALUES.items())
        if material > ENDGAME_MATERIAL:
            return False
    return True


ENDINGS = {
    chess.Termination.CHECKMATE: "checkmate", chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.THREEFOLD_REPETITION: "repetition", chess.Termination.FIVEFOLD_REPETITION: "repetition",
    chess.Termination.FIFTY_MOVES: "fifty moves", chess.Termination.SEVENTYFIVE_MOVES: "fifty moves",
}
"""python-chess's terminations, as the report names them."""


def game_ending(board: chess.Board) -> str:
    """How the game on ``board`` (its final position, with the moves played) ended by the rules
    (python-chess's ``outcome``, draws that can be claimed included), or 'other'."""
    outcome = board.outcome(claim_draw=True)
    return ENDINGS.get(outcome.termination, "other") if outcome is not None else "other"


def _elo(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text else None
    except ValueError:
        return None


def read_games(paths: Sequence[str], limit: Optional[int] = None) -> Dict[Tuple[str, int], GameInfo]:
    """``(path, game number from 1)`` -> ``GameInfo`` for every game of the PGN files (``.pgn.gz``,
    ``.pgn.bz2``, ... as ``pruner analyse`` reads them); the first ``limit`` of each file when given."""
    games = {}
    for path in paths:
        with open(path, "rb") as binary, \
                io.TextIOWrapper(decompressed(binary, from_name(path)[1]), encoding="utf-8-sig",
                                 errors="replace") as handle:
            number = 0
            while limit is None or number < limit:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                number += 1
                board = game.end().board()
                headers = game.headers
                games[(path, number)] = GameInfo(
                    white=headers.get("White", "?"), black=headers.get("Black", "?"),
                    white_elo=_elo(headers.get("WhiteElo")), black_elo=_elo(headers.get("BlackElo")),
                    result=headers.get("Result", "*"), ending=game_ending(board), plies=board.ply())
    return games


def analyse(paths: Sequence[str], engine: str, depth: int, jobs: int, output: str,
            limit: Optional[int] = None) -> None:
    """Write ``pruner analyse``'s records of every position of the games (the first ``limit``
    of each file when given) to ``output``."""
    with open(output + ".tmp", "w", encoding="utf-8") as out:
        for path in paths:
            argv = [sys.executable, "-m", "pruner", "analyse", "--engine", engine, "--depth", str(depth),
                    "--jobs", str(jobs), "--quiet", "--hash", "64"]
            argv += ["--games", str(limit)] if limit is not None else []
            print("analysing: %s" % " ".join(shlex.quote(word) for word in argv + [path]), file=sys.stderr, flush=True)
            done = subprocess.run(argv + [path], cwd=matchlib.ROOT, stdout=out)
            if done.returncode != 0:
                raise RuntimeError("pruner analyse ended with exit status %d on %s" % (done.returncode, path))
    os.replace(output + ".tmp", output)


def read_records(path: str) -> List[dict]:
    """The JSON lines of a records file."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _source_key(record: dict) -> Tuple[str, int]:
    """``(path, game number)`` of a record (its ``source`` is ``path:line``)."""
    return record["source"].rpartition(":")[0], int(record["game"])


def group_of(info: GameInfo, white_moves: bool, by: str, band: int) -> Optional[str]:
    """The group a move belongs to: the mover's name, or the band of the mover's rating (None
    when it has no rating)."""
    if by == "name":
        return info.white if white_moves else info.black
    elo = info.white_elo if white_moves else info.black_elo
    if elo is None:
        return None
    low = elo // band * band
    return "%d-%d" % (low, low + band - 1)


def hangs_queen(record: dict, reply: Optional[dict]) -> bool:
    """The move of ``record`` lost ``HANG_LOSS`` or more and the judging engine's best reply
    (``reply``: the record of the next position) takes the mover's queen."""
    if reply is None or (record.get("cp_loss") or 0) < HANG_LOSS or not reply.get("best_uci"):
        return False
    board = chess.Board(reply["fen"], chess960=True)
    move = chess.Move.from_uci(reply["best_uci"])
    taken = board.piece_at(move.to_square)
    return taken is not None and taken.piece_type == chess.QUEEN and taken.color != board.turn


def mover_score(record: dict) -> Optional[int]:
    """The judging engine's score of the position for the side to move (a mate as ±100000)."""
    if record.get("mate") is not None:
        return 100000 if record["mate"] > 0 else -100000
    return record.get("cp")


def _won_game(info: GameInfo, white: bool) -> str:
    if info.result == "1/2-1/2":
        return "drawn: %s" % info.ending
    if info.result in ("1-0", "0-1"):
        return "won" if (info.result == "1-0") == white else "lost"
    return "unfinished"


def collect(records: Iterable[dict], games: Dict[Tuple[str, int], GameInfo], by: str = "name",
            band: int = 200) -> Dict[str, GroupStats]:
    """The statistics of every group from the records of the games."""
    by_game: Dict[Tuple[str, int], List[dict]] = {}
    for record in records:
        if record.get("ply") is None or record.get("source") is None:
            continue
        by_game.setdefault(_source_key(record), []).append(record)
    groups: Dict[str, GroupStats] = {}
    for key, game_records in by_game.items():
        info = games.get(key)
        if info is None:
            raise ValueError("%s:%d: a record of a game that is not in the PGN files given" % key)
        game_records.sort(key=lambda record: record["ply"])
        by_ply = {record["ply"]: record for record in game_records}
        won_seen = set()
        for record in game_records:
            white = record["turn"] == "w"
            name = group_of(info, white, by, band)
            if name is None:
                continue
            stats = groups.setdefault(name, GroupStats())
            stats.games.add(key)
            if record.get("cp_loss") is not None and record.get("move_uci"):
                stats.losses.append(record["cp_loss"])
                if record.get("judgement") in stats.judgements:
                    stats.judgements[record["judgement"]] += 1
                if hangs_queen(record, by_ply.get(record["ply"] + 1)):
                    stats.queen_hangs += 1
            score = mover_score(record)
            if white not in won_seen and score is not None and score >= WON_CP \
                    and is_endgame(chess.Board(record["fen"], chess960=True)):
                won_seen.add(white)
                outcome = _won_game(info, white)
                stats.won_endgames[outcome] = stats.won_endgames.get(outcome, 0) + 1
                if outcome == "won":
                    stats.plies_to_win.append(info.plies - record["ply"])
    return groups


def percentile(values: Sequence[int], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (nearest rank); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * len(ordered) + 0.5)) - 1))
    return float(ordered[index])


def bin_shares(losses: Sequence[int]) -> List[float]:
    """The share (0..1) of the losses in each of ``BINS``."""
    counts = [0] * len(BINS)
    for loss in losses:
        index = max(i for i, low in enumerate(BINS) if loss >= low) if loss >= 0 else 0
        counts[index] += 1
    return [count / len(losses) if losses else 0.0 for count in counts]


def summary(stats: GroupStats) -> dict:
    """The figures of one group, as the table and ``--json`` show them."""
    moves = len(stats.losses)
    per100 = (lambda count: 100.0 * count / moves) if moves else (lambda count: 0.0)
    return {
        "games": len(stats.games), "moves": moves,
        "acpl": sum(stats.losses) / moves if moves else None,
        "median": percentile(stats.losses, 0.5), "p90": percentile(stats.losses, 0.9),
        "p99": percentile(stats.losses, 0.99),
        "bins": dict(zip(bin_labels(), bin_shares(stats.losses))),
        "inaccuracies_per_100": per100(stats.judgements["inaccuracy"]),
        "mistakes_per_100": per100(stats.judgements["mistake"]),
        "blunders_per_100": per100(stats.judgements["blunder"]),
        "queen_hangs": stats.queen_hangs,
        "won_endgames": dict(sorted(stats.won_endgames.items())),
        "median_plies_to_win": percentile(stats.plies_to_win, 0.5) if stats.plies_to_win else None,
    }


def bin_labels() -> List[str]:
    """``['0-9', '10-24', ..., '400+']``."""
    labels = ["%d-%d" % (low, high - 1) for low, high in zip(BINS, BINS[1:])]
    return labels + ["%d+" % BINS[-1]]


def _natural(name: str) -> Tuple[int, str]:
    """Rating bands by their lower end ('800-999' before '1000-1199'), names alphabetically."""
    head = name.split("-")[0]
    return (int(head), name) if head.isdigit() else (-1, name)


def print_table(groups: Dict[str, GroupStats], out=None) -> None:
    """The groups' figures as a text table (losses by bin in % of moves) on ``out`` (stdout)."""
    out = out or sys.stdout
    labels = bin_labels()
    print("%-18s %5s %6s %5s %4s %4s %4s  %s  %5s %5s %5s %5s  %s" % (
        "player", "games", "moves", "ACPL", "med", "p90", "p99", " ".join("%6s" % label for label in labels),
        "inac", "mist", "blun", "Qhang", "won endgames (plies to win)"), file=out)
    for name in sorted(groups, key=_natural):
        figures = summary(groups[name])
        endings = ", ".join("%s %d" % item for item in figures["won_endgames"].items()) or "-"
        if figures["median_plies_to_win"] is not None:
            endings += " (median %d)" % figures["median_plies_to_win"]
        print("%-18s %5d %6d %5.1f %4.0f %4.0f %4.0f  %s  %5.1f %5.1f %5.1f %5d  %s" % (
            name[:18], figures["games"], figures["moves"], figures["acpl"] or 0.0, figures["median"],
            figures["p90"], figures["p99"], " ".join("%5.1f%%" % (100 * figures["bins"][label]) for label in labels),
            figures["inaccuracies_per_100"], figures["mistakes_per_100"], figures["blunders_per_100"],
            figures["queen_hangs"], endings), file=out)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pgns", nargs="+", metavar="GAMES.pgn", help="PGN files")
    parser.add_argument("--engine", metavar="CMD", help="the judging engine (default: stockfish on PATH, "
                        "else /usr/games/stockfish)")
    parser.add_argument("--depth", action=checked(positive_int), default=12, metavar="N",
                        help="judging depth per position (default 12)")
    parser.add_argument("--jobs", action=checked(positive_int), default=2, metavar="N",
                        help="judging engine processes (default 2)")
    parser.add_argument("--games", action=checked(positive_int), metavar="N",
                        help="only the first N games of each file")
    parser.add_argument("--records", metavar="FILE", help="keep the analysis here (JSON lines); read it when "
                        "it exists instead of analysing again")
    parser.add_argument("--group", choices=("name", "rating"), default="name",
                        help="a row per player name (default) or per band of the mover's rating")
    parser.add_argument("--band", action=checked(positive_int), default=200, metavar="N",
                        help="--group rating: band width (default 200)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    paths = [os.path.abspath(path) for path in args.pgns]
    for path in paths:
        if not os.path.isfile(path):
            parser.error("%s: no such file" % path)
    games = read_games(paths, args.games)
    records_path = args.records
    if records_path and os.path.exists(records_path):
        records = read_records(records_path)
    else:
        engine = args.engine or find_stockfish()
        if engine is None:
            parser.error("--engine: no stockfish on PATH nor at /usr/games/stockfish; give the judging engine")
        target = records_path or os.path.join(os.getcwd(), "play_quality.jsonl")
        try:
            analyse(paths, engine, args.depth, args.jobs, target, args.games)
        except (OSError, RuntimeError) as exc:
            print("play_quality.py: %s" % exc, file=sys.stderr)
            return 1
        records = read_records(target)
        if not records_path:
            os.remove(target)
    try:
        groups = collect(records, games, args.group, args.band)
    except ValueError as exc:
        print("play_quality.py: %s (--records from other games?)" % exc, file=sys.stderr)
        return 1
    print_table(groups)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({name: summary(stats) for name, stats in sorted(groups.items())}, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
