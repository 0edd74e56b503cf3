"""Running totals of a match from engine 1's point of view: W/D/L, colours, pairs, faults."""

from collections import Counter
from typing import Dict, List, Optional

from .game import FAULT_KINDS, Fault, GameRecord
from .history import TallyPoint, snapshot
from .stats import EloEstimate, Sprt, elo_estimate


class Tally:
    """Results of the finished games; ``add`` every record as it arrives, in any order."""

    def __init__(self, sprt: Optional[Sprt] = None) -> None:
        self.wins = self.draws = self.losses = 0
        self.white = [0, 0, 0]
        """Engine 1's [wins, draws, losses] with White."""
        self.black = [0, 0, 0]
        """Engine 1's [wins, draws, losses] with Black."""
        self.pentanomial = [0, 0, 0, 0, 0]
        """Completed pairs by pair score: [LL, LD, DD+WL, WD, WW]."""
        self.pairs_wl = 0
        """Of the pairs scoring 1/2: those of one win and one loss (fastchess's WL)."""
        self.pairs_dd = 0
        """Of the pairs scoring 1/2: those of two draws (fastchess's DD)."""
        self.faults: List[Fault] = []
        self.terminations: Counter = Counter()
        self.uncounted = 0
        """Games without a result (engine failed to start, match stopped)."""
        self._pending: Dict[int, Optional[float]] = {}
        self.sprt = sprt
        """The match's SPRT, if any: its LLR goes into ``history``."""
        self.history: List[TallyPoint] = []
        """The running numbers after each counted game, in the order they finished."""

    @property
    def games(self) -> int:
        """Counted games."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Engine 1's points: a win 1, a draw 1/2."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> Optional[float]:
        """Engine 1's points per counted game (None before any)."""
        return self.points / self.games if self.games else None

    @property
    def pairs(self) -> int:
        """Completed pairs (both games counted)."""
        return sum(self.pentanomial)

    @property
    def trinomial(self) -> List[int]:
        """[losses, draws, wins], the order the statistics use."""
        return [self.losses, self.draws, self.wins]

    def add(self, record: GameRecord) -> bool:
        """Count a record; True when it completed a pair."""
        if record.fault is not None:
            self.faults.append(record.fault)
        score = record.engine1_score()
        pair = record.job.pair
        if score is None:
            self.uncounted += 1
            self._pending[pair] = None  # this pair can no longer complete
            return False
        return self.count(pair, score, record.job.engine1_white, record.termination)

    def count(self, pair: int, score: float, engine1_white: bool, termination: str = "normal") -> bool:
        """Count one game of pair ``pair`` by engine 1's score; True when it completed the pair
        (``add`` for a played game; calibrate.py re-counts the games of a PGN through it)."""
        self.terminations[termination] += 1
        colour = self.white if engine1_white else self.black
        if score == 1.0:
            self.wins += 1
            colour[0] += 1
        elif score == 0.0:
            self.losses += 1
            colour[2] += 1
        else:
            self.draws += 1
            colour[1] += 1
        completed = self._pair(pair, score)
        self.history.append(snapshot(self, self.sprt))
        return completed

    def _pair(self, pair: int, score: float) -> bool:
        """Count the pair of a counted game; True when this game completed it."""
        if pair not in self._pending:
            self._pending[pair] = score
            return False
        other = self._pending.pop(pair)
        if other is None:
            return False
        self.pentanomial[int(round((other + score) * 2))] += 1
        if other + score == 1.0:
            if score == 0.5:
                self.pairs_dd += 1
            else:
                self.pairs_wl += 1
        return True

    def fault_counts(self) -> Dict[str, int]:
        """Faults by kind, every kind of ``FAULT_KINDS`` listed (0 when none)."""
        counts = {kind: 0 for kind in FAULT_KINDS}
        for fault in self.faults:
            counts[fault.kind] = counts.get(fault.kind, 0) + 1
        return counts

    def elo(self) -> Optional[EloEstimate]:
        """Trinomial estimate over all counted games."""
        return elo_estimate(self.trinomial) if self.games else None

    def penta_elo(self) -> Optional[EloEstimate]:
        """Pentanomial estimate over completed pairs."""
        return elo_estimate(self.pentanomial) if self.pairs else None

    def best_elo(self):
        """(estimate, "pentanomial"|"trinomial"): pentanomial when every counted game is in a
        completed pair, the trinomial model otherwise."""
        if self.pairs and 2 * self.pairs == self.games:
            return self.penta_elo(), "pentanomial"
        return self.elo(), "trinomial"
