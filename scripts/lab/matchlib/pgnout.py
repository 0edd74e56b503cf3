"""PGN output: one ``chess.pgn.Game`` per ``GameRecord``, with cutechess-like tags and comments.

Tags: the Seven Tag Roster (Event, Site, Date, Round, White, Black, Result), then FEN/SetUp
(and Variant "Chess960") when the game does not start from the standard position,
TimeControl, Termination (PGN spec values: normal, adjudication, time forfeit,
rules infraction, abandoned, unterminated), PlyCount and GameDuration.  Book moves carry the
comment ``book``; engine moves ``score/depth time``; the last move the reason the game ended.
"""

from typing import IO, Optional

import chess.pgn

from pruner.output_files import OutputError

from .game import GameRecord
from .timecontrol import TimeControl


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def record_to_pgn(record: GameRecord, tc: TimeControl, event: str = "?", site: str = "?") -> chess.pgn.Game:
    """The PGN game for a record."""
    game = chess.pgn.Game()
    headers = game.headers
    headers["Event"] = event
    headers["Site"] = site
    headers["Date"] = record.started.strftime("%Y.%m.%d")
    headers["Round"] = str(record.job.number)
    headers["White"] = record.white
    headers["Black"] = record.black
    headers["Result"] = record.result
    game.setup(record.board.root())
    headers["TimeControl"] = tc.pgn_tag()
    headers["Termination"] = record.termination
    headers["PlyCount"] = str(len(record.board.move_stack))
    headers["GameDuration"] = _duration(record.duration)
    game.comment = "opening %s" % record.job.opening.label if record.job.opening.label else ""
    node: chess.pgn.GameNode = game
    for move, comment in zip(record.board.move_stack, record.comments):
        node = node.add_variation(move, comment=comment)
    if record.reason:
        node.comment = "%s, %s" % (node.comment, record.reason) if node.comment else record.reason
    return game


class PgnWriter:
    """Appends games to a PGN file, flushing after each (None path: writes nothing)."""

    def __init__(self, path: Optional[str], tc: TimeControl, event: str, site: str, append: bool = False) -> None:
        self.path = path
        self.tc = tc
        self.event = event
        self.site = site
        self._handle: Optional[IO[str]] = open(path, "a" if append else "w", encoding="utf-8") if path else None

    def write(self, record: GameRecord) -> None:
        """Append the game; OutputError when it cannot be written (disk full)."""
        if self._handle is None:
            return
        try:
            print(record_to_pgn(record, self.tc, self.event, self.site), file=self._handle, end="\n\n")
            self._handle.flush()
        except OSError as exc:
            raise OutputError("--pgn %s" % self.path, exc) from None

    def close(self) -> None:
        """Close the file (nothing to do without one, or when already closed); what could not
        be written was reported by ``write`` already."""
        handle, self._handle = self._handle, None
        if handle is not None:
            try:
                handle.close()
            except OSError:
                pass
