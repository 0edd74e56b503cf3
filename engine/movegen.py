"""Own legal capture generation for the hot loop.

``legal_captures(board)`` returns exactly ``list(board.generate_legal_captures())``, in the
same order (so the search, its node counts and the bench signature do not change), but
in one plain loop: python-chess's general generator chains three generators, asks
``generate_castling_moves`` and the pawn pushes for moves the capture mask then drops, and
calls ``_is_safe`` per move. When the side to move is in check (evasions) or has no king,
python-chess's own generator is used. tests/engine/test_movegen.py checks the equality on the
perft suites and on positions from random games.
"""

from typing import Callable, List

import chess

_BB_SQUARES = chess.BB_SQUARES
_BB_PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
_BACKRANKS = chess.BB_RANK_1 | chess.BB_RANK_8
_ray = chess.ray
_Move = chess.Move
_QUEEN, _ROOK, _BISHOP, _KNIGHT = chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT


def _piece_moves(board: chess.Board, pieces: int, to_mask: int, king: int, blockers: int,
                 append: Callable[[chess.Move], None]) -> None:
    """Moves of ``pieces`` (no pawns) to ``to_mask``, highest square first: a pinned piece only
    along its pin, the king not onto an attacked square (python-chess's _is_safe; the side to
    move is not in check). Bit loops are written out: a generator per bitboard (python-chess's
    scan_reversed) costs more than the loop body here."""
    attacks_mask = board.attacks_mask
    attackers_mask = board.attackers_mask
    them = not board.turn
    king_bb = _BB_SQUARES[king]
    while pieces:
        from_square = pieces.bit_length() - 1
        pieces ^= _BB_SQUARES[from_square]
        targets = attacks_mask(from_square) & to_mask
        if not targets:
            continue
        if from_square == king:
            while targets:
                to_square = targets.bit_length() - 1
                targets ^= _BB_SQUARES[to_square]
                if not attackers_mask(them, to_square):
                    append(_Move(from_square, to_square))
        elif blockers & _BB_SQUARES[from_square]:
            while targets:
                to_square = targets.bit_length() - 1
                targets ^= _BB_SQUARES[to_square]
                if _ray(from_square, to_square) & king_bb:
                    append(_Move(from_square, to_square))
        else:
            while targets:
                to_square = targets.bit_length() - 1
                targets ^= _BB_SQUARES[to_square]
                append(_Move(from_square, to_square))


def _pawn_move(from_square: int, to_square: int, append: Callable[[chess.Move], None]) -> None:
    """A pawn move, or onto the last rank its promotions in python-chess's order (queen, rook,
    bishop, knight)."""
    if _BB_SQUARES[to_square] & _BACKRANKS:
        append(_Move(from_square, to_square, _QUEEN))
        append(_Move(from_square, to_square, _ROOK))
        append(_Move(from_square, to_square, _BISHOP))
        append(_Move(from_square, to_square, _KNIGHT))
    else:
        append(_Move(from_square, to_square))


def legal_captures(board: chess.Board) -> List[chess.Move]:
    """``list(board.generate_legal_captures())``, computed faster (standard chess and Chess960)."""
    turn = board.turn
    us = board.occupied_co[turn]
    them = board.occupied_co[not turn]
    king_mask = board.kings & us
    if not king_mask:
        return list(board.generate_legal_captures())
    king = king_mask.bit_length() - 1
    if board.attackers_mask(not turn, king):
        return list(board.generate_legal_captures())  # evasions: python-chess's generator
    blockers = board._slider_blockers(king)  # our pinned pieces (python-chess's own helper)
    king_bb = _BB_SQUARES[king]
    moves: List[chess.Move] = []
    append = moves.append
    pawns = board.pawns & us

    _piece_moves(board, us & ~pawns, them, king, blockers, append)

    # Pawn captures.
    pawn_attacks = _BB_PAWN_ATTACKS[turn]
    while pawns:
        from_square = pawns.bit_length() - 1
        pawns ^= _BB_SQUARES[from_square]
        targets = pawn_attacks[from_square] & them
        if not targets:
            continue
        pinned = blockers & _BB_SQUARES[from_square]
        while targets:
            to_square = targets.bit_length() - 1
            targets ^= _BB_SQUARES[to_square]
            if pinned and not _ray(from_square, to_square) & king_bb:
                continue
            _pawn_move(from_square, to_square, append)

    if board.ep_square is not None:
        moves.extend(board.generate_legal_ep())
    return moves


def legal_quiets(board: chess.Board) -> List[chess.Move]:
    """The legal moves that capture nothing, in python-chess's order: ``generate_legal_moves``
    to the squares the opponent does not occupy, less its en passant captures (which land on
    an empty square and are captures all the same)."""
    turn = board.turn
    us = board.occupied_co[turn]
    them = board.occupied_co[not turn]
    king_mask = board.kings & us
    if not king_mask or board.attackers_mask(not turn, king_mask.bit_length() - 1):
        is_en_passant = board.is_en_passant
        return [move for move in board.generate_legal_moves(chess.BB_ALL, ~them) if not is_en_passant(move)]
    king = king_mask.bit_length() - 1
    blockers = board._slider_blockers(king)
    king_bb = _BB_SQUARES[king]
    empty = ~board.occupied & chess.BB_ALL
    moves: List[chess.Move] = []
    append = moves.append
    pawns = board.pawns & us

    # Pieces, then castling (python-chess checks it).
    _piece_moves(board, us & ~pawns, empty, king, blockers, append)
    if board.castling_rights & us:
        moves.extend(board.generate_castling_moves())

    # Pawn pushes: single (with promotions), then double.
    if not pawns:
        return moves
    if turn:
        single = pawns << 8 & empty
        double = single << 8 & empty & (chess.BB_RANK_3 | chess.BB_RANK_4)
        step = -8
    else:
        single = pawns >> 8 & empty
        double = single >> 8 & empty & (chess.BB_RANK_6 | chess.BB_RANK_5)
        step = 8
    while single:
        to_square = single.bit_length() - 1
        single ^= _BB_SQUARES[to_square]
        from_square = to_square + step
        if blockers & _BB_SQUARES[from_square] and not _ray(from_square, to_square) & king_bb:
            continue
        _pawn_move(from_square, to_square, append)
    while double:
        to_square = double.bit_length() - 1
        double ^= _BB_SQUARES[to_square]
        from_square = to_square + 2 * step
        if blockers & _BB_SQUARES[from_square] and not _ray(from_square, to_square) & king_bb:
            continue
        append(_Move(from_square, to_square))
    return moves
