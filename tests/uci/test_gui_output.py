"""What a GUI shows (issue 22, section 1): progress during long iterations (``currmove`` and the
counters), ``UCI_ShowWDL``, the ``d`` and ``eval`` commands, ``go perft`` in Stockfish's shape,
and ``Threads`` as lichess-bot's default configuration sets it.

In-process tests run the loop on a real ``Searcher`` whose clock reads its node count (no
sleeps, no timing assertions); the process tests drive ``python -m pruner`` as GUIs do.
"""

import logging
import os
import re
import shutil

import chess
import chess.engine
import chess.polyglot
import pytest

from pruner.engine import bench
from pruner.engine.evaluate import evaluate
from pruner.engine.search import Searcher
from pruner.engine.types import MATE, TB_WIN, SearchInfo, SearchProgress
from pruner.engine.wdl import material, wdl_of_score
from pruner.uci import options as uci_options
from pruner.uci.display import board_diagram, eval_table
from pruner.uci.loop import UciLoop
from pruner.uci.output import Writer
from pruner.uci.wire import format_info, format_search_progress
from loop_helpers import WAIT, Output, run
from paths import ROOT
from uci_process import Uci

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

NODES_PER_SECOND = 10000
WDL = re.compile(r" score (?:cp|mate) -?\d+ wdl (\d+) (\d+) (\d+) (?:(?:lower|upper)bound )?nodes ")


def node_clock_loop():
    """A loop over one real Searcher whose clock reads its nodes (10,000 a "second")."""
    output = Output()
    searchers = []

    def factory(hash_mb):
        searcher = Searcher(hash_mb)
        searcher.clock = lambda: searcher.nodes / NODES_PER_SECOND
        searchers.append(searcher)
        return searcher

    return UciLoop(Writer(output.write), factory), output, searchers


# -- progress ------------------------------------------------------------------------------------

def test_progress_lines_after_the_first_second_of_a_long_search():
    loop, output, _ = node_clock_loop()
    run(loop, "position fen " + bench.POSITIONS[1], "go depth 6")
    assert loop.wait_idle(WAIT)
    lines = output.lines
    currmove = [line for line in lines if " currmove " in line]
    counters = [line for line in lines if line.startswith("info depth ") and " nodes " in line and " pv " not in line]
    assert currmove and counters
    board = chess.Board(bench.POSITIONS[1])
    for line in currmove:
        match = re.fullmatch(r"info depth (\d+) currmove (\S+) currmovenumber (\d+)", line)
        assert match, line
        assert board.parse_uci(match.group(2)) in board.legal_moves
    for line in counters:
        assert re.fullmatch(r"info depth \d+ seldepth \d+ nodes \d+ nps \d+ hashfull \d+ tbhits \d+ time (\d+)",
                            line), line
        assert int(line.split()[-1]) >= 1000  # nothing extra in the first second
    # Every line with a score is still there, in order, and bestmove comes last.
    assert [line.split()[2] for line in lines if " pv " in line] == [str(d) for d in range(1, 7)]
    assert lines[-1].startswith("bestmove ")


def test_a_short_search_prints_what_it_always_printed():
    loop, output, _ = node_clock_loop()
    run(loop, "position startpos", "go depth 3")
    assert loop.wait_idle(WAIT)
    assert all(" pv " in line or line.startswith("bestmove ") for line in output.lines), output.lines


def test_progress_formats():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    castle = chess.Move.from_uci("e1g1")
    assert format_search_progress(board, SearchProgress(7, 9, 1234, 56, currmove=castle, currmovenumber=3)) == \
        "info depth 7 currmove e1g1 currmovenumber 3"
    board960 = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    assert format_search_progress(board960, SearchProgress(7, 9, 1234, 56, currmove=castle, currmovenumber=3)) == \
        "info depth 7 currmove e1h1 currmovenumber 3"
    assert format_search_progress(board, SearchProgress(8, 15, 90000, 2000, hashfull=12, tbhits=3)) == \
        "info depth 8 seldepth 15 nodes 90000 nps 45000 hashfull 12 tbhits 3 time 2000"


# -- UCI_ShowWDL ---------------------------------------------------------------------------------

