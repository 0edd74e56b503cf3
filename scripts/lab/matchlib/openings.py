"""Opening books for matches: EPD/FEN lines or PGN games, and the order they are played in.

Every opening is played twice with colours reversed (a pair); ``pair_order`` says which
opening each pair uses.
"""

import os
import random
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import chess

from pruner.engine.epd import read_epd_file
from pruner.engine.pgn import PgnReader, read_pgn_file


@dataclass
class Opening:
    """A start position, optionally followed by book moves that are played before the engines."""

    board: chess.Board
    """The game's root position (written as the FEN tag when it is not the standard start)."""
    moves: List[chess.Move] = field(default_factory=list)
    """Book moves played from ``board`` (from PGN openings; empty for EPD lines)."""
    label: str = ""
    """Where it came from, e.g. ``noob_3moves_5000.epd:17`` or an EPD ``id``."""

    def start(self) -> chess.Board:
        """A fresh board at the root with the book moves pushed."""
        board = self.board.copy(stack=False)
        for move in self.moves:
            board.push(move)
        return board


def load_epd_openings(path: str, chess960: bool = False,
                      report: Optional[Callable[[str], None]] = None) -> List[Opening]:
    """One opening per usable EPD/FEN line (engine/epd.py reads the quirks of real files); a
    line without a usable position, and what the lenient reading left out, go to ``report``."""
    name = os.path.basename(path)
    found = read_epd_file(path, chess960)
    if report is not None:
        for message in found.problems:
            report(message)
    return [Opening(record.board, [], record.id or "%s:%d" % (name, record.number)) for record in found.records]


def load_pgn_openings(path: str, chess960: bool = False, plies: Optional[int] = None,
                      report: Optional[Callable[[str], None]] = None) -> List[Opening]:
    """One opening per PGN game: its start position and main line (at most ``plies`` moves).

    engine/pgn.py reads the file as ``pruner analyse`` does (UTF-8, else Latin-1; text that is
    not a game is left out and goes to ``report``). A game that cannot be used (an illegal
    move, a variant, an illegal start position) and a file without a game raise ValueError."""
    name = os.path.basename(path)
    reader = PgnReader()
    openings = []
    for item in reader.read(read_pgn_file(path)):
        if item.problem is not None:
            raise ValueError("%s:%d: game %d: %s" % (path, item.line, item.number, item.problem))
        game = item.game
        root = game.board()
        if chess960 and not root.chess960:
            root = chess.Board(root.fen(), chess960=True)
        moves = list(game.mainline_moves())
        if plies is not None:
            moves = moves[:plies]
        label = "%s:game %d" % (name, item.number)
        opening_name = game.headers.get("Opening") or game.headers.get("ECO")
        if opening_name and opening_name != "?":
            label += " (%s)" % opening_name
        openings.append(Opening(root, moves, label))
    if not openings:
        raise ValueError("%s: no games found (not a PGN file?)" % path)
    if report is not None:
        for message in reader.summary():
            report("%s: %s" % (path, message))
    return openings


def load_openings(path: str, chess960: bool = False, plies: Optional[int] = None,
                  report: Optional[Callable[[str], None]] = None) -> List[Opening]:
    """Openings from a ``.pgn`` file (by extension) or an EPD/FEN file (anything else);
    raises ValueError when there is none."""
    if path.lower().endswith(".pgn"):
        openings = load_pgn_openings(path, chess960=chess960, plies=plies, report=report)
    else:
        openings = load_epd_openings(path, chess960=chess960, report=report)
    if not openings:
        raise ValueError("no openings in %s" % path)
    return openings


def pair_order(count: int, pairs: int, randomize: bool, seed: int = 0, start: int = 0) -> List[int]:
    """Opening index for each of ``pairs`` game pairs, drawn from ``count`` openings.

    Sequential: ``start, start+1, ...`` wrapping around.  Random: a seeded shuffle of all the
    openings, so no opening repeats before every one was used (reshuffled for each lap)."""
    if count <= 0:
        raise ValueError("no openings")
    if not randomize:
        return [(start + i) % count for i in range(pairs)]
    rng = random.Random(seed)
    order: List[int] = []
    while len(order) < pairs:
        lap = list(range(count))
        rng.shuffle(lap)
        order.extend(lap)
    return order[:pairs]
