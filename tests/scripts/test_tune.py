"""scripts/tune.py (issue 24): features equal to the engine's evaluation, extract's filters and
labels, the fit's recovery and reproducibility, and the weights module it writes."""

import importlib.util
import json
import math
import os
import random
import signal
import subprocess
import sys

import chess
import pytest

import match
import tune
from pruner.engine import eval_terms, evaluate as evaluation
from pruner.engine.board import Position
from pruner.engine.evaluate import evaluate
from pruner.engine.search import Searcher
from tests.paths import FAKE_ENGINE, ROOT
from tests.playouts import random_moves
from pruner.lab.tunelib import extract, features, fit, gen, objective, params, writer

pytestmark = pytest.mark.one_interpreter

WAC = os.path.join(ROOT, "tests", "data", "epd", "wac.epd")


def _playout_positions(games, seed):
    """Positions of random games (every ply), seeded: openings, middlegames, endgames, promotions."""
    rng = random.Random(seed)
    boards = []
    for _ in range(games):
        board = chess.Board()
        for _ in random_moves(rng, board, rng.randrange(10, 200)):
            boards.append(board.copy(stack=False))
    return boards


def _wac_positions():
    with open(WAC) as handle:
        return [chess.Board(" ".join(line.split()[:4]) + " 0 1") for line in handle if line.strip()]


def test_feature_eval_equals_the_engine_eval_for_the_current_weights(classical_evaluation):
    # The key correctness test: the fit's linear evaluation is engine/evaluate.py's.
    weights = params.current()
    boards = _playout_positions(60, seed=24) + _wac_positions()
    assert len(boards) > 5000
    for board in boards:
        assert features.evaluate(features.extract(board), weights, params.TEMPO_INDEX) == evaluate(board), board.fen()


def test_the_vector_names_each_weight_once_and_reads_the_weights_module():
    assert len(params.NAMES) == len(set(params.NAMES)) == 791
    weights = params.current()
    assert weights[params.NAMES.index("MG_VALUE[2]")] == 337
    assert weights[params.NAMES.index("EG_TABLES[6][0]")] == -74
    assert weights[params.TEMPO_INDEX] == 10
    assert params.group_indices("tempo") == [params.TEMPO_INDEX]
    assert len(params.group_indices("material")) == 10
    assert [params.NAMES[i] for i in params.group_indices("candidates")][:2] == ["KING_SHIELD[0]", "KING_SHIELD[1]"]
    assert len(params.group_indices("candidates")) == 22
    with pytest.raises(ValueError):
        params.group_indices("kings")
    # A module written before the candidate terms existed reads as if their weights were zero.
    from pruner.engine import weights as module
    old = type("OldWeights", (), {name: getattr(module, name) for name in dir(module)
                                  if not name.startswith("_") and name not in eval_terms.NAMES})
    assert params.current(old) == weights  # today's candidate weights are zero too
    assert params.tables(weights, old)["KNIGHT_OUTPOST"] == (0, 0)


def test_feature_eval_equals_the_engine_eval_with_the_candidate_terms_counting(classical_evaluation):
    weights = params.current()
    table = []
    for i, name in enumerate(eval_terms.NAMES):
        pair = (4 + 3 * i, -7 + 2 * i)
        table.append(pair)
        weights[params.NAMES.index("%s[0]" % name)], weights[params.NAMES.index("%s[1]" % name)] = pair
    evaluator = evaluation.Evaluator(candidates=table)
    boards = _playout_positions(25, seed=31) + _wac_positions()
    differ = 0
    for board in boards:
        score = evaluator.evaluate(board)
        assert features.evaluate(features.extract(board), weights, params.TEMPO_INDEX) == score, board.fen()
        assert evaluator.evaluate_position(Position(board, evaluator)) == score, board.fen()
        differ += score != features.evaluate(features.extract(board), params.current(), params.TEMPO_INDEX)
    assert differ > len(boards) // 4  # the candidate terms did change many evaluations


