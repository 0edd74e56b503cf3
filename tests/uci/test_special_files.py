"""Books and tables that are not what they claim, through the real process (pexpect): FIFOs,
devices, directories, huge sparse files and files changed on disk while the engine has them
mapped. Each is refused or left out with an ``info string error`` naming the file and the
reason, the engine keeps answering (``readyok``, a legal ``bestmove``), and an option keeps its
last valid value. Waits are ``expect``s; no sleeps."""

import os
import random
import re
import shutil

import chess
import pytest

from paths import SYZYGY
from polyglot_helpers import write_book
from uci_process import Uci, legal

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and sparse files")

QUEEN_TAKES_ROOK = "8/8/8/4k3/8/3r4/8/KQ6 w - - 0 1"
"""KQvKR with the rook en prise: the root is in the tables, its moves are ranked by DTZ."""


@pytest.fixture
def uci(uci_after_handshake):
    return uci_after_handshake


@pytest.fixture
def book(tmp_path):
    """A one-move book (1. e4) loaded by the tests first: the value a refused path must keep."""
    path = tmp_path / "good.bin"
    write_book(path, [(chess.Board(), chess.Move.from_uci("e2e4"), 1)])
    return str(path)


def set_option(uci: Uci, name: str, value: str) -> str:
    """``setoption`` then the ``isready`` fence: everything printed in between."""
    uci.send("setoption name %s value %s" % (name, value))
    return uci.sync()


def plays_from_book(uci: Uci) -> None:
    uci.send("position startpos")
    uci.send("go wtime 5000 btime 5000")
    uci.expect(r"info string book move e2e4\r?\n")
    assert uci.bestmove() == ("e2e4", None)


def fifo(tmp_path, name: str = "book.bin") -> str:
    path = str(tmp_path / name)
    os.mkfifo(path)
    return path


def sparse(tmp_path, size: int, name: str = "sparse.bin") -> str:
    path = str(tmp_path / name)
    with open(path, "wb") as handle:
        handle.truncate(size)  # no data written: a hole, as `truncate -s` makes
    return path


def odd_size(tmp_path) -> str:
    path = tmp_path / "odd.bin"
    path.write_bytes(b"\x01" * 1000)
    return str(path)


def random_bytes(tmp_path) -> str:
    # Seeded, so the reason is the same on every run: with os.urandom about one run in 38
    # (20,000 simulated books) met an entry whose from-square equals its to-square before keys
    # out of order, and the test asserting the order failed CI once.
    path = tmp_path / "random.bin"
    path.write_bytes(random.Random(44).randbytes(16 * 4096))
    return str(path)


# (make the path, what the error says). The FIFO made the engine wait for a writer for ever;
# devices, sparse files and random bytes were accepted as books.
BAD_BOOKS = {
    "fifo": (fifo, "not a regular file (a FIFO)"),
    "dev-zero": (lambda tmp_path: "/dev/zero", "not a regular file (a character device)"),
    "dev-urandom": (lambda tmp_path: "/dev/urandom", "not a regular file (a character device)"),
    "directory": (lambda tmp_path: str(tmp_path), "not a regular file (a directory)"),
    "sparse-20GB": (lambda tmp_path: sparse(tmp_path, 20 << 30), "21.5 GB; at most 4 GB is accepted"),
    "sparse-1MB": (lambda tmp_path: sparse(tmp_path, 1 << 20), "entry 0 holds no move"),
    "size-not-16n": (odd_size, "1000 bytes, not a multiple of 16"),
    "random-bytes": (random_bytes, "keys not in ascending order"),
}


@pytest.mark.parametrize("case", list(BAD_BOOKS))
def test_a_book_that_is_no_regular_polyglot_file_is_refused_and_the_old_book_stays(uci, book, tmp_path, case):
    make, reason = BAD_BOOKS[case]
    path = make(tmp_path)
    if not os.path.exists(path):
        pytest.skip("%s is missing here" % path)
    assert "error" not in set_option(uci, "BookFile", book)
    uci.send("setoption name OwnBook value true")
    printed = set_option(uci, "BookFile", path)  # readyok comes: nothing blocks
    assert "info string error: option BookFile: cannot load %r: " % path in printed, printed
    assert reason in printed, printed
    plays_from_book(uci)  # the last valid value stands


