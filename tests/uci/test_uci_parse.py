"""In-process tests of the UCI layer: parsing, formatting, options, and the loop's threading
with scripted lines and fake searchers (no subprocess, no sleeps, no timing assertions)."""

import sys
import types
from typing import List

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pruner.engine.search import fallback_move
from pruner.engine.types import MATE, Limits, SearchInfo
from pruner import __main__ as cli
from pruner.uci.loop import _EOF, _TOO_LONG, UciLoop, read_lines
from pruner.uci.output import Writer
from pruner.uci.options import Button, Check, Combo, OptionError, Options, Spin, String
from pruner.uci.wire import (UciError, format_bestmove, format_info, format_no_moves, parse_command, parse_go,
                               parse_perft, parse_position, parse_setoption)
from loop_helpers import WAIT, Output, first_legal, make_loop, run


def test_parse_command_splits_any_whitespace_and_skips_unknown_leading_tokens():
    assert parse_command("") is None
    assert parse_command(" \t\r") is None
    command = parse_command("  go\tdepth   3\r")
    assert (command.name, command.args, command.skipped) == ("go", ["depth", "3"], [])
    command = parse_command("joho debug on")
    assert (command.name, command.args, command.skipped) == ("debug", ["on"], ["joho"])
    command = parse_command("hello world")
    assert command.name is None and command.skipped == ["hello", "world"]
    assert parse_command("GO depth 1").name is None  # command words are case-sensitive, as in Stockfish


# -- parse_position -------------------------------------------------------------------------

def test_parse_position_accepts_every_form():
    assert parse_position(["startpos"]).fen() == chess.STARTING_FEN
    assert parse_position(["startpos", "moves"]).fen() == chess.STARTING_FEN
    board = parse_position(["startpos", "moves", "e2e4", "e7e5", "g1f3", "b8c6"])
    assert board.fen() == "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    # The history repetitions need is kept: the moves since the last pawn move.
    assert board.move_stack == [chess.Move.from_uci("g1f3"), chess.Move.from_uci("b8c6")]
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    for castle in ("e1g1", "e1h1"):
        board = parse_position(["fen"] + fen.split() + ["moves", castle])
        assert board.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
        assert board.uci(board.move_stack[0]) == "e1g1"
    assert parse_position(["fen", "4k3/8/8/8/8/8/8/4K3", "w"]).fen() == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


@pytest.mark.parametrize("args,fragment", [
    ([], "expected startpos or fen"),
    (["middlegame"], "expected startpos or fen"),
    (["fen"], "missing FEN"),
    (["fen", "moves", "e2e4"], "missing FEN"),
    (["fen", "xyz", "w", "-", "-", "0", "1"], "invalid FEN"),
    (["fen", "8/8/8/8/8/8/8/8", "w", "-", "-", "0", "1"], "impossible position"),
    (["fen", "4k3/8/8/8/8/8/8/K3k3", "w", "-", "-", "0", "1"], "impossible position"),
    (["fen", "P3k3/8/8/8/8/8/8/4K3", "w", "-", "-", "0", "1"], "impossible position"),
    (["startpos", "e2e4"], "expected moves"),
    (["startpos", "moves", "e2e4", "e2e4"], "illegal move 'e2e4' at ply 2"),
    (["startpos", "moves", "0000"], "illegal move '0000'"),
    (["startpos", "moves", "e2e4", "zz"], "illegal move 'zz'"),
    (["startpos", "moves", "e7e8q"], "illegal move"),
])
def test_parse_position_rejects_the_whole_line(args, fragment):
    with pytest.raises(UciError, match=fragment):
        parse_position(args)


# -- parse_go -------------------------------------------------------------------------------

