"""Reading back the games of a match: the games of PGN files (``games_in``), the search score in
a move's comment and whether a game ended on the board. scripts/wdl_fit.py and ``pruner.lab.tunelib.extract`` read games with these, so they
keep the same games and read the same scores; ``pgnout`` writes match.py's comments.
"""

import gzip
import io
import re
from typing import Iterator, Optional, Sequence, Tuple

import chess.pgn

SCORE_COMMENT = re.compile(r"^\s*([+-]?)(M?)(\d+(?:\.\d+)?)(/\d+)?")
"""scripts/match.py's and cutechess's move comment: ``+0.35/7 0.251s``, ``-M3/12 0.1s``,
``0.00/9 0.2s`` (mover's side); a number without a sign counts only with its depth."""

FAULT_WORDS = ("time forfeit", "on time", "abandon", "rules infraction", "illegal", "emergency", "death",
               "unterminated", "disconnect", "crash")
"""Words of a ``Termination`` tag (lower case) that mean the game ended by a fault, not on the
board (any tool's wording; ``pruner.lab.matchlib.resume.FAULT_TERMINATIONS`` maps match.py's own values to
fault kinds): PGN's standard values as scripts/match.py and cutechess write them, lichess's
capitalised ones (``Time forfeit``, ``Abandoned``) and chess.com's sentences (``X won on time``,
``Game abandoned``)."""


def ended_on_the_board(termination: str) -> bool:
    """Whether a game with this ``Termination`` tag ended by the rules, by agreement or by
    adjudication (its result says something about its positions), not by a fault; any case.
    A game without the tag counts as ``normal``."""
    text = termination.lower()
    return not any(word in text for word in FAULT_WORDS)


def parse_score(comment: str) -> Tuple[Optional[int], bool]:
    """(centipawns, is_mate) of a match.py move comment; (None, False) without a score."""
    match = SCORE_COMMENT.match(comment or "")
    if not match or not (match.group(1) or match.group(4)):  # "3 pawns up": a remark, not a score
        return None, False
    sign = -1 if match.group(1) == "-" else 1
    if match.group(2):
        return sign * int(match.group(3)), True
    return sign * int(round(float(match.group(3)) * 100)), False


def games_in(paths: Sequence[str]) -> Iterator[chess.pgn.Game]:
    """Every game of the PGN files, in order; a ``.gz`` file is decompressed as it is read."""
    for path in paths:
        if path.endswith(".gz"):
            handle = io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
        else:
            handle = open(path, encoding="utf-8", errors="replace")
        with handle:
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                yield game