def test_the_weights_module_is_the_writers_output_for_the_current_weights():
    from pruner.engine import weights as module
    with open(module.__file__) as handle:
        assert writer.render(params.tables(params.current()), module.SOURCE) == handle.read()


PGN = """[Event "t"]
[White "a"]
[Black "b"]
[Result "1-0"]
[Termination "adjudication"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Ne2 Qxd1 9. Rxd1 Bd6 1-0

[Event "t"]
[White "a"]
[Black "b"]
[Result "0-1"]
[Termination "normal"]

1. e4 d5 2. Bb5+ c6 3. Ba4 dxe4 4. Nc3 Nf6 5. Nge2 e5 6. O-O Bc5 0-1

[Event "t"]
[White "a"]
[Black "b"]
[Result "1/2-1/2"]
[Termination "time forfeit"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 1/2-1/2

[Event "t"]
[White "a"]
[Black "b"]
[Result "*"]

1. c4 e5 2. Nc3 Nf6 3. g3 d5 *

[Event "t"]
[White "a"]
[Black "b"]
[Result "1-0"]
[Termination "normal"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Ne2 Qxd1 9. Rxd1 Bd6 1-0
"""


def _extract(tmp_path, skip_plies=3):
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    out = tmp_path / "positions.csv"
    stats = extract.extract_files([str(path)], str(out), skip_plies=skip_plies)
    return stats, extract.read_csv(str(out))


def test_extract_keeps_quiet_positions_after_the_opening_labelled_with_the_result(tmp_path):
    stats, rows = _extract(tmp_path)
    assert stats.games == 5 and stats.games_kept == 2
    assert stats.games_left_out == {"unfinished": 1, "ended by a fault (time forfeit)": 1,
                                     "repeats of an earlier game": 1}
    searcher = Searcher(hash_mb=1)
    fens = [fen for fen, _, _ in rows]
    assert len(fens) == len(set(fens)) == stats.kept > 5
    for fen, label, game in rows:
        board = chess.Board(fen)
        assert board.ply() >= 3
        assert not board.is_check()
        assert searcher.quiescence_score(board) == evaluate(board)
        assert label == {1: 1.0, 2: 0.0}[game]
    # Named positions: a piece down with the recapture at hand (not quiet), after a check
    # (in check), before the opening's end, and a quiet one that is kept.
    after_bxc6 = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6".split():
        after_bxc6.push_san(san)
    after_check = chess.Board()
    for san in "e4 d5 Bb5+".split():
        after_check.push_san(san)
    kept = {chess.Board(fen).epd() for fen in fens}
    assert after_bxc6.epd() not in kept
    assert after_check.epd() not in kept
    after_c6 = chess.Board()
    for san in "e4 d5 Bb5+ c6".split():
        after_c6.push_san(san)
    assert after_c6.epd() in kept  # the bishop is attacked, but retreating is no capture
    left = stats.left_out
    assert left["in check"] >= 1 and left["not quiet"] >= 2 and left["in the opening"] == 6
    assert stats.positions == sum(left.values()) + stats.kept
    assert stats.results == {1.0: sum(1 for _, _, g in rows if g == 1), 0.0: sum(1 for _, _, g in rows if g == 2)}


def test_extract_skips_the_first_plies_counted_from_the_initial_position(tmp_path):
    _, rows = _extract(tmp_path, skip_plies=12)
    assert rows and all(chess.Board(fen).ply() >= 12 for fen, _, _ in rows)


def _synthetic(true_weights, k, n_games=30, seed=5):
    """Rows labelled with the exact win probability under ``true_weights`` (no noise)."""
    rows = []
    for index, board in enumerate(_playout_positions(n_games, seed)):
        score = features.white_score(features.extract(board), true_weights, params.TEMPO_INDEX)
        rows.append((board.fen(), 1.0 / (1.0 + math.exp(-k * score)), index))
    return rows


