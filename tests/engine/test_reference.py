"""pruner.engine.reference: the textbook tree searches, and the link from them to the real searcher.

1. The worked examples in tests/data/seed_trees.json: values and visit counts.
2. Hypothesis: on random trees minimax, negamax and alpha-beta agree; alpha-beta never visits more.
3. ``minimax_chess`` on its own (draw and mate rules), then against ``pruner.engine.search`` with
   pruning, reductions and extensions off: same root score at depths 1, 2 and 3.
"""

import json
from pathlib import Path
from typing import Callable, List, Tuple

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pruner.engine.reference import alphabeta, minimax, minimax_chess, negamax
from pruner.engine.types import DRAW, MATE, MATE_BOUND, Limits

from paths import DATA, EPD

SEED_TREES = Path(DATA) / "seed_trees.json"
WAC = Path(EPD) / "wac.epd"


# -- 1. seed trees ------------------------------------------------------------------------------

def _seed_trees() -> List[dict]:
    return json.loads(SEED_TREES.read_text())["trees"]


@pytest.mark.parametrize("case", _seed_trees(), ids=lambda case: case["name"])
def test_seed_tree(case):
    tree = case["tree"]
    assert case["root"] == "max"
    assert minimax(tree) == (case["value"], case["minimax_visited"])
    assert negamax(tree) == (case["value"], case["minimax_visited"])
    assert alphabeta(tree) == (case["value"], case["alphabeta_visited"])


# -- 2. random trees ----------------------------------------------------------------------------

trees = st.recursive(st.integers(-20, 20), lambda children: st.lists(children, min_size=1, max_size=4),
                     max_leaves=40)
"""Random game trees; a narrow value range makes ties (and cutoffs on equality) common."""


def _size(tree) -> int:
    return 1 if isinstance(tree, int) else 1 + sum(_size(child) for child in tree)


@settings(max_examples=300, deadline=None)
@given(trees)
def test_random_trees_agree(tree):
    value, visited = minimax(tree)
    assert visited == _size(tree)
    assert negamax(tree) == (value, visited)
    ab_value, ab_visited = alphabeta(tree)
    assert ab_value == value
    assert ab_visited <= visited


# -- 3a. minimax_chess on its own ---------------------------------------------------------------

PIECE_VALUE = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
               chess.QUEEN: 900, chess.KING: 0}


def material(board: chess.Board) -> int:
    """Material balance from the side to move: a leaf that knows no rules."""
    return sum(PIECE_VALUE[p.piece_type] * (1 if p.color == board.turn else -1)
               for p in board.piece_map().values())


@pytest.mark.parametrize("fen,depth,expected", [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 2, MATE - 1),        # Rd8#, seen at ply 1
    ("k7/8/1K6/8/8/8/8/1Q6 w - - 0 1", 4, MATE - 3),                # mate in 2
    ("7k/8/8/8/8/8/8/R3K2R b KQ - 0 1", 2, -1000),                  # mates lie beyond the horizon
    ("k7/p7/P2K4/8/7p/7p/7P/8 w - - 0 1", 2, DRAW),                 # a pawn down, Kc7 stalemates Black
    ("8/8/8/4k3/8/3n4/2B5/4K3 w - - 0 1", 2, DRAW),                 # Bxd3 leaves K+B v K
    ("8/8/8/4k3/8/8/3QK3/8 w - - 99 80", 2, DRAW),                  # every move reaches 100 half-moves
    ("8/8/8/4k3/8/2n5/3QK3/8 w - - 99 80", 2, 900),                 # ... except a capture
])
def test_minimax_chess_rules(fen, depth, expected):
    board = chess.Board(fen)
    before = board.fen()
    assert minimax_chess(board, depth, material) == expected
    assert board.fen() == before


def test_minimax_chess_calls_the_leaf_at_every_depth_zero_node():
    board = chess.Board()
    leaves = []

    def leaf(b: chess.Board) -> int:
        leaves.append(b.fen())
        return 7

    assert minimax_chess(board, 0, leaf) == 7
    assert leaves == [board.fen()]
    leaves.clear()
    minimax_chess(board, 2, leaf)
    assert len(leaves) == 400  # 20 x 20: no pruning
    assert board.fen() == chess.STARTING_FEN


def test_minimax_chess_repetition_is_a_draw_below_the_root():
    # After 1.Nf3 Nf6 2.Ng1, ...Ng8 repeats the start: a draw, Black's best (0 against -50).
    board = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1"):
        board.push_uci(uci)
    assert minimax_chess(board, 2, lambda b: -50) == DRAW
    # At the root a repeated position is still searched: the side to move must play.
    board.push_uci("f6g8")
    assert board.is_repetition(2)
    assert minimax_chess(board, 1, lambda b: -50) == 50


# -- 3b. cross-check with the real searcher -----------------------------------------------------

