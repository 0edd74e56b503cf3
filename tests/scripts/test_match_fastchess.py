"""scripts/matchlib/fastchess.py: fastchess's result block, line for line.

The reference blocks are fastchess's own output (two-engine matches, default pentanomial
reports), as engine authors quote it in their result logs; each pair of a win and a loss
versus two draws (WL/DD) follows from the printed ratio and the W/L/D counts. Their LLR lines
use fastchess's default SPRT model, the normalized one (``--sprt-model normalized`` here).
"""

import math
import re

import pytest

from pruner.lab.matchlib import fastchess, report
from pruner.lab.matchlib.stats import Sprt
from pruner.lab.matchlib.tally import Tally
from pruner.lab.matchlib.timecontrol import TimeControl
from test_match import _record  # the game records of the match tests

pytestmark = pytest.mark.one_interpreter


def tally_of(ll, ld, wl, dd, wd, ww):
    """A tally holding these completed pairs (and the games they are made of)."""
    tally = Tally()
    tally.pentanomial = [ll, ld, wl + dd, wd, ww]
    tally.pairs_wl, tally.pairs_dd = wl, dd
    tally.wins = 2 * ww + wd + wl
    tally.losses = 2 * ll + ld + wl
    tally.draws = wd + ld + 2 * dd
    return tally


REFERENCE = [
    ((1, 11, 10, 37, 25, 16), None, """\
Elo: 77.71 +/- 33.03, nElo: 117.50 +/- 48.15
LOS: 100.00 %, DrawRatio: 47.00 %, PairsRatio: 3.42
Games: 200, Wins: 67, Losses: 23, Draws: 110, Points: 122.0 (61.00 %)
Ptnml(0-2): [1, 11, 47, 25, 16], WL/DD Ratio: 0.27"""),
    ((12, 6, 25, 0, 8, 9), None, """\
Elo: -11.59 +/- 56.66, nElo: -12.83 +/- 62.16
LOS: 34.29 %, DrawRatio: 41.67 %, PairsRatio: 0.94
Games: 120, Wins: 51, Losses: 55, Draws: 14, Points: 58.0 (48.33 %)
Ptnml(0-2): [12, 6, 25, 8, 9], WL/DD Ratio: inf"""),
    ((0, 1, 1, 0, 0, 0), (0, 5), """\
Elo: -88.74 +/- 136.27, nElo: -245.67 +/- 340.48
LOS: 7.86 %, DrawRatio: 50.00 %, PairsRatio: 0.00
Games: 4, Wins: 1, Losses: 2, Draws: 1, Points: 1.5 (37.50 %)
Ptnml(0-2): [0, 1, 1, 0, 0], WL/DD Ratio: inf
LLR: -0.02 (-0.7%) (-2.94, 2.94) [0.00, 5.00]"""),
    ((0, 0, 0, 0, 6, 6), (0, 100), """\
Elo: 338.04 +/- 125.48, nElo: 737.02 +/- 139.00
LOS: 100.00 %, DrawRatio: 0.00 %, PairsRatio: inf
Games: 24, Wins: 18, Losses: 0, Draws: 6, Points: 21.0 (87.50 %)
Ptnml(0-2): [0, 0, 0, 6, 6], WL/DD Ratio: -nan
LLR: 3.25 (110.4%) (-2.94, 2.94) [0.00, 100.00]"""),
    # every game won: fastchess prints "Elo: inf +/- -nan, nElo: inf +/- -nan" here; the block
    # shows the final line's bounded estimate instead (test_a_one_sided_sample_...)
    ((0, 0, 0, 0, 0, 74), (0, 10), """\
Elo: 869.27 +/- 483.13, nElo: 1489.35 +/- 55.60
LOS: 100.00 %, DrawRatio: 0.00 %, PairsRatio: inf
Games: 148, Wins: 148, Losses: 0, Draws: 0, Points: 148.0 (100.00 %)
Ptnml(0-2): [0, 0, 0, 0, 74], WL/DD Ratio: -nan
LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 10.00]"""),
]


@pytest.mark.parametrize("pairs, hypotheses, expected", REFERENCE)
def test_block_lines_equal_fastchess_output(pairs, hypotheses, expected):
    sprt = Sprt(*hypotheses, model="normalized") if hypotheses else None
    lines = fastchess.block(tally_of(*pairs), "new", "old", fastchess.Setup("10+0.1"), sprt)
    assert lines[0] == lines[-1] == "-" * 50
    assert lines[1] == "Results of new vs old (10+0.1, NULL, NULL):"
    assert "\n".join(lines[2:-1]) == expected


@pytest.mark.parametrize("pairs", [(0, 0, 0, 0, 0, 5), (5, 0, 0, 0, 0, 0), (0, 0, 0, 3, 0, 0), (0, 0, 0, 0, 1, 0),
                                   (0, 0, 0, 0, 4, 6), (0, 0, 1, 0, 0, 0)])
