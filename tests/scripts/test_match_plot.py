"""``match.py --plot``: the tally's per-game history and the Elo/SPRT chart.

The history is checked against the statistics functions it must reuse; the chart is drawn
from a synthetic tally (no engines) and from a real two-game Pruner match at fixed nodes.
"""

import math
import os
import random
import subprocess
import sys

import chess
import pytest

import match as match_cli
from pruner.lab.matchlib.game import GameJob, GameRecord
from pruner.lab.matchlib.openings import Opening
from pruner.lab.matchlib.plot import MatchPlot, check_path, elo_range, title_text
from pruner.lab.matchlib.runner import EXIT_INCONCLUSIVE
from pruner.lab.matchlib.stats import Sprt, elo_estimate
from pruner.lab.matchlib.tally import Tally
from paths import ROOT, SCRIPTS
from png_helpers import png_summary
from pruner.extras import missing_matplotlib

pytestmark = pytest.mark.one_interpreter

NOOB = os.path.join(ROOT, "scripts", "books", "noob_3moves_5000.epd")
needs_matplotlib = pytest.mark.skipif(missing_matplotlib(), reason="--plot needs matplotlib (pip install matplotlib)")


def record(number, result):
    """Game ``number`` (engine 1 White in odd games) ending ``result`` from White's view."""
    job = GameJob(number, (number + 1) // 2, 0, Opening(chess.Board(), [], "start"), number % 2 == 1)
    return GameRecord(job, "A", "B", chess.Board(), 0, result=result, termination="normal")


def synthetic_tally(games, sprt=None, seed=1, p_win=0.4, p_draw=0.3):
    """A tally of ``games`` random results (engine 1 a bit stronger with these odds)."""
    rng = random.Random(seed)
    tally = Tally(sprt)
    for number in range(1, games + 1):
        roll = rng.random()
        engine1 = "1-0" if roll < p_win else ("1/2-1/2" if roll < p_win + p_draw else "0-1")
        if number % 2 == 0:  # engine 1 is Black: flip to White's view
            engine1 = {"1-0": "0-1", "0-1": "1-0"}.get(engine1, engine1)
        tally.add(record(number, engine1))
    return tally


def test_history_records_the_running_numbers_per_game():
    sprt = Sprt(0, 10)
    tally = Tally(sprt)
    replay = Tally()
    for number, result in enumerate(["1-0", "1-0", "1/2-1/2", "0-1", "*", "1-0", "0-1"], 1):
        tally.add(record(number, result))
        replay.add(record(number, result))
        if result == "*":
            assert len(tally.history) == tally.games  # an uncounted game adds no point
            continue
        point = tally.history[-1]
        assert (point.games, point.wins, point.draws, point.losses, point.pairs) == (
            tally.games, tally.wins, tally.draws, tally.losses, tally.pairs)
        trinomial = elo_estimate(tally.trinomial)
        assert (point.elo, point.elo_low, point.elo_high) == (trinomial.elo, trinomial.low, trinomial.high)
        penta = tally.penta_elo()
        assert point.penta_elo == (penta.elo if penta else None)
        assert point.llr == sprt.llr(tally.pentanomial)
    assert [point.games for point in tally.history] == list(range(1, 7))
    assert [point.pairs for point in tally.history] == [0, 1, 1, 2, 2, 2]  # pair 3 lost its partner
    assert all(point.llr is None for point in replay.history)  # no SPRT, no LLR
    first = tally.history[0]  # 1/1: finite, by the empirical logit (1.5 : 0.5 odds)
    assert math.isfinite(first.elo_low) and math.isfinite(first.elo_high)
    assert abs(first.elo - 400 * math.log10(3)) < 1e-9


@needs_matplotlib
def test_plot_of_a_synthetic_tally(tmp_path):
    sprt = Sprt(0, 10)
    path = tmp_path / "match.png"
    plot = MatchPlot(str(path), every=20, sprt=sprt)
    rng = random.Random(3)
    tally = Tally(sprt)
    names = ("dev", "base")
    for number in range(1, 61):
        tally.add(record(number, rng.choice(["1-0", "1/2-1/2", "0-1", "1-0"])))
        plot.game_finished(tally, names)
        if number == 19:
            assert not path.exists()
        if number == 20:
            assert path.exists() and png_summary(str(path))[2] > 20
    plot.finish(tally, names, None)
    width, height, colours = png_summary(str(path))
    assert (width, height) == (1000, 720) and colours > 50
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
    title = title_text(tally.history, names, sprt, "H1")
    assert title.startswith("dev vs base: W %d D %d L %d, Elo " % (tally.wins, tally.draws, tally.losses))
    assert "pentanomial" in title and "H1 accepted" in title and "LLR %.2f" % tally.history[-1].llr in title


@needs_matplotlib
def test_plot_without_sprt_and_with_infinite_ends(tmp_path):
    tally = Tally()
    for number in range(1, 4):  # three wins: Elo +inf, one complete pair
        tally.add(record(number, "1-0" if number % 2 else "0-1"))
    low, high = elo_range(tally.history)
    assert -800 <= low < 0 < high <= 800
    path = tmp_path / "wins.svg"
    assert MatchPlot(str(path), every=0).write(tally.history, ("A", "B"))
    assert path.read_text().lstrip().startswith("<?xml")
    path = tmp_path / "wins.png"
    assert MatchPlot(str(path)).write(tally.history, ("A", "B"))
    width, height, _ = png_summary(str(path))
    assert (width, height) == (1000, 460)  # one panel without an SPRT


@needs_matplotlib
def test_plot_write_failure_is_reported_not_raised(tmp_path, capsys):
    tally = synthetic_tally(4)
    plot = MatchPlot(str(tmp_path / "gone" / "m.png"))
    assert not plot.write(tally.history, ("A", "B"))
    assert not plot.write(tally.history, ("A", "B"))
    assert capsys.readouterr().err.count("match plot") == 1  # said once


def test_plot_option_errors(tmp_path, monkeypatch):
    assert "must end in .png" in check_path(str(tmp_path / "m.gif"))
    assert check_path(str(tmp_path / "missing" / "m.png")) == "no such directory"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert "matplotlib is not installed" in check_path(str(tmp_path / "m.png"))
    with pytest.raises(SystemExit) as exit_info:
        match_cli.main(["--engine", "pruner", "--plot", str(tmp_path / "m.png")])
    assert exit_info.value.code == 2


@needs_matplotlib
def test_real_two_game_match_with_plot(tmp_path):
    plot = tmp_path / "match.png"
    engine = "%s -m pruner" % sys.executable
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", engine,
                           "--engine", engine, "--nodes", "300", "--games", "2", "--concurrency", "2",
                           "--max-moves", "40", "--openings", NOOB, "--seed", "5", "--sprt", "0", "10",
                           "--pgn", "", "--plot", str(plot), "--plot-every", "1"],
                          capture_output=True, text=True, timeout=150, cwd=ROOT)
    assert proc.returncode == EXIT_INCONCLUSIVE, proc.stdout + proc.stderr  # 2 games decide no SPRT
    assert proc.stdout.splitlines()[-1].startswith("Final: ")
    width, height, colours = png_summary(str(plot))
    assert (width, height) == (1000, 720) and colours > 50