def test_fit_recovers_a_known_weight():
    true = params.current()
    true[params.TEMPO_INDEX] = 40
    rows = _synthetic(true, k=0.006)
    result = fit.fit(rows, params.current(), iterations=20, step=8, k=0.006, groups="tempo", holdout=0)
    assert result.weights[params.TEMPO_INDEX] == 40
    assert result.weights[:params.TEMPO_INDEX] == params.current()[:params.TEMPO_INDEX]
    assert result.error_after < result.error_before
    # A ridge penalty far above what the data can pay for keeps the weights where they were.
    held = fit.fit(rows, params.current(), iterations=20, step=8, k=0.006, groups="tempo", holdout=0, l2=1.0)
    assert held.weights == params.current() and held.l2 == 1.0


def test_fit_finds_k_and_lowers_the_error_of_all_weights():
    true = params.current()
    knight = params.NAMES.index("MG_VALUE[2]")
    true[knight] += 60
    rows = _synthetic(true, k=0.004, n_games=10)
    scores = objective.white_scores([features.extract(chess.Board(fen)) for fen, _, _ in rows], true)
    k = objective.find_k(scores, [label for _, label, _ in rows])
    assert abs(k - 0.004) < 1e-5  # the exact probabilities pin K down
    result = fit.fit(rows, params.current(), iterations=2, seed=3, holdout=5)
    assert result.error_after < result.error_before
    assert result.holdout_positions > 0 and result.holdout_before is not None
    assert result.changed > 0


