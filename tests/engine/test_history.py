"""``pruner.engine.history``: the killers and the butterfly history, and the rule a quiet cut-off applies."""

import random

import chess

from pruner.engine.attacks import from_move
from pruner.engine.history import BONUS_MAX, HISTORY_MAX, HISTORY_SIZE, MoveStats, history_index
from pruner.engine.search import Searcher
from pruner.engine.types import Limits, MAX_PLY

WHITE, BLACK = 1, 0  # python-chess's colours as the search's side to move

E2E4 = from_move(chess.Move.from_uci("e2e4"))
G1F3 = from_move(chess.Move.from_uci("g1f3"))
D2D4 = from_move(chess.Move.from_uci("d2d4"))
B1C3 = from_move(chess.Move.from_uci("b1c3"))


def test_history_index_separates_sides_and_from_to_pairs():
    indices = {history_index(color, frm << 6 | to) for color in (0, 1) for frm in range(64) for to in range(64)}
    assert indices == set(range(HISTORY_SIZE))
    # A promotion shares its pawn move's entry: the promotion bits are not part of the index.
    e7e8q = from_move(chess.Move.from_uci("e7e8q"))
    assert history_index(WHITE, e7e8q) == history_index(WHITE, from_move(chess.Move.from_uci("e7e8n")))


def test_a_fresh_table_knows_nothing():
    stats = MoveStats()
    assert stats.history == [0] * HISTORY_SIZE
    assert all(stats.killers(ply) == [0, 0] for ply in range(MAX_PLY + 2))


def test_a_cut_off_makes_a_killer_raises_the_move_and_lowers_those_tried_before():
    stats = MoveStats()
    stats.reward(G1F3, [D2D4, B1C3], depth=5, ply=3, color=WHITE)
    assert stats.killers(3) == [G1F3, 0]
    assert stats.killers(2) == [0, 0] and stats.killers(4) == [0, 0]  # only the ply of the cut-off
    assert stats.history[history_index(WHITE, G1F3)] == 25  # depth squared
    assert stats.history[history_index(WHITE, D2D4)] == -25
    assert stats.history[history_index(WHITE, B1C3)] == -25
    assert stats.history[history_index(BLACK, G1F3)] == 0  # the other side's entry is its own
    assert sum(1 for score in stats.history if score) == 3


def test_killers_keep_the_two_latest_distinct_moves_latest_first():
    stats = MoveStats()
    stats.reward(E2E4, [], 2, 0, WHITE)
    stats.reward(G1F3, [], 2, 0, WHITE)
    assert stats.killers(0) == [G1F3, E2E4]
    stats.reward(G1F3, [], 2, 0, WHITE)  # already first: the second killer stays
    assert stats.killers(0) == [G1F3, E2E4]
    stats.reward(D2D4, [], 2, 0, WHITE)
    assert stats.killers(0) == [D2D4, G1F3]


def test_the_bonus_grows_with_depth_up_to_its_cap():
    bonuses = []
    for depth in (1, 3, 10, 20, 40):
        stats = MoveStats()
        stats.reward(E2E4, [], depth, 0, WHITE)
        bonuses.append(stats.history[history_index(WHITE, E2E4)])
    assert bonuses == [1, 9, 100, BONUS_MAX, BONUS_MAX]


def test_gravity_shrinks_the_step_near_the_bound():
    stats = MoveStats()
    index = history_index(WHITE, E2E4)
    stats.history[index] = HISTORY_MAX // 2
    stats.reward(E2E4, [], 20, 0, WHITE)
    assert stats.history[index] == HISTORY_MAX // 2 + BONUS_MAX // 2
    stats.history[index] = HISTORY_MAX
    stats.reward(E2E4, [], 20, 0, WHITE)
    assert stats.history[index] == HISTORY_MAX  # at the bound a bonus adds nothing
    stats.history[index] = -HISTORY_MAX
    stats.reward(G1F3, [E2E4], 20, 0, WHITE)
    assert stats.history[index] == -HISTORY_MAX


def test_the_same_cut_off_again_and_again_saturates_at_the_bound():
    stats = MoveStats()
    raised, lowered = history_index(WHITE, E2E4), history_index(WHITE, G1F3)
    for _ in range(1000):
        stats.reward(E2E4, [G1F3], 20, 0, WHITE)
        assert -HISTORY_MAX <= stats.history[lowered] < 0 < stats.history[raised] <= HISTORY_MAX
    assert stats.history[raised] == HISTORY_MAX
    assert stats.history[lowered] < -HISTORY_MAX + BONUS_MAX


def test_scores_stay_within_the_bound_whatever_the_cut_offs():
    rng = random.Random(46)
    stats = MoveStats()
    moves = [E2E4, G1F3, D2D4, B1C3]
    for _ in range(20000):
        move = rng.choices(moves, weights=(8, 1, 1, 1))[0]  # e2e4 cuts off most: it climbs, the rest fall
        tried = [other for other in moves if other != move and rng.random() < 0.5]
        stats.reward(move, tried, rng.randrange(1, 30), rng.randrange(4), rng.randrange(2))
    scores = [stats.history[history_index(color, move)] for color in (0, 1) for move in moves]
    assert all(-HISTORY_MAX <= score <= HISTORY_MAX for score in scores)
    assert max(abs(score) for score in scores) > HISTORY_MAX // 2  # the bound was approached


def test_clear_forgets_killers_and_history():
    stats = MoveStats()
    stats.reward(E2E4, [G1F3], 6, 5, BLACK)
    stats.clear()
    assert stats.history == [0] * HISTORY_SIZE
    assert stats.killers(5) == [0, 0]


def test_clear_with_a_seed_starts_the_history_with_small_reproducible_noise():
    stats = MoveStats()
    stats.reward(E2E4, [], 6, 5, BLACK)
    stats.clear(seed=2)
    noisy = list(stats.history)
    assert stats.killers(5) == [0, 0]
    assert all(0 <= score < 64 for score in noisy) and len(set(noisy)) > 1
    stats.clear(seed=2)
    assert stats.history == noisy
    stats.clear(seed=3)
    assert stats.history != noisy


def test_the_searcher_fills_its_stats_and_new_game_clears_them():
    searcher = Searcher(1)
    searcher.search(chess.Board(), Limits(depth=4))
    assert any(searcher.stats.history) and any(any(searcher.stats.killers(ply)) for ply in range(MAX_PLY))
    searcher.new_game()
    assert searcher.stats.history == [0] * HISTORY_SIZE
    assert all(searcher.stats.killers(ply) == [0, 0] for ply in range(MAX_PLY + 2))
