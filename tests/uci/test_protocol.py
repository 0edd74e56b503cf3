"""The UCI server as a GUI sees it: the real ``python -m pruner`` process driven with pexpect.

Most tests talk through pipes (``PopenSpawn``), as GUIs do: a pipe passes any byte and any
line length, where a pty would turn ^C into a signal and cap lines at 4 kB. One test uses a
pty (``pexpect.spawn``) to show the engine also works on a terminal.

No sleeps: every wait is an ``expect`` with a timeout; the only expected TIMEOUTs are the
checks that ``go infinite``/``go ponder`` hold their ``bestmove``.
"""

import os
import platform
import re
import subprocess
import sys
import time

import chess
import pexpect
import pexpect.popen_spawn
import pytest

from pruner import engine
from pruner.engine.strength import UCI_ELO
from uci_process import BESTMOVE, Uci, legal

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
MATE_IN_TWO = "k7/8/1K6/8/8/8/8/1Q6 w - - 0 1"
CHECKMATED = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
STALEMATED = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
CASTLING = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
AFTER_WHITE_SHORT_CASTLING = "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"

OPTION_LINES = [
    "option name Hash type spin default 16 min 1 max 4096",
    "option name Clear Hash type button",
    "option name Threads type spin default 1 min 1 max 1024",
    "option name Move Overhead type spin default 10 min 0 max 5000",
    "option name Ponder type check default false",
    "option name MultiPV type spin default 1 min 1 max 256",
    "option name Skill Level type spin default 20 min 0 max 20",
    "option name UCI_AnalyseMode type check default false",
    "option name UCI_Chess960 type check default false",
    "option name OwnBook type check default false",
    "option name BookFile type string default <empty>",
    "option name SyzygyPath type string default <empty>",
    "option name EvalFile type string default <empty>",
    "option name UCI_LimitStrength type check default false",
    # the range and default come from the calibration (engine/strength.py), re-made by scripts/calibrate.py
    "option name UCI_Elo type spin default %d min %d max %d" % (UCI_ELO.default_elo, UCI_ELO.min_elo,
                                                                 UCI_ELO.max_elo),
    "option name Human Time type check default true",
    "option name UCI_ShowWDL type check default false",
]


@pytest.fixture
def uci(engine_command, repo_root):
    process = Uci(engine_command, repo_root)
    yield process
    process.close()


def after(*moves: str) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board


# -- handshake, isready, debug, register ------------------------------------------------------

def test_uci_handshake_lists_id_and_every_option(uci):
    lines = [line.strip() for line in uci.handshake().splitlines() if line.strip()]
    assert lines[0] == "id name Pruner %s" % engine.__version__
    assert lines[1] == "id author The Pruner developers"
    assert lines[2] == "info string Pruner runs on %s %s (%s)" % (
        platform.python_implementation(), platform.python_version(),
        "started on PyPy" if platform.python_implementation() == "PyPy" else "python -m pruner: no switch")
    assert lines[3].startswith("info string NNUE evaluation using pruner.nnue sha256 ")  # tests/uci/test_net_state.py
    assert lines[4:] == OPTION_LINES
    uci.send("quit")
    assert uci.exit_status() == 0


def test_isready_and_repeated_uci(uci):
    uci.handshake()
    assert uci.sync().strip() == ""
    uci.handshake()  # a second uci is answered again
    uci.send("register later")  # accepted quietly
    uci.send("register name Someone code 1234")
    assert uci.sync().strip() == ""


@pytest.mark.clock  # asserts on wall time: run alone (scripts/run_tests.sh)
def test_isready_is_answered_during_go_infinite_and_bestmove_waits_for_stop(uci):
    uci.handshake()
    uci.send("position startpos")
    uci.send("go infinite")
    uci.expect(r"info depth 2 ")
    before = uci.sync()
    assert "bestmove" not in before
    uci.no_bestmove_for()
    start = time.monotonic()
    uci.send("stop")
    move, _ = uci.bestmove(timeout=10)
    assert time.monotonic() - start < 2.0
    assert legal(chess.Board(), move)
    assert "info depth" in uci.child.before  # the final info line comes before bestmove