def test_parse_go_reads_every_parameter_in_any_order():
    board = chess.Board()
    limits, errors = parse_go(("searchmoves e2e4 d2d4 wtime 1000 btime -20 winc 10 binc 0 movestogo 5 "
                               "depth 7 nodes 5000 mate 3 movetime 250 infinite ponder").split(), board)
    assert errors == []
    assert limits == Limits(depth=7, nodes=5000, mate=3, movetime=250, wtime=1000, btime=-20, winc=10, binc=0,
                            movestogo=5, infinite=True, ponder=True,
                            searchmoves=[chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")])
    assert parse_go([], board) == (Limits(), [])


@pytest.mark.parametrize("line,expected,fragment", [
    ("depth -3", Limits(depth=1), "go depth: -3 is below 1"),
    ("depth 0", Limits(depth=1), "go depth: 0 is below 1"),
    ("depth", Limits(depth=1), "go depth: missing value"),
    ("depth infinite", Limits(infinite=True), "go depth: missing value"),
    ("wtime abc depth 2", Limits(depth=2), "go wtime: not an integer: 'abc'"),
    ("nodes 0", Limits(depth=1), "go nodes: 0 is below 1"),
    ("depth 2.5", Limits(depth=1), "not an integer"),
    ("mate 0", Limits(depth=1), "below 1"),
    ("frobnicate", Limits(depth=1), "unknown token 'frobnicate'"),
    ("wtime abc btime abc", Limits(depth=1), "go wtime: not an integer: 'abc'"),
    ("movetime -1 depth 3", Limits(depth=3), "below 0"),
    ("frobnicate depth 2", Limits(depth=2), "unknown token 'frobnicate'"),
    ("searchmoves e2e5 a2a3", Limits(searchmoves=[chess.Move.from_uci("a2a3")]), "illegal move 'e2e5'"),
    ("searchmoves depth 2", Limits(depth=2), "no legal move given"),
])
def test_parse_go_reports_and_ignores_bad_tokens(line, expected, fragment):
    limits, errors = parse_go(line.split(), chess.Board())
    assert limits == expected
    assert errors and fragment in errors[0], errors
    # A go left without any limit by a refused limit or word is bounded (and says so).
    assert ("searching depth 1 only" in errors[-1]) == (limits.depth == 1 and "depth 1" not in line)


def test_parse_perft():
    assert parse_perft(["perft", "3"]) == 3
    for args, fragment in [(["perft"], "expected one depth"), (["perft", "x"], "must be an integer"),
                           (["perft", "0"], "must be 1 to"), (["perft", "99"], "must be 1 to"),
                           (["perft", "2", "3"], "expected one depth")]:
        with pytest.raises(UciError, match=fragment):
            parse_perft(args)


# -- parse_setoption and options --------------------------------------------------------------

def test_parse_setoption_names_with_spaces_and_values_with_inner_spaces():
    assert parse_setoption(parse_command("setoption name Hash value 32")) == ("Hash", "32")
    assert parse_setoption(parse_command("setoption name Clear Hash")) == ("Clear Hash", None)
    assert parse_setoption(parse_command("setoption name Move  Overhead value 30")) == ("Move Overhead", "30")
    assert parse_setoption(parse_command("setoption name SyzygyPath value /tb/a  b/c ")) == ("SyzygyPath", "/tb/a  b/c")
    assert parse_setoption(parse_command("setoption name Hash value")) == ("Hash", None)
    for bad in ("setoption", "setoption Hash value 3", "setoption name", "setoption name value 3"):
        with pytest.raises(UciError):
            parse_setoption(parse_command(bad))


def test_options_validate_and_keep_the_old_value():
    options = Options()
    assert options["hash"] == 16 and options["MULTIPV"] == 1 and options["move overhead"] == 10
    options.set("hash", "64")
    assert options["Hash"] == 64
    for name, text in [("Hash", "banana"), ("Hash", "0"), ("Hash", "4097"), ("Hash", None), ("Ponder", "yes"),
                       ("MultiPV", "1.5"), ("Nope", "1")]:
        with pytest.raises(OptionError):
            options.set(name, text)
    assert options["Hash"] == 64 and options["Ponder"] is False
    assert options.set("ponder", "True").name == "Ponder" and options["Ponder"] is True
    assert options.set("clear hash", "anything").kind == "button"


def test_every_uci_option_type_is_one_declaration():
    options = Options([
        Spin("Skill", 20, 0, 20), Check("UCI_Chess960", False), Button("Reset"),
        String("SyzygyPath", ""), Combo("Style", "Normal", ["Solid", "Normal", "Risky"]),
    ])
    assert options.uci_lines() == [
        "option name Skill type spin default 20 min 0 max 20",
        "option name UCI_Chess960 type check default false",
        "option name Reset type button",
        "option name SyzygyPath type string default <empty>",
        "option name Style type combo default Normal var Solid var Normal var Risky",
    ]
    options.set("style", "risky")
    assert options["Style"] == "Risky"
    with pytest.raises(OptionError):
        options.set("Style", "Wild")
    options.set("SyzygyPath", "/a b")
    assert options["syzygypath"] == "/a b"
    options.set("SyzygyPath", "<empty>")
    assert options["SyzygyPath"] == ""


# -- formatting -----------------------------------------------------------------------------

def test_format_info_scores_bounds_and_pv():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    pv = [board.parse_uci("e1h1"), chess.Move.from_uci("e8c8")]
    info = SearchInfo(depth=5, seldepth=9, score=-37, nodes=12345, time_ms=500, pv=pv, multipv=2,
                      bound="upper", hashfull=17, tbhits=3)
    assert format_info(board, info) == ("info depth 5 seldepth 9 multipv 2 score cp -37 upperbound nodes 12345 "
                                        "nps 24690 hashfull 17 tbhits 3 time 500 pv e1g1 e8c8")
    mate = SearchInfo(depth=3, seldepth=3, score=MATE - 3, nodes=10, time_ms=0, pv=[])
    assert " score mate 2 nodes 10 nps 10000 " in format_info(board, mate)
    mated = SearchInfo(depth=4, seldepth=4, score=-(MATE - 4), nodes=10, time_ms=2, pv=[], bound="lower")
    assert " score mate -2 lowerbound " in format_info(board, mated)
    assert format_info(board, info, nodes=20000, time_ms=1000).endswith("nodes 20000 nps 20000 hashfull 17 tbhits 3 time 1000 pv e1g1 e8c8")
    illegal_tail = SearchInfo(depth=1, seldepth=1, score=0, nodes=1, time_ms=1, pv=[pv[0], chess.Move.from_uci("e1e2")])
    assert format_info(board, illegal_tail).endswith(" pv e1g1")  # a PV never shows an illegal move


def test_format_bestmove_and_roots_without_moves():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert format_bestmove(board, board.parse_uci("e1h1"), chess.Move.from_uci("e8g8")) == "bestmove e1g1 ponder e8g8"
    assert format_bestmove(board, chess.Move.from_uci("a1a2")) == "bestmove a1a2"
    assert format_bestmove(board, None) == "bestmove (none)"
    assert format_no_moves(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")) == "info depth 0 score mate 0"
    assert format_no_moves(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == "info depth 0 score cp 0"


# -- reader and writer ----------------------------------------------------------------------

def feed(chunks: List[bytes], max_line: int = 1000) -> list:
    items: list = []
    pending = list(chunks)
    read_lines(lambda size: pending.pop(0) if pending else b"", items.append, max_line)
    return items


def test_read_lines_joins_chunks_decodes_garbage_and_bounds_line_length():
    assert feed([b"uc", b"i\nisre", b"ady\n", b"quit"]) == ["uci", "isready", "quit", _EOF]
    assert feed([b"\xff\xfe go\n"]) == ["\ufffd\ufffd go", _EOF]
    assert feed([b"a" * 600, b"a" * 600, b"a" * 600 + b"\nisready\n"]) == [_TOO_LONG, "isready", _EOF]
    assert feed([b"b" * 1001 + b"\nok\n"]) == [_TOO_LONG, "ok", _EOF]
    assert feed([b"c" * 1000 + b"\n"]) == ["c" * 1000, _EOF]
    assert feed([]) == [_EOF]

    def failing(size: int) -> bytes:
        raise OSError("bad descriptor")
    items: list = []
    read_lines(failing, items.append)
    assert items == [_EOF]


def test_writer_flattens_lines_and_reports_a_broken_pipe_once():
    output = Output()
    Writer(output.write).send("info string a\nb")
    assert output.lines == ["info string a b"]
    broken: list = []

    def write(data: bytes) -> None:
        raise BrokenPipeError
    writer = Writer(write, on_broken=lambda: broken.append(1))
    writer.send("uciok")
    writer.send("readyok")
    assert writer.broken and broken == [1]


# -- the loop with fake searchers -------------------------------------------------------------

def test_uci_reply_needs_no_searcher():
    loop, output, holder = make_loop()
    run(loop, "uci")
    assert output.lines[0].startswith("id name Pruner ") and output.lines[-1] == "uciok"
    assert holder == []  # the search modules are not even created yet
    run(loop, "isready")
    assert output.lines[-1] == "readyok" and len(holder) == 1


def test_options_reach_the_searcher_at_creation_and_later():
    loop, output, holder = make_loop()
    run(loop, "setoption name Hash value 64", "setoption name Move Overhead value 99", "isready")
    searcher = holder[0]
    assert searcher.calls[:2] == [("init", 64), ("move_overhead_ms", 99)]  # Hash only via the constructor
    run(loop, "setoption name hash value 8", "setoption name Clear Hash", "ucinewgame")
    assert searcher.calls[2:] == [("set_hash", 8), ("clear_hash",), ("new_game",)]
    run(loop, "setoption name MultiPV value 4", "go depth 3")
    loop.wait_idle(WAIT)
    assert searcher.calls[-1][0] == "search" and searcher.calls[-1][3] == 4


def test_an_impossible_hash_is_refused_and_the_old_one_kept():
    # Issue 51, item 10b: the UCI side of `pruner analyse --hash 999999`: refused by the
    # option's range before any table is allocated, with the reason, and the table unchanged.
    loop, output, holder = make_loop()
    run(loop, "setoption name Hash value 64", "isready", "setoption name Hash value 999999")
    assert output.lines[-1] == "info string error: option Hash: 999999 is out of range 1..4096"
    assert holder[0].calls[:1] == [("init", 64)] and not any(c[0] == "set_hash" for c in holder[0].calls)
    run(loop, "go depth 1")
    loop.wait_idle(WAIT)
    assert loop.state.options["Hash"] == 64 and output.lines[-1].startswith("bestmove ")


def test_searcher_actions_during_a_search_wait_for_its_end_in_order():
    loop, output, holder = make_loop(block=True)
    run(loop, "go infinite")
    searcher = holder[0]
    assert searcher.searching.wait(WAIT)
    run(loop, "ucinewgame", "setoption name Hash value 32", "setoption name Clear Hash", "isready")
    assert output.lines[-1] == "readyok"
    assert [c[0] for c in searcher.calls] == ["init", "move_overhead_ms", "search"]
    run(loop, "stop")
    assert loop.wait_idle(WAIT)
    assert searcher.calls[3:] == [("new_game",), ("set_hash", 32), ("clear_hash",)]
    assert output.count("bestmove") == 1


def test_infinite_search_that_ends_early_holds_bestmove_until_stop():
    loop, output, holder = make_loop()
    run(loop, "go infinite")
    assert loop.wait_idle(WAIT)
    assert output.count("bestmove") == 0
    run(loop, "isready")
    assert output.count("bestmove") == 0
    run(loop, "stop")
    assert output.lines[-2].startswith("info depth 1 ") and " nodes 25 " in output.lines[-2]  # final totals
    assert output.lines[-1] == "bestmove " + first_legal()
    run(loop, "stop", "ponderhit")
    assert output.count("bestmove") == 1


def test_ponderhit_after_the_ponder_search_finished_answers_at_once():
    loop, output, holder = make_loop(move="e2e4", ponder="e7e5")
    run(loop, "go ponder wtime 1000 btime 1000")
    assert loop.wait_idle(WAIT)
    assert output.count("bestmove") == 0
    run(loop, "ponderhit")
    assert output.lines[-1] == "bestmove e2e4 ponder e7e5"
    assert holder[0].ponderhit_event.is_set()


def test_ponderhit_before_the_first_report_reaches_the_search():
    loop, output, holder = make_loop(block=True)
    run(loop, "isready")
    searcher = holder[0]
    searcher.before_info.clear()
    run(loop, "go ponder wtime 1000 btime 1000")
    assert searcher.searching.wait(WAIT)
    assert not searcher.ponderhit_event.is_set()
    run(loop, "ponderhit")
    assert searcher.ponderhit_event.is_set()  # a per-go event: nothing can overwrite it
    searcher.before_info.set()
    output.wait_for(lambda lines: any(line.startswith("info depth 1") for line in lines))
    run(loop, "stop")
    assert loop.wait_idle(WAIT) and output.count("bestmove") == 1


def test_ponder_infinite_keeps_holding_after_ponderhit():
    loop, output, holder = make_loop()
    run(loop, "go ponder infinite")
    assert loop.wait_idle(WAIT)
    run(loop, "ponderhit")
    assert output.count("bestmove") == 0
    run(loop, "stop")
    assert output.count("bestmove") == 1


def test_go_while_searching_prints_the_old_bestmove_first():
    loop, output, holder = make_loop(block=True)
    run(loop, "go infinite")
    assert holder[0].searching.wait(WAIT)
    run(loop, "position startpos moves e2e4", "go depth 5")
    output.wait_for(lambda lines: sum(line.startswith("info depth 1") for line in lines) >= 3)
    run(loop, "stop")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("bestmove") == ["bestmove " + first_legal(), "bestmove " + first_legal("e2e4")]


def test_quit_mid_search_stops_it_and_prints_its_bestmove():
    # As Stockfish's quit: the search is stopped like by stop, answers, then the loop ends.
    loop, output, holder = make_loop(block=True)
    run(loop, "go infinite")
    assert holder[0].searching.wait(WAIT)
    assert loop.handle_line("quit") is False
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("bestmove") == ["bestmove " + first_legal()]


def test_search_exceptions_still_give_a_legal_bestmove():
    loop, output, holder = make_loop(raise_in_search=True)
    run(loop, "position startpos moves e2e4", "go depth 3")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("info string error: internal: RuntimeError: boom")
    move = output.with_prefix("bestmove")[0].split()[1]
    assert chess.Move.from_uci(move) in parse_position(["startpos", "moves", "e2e4"]).legal_moves
    run(loop, "isready")
    assert output.lines[-1] == "readyok"


def test_a_search_that_fails_before_depth_1_plays_the_engines_one_ply_choice():
    """Not the first legal move: with a rook hanging, the fallback takes it (issue 19)."""
    loop, output, holder = make_loop(raise_in_search=True)
    run(loop, "position fen 8/8/8/4k3/8/3r4/8/KQ6 w - - 0 1", "go depth 3")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("info string error: internal: RuntimeError: boom")
    assert output.lines[-1] == "bestmove b1d3"
    assert first_legal() != "b1d3"


def test_fallback_move_mates_in_one_and_otherwise_wins_material():
    assert fallback_move(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")).uci() == "a1a8"
    assert fallback_move(chess.Board("8/8/8/4k3/8/3r4/8/KQ6 w - - 0 1")).uci() == "b1d3"
    assert fallback_move(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) is None  # stalemate: no move


def test_a_failing_searcher_factory_still_gives_a_legal_bestmove():
    output = Output()

    def factory(hash_mb: int):
        raise MemoryError("no room")
    loop = UciLoop(Writer(output.write), factory)
    run(loop, "isready")
    assert output.lines == ["info string error: internal: MemoryError: no room", "readyok"]
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.count("bestmove") == 1 and output.lines[-1] != "bestmove (none)"


def test_illegal_moves_from_the_search_never_reach_the_gui():
    loop, output, holder = make_loop(move="e2e5", ponder="e7e5")
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("info string error: internal: search returned e2e5")
    assert output.lines[-1] == "bestmove " + fallback_move(chess.Board()).uci()
    loop, output, holder = make_loop(move="e2e4", ponder="e2e4")
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.lines[-1] == "bestmove e2e4"  # the impossible ponder move is dropped


def test_a_report_that_cannot_be_formatted_costs_neither_the_search_nor_the_bestmove():
    loop, output, holder = make_loop(move="e2e4", bad_info=True)
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert len(output.with_prefix("info string error: internal: info: ")) == 1
    assert output.with_prefix("info depth 1 ") and output.lines[-1] == "bestmove e2e4"
    run(loop, "setoption name Hash value 2")
    assert holder[0].calls[-1] == ("set_hash", 2)  # the searcher was handed back


def test_stop_at_every_point_of_a_real_search():
    """Sunfish-style: stop after each possible number of reports; always one legal bestmove."""
    from pruner.engine.search import Searcher
    for reports in range(6):
        output = Output()
        loop = UciLoop(Writer(output.write), lambda mb: Searcher(mb))
        run(loop, "position startpos moves e2e4 c7c5", "go infinite")
        output.wait_for(lambda lines: sum(line.startswith("info depth") for line in lines) >= reports)
        run(loop, "stop")
        assert loop.wait_idle(WAIT)
        bestmoves = output.with_prefix("bestmove")
        assert len(bestmoves) == 1
        board = parse_position(["startpos", "moves", "e2e4", "c7c5"])
        assert board.parse_uci(bestmoves[0].split()[1]) in board.legal_moves


TOKENS = ["uci", "isready", "go", "stop", "ponderhit", "position", "startpos", "fen", "moves", "e2e4", "e7e5",
          "e1g1", "g1f3", "setoption", "name", "value", "Hash", "MultiPV", "Clear", "Move", "Overhead", "debug",
          "on", "off", "infinite", "ponder", "depth", "nodes", "wtime", "-3", "0", "2", "banana", "searchmoves",
          "ucinewgame", "register", "\x00", "\ufffd", "8/8/8/8/8/8/8/8", "w", "-", "quit"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.lists(st.sampled_from(TOKENS), max_size=8).map(" ".join), st.text(max_size=30)),
                max_size=12))
def test_random_lines_never_break_the_loop(lines):
    loop, output, holder = make_loop()
    quitted = False
    gos = 0
    for line in lines:
        command = parse_command(line)
        if command is not None and command.name == "go":
            gos += 1
        if loop.handle_line(line) is False:
            quitted = True
            break
    if not quitted:
        run(loop, "stop")
        assert loop.wait_idle(WAIT)
        run(loop, "isready")
        assert output.lines[-1] == "readyok"
        assert output.count("bestmove") == gos
        assert loop.state.board.is_valid() or loop.state.board.status() & ~(chess.STATUS_BAD_CASTLING_RIGHTS | chess.STATUS_INVALID_EP_SQUARE) == 0
    loop.shutdown()
    assert not any("internal" in line for line in output.lines), output.lines


# -- the command line -------------------------------------------------------------------------

def test_analyse_is_dispatched_lazily_with_its_arguments(monkeypatch):
    seen = []
    module = types.ModuleType("pruner.analyse_app.cli")
    module.main = lambda argv: seen.append(argv) or 3
    monkeypatch.setitem(sys.modules, "pruner.analyse_app.cli", module)
    assert cli.main(["analyse", "--depth", "3", "game.pgn"]) == 3
    assert seen == [["--depth", "3", "game.pgn"]]


def test_missing_analyse_module_exits_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pruner.analyse_app.cli", None)  # import now fails as if absent
    assert cli.main(["analyse", "x.pgn"]) == 2
    assert "analyse" in capsys.readouterr().err


def test_bench_subcommand_prints_the_signature(capsys):
    assert cli.main(["bench", "1"]) == 0
    out = capsys.readouterr().out
    assert "Nodes searched: " in out and "Nodes/second: " in out and "Interpreter: " in out
