"""Move ordering: staged generation (hash move, good captures, killers, quiets by history,
losing captures), with static exchange evaluation (SEE) to tell good captures from bad.

Stages are generated lazily, so a node that cuts off on the hash move or a capture never
pays for quiet-move generation (the most expensive generation step; ``engine.movegen``
generates captures and quiets).
Moves are compared by a small integer code, not ``Move.__eq__`` (a dataclass compare costs
about 0.5 µs and this runs for every quiet move of every node).
"""

from typing import Iterator, List, Optional, Tuple

import chess

from engine.movegen import legal_captures, legal_quiets

PIECE_VALUE = (0, 100, 320, 330, 500, 900, 20000)
"""Plain piece values for capture ordering and delta pruning (index by piece type)."""

_BACKRANKS = chess.BB_RANK_1 | chess.BB_RANK_8


def move_code(move: chess.Move) -> int:
    """A small integer that identifies a move within a position."""
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def history_index(color: bool, move: chess.Move) -> int:
    """Index of ``move`` by ``color`` in the flat history table (2 * 64 * 64 entries)."""
    return (color << 12) | (move.from_square << 6) | move.to_square


SEE_VALUE = (0, 100, 320, 330, 500, 900, 0)
"""Piece values for static exchange evaluation (a king is never really captured)."""

_BB_SQUARES = chess.BB_SQUARES


def see(board: chess.Board, move: chess.Move) -> int:
    """Static exchange evaluation: material the mover wins on the target square if both sides
    keep recapturing with their least valuable attacker (pins ignored, x-rays included)."""
    to = move.to_square
    frm = move.from_square
    piece_type_at = board.piece_type_at
    occupied = board.occupied ^ _BB_SQUARES[frm]
    victim = piece_type_at(to)
    if victim is None:
        if board.ep_square == to and board.pawns & _BB_SQUARES[frm]:
            victim = chess.PAWN
            occupied ^= _BB_SQUARES[to - 8 if board.turn else to + 8]
        else:
            victim = 0
    gains = [SEE_VALUE[victim]]
    on_square = piece_type_at(frm)
    if move.promotion:
        gains[0] += SEE_VALUE[move.promotion] - SEE_VALUE[chess.PAWN]
        on_square = move.promotion
    side = not board.turn
    by_type = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    attackers_mask = board.attackers_mask
    while True:
        attackers = attackers_mask(side, to, occupied) & occupied
        if not attackers:
            break
        for index, bb in enumerate(by_type):
            mine = bb & attackers
            if mine:
                break
        least = mine & -mine
        if index == 5 and attackers_mask(not side, to, occupied ^ least) & occupied:
            break  # the king cannot recapture onto a defended square
        gains.append(SEE_VALUE[on_square] - gains[-1])
        on_square = index + 1
        occupied ^= least
        side = not side
    for depth in range(len(gains) - 1, 0, -1):
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
    return gains[0]


def loses_material(board: chess.Board, move: chess.Move) -> bool:
    """True when a capture or promotion loses material by SEE (cheap test first: a capture of
    a piece worth at least the capturer never loses)."""
    piece_type_at = board.piece_type_at
    victim = piece_type_at(move.to_square)
    if victim is not None and SEE_VALUE[victim] >= SEE_VALUE[piece_type_at(move.from_square)]:
        return False
    return see(board, move) < 0


def tactical_moves(board: chess.Board) -> List[chess.Move]:
    """Legal captures and queen promotions, most valuable victim / least valuable attacker first."""
    piece_type_at = board.piece_type_at
    scored = []
    for move in legal_captures(board):
        victim = piece_type_at(move.to_square) or chess.PAWN  # None: en passant
        scored.append((PIECE_VALUE[victim] * 8 - piece_type_at(move.from_square)
                       + (800 if move.promotion == chess.QUEEN else 0), move))
    us = board.turn
    pawns = board.pawns & board.occupied_co[us]
    if pawns & (chess.BB_RANK_7 if us else chess.BB_RANK_2):
        for move in board.generate_legal_moves(pawns, _BACKRANKS & ~board.occupied):
            if move.promotion == chess.QUEEN:
                scored.append((800 * 8, move))
    scored.sort(key=_first, reverse=True)
    return [move for _, move in scored]


def _first(pair: Tuple[int, chess.Move]) -> int:
    return pair[0]


def ordered_moves(board: chess.Board, tt_move: Optional[chess.Move], killers: List[Optional[chess.Move]],
                  history: List[int]) -> Iterator[Tuple[chess.Move, bool]]:
    """Yield ``(move, is_quiet)`` for every legal move, best-first by stage."""
    tt_code = -1
    if tt_move is not None and board.is_legal(tt_move):
        tt_code = move_code(tt_move)
        yield tt_move, not (board.is_capture(tt_move) or tt_move.promotion == chess.QUEEN)

    losing = []
    for move in tactical_moves(board):
        if move_code(move) != tt_code:
            if loses_material(board, move):
                losing.append(move)  # bad captures go after the quiet moves
            else:
                yield move, False

    killer_codes = [tt_code]
    for killer in killers:
        if killer is not None:
            code = move_code(killer)
            if code not in killer_codes and board.is_legal(killer) and not board.is_capture(killer) \
                    and killer.promotion != chess.QUEEN:
                killer_codes.append(code)
                yield killer, True

    us = board.turn
    quiets = [move for move in legal_quiets(board)
              if move.promotion != chess.QUEEN and move_code(move) not in killer_codes]
    base = us << 12
    quiets.sort(key=lambda m: history[base | (m.from_square << 6) | m.to_square], reverse=True)
    for move in quiets:
        yield move, True
    for move in losing:
        yield move, False