def test_debug_on_reports_and_debug_off_silences(uci):
    uci.send("debug on")
    uci.send("position startpos moves e2e4")
    uci.expect(r"info string debug: position rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    uci.send("debug off")
    uci.send("position startpos")
    assert "debug" not in uci.sync()
    uci.send("joho debug on")  # the UCI spec: skip the unknown token, run the rest
    uci.error("joho")
    uci.send("position startpos moves d2d4")
    uci.expect(r"info string debug: position ")


def test_works_on_a_terminal(engine_command, repo_root):
    child = pexpect.spawn(engine_command[0], engine_command[1:], cwd=repo_root, encoding="utf-8", echo=False, timeout=20)
    try:
        child.sendline("uci")
        child.expect("uciok")
        child.sendline("go depth 2")
        child.expect(BESTMOVE)
        assert legal(chess.Board(), child.match.group(1))
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        if child.isalive():
            child.terminate(force=True)


# -- setoption --------------------------------------------------------------------------------

def multipv_lines(uci: Uci, depth: int = 1):
    """``go depth N``: the multipv indexes printed for the last depth, and the bestmove."""
    uci.send("go depth %d" % depth)
    move, _ = uci.bestmove()
    ranks = re.findall(r"info depth %d .*?multipv (\d+) " % depth, uci.child.before)
    return sorted(set(int(rank) for rank in ranks)), move


def test_setoption_multipv_case_insensitive_and_bad_values_keep_the_old_value(uci):
    uci.handshake()
    uci.send("setoption name multipv value 3")
    assert multipv_lines(uci)[0] == [1, 2, 3]
    for bad, fragment in [("banana", "not an integer"), ("0", "out of range"), ("257", "out of range"),
                          ("", "needs a value")]:
        uci.send(("setoption name MultiPV value %s" % bad).rstrip())
        uci.error(fragment)
    uci.send("setoption name MultiPV")
    uci.error("needs a value")
    assert multipv_lines(uci)[0] == [1, 2, 3]
    uci.send("setoption name MULTIPV value 1")
    assert multipv_lines(uci)[0] == [1]


def test_setoption_names_with_spaces_buttons_checks_and_hash(uci):
    uci.handshake()
    uci.send("debug on")
    uci.send("setoption name Move Overhead value 50")
    uci.expect(r"option Move Overhead = 50")
    uci.send("setoption name   move   overhead   value 60")
    uci.expect(r"option Move Overhead = 60")
    uci.send("setoption name Clear Hash")
    uci.expect(r"option Clear Hash = \(pressed\)")
    uci.send("setoption name Ponder value TRUE")
    uci.expect(r"option Ponder = True")
    uci.send("setoption name UCI_AnalyseMode value true")
    uci.expect(r"option UCI_AnalyseMode = True")
    uci.send("setoption name Hash value 32")
    uci.expect(r"option Hash = 32")
    uci.send("setoption name Hash value banana")
    uci.error("not an integer")
    uci.send("setoption name Hash value 0")
    uci.error("out of range")
    uci.send("setoption name Ponder value maybe")
    uci.error("true or false")
    uci.send("setoption name No Such Thing value 3")
    uci.error("no such option")
    uci.send("setoption Hash 64")
    uci.error("expected 'name'")
    uci.send("setoption name")
    uci.error("missing option name")
    uci.send("go depth 1")
    uci.expect(r"options Hash=32 Threads=1 Move_Overhead=60 Ponder=True MultiPV=1 Skill_Level=20 UCI_AnalyseMode=True")
    uci.bestmove()


# -- position ---------------------------------------------------------------------------------

def test_position_variants(uci):
    uci.handshake()
    uci.send("debug on")
    cases = [
        ("position startpos", chess.STARTING_FEN),
        ("position startpos moves", chess.STARTING_FEN),
        ("position startpos moves e2e4 e7e5 g1f3", after("e2e4", "e7e5", "g1f3").fen()),
        ("position fen %s" % MATE_IN_ONE, MATE_IN_ONE),
        ("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w", MATE_IN_ONE),  # short FEN: the rest defaults
        ("position fen %s moves a1a2 g8h8" % MATE_IN_ONE, "7k/5ppp/8/8/8/8/R7/6K1 w - - 2 2"),
        ("position fen %s moves e1g1" % CASTLING, AFTER_WHITE_SHORT_CASTLING),
        ("position fen %s moves e1h1" % CASTLING, AFTER_WHITE_SHORT_CASTLING),  # king takes rook
        ("position fen %s moves e1a1 e8h8" % CASTLING, "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2"),
        ("position \t startpos   moves  e2e4\r", after("e2e4").fen()),
    ]
    for line, fen in cases:
        uci.send(line)
        uci.expect(r"info string debug: position " + re.escape(fen) + r"\r?\n")
    uci.send("position fen %s moves e1h1" % CASTLING)
    uci.send("go depth 1")
    move, _ = uci.bestmove()
    assert legal(AFTER_WHITE_SHORT_CASTLING, move)


def test_rejected_position_is_never_searched(uci):
    # A refused position leaves no position to search: go answers 0000 (and says why) until
    # a valid position comes; it used to search the previous position, whose move is
    # illegal in the position the GUI has.
    uci.handshake()
    old = after("e2e4")
    uci.send("position startpos moves e2e4")
    for line, fragment in [
        ("position startpos moves d2d4 d7d5 e1e8", "illegal move 'e1e8' at ply 3"),
        ("position startpos moves d2d4 0000", "illegal move '0000'"),
        ("position startpos moves e2e4 e7e5 e1g1", "illegal move 'e1g1'"),
        ("position startpos moves e2e4 banana", "illegal move 'banana'"),
        ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "invalid FEN"),
        ("position fen not a fen at all moves e2e4", "invalid FEN"),
        ("position fen 8/8/8/8/8/8/8/8 w - - 0 1", "impossible position"),
        ("position fen 4k3/8/8/8/8/8/8/4K2q b - - 0 1", "impossible position"),  # opposite check
        ("position fen", "missing FEN"),
        ("position fen moves e2e4", "missing FEN"),
        ("position startpos e2e4", "expected moves"),
        ("position", "expected startpos or fen"),
        ("position midgame", "expected startpos or fen"),
    ]:
        uci.send(line)
        uci.error(fragment)
        uci.send("go depth 1")
        uci.error("the last position command was refused")
        assert uci.bestmove()[0] == "0000", line
    uci.send("position startpos moves e2e4")
    uci.send("go depth 1")
    assert legal(old, uci.bestmove()[0])


