"""The running numbers of a match, one snapshot per finished (counted) game.

``Tally.add`` appends a ``TallyPoint`` for every counted game, so ``tally.history`` is the
match as it unfolded: the Elo estimates and the SPRT log-likelihood ratio after each game,
computed with the same ``stats`` functions (and the same pentanomial counts) as the live
output lines. ``pruner.lab.matchlib.plot`` draws it.
"""

import math
from dataclasses import dataclass
from typing import Optional

from .stats import EloEstimate, Sprt, elo_estimate


@dataclass(frozen=True)
class TallyPoint:
    """The match after its ``games``-th counted game, from engine 1's point of view."""

    games: int
    wins: int
    draws: int
    losses: int
    pairs: int
    """Completed colour-reversed pairs."""
    elo: float
    """Trinomial Elo (every game independent); ±inf at a 0% or 100% score."""
    elo_low: float
    elo_high: float
    """Its 95% interval."""
    penta_elo: Optional[float]
    """Pentanomial Elo over the completed pairs (None before the first pair)."""
    penta_low: Optional[float]
    penta_high: Optional[float]
    llr: Optional[float]
    """SPRT log-likelihood ratio on the pentanomial counts (None without an SPRT)."""


def _ends(estimate: Optional[EloEstimate]):
    if estimate is None:
        return None, None, None
    return estimate.elo, estimate.low, estimate.high


def snapshot(tally, sprt: Optional[Sprt]) -> TallyPoint:
    """The running numbers of ``tally`` (a ``pruner.lab.matchlib.tally.Tally``) now."""
    elo, low, high = _ends(elo_estimate(tally.trinomial)) if tally.games else (math.nan,) * 3
    penta = elo_estimate(tally.pentanomial) if tally.pairs else None
    penta_elo, penta_low, penta_high = _ends(penta)
    llr = sprt.llr(tally.pentanomial) if sprt is not None else None
    return TallyPoint(tally.games, tally.wins, tally.draws, tally.losses, tally.pairs,
                      elo, low, high, penta_elo, penta_low, penta_high, llr)
