"""Other evaluation weights inside a process (an ``pruner.engine.evaluate.Evaluator`` made with
them, the ``weights`` search parameter): a limited-strength search keeps the weights its calibration
measured when the engine's own are re-tuned. The switched evaluation must equal that of a
process that imported the other weights from the start, and switching back must give today's
evaluation and search exactly."""

import importlib.util
import json
import os
import random
import subprocess
import sys
import types

import chess
import pytest

from pruner.engine import bench, evaluate as evaluation, nnue, weights
from pruner.engine.attacks import from_move
from pruner.engine.board import Position
from pruner.engine.evaluate import Evaluator, evaluate
from pruner.engine.makemove import do_move
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.strength import CALIBRATED_BENCH, calibrated_params
from pruner.engine.types import Limits

from paths import ROOT
from playouts import random_moves

MODULE = "pruner_test_weights"


def _changed(value, step):
    """``value`` (a number, a tuple of numbers or a dict of tuples) with every number moved by
    an amount that depends on its place, so no term keeps its weight."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return value + step
    if isinstance(value, tuple):
        return tuple(_changed(item, step + i % 7) for i, item in enumerate(value))
    return {key: _changed(item, step + key) for key, item in value.items()}


def _other_weights_source() -> str:
    """A weights module's source with every number of engine/weights.py changed, and two of the
    candidate terms (one on the pawns alone, one on the pieces) switched on."""
    lines = []
    for name in dir(weights):
        value = getattr(weights, name)
        if name.isupper() and isinstance(value, (int, tuple, dict, str)):
            lines.append("%s = %r" % (name, _changed(value, 3)))
    lines.append("PAWN_PHALANX = (7, 11)")
    lines.append("ROOK_SEVENTH = (19, 23)")
    return "\n".join(lines) + "\n"


def _evaluations(evaluator=None) -> list:
    """python-chess's evaluation, the term-by-term one and the search board's (kept
    incrementally) along seeded random games, by ``evaluator`` (the engine's own when None)."""
    evaluator = evaluator or evaluation.DEFAULT
    rng = random.Random(31)
    out = []
    for _ in range(25):
        board = chess.Board()
        pos = Position(board, evaluator)
        for move in random_moves(rng, board, 90):
            do_move(pos, from_move(move))
            out.append((evaluator.evaluate(board), evaluator.breakdown(board).score, evaluator.evaluate_position(pos)))
    return out


_CHILD = """
import importlib, json, sys
import pruner.engine; from pruner import engine
pruner.engine.weights = sys.modules["pruner.engine.weights"] = importlib.import_module(%r)
from test_weights_switch import _evaluations
from pruner.engine import bench
print(json.dumps({"evaluations": _evaluations(), "bench": bench.run(depth=3).nodes}))
""" % MODULE


@pytest.fixture
def other_weights(tmp_path, monkeypatch):
    """The changed weights as a module that imports by its name (loaded from its file into
    ``sys.modules``, as an import would); today's weights again afterwards."""
    path = tmp_path / (MODULE + ".py")
    path.write_text(_other_weights_source())
    spec = importlib.util.spec_from_file_location(MODULE, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, MODULE, module)
    yield module, tmp_path


def test_switched_weights_evaluate_as_a_process_that_started_with_them(other_weights):
    module, folder = other_weights
    today = _evaluations()
    # The child imports the weights module, this test module and its helpers by name: their
    # folders are its PYTHONPATH; the engine is this checkout's (its working directory).
    path = os.pathsep.join([str(folder), os.path.join(ROOT, "tests"), os.path.join(ROOT, "tests", "engine")])
    child = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=300,
                           cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=path))
    assert child.returncode == 0, child.stderr
    started_with_them = json.loads(child.stdout)
    other = Evaluator(module, nnue.net_named(""))
    assert other.weights_name == MODULE
    switched = [list(triple) for triple in _evaluations(other)]
    assert switched == started_with_them["evaluations"]
    assert switched != [list(triple) for triple in today]  # the change reaches every evaluation path
    assert all(a == b == c for a, b, c in switched)
    # A search names its weights (today's by default): these ones.
    assert bench.run(depth=3, params=SearchParams(weights=MODULE)).nodes == started_with_them["bench"]
    assert _evaluations() == today  # the engine's own evaluation is as it was


def test_a_search_with_other_weights_then_todays_repeats_todays_search(other_weights):
    board = chess.Board(bench.POSITIONS[3])
    searcher = Searcher()
    first = searcher.search(board, Limits(depth=5))
    searcher.new_game()
    other = searcher.search(board, Limits(depth=5), params=SearchParams(weights=MODULE))
    assert searcher.evaluator.weights_name == MODULE and other.nodes != first.nodes
    searcher.new_game()
    again = searcher.search(board, Limits(depth=5))
    assert searcher.evaluator.weights_name == "pruner.engine.weights"
    assert (again.nodes, again.best_move, again.score) == (first.nodes, first.best_move, first.score)


def test_switching_weights_empties_the_table(other_weights):
    """Scores stored under one evaluation are not reused under another (a GUI can switch
    UCI_LimitStrength between two moves of one game)."""
    board = chess.Board(bench.POSITIONS[5])
    searcher = Searcher()

    def filled():  # the table's slots in use
        return sum(1 for slot in searcher.tt.slots if slot is not None)

    searcher.search(board, Limits(depth=4))
    stored = filled()
    searcher.search(board, Limits(depth=1))
    assert filled() >= stored  # the same weights: the table is kept
    searcher.search(board, Limits(depth=1), params=SearchParams(weights=MODULE))
    assert filled() < stored


def test_limited_searches_name_the_weights_they_were_calibrated_with():
    assert calibrated_params().weights == "pruner.engine.weights"
    assert bench.run(params=calibrated_params()).nodes == CALIBRATED_BENCH


@pytest.mark.parametrize("text", ["weights=engine.no_such_weights", "weights=pruner.engine.search", "weights=chess"])
def test_a_weights_parameter_that_is_no_weights_module_is_refused(text):
    with pytest.raises(ValueError, match="weights module"):
        SearchParams.parse(text)


def test_the_weights_parameter_reads_from_params_text(other_weights):
    assert SearchParams.parse("weights=%s nmp_depth=4" % MODULE) == SearchParams(weights=MODULE, nmp_depth=4)


def test_candidate_weights_follow_the_module(other_weights):
    module, _ = other_weights
    other = Evaluator(module)
    assert other.extra and other.extra_pieces
    assert not Evaluator(weights).extra


def test_a_module_without_the_candidate_terms_counts_them_zero():
    old = types.ModuleType("pruner_old_weights")
    for name in dir(weights):
        if name.isupper() and name not in evaluation.eval_terms.NAMES:
            setattr(old, name, getattr(weights, name))
    board = chess.Board("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5")
    assert Evaluator(old, evaluation.DEFAULT.net).evaluate(board) == evaluate(board)


def test_a_module_lacking_a_number_makes_no_evaluator():
    partial = types.ModuleType("pruner_partial_weights")
    for name in dir(weights):
        if name.isupper() and name != "ROOK_SEMI_OPEN_FILE":
            setattr(partial, name, getattr(weights, name))
    with pytest.raises(AttributeError):
        Evaluator(partial)