def test_the_block_and_the_final_line_agree_and_stay_finite(pairs):
    """10-0 printed "Elo: inf +/- -nan" beside the final line's "+416.6 ± 502.9": where fastchess's
    interval is unbounded or has no width (all but the 4 WD + 6 WW pairs here), the block's Elo
    is the final line's, and nElo and LOS are finite."""
    tally = tally_of(*pairs)
    lines = fastchess.block(tally, "a", "b", fastchess.Setup("10+0.1"))
    elo, error, nelo, nelo_error = map(float, re.fullmatch(
        r"Elo: (\S+) \+/- (\S+), nElo: (\S+) \+/- (\S+)", lines[2]).groups())
    los = float(re.match(r"LOS: (\S+) %", lines[3]).group(1))
    assert all(math.isfinite(value) for value in (elo, error, nelo, nelo_error, los)), lines
    final = re.search(r"Elo ([+-]\S+) ± (\S+) \(95%, pentanomial(, adjusted)?\)", report.final_line(tally))
    assert final, report.final_line(tally)
    assert "%+.1f ± %.1f" % (elo + 0.0, error) == "%+.1f ± %s" % (float(final.group(1)), final.group(2))
    assert error > 0 and nelo_error > 0 and (elo > 0) == (nelo > 0) == (los > 50) or elo == nelo == 0


def test_a_tie_of_two_split_pairs():
    # fastchess prints -0.00 for the Elo of an even score (-400 * log10(1) is -0.0)
    lines = fastchess.block(tally_of(0, 1, 0, 0, 1, 0), "plus", "minus", fastchess.Setup("1+0.01"))
    assert lines[2] == "Elo: -0.00 +/- 296.58, nElo: 0.00 +/- 340.48"
    assert lines[3] == "LOS: 50.00 %, DrawRatio: 0.00 %, PairsRatio: 1.00"
    assert lines[5] == "Ptnml(0-2): [0, 1, 0, 1, 0], WL/DD Ratio: -nan"


def test_no_pair_yet_prints_nan_as_fastchess_would():
    lines = fastchess.block(Tally(), "a", "b", fastchess.Setup("10+0.1"))
    assert lines[2] == "Elo: -nan +/- -nan, nElo: -nan +/- -nan"
    assert lines[4] == "Games: 0, Wins: 0, Losses: 0, Draws: 0, Points: 0.0 (-nan %)"


@pytest.mark.parametrize("tc, text", [
    (TimeControl(base=10.0, inc=0.1), "10+0.1"),
    (TimeControl(base=8.0, inc=0.08), "8+0.08"),
    (TimeControl(base=60.0), "60"),
    (TimeControl(base=0.5, inc=0.005), "0.5+0.005"),
    (TimeControl(base=10.0, inc=0.1, depth=5), "10+0.1"),
    (TimeControl(movetime=0.1), "0.1/move"),
    (TimeControl(movetime=1.0), "1/move"),
    (TimeControl(depth=5), "5 plies"),
    (TimeControl(depth=5, nodes=4000), "5 plies"),
    (TimeControl(nodes=4000), "4000 nodes"),
])
def test_time_control_as_fastchess_names_it(tc, text):
    assert fastchess.time_text(tc) == text


def test_heading_names_threads_hash_and_the_book_file():
    setup = fastchess.Setup("10+0.1", ("1", "1"), ("16", "16"), "/some/where/noob_3moves_5000.epd")
    assert fastchess.heading("dev", "base", setup) == \
        "Results of dev vs base (10+0.1, 1t, 16MB, noob_3moves_5000.epd):"
    setup = fastchess.Setup("1+0.01", (None, "1"), (None, "16"), "8moves_v3.pgn")
    assert fastchess.heading("A", "SF", setup) == "Results of A vs SF (1+0.01, NULL - 1t, NULL - 16MB, 8moves_v3.pgn):"
    assert fastchess.heading("A", "B", fastchess.Setup("0.1/move", ("1", "2"), ("64", "64"))) == \
        "Results of A vs B (0.1/move, 1t - 2t, 64MB):"


def test_verdict_line():
    assert fastchess.verdict_line(Sprt(0, 5), "H0") == "SPRT ([0.00, 5.00]) completed - H0 was accepted"


def test_tally_tells_split_pairs_from_drawn_ones():
    tally = Tally()
    for number, result in enumerate(["1-0", "1-0", "1/2-1/2", "1/2-1/2", "0-1", "0-1", "1-0", "1/2-1/2"], 1):
        tally.add(_record(number, number % 2 == 1, result))
    # engine 1 is White in odd games: pairs W L, D D, L W, W D
    assert tally.pentanomial == [0, 0, 3, 1, 0] and (tally.pairs_wl, tally.pairs_dd) == (2, 1)
