"""What GUI users expect: Chess960, the engine's own opening book, Syzygy tablebases.

The real process is driven with pexpect (``tests/uci/test_protocol.py``'s ``Uci`` helper); the
option plumbing is also tested in-process on the loop, with fake or real searchers.
"""

import os
import random
import re
import shutil

import chess
import pytest

from pruner.engine.search import Searcher
from pruner.engine.tablebase import Tablebases
from loop_helpers import QUEEN_TAKES_ROOK, WAIT, MockTables, Output, broken_copy, make_loop, run
from paths import SYZYGY
from polyglot_helpers import write_book
from pruner.uci import options as uci_options
from pruner.uci.loop import UciLoop
from pruner.uci.output import Writer
from uci_process import Uci, legal

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

ONLY_CASTLING_960 = "k4r2/8/8/8/8/7p/7P/6KR w H - 0 1"
"""Chess960 (Shredder-FEN): the king on g1 may castle with the h1 rook (g1h1: the king stays,
the rook goes to f1) and has no other legal move."""

START_960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
"""The first position of the Chess960 perft suite, in Shredder-FEN."""

CASTLING = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


@pytest.fixture
def uci(engine_command, repo_root):
    process = Uci(engine_command, repo_root)
    yield process
    process.close()


def debug_fen(uci: Uci, line: str) -> str:
    """Send a ``position`` line (debug is on) and return the FEN the engine reports."""
    uci.send(line)
    return uci.expect(r"info string debug: position ([^\r\n]+)\r?\n").group(1)


# -- Chess960 ---------------------------------------------------------------------------------

def test_chess960_castling_is_king_takes_rook_both_ways(uci):
    uci.handshake()
    uci.send("setoption name UCI_Chess960 value true")
    uci.send("debug on")
    # Shredder-FEN; castling is the only legal move, printed as king takes rook.
    uci.send("position fen %s" % ONLY_CASTLING_960)
    uci.send("go depth 3")
    assert uci.bestmove()[0] == "g1h1"
    # The same position in X-FEN (K = the outermost rook on the king side).
    uci.send("position fen %s" % ONLY_CASTLING_960.replace(" H ", " K "))
    uci.send("go depth 2")
    assert uci.bestmove()[0] == "g1h1"
    # Castling moves in the move list: king takes rook, from a Shredder-FEN start.
    fen = debug_fen(uci, "position fen %s moves g1h1 a8b8" % ONLY_CASTLING_960)
    assert fen.startswith("1k3r2/8/8/8/8/7p/7P/5RK1 w - - ")
    # The standard start position in Chess960 mode: e1h1 castles.
    fen = debug_fen(uci, "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1")
    assert fen.startswith("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b ")
    # Every move of a Chess960 search is legal there (and castling, if played, is king-takes-rook).
    uci.send("position fen %s" % START_960)
    uci.send("go depth 2")
    move, ponder = uci.bestmove()
    board = chess.Board(START_960, chess960=True)
    assert legal(board, move)
    for line in re.findall(r"^info depth .* pv ([^\r\n]+)", uci.transcript.getvalue(), re.M)[-1:]:
        for text in line.split():
            parsed = board.parse_uci(text)
            assert board.uci(parsed) == text  # printed as the board prints it: king takes rook
            board.push(parsed)
    # Back to standard chess: the same move list still works and castling prints e1g1.
    uci.send("setoption name UCI_Chess960 value false")
    fen = debug_fen(uci, "position fen %s moves e1h1" % CASTLING)
    assert fen == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"


