"""``EvalFile`` through the real process (issue 52, step 5: a user's own net): a net file of
Pruner's format is loaded at ``setoption``, named in the words of the start-up line, and the
search evaluates with it (its node counts are those of a searcher made with that net in this
process); ``classical`` is the classical evaluation, ``<empty>`` the shipped net again; a file
that is no usable net is refused with ``info string error`` naming the file and the reason and
the old net stays; with ``Threads`` 2 the engine searches with the net. Waits are ``expect``s."""

import hashlib
import re
import struct

import chess
import pytest

from pruner.engine import nnue
from pruner.engine.search import Searcher, SearchParams
from pruner.engine.types import Limits
from net_helpers import damaged_copies, random_net, shipped_bytes
from uci_process import Uci, legal

DEPTH = 3
SHIPPED = "NNUE evaluation using pruner.nnue sha256 %s (768->64x2->1, added to the classical evaluation)" \
    % hashlib.sha256(shipped_bytes()).hexdigest()[:12]
CLASSICAL = "classical evaluation (no net asked for)"


@pytest.fixture
def uci(uci_after_handshake):
    return uci_after_handshake


@pytest.fixture
def net_file(tmp_path):
    """A net of random weights, written as the trainer writes a net (``Net.to_bytes``)."""
    path = tmp_path / "mine.nnue"
    data = random_net(52, hidden=16).to_bytes()
    path.write_bytes(data)
    return str(path), "NNUE evaluation using mine.nnue sha256 %s (768->16x2->1, added to the classical " \
                      "evaluation)" % hashlib.sha256(data).hexdigest()[:12]


def set_option(uci: Uci, name: str, value: str) -> str:
    """``setoption`` then the ``isready`` fence: everything printed in between."""
    uci.send("setoption name %s value %s" % (name, value))
    return uci.sync()


def searched_nodes(uci: Uci, depth: int = DEPTH) -> int:
    """The node count of a ``go depth`` from the start position after ``ucinewgame`` (an empty
    table and history: the same count as a new searcher's), checking the move is legal."""
    uci.send("ucinewgame")
    uci.send("position startpos")
    uci.send("go depth %d" % depth)
    move, _ = uci.bestmove()
    assert legal(chess.Board(), move)
    counts = re.findall(r"info depth %d .*?\bnodes (\d+)" % depth, uci.child.before)
    assert counts, uci.child.before
    return int(counts[-1])


def nodes_with(evalfile: str, depth: int = DEPTH) -> int:
    """The nodes a searcher made with ``evalfile`` searches from the start position, in this process."""
    return Searcher(16, SearchParams(evalfile=evalfile)).search(chess.Board(), Limits(depth=depth)).nodes


def eval_nnue_line(uci: Uci) -> str:
    """The NNUE line of the ``eval`` command."""
    uci.send("eval")
    uci.expect(r"Final evaluation[^\r\n]*\r?\n")
    lines = [line for line in uci.child.before.splitlines() if line.startswith("NNUE ")]
    assert len(lines) == 1, uci.child.before
    return lines[0]


def test_a_net_file_is_named_searched_with_and_replaced_by_classical_and_the_shipped_one(uci, net_file):
    path, named = net_file
    shipped = searched_nodes(uci)
    assert shipped == nodes_with("")
    assert set_option(uci, "EvalFile", path).splitlines() == ["info string " + named]
    mine = searched_nodes(uci)
    assert mine == nodes_with(path) and mine != shipped
    assert eval_nnue_line(uci).endswith(named[len("NNUE evaluation using "):])
    assert "info string " + named in uci.handshake()  # uci names the evaluation in use

    assert set_option(uci, "EvalFile", "classical").splitlines() == ["info string " + CLASSICAL]
    classical = searched_nodes(uci)
    assert classical == nodes_with("classical") and classical not in (shipped, mine)
    assert eval_nnue_line(uci) == "NNUE                   none: " + CLASSICAL

    assert set_option(uci, "EvalFile", "<empty>").splitlines() == ["info string " + SHIPPED]
    assert searched_nodes(uci) == shipped


def test_a_net_set_before_the_first_isready_and_one_set_during_a_search_are_searched_with(uci, net_file):
    path, named = net_file
    uci.send("setoption name EvalFile value classical")  # no searcher yet: made with it
    assert searched_nodes(uci) == nodes_with("classical")
    uci.send("position startpos")
    uci.send("go infinite")
    uci.expect(r"info depth 1 ")
    uci.send("setoption name EvalFile value %s" % path)  # applied after this search's bestmove
    uci.expect("info string " + re.escape(named))
    uci.send("stop")
    uci.bestmove()
    assert searched_nodes(uci) == nodes_with(path)


def bad_files(folder):
    """{kind: (path, reason)}: the damaged copies of issue 51 and a header of another version."""
    files = damaged_copies(folder)
    newer = bytearray(shipped_bytes())
    struct.pack_into("<H", newer, 8, nnue.FORMAT_VERSION + 1)
    (folder / "newer.nnue").write_bytes(bytes(newer))
    files["wrong header"] = (str(folder / "newer.nnue"), "format version %d, this engine reads %d"
                             % (nnue.FORMAT_VERSION + 1, nnue.FORMAT_VERSION))
    return files


def test_a_file_that_is_no_usable_net_is_refused_with_its_reason_and_the_old_net_stays(uci, net_file, tmp_path):
    path, named = net_file
    set_option(uci, "EvalFile", path)
    mine = nodes_with(path)
    for kind, (bad, reason) in bad_files(tmp_path).items():
        printed = set_option(uci, "EvalFile", bad)
        errors = [line for line in printed.splitlines() if line.startswith("info string error: ")]
        assert len(errors) == 1, (kind, printed)
        assert errors[0].startswith("info string error: option EvalFile: cannot load %r: " % bad), (kind, printed)
        assert reason in errors[0], (kind, printed)
        assert "NNUE evaluation" not in printed, (kind, printed)
        assert searched_nodes(uci, DEPTH) == mine, kind  # the old net stays
    assert eval_nnue_line(uci).endswith(named[len("NNUE evaluation using "):])


def test_the_net_is_searched_with_by_two_threads(uci, net_file):
    path, named = net_file
    assert "error" not in set_option(uci, "Threads", "2")
    assert set_option(uci, "EvalFile", path).splitlines() == ["info string " + named]
    uci.send("position startpos moves e2e4")
    uci.send("go depth 4")
    move, _ = uci.bestmove()
    assert legal("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", move)
    assert "error" not in uci.sync()
