"""scripts/judge_agreement.py: how Pruner's judgements agree with a deep reference (issue 45)."""

import json

import pytest

import judge_agreement
from judge_agreement import Agreement, compare, label_of, read_games, run_budget

pytestmark = pytest.mark.one_interpreter

# 3... Nf6?? lets White mate at once (Qxf7#): a blunder at any depth.
BLUNDER_GAME = """[Event "t"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

"""


def test_the_measures_of_a_known_matrix():
    a = Agreement("x", matrix={("none", "none"): 80, ("none", "inaccuracy"): 4, ("inaccuracy", "none"): 6,
                               ("mistake", "mistake"): 3, ("mistake", "none"): 2, ("blunder", "mistake"): 1,
                               ("blunder", "blunder"): 3, ("none", "blunder"): 1})
    assert a.moves == 100 and a.agreement == pytest.approx(0.86)
    # chance agreement from the margins (reference x candidate): none 85 x 88, inaccuracy 6 x 4,
    # mistake 5 x 4, blunder 4 x 4
    expected = (85 * 88 + 6 * 4 + 5 * 4 + 4 * 4) / 100 ** 2
    assert a.kappa == pytest.approx((0.86 - expected) / (1 - expected))
    assert a.recall == pytest.approx(7 / 9)       # of the reference's 9 mistakes and blunders, 7 called so
    assert a.precision == pytest.approx(7 / 8)    # of the candidate's 8, 7 are the reference's
    assert a.blunders_flagged == pytest.approx(1.0)
    assert Agreement("empty").recall is None and Agreement("empty").kappa is None


def test_the_bootstrap_draws_games(monkeypatch):
    one = Agreement("a", matrix={("mistake", "mistake"): 2, ("none", "none"): 5}, games=1)
    other = Agreement("b", matrix={("blunder", "none"): 2, ("none", "none"): 5}, games=1)
    whole = judge_agreement.merged([one, other], "both")
    assert whole.games == 2 and whole.recall == 0.5 and whole.moves == 14
    reference = {1: {}, 2: {}}
    games = {1: one, 2: other}
    # compare() draws from per_game's list: with these two games, recall is 0, 0.5 or 1 in a draw
    monkeypatch.setattr(judge_agreement, "per_game", lambda ref, cand, label: [games[1], games[2]])
    drawn = judge_agreement.compare(reference, reference, "x", bootstrap=400)
    assert drawn.recall == 0.5 and drawn.intervals["recall"] == (0.0, 1.0)
    # paired: the same draws for both rows, so a row against itself differs by exactly 0
    assert judge_agreement.recall_difference(drawn, drawn, 200) == (0.0, 0.0, 0.0)
    better = Agreement("c", parts=[one, one])
    better.matrix = judge_agreement.merged(better.parts, "c").matrix
    assert judge_agreement.recall_difference(drawn, better, 400) == (0.5, 0.0, 1.0)
    assert judge_agreement.recall_difference(drawn, Agreement("d"), 10) is None


def test_labels_name_the_budget():
    assert label_of("--depth 6") == "depth-6"
    assert label_of("--movetime 1000") == "movetime-1000"
    assert label_of("--engine /usr/games/stockfish --engine-option Threads=1 --hash 64 --depth 20") == \
        "stockfish-depth-20"


def test_runs_once_per_budget_and_compares_the_games(tmp_path, monkeypatch, capsys):
    pgn = tmp_path / "game.pgn"
    pgn.write_text(BLUNDER_GAME)
    out = tmp_path / "out"
    out.mkdir()
    deep, times = run_budget("--depth 3", str(pgn), 1, str(out))
    shallow, _ = run_budget("--depth 1", str(pgn), 1, str(out))
    assert times["games"] == 1 and times["cpu_s"] >= 0 and "--depth 3" in times["command"]
    # the records are there: no second run
    monkeypatch.setattr(judge_agreement.subprocess, "run", lambda *a, **k: pytest.fail("ran again"))
    assert run_budget("--depth 3", str(pgn), 1, str(out))[0] == deep

    same = compare(read_games(deep), read_games(deep), "itself")
    assert same.agreement == 1 and same.kappa == 1 and same.games == 1
    assert same.accuracy_deltas == [0, 0] and same.serious_deltas == [0, 0]
    assert same.matrix[("blunder", "blunder")] == 1  # 3... Nf6??
    assert same.moves == 7  # every move judged, the mate too

    # one game: every bootstrap draw is that game, so the interval is the figure itself
    drawn = compare(read_games(deep), read_games(shallow), "d1", bootstrap=50)
    assert drawn.intervals["kappa"] == (drawn.kappa, drawn.kappa)

    judge_agreement.main(["compare", deep, "d1=" + shallow, "--matrices"])
    printed = capsys.readouterr().out
    assert "| d1 |" in printed and "| d1: reference ↓ candidate → | none | inaccuracy | mistake | blunder |" in printed
    cpu = json.loads((out / "depth-1.time.json").read_text())["cpu_s"]
    assert "| d1 | %.0f |" % cpu in printed


def test_other_games_are_refused(tmp_path):
    pgn = tmp_path / "game.pgn"
    pgn.write_text(BLUNDER_GAME)
    records = tmp_path / "r.jsonl"
    lines = [json.dumps({"game": 1, "ply": 0, "fen": "8/8/8/8/8/8/8/K6k w - - 0 1", "cp_loss": None}) + "\n"]
    records.write_text("".join(lines))
    other = tmp_path / "o.jsonl"
    other.write_text(json.dumps({"game": 1, "ply": 0, "fen": "8/8/8/8/8/8/8/K5k1 w - - 0 1", "cp_loss": None}) + "\n")
    with pytest.raises(SystemExit, match="different games"):
        compare(read_games(str(records)), read_games(str(other)), "other")
    empty = tmp_path / "e.jsonl"
    empty.write_text(json.dumps({"game": None, "ply": None, "fen": "8/8/8/8/8/8/8/K6k w - - 0 1"}) + "\n")
    with pytest.raises(SystemExit, match="no game records"):
        read_games(str(empty))
