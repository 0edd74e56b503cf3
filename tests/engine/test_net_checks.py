"""What the net loader refuses and what the evaluation never says (issue 51, items 2 and 3):
a net whose checksum is valid but whose header fields are outside what the engine supports is
refused with the field and the reason; whatever an accepted net's weights say, no evaluation
reaches the mate or tablebase range; the shipped net's path can be pointed at a damaged copy
(``PRUNER_SHIPPED_NET``), and then the evaluation is the classical one and says why, naming
the file."""

import hashlib
import os
import random
import zlib

import chess
import pytest

from pruner.engine import evaluate as evaluation, nnue, types
from pruner.engine.board import Position
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.types import MATE_BOUND, TB_BOUND, Limits
from net_helpers import damaged_copies, shipped_bytes
from test_nnue import game_boards, random_net

FIELDS = ("magic", "version", "hidden", "qa", "qb", "scale", "flags", "length", "crc")


def with_header(data: bytes, **fields) -> bytes:
    """``data`` (a net file) with some header fields replaced; the payload and its checksum stay
    valid."""
    values = dict(zip(FIELDS, nnue.HEADER.unpack_from(data)))
    values.update(fields)
    return nnue.HEADER.pack(*(values[name] for name in FIELDS)) + data[nnue.HEADER.size:]


def of_hidden(hidden: int) -> bytes:
    """A file of ``hidden`` units whose payload (all zero) has the size and checksum that hidden
    size needs: only the field itself can be wrong."""
    payload = bytes(2 * (nnue.FEATURES * hidden + 3 * hidden) + 4)
    return nnue.HEADER.pack(nnue.MAGIC, nnue.FORMAT_VERSION, hidden, 255, 64, 400, 1, len(payload),
                            zlib.crc32(payload)) + payload


def refusal(tmp_path, data: bytes) -> str:
    path = tmp_path / "odd.nnue"
    path.write_bytes(data)
    with pytest.raises(nnue.NetError) as caught:
        nnue.load(str(path))
    message = str(caught.value)
    assert str(path) in message  # the whole path, not only the file's name
    return message


GOOD = random_net(21).to_bytes()


@pytest.mark.parametrize("fields, reason", [
    ({"qb": 0}, "qb must be 1..32767, not 0"),  # was a ZeroDivisionError on every go
    ({"qb": 40000}, "qb must be 1..32767, not 40000"),
    ({"scale": 65535}, "scale must be 1..1000, not 65535"),  # was "score mate -165434" at the start
    ({"scale": 0}, "scale must be 1..1000, not 0"),  # the net would silently say nothing
    ({"qa": 0}, "qa must be 1..255, not 0"),
    ({"qa": 256}, "qa must be 1..255, not 256"),
    ({"flags": 0x8001}, "unknown flags 0x8001"),
])
def test_a_header_field_outside_the_supported_range_is_refused_with_the_reason(tmp_path, fields, reason):
    data = with_header(GOOD, **fields)
    assert zlib.crc32(data[nnue.HEADER.size:]) == nnue.HEADER.unpack_from(data)[-1]  # the checksum holds
    assert reason in refusal(tmp_path, data)


@pytest.mark.parametrize("hidden, reason", [
    (0, "hidden units must be 1..1024, not 0"),
    (1025, "hidden units must be 1..1024, not 1025"),
])
def test_absurd_hidden_sizes_with_a_consistent_payload_are_refused(tmp_path, hidden, reason):
    assert reason in refusal(tmp_path, of_hidden(hidden))


def test_a_header_that_claims_65535_hidden_units_is_refused_by_its_size_before_its_payload(tmp_path):
    assert "hidden units must be 1..1024, not 65535" in refusal(tmp_path, with_header(GOOD, hidden=65535))


def test_the_largest_supported_header_fields_are_accepted(tmp_path):
    path = tmp_path / "edge.nnue"
    path.write_bytes(with_header(of_hidden(1024), qa=255, qb=32767, scale=1000))
    net = nnue.load(str(path))
    assert (net.hidden, net.qb, net.scale) == (1024, 32767, 1000) == (nnue.MAX_HIDDEN, nnue.MAX_QB, nnue.MAX_SCALE)


