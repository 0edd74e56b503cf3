"""``Evaluator.evaluate_outside`` and ``SearchParams.lazy_net_margin``: the quiescence search's
stand pat may leave the net out when the classical score is far outside the window (issue 52,
step 2). Off by default, so the engine's search and its bench signature stay what they are."""

import random

import chess

from pruner.engine import bench
from pruner.engine.board import Position
from pruner.engine.evaluate import Evaluator
from pruner.engine import nnue, weights
from pruner.engine.search import SearchParams, Searcher
from pruner.engine.types import Limits


def positions(count, seed=7):
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(count):
        if board.is_game_over() or board.ply() > 80:
            board = chess.Board()
        board.push(rng.choice(list(board.legal_moves)))
        yield board.copy()


def test_outside_the_margin_the_classical_score_inside_it_the_full_one():
    evaluator = Evaluator(weights, nnue.net_named(""))
    assert evaluator.net is not None and evaluator.net.residual
    seen_outside = seen_inside = 0
    for board in positions(300):
        full_evaluator = Evaluator(weights, evaluator.net)
        pos = Position(board, evaluator)
        full = full_evaluator.evaluate_position(Position(board, full_evaluator))
        classical = evaluator.classical_position(pos)
        # far above the window: the classical score, and nothing cached for the key
        below = evaluator.evaluate_outside(pos, classical - 500, classical - 400, 300)
        assert below == classical and pos.key not in evaluator.eval_cache
        # the window around the classical score: the net is asked, and the full value cached
        inside = evaluator.evaluate_outside(pos, classical - 10, classical + 10, 300)
        assert inside == full and evaluator.eval_cache[pos.key] == full
        # once cached, the full value is what it gives, wherever the window
        assert evaluator.evaluate_outside(pos, classical + 400, classical + 500, 300) == full
        seen_outside += 1
        seen_inside += inside != classical
    assert seen_inside > 0 and seen_outside == 300


def test_without_a_net_it_is_the_classical_evaluation():
    evaluator = Evaluator(weights, None)
    for board in positions(50):
        pos = Position(board, evaluator)
        assert evaluator.evaluate_outside(pos, -30000, -29000, 100) == evaluator.evaluate_position(pos)


def test_off_by_default_and_the_search_changes_only_when_it_is_on():
    assert SearchParams().lazy_net_margin == 0
    fen = bench.POSITIONS[1]
    off = Searcher(16).search(chess.Board(fen), Limits(depth=5))
    on = Searcher(16, SearchParams.parse("lazy_net_margin=250")).search(chess.Board(fen), Limits(depth=5))
    assert off.nodes != on.nodes  # the switch reaches the search
    assert chess.Board(fen).is_legal(on.best_move)
