"""``tune.py extract``: quiet positions after the opening, each labelled with its game's result.

From each game that ended by the rules or by adjudication (a time loss, an illegal move or a
crash says nothing about the position; ``*`` has no result; an exact repeat of an earlier
game adds nothing), every position before a move is kept unless

- it stands in the first ``skip_plies`` plies of the game, counted from the initial position
  (the book's openings start at ply 6): the opening's positions are nearly the same in every
  game, and what decides their result comes later;
- it stands at ``max_ply`` or later;
- the side to move is in check (no static evaluation is meant for it);
- it is not quiet: Pruner's quiescence search (``Searcher.quiescence_score``) returns
  anything but the static evaluation, i.e. some capture or promotion changes the score (the
  evaluation is tuned for the positions it is asked about, where the captures are done);
- the same position (``Board.epd()``: pieces, side to move, castling, en passant) was kept
  before: the first occurrence and its game's result are kept.

The label is the game's result from White's view: 1, 0.5 or 0. Output is a CSV with the
columns ``fen,result,game,ply,score``: ``score`` is the search score the engine gave the move
it played from the position (the PGN comment ``+0.35/12 0.251s`` that scripts/match.py and
cutechess write, from the mover's side) turned to White's view in centipawns; failing that,
the position's ``[%eval ...]`` annotation (lichess's and other analysers', White's view, on the
move that led to it); empty when there is neither or the score is a mate. ``fit --score-weight`` can blend it into the
label; CSVs written before the column existed read as having no scores.
"""

import csv
from dataclasses import dataclass, field
from typing import Dict, IO, Iterator, List, Optional, Tuple

import chess
import chess.pgn

from pruner.engine.evaluate import evaluate
from pruner.engine.search import Searcher
from pruner.lab.matchlib.pgnread import ended_on_the_board, games_in, parse_score  # the same games and comments as scripts/wdl_fit.py

RESULTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
"""Game result -> label (White's score)."""


@dataclass
class Stats:
    """What ``extract`` read, left out and kept."""

    games: int = 0
    games_kept: int = 0
    games_left_out: Dict[str, int] = field(default_factory=dict)
    """Reason -> games."""
    positions: int = 0
    """Positions before a move in the kept games."""
    left_out: Dict[str, int] = field(default_factory=dict)
    """Reason -> positions, in the order the filters apply."""
    kept: int = 0
    results: Dict[float, int] = field(default_factory=dict)
    """Label -> kept positions."""

    def skip(self, table: Dict[str, int], reason: str) -> None:
        """Count one thing left out for ``reason``."""
        table[reason] = table.get(reason, 0) + 1

    def summary(self) -> str:
        """The figures, a line each (docs/tuning.md quotes them)."""
        lines = ["games: %d read, %d kept%s" % (self.games, self.games_kept, "".join(
            ", %d %s" % (n, reason) for reason, n in self.games_left_out.items()))]
        lines.append("positions: %d before a move, %d kept; left out: %s" % (self.positions, self.kept, ", ".join(
            "%d %s" % (n, reason) for reason, n in self.left_out.items()) or "none"))
        lines.append("kept positions by result (White's view): %d wins, %d draws, %d losses" % (
            self.results.get(1.0, 0), self.results.get(0.5, 0), self.results.get(0.0, 0)))
        return "\n".join(lines)


def read_games(paths: List[str]) -> Iterator[chess.pgn.Game]:
    """Every game of the PGN files, in order."""
    return games_in(paths)


def comment_score(comment: str) -> Optional[int]:
    """Centipawns, from the mover's side, of a ``+0.35/12 0.251s`` comment; None for a mate
    score (``+M5/12``), a book move's comment or none."""
    score, mate = parse_score(comment)
    return None if mate else score


def position_score(node: chess.pgn.ChildNode, turn: bool) -> Optional[int]:
    """White's-view centipawns of the position before ``node``'s move (``turn`` to move): the
    mover's search score in the move's comment, else the ``[%eval]`` annotation of the move
    that led to the position (python-chess reads it), else None (also for mate scores)."""
    score = comment_score(node.comment)
    if score is not None:
        return score if turn == chess.WHITE else -score
    annotated = node.parent.eval()
    return None if annotated is None else annotated.white().score()


