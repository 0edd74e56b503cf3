"""The search's own board: signed bitboards, a square-by-square piece table, incremental state.

A ``Position`` is made from a python-chess board at the root (``Position(board)``) and moved
on only by ``pruner.engine.makemove`` (``do_move``, ``do_null``, ``undo_move``); the tree never
touches python-chess. ``to_board`` gives a python-chess board back where python-chess is
needed (Syzygy probes). Bitboards are signed (see ``pruner.engine.attacks``); pieces and colours
are python-chess's numbers (``chess.PAWN`` = 1 ... ``chess.KING`` = 6, black 0, white 1).
"""

from typing import List, Optional

import chess

from pruner.engine.attacks import (DIAG_ATTACKS, DIAG_MASKS, FILE_ATTACKS, FILE_MASKS, KING, KNIGHT, PAWN_ATTACKS,
                            RANK_ATTACKS, RANK_MASKS, popcount, signed, unsigned)
from pruner.engine import evaluate as evaluation
from pruner.engine.evaluate import Evaluator
from pruner.engine.zobrist import full_key


class Position:
    """A chess position as the search keeps it (python-chess's fields, signed, plus more)."""

    def __init__(self, board: chess.Board, evaluator: Optional[Evaluator] = None) -> None:
        """``board`` as the search keeps it, its incremental sums those of ``evaluator`` (the
        engine's own evaluation, ``pruner.engine.evaluate.DEFAULT``, when None)."""
        if evaluator is None:
            evaluator = evaluation.DEFAULT  # read now: a test may stand another in for it

        self.bb: List[int] = [0, signed(board.pawns), signed(board.knights), signed(board.bishops),
                              signed(board.rooks), signed(board.queens), signed(board.kings)]
        """Pieces of both colours by piece type (``bb[chess.KNIGHT]``); index 0 is a scratch slot."""
        self.occ: List[int] = [signed(board.occupied_co[chess.BLACK]), signed(board.occupied_co[chess.WHITE])]
        """Pieces by colour (``occ[chess.WHITE]``)."""
        self.occupied = signed(board.occupied)
        self.squares: List[int] = [board.piece_type_at(sq) or 0 for sq in range(64)] + [0]
        """Piece type on each square, 0 when empty (index 64: a scratch slot for ``do_null``)."""
        self.turn = 1 if board.turn else 0
        """Side to move: 1 white, 0 black."""
        self.castling = signed(board.clean_castling_rights())
        """Castling rights as python-chess keeps them: the rooks that may castle."""
        self.ep = board.ep_square or 0
        """python-chess's en-passant square, 0 when none (a1 never is one)."""
        self.hmc = board.halfmove_clock
        self.fullmove_number = board.fullmove_number
        """As at the root (the tree does not count full moves; ``to_board`` uses it)."""
        self.chess960 = board.chess960
        self.king_squares: List[int] = [-1, -1]
        """Square of each side's king (python-chess's ``king(color)``), -1 when it has none."""
        for color in (0, 1):
            mask = board.kings & board.occupied_co[color] & ~board.promoted
            if mask:
                self.king_squares[color] = mask.bit_length() - 1
        self.key = full_key(board)
        """Zobrist key (``pruner.engine.makemove``)."""
        self.mg, self.eg, self.phase = evaluator.material_pst(board)
        """Material and piece-square sums, White-positive, and the game phase (``pruner.engine.evaluate``)."""
        self.acc = evaluator.accumulator(board)
        """The learned evaluation's accumulators in the net's representation, a packed integer
        or a list (``pruner.engine.nnue``; 0 without a net)."""
        self.pst_mg = evaluator.pst_mg
        """The evaluator's tables ``pruner.engine.makemove`` keeps ``mg`` with (``Evaluator.pst_mg``)."""
        self.pst_eg = evaluator.pst_eg
        """... ``eg`` with (``Evaluator.pst_eg``)."""
        self.columns = evaluator.columns
        """... and ``acc`` with: ``Evaluator.columns``, the net's packed columns (None without a
        net or with a list accumulator: ``do_move_packed`` then leaves ``acc`` alone)."""
        self.list_columns = evaluator.list_columns
        """``Evaluator.list_columns``: the net's columns as lists (``do_move_lists``), or None."""
        self.lazy = evaluator.lazy
        """``Evaluator.lazy``: whether ``acc`` is a ``pruner.engine.nnue.Pending`` node (``do_move_lazy``)."""
        self.stack: list = []
        """What ``undo_move`` needs, one entry per move made."""

    def to_board(self) -> chess.Board:
        """The position as a python-chess board (no move history)."""
        board = chess.Board(None, chess960=self.chess960)
        bb = self.bb
        board.pawns, board.knights, board.bishops = unsigned(bb[1]), unsigned(bb[2]), unsigned(bb[3])
        board.rooks, board.queens, board.kings = unsigned(bb[4]), unsigned(bb[5]), unsigned(bb[6])
        board.occupied_co[chess.WHITE] = unsigned(self.occ[1])
        board.occupied_co[chess.BLACK] = unsigned(self.occ[0])
        board.occupied = unsigned(self.occupied)
        board.turn = bool(self.turn)
        board.castling_rights = unsigned(self.castling)
        board.ep_square = self.ep or None
        board.halfmove_clock = self.hmc
        board.fullmove_number = self.fullmove_number
        return board


def attackers(pos: Position, color: int, square: int, occupied: int) -> int:
    """Pieces of ``color`` attacking ``square`` with ``occupied`` blocking (python-chess's
    ``attackers_mask``: the pieces stand where they are, only the blockers change)."""
    bb = pos.bb
    queens = bb[5]
    return ((KING[square] & bb[6])
            | (KNIGHT[square] & bb[2])
            | ((RANK_ATTACKS[square][RANK_MASKS[square] & occupied]
                | FILE_ATTACKS[square][FILE_MASKS[square] & occupied]) & (bb[4] | queens))
            | (DIAG_ATTACKS[square][DIAG_MASKS[square] & occupied] & (bb[3] | queens))
            | (PAWN_ATTACKS[color ^ 1][square] & bb[1])) & pos.occ[color]


def in_check(pos: Position) -> bool:
    """Whether the side to move is in check (python-chess's ``is_check``)."""
    us = pos.turn
    king = pos.king_squares[us]
    return king >= 0 and attackers(pos, us ^ 1, king, pos.occupied) != 0


def is_insufficient_material(pos: Position) -> bool:
    """python-chess's ``is_insufficient_material``: neither side can mate."""
    bb = pos.bb
    if bb[1] | bb[4] | bb[5]:
        return False
    occ = pos.occ
    for color in (0, 1):
        own = occ[color]
        if own & bb[2]:
            if popcount(own) > 2 or occ[color ^ 1] & ~bb[6] & ~bb[5]:
                return False
        elif own & bb[3]:
            bishops = bb[3]
            if bb[2] or (bishops & _DARK and bishops & _LIGHT):
                return False
    return True


_DARK = signed(chess.BB_DARK_SQUARES)
_LIGHT = signed(chess.BB_LIGHT_SQUARES)
