"""The text of the commands people type at the engine: ``d`` (the board) and ``eval`` (the
evaluation term by term), laid out as Stockfish prints them so that they read the same.

Pure functions from a python-chess board (or an ``pruner.engine.evaluate.Breakdown``) to lines; the
loop sends them.
"""

from typing import List

import chess
import chess.polyglot

from pruner.engine.evaluate import PHASE_MAX, Breakdown

_RULE = " +---+---+---+---+---+---+---+---+"


def board_diagram(board: chess.Board) -> List[str]:
    """``d``: the board from White's side (rank 8 first, White's pieces in capitals), then
    ``Fen:``, ``Key:`` (the Polyglot Zobrist key in hexadecimal, the key opening books use)
    and ``Checkers:`` (the squares of the pieces giving check, each followed by a space)."""
    lines = ["", _RULE]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.symbol() if piece else " ")
        lines.append(" | " + " | ".join(cells) + " | %d" % (rank + 1))
        lines.append(_RULE)
    lines.append("   a   b   c   d   e   f   g   h")
    lines.append("")
    lines.append("Fen: " + board.fen())
    lines.append("Key: %016X" % chess.polyglot.zobrist_hash(board))
    lines.append("Checkers: " + "".join(chess.square_name(sq) + " " for sq in board.checkers()))
    return lines


def _pawns(cp: int) -> str:
    """Centipawns as pawns with two decimals (exact: the evaluation is in whole centipawns)."""
    return "%5.2f" % (cp / 100.0)


def _signed(cp: int) -> str:
    return "%+.2f" % (cp / 100.0)


def eval_table(breakdown: Breakdown, in_check: bool = False) -> List[str]:
    """``eval``: each term's middlegame and endgame value for White, for Black and the
    difference (White's view), in pawns; then the phase, the tapered sum, the side to move's
    tempo, the net's share when a net is in use (after the classical total; without one, why
    not) and the final evaluation from White's side, as ``evaluate`` computes it. In check
    the search never uses the static evaluation: the last line says so, as Stockfish's does."""
    width = max([len(term.name) for term in breakdown.terms] + [len("Total")])
    rule = "+-%s-+-------------+-------------+-------------+" % ("-" * width)
    lines = [
        "",
        " Contributing terms (pawns; Total = White - Black):",
        rule,
        "| %s |    White    |    Black    |    Total    |" % "Term".center(width),
        "| %s |   MG    EG  |   MG    EG  |   MG    EG  |" % (" " * width),
        rule,
    ]
    for term in breakdown.terms:
        total = term.total
        lines.append("| %s | %s %s | %s %s | %s %s |" % (
            term.name.rjust(width), _pawns(term.white[0]), _pawns(term.white[1]),
            _pawns(term.black[0]), _pawns(term.black[1]), _pawns(total[0]), _pawns(total[1])))
    lines.append(rule)
    lines.append("| %s |  ----  ---- |  ----  ---- | %s %s |" % (
        "Total".rjust(width), _pawns(breakdown.mg), _pawns(breakdown.eg)))
    lines.append(rule)
    white = breakdown.turn == chess.WHITE
    tapered_white = breakdown.tapered if white else -breakdown.tapered
    lines.append("")
    lines.append("Phase                  %d/%d (middlegame weight %d, endgame weight %d)"
                 % (breakdown.phase, PHASE_MAX, breakdown.phase, PHASE_MAX - breakdown.phase))
    lines.append("Tapered                %s (white side)" % _signed(tapered_white))
    lines.append("Tempo                  %s (white side; %s to move)"
                 % (_signed(breakdown.tempo if white else -breakdown.tempo), "White" if white else "Black"))
    if breakdown.net is not None:
        sign = 1 if white else -1
        lines.append("Classical evaluation   %s (white side)" % _signed(sign * breakdown.classical))
        lines.append("NNUE                   %s (white side) %s" % (_signed(sign * breakdown.net),
                                                                    breakdown.net_description))
    else:  # say why there is no net: a damaged shipped one must not pass unnoticed
        lines.append("NNUE                   none: %s" % breakdown.net_description)
    if in_check:
        lines.append("Final evaluation: none (in check)")
    else:
        lines.append("Final evaluation       %s (white side)" % _signed(breakdown.white_score))
    return lines