# -- go parameters ----------------------------------------------------------------------------

def test_go_with_each_parameter(uci):
    uci.handshake()
    uci.send("position startpos")
    uci.send("go depth 2")
    assert legal(chess.Board(), uci.bestmove()[0])
    assert re.search(r"info depth 2 seldepth \d+ multipv 1 score cp -?\d+ nodes \d+ nps \d+ hashfull \d+ tbhits 0 "
                     r"time \d+ pv", uci.child.before)
    uci.send("go nodes 300")
    assert legal(chess.Board(), uci.bestmove()[0])
    uci.send("go movetime 200")
    assert legal(chess.Board(), uci.bestmove()[0])
    uci.send("go wtime 3000 btime 3000 winc 20 binc 20 movestogo 10")
    assert legal(chess.Board(), uci.bestmove()[0])
    uci.send("go movestogo 1 binc 0 winc 0 btime 900 wtime 900")  # any order
    assert legal(chess.Board(), uci.bestmove()[0])
    uci.send("position startpos moves e2e4")
    uci.send("go wtime 100")  # only the other side's clock: black plays at once (Stockfish: btime 0)
    assert legal(after("e2e4"), uci.bestmove()[0])
    uci.send("go btime 100 wtime -500")  # an overstepped clock can be negative
    assert legal(after("e2e4"), uci.bestmove()[0])
    uci.send("position startpos")
    uci.send("go searchmoves a2a3 h2h3 depth 3")
    assert uci.bestmove()[0] in ("a2a3", "h2h3")
    uci.send("go depth 2 searchmoves e2e5 a2a3")
    uci.error("illegal move 'e2e5'")
    assert uci.bestmove()[0] == "a2a3"
    uci.send("position fen %s" % MATE_IN_TWO)
    uci.send("go mate 2")
    move, _ = uci.bestmove()
    assert "score mate 2 " in uci.child.before
    assert legal(MATE_IN_TWO, move)
    assert uci.sync().count("bestmove") == 0
    assert uci.count_bestmoves() == uci.gos