def test_a_book_truncated_between_moves_is_left_out_and_the_engine_searches(uci, tmp_path):
    # The book is mapped: a truncated mapped file read past its end is SIGBUS (the engine died).
    path = tmp_path / "big.bin"
    ending = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    write_book(path, [(chess.Board(), chess.Move.from_uci("e2e4"), 1)]
               + [(ending, chess.Move.from_uci("b1b2"), 1)] * 600)
    assert os.path.getsize(path) > 2 * 4096  # pages past the first, whatever the page size
    set_option(uci, "BookFile", str(path))
    uci.send("setoption name OwnBook value true")
    plays_from_book(uci)
    os.truncate(path, 0)
    uci.send("position startpos")
    uci.send("go depth 2")
    message = uci.error("book %s left out: changed on disk since it was loaded (0 bytes, was" % path)
    assert legal(chess.Board(), uci.bestmove()[0])
    assert "book move" not in uci.child.before
    uci.send("go depth 1")  # said once; the engine keeps searching without it
    uci.bestmove()
    assert "error" not in uci.sync(), message


# -- Syzygy tables ------------------------------------------------------------------------------

def probed(printed: str) -> bool:
    """The last iteration's ``info`` line counts tablebase hits."""
    hits = re.findall(r"info depth \d+ .*? tbhits (\d+) ", printed)
    return bool(hits) and int(hits[-1]) > 0


def tables_copy(tmp_path):
    directory = tmp_path / "syzygy"
    shutil.copytree(SYZYGY, str(directory))
    return directory


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_syzygy_name_on_a_fifo_or_directory_is_never_opened_and_is_named(uci, tmp_path, kind):
    # Stockfish 15.1 waits for ever on such a FIFO (no readyok) and exits on such a directory
    # at the first probe; python-chess skipped them without a word.
    directory = tables_copy(tmp_path)
    (directory / "KQvK.rtbw").unlink()
    if kind == "fifo":
        fifo(directory, "KQvK.rtbw")
    else:
        (directory / "KQvK.rtbw").mkdir()
    printed = set_option(uci, "SyzygyPath", str(directory))
    what = "a FIFO" if kind == "fifo" else "a directory"
    assert "info string error: Syzygy table KQvK.rtbw left out: not a regular file (%s)" % what in printed, printed
    assert printed.count("info string error") == 1
    uci.send("position fen " + QUEEN_TAKES_ROOK)  # the other tables are in use
    uci.send("go depth 3")
    assert uci.bestmove()[0] == "b1d3"
    assert probed(uci.child.before)


def test_a_syzygy_path_of_only_a_fifo_is_refused_and_the_old_tables_stay(uci, tmp_path):
    good = tables_copy(tmp_path)
    assert "error" not in set_option(uci, "SyzygyPath", str(good))
    bad = tmp_path / "only-fifo"
    bad.mkdir()
    fifo(bad, "KQvK.rtbw")
    printed = set_option(uci, "SyzygyPath", str(bad))
    assert "info string error: option SyzygyPath: cannot load" in printed
    assert "KQvK.rtbw left out: not a regular file (a FIFO)" in printed, printed
    uci.send("position fen " + QUEEN_TAKES_ROOK)
    uci.send("go depth 3")
    uci.bestmove()
    assert probed(uci.child.before)  # the first directory's tables answer


def test_a_table_truncated_between_searches_is_left_out_without_killing_the_engine(uci, tmp_path):
    # Stockfish 15.1 dies of SIGBUS here (exit -7), as Pruner did: the first search maps the DTZ
    # table, and its pages are gone after the truncation. Now each probe first checks the file.
    directory = tables_copy(tmp_path)
    set_option(uci, "SyzygyPath", str(directory))
    uci.send("position fen " + QUEEN_TAKES_ROOK)
    uci.send("go depth 3")
    assert uci.bestmove()[0] == "b1d3"
    assert os.path.getsize(directory / "KQvKR.rtbz") > 2 * 4096
    os.truncate(directory / "KQvKR.rtbz", 0)
    uci.send("go depth 3")
    uci.error("Syzygy table KQvKR.rtbz left out: changed on disk since it was loaded (0 bytes, was")
    assert uci.bestmove()[0] == "b1d3"
    uci.send("go depth 3")  # reported once, the rest of the tables still used
    assert uci.bestmove()[0] == "b1d3"
    assert "error" not in uci.sync()