def test_wdl_goes_after_the_score_as_in_stockfish():
    board = chess.Board()
    info = SearchInfo(depth=5, seldepth=7, score=35, nodes=100, time_ms=10, pv=[chess.Move.from_uci("e2e4")],
                      bound="lower")
    w, d, l = wdl_of_score(35, material(board))
    assert format_info(board, info, wdl=True) == (
        "info depth 5 seldepth 7 multipv 1 score cp 35 wdl %d %d %d lowerbound nodes 100 nps 10000 hashfull 0 "
        "tbhits 0 time 10 pv e2e4" % (w, d, l))
    assert " wdl " not in format_info(board, info)
    mate = SearchInfo(depth=5, seldepth=7, score=-(MATE - 4), nodes=100, time_ms=10)
    assert " score mate -2 wdl 0 0 1000 " in format_info(board, mate, wdl=True)
    tablebase = SearchInfo(depth=5, seldepth=7, score=TB_WIN - 9, nodes=100, time_ms=10)
    assert " score cp 19991 wdl 1000 0 0 " in format_info(board, tablebase, wdl=True)


def test_show_wdl_adds_wdl_to_every_info_line_with_a_score():
    loop, output, _ = node_clock_loop()
    run(loop, "position startpos moves e2e4", "go depth 3")
    assert loop.wait_idle(WAIT)
    assert not any(" wdl " in line for line in output.lines)
    run(loop, "setoption name UCI_ShowWDL value true", "go depth 3")
    assert loop.wait_idle(WAIT)
    run(loop, "setoption name MultiPV value 2", "go depth 2")
    assert loop.wait_idle(WAIT)
    scored = [line for line in output.lines if " score " in line]
    with_wdl = [line for line in scored if " wdl " in line]
    assert len(with_wdl) == 3 + 2 * 2
    for line in with_wdl:
        w, d, l = map(int, WDL.search(line).groups())
        assert w + d + l == 1000
    run(loop, "setoption name UCI_ShowWDL value false", "go depth 1")
    assert loop.wait_idle(WAIT)
    assert " wdl " not in output.lines[-2]


def test_a_stopped_search_repeats_its_last_line_with_wdl():
    loop, output, _ = node_clock_loop()
    run(loop, "setoption name UCI_ShowWDL value true", "position startpos", "go infinite")
    output.wait_for(lambda lines: any(line.startswith("info depth 2 ") for line in lines))
    run(loop, "stop")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1].startswith("bestmove ") and WDL.search(output.lines[-2])


# -- d, eval, go perft -----------------------------------------------------------------------------

STOCKFISH_D = """
 +---+---+---+---+---+---+---+---+
 | r | n | b | q | k | b | n | r | 8
 +---+---+---+---+---+---+---+---+
 | p | p | p | p |   | p | p | p | 7
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   | 6
 +---+---+---+---+---+---+---+---+
 |   |   |   |   | p |   |   |   | 5
 +---+---+---+---+---+---+---+---+
 |   |   |   |   | P |   |   |   | 4
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   | N |   |   | 3
 +---+---+---+---+---+---+---+---+
 | P | P | P | P |   | P | P | P | 2
 +---+---+---+---+---+---+---+---+
 | R | N | B | Q | K | B |   | R | 1
 +---+---+---+---+---+---+---+---+
   a   b   c   d   e   f   g   h

Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2
Key: 1FE705277DA23D0E
Checkers: """.split("\n")
"""Stockfish 15.1's ``d`` after ``position startpos moves e2e4 e7e5 g1f3`` (its own key)."""


def test_d_prints_the_board_as_stockfish_does():
    loop, output, _ = node_clock_loop()
    run(loop, "position startpos moves e2e4 e7e5 g1f3", "d")
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    key = "Key: %016X" % chess.polyglot.zobrist_hash(board)  # Polyglot's key, not Stockfish's
    assert output.lines == [key if line.startswith("Key: ") else line for line in STOCKFISH_D]
    assert board_diagram(chess.Board())[-2] == "Key: 463B96181691FC9C"  # the Polyglot paper's example
    # Squares from a1 on, as Stockfish pops them from its bitboard.
    assert board_diagram(chess.Board("4k3/8/8/8/1b6/8/8/4K2q w - - 0 1"))[-1] == "Checkers: h1 b4 "


