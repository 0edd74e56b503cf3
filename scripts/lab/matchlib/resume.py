"""``match.py --resume``: go on with a match that stopped (a session's end, Ctrl-C, a crash)
from its own PGN, as if it had never stopped.

The runner numbers games 1, 2, ... (the PGN ``Round``); games 2k-1 and 2k are pair k, one
opening with colours reversed, engine 1 White in the odd game. A pair whose two games both
have a result and a whole record (``complete``: a game cut short as it was written, after its
headers or within its moves, is not finished, though its headers give the result) is
*finished*: its games stay in the PGN and count in the tally (results,
pentanomial pair, faults) exactly as if played now, so an SPRT goes on with the same LLR. The
games of unfinished pairs are taken out of the PGN and their pairs played again; the runner
skips the finished pairs and keeps the game numbers.

Only the same match can be resumed: each kept game must start from the opening this command
gives its pair (same ``--openings``, ``--seed`` or ``--sequential``/``--opening-start``), and
its number must be within ``--games``; otherwise a ValueError says which game and why.
calibrate.py reads its points' PGNs with ``pgn_games`` too.
"""

import io
import os
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import chess
import chess.pgn

from pruner.output_files import write_file

from .game import Fault
from .openings import Opening

RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
"""PGN result -> White's score."""

FAULT_TERMINATIONS = {"time forfeit": "time", "rules infraction": "illegal", "abandoned": "crash"}
"""PGN Termination of match.py's faults -> the fault's kind (``game.FAULT_KINDS``)."""


def pgn_games(path: str) -> List[Tuple[Any, str]]:
    """The games of a PGN file: (headers, as python-chess reads them; the game's own text)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    stream = io.StringIO(text)
    games = []
    start = stream.tell()
    for headers in iter(lambda: chess.pgn.read_headers(stream), None):
        end = stream.tell()
        games.append((headers, text[start:end].strip() + "\n\n"))
        start = end
    return games


class _Record(chess.pgn.GameBuilder):
    """A game as python-chess builds it, noting the result token that ends its moves."""

    marker: Optional[str] = None

    def begin_game(self) -> None:
        super().begin_game()
        self.marker = None

    def visit_result(self, result: str) -> None:
        self.marker = result
        super().visit_result(result)


def complete(headers: Any, text: str) -> bool:
    """Whether a game's record is whole, as the runner writes one: it has a result, its moves
    read without error and end with that result (a record cut after its headers or within its
    moves ends with none), and they are as many as its ``PlyCount`` says."""
    result = headers.get("Result")
    if result not in RESULTS:
        return False
    record = _Record()
    game = chess.pgn.read_game(io.StringIO(text), Visitor=lambda: record)
    if game is None or game.errors or record.marker != result:
        return False
    plies = headers.get("PlyCount")
    return plies is None or plies == str(sum(1 for _ in game.mainline_moves()))


@dataclass
class Resumed:
    """What a stopped match's PGN holds, for the runner to count and skip."""

    path: str
    pairs: FrozenSet[int] = frozenset()
    """1-based numbers of the finished pairs."""
    games: List[Tuple[int, float, bool, str]] = field(default_factory=list)
    """Their games in number order: (pair, engine 1's score, engine 1 White, Termination)."""
    faults: List[Fault] = field(default_factory=list)
    """The faults among them (time losses, illegal moves, crashes), as the tally lists faults."""
    dropped: int = 0
    """Games of unfinished pairs taken out of the PGN."""


def resume(path: str, openings: Sequence[Opening], order: Sequence[int], games: int) -> Resumed:
    """Read the PGN a stopped match wrote (``--pgn``), check it is this match's, rewrite it with
    only the finished pairs' games, and return them. A missing file is a match not yet begun."""
    if not os.path.exists(path):
        return Resumed(path)
    by_number: Dict[int, Tuple[Any, str]] = {}
    for headers, text in pgn_games(path):
        round_tag = headers.get("Round", "?")
        try:
            number = int(round_tag)
        except ValueError:
            raise ValueError("%s: a game with Round %r: not a PGN match.py wrote" % (path, round_tag)) from None
        if number in by_number:
            raise ValueError("%s: two games numbered %d: not one match's PGN" % (path, number))
        by_number[number] = (headers, text)
    resumed = Resumed(path)
    kept: List[str] = []
    pairs = set()
    for number in sorted(by_number):
        headers, text = by_number[number]
        partner = number + 1 if number % 2 else number - 1
        finished = partner in by_number and all(complete(*by_number[n]) for n in (number, partner))
        if not finished:
            resumed.dropped += 1
            continue
        if number > games:
            raise ValueError("%s: game %d is beyond this command's --games %d" % (path, number, games))
        pair = (number + 1) // 2
        opening = openings[order[pair - 1]]
        fen = headers.get("FEN", chess.STARTING_FEN)
        if fen.split()[:4] != opening.board.fen().split()[:4]:
            raise ValueError("%s: game %d started from %s, but this command's pair %d opens from %s "
                             "(resume with the same --openings, --seed or --sequential/--opening-start)"
                             % (path, number, fen, pair, opening.board.fen()))
        engine1_white = number % 2 == 1
        white_score = RESULTS[headers["Result"]]
        score = white_score if engine1_white else 1.0 - white_score
        termination = headers.get("Termination", "normal")
        resumed.games.append((pair, score, engine1_white, termination))
        kind = FAULT_TERMINATIONS.get(termination)
        if kind is not None:  # the side that lost made the fault
            engine = 1 if score == 0.0 else 2
            loser = headers.get("White" if white_score == 0.0 else "Black", "?")
            resumed.faults.append(Fault(number, engine, loser, kind, "in a game before --resume"))
        pairs.add(pair)
        kept.append(text)
    resumed.pairs = frozenset(pairs)
    write_file(path, "".join(kept).encode("utf-8"))
    return resumed