def test_chess960_option_reaches_the_board_of_each_go():
    loop, output, holder = make_loop()
    run(loop, "setoption name UCI_Chess960 value true", "position fen %s" % ONLY_CASTLING_960,
        "go depth 1 searchmoves g1h1")
    assert loop.wait_idle(WAIT)
    limits = holder[0].calls[-1][2]
    assert [m.uci() for m in limits.searchmoves] == ["g1h1"]
    assert output.lines[-1] == "bestmove g1h1"
    assert output.count("info string error") == 0
    # The option also applies to a position set before it changed; castling prints as the
    # variant does (the fake searcher plays e1h1 = king takes rook).
    loop, output, holder = make_loop(move="e1h1")
    run(loop, "position fen %s" % CASTLING, "setoption name UCI_Chess960 value true", "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1] == "bestmove e1h1"
    run(loop, "setoption name UCI_Chess960 value false", "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1] == "bestmove e1g1"
    assert output.count("info string error") == 0


# -- OwnBook / BookFile -----------------------------------------------------------------------

@pytest.fixture
def book_path(tmp_path):
    start = chess.Board()
    path = tmp_path / "tiny.bin"
    write_book(path, [(start, chess.Move.from_uci("e2e4"), 1)])
    return str(path)


def test_own_book_move_then_search_out_of_book_and_bad_paths(uci, book_path, tmp_path):
    uci.handshake()
    uci.send("setoption name OwnBook value true")
    uci.send("setoption name BookFile value %s" % book_path)
    uci.send("position startpos")
    uci.send("go wtime 5000 btime 5000")
    uci.expect(r"info string book move e2e4\r?\n")
    assert uci.bestmove() == ("e2e4", None)
    uci.send("position startpos moves e2e4")  # out of book: a real search
    uci.send("go depth 2")
    uci.expect(r"info depth 2 ")
    assert legal(chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"), uci.bestmove()[0])
    # A bad path is refused and the book already loaded stays.
    uci.send("setoption name BookFile value %s" % (tmp_path / "missing.bin"))
    uci.error("BookFile")
    (tmp_path / "odd.bin").write_bytes(b"12345")
    uci.send("setoption name BookFile value %s" % (tmp_path / "odd.bin"))
    uci.error("not a Polyglot book")
    uci.send("position startpos")
    uci.send("go movetime 5000")
    assert uci.bestmove() == ("e2e4", None)
    # Analysis never plays from the book; neither do searchmoves.
    uci.send("go infinite")
    uci.expect(r"info depth 1 ")
    uci.send("stop")
    uci.bestmove()
    uci.send("go depth 1 searchmoves d2d4")
    assert uci.bestmove()[0] == "d2d4"
    uci.send("setoption name OwnBook value false")
    uci.send("go depth 1")
    uci.expect(r"info depth 1 ")
    uci.bestmove()
    assert "book move" not in uci.sync()
    assert uci.count_bestmoves() == uci.gos


def test_book_choice_is_weighted_and_reproducible_with_a_seed(tmp_path):
    start = chess.Board()
    path = tmp_path / "two.bin"
    write_book(path, [(start, chess.Move.from_uci("e2e4"), 3), (start, chess.Move.from_uci("d2d4"), 1)])

    def picks(seed):
        loop, output, holder = make_loop()
        loop.state.rng = random.Random(seed)
        run(loop, "setoption name OwnBook value true", "setoption name BookFile value %s" % path)
        for _ in range(40):
            run(loop, "go wtime 1000 btime 1000")
        return [line.split()[1] for line in output.with_prefix("bestmove")], holder

    first, holder = picks(7)
    assert first == picks(7)[0] and set(first) == {"e2e4", "d2d4"}
    assert holder == []  # no search ever ran: every move came from the book


def test_book_file_empty_value_unloads_the_book(book_path):
    loop, output, _ = make_loop()
    run(loop, "setoption name OwnBook value true", "setoption name BookFile value %s" % book_path)
    assert loop.state.options.loaded("BookFile") is not None
    run(loop, "setoption name BookFile value <empty>", "go depth 1")
    assert loop.wait_idle(WAIT)
    assert loop.state.options.loaded("BookFile") is None and loop.state.options["BookFile"] == ""
    assert output.count("info string book") == 0 and output.count("bestmove") == 1


# -- SyzygyPath -------------------------------------------------------------------------------

def fake_syzygy_dir(tmp_path):
    """A directory with the real KQvK tables only (tests/data/syzygy)."""
    directory = tmp_path / "syzygy"
    directory.mkdir()
    for suffix in (".rtbw", ".rtbz"):
        shutil.copy(os.path.join(SYZYGY, "KQvK" + suffix), str(directory))
    return directory


def test_syzygy_path_loads_applies_refuses_and_unloads(tmp_path):
    loop, output, holder = make_loop(block=True)
    directory = fake_syzygy_dir(tmp_path)
    run(loop, "setoption name SyzygyPath value %s" % directory, "isready")
    # What was found, in Stockfish 17's words (a GUI's log shows it)
    assert output.lines == ["info string Found 1 WDL and 1 DTZ tablebase files (up to 3-man).", "readyok"]
    searcher = holder[0]
    assert isinstance(searcher.tablebases, Tablebases) and searcher.tablebases.max_pieces == 3
    tables = searcher.tablebases
    for bad in (tmp_path / "nowhere", tmp_path):  # missing directory; a directory without tables
        before = len(output.lines)
        run(loop, "setoption name SyzygyPath value %s" % bad)
        assert len(output.lines) == before + 1  # the error alone, no count
        assert "SyzygyPath" in output.lines[-1] and output.lines[-1].startswith("info string error: ")
    assert loop.state.options["SyzygyPath"] == str(directory) and searcher.tablebases is tables
    # Changed during a search: applied when it ends.
    run(loop, "go infinite")
    assert searcher.searching.wait(WAIT)
    before = len(output.lines)
    run(loop, "setoption name SyzygyPath value <empty>")
    assert len(output.lines) == before  # no tables, nothing to count (as Stockfish)
    assert searcher.tablebases is tables
    run(loop, "stop")
    assert loop.wait_idle(WAIT)
    assert searcher.tablebases is None


def test_syzygy_path_list_separator(tmp_path):
    directory = fake_syzygy_dir(tmp_path)
    tables = Tablebases.open(os.pathsep.join([str(directory), str(tmp_path)]))
    assert tables.max_pieces == 3
    assert tables.file_counts() == (1, 1)
    tables.close()
    # The same table in two directories is one table (the later file is used), counted once.
    tables = Tablebases.open(os.pathsep.join([str(directory), SYZYGY]))
    assert tables.file_counts() == (5, 5) and tables.max_pieces == 4
    assert uci_options.tablebases_found(tables) == "Found 5 WDL and 5 DTZ tablebase files (up to 4-man)."
    tables.close()
    assert uci_options.tablebases_found(None) is None


def test_uci_reports_the_unreadable_table_once_and_still_takes_the_rook(tmp_path):
    directory = broken_copy(tmp_path, "KQvK.rtbw", random.Random(3).randbytes(1000))
    output = Output()
    loop = UciLoop(Writer(output.write), lambda hash_mb: Searcher(hash_mb))
    run(loop, "setoption name SyzygyPath value %s" % directory, "isready")
    errors = [line for line in output.lines if line.startswith("info string error:")]
    assert len(errors) == 1 and "KQvK.rtbw" in errors[0]
    # the count leaves the unreadable file out (tests/data/syzygy holds 5 of each)
    assert output.lines[1] == "info string Found 4 WDL and 5 DTZ tablebase files (up to 4-man)."
    run(loop, "position fen %s" % QUEEN_TAKES_ROOK[0], "go depth 3")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove b1d3")
    assert len([line for line in output.lines if line.startswith("info string error:")]) == 1


def test_tbhits_reach_the_info_line():
    output = Output()
    searchers = []
    loop = UciLoop(Writer(output.write), lambda hash_mb: searchers.append(Searcher(hash_mb)) or searchers[0])
    run(loop, "isready")
    searchers[0].tablebases = Tablebases(MockTables(), max_pieces=3)  # what SyzygyPath sets
    run(loop, "position fen 8/8/8/4k3/8/3r4/8/KQ6 w - - 0 1", "go depth 3")
    assert loop.wait_idle(WAIT)
    last = output.with_prefix("info depth 3 ")[-1]
    assert int(re.search(r" tbhits (\d+) ", last).group(1)) > 0
    assert output.lines[-1].startswith("bestmove b1d3")