def _wac(*numbers: int) -> List[Tuple[str, str]]:
    wanted = {"WAC.%03d" % n for n in numbers}
    found = []
    for line in WAC.read_text().splitlines():
        if line.strip():
            board, ops = chess.Board.from_epd(line)
            if ops.get("id") in wanted:
                found.append((ops["id"], board.fen()))
    assert len(found) == len(wanted)
    return found


OPENINGS = [
    ("start", chess.STARTING_FEN),
    ("ruy-lopez", "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"),
    ("sicilian", "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"),
    ("queens-gambit", "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq c3 0 2"),
    ("en-passant", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
]
MIDDLEGAMES = _wac(7, 95, 113, 117, 141, 185, 189, 210)
ENDGAMES = _wac(2, 6, 18, 41, 86, 100, 146, 229)
SPECIAL = [
    ("mate-in-1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"),
    ("mate-in-2", "k7/8/1K6/8/8/8/8/1Q6 w - - 0 1"),
    ("stalemate-trap-Qf7", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"),
    ("stalemate-saves", "k7/p7/P2K4/8/7p/7p/7P/8 w - - 0 1"),
    ("insufficient-material", "8/8/8/4k3/8/3n4/2B5/4K3 w - - 0 1"),
    ("fifty-move", "8/8/8/4k3/8/2n5/3QK3/8 w - - 99 80"),
]
SIMPLE_ENDINGS = [
    ("king-and-pawn", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"),
    ("rook-and-king", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"),
    ("lucena", "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1"),
    ("rook-ending", "8/8/4k3/8/3PK3/r7/8/7R b - - 0 1"),
    ("bishops", "8/5k2/8/2b1p3/4P3/3B4/5K2/8 w - - 0 1"),
    ("queen-vs-pawn", "8/8/8/8/8/5K2/1pk5/7Q w - - 0 1"),
    ("knights", "8/5pk1/8/3n4/8/4N3/5PK1/8 w - - 0 1"),
]
MATE_IN_2_MIDDLEGAME = ("mate-in-2-middlegame",
                        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1")

CROSS_CHECK = (
    [(name, fen, depth) for name, fen in OPENINGS + MIDDLEGAMES + ENDGAMES + SPECIAL + SIMPLE_ENDINGS
     for depth in (1, 2)]
    + [(name, fen, 3) for name, fen in ENDGAMES + SPECIAL + SIMPLE_ENDINGS]
    + [MATE_IN_2_MIDDLEGAME + (1,)]
)
"""What runs at which depth, chosen to keep CPython under a minute (the brute force calls the
unpruned quiescence at every leaf, so a busy middlegame costs seconds at depth 2 and minutes at
depth 3):

- depths 1 and 2: 34 positions (5 openings, 8 WAC middlegames, 8 WAC endgames, 6 special,
  7 simple endings);
- depth 3: the 21 endgames, special positions and simple endings (at most 27 legal moves);
- depth 1 only: the middlegame mate in 2 (45 moves, 16 s at depth 2).
"""


def _searcher_class():
    """The real searcher and its parameters. A rename must fail this check, never switch it
    off: the import is not guarded."""
    from pruner.engine.search import Searcher, SearchParams
    assert hasattr(Searcher, "quiescence_score"), "the cross-check needs Searcher.quiescence_score()"
    return Searcher, SearchParams


def quiescence_leaf(searcher) -> Callable[[chess.Board], int]:
    """The engine's quiescence as a leaf; mate scores made relative to the brute force's root.

    The board comes from a FEN with no move history, so its move stack length is the ply; a
    mate found by quiescence at ply 0 (``±(MATE - k)``) is worth ``±(MATE - k - ply)`` there.
    """
    def leaf(board: chess.Board) -> int:
        score = searcher.quiescence_score(board)
        ply = len(board.move_stack)
        if score >= MATE_BOUND:
            return score - ply
        if score <= -MATE_BOUND:
            return score + ply
        return score

    return leaf


@pytest.mark.parametrize("name,fen,depth", CROSS_CHECK, ids=["%s-d%d" % (n, d) for n, _, d in CROSS_CHECK])
def test_search_without_pruning_equals_brute_force(name, fen, depth):
    """With pruning, reductions and extensions off the searcher is an exact alpha-beta: its root
    score is the brute-force negamax value over the same quiescence leaves (see ``CROSS_CHECK``
    for the depth of each position; about 12 s in all on CPython). Fresh FENs, no move history:
    no repetition can arise within 3 plies, so the draw rules tested are stalemate, insufficient
    material and the fifty-move rule.
    """
    Searcher, SearchParams = _searcher_class()
    board = chess.Board(fen)
    assert not board.is_game_over() and not board.move_stack
    leaf = quiescence_leaf(Searcher(hash_mb=16, params=SearchParams(pruning=False)))
    expected = minimax_chess(board, depth, leaf)
    result = Searcher(hash_mb=16, params=SearchParams(pruning=False)).search(board, Limits(depth=depth))
    assert result.depth == depth
    assert result.score == expected, "%s at depth %d: search %s, brute force %s" % (
        name, depth, result.score, expected)
