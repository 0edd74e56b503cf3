"""When a game ends without a mate: draws by the rules, score adjudication, maximum length.

Results are ``(result, termination, reason)`` triples: a PGN result string, the PGN
``Termination`` tag value and a readable reason (written as the game's last comment).
"""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import chess

Ending = Tuple[str, str, str]

#: centipawn value given to mate scores when comparing with thresholds
MATE_CP = 100000


def rules_outcome(board: chess.Board) -> Optional[Ending]:
    """The game's end by the rules, if any: mate, stalemate, dead position, 50 moves, 3-fold.

    Fifty-move and threefold draws are applied as soon as they can be claimed, as cutechess
    does; checkmate on the 100th half-move still wins."""
    if board.is_checkmate():
        winner = "White" if board.turn == chess.BLACK else "Black"
        return ("1-0" if winner == "White" else "0-1"), "normal", "%s mates" % winner
    if board.is_stalemate():
        return "1/2-1/2", "normal", "Draw by stalemate"
    if board.is_insufficient_material():
        return "1/2-1/2", "normal", "Draw by insufficient mating material"
    if board.is_fifty_moves():
        return "1/2-1/2", "normal", "Draw by fifty-move rule"
    if board.is_repetition(3):
        return "1/2-1/2", "normal", "Draw by 3-fold repetition"
    return None


@dataclass(frozen=True)
class AdjudicationRules:
    """Optional adjudication, all off by default (scores in centipawns, moves in full moves)."""

    resign_score: Optional[int] = None
    """Resign when the loser's own score is <= -resign_score and the winner's >= +resign_score..."""
    resign_moves: int = 3
    """...for this many consecutive moves of each engine."""
    draw_score: Optional[int] = None
    """Draw when both engines' |score| <= draw_score..."""
    draw_moves: int = 8
    """...for this many consecutive moves of each engine..."""
    draw_after: int = 40
    """...counting only from this full-move number on."""
    max_moves: Optional[int] = None
    """Draw after this many full moves played by the engines (book moves not counted)."""


class Adjudicator:
    """Tracks score streaks of one game; call ``after_move`` after every engine move."""

    def __init__(self, rules: AdjudicationRules) -> None:
        self.rules = rules
        self.losing: Dict[bool, int] = {chess.WHITE: 0, chess.BLACK: 0}
        self.winning: Dict[bool, int] = {chess.WHITE: 0, chess.BLACK: 0}
        self.drawish: Dict[bool, int] = {chess.WHITE: 0, chess.BLACK: 0}
        self.plies = 0

    def after_move(self, board: chess.Board, mover: bool, score_cp: Optional[int]) -> Optional[Ending]:
        """Update with the mover's own score (None if it reported none); an ending or None."""
        rules = self.rules
        self.plies += 1
        if score_cp is None:
            self.losing[mover] = self.winning[mover] = self.drawish[mover] = 0
        else:
            if rules.resign_score is not None:
                self.losing[mover] = self.losing[mover] + 1 if score_cp <= -rules.resign_score else 0
                self.winning[mover] = self.winning[mover] + 1 if score_cp >= rules.resign_score else 0
            if rules.draw_score is not None and board.fullmove_number >= rules.draw_after:
                self.drawish[mover] = self.drawish[mover] + 1 if abs(score_cp) <= rules.draw_score else 0
            else:
                self.drawish[mover] = 0

        if rules.resign_score is not None:
            for loser in (chess.WHITE, chess.BLACK):
                winner = not loser
                if self.losing[loser] >= rules.resign_moves and self.winning[winner] >= rules.resign_moves:
                    name = chess.COLOR_NAMES[loser].capitalize()
                    return ("0-1" if loser == chess.WHITE else "1-0"), "adjudication", \
                        "%s resigns (score adjudication)" % name
        if rules.draw_score is not None and min(self.drawish.values()) >= rules.draw_moves:
            return "1/2-1/2", "adjudication", "Draw by score adjudication"
        if rules.max_moves is not None and self.plies >= 2 * rules.max_moves:
            return "1/2-1/2", "adjudication", "Draw by maximum game length (%d moves)" % rules.max_moves
        return None
