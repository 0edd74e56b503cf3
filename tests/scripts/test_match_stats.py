"""Match statistics (scripts/matchlib/stats.py) against published and hand-computed values.

Sources of the reference numbers:
- fastchess (github.com/Disservin/fastchess) tests/sprt_test.cpp: GSPRT LLRs for trinomial and
  pentanomial results, logistic and normalized models, quoted to 2 decimals; fastchess checks
  them against fishtest.  Its Stats arguments are (wins, losses, draws) and, for pentanomial
  tests, (LL, LD, WL, DD, WD, WW); here counts run from the worst to the best result.
- fastchess tests/elo_test.cpp: Elo difference and 95% error for W/L/D results (1% tolerance,
  as there).
- Hand calculations written out in the tests (interval from mean and variance), and a second,
  independent LLR formula (Van den Bergh's Brownian approximation) for the exact GSPRT.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pruner.lab.matchlib.stats import (Sprt, elo_estimate, elo_to_score, llr_logistic, llr_normal_approx,
                            llr_normalized, los, score_to_elo, trinomial_elo)

pytestmark = pytest.mark.one_interpreter

Z95 = 1.959963984540054


def test_elo_from_score_known_values():
    assert score_to_elo(0.5) == 0.0
    assert score_to_elo(0.75) == pytest.approx(400 * math.log10(3))  # 190.85: 3:1 odds
    assert score_to_elo(0.25) == pytest.approx(-400 * math.log10(3))
    assert score_to_elo(10 / 11) == pytest.approx(400.0)  # 10:1 odds is 400 Elo by definition
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


@given(st.floats(min_value=-1500, max_value=1500))
def test_score_and_elo_are_inverse(elo):
    assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo, abs=1e-6)


@pytest.mark.parametrize("wins, losses, draws, elo, error", [
    (0, 36, 14, -315.34, 95.43),
    (859, 772, 1329, 10.21, 9.28),
    (1164, 1267, 3049, -6.53, 6.12),
])
def test_trinomial_elo_matches_fastchess(wins, losses, draws, elo, error):
    estimate = trinomial_elo(wins, draws, losses)
    assert estimate.elo == pytest.approx(elo, abs=0.01)
    assert estimate.error == pytest.approx(error, rel=0.01)


def test_trinomial_interval_by_hand():
    # W 0, D 14, L 36: mean 0.14; E[x^2] = 14 * 0.25 / 50 = 0.07; var = 0.07 - 0.14^2 = 0.0504.
    estimate = trinomial_elo(0, 14, 36)
    stderr = math.sqrt(0.0504 / 50)
    assert estimate.score == pytest.approx(0.14)
    assert estimate.stderr == pytest.approx(stderr)
    assert estimate.low == pytest.approx(-400 * math.log10(1 / (0.14 - Z95 * stderr) - 1))
    assert estimate.high == pytest.approx(-400 * math.log10(1 / (0.14 + Z95 * stderr) - 1))


def test_pentanomial_interval_by_hand():
    # Pairs [LL, LD, DD+WL, WD, WW] = [1, 2, 3, 2, 1]: pair scores 0, 1/4, 1/2, 3/4, 1, mean 1/2.
    # var = (2 * 1 * 0.25 + 2 * 2 * 0.0625) / 9 = 0.75 / 9; stderr = sqrt(var / 9 pairs).
    estimate = elo_estimate([1, 2, 3, 2, 1])
    stderr = math.sqrt(0.75 / 9 / 9)
    assert estimate.score == pytest.approx(0.5)
    assert estimate.elo == pytest.approx(0.0)
    assert estimate.stderr == pytest.approx(stderr)
    assert estimate.high == pytest.approx(score_to_elo(0.5 + Z95 * stderr))
    assert estimate.low == pytest.approx(-estimate.high)


def test_pentanomial_is_narrower_when_pairs_cancel_opening_bias():
    # 20 pairs, each won by whoever had White (WL): the same games as 20 W + 20 L.
    penta = elo_estimate([0, 0, 20, 0, 0])
    tri = trinomial_elo(20, 0, 20)
    assert penta.elo == pytest.approx(tri.elo) == pytest.approx(0.0)
    assert penta.error < tri.error


@pytest.mark.parametrize("model, elo0, elo1, counts, expected", [
    # fastchess sprt_test.cpp, trinomial: Stats(W, L, D) -> [L, D, W]
    ("normalized", 0, 2, [36027, 68692, 36433], 0.92),
    ("normalized", -1.75, 0.25, [10650, 20431, 10871], 2.30),
    ("logistic", 0.5, 2.5, [21184, 40708, 21404], -1.57),
    ("logistic", 0, 2, [57030, 106593, 57433], -2.59),
    # pentanomial: Stats(LL, LD, WL, DD, WD, WW) -> [LL, LD, WL + DD, WD, WW]
    ("normalized", 0, 2, [365, 16618, 36029 + 200, 16974, 390], 2.25),
    ("normalized", -1.75, 0.25, [127, 4883, 10311 + 401, 5150, 104], 3.01),
    ("logistic", 0.5, 2.5, [223, 9863, 20279 + 1000, 10037, 246], -3.07),
    ("logistic", 0, 2, [871, 26175, 55003 + 980, 26678, 821], -4.98),
])
def test_llr_matches_fastchess(model, elo0, elo1, counts, expected):
    assert Sprt(elo0, elo1, model=model).llr(counts) == pytest.approx(expected, abs=0.006)


@pytest.mark.parametrize("counts", [
    [21184, 40708, 21404],
    [120, 300, 150],
    [223, 9863, 21279, 10037, 246],
    [30, 80, 150, 90, 40],
])
def test_exact_llr_agrees_with_brownian_approximation(counts):
    # Two independent formulas: constrained MLE (exact GSPRT) vs N (s1-s0)(2s-s0-s1) / (2 var).
    exact = llr_logistic(0, 5, counts)
    approx = llr_normal_approx(0, 5, counts)
    assert exact == pytest.approx(approx, rel=0.02, abs=0.02)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=60), min_size=5, max_size=5).filter(lambda c: sum(c) > 0))
def test_llr_antisymmetry(counts):
    # Swapping the engines mirrors the counts and the Elo hypotheses: the LLR changes sign.
    assert llr_logistic(-5, 0, counts[::-1]) == pytest.approx(-llr_logistic(0, 5, counts), abs=1e-6)


def test_llr_of_no_games_is_zero():
    assert llr_logistic(0, 5, [0, 0, 0, 0, 0]) == 0.0
    assert llr_normalized(0, 5, [0, 0, 0]) == 0.0


def test_sprt_bounds_and_verdicts():
    sprt = Sprt(0, 10)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert sprt.upper == pytest.approx(2.944, abs=1e-3)
    assert sprt.verdict(3.0) == "H1" and sprt.verdict(-3.0) == "H0" and sprt.verdict(0.1) is None
    with pytest.raises(ValueError):
        Sprt(5, 0)
    with pytest.raises(ValueError):
        Sprt(0, 5, model="bayesian")


def test_llr_sign_follows_the_evidence():
    assert llr_logistic(0, 10, [10, 20, 40, 20, 30]) > 0  # winning pairs: towards H1
    assert llr_logistic(0, 10, [30, 20, 40, 20, 10]) < 0  # losing pairs: towards H0


def test_los():
    assert los(10, 10) == pytest.approx(0.5)
    assert los(0, 0) == 0.5
    # W 20 L 10: 0.5 * (1 + erf(10 / sqrt(60)))
    assert los(20, 10) == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(60))))


# --- small and one-sided samples: finite intervals ---------------------------------------

@pytest.mark.parametrize("counts", [
    [0, 0, 1],        # 1-0-0 (trinomial counts run [L, D, W])
    [1, 0, 0],        # 0-0-1
    [0, 0, 2],        # two wins
    [2, 0, 0],        # two losses
    [1, 0, 1],        # a win and a loss, no draw
    [0, 1, 0],        # one draw
    [0, 7, 0],        # only draws
    [3, 0, 7],        # 3 losses, 7 wins
    [0, 0, 0, 0, 1],  # one pair, both games won
    [1, 0, 0, 0, 0],
    [0, 0, 5, 0, 0],  # five even pairs
    [0, 0, 0, 0, 74],
])
def test_small_and_one_sided_samples_have_a_finite_interval(counts):
    estimate = elo_estimate(counts)
    assert all(math.isfinite(value) for value in (estimate.elo, estimate.low, estimate.high, estimate.error))
    assert estimate.low < estimate.elo < estimate.high and estimate.error > 0
    assert 0.0 < estimate.score < 1.0


def test_empirical_logit_is_the_textbook_interval_for_wins_and_losses():
    # W 3, L 1: logit((W + 1/2) / (L + 1/2)) +- z sqrt(1/(W + 1/2) + 1/(L + 1/2)), in Elo
    estimate = trinomial_elo(3, 0, 1)  # the normal interval reaches a score of 1
    elo_per_logit = 400 / math.log(10)
    assert estimate.adjusted
    assert estimate.elo == pytest.approx(elo_per_logit * math.log(3.5 / 1.5))
    assert estimate.error == pytest.approx(Z95 * elo_per_logit * math.sqrt(1 / 3.5 + 1 / 1.5))
    one = trinomial_elo(1, 0, 0)  # 1-0-0: odds 1.5 : 0.5
    assert one.elo == pytest.approx(400 * math.log10(3)) and one.error == pytest.approx(
        Z95 * elo_per_logit * math.sqrt(1 / 1.5 + 1 / 0.5))
    assert trinomial_elo(0, 0, 1).elo == pytest.approx(-one.elo)


def test_only_draws_are_not_a_zero_width_interval():
    estimate = trinomial_elo(0, 10, 0)
    # counts [1/2, 10, 1/2] over 11 games: variance 0.25 / 11, stderr sqrt(variance / 11)
    assert estimate.adjusted and estimate.elo == pytest.approx(0.0)
    assert estimate.error == pytest.approx(Z95 * 400 / math.log(10) * math.sqrt(0.25 / 11 / 11) / 0.25)


def test_ordinary_samples_keep_the_normal_interval():
    # the fastchess reference values above are all ordinary: not adjusted
    assert not trinomial_elo(859, 1329, 772).adjusted
    assert not elo_estimate([1, 2, 3, 2, 1]).adjusted
    assert not trinomial_elo(7, 0, 3).adjusted  # 70% of 10: the normal interval stays inside (0, 1)