def test_bare_go_searches_until_stop(uci):
    uci.send("position startpos")
    uci.send("go")
    uci.expect(r"info depth 1 ")
    uci.send("stop")
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])


def test_go_infinite_holds_bestmove_even_after_mate_and_max_depth(uci):
    uci.send("position fen %s" % MATE_IN_ONE)
    uci.send("go infinite")
    uci.expect(r"score mate 1 ")
    uci.no_bestmove_for()
    uci.send("stop")
    assert uci.bestmove(timeout=10)[0] == "a1a8"


def test_ponder_then_ponderhit_continues_as_a_timed_search(uci):
    uci.handshake()
    uci.send("setoption name Ponder value true")
    uci.send("position startpos moves e2e4 e7e5")
    uci.send("go ponder wtime 2000 btime 2000 winc 10 binc 10")
    uci.expect(r"info depth 1 ")
    uci.no_bestmove_for()
    uci.send("ponderhit")
    move, ponder = uci.bestmove(timeout=10)
    board = after("e2e4", "e7e5")
    assert legal(board, move)
    if ponder is not None:
        board.push_uci(move)
        assert legal(board, ponder)
    assert uci.sync().count("bestmove") == 0


def test_ponder_finished_before_ponderhit_answers_at_once_and_stop_ends_pondering(uci):
    uci.send("position fen %s" % MATE_IN_ONE)
    uci.send("go ponder wtime 1000 btime 1000")
    uci.expect(r"score mate 1 ")
    uci.no_bestmove_for()
    uci.send("ponderhit")
    assert uci.bestmove(timeout=10)[0] == "a1a8"
    uci.send("position startpos")
    uci.send("go ponder wtime 1000 btime 1000")
    uci.expect(r"info depth 1 ")
    uci.send("stop")  # the opponent played another move
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    uci.send("ponderhit")  # too late: ignored
    assert uci.sync().count("bestmove") == 0


def test_ponder_miss_stop_then_search_the_position_actually_played(uci):
    """The GUI pondered on the expected reply, the opponent played another move: ``stop``
    (its bestmove is discarded by the GUI), then the real position and a normal ``go``."""
    uci.handshake()
    uci.send("setoption name Ponder value true")
    uci.send("position startpos moves e2e4 e7e5 g1f3 b8c6")  # pondering on ...Nc6
    uci.send("go ponder wtime 3000 btime 3000 winc 10 binc 10")
    uci.expect(r"info depth 1 ")
    uci.no_bestmove_for(0.3)
    uci.send("stop")  # the opponent played ...Nf6 instead
    assert legal(after("e2e4", "e7e5", "g1f3", "b8c6"), uci.bestmove(timeout=10)[0])
    uci.send("position startpos moves e2e4 e7e5 g1f3 g8f6")
    uci.send("go wtime 3000 btime 3000 winc 10 binc 10")
    move, ponder = uci.bestmove(timeout=15)
    board = after("e2e4", "e7e5", "g1f3", "g8f6")
    assert legal(board, move)
    if ponder is not None:
        board.push_uci(move)
        assert legal(board, ponder)
    uci.send("ponderhit")  # stale: no search is pondering
    assert uci.sync().count("bestmove") == 0
    assert uci.count_bestmoves() == uci.gos == 2


# -- stop, go while searching, exactly one bestmove -------------------------------------------

def test_stop_when_idle_prints_nothing(uci):
    uci.send("stop")
    uci.send("ponderhit")
    assert uci.sync().strip() == ""
    uci.send("go depth 1")
    uci.bestmove()
    uci.send("stop")
    assert uci.sync().strip() == ""


def test_stop_right_after_go_gives_one_legal_bestmove(uci):
    for _ in range(5):
        uci.send("go infinite")
        uci.send("stop")
        assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    uci.send("go depth 30\nstop")  # one write: both lines arrive together
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    uci.sync()
    assert uci.count_bestmoves() == uci.gos


