"""Match statistics: Elo from score, 95% intervals, LOS and the GSPRT log-likelihood ratio.

Result counts are always listed from the worst to the best outcome for engine 1:

- trinomial (per game): ``[losses, draws, wins]`` with game scores 0, 1/2, 1;
- pentanomial (per colour-reversed pair): ``[LL, LD, DD+WL, WD, WW]`` with pair scores
  0, 1/4, 1/2, 3/4, 1 (the pair's mean game score).

Elo model: logistic, ``score = 1 / (1 + 10 ** (-elo / 400))``.  The 95% interval is the
normal interval on the mean score (standard error of the per-game or per-pair score
distribution) mapped through that formula, as cutechess and fastchess print it.  When that
interval reaches a score of 0 or 1, or has no width (a small or one-sided sample: 1-0-0,
2 wins, 1 win and 1 loss, only draws), it would give an infinite or a zero-width Elo
interval; then the estimate is the *empirical logit* one instead: half a win and half a
loss are added to the counts (the Haldane-Anscombe correction; for pairs, half an LL and
half a WW pair) and the interval is symmetric on the Elo scale, ``Elo(s) +- z * (400 /
ln 10) * stderr(s) / (s (1 - s))`` (the delta method), finite for every sample.  With wins
and losses only it is the textbook empirical-logit interval of a binomial proportion,
``logit((W + 1/2) / (L + 1/2)) +- z * sqrt(1 / (W + 1/2) + 1 / (L + 1/2))``.

SPRT: the generalized SPRT (GSPRT) of fishtest, see M. Van den Bergh,
https://www.cantate.be/Fishtest/support_MLE_multinomial.pdf (logistic model: the
hypotheses fix the expected score) and .../normalized_elo_practical.pdf (normalized
model: the hypotheses fix the t-value ``(score - 1/2) / sigma``).  For each hypothesis the
maximum-likelihood distribution compatible with it is computed from the empirical one,
and ``LLR = N * sum(p_i * log(p1_i / p0_i))``.  Zero counts are replaced by 1e-3 first
(fishtest's regularization).  Bounds: ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)``.
"""

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import List, Optional, Sequence, Tuple

Pdf = List[Tuple[float, float]]  # (score, probability) pairs, scores ascending

#: normalized Elo per unit of t-value (fishtest's ``nelo_divided_by_nt``)
NELO_PER_T = 800.0 / math.log(10.0)

MODELS = ("logistic", "normalized")


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Elo difference for an expected score: ``-400 * log10(1 / score - 1)``; +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _counts_to_pdf(counts: Sequence[float]) -> Tuple[float, Pdf]:
    """Total and empirical distribution of counts over equally spaced scores 0..1."""
    total = float(sum(counts))
    last = len(counts) - 1
    return total, [(i / last, c / total) for i, c in enumerate(counts)]


def mean_variance(pdf: Pdf) -> Tuple[float, float]:
    """Mean and variance of a discrete distribution."""
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its confidence interval, from engine 1's point of view."""

    score: float
    """Mean game score of engine 1 (0..1)."""
    elo: float
    """Elo difference for that score."""
    low: float
    """Lower end of the interval (Elo)."""
    high: float
    """Upper end of the interval (Elo)."""
    stderr: float
    """Standard error of the mean score."""
    adjusted: bool = False
    """True when the sample was too small or one-sided for the normal interval and the
    empirical-logit estimate (half a win and half a loss added) was used instead."""

    @property
    def error(self) -> float:
        """Half-width of the interval in Elo (the '+-' figure)."""
        return (self.high - self.low) / 2.0


def elo_estimate(counts: Sequence[int], confidence: float = 0.95) -> Optional[EloEstimate]:
    """Elo and interval from trinomial ``[L, D, W]`` or pentanomial ``[LL, LD, DD+WL, WD, WW]``
    counts; None when there are no games."""
    if len(counts) not in (3, 5):
        raise ValueError("counts must have 3 (L, D, W) or 5 (pentanomial) entries")
    if sum(counts) <= 0:
        return None
    n, pdf = _counts_to_pdf(counts)
    mean, var = mean_variance(pdf)
    stderr = math.sqrt(var / n)
    z = _z(confidence)
    if stderr > 0.0 and 0.0 < mean - z * stderr and mean + z * stderr < 1.0:
        return EloEstimate(mean, score_to_elo(mean), score_to_elo(mean - z * stderr),
                           score_to_elo(mean + z * stderr), stderr)
    return _empirical_logit(counts, z)


def _empirical_logit(counts: Sequence[float], z: float) -> EloEstimate:
    """Elo and a finite, symmetric interval for a small or one-sided sample: half a loss and
    half a win (half an LL and half a WW pair) added, the interval by the delta method on the
    Elo (logit) scale."""
    adjusted = list(counts)
    adjusted[0] += 0.5
    adjusted[-1] += 0.5
    n, pdf = _counts_to_pdf(adjusted)
    mean, var = mean_variance(pdf)
    stderr = math.sqrt(var / n)
    elo = score_to_elo(mean)
    error = z * 400.0 / math.log(10.0) * stderr / (mean * (1.0 - mean))
    return EloEstimate(mean, elo, elo - error, elo + error, stderr, adjusted=True)