def is_quiet(searcher: Searcher, board: chess.Board) -> bool:
    """No capture or promotion changes the score: quiescence search equals the static eval."""
    return searcher.quiescence_score(board) == evaluate(board)


def positions(games: Iterator[chess.pgn.Game], stats: Stats, skip_plies: int = 16,
              max_ply: int = 400) -> Iterator[Tuple[str, float, int, int, Optional[int]]]:
    """The kept positions as (fen, label, game number (1-based), ply, search score from White's
    view or None), counting into ``stats``."""
    searcher = Searcher(hash_mb=1)
    seen_games = set()
    seen = set()
    for game in games:
        stats.games += 1
        result = game.headers.get("Result", "*")
        termination = game.headers.get("Termination", "normal")
        if result not in RESULTS:
            stats.skip(stats.games_left_out, "unfinished")
            continue
        if not ended_on_the_board(termination):
            stats.skip(stats.games_left_out, "ended by a fault (%s)" % termination)
            continue
        if game.errors:
            stats.skip(stats.games_left_out, "unreadable")
            continue
        board = game.board()
        nodes = list(game.mainline())
        moves = [node.move for node in nodes]
        identity = (board.fen(), tuple(moves))
        if identity in seen_games:
            stats.skip(stats.games_left_out, "repeats of an earlier game")
            continue
        seen_games.add(identity)
        stats.games_kept += 1
        label = RESULTS[result]
        for node in nodes:
            move = node.move
            stats.positions += 1
            ply = board.ply()
            if ply < skip_plies:
                stats.skip(stats.left_out, "in the opening")
            elif ply >= max_ply:
                stats.skip(stats.left_out, "beyond the last ply")
            elif board.is_check():
                stats.skip(stats.left_out, "in check")
            elif not is_quiet(searcher, board):
                stats.skip(stats.left_out, "not quiet")
            else:
                key = board.epd()
                if key in seen:
                    stats.skip(stats.left_out, "duplicates")
                else:
                    seen.add(key)
                    stats.kept += 1
                    stats.results[label] = stats.results.get(label, 0) + 1
                    yield board.fen(), label, stats.games, ply, position_score(node, board.turn)
            board.push(move)


def write_csv(rows: Iterator[tuple], handle: IO[str]) -> None:
    """Write ``positions``'s rows (fen, label, game, ply[, score]) with a header line."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(("fen", "result", "game", "ply", "score"))
    for row in rows:
        fen, label, game, ply = row[:4]
        score = row[4] if len(row) > 4 else None
        writer.writerow((fen, label, game, ply, "" if score is None else score))


def read_csv(path: str) -> List[Tuple[str, float, int]]:
    """(fen, label, game number) of every row of an ``extract`` CSV; ValueError naming the file
    and the line for a file that is not one (missing columns, a result outside 0-1, a game
    number that is not a number)."""
    rows = []
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [name for name in ("fen", "result", "game") if name not in (reader.fieldnames or ())]
        if missing:
            raise ValueError("%s: not a tune.py extract CSV (no %s column)" % (path, ", ".join(missing)))
        for row in reader:
            try:
                label = float(row["result"])
                game = int(row["game"])
            except (TypeError, ValueError):
                raise ValueError("%s, line %d: result %r or game %r is not a number"
                                 % (path, reader.line_num, row["result"], row["game"])) from None
            if not 0.0 <= label <= 1.0:
                raise ValueError("%s, line %d: result %s is not between 0 and 1" % (path, reader.line_num, label))
            rows.append((row["fen"], label, game))
    return rows


def read_scores(path: str) -> List[Optional[int]]:
    """The ``score`` column of an ``extract`` CSV, row by row (None where empty or absent)."""
    scores: List[Optional[int]] = []
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            try:
                scores.append(int(row["score"]) if row.get("score") else None)
            except ValueError:
                raise ValueError("%s, line %d: score %r is not a whole number of centipawns"
                                 % (path, reader.line_num, row["score"])) from None
    return scores


def extract_files(paths: List[str], output: str, skip_plies: int = 16, max_ply: int = 400) -> Stats:
    """``tune.py extract``: the kept positions of the games in ``paths`` into the CSV ``output``."""
    stats = Stats()
    with open(output, "w", newline="") as handle:
        write_csv(positions(read_games(paths), stats, skip_plies, max_ply), handle)
    return stats
