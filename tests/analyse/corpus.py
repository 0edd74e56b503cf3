"""A game collection of any size for the streaming tests and measurements, made on the fly.

The 42 real games of ``tests/data/games/real_games.pgn`` in turn, each copy with headers of
its own (``Event`` ``Corpus game N`` and a time control in words, ``Round`` N, ``WhiteElo`` and
``BlackElo`` from 1000 to 2790), written plain or compressed by the file name's suffix
(``.pgn``, ``.pgn.gz``, ``.pgn.bz2``, ``.pgn.xz``, ``.pgn.zst``). As a script::

    python tests/analyse/corpus.py 200000 /tmp/corpus.pgn.zst
"""

import bz2
import gzip
import io
import lzma
import os
import sys
from typing import IO, Dict, Iterator, List, Tuple

import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))
REAL_GAMES = os.path.join(HERE, os.pardir, "data", "games", "real_games.pgn")
EVENTS = ("Rated Blitz game", "Rated Rapid game", "Casual Classical game")


def _real_games() -> List[Tuple[Dict[str, str], str]]:
    """(headers, movetext with its result) of each real game."""
    games = []
    with open(REAL_GAMES, encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return games
            movetext = game.accept(chess.pgn.StringExporter(headers=False, comments=False, variations=False))
            games.append((dict(game.headers), movetext))


def headers_of(number: int) -> Dict[str, str]:
    """The headers game ``number`` (from 1) gets besides the real game's players and result."""
    return {"Event": "%s %d" % (EVENTS[number % len(EVENTS)], number), "Round": str(number),
            "WhiteElo": str(1000 + (number * 37) % 1800), "BlackElo": str(1000 + (number * 53) % 1800)}


def corpus_games(count: int) -> Iterator[str]:
    """The PGN text of games 1 to ``count``."""
    real = _real_games()
    for number in range(1, count + 1):
        tags, movetext = real[(number - 1) % len(real)]
        tags = dict(tags, **headers_of(number))
        head = "".join('[%s "%s"]\n' % (name, value.replace('"', "'")) for name, value in tags.items())
        yield "%s\n%s\n\n" % (head, movetext)


def _open(path: str) -> IO[bytes]:
    lower = path.lower()
    if lower.endswith(".gz"):
        return gzip.open(path, "wb", compresslevel=6)
    if lower.endswith(".bz2"):
        return bz2.open(path, "wb")
    if lower.endswith(".xz"):
        return lzma.open(path, "wb", preset=1)
    if lower.endswith(".zst"):
        import zstandard
        return zstandard.ZstdCompressor(level=3).stream_writer(open(path, "wb"), closefd=True)
    return open(path, "wb")


def write_corpus(path: str, count: int) -> str:
    """Write games 1 to ``count`` to ``path`` (compressed by its suffix); ``path``."""
    with _open(path) as raw:
        out = io.BufferedWriter(raw, buffer_size=1 << 20) if not isinstance(raw, io.BufferedIOBase) else raw
        for text in corpus_games(count):
            out.write(text.encode("utf-8"))
        out.flush()
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tests/analyse/corpus.py GAMES FILE(.pgn|.pgn.gz|.pgn.bz2|.pgn.xz|.pgn.zst)")
    write_corpus(sys.argv[2], int(sys.argv[1]))
