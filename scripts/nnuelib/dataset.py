"""Reading a data run (``nnuelib.datagen``'s shards) into training records."""

import glob
import os
from typing import Iterator, List, Tuple


def shard_paths(directory: str) -> List[str]:
    """The shards of a run, in worker order."""
    return sorted(glob.glob(os.path.join(directory, "w*.txt")),
                  key=lambda path: int(os.path.basename(path)[1:-4]))


def records(directory: str) -> Iterator[Tuple[str, float, int, int, int]]:
    """Every position of a run's complete games: (FEN, result, teacher cp, search cp, ply),
    White's view; a game cut short (no ``#g`` line after it) is left out."""
    for game, rows in games(directory):
        yield from rows


def games(directory: str) -> Iterator[Tuple[int, List[Tuple[str, float, int, int, int]]]]:
    """Each complete game of a run: its number and its positions (as ``records``)."""
    for path in shard_paths(directory):
        yield from games_of_shard(path)


def games_of_shard(path: str) -> Iterator[Tuple[int, List[Tuple[str, float, int, int, int]]]]:
    """Each complete game of one shard, as ``games``."""
    pending = []
    with open(path) as handle:
        for line in handle:
            if line.startswith("#g "):
                yield int(line[3:]), pending
                pending = []
                continue
            fields = line.rstrip("\n").split("|")
            if len(fields) != 5:
                continue
            fen, result, teacher, search, ply = fields
            pending.append((fen, float(result), int(teacher), int(search), int(ply)))


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
    for fen, result, _, _, _ in records(directory):
        positions += 1
        seen.add(position_key(fen))
        results[result] = results.get(result, 0) + 1
    return ["games: %d" % games, "positions: %d (%d unique)" % (positions, len(seen)),
            "results of positions: white wins %d, draws %d, black wins %d" % (results[1.0], results[0.5], results[0.0])]
