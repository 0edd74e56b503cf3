"""Training positions from Pruner's self-play, labelled by a teacher, streamed to disk.

A run is a directory: ``meta.json`` (the settings, checked on every resume: a run is never
continued with other settings) and one shard per worker, ``w<k>.txt``. Worker ``k`` of
``jobs`` plays the games numbered ``k, k + jobs, k + 2 jobs, ...``; each game is seeded by
``(seed, its number)`` alone, so a resumed run makes exactly the games an uninterrupted one
makes. A game's positions are written when it ends, followed by the line ``#g <number>``;
on resume whatever follows a shard's last ``#g`` line (a game cut short) is cut off.

A game: a random opening of the book, then a few random legal moves (variety), then Pruner
against itself at a fixed node count with fresh tables per game. Kept: positions from ply
``min_ply`` on where the side to move is not in check and the move Pruner chose is quiet
(no capture, no promotion), with a search score short of a mate. Each kept position gets the
game's result and the teacher's score (Stockfish at a fixed depth, or Pruner's own deeper
search). Games end by the rules or by adjudication (a score above ``resign_cp`` for both
sides over four plies; a score within ``draw_cp`` for twelve plies after ply 80; ply 400).

A line: ``<FEN>|<result>|<teacher cp>|<search cp>|<ply>|<teacher's move>[|c]``; the result (1,
0.5, 0) and both scores are from White's view; a teacher's mate is written as +/- 20000; the
teacher's best move (UCI) lets ``prepare`` leave out positions the teacher solves by a capture;
``c`` marks a child (``Settings.children``), whose search column is 0 and whose move is the
reply the teacher expects. A game whose start (after the random moves) the teacher scores beyond ``balanced_cp`` is not
played: a random move that hangs a piece makes a one-sided game, and its positions teach
little that the material count does not.
"""

import json
import os
import random
import time
from dataclasses import asdict, dataclass
from typing import List, Optional, TextIO, Tuple

import chess
import chess.engine

from pruner.engine.search import Searcher
from pruner.engine.types import MATE_BOUND, Limits

SHARD_FORMAT = 2
"""Version of the line format above (in ``meta.json``); format 1 had no teacher's move."""

TEACHER_MATE = 20000
"""A teacher's mate score, in centipawns."""


@dataclass
class Settings:
    """What a run makes; ``meta.json`` keeps them, and a resume must give the same."""

    seed: int
    nodes: int
    teacher: str
    """``stockfish:<depth>`` or ``pruner:<depth>``."""
    jobs: int
    book: str
    """The opening book's file name (its base name: the run directory may move)."""
    random_plies: Tuple[int, int] = (2, 6)
    balanced_cp: int = 250
    children: int = 0
    """With N > 0 the teacher scores each kept position's N best moves (MultiPV) and the
    positions after them are kept too (those not in check), each labelled with its line's
    score and the reply the teacher expects: siblings scored by the same search teach the net
    to rank moves, which positions from the game alone did not (nets trained without them
    lost 67-107 Elo at fixed nodes; docs/nnue.md)."""
    min_ply: int = 16
    resign_cp: int = 1000
    draw_cp: int = 10
    format: int = SHARD_FORMAT

    def to_json(self) -> dict:
        data = asdict(self)
        data["random_plies"] = list(self.random_plies)
        return data


class SettingsMismatch(ValueError):
    """A resume asked for other settings than the run in the directory was made with."""


def prepare_run(directory: str, settings: Settings) -> None:
    """Make the run directory with its ``meta.json``, or check the one there (``SettingsMismatch``
    names every setting that differs)."""
    os.makedirs(directory, exist_ok=True)
    meta = os.path.join(directory, "meta.json")
    wanted = settings.to_json()
    if os.path.exists(meta):
        with open(meta) as handle:
            recorded = json.load(handle)
        defaults = Settings(seed=0, nodes=0, teacher="", jobs=0, book="").to_json()
        # A setting added after a run was made reads as its default there.
        differ = ["%s (run: %r, asked: %r)" % (key, recorded.get(key, defaults[key]), value)
                  for key, value in wanted.items() if recorded.get(key, defaults[key]) != value]
        if differ:
            raise SettingsMismatch("%s was made with other settings: %s" % (directory, "; ".join(differ)))
        return
    with open(meta + ".tmp", "w") as handle:
        json.dump(wanted, handle, indent=1)
    os.replace(meta + ".tmp", meta)