def test_go_while_searching_stops_the_running_search_first(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    uci.expect(r"info depth 1 ")
    uci.send("position startpos moves e2e4")
    uci.send("go depth 1")
    first, _ = uci.bestmove(timeout=10)
    second, _ = uci.bestmove(timeout=10)
    assert legal(chess.Board(), first)  # the running search kept its own position
    assert legal(after("e2e4"), second)
    assert uci.sync().count("bestmove") == 0
    assert uci.count_bestmoves() == uci.gos == 2


def test_commands_during_a_search_do_not_disturb_it(uci):
    uci.handshake()
    uci.send("debug on")
    uci.send("position startpos")
    uci.send("go infinite")
    uci.expect(r"info depth 1 ")
    uci.send("ucinewgame")
    uci.expect("ucinewgame: applied when the search ends")
    uci.send("setoption name Hash value 8")
    uci.expect("setoption Hash: applied when the search ends")
    uci.send("setoption name Clear Hash")
    uci.send("position fen %s" % MATE_IN_ONE)
    uci.sync()
    uci.send("stop")
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    uci.send("go depth 2")
    assert uci.bestmove()[0] == "a1a8"
    assert "Hash=8 " in uci.child.before
    assert uci.stderr_text() == ""


def test_mate_and_stalemate_at_the_root_give_bestmove_none(uci):
    for fen, score in [(CHECKMATED, "mate 0"), (STALEMATED, "cp 0")]:
        uci.send("position fen %s" % fen)
        uci.send("go depth 3")
        assert uci.bestmove() == ("(none)", None)
        assert "info depth 0 score %s" % score in uci.child.before
        uci.send("go infinite")  # held like any infinite search
        uci.no_bestmove_for(0.5)
        uci.send("stop")
        assert uci.bestmove() == ("(none)", None)
    uci.sync()
    assert uci.count_bestmoves() == uci.gos


# -- bad input --------------------------------------------------------------------------------

def test_bad_input_is_reported_and_never_kills_or_corrupts(uci):
    uci.handshake()
    uci.send("setoption name MultiPV value 2")
    uci.send("position startpos moves e2e4")
    uci.send("hello world")
    uci.error("unknown command 'hello world'")
    uci.send_bytes(b"\xff\xfe\x00\x01\x03\x04\x1a\x1b[31mgarbage\xc3\x28\n")
    uci.error("unknown command")
    uci.send_bytes(b"\r\n\t\n \x0b\x0c\n")  # blank lines: ignored
    uci.send("x" * 1000000)
    uci.error("unknown command")
    uci.send("position " + "e2e4 " * 250000)
    uci.error("expected startpos or fen")
    uci.send("y" * (5 << 20))
    uci.error("longer than")
    uci.send("setoption name Hash value banana")
    uci.error("not an integer")
    uci.send("setoption name MultiPV value 9999")
    uci.error("out of range")
    uci.send("setoption name Threads value 0")
    uci.error("out of range")
    uci.send("position fen rnbqkbnr/pppppppp/8/8 w KQkq - 0 1")
    uci.error("invalid FEN")
    uci.send("position startpos moves e2e4 e7e5 e1e3")
    uci.error("illegal move")
    uci.send("position startpos moves e2e4")  # refused positions leave none to search: set it again
    uci.send("debug sometimes")
    uci.error("expected on or off")
    uci.send("bench deep")
    uci.error("depth must be an integer")
    uci.send("go wtime abc depth 1")
    uci.error("go wtime: not an integer: 'abc'")
    assert legal(after("e2e4"), uci.bestmove()[0])
    uci.send("go depth 1 nodes lots movetime")
    uci.error("go nodes: not an integer")
    uci.error("go movetime: missing value")
    assert legal(after("e2e4"), uci.bestmove()[0])
    uci.send("go depth 1 frobnicate")
    uci.error("unknown token 'frobnicate'")
    assert legal(after("e2e4"), uci.bestmove()[0])
    # A bad limit is ignored; a go left with no limit at all searches depth 1 (never forever).
    for line, fragment in [("go depth -3", "go depth: -3 is below 1"), ("go depth", "go depth: missing value"),
                           ("go nodes 0", "go nodes: 0 is below 1"), ("go depth 0", "go depth: 0 is below 1"),
                           ("go frobnicate", "unknown token 'frobnicate'")]:
        uci.send(line)
        uci.error(fragment)
        uci.error("no valid limit left; searching depth 1 only")
        assert legal(after("e2e4"), uci.bestmove(timeout=10)[0])
    # `infinite` is a limit the GUI chose: the bad depth is dropped, the search waits for stop.
    uci.send("go depth infinite")
    uci.error("missing value")
    uci.expect(r"info depth 1 ")
    uci.send("stop")
    assert legal(after("e2e4"), uci.bestmove(timeout=10)[0])
    # Still alive, old options and position intact.
    uci.send("debug on")
    uci.send("go depth 1")
    uci.expect(r"from rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1; "
               r"options Hash=16 Threads=1 Move_Overhead=10 Ponder=False MultiPV=2 ")
    uci.bestmove()
    assert "multipv 2 " in uci.child.before
    uci.sync()
    assert uci.count_bestmoves() == uci.gos
    uci.send("quit")
    assert uci.exit_status() == 0
    assert "Traceback" not in uci.stderr_text()


# -- quit, EOF, closed output -----------------------------------------------------------------

@pytest.mark.parametrize("go", ["go infinite", "go ponder wtime 60000 btime 60000", "go depth 99"])
def test_quit_during_a_search_prints_its_bestmove_and_exits(uci, go):
    # Stockfish's quit stops the search as stop does: its bestmove comes, then the exit.
    uci.send(go)
    uci.expect(r"info depth 1 ")
    uci.send("quit")
    assert legal(chess.Board(), uci.bestmove(timeout=10)[0])
    assert uci.exit_status() == 0
    assert uci.count_bestmoves() == 1


def test_eof_exits_cleanly_idle_and_mid_search(uci):
    uci.send("go infinite")
    uci.expect(r"info depth 1 ")
    uci.child.sendeof()
    # An endless search is stopped and answers, like every go; then the engine exits.
    move = uci.bestmove(timeout=10)[0]
    assert legal(chess.Board(), move)
    assert uci.exit_status() == 0
    other = Uci(uci.command, uci.cwd)
    try:
        other.handshake()
        other.child.sendeof()
        assert other.exit_status() == 0
        assert other.stderr_text() == ""
    finally:
        other.close()


def test_piped_commands_get_their_full_search_at_end_of_input(engine_command, repo_root):
    # printf 'position startpos\ngo depth 6\n' | pruner: input ends at once, the search it
    # was given still runs to depth 6 and answers (it used to exit after depth 2, silently).
    done = subprocess.run(engine_command, cwd=repo_root, input=b"position startpos\ngo depth 6\n",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and done.stderr == b""
    assert any(line.startswith("info depth 6 ") for line in lines)
    assert [line for line in lines if line.startswith("bestmove")] == [lines[-1]]
    assert legal(chess.Board(), lines[-1].split()[1])


def test_go_mate_alone_is_stopped_at_end_of_input(engine_command, repo_root):
    # No mate in 1 from the start position: `go mate 1` alone would search for ever, so at
    # end of input it is stopped like `go infinite` and answers (it used to hang).
    done = subprocess.run(engine_command, cwd=repo_root, input=b"position startpos\ngo mate 1\n",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and done.stderr == b""
    assert [line for line in lines if line.startswith("bestmove")] == [lines[-1]]
    assert legal(chess.Board(), lines[-1].split()[1])


def test_go_after_a_refused_position_does_not_answer_for_the_old_one(uci):
    uci.handshake()
    uci.send("position startpos moves e2e4")
    uci.send("position fen 8/8/8/8/8/4k3/8/1K2P3 b - - 0 1")  # a pawn on the first rank
    uci.error("impossible position")
    uci.send("go depth 3")
    uci.error("the last position command was refused")
    assert uci.bestmove()[0] == "0000"
    uci.send("position startpos moves e2e4 e7e5 g1g5")  # an illegal move refuses the whole line
    uci.error("illegal move")
    uci.send("go movetime 50")
    assert uci.bestmove()[0] == "0000"
    uci.send("ucinewgame")
    uci.send("go depth 1")
    assert uci.bestmove()[0] == "0000"  # still no position the GUI agreed to
    uci.send("position startpos moves e2e4")
    uci.send("go depth 2")
    assert legal(after("e2e4"), uci.bestmove()[0])


def test_go_perft_prints_the_split_like_stockfish(uci):
    uci.handshake()
    uci.send("position startpos moves e2e4")
    uci.send("go perft 3")
    uci.expect(r"Nodes searched: (\d+)")
    assert int(uci.child.match.group(1)) == 13160
    split = dict(re.findall(r"(\w{4,5}): (\d+)", uci.child.before))
    assert len(split) == 20 and sum(map(int, split.values())) == 13160
    uci.send("go perft 0")
    uci.error("go perft: depth must be 1 to")
    uci.sync()
    assert "bestmove" not in uci.child.before


def test_closed_stdout_makes_the_engine_exit(engine_command, repo_root):
    process = subprocess.Popen(engine_command, cwd=repo_root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        process.stdout.close()
        process.stdin.write(b"uci\ngo infinite\n")
        process.stdin.flush()
        assert process.wait(timeout=20) == 1
        assert b"Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# -- bench and the command line ---------------------------------------------------------------

def test_bench_command_over_uci(uci):
    uci.send("bench 1")
    uci.expect(r"Position 1/\d+: \d+ nodes ")
    nodes = int(uci.expect(r"Nodes searched: (\d+)\r?\n").group(1))
    assert nodes > 0
    uci.expect(r"Nodes/second: \d+\r?\n")
    uci.expect(r"Interpreter: \S+ \d+\.\d+")
    uci.send("go infinite")
    uci.send("bench 1")
    uci.error("a search is running")
    uci.send("stop")
    uci.bestmove()


@pytest.fixture
def run_cli(engine_command, repo_root):
    def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(engine_command + list(args), cwd=repo_root, capture_output=True, text=True,
                              timeout=timeout)
    return run


def test_cli_bench_help_version(run_cli):
    bench = run_cli("bench", "1")
    assert bench.returncode == 0, bench.stderr
    assert re.search(r"^Nodes searched: \d+$", bench.stdout, re.M)
    assert re.search(r"^Nodes/second: \d+$", bench.stdout, re.M)
    assert re.search(r"^Interpreter: \S+ \d+\.\d+\.\d+", bench.stdout, re.M)
    assert run_cli("bench", "0").returncode == 2
    assert run_cli("bench", "x").returncode == 2
    version = run_cli("--version")
    assert version.returncode == 0 and "Pruner %s" % engine.__version__ in version.stdout
    usage = run_cli("--help")
    assert usage.returncode == 0
    assert "bench" in usage.stdout and "analyse" in usage.stdout
    assert run_cli("no-such-command").returncode == 2


def test_bench_signature_is_the_same_in_every_process(engine_command, repo_root):
    # The signature must not depend on the process: string hashing is salted per process
    # (PYTHONHASHSEED) and, before 3.12, hash(None) follows memory addresses.
    from pruner.engine import bench as bench_module
    counts = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        result = subprocess.run(engine_command + ["bench", "2"], cwd=repo_root, capture_output=True,
                                text=True, timeout=120, env=env)
        assert result.returncode == 0, result.stderr
        counts.add(int(re.search(r"^Nodes searched: (\d+)$", result.stdout, re.M).group(1)))
    assert counts == {bench_module.run(2).nodes}


def test_latency_script_measures_start_and_stop(repo_root):
    script = os.path.join(repo_root, "scripts", "latency.py")
    result = subprocess.run([sys.executable, script, "--runs", "2"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"start to uciok: median \d+ ms, worst \d+ ms over 2 runs", lines[0]), lines
    assert re.fullmatch(r"start to readyok: median \d+ ms, worst \d+ ms over 2 runs", lines[1]), lines
    assert re.fullmatch(r"stop to bestmove: median [\d.]+ ms, worst [\d.]+ ms over 2 runs", lines[2]), lines


def test_cli_uci_subcommand_is_the_engine(engine_command, repo_root):
    result = subprocess.run(engine_command + ["uci"], cwd=repo_root, input="uci\nquit\n", capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0
    assert "uciok" in result.stdout
