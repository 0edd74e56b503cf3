"""Which positions a search can start from, and how to name what is wrong with the others.

python-chess's ``Board.status()`` flags everything a game could not reach. Some of it a search
handles fine: castling rights without their rook or an impossible en-passant square (python-
chess repairs both), or an "impossible check" (two aligned checkers, as in some perft suites:
legal moves exist and Stockfish accepts it). What no search can start from is in ``UNPLAYABLE``.
The UCI ``position`` command and the analysis API refuse the same positions.
"""

from typing import Optional

import chess

UNPLAYABLE = (chess.STATUS_EMPTY | chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING
              | chess.STATUS_TOO_MANY_KINGS | chess.STATUS_OPPOSITE_CHECK
              | chess.STATUS_PAWNS_ON_BACKRANK | chess.STATUS_TOO_MANY_CHECKERS)
"""``chess.Status`` flags of positions a search cannot start from (no king, the side not to
move in check, pawns on the first or last rank, ...)."""


def describe_status(status: int) -> str:
    """Names of the ``chess.Status`` flags set in ``status``, e.g. ``"no white king, opposite check"``."""
    names = [flag.name.lower().replace("_", " ") for flag in chess.Status
             if flag.name and bin(flag.value).count("1") == 1 and status & flag]
    return ", ".join(names) or "invalid"


def unplayable(board: chess.Board) -> Optional[str]:
    """What makes ``board`` impossible to search (see ``UNPLAYABLE``), or None when it is fine."""
    status = board.status() & UNPLAYABLE
    return describe_status(status) if status else None
