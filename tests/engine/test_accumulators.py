"""The net's accumulator representations (``pruner.engine.nnue``, issue 52 step 2): the
packed integer (CPython's), the list of four-lane words, and the same lists brought up to date
only when evaluated (PyPy's), all tested on whichever interpreter runs the tests. On 10,000 positions of random playouts from the start and from the
EPD fixtures, played through ``do_move``, ``do_null`` and ``undo_move`` with captures,
promotions, castling and en passant, each representation's incremental accumulator equals its
accumulator from scratch (a lazy one also when checked only now and then, so that chains of
pending moves and take-backs over them are computed), and its evaluation is the packed one's from scratch (today's
evaluation) bit for bit, also for nets at the lanes' bounds and a hidden size that leaves a
word half empty; a search with either gives the same nodes, score and line; the interpreter
chooses the representation and ``PRUNER_ACCUMULATOR`` overrides it."""

import os
import platform
import random

import chess
import pytest

from pruner.engine import evaluate as evaluation, nnue
from pruner.engine.attacks import from_move
from pruner.engine.board import Position
from pruner.engine.makemove import do_move, do_move_lazy, do_move_lists, do_move_packed, do_null, mover, undo_move
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.types import Limits
from net_helpers import random_net
from paths import EPD

REPRESENTATIONS = ("packed", "lists", "lazy")
SELDOM = "lazy, checked now and then"
"""A lazy position whose accumulator is looked at after a quarter of the steps only: the others
leave chains of pending nodes, which a later evaluation or take-back meets."""
KINDS = dict({name: name for name in REPRESENTATIONS}, **{SELDOM: "lazy"})
"""The positions each playout moves side by side, and their representations."""


def start_boards():
    """The start position, then every position of the EPD fixtures (the perft suites hold
    castling, en passant and promotions in reach; Chess960 its castling layouts)."""
    boards = [chess.Board()]
    for name, chess960 in (("perft_standard.epd", False), ("perft_chess960.epd", True),
                           ("wac.epd", False), ("bk.epd", False)):
        with open(os.path.join(EPD, name)) as handle:
            for line in handle:
                if line.strip():
                    board = chess.Board(None, chess960=chess960)
                    board.set_epd(line)  # the EPD's operations (bm, id, perft counts) are not needed
                    boards.append(board)
    return boards


def scratch(packed, board):
    """Today's evaluation of ``board`` from scratch (``packed``: a net's ``PackedAccumulators``):
    the packed accumulator of its pieces, the output layer in pure Python (so CPython's numpy
    output layer, the packed representation's there, is checked against it)."""
    return packed.evaluate_python(packed.accumulator(nnue.board_pieces(board)), 1 if board.turn else 0)


def check_playouts(net, count, seed):
    """Random playouts of ``count`` positions in all, one ``Position`` per representation moved
    side by side: after each move, null move or take-back, each one's accumulator equals its
    accumulator from scratch and its evaluation today's from scratch. Returns the kinds of
    step seen."""
    nets = {name: net.in_representation(name) for name in REPRESENTATIONS}
    evaluators = {label: evaluation.Evaluator(net=nets[kind]) for label, kind in KINDS.items()}
    rng = random.Random(seed)
    boards = start_boards()
    # Half the playouts start where en passant or a promotion is legal: few random
    # playouts reach one.
    rare = [b for b in boards if any(b.is_en_passant(m) or m.promotion for m in b.legal_moves)]
    seen = {}
    checked = 0
    while checked < count:
        board = rng.choice(rare if rng.random() < 0.5 else boards).copy(stack=False)
        positions = {label: Position(board, evaluators[label]) for label in KINDS}
        history = []  # (kind, accumulators before the step: the objects, which a take-back restores)
        for _ in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            roll = rng.random()
            if history and roll < 0.15:
                kind = "take-back"
                before = history.pop()[1]
                for pos in positions.values():
                    undo_move(pos)
                board.pop()
                assert all(pos.acc is before[label] for label, pos in positions.items()), board.fen()
            elif roll < 0.25 and not board.is_check():
                kind = "null"
                history.append((kind, {label: pos.acc for label, pos in positions.items()}))
                for pos in positions.values():
                    do_null(pos)
                board.push(chess.Move.null())
            elif moves:
                # Castling, en passant and promotions four times in five when there are some,
                # captures a third of the other times (random moves alone reach few of the first three).
                special = [m for m in moves if m.promotion or board.is_castling(m) or board.is_en_passant(m)]
                captures = [m for m in moves if board.is_capture(m)]
                roll = rng.random()
                pool = special if special and roll < 0.8 else captures if captures and roll < 0.87 else moves
                move = rng.choice(pool)
                kind = ("castling" if board.is_castling(move) else "en passant" if board.is_en_passant(move)
                        else "promotion" if move.promotion else "capture" if board.is_capture(move) else "quiet")
                history.append((kind, {label: pos.acc for label, pos in positions.items()}))
                for pos in positions.values():
                    gives_check = do_move(pos, from_move(move))
                board.push(move)
                assert gives_check == board.is_check()
            else:
                break
            seen[kind] = seen.get(kind, 0) + 1
            expected = scratch(nets["packed"].accumulators, board)
            turn = 1 if board.turn else 0
            look_now = rng.random() < 0.25
            for label, pos in positions.items():
                if label == SELDOM and not look_now:
                    continue
                accumulators = nets[KINDS[label]].accumulators
                scratch_acc = accumulators.value(accumulators.accumulator(nnue.board_pieces(board)))
                assert accumulators.value(pos.acc) == scratch_acc, (label, board.fen(), kind)
                assert accumulators.evaluate(pos.acc, turn) == expected, (label, board.fen(), kind)
            # Every word a machine word (a larger int would make PyPy's list one of objects).
            for label in ("lists", "lazy"):
                assert all(-2 ** 63 <= word < 2 ** 63 for word in nets[KINDS[label]].accumulators.value(
                    positions[label].acc)), board.fen()
            checked += 1
            if checked == count:
                break
    return seen