def test_eval_shows_the_terms_and_the_final_evaluation_from_whites_side(classical_evaluation):
    loop, output, _ = node_clock_loop()
    fen = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
    run(loop, "position fen " + fen, "eval")
    lines = output.lines
    assert lines[1] == " Contributing terms (pawns; Total = White - Black):"
    assert any(line.startswith("|       Material |") for line in lines)
    white_view = -evaluate(chess.Board(fen))
    assert lines[-1] == "Final evaluation       %+.2f (white side)" % (white_view / 100)
    assert lines[-3] == "Tempo                  -0.10 (white side; Black to move)"
    assert lines[-2] == "NNUE                   none: classical evaluation (no net asked for)"  # and why not
    # Total row: the terms' sums; rows of the table all have the same width.
    table = [line for line in lines if line.startswith(("|", "+"))]
    assert len({len(line) for line in table}) == 1
    checked = "4k3/8/8/8/1b6/8/8/4K3 w - - 0 1"
    run(loop, "position fen " + checked, "eval")
    assert output.lines[-1] == "Final evaluation: none (in check)"


def test_eval_table_rows_add_up():
    from pruner.engine.evaluate import breakdown
    board = chess.Board(bench.POSITIONS[3])
    parts = breakdown(board)
    lines = eval_table(parts)
    total = next(line for line in lines if line.startswith("|          Total |"))
    assert total.split("|")[-2].split() == ["%.2f" % (parts.mg / 100), "%.2f" % (parts.eg / 100)]


STOCKFISH_PERFT_2 = {
    "a7a6": 27, "b7b6": 27, "c7c6": 27, "d7d6": 27, "f7f6": 27, "g7g6": 27, "h7h6": 27, "a7a5": 27,
    "b7b5": 26, "c7c5": 27, "d7d5": 28, "f7f5": 28, "g7g5": 27, "h7h5": 27, "b8a6": 27, "b8c6": 27,
    "g8f6": 27, "g8h6": 27, "g8e7": 27, "f8a3": 26, "f8b4": 24, "f8c5": 27, "f8d6": 27, "f8e7": 27,
    "d8h4": 26, "d8g5": 27, "d8f6": 27, "d8e7": 27, "e8e7": 27,
}
"""Stockfish 15.1's ``go perft 2`` after ``position startpos moves e2e4 e7e5 g1f3``."""


def test_go_perft_prints_what_stockfish_prints():
    loop, output, _ = node_clock_loop()
    run(loop, "position startpos moves e2e4 e7e5 g1f3", "go perft 2")
    assert loop.wait_idle(WAIT)  # perft runs on a thread of its own
    lines = output.lines
    assert lines[-3:] == ["", "Nodes searched: 779", ""]
    split = dict(line.split(": ") for line in lines[:-3])
    assert {move: int(count) for move, count in split.items()} == STOCKFISH_PERFT_2


# -- Threads ---------------------------------------------------------------------------------------

class ThreadsSearcher:
    """Records ``set_threads``; searches nothing."""

    def __init__(self, hash_mb):
        self.move_overhead_ms = 10
        self.threads = []

    def set_threads(self, threads):
        self.threads.append(threads)


def test_threads_beyond_the_cpus_runs_one_searcher_per_cpu(monkeypatch):
    monkeypatch.setattr(uci_options, "usable_cpus", lambda: 4)
    assert [uci_options.searchers_for(n) for n in (1, 2, 4, 5, 1024)] == [1, 2, 4, 4, 4]
    monkeypatch.setattr(uci_options, "usable_cpus", lambda: 1)
    assert [uci_options.searchers_for(n) for n in (1, 2, 3)] == [1, 2, 2]  # Threads 2 keeps its helper
    assert uci_options.threads_note(2) is None
    monkeypatch.setattr(uci_options, "usable_cpus", lambda: 2)
    output = Output()
    searchers = []
    loop = UciLoop(Writer(output.write), lambda mb: searchers.append(ThreadsSearcher(mb)) or searchers[0])
    run(loop, "setoption name Threads value 4", "isready", "setoption name Threads value 2",
        "setoption name Threads value 1024")
    assert searchers[0].threads == [2, 2, 2]
    assert output.with_prefix("info string") == [
        "info string Threads 4: 2 searcher processes (the main search and 1 helper), one per usable CPU; "
        "more would only share the CPUs and slow the main search",
        "info string Threads 1024: 2 searcher processes (the main search and 1 helper), one per usable CPU; "
        "more would only share the CPUs and slow the main search"]
    assert loop.state.options["Threads"] == 1024  # the value set stands; only the processes are capped