def resume_shard(path: str) -> Tuple[int, int]:
    """Cut a shard after its last complete game; (the last game number done or -1, positions kept)."""
    if not os.path.exists(path):
        return -1, 0
    last, positions, keep = -1, 0, 0
    pending = 0
    offset = 0
    with open(path, "rb") as handle:
        for raw in handle:
            offset += len(raw)
            if raw.startswith(b"#g "):
                last = int(raw[3:])
                positions += pending
                pending = 0
                keep = offset
            elif raw.endswith(b"\n"):
                pending += 1
    with open(path, "r+b") as handle:
        handle.truncate(keep)
    return last, positions


def load_book(path: str) -> List[str]:
    """The FENs of an EPD/FEN book, one per line (EPD operations dropped)."""
    fens = []
    with open(path) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 4:
                counters = fields[4:6] if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit() else ["0", "1"]
                fens.append(" ".join(fields[:4] + counters))
    return fens


class Teacher:
    """Scores positions for the labels: Stockfish through UCI or Pruner's own search."""

    def __init__(self, spec: str, stockfish: str) -> None:
        kind, _, depth = spec.partition(":")
        self.depth = int(depth)
        self.kind = kind
        if kind == "stockfish":
            self.engine = chess.engine.SimpleEngine.popen_uci(stockfish)
            self.engine.configure({"Threads": 1, "Hash": 16})
        elif kind == "pruner":
            self.searcher = Searcher(hash_mb=16)
        else:
            raise ValueError("teacher must be stockfish:<depth> or pruner:<depth>, not %r" % spec)

    def new_game(self) -> None:
        if self.kind == "pruner":
            self.searcher.new_game()

    def score_white(self, board: chess.Board) -> Tuple[int, str]:
        """The teacher's score of ``board`` from White's view, in centipawns, and its best move
        (UCI; "" when it has none)."""
        if self.kind == "stockfish":
            info = self.engine.analyse(board, chess.engine.Limit(depth=self.depth))
            pv = info.get("pv") or [None]
            return info["score"].white().score(mate_score=TEACHER_MATE), pv[0].uci() if pv[0] else ""
        result = self.searcher.search(board, Limits(depth=self.depth))
        score = result.score or 0
        if abs(score) >= MATE_BOUND:
            score = TEACHER_MATE if score > 0 else -TEACHER_MATE
        return (score if board.turn else -score), result.best_move.uci() if result.best_move else ""

    def lines_white(self, board: chess.Board, count: int) -> List[Tuple[chess.Move, int, str]]:
        """The teacher's ``count`` best moves of ``board`` (MultiPV): each move, its score from
        White's view and the reply the teacher expects (UCI, "" when none), best first."""
        out = []
        if self.kind == "stockfish":
            infos = self.engine.analyse(board, chess.engine.Limit(depth=self.depth), multipv=count)
            for info in infos:
                pv = info.get("pv")
                if pv:
                    out.append((pv[0], info["score"].white().score(mate_score=TEACHER_MATE),
                                pv[1].uci() if len(pv) > 1 else ""))
            return out
        result = self.searcher.search(board, Limits(depth=self.depth), multipv=count)
        for line in result.lines:
            if line.pv:
                score = line.score
                if abs(score) >= MATE_BOUND:
                    score = TEACHER_MATE if score > 0 else -TEACHER_MATE
                out.append((line.pv[0], score if board.turn else -score, line.pv[1].uci() if len(line.pv) > 1 else ""))
        return out

    def close(self) -> None:
        if self.kind == "stockfish":
            self.engine.quit()