def test_both_representations_equal_todays_evaluation_on_10000_positions():
    net = nnue.shipped_net()[0]
    assert net is not None
    seen = check_playouts(net, 10000, seed=52)
    assert set(seen) == {"quiet", "capture", "castling", "en passant", "promotion", "null", "take-back"}, seen
    assert min(seen.values()) >= 25, seen


@pytest.mark.parametrize("hidden", [8, 3])
def test_nets_at_the_lanes_bounds_and_a_half_empty_word_evaluate_the_same(hidden):
    # Weights at +-the bound the trainer keeps: a carry between lanes or a word leaving its
    # 64 bits would change a lane; 3 hidden units leave two padding lanes in the last word.
    assert check_playouts(random_net(7 + hidden, hidden=hidden, extreme=True), 2000, seed=hidden)
    assert check_playouts(random_net(9 + hidden, hidden=hidden), 1000, seed=hidden + 1)


def test_each_representation_has_its_do_move_body():
    net = random_net(3)
    board = chess.Board()
    assert mover(Position(board, evaluation.Evaluator(net=net.in_representation("packed")))) is do_move_packed
    assert mover(Position(board, evaluation.Evaluator(net=net.in_representation("lists")))) is do_move_lists
    assert mover(Position(board, evaluation.Evaluator(net=net.in_representation("lazy")))) is do_move_lazy
    classical = Position(board, evaluation.Evaluator(net=None))
    assert mover(classical) is do_move_packed
    assert classical.columns is None and classical.list_columns is None  # no accumulator work at all
    do_move(classical, from_move(chess.Move.from_uci("e2e4")))
    assert classical.acc == 0


def test_a_search_is_the_same_with_either_representation(tmp_path, monkeypatch):
    path = str(tmp_path / "net.nnue")
    with open(path, "wb") as handle:
        handle.write(nnue.shipped_net()[0].to_bytes())
    results = {}
    for name in REPRESENTATIONS:
        monkeypatch.setattr(nnue, "REPRESENTATION", name)
        nnue.read_named(path)  # the net under this name now in this representation
        searcher = Searcher(4, SearchParams(evalfile=path))
        assert searcher.evaluator.net.representation == name
        lines = []
        for fen in ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "4k3/1P6/8/3pP3/8/8/8/R3K2R w KQ d6 0 2"):
            result = searcher.search(chess.Board(fen), Limits(depth=4))
            lines.append((result.nodes, result.score, result.best_move, result.lines[0].pv))
        results[name] = lines
    assert results["packed"] == results["lists"] == results["lazy"]