def extreme_net(sign: int, residual: bool) -> nnue.Net:
    """An accepted net that says as much as its fields allow: qb 1, the largest scale, every
    output weight and the output bias at their type's limit, all of one sign."""
    rng = random.Random(5)
    hidden = 8
    limit = (nnue.LANE_OFFSET - 257) // (nnue.MAX_PIECES + 1)
    w1 = [rng.randint(0, limit) for _ in range(nnue.FEATURES * hidden)]
    b1 = [limit] * hidden
    w2 = [sign * 32767] * (2 * hidden)
    return nnue.Net(hidden, 255, 1, 1000, residual, w1, b1, w2, sign * (2 ** 31 - 1), name="extreme")


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("residual", [True, False])
def test_no_evaluation_reaches_the_mate_range_whatever_an_accepted_net_says(sign, residual):
    net = extreme_net(sign, residual)
    assert abs(net.evaluate(net.accumulator(nnue.board_pieces(chess.Board())), 1)) > 100 * TB_BOUND  # the raw output
    evaluator = evaluation.Evaluator(net=net)
    scores = set()
    for board, _ in game_boards(300)[::3]:
        score = evaluator.evaluate(board)
        assert evaluator.evaluate_position(Position(board, evaluator)) == score == evaluator.breakdown(board).score
        assert abs(score) < TB_BOUND, board.fen()
        scores.add(score)
    assert scores == {sign * types.EVAL_LIMIT}  # the net's sign, for either side to move, clamped
    assert types.EVAL_LIMIT < TB_BOUND - types.MAX_PLY  # well below: a few plies' margins do not reach it


def test_a_search_with_an_extreme_net_never_reports_a_mate_score(tmp_path):
    path = tmp_path / "extreme.nnue"
    path.write_bytes(extreme_net(-1, True).to_bytes())
    result = Searcher().search(chess.Board(), Limits(depth=3), params=SearchParams(evalfile=str(path)))
    assert result.error is None and result.lines
    assert all(abs(line.score) < TB_BOUND < MATE_BOUND and line.mate is None for line in result.lines)


# -- the shipped net's state --------------------------------------------------------------------

def test_a_damaged_shipped_net_is_named_with_the_reason(tmp_path, monkeypatch):
    for kind, (path, reason) in damaged_copies(tmp_path).items():
        monkeypatch.setenv(nnue.NET_VARIABLE, path)
        net, problem = nnue.load_default()
        assert net is None, kind
        assert problem.startswith(path + ": ") and reason in problem, (kind, problem)
    monkeypatch.delenv(nnue.NET_VARIABLE)
    net, problem = nnue.load_default()
    assert problem is None and net.sha256 == hashlib.sha256(shipped_bytes()).hexdigest()


def test_an_unreadable_shipped_net_is_named_with_the_reason(tmp_path, monkeypatch):
    """chmod 000 does not stop root, who runs the tests: the OSError ``open`` would raise is
    made by hand."""
    path = tmp_path / "locked.nnue"
    path.write_bytes(shipped_bytes())

    def refused(name, *args, **kwargs):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setenv(nnue.NET_VARIABLE, str(path))
    monkeypatch.setattr("builtins.open", refused)
    net, problem = nnue.load_default()
    assert net is None and problem == "%s: Permission denied" % path


def test_the_evaluation_says_which_net_runs_or_why_none_does(monkeypatch):
    shipped = nnue.net_named("")
    if shipped is not None:
        text = evaluation.describe_evaluation()
        assert text.startswith("NNUE evaluation using pruner.nnue sha256 %s (768->" % shipped.sha256[:12]), text
    classical = evaluation.Evaluator()
    assert classical.describe() == "classical evaluation (no net asked for)"
    monkeypatch.setitem(nnue._shipped, "", (None, "/x/pruner.nnue: checksum mismatch (the file is damaged)"))
    assert classical.describe() == ("classical evaluation, because the shipped net cannot be used: "
                                                "/x/pruner.nnue: checksum mismatch (the file is damaged)")


def test_the_shipped_nets_path_follows_the_variable_and_an_empty_one_leaves_the_package_file(tmp_path, monkeypatch):
    copy = tmp_path / "copy.nnue"
    copy.write_bytes(shipped_bytes())
    monkeypatch.setenv(nnue.NET_VARIABLE, str(copy))
    assert nnue.default_path() == str(copy)
    monkeypatch.setenv(nnue.NET_VARIABLE, "")
    assert nnue.default_path() == nnue.DEFAULT_NET == os.path.join(os.path.dirname(nnue.__file__), "pruner.nnue")