def _opening(rng: random.Random, book: List[str], random_plies: Tuple[int, int]) -> Optional[chess.Board]:
    """A book position followed by a few random legal moves (None when the game ended there)."""
    board = chess.Board(rng.choice(book))
    for _ in range(rng.randint(*random_plies)):
        moves = list(board.legal_moves)
        if not moves:
            return None
        board.push(rng.choice(moves))
    if board.is_game_over():
        return None
    return chess.Board(board.fen())  # the game starts here (no history before it)


def play_game(number: int, settings: Settings, book: List[str], searcher: Searcher,
              teacher: Optional["Teacher"] = None) -> Optional[Tuple[List[Tuple[str, int, int]], float]]:
    """One self-play game: the kept positions as (FEN, search cp White's view, ply) and the
    result from White's view; None when the opening ended the game or (with a ``teacher``)
    left it one-sided."""
    rng = random.Random("%d:%d" % (settings.seed, number))
    board = _opening(rng, book, settings.random_plies)
    if board is None:
        return None
    if teacher is not None and abs(teacher.score_white(board)[0]) > settings.balanced_cp:
        return None
    searcher.new_game()
    kept: List[Tuple[str, int, int]] = []
    decided = 0
    quiet_plies = 0
    ply = 0
    limits = Limits(nodes=settings.nodes)
    result = None
    while result is None:
        outcome = board.outcome(claim_draw=False)
        if outcome is not None:
            result = 0.5 if outcome.winner is None else (1.0 if outcome.winner else 0.0)
            break
        if board.is_repetition(3):
            result = 0.5
            break
        if ply >= 400:
            result = 0.5
            break
        found = searcher.search(board, limits)
        move = found.best_move
        score = found.score or 0
        white = score if board.turn else -score
        if abs(score) < MATE_BOUND and ply >= settings.min_ply and not board.is_check() \
                and not board.is_capture(move) and not move.promotion:
            kept.append((board.fen(), white, ply))
        # Adjudication: a decided game's result is known before its end.
        if abs(score) >= settings.resign_cp:
            sign = 1 if white > 0 else -1
            decided = decided + sign if decided * sign > 0 else sign
        else:
            decided = 0
        if abs(decided) >= 4:
            result = 1.0 if decided > 0 else 0.0
            break
        quiet_plies = quiet_plies + 1 if ply >= 80 and abs(score) <= settings.draw_cp else 0
        if quiet_plies >= 12:
            result = 0.5
            break
        board.push(move)
        ply += 1
    return kept, result


def run_worker(directory: str, settings: Settings, worker: int, book_path: str, stockfish: str,
               games: Optional[int], report: Optional[TextIO] = None) -> None:
    """Worker ``worker``: play its games (all of them up to number ``games``, or until killed)
    and append them to its shard."""
    shard = os.path.join(directory, "w%d.txt" % worker)
    last, positions = resume_shard(shard)
    number = worker if last < 0 else last + settings.jobs
    book = load_book(book_path)
    searcher = Searcher(hash_mb=4)
    teacher = Teacher(settings.teacher, stockfish)
    start = time.monotonic()
    made = 0
    try:
        with open(shard, "a") as out:
            while games is None or number < games:
                teacher.new_game()
                played = play_game(number, settings, book, searcher, teacher)
                if played is not None:
                    kept, result = played
                    lines = []
                    for fen, search_cp, ply in kept:
                        board = chess.Board(fen)
                        if not settings.children:
                            teacher_cp, teacher_move = teacher.score_white(board)
                            lines.append("%s|%g|%d|%d|%d|%s\n" % (fen, result, teacher_cp, search_cp, ply, teacher_move))
                            continue
                        found = teacher.lines_white(board, settings.children)
                        if not found:
                            continue
                        best_move, best_cp, _reply = found[0]
                        lines.append("%s|%g|%d|%d|%d|%s\n" % (fen, result, best_cp, search_cp, ply, best_move.uci()))
                        for move, child_cp, reply in found:
                            board.push(move)
                            if not board.is_check():
                                lines.append("%s|%g|%d|0|%d|%s|c\n" % (board.fen(), result, child_cp, ply + 1, reply))
                            board.pop()
                    lines.append("#g %d\n" % number)
                    out.write("".join(lines))
                    out.flush()
                    made += len(lines) - 1
                number += settings.jobs
                if report is not None:
                    elapsed = time.monotonic() - start
                    report.write("worker %d: game %d, %d positions this run (%d before) in %.0f s, %.1f/s\n"
                                 % (worker, number - settings.jobs, made, positions, elapsed,
                                    made / elapsed if elapsed else 0.0))
                    report.flush()
    finally:
        teacher.close()


