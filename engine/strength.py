"""Weaker play for ``UCI_LimitStrength``/``UCI_Elo``: a node budget per move and a noisy pick
among the best lines of a MultiPV search.

The model, all of whose constants live in ``StrengthModel`` (calibrate them there, with games):

* **Node budget.** Each move is searched for at most ``nodes`` nodes, growing geometrically
  from ``nodes_at_min`` at ``min_elo`` to ``nodes_at_max`` at ``max_elo`` (a smaller node
  limit from the GUI stands).
* **Noisy choice.** The search reports ``multipv`` lines; ``choose`` picks one by a softmax
  over the centipawn loss against the best line, ``weight = exp(-loss / temperature)``, with
  the temperature falling geometrically with Elo. A line losing more than ``max_loss``
  (falling linearly with Elo) is never chosen.
* **Guards.** A mate found is always played; a line that walks into a mate is never chosen
  while the best line does not; with fewer than ``min_depth`` plies completed (mate threats
  not yet seen) the best line is played. Only legal root moves are ever chosen (every line's
  first move is one).

Deterministic: the same lines and the same seeded ``random.Random`` give the same choice.
"""

import math
import random
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from engine.types import MATE_BOUND, Limits, SearchInfo


@dataclass(frozen=True)
class StrengthModel:
    """The constants of the strength model (provisional: calibrated by matches)."""

    min_elo: int = 800
    """Weakest setting offered (``UCI_Elo`` min)."""
    max_elo: int = 2000
    """Strongest setting offered (``UCI_Elo`` max)."""
    default_elo: int = 1500
    """``UCI_Elo`` default."""
    nodes_at_min: int = 1000
    """Node budget per move at ``min_elo`` (depth 2 with 4 lines takes 400-2000 nodes)."""
    nodes_at_max: int = 50000
    """Node budget per move at ``max_elo``."""
    temperature_at_min: float = 120.0
    """Softmax temperature (centipawns) at ``min_elo``: a 120 cp worse move has weight 1/e."""
    temperature_at_max: float = 8.0
    """Softmax temperature at ``max_elo``."""
    max_loss_at_min: int = 350
    """Largest loss (centipawns) ever chosen at ``min_elo``."""
    max_loss_at_max: int = 25
    """Largest loss ever chosen at ``max_elo``."""
    multipv: int = 4
    """Lines searched to choose from."""
    min_depth: int = 2
    """Below this completed depth the best line is played (a mate-in-1 threat needs 2 plies)."""


MODEL = StrengthModel()
"""The model ``UCI_Elo`` uses."""


def _geometric(low: float, high: float, t: float) -> float:
    return low * (high / low) ** t


class StrengthLimit:
    """The strength model at one Elo: ``limits_for`` caps a search, ``choose`` picks a line."""

    def __init__(self, elo: int, model: StrengthModel = MODEL) -> None:
        self.model = model
        self.elo = max(model.min_elo, min(model.max_elo, elo))
        """The Elo setting, clamped to the model's range."""
        t = (self.elo - model.min_elo) / max(1, model.max_elo - model.min_elo)
        self.nodes = int(round(_geometric(model.nodes_at_min, model.nodes_at_max, t)))
        """Node budget per move."""
        self.temperature = _geometric(model.temperature_at_min, model.temperature_at_max, t)
        """Softmax temperature in centipawns."""
        self.max_loss = int(round(model.max_loss_at_min + (model.max_loss_at_max - model.max_loss_at_min) * t))
        """Largest centipawn loss a chosen line may have against the best one."""
        self.multipv = model.multipv
        """Number of lines to search (the caller searches at least this many)."""

    def limits_for(self, limits: Limits) -> Limits:
        """``limits`` with the node budget applied (a smaller node limit already there stands)."""
        nodes = self.nodes if limits.nodes is None else min(limits.nodes, self.nodes)
        return replace(limits, nodes=nodes)

    def choose(self, lines: Sequence[SearchInfo], rng: random.Random) -> Optional[SearchInfo]:
        """One of ``lines`` (a completed iteration, best first), or None when there is none."""
        if not lines:
            return None
        ordered = sorted(lines, key=lambda line: line.multipv)
        best = ordered[0]
        if len(ordered) == 1 or best.depth < self.model.min_depth or best.score >= MATE_BOUND:
            return best
        candidates = []
        for line in ordered:
            loss = best.score - line.score
            if not line.pv or loss > self.max_loss:
                continue
            if line.score <= -MATE_BOUND < best.score:
                continue  # never walk into a mate the best line avoids
            candidates.append((line, math.exp(-loss / self.temperature)))
        if not candidates:
            return best
        total = sum(weight for _, weight in candidates)
        point = rng.random() * total
        for line, weight in candidates:
            point -= weight
            if point < 0:
                return line
        return candidates[-1][0]