LICHESS_BOT_UCI_OPTIONS = {
    "Move Overhead": 100,
    "Threads": 4,
    "Hash": 512,
    "SyzygyPath": "./syzygy/",
    "UCI_ShowWDL": True,
}
"""The ``uci_options`` block of lichess-bot's config.yml.default (unchanged since 2023: Threads 4
and Hash 512 since July, UCI_ShowWDL since August)."""


def test_lichess_bot_default_uci_options_are_accepted(engine_command, tmp_path, caplog):
    # lichess-bot starts the engine with python-chess's popen_uci and calls configure() with
    # the block as it is; an option refused there stops the bot before its first game.
    # The bot's working directory holds ./syzygy/; PYTHONPATH keeps `-m pruner` on this checkout.
    shutil.copytree(os.path.join(ROOT, "tests", "data", "syzygy"), str(tmp_path / "syzygy"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    engine = chess.engine.SimpleEngine.popen_uci(engine_command, cwd=str(tmp_path), env=env, timeout=60)
    try:
        with caplog.at_level(logging.WARNING, logger="chess.engine"):
            engine.configure(dict(LICHESS_BOT_UCI_OPTIONS))
            board = chess.Board("8/8/8/4k3/8/8/3QK3/8 w - - 0 1")  # KQ v K: in the tables
            info = engine.analyse(board, chess.engine.Limit(depth=3))
            assert info["tbhits"] > 0
            assert info["wdl"].white() == chess.engine.Wdl(1000, 0, 0)
            board = chess.Board()
            info = engine.analyse(board, chess.engine.Limit(depth=3))
            expected = wdl_of_score(info["score"].relative.score(), material(board))
            assert info["wdl"].relative == chess.engine.Wdl(*expected)
            result = engine.play(board, chess.engine.Limit(depth=2))
            assert board.is_legal(result.move)
    finally:
        engine.quit()
    assert not [record for record in caplog.records if "error" in record.getMessage().lower()]


def test_the_table_count_reaches_the_log_lichess_bot_keeps(engine_command, tmp_path, caplog):
    # lichess-bot checks the engine at start as here: popen_uci, configure(uci_options), ping,
    # quit. python-chess logs every engine line at DEBUG, which lichess-bot's automatic log file
    # (lichess_bot_auto_logs/lichess-bot.log) keeps at its default level (docs/gui.md).
    # Skill Level 10 is the example of lichess-bot's wiki.
    shutil.copytree(os.path.join(ROOT, "tests", "data", "syzygy"), str(tmp_path / "syzygy"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    with caplog.at_level(logging.DEBUG, logger="chess.engine"):
        engine = chess.engine.SimpleEngine.popen_uci(engine_command, cwd=str(tmp_path), env=env, timeout=60)
        try:
            engine.configure({"SyzygyPath": "./syzygy/", "Move Overhead": 100, "Skill Level": 10})
            engine.ping()
            board = chess.Board()
            assert board.is_legal(engine.play(board, chess.engine.Limit(depth=2)).move)
        finally:
            engine.quit()
    assert not [record for record in caplog.records
                if record.levelno >= logging.WARNING and "error" in record.getMessage().lower()]
    received = [record.getMessage().split(">> ", 1)[1] for record in caplog.records
                if record.levelno == logging.DEBUG and ">> " in record.getMessage()]
    assert "info string Found 5 WDL and 5 DTZ tablebase files (up to 4-man)." in received, received


# -- the real process --------------------------------------------------------------------------------

def test_a_long_search_shows_its_current_move(engine_command, repo_root):
    uci = Uci(engine_command, repo_root)
    try:
        uci.handshake()
        uci.send("position fen " + bench.POSITIONS[1])
        uci.send("go infinite")
        match = uci.expect(r"info depth (\d+) currmove (\S+) currmovenumber (\d+)\r?\n", timeout=60)
        assert chess.Board(bench.POSITIONS[1]).parse_uci(match.group(2))
        uci.expect(r"info depth \d+ seldepth \d+ nodes \d+ nps \d+ hashfull \d+ tbhits \d+ time \d+\r?\n",
                   timeout=60)
        uci.send("stop")
        uci.bestmove()
        uci.send("quit")
        assert uci.exit_status() == 0
    finally:
        uci.close()
