"""The learned evaluation (``pruner.engine.nnue``, issue 47): the accumulator kept by make/unmake
equals the one computed from scratch on 10,000 positions of games (in both accumulator
representations: tests/engine/test_accumulators.py compares them), the evaluation is the same
for a position and its colour-flipped twin, the file format round-trips and refuses damaged or
foreign files by name, and a net whose lanes could overflow is refused."""

import os
import random
import struct

import chess
import chess.pgn
import pytest

from pruner.engine import evaluate as evaluation, nnue
from pruner.engine.attacks import from_move
from pruner.engine.board import Position
from pruner.engine.makemove import do_move, undo_move
from net_helpers import random_net
from paths import DATA
from playouts import random_moves

GAMES = os.path.join(DATA, "games", "real_games.pgn")


@pytest.fixture
def net_in_use(monkeypatch):
    """A function that makes the engine's own evaluation (``pruner.engine.evaluate.DEFAULT``, which
    ``Position`` and the module's functions use) one with the net it is given, for one test."""
    def use(net):
        monkeypatch.setattr(evaluation, "DEFAULT", evaluation.Evaluator(net=net))
    return use


def reference(net, board):
    """The net's output from first principles: each lane summed and clipped one by one."""
    hidden = net.hidden
    lanes = []
    for perspective in (1, 0):
        acc = list(net.b1)
        for square, piece in board.piece_map().items():
            row = nnue.feature(perspective, piece.piece_type, int(piece.color), square) * hidden
            for i in range(hidden):
                acc[i] += net.w1[row + i]
        lanes.append([min(max(value, 0), net.qa) for value in acc])
    own, other = (lanes[0], lanes[1]) if board.turn else (lanes[1], lanes[0])
    total = sum(w * h for w, h in zip(net.w2, own + other)) + net.b2
    return total * net.scale // (net.qa * net.qb)


def game_boards(limit):
    """Positions of the real games, then of seeded random games, ``limit`` in all, each with
    the move that follows it."""
    out = []
    with open(GAMES) as handle:
        while len(out) < limit:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            for move in game.mainline_moves():
                out.append((board.copy(stack=False), move))
                board.push(move)
    rng = random.Random(47)
    while len(out) < limit:
        board = chess.Board()
        for move in random_moves(rng, board, 300):
            board.pop()
            out.append((board.copy(stack=False), move))
            board.push(move)
    return out[:limit]


@pytest.mark.parametrize("representation", ["packed", "lists", "lazy"])
@pytest.mark.parametrize("extreme", [False, True])
def test_incremental_accumulator_equals_scratch_on_10000_positions(net_in_use, extreme, representation):
    net = random_net(3, extreme=extreme, representation=representation)
    net_in_use(net)
    checked = kinds = 0
    seen = set()
    for board, move in game_boards(10000):
        pos = Position(board)
        before = pos.acc
        do_move(pos, from_move(move))
        board.push(move)
        value = net.accumulators.value
        assert value(pos.acc) == value(net.accumulator(nnue.board_pieces(board))), (board.fen(), move)
        assert evaluation.DEFAULT.evaluate_position(pos) == evaluation.evaluate(board)
        undo_move(pos)
        board.pop()
        assert pos.acc is before
        seen.add("capture" if board.is_capture(move) else "castle" if board.is_castling(move)
                 else "promotion" if move.promotion else "quiet")
        checked += 1
    assert checked == 10000 and seen == {"capture", "castle", "promotion", "quiet"}, seen


@pytest.mark.parametrize("representation", ["packed", "lists", "lazy"])
def test_the_evaluation_equals_the_lane_by_lane_reference(representation):
    for seed, extreme in ((1, False), (2, True)):
        net = random_net(seed, extreme=extreme, representation=representation)
        for board, _ in game_boards(300):
            acc = net.accumulator(nnue.board_pieces(board))
            assert net.evaluate(acc, 1 if board.turn else 0) == reference(net, board), board.fen()


def test_a_position_and_its_colour_flipped_twin_score_the_same(net_in_use):
    net_in_use(random_net(5))
    for board, _ in game_boards(2000)[::7]:
        twin = board.mirror()
        assert evaluation.evaluate(board) == evaluation.evaluate(twin), board.fen()
        assert evaluation.DEFAULT.evaluate_position(Position(board)) == evaluation.DEFAULT.evaluate_position(Position(twin))


def test_the_file_format_round_trips(tmp_path):
    net = random_net(7, hidden=16, residual=False)
    path = tmp_path / "a.nnue"
    path.write_bytes(net.to_bytes())
    loaded = nnue.load(str(path))
    assert (loaded.hidden, loaded.qa, loaded.qb, loaded.scale, loaded.residual) == (16, 255, 64, 400, False)
    assert (loaded.w1, loaded.b1, loaded.w2, loaded.b2) == (net.w1, net.b1, net.w2, net.b2)


def _damaged(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(nnue.NetError) as caught:
        nnue.load(str(path))
    return str(caught.value)


def test_damaged_foreign_and_missing_files_are_refused_by_name(tmp_path):
    good = random_net(9).to_bytes()
    flipped = bytearray(good)
    flipped[-10] ^= 1
    assert "checksum" in _damaged(tmp_path, "flip.nnue", bytes(flipped))
    assert "payload" in _damaged(tmp_path, "cut.nnue", good[:-3])
    assert "header" in _damaged(tmp_path, "tiny.nnue", good[:10])
    assert "not a Pruner net" in _damaged(tmp_path, "pgn.nnue", b"[Event \"?\"]\n" * 10)
    newer = bytearray(good)
    struct.pack_into("<H", newer, 8, nnue.FORMAT_VERSION + 1)
    assert "version" in _damaged(tmp_path, "new.nnue", bytes(newer))
    with pytest.raises(nnue.NetError, match="missing.nnue"):
        nnue.load(str(tmp_path / "missing.nnue"))
    with pytest.raises(nnue.NetError, match="not a regular file"):
        nnue.load(str(tmp_path))


def test_a_net_that_could_overflow_a_lane_is_refused():
    net = random_net(11)
    w1 = list(net.w1)
    w1[0] = nnue.LANE_OFFSET // 20  # 32 such pieces would pass 2^15
    with pytest.raises(nnue.NetError, match="overflow"):
        nnue.Net(net.hidden, 255, 64, 400, True, w1, net.b1, net.w2, net.b2)


def test_the_breakdown_shows_the_nets_share_and_adds_up(net_in_use):
    from pruner.uci.display import eval_table
    net = random_net(13)
    net_in_use(net)
    for board, _ in game_boards(200)[::20]:
        parts = evaluation.breakdown(board)
        assert parts.score == evaluation.evaluate(board)
        assert parts.classical == evaluation.classical(board)
        assert parts.score == parts.classical + parts.net
        lines = eval_table(parts)
        assert any(line.startswith("NNUE") and "random (768->8x2->1, added to" in line for line in lines)
    net_in_use(None)
    parts = evaluation.breakdown(chess.Board())
    assert parts.net is None and parts.score == parts.classical
    nnue_lines = [line for line in eval_table(parts) if line.startswith("NNUE")]
    assert nnue_lines == ["NNUE                   none: classical evaluation (no net asked for)"]