def trinomial_elo(wins: int, draws: int, losses: int, confidence: float = 0.95) -> Optional[EloEstimate]:
    """Elo and interval treating every game as independent."""
    return elo_estimate([losses, draws, wins], confidence)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: probability that engine 1 is stronger (draws ignored)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


# --- GSPRT -------------------------------------------------------------------------------

def _secular(pdf: Pdf) -> float:
    """Root x of ``sum p_i a_i / (1 + x a_i) = 0`` with every ``1 + x a_i > 0``.

    Needs min(a) < 0 < max(a); the function decreases on that interval, so bisection
    always converges."""
    low_a = min(a for a, _ in pdf)
    high_a = max(a for a, _ in pdf)
    if not low_a < 0.0 < high_a:
        raise ValueError("hypothesis outside the range of possible scores")
    lo, hi = -1.0 / high_a, -1.0 / low_a

    def f(x: float) -> float:
        return sum(p * a / (1.0 + x * a) for a, p in pdf)

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def mle_expected(pdf: Pdf, s: float) -> Pdf:
    """Most likely distribution with mean ``s`` given the empirical ``pdf``
    (Van den Bergh, support_MLE_multinomial.pdf, Proposition 1.1)."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdf]


def mle_t_value(pdf: Pdf, ref: float, t: float) -> Pdf:
    """Most likely distribution with t-value ``(mean - ref) / sigma == t`` given the empirical
    ``pdf`` (Van den Bergh, normalized_elo_practical.pdf, section 4.1): a fixed-point
    iteration, each step solving a secular equation."""
    mle = [(a, 1.0 / len(pdf)) for a, _ in pdf]
    for _ in range(100):
        mean, var = mean_variance(mle)
        sigma = math.sqrt(var)
        shifted = [(a - ref - t * sigma * (1.0 + ((mean - a) / sigma) ** 2) / 2.0, p)
                   for a, p in pdf]
        x = _secular(shifted)
        new = [(a, p / (1.0 + x * b)) for (a, p), (b, _) in zip(pdf, shifted)]
        change = max(abs(p - q) for (_, p), (_, q) in zip(new, mle))
        mle = new
        if change < 1e-12:
            break
    return mle


def _regularize(counts: Sequence[float]) -> List[float]:
    return [c if c > 0 else 1e-3 for c in counts]


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """GSPRT log-likelihood ratio of H1 (elo == elo1) against H0 (elo == elo0), logistic Elo."""
    if sum(counts) <= 0:
        return 0.0
    n, pdf = _counts_to_pdf(_regularize(counts))
    p0 = mle_expected(pdf, elo_to_score(elo0))
    p1 = mle_expected(pdf, elo_to_score(elo1))
    return n * sum(p * math.log(q1 / q0) for (_, p), (_, q0), (_, q1) in zip(pdf, p0, p1))


def llr_normalized(nelo0: float, nelo1: float, counts: Sequence[float]) -> float:
    """GSPRT log-likelihood ratio with the hypotheses in normalized Elo (fishtest's default).

    Normalized Elo is the t-value per game times 800/ln(10); for pairs the per-pair t-value
    is sqrt(2) times the per-game one."""
    if sum(counts) <= 0:
        return 0.0
    n, pdf = _counts_to_pdf(_regularize(counts))
    scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
    t0, t1 = nelo0 / NELO_PER_T * scale, nelo1 / NELO_PER_T * scale
    p0 = mle_t_value(pdf, 0.5, t0)
    p1 = mle_t_value(pdf, 0.5, t1)
    return n * sum(p * math.log(q1 / q0) for (_, p), (_, q0), (_, q1) in zip(pdf, p0, p1))


def llr_normal_approx(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """Brownian approximation of the logistic GSPRT LLR (Van den Bergh, GSPRT_approximation.pdf):
    ``N * (s1 - s0) * (2 s - s0 - s1) / (2 var)``.  Used to cross-check the exact value."""
    n, pdf = _counts_to_pdf(_regularize(counts))
    mean, var = mean_variance(pdf)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test H0: elo == elo0 against H1: elo == elo1."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    """False positive rate (accepting H1 when H0 holds)."""
    beta: float = 0.05
    """False negative rate (accepting H0 when H1 holds)."""
    model: str = "logistic"
    """"logistic" (elo0/elo1 in plain Elo) or "normalized" (in normalized Elo, as fishtest)."""

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT needs elo0 < elo1")
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("SPRT alpha and beta must be in (0, 1)")
        if self.model not in MODELS:
            raise ValueError("SPRT model must be one of %s" % ", ".join(MODELS))

    @property
    def lower(self) -> float:
        """Accept H0 when the LLR falls to this bound."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 when the LLR reaches this bound."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """Log-likelihood ratio for trinomial or pentanomial counts."""
        if self.model == "normalized":
            return llr_normalized(self.elo0, self.elo1, counts)
        return llr_logistic(self.elo0, self.elo1, counts)

    def verdict(self, llr: float) -> Optional[str]:
        """"H0" or "H1" once a bound is crossed, else None."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None
