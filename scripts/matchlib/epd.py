"""Parse EPD records and FEN lines into a board and an operations dict.

python-chess's ``Board.set_epd`` takes the four position fields followed by opcodes; match
books often hold full FENs (with halfmove and fullmove counters) instead, which ``set_epd``
rejects.  ``parse_position_line`` accepts both.
"""

from typing import Any, Dict, Iterator, Optional, Tuple

import chess


def parse_position_line(line: str, chess960: bool = False) -> Tuple[chess.Board, Dict[str, Any]]:
    """Board and EPD operations from one EPD or FEN line (raises ValueError when malformed)."""
    fields = line.split()
    if len(fields) < 4:
        raise ValueError("expected at least 4 FEN fields: %r" % line)
    counters: Optional[Tuple[int, int]] = None
    rest = fields[4:]
    if len(rest) >= 2 and rest[0].isdigit() and rest[1].isdigit():
        counters = (int(rest[0]), int(rest[1]))
        rest = rest[2:]
    board = chess.Board(None, chess960=chess960)
    ops = board.set_epd(" ".join(fields[:4] + rest))
    if counters is not None:
        board.halfmove_clock, board.fullmove_number = counters[0], max(1, counters[1])
    return board, ops


def read_position_lines(path: str) -> Iterator[Tuple[int, str]]:
    """(line number, text) for each non-empty, non-comment line of an EPD file."""
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            text = raw.strip()
            if text and not text.startswith("#"):
                yield number, text