def relabel_shard(source: str, target: str, teacher_spec: str, stockfish: str, limit: Optional[int],
                  report: Optional[TextIO] = None) -> int:
    """Copy the complete games of shard ``source`` to ``target`` with the teacher column
    scored again by ``teacher_spec`` (the same positions, results and search scores: a teacher
    is compared with another on identical data). Resumes: the games ``target`` holds already
    are skipped. Stops after ``limit`` positions in ``target`` (None: the whole shard)."""
    from pruner.lab.nnuelib.dataset import games_of_shard
    done, made = resume_shard(target)
    teacher = Teacher(teacher_spec, stockfish)
    start = time.monotonic()
    skipping = done >= 0
    try:
        with open(target, "a") as out:
            for number, rows in games_of_shard(source):
                if skipping:
                    skipping = number != done
                    continue
                if limit is not None and made >= limit:
                    break
                teacher.new_game()
                lines = []
                for record in rows:
                    score, move = teacher.score_white(chess.Board(record.fen))
                    lines.append("%s|%g|%d|%d|%d|%s\n" % (record.fen, record.result, score, record.search,
                                                          record.ply, move))
                lines.append("#g %d\n" % number)
                out.write("".join(lines))
                out.flush()
                made += len(rows)
                if report is not None:
                    report.write("%s: game %d, %d positions, %.0f s\n" % (target, number, made, time.monotonic() - start))
                    report.flush()
    finally:
        teacher.close()
    return made


def import_games(pgn_paths: List[str], directory: str, teacher_spec: str, stockfish: str, min_ply: int = 16,
                 report: Optional[TextIO] = None) -> int:
    """Positions of finished games in PGN files (self-play of the match runner, say) as a run of
    one shard, ``w0.txt``, labelled by ``teacher_spec``: the same selection as ``play_game``
    (from ``min_ply`` plies after the game's start, not in check, the move played quiet), the
    search column from the mover's PGN comment (``+0.35/12 0.251s``) when there is one.
    Games without a decisive or drawn result are skipped. Resumes: the games the shard holds
    are skipped by their number (their index over all the files)."""
    from pruner.lab.matchlib.pgnread import games_in
    shard = os.path.join(directory, "w0.txt")
    os.makedirs(directory, exist_ok=True)
    last, made = resume_shard(shard)
    teacher = Teacher(teacher_spec, stockfish)
    start = time.monotonic()
    number = -1
    try:
        with open(shard, "a") as out:
            for game in games_in(pgn_paths):
                number += 1
                result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(game.headers.get("Result", "*"))
                if number <= last or result is None or game.errors:
                    continue
                lines = []
                board = game.board()
                teacher.new_game()
                for ply, node in enumerate(game.mainline()):
                    move = node.move
                    if ply >= min_ply and not board.is_check() and not board.is_capture(move) \
                            and not move.promotion:
                        fen = board.fen()
                        score, best = teacher.score_white(board)
                        search = _comment_score(node.comment)
                        search_white = 0 if search is None else (search if board.turn else -search)
                        lines.append("%s|%g|%d|%d|%d|%s\n" % (fen, result, score, search_white, ply, best))
                    board.push(move)
                lines.append("#g %d\n" % number)
                out.write("".join(lines))
                out.flush()
                made += len(lines) - 1
                if report is not None and number % 20 == 0:
                    report.write("game %d: %d positions in %.0f s\n" % (number, made, time.monotonic() - start))
                    report.flush()
    finally:
        teacher.close()
    return made


def _comment_score(comment: str) -> Optional[int]:
    """The mover's score in centipawns from a match runner's comment (``+0.35/12 0.251s``)."""
    word = comment.split("/")[0].strip() if "/" in comment else ""
    try:
        return int(round(float(word) * 100))
    except ValueError:
        return None