def test_patience_returns_the_weights_of_the_best_held_out_pass():
    # Labels from other weights than the fit can reach: the held-out error turns up at some pass.
    rows = _synthetic(params.current(), k=0.005, n_games=12, seed=13)
    rng = random.Random(2)
    rows = [(fen, float(rng.random() < label), i // 20) for i, (fen, label, _) in enumerate(rows)]
    full = fit.fit(rows, params.current(), iterations=12, seed=1, holdout=3)
    early = fit.fit(rows, params.current(), iterations=12, seed=1, holdout=3, patience=2)
    assert early.holdout_after <= min(early.holdout_before, full.holdout_after)
    assert early.best_pass < early.passes < full.passes == 12  # (6 and 8 with this data)
    partial = fit.fit(rows, params.current(), iterations=early.best_pass, seed=1, holdout=3)
    assert partial.weights == early.weights  # the same passes: the same weights


def test_the_fits_running_sums_match_a_fresh_evaluation():
    rows = _synthetic(params.current(), k=0.005, n_games=5, seed=9)
    rows = [(fen, 1.0 if i % 3 else 0.0, i) for i, (fen, _, _) in enumerate(rows)]
    result = fit.fit(rows, params.current(), iterations=2, seed=1, holdout=0, k=0.005)
    positions = [features.extract(chess.Board(fen)) for fen, _, _ in rows]
    fresh = objective.error(objective.white_scores(positions, result.weights), [label for _, label, _ in rows],
                            result.k)
    assert abs(fresh - result.error_after) < 1e-12


def test_fit_with_the_same_seed_and_data_writes_the_same_output(tmp_path):
    csv_path = tmp_path / "positions.csv"
    rows = _synthetic(params.current(), k=0.005, n_games=5, seed=11)
    with open(csv_path, "w") as handle:
        extract.write_csv(((fen, round(label), game, 0) for fen, label, game in rows), handle)
    outputs = []
    for name in ("a.json", "b.json"):
        assert tune.main(["fit", str(csv_path), "-o", str(tmp_path / name), "--iterations", "2",
                          "--seed", "7", "--holdout", "4"]) == 0
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]
    assert tune.main(["fit", str(csv_path), "-o", str(tmp_path / "c.json"), "--iterations", "2",
                      "--seed", "8", "--holdout", "4"]) == 0
    assert json.loads(outputs[0])["seed"] == 7 and json.loads((tmp_path / "c.json").read_bytes())["seed"] == 8


def test_write_produces_an_importable_module_with_the_fitted_weights(tmp_path, capsys):
    weights = params.current()
    weights[params.NAMES.index("PASSED_EG[5]")] = 77
    weights[params.NAMES.index("MG_TABLES[2][27]")] = -5
    weights[params.TEMPO_INDEX] = 12
    result = objective.FitResult(params.NAMES, weights, params.current(), 0.005, 0.1, 0.09, None, None, 100, 0,
                           "positions.csv", 1, 1, 1, 1, "all", 3)
    fit.save(result, str(tmp_path / "tuned.json"))
    out = tmp_path / "weights_tuned.py"
    assert tune.main(["write", str(tmp_path / "tuned.json"), "-o", str(out)]) == 0
    spec = importlib.util.spec_from_file_location("weights_tuned", str(out))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert params.current(module) == weights
    assert module.PASSED_EG[5] == 77 and module.MG_TABLES[2][27] == -5 and module.TEMPO == 12
    assert module.MG_TABLES[1][0] == 0 and module.MG_VALUE[6] == 0  # weights never tuned stay
    assert "mean squared error 0.100000 -> 0.090000" in module.SOURCE
    capsys.readouterr()
    assert tune.main(["write", str(tmp_path / "tuned.json"), "--diff"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["MG_TABLES[2][27]: 53 -> -5 (-58)", "PASSED_EG[5]: 60 -> 77 (+17)", "TEMPO: 10 -> 12 (+2)"]


def test_write_refuses_a_fit_of_other_weights(tmp_path, capsys):
    (tmp_path / "other.json").write_text(json.dumps({"names": ["x"], "weights": [1]}))
    assert tune.main(["write", str(tmp_path / "other.json")]) == 2
    assert "other.json: its weight names are not this checkout's" in capsys.readouterr().err


@pytest.mark.parametrize("command,content,message", [
    ("extract", None, "No such file or directory"),
    ("fit", "a,b\n1,2\n", "not a tune.py extract CSV (no fen, result, game column)"),
    ("fit", "fen,result,game\nnot a fen,1,1\n", "position 1 ('not a fen')"),
    ("fit", "fen,result,game\n8/8/8/8/8/8/8/K6k w - - 0 1,2,1\n", "line 2: result 2.0 is not between 0 and 1"),
    ("fit", "fen,result,game\n8/8/8/8/8/8/8/K6k w - - 0 1,1-0,1\n", "line 2: result '1-0' or game '1' is not a number"),
    ("write", "{", "not the JSON of tune.py fit")])
def test_inputs_it_cannot_read_end_with_the_file_and_the_reason(tmp_path, capsys, command, content, message):
    path = tmp_path / ("input.pgn" if command == "extract" else "input.csv" if command == "fit" else "input.json")
    if content is not None:
        path.write_text(content)
    argv = [command, str(path)] + (["-o", str(tmp_path / "out")] if command != "write" else [])
    assert tune.main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith("tune.py %s: error: " % command) and message in error and "input." in error


def test_gen_runs_a_match_py_self_play_command():
    argv = gen.match_argv("out.pgn", 100, 3000, "pypy3 -m pruner", 2, 24, directory="/tmp/frozen")
    args = match.build_parser().parse_args(argv)
    assert args.engine == ["pypy3 -m pruner", "pypy3 -m pruner"]
    assert args.nodes == 3000 and args.games == 100 and args.seed == 24 and args.pgn == "out.pgn"
    assert args.option1 != args.option2  # the two sides must not play the same game twice
    assert args.dir1 == args.dir2 == "/tmp/frozen"
    assert gen.describe(argv).startswith("python3 scripts/match.py --engine 'pypy3 -m pruner'")
    assert not args.resume
    resumed = match.build_parser().parse_args(gen.match_argv("out.pgn", 100, 3000, "pruner", 2, 24, resume=True))
    assert resumed.resume and resumed.seed == 24 and resumed.pgn == "out.pgn"


def test_gen_plays_its_games_by_running_match_py_from_any_directory(tmp_path, capfd, monkeypatch):
    """tune.py runs scripts/match.py as a program (scripts do not import each other), found
    beside tune.py wherever tune.py is started from."""
    monkeypatch.chdir(tmp_path)
    pgn = tmp_path / "selfplay.pgn"
    engine = "%s %s" % (sys.executable, FAKE_ENGINE)
    assert tune.main(["gen", "-o", str(pgn), "--games", "2", "--nodes", "50", "--engine", engine, "--jobs", "1"]) == 0
    out = capfd.readouterr().out
    assert gen.count_games(str(pgn)) == 2 and "gen: 2 of 2 games in the PGN" in out, out


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_sighup_given_to_tune_py_is_passed_on_to_its_match(tmp_path):
    """The match runs in a session of its own, out of reach of tune.py's terminal: a hangup
    must reach it through tune.py, as SIGTERM does (issue 51)."""
    child = tmp_path / "match_stand_in.py"
    child.write_text("import signal, sys, time\n"
                     "signal.signal(signal.SIGHUP, lambda *_: sys.exit(128 + signal.SIGHUP))\n"
                     "print('ready', flush=True)\ntime.sleep(60)\nsys.exit(3)\n")
    runner = subprocess.Popen(
        [sys.executable, "-c", "import sys, tune; tune.MATCH_SCRIPT = sys.argv[1]; sys.exit(tune.run_match([]))",
         str(child)], cwd=os.path.join(ROOT, "scripts"), stdout=subprocess.PIPE, text=True)  # -c: imports from cwd
    try:
        assert runner.stdout.readline() == "ready\n"  # the match stand-in runs, its handler set
        runner.send_signal(signal.SIGHUP)
        assert runner.wait(timeout=60) == 128 + signal.SIGHUP  # the match's status, passed on
    finally:
        if runner.poll() is None:
            runner.kill()
        runner.stdout.close()


def test_gen_counts_the_games_its_pgn_holds(tmp_path):
    pgn = tmp_path / "run.pgn"
    assert gen.count_games(str(pgn)) == 0  # a run that never wrote its file
    game = '[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
    pgn.write_text(game * 3)
    assert gen.count_games(str(pgn)) == 3


def test_the_candidate_groups_split_the_candidates_by_cost():
    pawns = params.group_indices("candidate_pawns")
    pieces = params.group_indices("candidate_pieces")
    assert sorted(pawns + pieces) == params.group_indices("candidates")
    assert not set(pawns) & set(pieces)
    names = {params.NAMES[i].partition("[")[0] for i in pawns}
    # the pawn-structure terms, the ones the search keeps in its pawn cache
    assert names == set(eval_terms.NAMES[-eval_terms.PAWN_TERMS:]) == {"PAWN_PHALANX", "PAWN_SUPPORTED", "PAWN_BACKWARD"}
    assert len(pawns) == 2 * eval_terms.PAWN_TERMS


def test_the_gradient_is_the_errors_slope():
    # Finite differences of the real-valued error against the analytic gradient, weight by weight.
    from pruner.lab.tunelib import gradient
    rows = _synthetic(params.current(), k=0.005, n_games=3, seed=17)
    labels = [1.0 if i % 3 else 0.0 for i in range(len(rows))]
    linear, shares, signs = gradient._linear([features.extract(chess.Board(fen)) for fen, _, _ in rows])
    weights = [float(w) for w in params.current()]
    _, grad = gradient.loss_and_gradient(linear, shares, signs, labels, weights, 0.005)
    for name in ("MG_VALUE[2]", "EG_VALUE[4]", "MG_TABLES[1][36]", "EG_TABLES[6][60]", "PASSED_EG[5]", "TEMPO"):
        i = params.NAMES.index(name)
        up, down = list(weights), list(weights)
        up[i] += 0.01
        down[i] -= 0.01
        slope = (gradient.loss_and_gradient(linear, shares, signs, labels, up, 0.005)[0]
                 - gradient.loss_and_gradient(linear, shares, signs, labels, down, 0.005)[0]) / 0.02
        assert grad[i] != 0.0 and abs(slope - grad[i]) < 1e-4 * abs(grad[i]) + 1e-12, name


def test_the_gradient_method_recovers_known_weights_and_leaves_the_others():
    from pruner.lab.tunelib import gradient
    true = params.current()
    true[params.TEMPO_INDEX] = 40
    knight = params.NAMES.index("EG_VALUE[2]")
    true[knight] += 50
    rows = _synthetic(true, k=0.006)
    result = gradient.fit_gradient(rows, params.current(), epochs=150, rate=2.0, k=0.006,
                                   groups="material,tempo", holdout=0)
    assert abs(result.weights[params.TEMPO_INDEX] - 40) <= 2
    assert abs(result.weights[knight] - true[knight]) <= 5
    tuned = set(params.group_indices("material,tempo"))
    assert all(w == c for i, (w, c) in enumerate(zip(result.weights, params.current())) if i not in tuned)
    assert result.error_after < result.error_before and result.method == "gradient"
    # A ridge penalty far above what the data can pay for keeps the weights where they were.
    held = gradient.fit_gradient(rows, params.current(), epochs=30, rate=2.0, k=0.006, groups="tempo",
                                 holdout=0, l2=1.0)
    assert held.weights == params.current()


def test_the_gradient_method_with_patience_keeps_its_best_epoch_and_is_reproducible(tmp_path):
    rows = _synthetic(params.current(), k=0.005, n_games=12, seed=13)
    rng = random.Random(2)
    csv_path = tmp_path / "positions.csv"
    with open(csv_path, "w") as handle:
        extract.write_csv(((fen, float(rng.random() < label), i // 20, 0) for i, (fen, label, _) in enumerate(rows)),
                          handle)
    outputs = []
    for name in ("a.json", "b.json"):
        assert tune.main(["fit", str(csv_path), "-o", str(tmp_path / name), "--method", "gradient",
                          "--iterations", "60", "--rate", "3", "--holdout", "3", "--patience", "3"]) == 0
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[0])
    assert data["method"] == "gradient" and data["rate"] == 3.0
    # Noisy labels: the held-out error turns up after a few epochs (epoch 2 with this data) and
    # the fit stops `patience` epochs after its best one, keeping that epoch's weights.
    assert data["best_pass"] + 3 == data["passes"] < 60
    assert data["holdout_after"] < data["holdout_before"]
    out = tmp_path / "weights.py"
    assert tune.main(["write", str(tmp_path / "a.json"), "-o", str(out)]) == 0
    assert "--method gradient --rate 3, weights of epoch %d of %d" % (data["best_pass"], data["passes"]) \
        in out.read_text().replace('"\n          "', "")


def _check_scores(tmp_path, pgn, moves):
    """Extract ``pgn`` and check the score column: ``moves`` are (SAN, expected score of the
    position before that move, White's view, or None); most of these positions are kept."""
    path = tmp_path / "scored.pgn"
    path.write_text(pgn)
    out = tmp_path / "positions.csv"
    extract.extract_files([str(path)], str(out), skip_plies=0)
    found = {chess.Board(fen).epd(): score
             for (fen, _, _), score in zip(extract.read_csv(str(out)), extract.read_scores(str(out)))}
    board = chess.Board()
    expected = {}
    for san, score in moves:
        expected[board.epd()] = score
        board.push_san(san)
    kept = {epd: score for epd, score in expected.items() if epd in found}
    assert len(kept) >= 4 and all(found[epd] == score for epd, score in kept.items())
    assert any(score is not None for score in kept.values())


def test_extract_reads_each_moves_search_score_from_whites_side(tmp_path):
    assert extract.comment_score("+0.35/12 0.251s") == 35
    assert extract.comment_score("-1.2/4 0.1s, White resigns (score adjudication)") == -120
    assert extract.comment_score("+M5/12 0.1s") is None and extract.comment_score("-M3/9") is None
    assert extract.comment_score("book") is None and extract.comment_score("") is None
    assert extract.comment_score("0.00/9 0.2s") == 0  # cutechess writes no sign on zero
    assert extract.comment_score("3 pawns up") is None  # a remark, not a score
    # The score of the move played from a position, turned to White's view.
    _check_scores(tmp_path, '[Result "1-0"]\n[Termination "adjudication"]\n\n'
                  "1. e4 { +0.30/5 0.1s } e5 { +0.20/5 0.1s } 2. Nf3 { +0.40/5 0.1s } Nc6 { -0.10/5 0.1s } "
                  "3. Bb5 { +0.50/5 0.1s } a6 { +M3/5 0.1s } 4. Ba4 1-0\n",
                  (("e4", 30), ("e5", -20), ("Nf3", 40), ("Nc6", 10), ("Bb5", 50), ("a6", None)))


def test_blended_labels_mix_the_result_with_the_scores_win_probability():
    assert objective.blend([1.0, 0.0, 0.5], [0, None, 200], 0.005, 0.0) == [1.0, 0.0, 0.5]
    blended = objective.blend([1.0, 0.0, 0.5], [0, None, 200], 0.005, 0.25)
    assert blended[0] == 0.75 * 1.0 + 0.25 * 0.5 and blended[1] == 0.0
    assert abs(blended[2] - (0.375 + 0.25 / (1 + math.exp(-1.0)))) < 1e-12
    # In a fit, only the fitted positions' labels change; the held-out ones stay the results.
    rows = _synthetic(params.current(), k=0.005, n_games=4, seed=19)
    rows = [(fen, float(i % 3 == 0), i) for i, (fen, _, _) in enumerate(rows)]
    scores = [100] * len(rows)
    plain = fit.fit(rows, params.current(), iterations=1, k=0.005, holdout=4, groups="tempo")
    mixed = fit.fit(rows, params.current(), iterations=1, k=0.005, holdout=4, groups="tempo", scores=scores,
                    score_weight=0.5)
    assert mixed.holdout_before == plain.holdout_before and mixed.error_before != plain.error_before
    assert mixed.score_weight == 0.5


def test_extract_reads_lichess_eval_annotations_of_the_position_reached(tmp_path):
    # [%eval] is White's view of the position after the move it follows: the score of the
    # position before the next move. A mate annotation gives no score.
    _check_scores(tmp_path, '[Result "0-1"]\n[Termination "Normal"]\n\n'
                  "1. e4 { [%eval 0.3] [%clk 0:03:00] } 1... e5 { [%eval 0.25] } 2. Nf3 { [%eval -1.5] } "
                  "2... Nc6 { [%eval #-3] } 3. Bb5 { [%eval 0.4] } 3... a6 0-1\n",
                  (("e4", None), ("e5", 30), ("Nf3", 25), ("Nc6", -150), ("Bb5", None), ("a6", 40)))


@pytest.mark.parametrize("termination,kept", [
    ("normal", True), ("Normal", True), ("adjudication", True), ("Game drawn by repetition", True),
    ("Hikaru won by resignation", True), ("time forfeit", False), ("Time forfeit", False),
    ("Magnus won on time", False), ("Abandoned", False), ("Game abandoned", False), ("rules infraction", False),
    ("Rules infraction", False), ("unterminated", False)])
def test_games_count_unless_their_termination_names_a_fault_in_any_tools_words(tmp_path, termination, kept):
    # PGN's values (match.py, cutechess), lichess's capitalised ones, chess.com's sentences.
    path = tmp_path / "game.pgn"
    path.write_text('[Result "1-0"]\n[Termination "%s"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0\n' % termination)
    stats = extract.extract_files([str(path)], str(tmp_path / "positions.csv"), skip_plies=0)
    assert stats.games_kept == (1 if kept else 0)
