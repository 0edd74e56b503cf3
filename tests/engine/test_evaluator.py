"""Who owns the evaluation (issue 53, item 2): each ``Searcher`` owns an
``pruner.engine.evaluate.Evaluator`` chosen by constructing it, so two searchers with different
evaluations in one process give what each gives alone; no module of engine/ switches an
evaluation by rebinding its module's names (``global``) or refilling a module's list in place."""

import ast
import os

import chess

from pruner.engine import bench
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.types import Limits
from paths import ROOT
from test_nnue import random_net

ENGINE = os.path.join(ROOT, "engine")


def _engine_modules():
    """(path, syntax tree) of every module of engine/."""
    for name in sorted(os.listdir(ENGINE)):
        if name.endswith(".py"):
            path = os.path.join(ENGINE, name)
            with open(path) as handle:
                yield path, ast.parse(handle.read(), path)


def test_no_engine_module_rebinds_or_refills_module_state():
    """An evaluation chosen by switching a module's names (``global``, or a module-level list
    refilled with ``NAME[:] = ...`` from a function) is what every searcher of the process sees."""
    found = []
    for path, tree in _engine_modules():
        module_names = {target.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                        if isinstance(target, ast.Name)}
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Global):
                    found.append("%s:%d: global %s" % (path, node.lineno, ", ".join(node.names)))
                elif isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                                and target.value.id in module_names and isinstance(target.slice, ast.Slice):
                            found.append("%s:%d: %s[:] refilled" % (path, node.lineno, target.value.id))
    assert not found, found


SEARCHES = [(fen, depth) for fen in bench.POSITIONS[:5] for depth in (3, 4)]
"""Each position to depth 3 then 4: the second search reuses the table the first filled."""


def _search(searcher, fen, depth):
    """(best move, score, nodes) of one search."""
    result = searcher.search(chess.Board(fen), Limits(depth=depth))
    return result.best_move, result.score, result.nodes


def test_searchers_with_different_evaluations_interleaved_search_as_each_alone(tmp_path):
    path = tmp_path / "random.nnue"
    path.write_bytes(random_net(17).to_bytes())
    classical = SearchParams(evalfile="classical")
    learned = SearchParams(evalfile=str(path))
    alone = {}
    for params in (classical, learned):
        searcher = Searcher(params=params)
        alone[params.evalfile] = [_search(searcher, fen, depth) for fen, depth in SEARCHES]
    assert alone[classical.evalfile] != alone[learned.evalfile]  # two evaluations: a mix-up would show
    searchers = [Searcher(params=classical), Searcher(params=learned)]
    interleaved = {classical.evalfile: [], learned.evalfile: []}
    for fen, depth in SEARCHES:
        for searcher in searchers:  # one search each, in turn
            interleaved[searcher.params.evalfile].append(_search(searcher, fen, depth))
    assert interleaved == alone


def test_the_evaluation_cache_answers_a_position_again_and_is_emptied_when_full(monkeypatch):
    # evaluate_position's cache (a dict by Zobrist key, emptied at _EVAL_CACHE_MAX entries): a
    # position evaluated again is answered from it with the same number as from scratch, and
    # the cache never holds more than its maximum.
    from pruner.engine import evaluate
    from pruner.engine.board import Position
    from pruner.engine.makemove import do_move, undo_move
    from pruner.engine.attacks import from_move
    monkeypatch.setattr(evaluate, "_EVAL_CACHE_MAX", 8)
    evaluator = evaluate.Evaluator(net=random_net(5))
    cache = evaluator.eval_cache
    board = chess.Board(bench.POSITIONS[2])
    pos = Position(board, evaluator)
    first = evaluator.evaluate_position(pos)
    assert cache == {pos.key: first}
    assert evaluator.evaluate_position(pos) == first
    cache[pos.key] = first + 1  # a forged entry: proof that the second answer came from the cache
    assert evaluator.evaluate_position(pos) == first + 1
    cache.clear()
    sizes = []
    for move in list(board.legal_moves)[:20]:
        do_move(pos, from_move(move))
        board.push(move)
        assert evaluator.evaluate_position(pos) == evaluator.evaluate(board)
        assert evaluator.evaluate_position(pos) == evaluator.evaluate(board)  # now from the cache
        sizes.append(len(cache))
        undo_move(pos)
        board.pop()
    assert max(sizes) == 8 and min(sizes[8:]) < 8  # filled to the maximum, then emptied
