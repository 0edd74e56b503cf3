"""Judging played moves and writing annotated PGN (``[%eval]`` comments, NAGs, variations).

The rules are lichess's (lila's ``Advice.scala``), applied to the scores of the position
before the move (its best line) and after it, both from the mover's view.

When both scores are centipawns, by how much the move lowers the mover's winning chances,
``chances(cp) = 2 / (1 + exp(-0.00368208 * cp)) - 1`` in [-1, 1] (centipawns capped at
±1000, a mate counted as ±1000 for the ``loss`` field):

    loss >= 0.3  blunder     ??  (about 170 cp lost from an equal position)
    loss >= 0.2  mistake     ?   (about 110 cp)
    loss >= 0.1  inaccuracy  ?!  (about 55 cp)

When either score is a mate, by what happened to the mate:

    "Checkmate is now unavoidable" (``mate_created``): a centipawn score before, getting
        mated after; a blunder, a mistake when the mover was already below -700 cp, an
        inaccuracy below -999 cp;
    "Lost forced checkmate sequence" (``mate_lost``): mating before, not after; a blunder,
        a mistake when still above +700 cp after, an inaccuracy above +999 cp.

Other mate changes (a slower mate, a mate found, a mate against the mover that is delayed)
are not judged. The same drop in centipawns costs less when one side is already winning
(+800 to +500 is not a blunder), and a move equal to the engine's best move is never judged.
"""

import math
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import chess.pgn

from pruner.engine.analysis import Analysis

CP_CAP = 1000
"""Centipawn scores are capped at ± this, and a mate counts as this, when judging."""

WIN_CHANCE_SLOPE = 0.00368208
"""Slope of lichess's winning-chances logistic curve (per centipawn)."""

THRESHOLDS = ((0.3, "blunder", chess.pgn.NAG_BLUNDER),
              (0.2, "mistake", chess.pgn.NAG_MISTAKE),
              (0.1, "inaccuracy", chess.pgn.NAG_DUBIOUS_MOVE))
"""(minimum winning-chances loss, name, NAG), worst first."""

MATE_JUDGEMENTS = {"mate_created": "Checkmate is now unavoidable",
                   "mate_lost": "Lost forced checkmate sequence"}
"""lichess's mate judgements (``MateSequence`` in lila) and their texts."""

MATE_SEVERITY = ((999, "inaccuracy", chess.pgn.NAG_DUBIOUS_MOVE),
                 (700, "mistake", chess.pgn.NAG_MISTAKE))
"""A mate judgement is milder when the mover was lost anyway (``mate_created``: below minus
these centipawns before) or is still winning (``mate_lost``: above them after); else a blunder."""

VARIATIONS = ("judged", "all", "none")
"""Where the annotated PGN gets the engine's line as a variation: at judged moves (as lichess
does), at every move that is not the engine's best, or nowhere."""

_MOVE_ASSESSMENTS = {chess.pgn.NAG_GOOD_MOVE, chess.pgn.NAG_MISTAKE, chess.pgn.NAG_BRILLIANT_MOVE,
                     chess.pgn.NAG_BLUNDER, chess.pgn.NAG_SPECULATIVE_MOVE, chess.pgn.NAG_DUBIOUS_MOVE}


def capped_cp(score: chess.engine.Score) -> int:
    """Centipawns capped at ±CP_CAP; a mate (given or received) counts as ±CP_CAP."""
    return max(-CP_CAP, min(CP_CAP, score.score(mate_score=100 * CP_CAP)))


def winning_chances(score: chess.engine.Score) -> float:
    """lichess's winning chances in [-1, 1] of a score (from the same side's view).

    ``2 / (1 + exp(-k cp)) - 1`` written as ``tanh(k cp / 2)``: the same curve, exactly odd.
    """
    return math.tanh(WIN_CHANCE_SLOPE * capped_cp(score) / 2)


@dataclass(frozen=True)
class Judgement:
    """How much a played move cost, from the mover's view."""

    loss: float
    """Winning chances lost (0 when the move kept or improved them), 0..2."""
    cp_loss: int
    """Centipawns lost with the ±1000 cap (0 when none)."""
    name: Optional[str]
    """``inaccuracy``, ``mistake``, ``blunder`` or None."""
    nag: Optional[int]
    """The matching NAG (``?!``, ``?``, ``??``) or None."""
    mate: Optional[str] = None
    """``mate_created`` or ``mate_lost`` when a mate judgement set ``name``, else None."""

    @property
    def text(self) -> Optional[str]:
        """What lichess writes: ``Mistake``, ``Checkmate is now unavoidable``, ... (None: not judged)."""
        if self.mate is not None:
            return MATE_JUDGEMENTS[self.mate]
        return self.name.capitalize() if self.name else None