def test_the_interpreter_chooses_and_the_variable_overrides(monkeypatch):
    monkeypatch.delenv(nnue.REPRESENTATION_VARIABLE, raising=False)
    monkeypatch.setattr(platform, "python_implementation", lambda: "PyPy")
    assert nnue.default_representation() == "lists"
    monkeypatch.setattr(platform, "python_implementation", lambda: "CPython")
    assert nnue.default_representation() == "packed"
    monkeypatch.setenv(nnue.REPRESENTATION_VARIABLE, "lists")
    assert nnue.default_representation() == "lists"
    monkeypatch.setenv(nnue.REPRESENTATION_VARIABLE, "bits")  # not one: the interpreter's choice
    assert nnue.default_representation() == "packed"
    assert random_net(1, representation="lists").representation == "lists"
    with pytest.raises(ValueError, match="packed, lists"):
        random_net(1, representation="bits")


def test_this_process_uses_its_interpreters_representation_unless_told_otherwise():
    chosen = os.environ.get(nnue.REPRESENTATION_VARIABLE)
    if chosen in REPRESENTATIONS:
        assert nnue.REPRESENTATION == chosen
    else:
        assert nnue.REPRESENTATION == ("lists" if platform.python_implementation() == "PyPy" else "packed")
    net = nnue.shipped_net()[0]
    assert net.representation == nnue.REPRESENTATION
    assert isinstance(Position(chess.Board()).acc, {"lists": list, "lazy": nnue.Pending}.get(nnue.REPRESENTATION, int))



def test_a_lazy_accumulator_waits_for_an_evaluation_and_is_computed_once():
    net = random_net(5).in_representation("lazy")
    accumulators = net.accumulators
    pos = Position(chess.Board(), evaluation.Evaluator(net=net))
    root = pos.acc
    assert isinstance(root, nnue.Pending) and root.acc is not None  # from scratch: computed
    do_move(pos, from_move(chess.Move.from_uci("e2e4")))
    first = pos.acc
    do_move(pos, from_move(chess.Move.from_uci("e7e5")))
    second = pos.acc
    assert first.acc is None and second.acc is None and second.prev is first  # nothing computed yet
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    expected = accumulators.value(accumulators.accumulator(nnue.board_pieces(board)))
    assert accumulators.value(pos.acc) == expected
    assert first.acc is not None and second.prev is None  # the chain computed on the way, and let go
    computed = first.acc
    undo_move(pos)
    assert pos.acc is first
    do_move(pos, from_move(chess.Move.from_uci("d7d5")))  # a sibling builds on the computed parent
    assert pos.acc.prev is first and first.acc is computed
    do_null(pos)
    assert pos.acc.acc is None  # a null move shares the node: it changes no piece


def test_the_packed_output_layer_is_numpy_on_cpython_where_installed_and_python_otherwise(monkeypatch):
    net = random_net(8, hidden=8, representation="packed")
    assert nnue.PackedAccumulators(net, output="python").output == "python"
    numpy_there = nnue._numpy() is not None
    expected = "numpy" if numpy_there and platform.python_implementation() == "CPython" else "python"
    assert net.accumulators.output == expected
    monkeypatch.setattr(nnue, "_numpy", lambda: None)
    assert nnue.PackedAccumulators(net).output == "python"
    with pytest.raises(ValueError):
        nnue.PackedAccumulators(net, output="numpy")


@pytest.mark.skipif(nnue._numpy() is None, reason="numpy not installed")
def test_numpy_and_python_output_layers_give_the_same_integer_on_random_accumulators():
    # Beyond the playouts: lanes anywhere in 16 bits (below 0, above qa), both colours to move,
    # and a net wide enough for the int64 weights.
    rng = random.Random(7)
    for hidden, top in ((3, 500), (64, 500), (600, 32767)):
        base = random_net(hidden, hidden=hidden)
        w2 = [rng.randint(-top, top) for _ in range(2 * hidden)]  # 600 x 32767: int64 weights
        net = nnue.Net(hidden, base.qa, base.qb, base.scale, True, base.w1, base.b1, w2, base.b2,
                       representation="packed")
        python = nnue.PackedAccumulators(net, output="python")
        numpy_ = nnue.PackedAccumulators(net, output="numpy")
        for _ in range(200):
            acc = nnue._pack([rng.randrange(-3000, 3000) + nnue.LANE_OFFSET for _ in range(2 * hidden)])
            for turn in (0, 1):
                assert numpy_.evaluate(acc, turn) == python.evaluate(acc, turn) == numpy_.evaluate_python(acc, turn)
