"""scripts/calibrate.py: the UCI_Elo calibration's matches (run, chain), fit and check.

``run`` and ``chain`` play real (tiny) matches through scripts/match.py with
tests/fake_engines/fake_uci.py on both sides (``--elo-range`` makes it declare UCI_Elo as
Stockfish does); fit and check read synthetic results whose answer is known.
"""

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys

import pytest

import calibrate
from pruner.engine.strength import LEVEL_VARIABLE, Calibration, CalibrationPoint
from paths import FAKE_ENGINE, ROOT

pytestmark = pytest.mark.one_interpreter

FAKE = "%s %s --elo-range 1350:2850" % (sys.executable, FAKE_ENGINE)
QUICK = ["--games", "2", "--tc", "2+0.02", "--jobs", "2", "--engine", FAKE, "--engine-dir", ROOT]


def point_file(folder, name, level, diff, error=50.0, setting=None, opponent=None, against=None,
               games=200, score=0.5, openings=("8/8/8/8/8/8/8/K6k w - - 0 1",)):
    """A result as run/chain write it, with the numbers fit and check read."""
    wins = int(round(games * score))
    meta = {"kind": "chain" if against is not None else "opponent", "level": level, "setting": setting,
            "opponent_elo": opponent, "against_level": against, "openings": list(openings), "tc": "10+0.1",
            "commit": "abc1234", "date": "2026-01-01"}
    data = {"games": games, "wins": wins, "draws": 0, "losses": games - wins, "score": score,
            "elo": {"value": diff, "error": error}, "calibration": meta}
    path = os.path.join(str(folder), name + ".json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return path


def run_cli(capsys, *argv):
    code = calibrate.main([str(arg) for arg in argv])
    return code, capsys.readouterr().out


# --- run ---------------------------------------------------------------------------------

def test_run_writes_a_json_per_point_and_resume_skips_the_points_done(capsys, tmp_path):
    out = tmp_path / "calib"
    code, text = run_cli(capsys, "run", "--elo", "1200,1500", "--opponent", FAKE, "--out", out, *QUICK)
    assert code == 0, text
    files = sorted(name for name in os.listdir(out) if name.endswith(".json"))
    assert files == ["point-elo1200.json", "point-elo1500.json"]
    with open(out / "point-elo1200.json", encoding="utf-8") as handle:
        low = json.load(handle)
    meta = low["calibration"]
    assert low["games"] == 2 and low["wins"] + low["draws"] + low["losses"] == 2
    # 1200 is below the opponent's UCI_Elo minimum (1350): it plays at 1350, and says so.
    assert meta["setting"] == 1200 and meta["opponent_elo"] == 1350 and "plays at 1350" in text
    assert meta["level"] == calibrate.UCI_ELO.level_for(1200) and len(meta["openings"]) == 1
    assert "%s=%d" % (LEVEL_VARIABLE, meta["level"]) in meta["command"]  # the level reaches Pruner
    assert "UCI_Elo=1350" in meta["command"]
    with open(out / "point-elo1200.pgn", encoding="utf-8") as handle:  # the games, for play_quality.py
        assert handle.read().count("[Event ") == 2
    before = os.path.getmtime(out / "point-elo1200.json")

    code, text = run_cli(capsys, "run", "--elo", "1200,1500,1600", "--opponent", FAKE, "--out", out,
                         "--resume", *QUICK)
    assert code == 0, text
    assert "point-elo1200: done already" in text and "point-elo1500: done already" in text
    assert os.path.getmtime(out / "point-elo1200.json") == before
    assert os.path.exists(out / "point-elo1600.json")

    # Without --resume a point done is not played again (nor overwritten).
    code = calibrate.main(["run", "--elo", "1200", "--opponent", FAKE, "--out", str(out)] + QUICK)
    assert code == 2 and "--resume" in capsys.readouterr().err


def _game(white, black, result, fen):
    return ('[Event "Pruner match"]\n[White "%s"]\n[Black "%s"]\n[Result "%s"]\n[FEN "%s"]\n[SetUp "1"]\n\n'
            '%s\n\n' % (white, black, result, fen, result))


def test_complete_pairs_keep_both_colours_of_an_opening_and_count_as_match_py(tmp_path):
    a, b, c = ("8/8/8/8/8/8/8/K6k w - - 0 1", "8/8/8/8/8/8/8/K5k1 w - - 0 1", "8/8/8/8/8/8/8/K4k2 w - - 0 1")
    texts = [_game("P", "S", "1-0", a), _game("S", "P", "1-0", b), _game("S", "P", "1/2-1/2", a),
             _game("P", "S", "0-1", c), _game("P", "S", "1-0", b), _game("S", "P", "*", c)]
    path = tmp_path / "games.pgn"
    path.write_text("".join(texts))
    games = calibrate.pgn_games(str(path))
    assert [text for _, text in games] == texts  # each game's own text, as written
    kept, pairs = calibrate.complete_pairs(games, "P")
    # a: win + draw; b: a loss with Black, a win with White; c: its second game has no result.
    assert sorted(pairs) == sorted([(a, 1.0, 0.5), (b, 1.0, 0.0)]) and len(kept) == 4 and games[3] not in kept
    tally = calibrate.pairs_tally(pairs)
    assert (tally.wins, tally.draws, tally.losses) == (2, 1, 1)
    assert tally.pentanomial == [0, 0, 1, 1, 0] and tally.pairs_wl == 1 and tally.pairs_dd == 0


def test_a_point_stopped_half_way_keeps_its_pairs_and_plays_the_rest(capsys, tmp_path):
    argv = ["run", "--elo", "1500", "--opponent", FAKE, "--out", str(tmp_path)] + QUICK
    argv[argv.index("--games") + 1] = "6"
    code, text = run_cli(capsys, *argv)
    assert code == 0, text
    games = tmp_path / "point-elo1500.pgn"
    played = calibrate.pgn_games(str(games))
    assert len(played) == 6
    # As if the machine stopped: no JSON, and the PGN ends one game into the third pair.
    os.remove(tmp_path / "point-elo1500.json")
    with open(games, "w", encoding="utf-8") as handle:
        handle.write("".join(text for _, text in played[:5]))
    name = next(word for word in (played[0][0]["White"], played[0][0]["Black"]) if word.startswith("Pruner"))
    kept = [text for _, text in calibrate.complete_pairs(played[:5], name)[0]]
    assert len(kept) == 4  # five games of three pairs: two pairs are complete

    code, text = run_cli(capsys, *(argv + ["--resume"]))
    assert code == 0, text
    assert "resumed: 2 pairs kept" in text and "1 to play" in text
    with open(tmp_path / "point-elo1500.json", encoding="utf-8") as handle:
        point = json.load(handle)
    after = [text for _, text in calibrate.pgn_games(str(games))]
    assert len(after) == 6 and after[:4] == kept  # the pairs kept, then the pair played
    assert point["games"] == 6 and point["pairs"] == 3 and point["calibration"]["resumed_pairs"] == 2
    assert sum(point["pentanomial"]) == 3 and point["faults"]["before_resume"] == 0
    with open(tmp_path / "point-elo1500.rest.epd", encoding="utf-8") as handle:
        assert len(handle.read().split("\n")) == 2  # one opening and the last newline


def test_uci_elo_plays_pruner_through_its_own_option(capsys, tmp_path):
    code, text = run_cli(capsys, "run", "--elo", "1400", "--uci-elo", "--opponent", FAKE, "--out", tmp_path, *QUICK)
    assert code == 0, text
    with open(tmp_path / "point-elo1400.json", encoding="utf-8") as handle:
        meta = json.load(handle)["calibration"]
    assert meta["via"] == "UCI_Elo" and meta["command"].count("UCI_Elo=1400") == 2
    assert not any(LEVEL_VARIABLE in word for word in meta["command"])


def test_chain_plays_adjacent_levels(capsys, tmp_path):
    code, text = run_cli(capsys, "chain", "--levels", "1000,800,1200", "--out", tmp_path, *QUICK)
    assert code == 0, text
    names = sorted(name for name in os.listdir(tmp_path) if name.endswith(".json"))
    assert names == ["chain-level0800-level1000.json", "chain-level1000-level1200.json"]
    with open(tmp_path / "chain-level0800-level1000.json", encoding="utf-8") as handle:
        meta = json.load(handle)["calibration"]
    assert (meta["kind"], meta["level"], meta["against_level"]) == ("chain", 800, 1000)
    assert "%s=800" % LEVEL_VARIABLE in meta["command"] and "%s=1000" % LEVEL_VARIABLE in meta["command"]


# --- fit ---------------------------------------------------------------------------------

def test_fit_finds_the_known_line(capsys, tmp_path):
    # Measured Elo = opponent + difference: 1300, 1550 and 1700, on the line 800 + 0.5 x level.
    point_file(tmp_path, "point-elo1350", 1000, -50.0, setting=1350, opponent=1350, score=0.43)
    point_file(tmp_path, "point-elo1550", 1500, 0.0, setting=1550, opponent=1550, score=0.5)
    point_file(tmp_path, "point-level1800", 1800, 10.0, opponent=1690, score=0.51)
    results = calibrate.read_results([str(tmp_path)])
    pairs, notes = calibrate.build_points(results)
    assert notes == []
    assert sorted((p.level, p.opponent, p.elo) for _, p in pairs) == [(1000, 1350, 1300.0), (1500, 1550, 1550.0),
                                                                       (1800, 1690, 1700.0)]
    line = Calibration([p for _, p in pairs])
    assert line.bandwidth == math.inf and line.elo_at(1000) == pytest.approx(1300) and line.elo_at(1800) == pytest.approx(1700)

    code, text = run_cli(capsys, "fit", tmp_path)
    assert code == 0
    assert "fit: one weighted straight line: level 1000 = 1300, " in text and "level 1800 = 1700 (" in text
    assert "UCI_Elo: %d to %d" % (line.min_elo, line.max_elo) in text
    rows = {line.split()[0]: line for line in text.splitlines() if line[:4] in ("1350", "1550", "leve")}
    assert rows["1350"].rstrip().endswith("no") and rows["1550"].rstrip().endswith("yes")
    assert "CalibrationPoint(level=1500, opponent=1550, games=200, elo=1550.0, error=50.0)," in text


def test_a_score_without_a_finite_elo_is_left_out(tmp_path):
    point_file(tmp_path, "point-elo1350", 1000, None, setting=1350, opponent=1350, score=1.0)
    point_file(tmp_path, "point-elo1550", 1500, 0.0, setting=1550, opponent=1550)
    pairs, notes = calibrate.build_points(calibrate.read_results([str(tmp_path)]))
    assert [p.level for _, p in pairs] == [1500] and "no finite Elo" in notes[0]


def test_chain_extends_the_scale_by_the_measured_differences(tmp_path):
    point_file(tmp_path, "point-elo1550", 1500, 0.0, error=50.0, setting=1550, opponent=1550)
    point_file(tmp_path, "point-elo1700", 1800, 0.0, error=50.0, setting=1700, opponent=1700)
    point_file(tmp_path, "chain-level1200-level1500", 1200, -100.0, error=60.0, against=1500)
    point_file(tmp_path, "chain-level800-level1200", 800, -150.0, error=60.0, against=1200)
    pairs, notes = calibrate.build_points(calibrate.read_results([str(tmp_path)]))
    assert notes == []
    chain = {p.level: p for _, p in pairs if p.against_level is not None}
    assert chain[1200].elo == 1450.0 and chain[1200].opponent == 1550
    assert chain[1200].error == pytest.approx(math.hypot(50.0, 60.0), abs=0.1)
    assert chain[800].elo == 1300.0 and chain[800].opponent == 1450 and chain[800].against_level == 1200
    assert chain[800].error == pytest.approx(math.hypot(chain[1200].error, 60.0), abs=0.1)
    # Without the chain, only the two Stockfish points.
    direct, _ = calibrate.build_points(calibrate.read_results([str(tmp_path)]), use_chain=False)
    assert sorted(p.level for _, p in direct) == [1500, 1800]


def test_a_chain_whose_top_was_not_measured_is_anchored_on_the_line(tmp_path):
    point_file(tmp_path, "point-elo1550", 1500, 0.0, error=50.0, setting=1550, opponent=1550)
    point_file(tmp_path, "point-elo1700", 1800, 0.0, error=50.0, setting=1700, opponent=1700)
    point_file(tmp_path, "chain-level1000-level1200", 1000, -80.0, error=60.0, against=1200)
    pairs, _ = calibrate.build_points(calibrate.read_results([str(tmp_path)]))
    chain = [p for _, p in pairs if p.against_level == 1200][0]
    assert chain.elo == pytest.approx(1400.0 - 80.0, abs=0.1)  # the line 800 + 0.5 x level at 1200
    assert chain.error > math.hypot(50.0, 60.0)  # the line is less sure two hundred levels out


def test_write_rewrites_the_tuple_so_that_the_module_reads_the_new_points(capsys, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    point_file(results, "point-elo1350", 1000, -50.0, setting=1350, opponent=1350)
    point_file(results, "point-elo1550", 1500, 0.0, setting=1550, opponent=1550)
    point_file(results, "chain-level800-level1000", 800, -60.0, error=40.0, against=1000)
    copy = tmp_path / "strength.py"
    shutil.copy(os.path.join(ROOT, "engine", "strength.py"), copy)
    with open(copy, encoding="utf-8") as handle:
        original = handle.read()
    code, text = run_cli(capsys, "fit", results, "--write", "--strength-file", copy)
    assert code == 0 and "written to" in text
    spec = importlib.util.spec_from_file_location("strength_rewritten", str(copy))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert sorted((p.level, p.elo, p.against_level) for p in module.CALIBRATION) == [
        (800, 1240.0, 1000), (1000, 1300.0, None), (1500, 1550.0, None)]
    fit = module.UCI_ELO
    assert (fit.elo_at(1500) - fit.elo_at(1000)) / 500 == pytest.approx(0.5, abs=0.05)
    with open(copy, encoding="utf-8") as handle:
        written = handle.read()
    before, after = original.split("CALIBRATION: Tuple")[0], original.split('"""The matches behind')[1]
    assert written.startswith(before) and written.endswith(after)  # the rest of the file is kept
    # Written twice, the file holds one tuple.
    assert run_cli(capsys, "fit", results, "--write", "--strength-file", copy)[0] == 0
    with open(copy, encoding="utf-8") as handle:
        assert handle.read().count("CALIBRATION: Tuple") == 1


def test_fit_without_two_levels_reports_no_line(capsys, tmp_path):
    point_file(tmp_path, "point-elo1350", 1000, -50.0, setting=1350, opponent=1350)
    assert calibrate.main(["fit", str(tmp_path)]) == 1
    assert "no line" in capsys.readouterr().err


# --- check -------------------------------------------------------------------------------

def test_check_passes_scores_within_five_percent_of_half(capsys, tmp_path):
    point_file(tmp_path, "point-elo1400", 1400, 14.0, setting=1400, opponent=1400, score=0.54)
    point_file(tmp_path, "point-elo1500", 1600, -14.0, setting=1500, opponent=1500, score=0.455)
    point_file(tmp_path, "point-elo1200", 1000, -100.0, setting=1200, opponent=1350, score=0.3)  # clamped
    point_file(tmp_path, "chain-level800-level1000", 800, -100.0, against=1000, score=0.3)
    code, text = run_cli(capsys, "check", tmp_path)
    assert code == 0, text
    assert "check: 2 of 2 settings pass" in text and "the opponent plays at 1350" in text

    point_file(tmp_path, "point-elo1600", 1800, -70.0, setting=1600, opponent=1600, score=0.40)
    code, text = run_cli(capsys, "check", tmp_path)
    assert code == 1 and "1600 (level 1800" in text and "FAIL (score outside 50% ± 5%)" in text
    code, text = run_cli(capsys, "check", tmp_path, "--tolerance", "0.1")
    assert code == 0


def test_check_says_when_the_clock_cut_pruners_searches(capsys, tmp_path):
    path = point_file(tmp_path, "point-elo1400", 1400, 0.0, setting=1400, opponent=1400)
    games = []
    for index, (white, seconds) in enumerate([("Pruner-L1400", 0.2), ("Opponent-1400", 0.2),
                                              ("Pruner-L1400", 2.0)]):
        black = "Opponent-1400" if white.startswith("Pruner") else "Pruner-L1400"
        # White's moves take ``seconds``, Black's 0.15 s, whoever Pruner is.
        moves = "1. e4 { +0.1/5 %.3fs } e5 { -0.1/5 0.150s } 2. Ke2 { +0.1/5 %.3fs } Ke7 { -0.1/5 0.150s }" % (
            seconds, seconds)
        games.append('[Event "t"]\n[Round "%d"]\n[White "%s"]\n[Black "%s"]\n[Result "*"]\n\n%s *\n'
                     % (index, white, black, moves))
    with open(path[:-len(".json")] + ".pgn", "w", encoding="utf-8") as handle:
        handle.write("\n".join(games))
    # Pruner's lowest clock: 10+0.1 less two moves of 0.2 s (or Black's 0.15 s) plus one increment,
    # less two moves of 2 s; at 2+0 the third game ran out.
    assert [round(low, 2) for low in calibrate.clock_lows(path[:-5] + ".pgn", "10+0.1")] == [9.7, 9.8, 6.1]
    assert [round(low, 2) for low in calibrate.clock_lows(path[:-5] + ".pgn", "2+0")] == [1.6, 1.7, -2.0]
    code, text = run_cli(capsys, "check", tmp_path)
    assert "Pruner's clock under 1 s in 0 of 3 games (the node budget governed)" in text
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    data["calibration"]["tc"] = "2+0"
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    code, text = run_cli(capsys, "check", tmp_path)
    assert "Pruner's clock under 1 s in 1 of 3 games (the clock cut some searches)" in text


def test_check_needs_enough_games_and_other_openings(capsys, tmp_path):
    fit, holdout = tmp_path / "fit", tmp_path / "holdout"
    fit.mkdir()
    holdout.mkdir()
    shared = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    point_file(fit, "point-elo1400", 1400, 0.0, setting=1400, opponent=1400, openings=[shared])
    point_file(holdout, "point-elo1400", 1400, 0.0, setting=1400, opponent=1400, games=40,
               openings=[shared.replace(" 0 1", " 3 7")])
    code, text = run_cli(capsys, "check", holdout)
    assert code == 1 and "40 games, fewer than 200" in text
    code, text = run_cli(capsys, "check", holdout, "--min-games", "40", "--fitted", fit)
    assert code == 1 and "1 openings also in the fit" in text
    assert run_cli(capsys, "check", holdout, "--min-games", "40")[0] == 0
    assert run_cli(capsys, "check", fit, "--min-games", "40", "--fitted", holdout)[0] == 1


def test_check_pool_judges_repeated_checks_of_a_setting_by_their_games_together(capsys, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    a = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    b = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    point_file(first, "point-elo1650", 1709, -40.0, setting=1650, opponent=1650, score=0.44, openings=[a])
    point_file(second, "point-elo1650", 1709, 0.0, setting=1650, opponent=1650, score=0.50, openings=[b])
    point_file(second, "point-elo1350", 1317, 0.0, setting=1350, opponent=1350, score=0.52, openings=[b])
    code, text = run_cli(capsys, "check", first, second)
    assert code == 1 and "check: 2 of 3 settings pass" in text  # each check alone: 44% fails
    code, text = run_cli(capsys, "check", first, second, "--pool")
    assert code == 0, text
    # 88 + 100 wins of 400 games: 47.0%, and each part is shown above the verdict
    assert "400 games, W 188 D 0 L 212, score 47.0%: pass" in text
    assert "pooled (Elo -20.9 ± 34.2, trinomial)" in text
    assert text.count("  part ") == 3 and "check: 2 of 2 settings pass" in text
    # another level is another point: not pooled
    point_file(second, "point-elo1650", 1720, 0.0, setting=1650, opponent=1650, score=0.50, openings=[b])
    code, text = run_cli(capsys, "check", first, second, "--pool")
    assert code == 1 and "pooled" not in text
    # the same opening in both parts would count its games twice: the pooled point fails
    point_file(second, "point-elo1650", 1709, 0.0, setting=1650, opponent=1650, score=0.50,
               openings=[a.replace(" 0 1", " 5 9")])
    code, text = run_cli(capsys, "check", first, second, "--pool")
    assert code == 1 and "1 openings played in two of the pooled points" in text


# --- usage errors ------------------------------------------------------------------------

@pytest.mark.parametrize("argv, flag", [
    (["run", "--elo", "x", "--out", "OUT"], "--elo"),
    (["run", "--elo", "1400,1400", "--out", "OUT"], "--elo"),
    (["run", "--levels", "5000", "--out", "OUT"], "--levels"),
    (["run", "--out", "OUT"], "--elo"),
    (["run", "--elo", "1400", "--levels", "1000", "--out", "OUT"], "--levels"),
    (["run", "--elo", "1400"], "--out"),
    (["run", "--elo", "1400", "--games", "3", "--out", "OUT"], "--games"),
    (["run", "--elo", "1400", "--tc", "0+1", "--out", "OUT"], "--tc"),
    (["run", "--elo", "1400", "--jobs", "0", "--out", "OUT"], "--jobs"),
    (["run", "--elo", "1400", "--opening-offset", "-1", "--out", "OUT"], "--opening-offset"),
    (["run", "--elo", "1400", "--opponent", "%s %s" % (sys.executable, FAKE_ENGINE), "--out", "OUT"],
     "--opponent"),
    (["run", "--levels", "1000", "--uci-elo", "--out", "OUT"], "--uci-elo"),
    (["chain", "--levels", "800", "--out", "OUT"], "--levels"),
    (["check", "OUT", "--tolerance", "2"], "--tolerance"),
    (["fit", "OUT", "--write", "--strength-file", "NOFILE"], "--strength-file"),
])
def test_bad_arguments_name_the_flag(capsys, tmp_path, argv, flag):
    point_file(tmp_path, "point-elo1350", 1000, -50.0, setting=1350, opponent=1350)
    point_file(tmp_path, "point-elo1550", 1500, 0.0, setting=1550, opponent=1550)
    argv = [str(tmp_path) if arg == "OUT" else str(tmp_path / "none.py") if arg == "NOFILE" else arg
            for arg in argv]
    with pytest.raises(SystemExit) as exit_info:
        calibrate.main(argv)
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_info.value.code == 2 and error.startswith("calibrate.py %s: error: " % argv[0]), error
    assert flag in error, error


def test_a_missing_folder_is_a_usage_error(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        calibrate.main(["fit", str(tmp_path / "nothing")])
    assert exit_info.value.code == 2 and "no such folder" in capsys.readouterr().err


def test_add_fits_the_new_points_with_the_tuple_before_and_keeps_both(capsys, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    point_file(results, "point-elo1550", 1500, 0.0, setting=1550, opponent=1550)
    copy = tmp_path / "strength.py"
    shutil.copy(os.path.join(ROOT, "engine", "strength.py"), copy)
    before = calibrate.current_points(str(copy))
    assert len(before) >= 2
    # a tuple whose comments say where its points came from
    body = calibrate.tuple_body(str(copy)).replace("CalibrationPoint(", "# from match 7\n    CalibrationPoint(", 1)
    calibrate.write_tuple(str(copy), "CALIBRATION: Tuple[CalibrationPoint, ...] = (\n%s)\n" % body)
    code, text = run_cli(capsys, "fit", results, "--add", "--write", "--strength-file", copy)
    assert code == 0 and "and the %d points of the CALIBRATION before (--add)" % len(before) in text
    after = calibrate.current_points(str(copy))
    assert after[:len(before)] == before and after[len(before):] == (
        CalibrationPoint(level=1500, opponent=1550, games=200, elo=1550.0, error=50.0),)
    # The tuple before is kept as it was, its comments included; the new point follows under its own.
    written = calibrate.tuple_body(str(copy))
    assert written.startswith(body) and "# scripts/calibrate.py fit results" in written[len(body):]
    expected = Calibration(list(after))
    assert "fit: %s (" % expected.describe() in text
    # Without --add the folder's point alone cannot make a line.
    assert run_cli(capsys, "fit", results, "--strength-file", copy)[0] == 1
    with pytest.raises(SystemExit) as stopped:
        calibrate.main(["fit", str(results), "--add", "--strength-file", str(tmp_path / "none.py")])
    assert stopped.value.code == 2 and "--add: cannot read CALIBRATION" in capsys.readouterr().err


def test_a_chain_is_anchored_on_the_fit_uci_elo_uses():
    # Precise points that bend at level 1600: 0.8 Elo per level below, 0.2 above.
    bent = [CalibrationPoint(level=level, opponent=1500, games=200,
                             elo=100 + 0.8 * level if level <= 1600 else 1060 + 0.2 * level, error=20.0)
            for level in (1000, 1200, 1400, 1600, 1800, 1950)]
    fit = Calibration(bent)
    assert fit.bandwidth <= 100  # a narrow kernel follows the bend
    # Measured levels anchor on their own matches; others on the fit, bend included.
    assert calibrate.anchor_elo(1400, bent)[0] == pytest.approx(1220)
    elo, error = calibrate.anchor_elo(1900, bent)
    assert elo == pytest.approx(fit.elo_at(1900)) and elo == pytest.approx(1440, abs=1) and 0 < error < 40
    assert calibrate.anchor_elo(1400, bent[:1]) is None  # one level: no fit


def test_output_cut_short_by_its_reader_ends_without_a_traceback(tmp_path):
    # `calibrate.py check ... | head -1`: the pipe closes while the table is printed. The table
    # (a line per setting) outgrows a pipe's buffer, so the write fails whatever the timing.
    for setting in range(1000, 2000):  # about 80 kB
        point_file(tmp_path, "point-elo%d" % setting, setting, 0.0, setting=setting, opponent=setting)
    reader = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "calibrate.py"), "check", str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    reader.stdout.readline()
    reader.stdout.close()  # the reader goes away after one line
    error = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == 1 and "Traceback" not in error and "BrokenPipe" not in error