def judge(before: Analysis, after: Analysis, played: chess.Move) -> Optional[Judgement]:
    """Judge ``played`` from the analyses of the positions before and after it (None: no scores)."""
    if before.score is None or after.score is None:
        return None
    mover = before.turn
    was, now = before.score.pov(mover), after.score.pov(mover)
    loss = max(0.0, winning_chances(was) - winning_chances(now))
    cp_loss = max(0, capped_cp(was) - capped_cp(now))
    name = nag = mate = None
    if played != before.best_move:
        if not was.is_mate() and not now.is_mate():
            for threshold, label, code in THRESHOLDS:
                if loss >= threshold:
                    name, nag = label, code
                    break
        else:
            mate = mate_judgement(was, now)
            if mate is not None:
                name, nag = _mate_severity(mate, was, now)
    return Judgement(round(loss, 4), cp_loss, name, nag, mate)


def _mating(score: chess.engine.Score) -> bool:
    return score.is_mate() and score.score(mate_score=100 * CP_CAP) > 0


def _mated(score: chess.engine.Score) -> bool:
    return score.is_mate() and score.score(mate_score=100 * CP_CAP) < 0


def mate_judgement(was: chess.engine.Score, now: chess.engine.Score) -> Optional[str]:
    """``mate_created``, ``mate_lost`` or None for the mover's scores before and after a move
    (lila's ``MateSequence``)."""
    if not was.is_mate() and _mated(now):
        return "mate_created"
    if _mating(was) and not _mating(now):
        return "mate_lost"
    return None


def _mate_severity(mate: str, was: chess.engine.Score, now: chess.engine.Score):
    """(name, NAG) of a mate judgement: lichess compares the mover's raw centipawns before
    (``mate_created``) or after (``mate_lost``; 0 when that score is a mate) with 999 and 700."""
    if mate == "mate_created":
        cp = -(was.score() or 0)
    else:
        cp = 0 if now.is_mate() else now.score()
    for limit, label, code in MATE_SEVERITY:
        if cp > limit:
            return label, code
    return "blunder", chess.pgn.NAG_BLUNDER


def annotate_move(node: chess.pgn.ChildNode, before: Optional[Analysis], after: Optional[Analysis],
                  judgement: Optional[Judgement], variations: str = "judged") -> None:
    """Annotate the move of ``node`` in place.

    ``[%eval]`` of the position after the move (White's view, pawns with two decimals or
    ``#N``; nothing after a checkmate), the judgement's NAG and a "Mistake. Best was Nc3."
    (or "Checkmate is now unavoidable. Best was Kh8.") comment, and the engine's line as a
    variation where ``variations`` (one of ``VARIATIONS``) asks for one: at a judged move
    (``judged``), at every move that was not the best (``all``), or nowhere (``none``).
    """
    if after is not None and after.score is not None:
        node.set_eval(after.score)
    judged = judgement is not None and judgement.nag is not None
    if judged:
        node.nags -= _MOVE_ASSESSMENTS
        node.nags.add(judgement.nag)
        text = "%s. Best was %s." % (judgement.text, before.best_san)
        node.comment = (node.comment + " " + text).strip()
    wanted = variations == "all" or (variations == "judged" and judged)
    if wanted and before is not None and before.lines and before.best_move is not None \
            and node.move != before.best_move:
        parent = node.parent
        variation = parent.add_variation(before.best_move)
        if before.score is not None:
            variation.set_eval(before.score)
        variation.add_line(before.pv[1:])


def position_game(analysis: Analysis, board: chess.Board, headers: dict) -> chess.pgn.Game:
    """A one-position PGN game: the best line as the main line, other MultiPV lines as variations."""
    game = chess.pgn.Game.from_board(board)
    game.headers.update(headers)
    if analysis.outcome is not None:
        game.comment = analysis.outcome.termination.name.lower()
    for line in analysis.lines:
        if not line.pv:
            continue
        node = game.add_variation(line.pv[0])
        node.set_eval(line.score)
        node.add_line(line.pv[1:])
    return game


def export(game: chess.pgn.Game) -> str:
    """PGN text of ``game`` with headers, comments and variations, followed by a blank line."""
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return game.accept(exporter) + "\n\n"
