"""A Chess960 sample for the default suite that still holds every castling layout of the suite.

The sweeps over all 960 positions of tests/data/epd/perft_chess960.epd (tests/engine/
test_movegen.py, test_fastpush.py) cost about 150 s of CPU on CPython, about 15% of CI's; they run
on request (`pytest -m slow`) and the default suite runs this sample. What Chess960 changes for
the move generator and make/unmake is castling: where the king stands and which rooks its
rights name (the squares castling crosses, the rights a move drops). So the sample keeps each
position that brings a side's layout (king square, castling rights) not seen before: the 108
white and 109 black layouts of the suite in 200-odd positions, with every 16th position for
the variety of the rest (219 of 960 in all).
"""

from typing import List

import chess

STRIDE = 16


def layouts(board: chess.Board) -> set:
    """Each side's (colour, king square, castling rights on its back rank)."""
    return {(color, board.king(color), board.castling_rights & (chess.BB_RANK_1 if color else chess.BB_RANK_8))
            for color in chess.COLORS}


def castling_cover(boards: List[chess.Board]) -> List[int]:
    """Indices into ``boards`` (the suite's positions in order) of the sample described above."""
    seen = set()
    chosen = []
    for index, board in enumerate(boards):
        new = layouts(board)
        if not new <= seen or index % STRIDE == 0:
            seen |= new
            chosen.append(index)
    return chosen
