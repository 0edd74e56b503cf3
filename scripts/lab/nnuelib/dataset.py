"""Reading a data run (``pruner.lab.nnuelib.datagen``'s shards) into training records."""

import glob
import os
from typing import Iterator, List, NamedTuple, Tuple


class Record(NamedTuple):
    """One position of a run: White's view throughout."""

    fen: str
    result: float
    """The game's result: 1, 0.5 or 0."""
    teacher: int
    """The teacher's score, centipawns."""
    search: int
    """Pruner's score in the game (its search at the run's node count)."""
    ply: int
    teacher_move: str
    """The teacher's best move (UCI), "" in runs of format 1."""
    child: bool = False
    """A position after one of the teacher's best moves of a game position (``children``),
    not one of the game."""


def shard_paths(directory: str) -> List[str]:
    """The shards of a run, in worker order."""
    return sorted(glob.glob(os.path.join(directory, "w*.txt")),
                  key=lambda path: int(os.path.basename(path)[1:-4]))


def records(directory: str) -> Iterator[Record]:
    """Every position of a run's complete games; a game cut short (no ``#g`` line after it) is
    left out."""
    for game, rows in games(directory):
        yield from rows


def games(directory: str) -> Iterator[Tuple[int, List[Record]]]:
    """Each complete game of a run: its number and its positions (as ``records``)."""
    for path in shard_paths(directory):
        yield from games_of_shard(path)


def games_of_shard(path: str) -> Iterator[Tuple[int, List[Record]]]:
    """Each complete game of one shard, as ``games``."""
    pending = []
    with open(path) as handle:
        for line in handle:
            if line.startswith("#g "):
                yield int(line[3:]), pending
                pending = []
                continue
            fields = line.rstrip("\n").split("|")
            if len(fields) == 5:
                fields.append("")  # format 1: no teacher's move
            if len(fields) == 6:
                fields.append("")
            elif len(fields) != 7:
                continue
            fen, result, teacher, search, ply, move, kind = fields
            pending.append(Record(fen, float(result), int(teacher), int(search), int(ply), move, kind == "c"))


def position_key(fen: str) -> str:
    """What makes two records the same position: pieces, side, castling, en passant."""
    return " ".join(fen.split()[:4])


def run_stats(directory: str) -> List[str]:
    """A few lines on what a run holds."""
    games = positions = 0
    seen = set()
    results = {1.0: 0, 0.5: 0, 0.0: 0}
    for path in shard_paths(directory):
        with open(path) as handle:
            for line in handle:
                if line.startswith("#g "):
                    games += 1
    for record in records(directory):
        positions += 1
        seen.add(position_key(record.fen))
        results[record.result] = results.get(record.result, 0) + 1
    return ["games: %d" % games, "positions: %d (%d unique)" % (positions, len(seen)),
            "results of positions: white wins %d, draws %d, black wins %d" % (results[1.0], results[0.5], results[0.0])]
