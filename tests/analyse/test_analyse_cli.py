"""``pruner analyse``: inputs, output formats, PGN annotation, --jobs, bad input, Ctrl-C.

Most tests call ``pruner.analyse_app.cli.main`` in-process with string streams (the worker
pool forks from the test process); a few run the real command. Depths are 2-3.
"""

import csv
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys

import chess
import chess.engine
import chess.pgn
import pytest

from pruner.engine.analysis import analyse
from pruner.analyse_app.annotate import judge, winning_chances
from pruner.engine.cpus import physical_memory_mb
from pruner.analyse_app import cli
from pruner.analyse_app.cli import EXIT_INTERRUPTED, EXIT_USAGE, main
from pruner.analyse_app.output import CSV_COLUMNS, Progress
from pruner.analyse_app.tasks import LINE_KEYS, RECORD_KEYS
from paths import QUIRKY, QUIRKY_FILES, QUIRKY_SUMMARY
from sample_games import OPERA_GAME, OPERA_PLIES, SCHOLAR

BROKEN_GAME = """[Event "broken"]
[White "A"]
[Black "B"]

1. e4 e5 2. Ke3 Nc6 *
"""

EPD_LINES = [
    '1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";',
    "# a comment, then a blank line",
    "",
    "this is not a position",
    '3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - bm d5; id "BK.02";',
    "8/8/8/8/8/8/8/K7 w - - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
]
EPD_GOOD = 3


def run(argv, stdin_text=None):
    """Run ``pruner analyse argv`` in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    stdin = io.StringIO(stdin_text) if stdin_text is not None else None
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def records(text):
    return [json.loads(line) for line in text.splitlines()]


def without_time(items):
    for item in items:
        item.pop("time_ms", None)
    return items


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("opera.pgn", OPERA_GAME), ("mixed.pgn", SCHOLAR + "\n" + BROKEN_GAME + "\n" + OPERA_GAME),
                       ("suite.epd", "\n".join(EPD_LINES) + "\n")):
        path = tmp_path / name
        path.write_text(text)
        paths[name] = str(path)
    return paths


# -- JSON Lines -------------------------------------------------------------------------------

def check_record(record):
    assert list(record) == list(RECORD_KEYS)
    for key in ("source", "fen", "turn"):
        assert isinstance(record[key], str)
    for key in ("move_number", "depth", "seldepth", "nodes", "time_ms"):
        assert isinstance(record[key], int)
    board = chess.Board(record["fen"])
    if record["game_over"] is None:
        assert board.parse_uci(record["best_uci"]) and board.san(board.parse_uci(record["best_uci"])) == record["best_san"]
        assert (record["white_cp"] is None) != (record["white_mate"] is None)
        assert (record["cp"] is None) != (record["mate"] is None)
        sign = 1 if record["turn"] == "w" else -1
        if record["cp"] is not None:
            assert record["white_cp"] == sign * record["cp"]
        else:
            assert record["white_mate"] == sign * record["mate"]
        assert record["pv_uci"][0] == record["best_uci"] and len(record["pv_uci"]) == len(record["pv_san"])
        wins, draws, losses = record["wdl"]
        assert wins + draws + losses == 1000 and record["white_wdl"] == (
            record["wdl"] if record["turn"] == "w" else [losses, draws, wins])
        assert record["wdl"] == record["lines"][0]["wdl"]
    for line in record["lines"]:
        assert list(line) == list(LINE_KEYS)
        assert sum(line["wdl"]) == 1000
        assert isinstance(line["pv_uci"], list) and all(isinstance(m, str) for m in line["pv_uci"])


def test_fen_arguments_give_one_valid_json_line_each():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    status, out, err = run(["--depth", "3", "--jobs", "1", "-q", fen, "startpos"])
    assert status == 0 and err == ""
    items = records(out)
    assert [item["source"] for item in items] == ["argument 1", "argument 2"]
    for item in items:
        check_record(item)
        assert item["depth"] == 3 and item["game"] is None and item["move_uci"] is None
    api = analyse(chess.Board(fen), depth=3)
    assert (items[0]["best_uci"], items[0]["cp"], items[0]["nodes"]) == (api.best_move.uci(), api.cp, api.nodes)


def test_multipv_lines():
    status, out, _ = run(["--depth", "2", "--multipv", "3", "-q", "startpos"])
    [item] = records(out)
    assert status == 0 and [line["multipv"] for line in item["lines"]] == [1, 2, 3]
    assert len({line["move_uci"] for line in item["lines"]}) == 3
    assert item["lines"][0]["move_uci"] == item["best_uci"]
    scores = [line["cp"] for line in item["lines"]]
    assert scores == sorted(scores, reverse=True)


def test_epd_file_bad_lines_are_reported_and_skipped(files):
    status, out, err = run(["--depth", "2", "--jobs", "1", "--quiet", files["suite.epd"]])
    items = records(out)
    assert len(items) == EPD_GOOD and status == 2  # two bad lines
    assert [item["source"] for item in items] == [files["suite.epd"] + ":%d" % n for n in (1, 5, 7)]
    assert [item["id"] for item in items] == ["BK.01", "BK.02", None]
    assert "%s:4: bad position, skipped" % files["suite.epd"] in err
    assert "%s:6: bad position, skipped: illegal position: no black king" % files["suite.epd"] in err
    for item in items:
        check_record(item)


def test_missing_file_bad_fen_and_usage_errors(files):
    status, out, err = run(["--depth", "1", "-q", "nowhere/missing.pgn", "banana", "startpos"])
    assert status == 2 and len(records(out)) == 1
    assert "nowhere/missing.pgn: cannot read: No such file or directory" in err
    assert "argument 2: not a file, and not a FEN" in err
    assert run(["--depth", "0", "startpos"])[0] == EXIT_USAGE
    assert run(["--format", "xml", "startpos"])[0] == EXIT_USAGE
    status, _, err = run([])
    assert status == EXIT_USAGE and "usage: pruner analyse" in err


def test_pgn_every_position_and_broken_game_skipped(files):
    status, out, err = run(["--depth", "2", "--jobs", "1", "-q", files["mixed.pgn"]])
    items = records(out)
    assert status == 1
    assert "mixed.pgn:6: game 2 skipped: illegal san: 'Ke3'" in err
    assert [item["game"] for item in items] == [1] * 8 + [3] * (OPERA_PLIES + 1)
    assert [item["ply"] for item in items if item["game"] == 1] == list(range(8))
    assert items[0]["move_san"] == "e4" and items[0]["source"] == files["mixed.pgn"] + ":1"
    assert items[8]["source"] == files["mixed.pgn"] + ":12"
    last = items[7]  # after 4. Qxf7#: no move, nothing to search
    assert last["game_over"] == "checkmate" and last["best_uci"] is None and last["move_uci"] is None
    assert last["mate"] == 0 and last["lines"] == []
    mating = items[6]  # 4. Qxf7# itself: played the best move, so not judged
    assert mating["move_san"] == "Qxf7#" and mating["after_white_mate"] == 0 and mating["judgement"] is None
    for item in items:
        check_record(item)
        if item["move_uci"] is not None:
            assert isinstance(item["loss"], float) and 0 <= item["loss"] <= 2 and isinstance(item["cp_loss"], int)
            assert item["judgement"] in (None, "inaccuracy", "mistake", "blunder")


def test_side_and_from_move_select_positions(files):
    _, out, _ = run(["--depth", "1", "-q", "--side", "black", "--from-move", "15", files["opera.pgn"]])
    items = records(out)
    # Black's moves from move 15, and the final position (Black to move, checkmated).
    assert [(item["move_number"], item["move_san"]) for item in items] == [(15, "Nxd7"), (16, "Nxb8"), (17, None)]
    assert all(item["after_white_cp"] is not None or item["after_white_mate"] is not None for item in items[:2])
    assert items[2]["game_over"] == "checkmate"


def test_stdin_pgn_and_epd():
    status, out, _ = run(["--depth", "1", "-q", "-"], stdin_text=SCHOLAR)
    assert status == 0 and len(records(out)) == 8 and records(out)[0]["source"] == "<stdin>:1"
    status, out, _ = run(["--depth", "1", "-q", "-"], stdin_text="startpos\n8/8/8/8/8/8/8/K6k w - - 0 1\n")
    assert status == 0 and [item["source"] for item in records(out)] == ["<stdin>:1", "<stdin>:2"]


def test_chess960_fen_is_recognised():
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    status, out, _ = run(["--depth", "2", "-q", fen])
    [item] = records(out)
    assert status == 0 and item["fen"] == fen
    assert chess.Board(fen, chess960=True).parse_uci(item["best_uci"])


def test_random_bytes_are_no_game_and_never_a_traceback(tmp_path):
    # One PGN reader decides what a game is (engine/pgn.py): a tag pair, or movetext from the
    # start (a move number or a move); a game with any PGN error is skipped. Random bytes are
    # neither a game nor a crash: python-chess skips what it cannot read, so without that rule
    # junk holding one legal move ("c4") was analysed as a game, and unbalanced parentheses
    # raised IndexError inside python-chess.
    rng = random.Random(1)
    path = tmp_path / "x.pgn"
    for number in range(300):
        path.write_bytes(bytes(rng.getrandbits(8) for _ in range(2000)))
        status, out, err = run(["--depth", "1", "--jobs", "1", "-q", str(path)])
        assert status != 0 and out == "", (number, out, err)
        assert str(path) in err and "Traceback" not in err, (number, err)


@pytest.mark.parametrize("text,message", [
    ("1. e4 ( e5 ) ) !\n", "game 1 skipped: illegal san: 'e5'"),
    ("1. e4 Nf3 ) e5 *\n", "game 1 skipped: illegal san: 'Nf3'"),   # python-chess PR #1204's case
    ('[Event "x"]\n\n1. e4 Nf3 ) ) ! *\n', "game 1 skipped: illegal san: 'Nf3'"),
])
def test_unbalanced_parentheses_are_a_skipped_game(tmp_path, text, message):
    path = tmp_path / "broken.pgn"
    path.write_text(text + "\n" + SCHOLAR)
    status, out, err = run(["--depth", "1", "--jobs", "1", "-q", str(path)])
    assert status == 1 and "%s:1: %s" % (path, message) in err, err
    assert {item["game"] for item in records(out)} == {2}


def test_python_chess_failing_on_a_game_is_reported_not_raised(tmp_path, monkeypatch):
    path = tmp_path / "games.pgn"
    path.write_text(SCHOLAR + "\n" + OPERA_GAME)
    def visit_move(self, board, move):  # python-chess failing on the second game's first move
        if self.game.headers.get("Event") == "Paris":  # (reading and analysis interleave: not a count)
            raise KeyError("unforeseen")
        return original(self, board, move)

    original = chess.pgn.GameBuilder.visit_move
    monkeypatch.setattr(chess.pgn.GameBuilder, "visit_move", visit_move)
    status, out, err = run(["--depth", "1", "--jobs", "1", "-q", str(path)])
    assert status == 1 and {item["game"] for item in records(out)} == {1}
    assert "games.pgn:6: game 2 skipped: python-chess cannot read it (KeyError: 'unforeseen')" in err, err


def test_text_that_is_not_a_game_is_reported_between_games(tmp_path):
    path = tmp_path / "notes.pgn"
    path.write_text("My notes on the games below.\n\n" + SCHOLAR + "\nthe end\n")
    status, out, err = run(["--depth", "1", "--jobs", "1", "-q", str(path)])
    assert status == 0 and {item["game"] for item in records(out)} == {1}
    assert "%s: 2 blocks of text that are not games ignored (first at line 1)" % path in err, err


def test_latin1_pgn_keeps_its_names(tmp_path):
    path = tmp_path / "latin1.pgn"
    path.write_bytes('[Event "Réti memorial"]\n[White "Réti"]\n[Black "Müller"]\n\n1. Nf3 d5 *\n'.encode("latin-1"))
    status, out, err = run(["--depth", "1", "--jobs", "1", "-q", "--format", "pgn", str(path)])
    assert status == 0 and err == ""
    game = chess.pgn.read_game(io.StringIO(out))
    assert (game.headers["White"], game.headers["Black"]) == ("Réti", "Müller")


# Issue 51, item 10b: an impossible --hash is refused before any input is read.

def test_a_hash_larger_than_the_machine_is_refused_at_the_start():
    mb = max(999999, physical_memory_mb() + 1)  # the case, or more on a larger machine
    status, out, err = run(["--hash", str(mb), "--jobs", "1", "startpos"])
    assert status == EXIT_USAGE and out == "", err
    assert "--hash %d: more than this machine's memory (%d MB)" % (mb, physical_memory_mb()) in err, err
    assert "MemoryError" not in err


def test_the_hash_of_every_worker_must_fit_in_the_memory(monkeypatch):
    monkeypatch.setattr(cli, "physical_memory_mb", lambda: 1000)
    status, out, err = run(["--hash", "600", "--jobs", "2", "--depth", "1", "startpos"])
    assert status == EXIT_USAGE and out == ""
    assert "--hash 600: 2 workers of 600 MB are more than this machine's memory (1000 MB); " \
           "at most 500 with --jobs 2" in err, err
    status, out, err = run(["--hash", "500", "--jobs", "2", "--depth", "1", "-q", "startpos"])
    assert status == 0 and len(records(out)) == 1, err


# -- positions as users give them (engine/epd.py): quirky files, split FENs, standard input --

BOARD = "2Q2n2/2R4p/1p1qpp1k/8/3P3P/3B2P1/5PK1/r7 w - -"
START_FEN = chess.STARTING_FEN
START = START_FEN.split()[0]


def run_analyse(argv, stdin_text=None):
    """``run`` with the records read: (status, records, stderr)."""
    status, out, err = run(argv, stdin_text)
    return status, records(out), err


@pytest.mark.parametrize("name", sorted(QUIRKY_FILES))
def test_pruner_analyse_reads_the_quirky_files(name):
    path = os.path.join(QUIRKY, name)
    status, items, err = run_analyse(["--depth", "1", "--jobs", "1", "-q", path])
    assert len(items) == QUIRKY_FILES[name][0], err
    if name == "mixed_quirks.epd":
        assert status != 0 and "mixed_quirks.epd:6: bad position, skipped: illegal position: too many kings" in err
        for line in QUIRKY_SUMMARY:
            assert err.count(line) == 1, err
    else:
        assert status == 0 and "ignored" not in err, err
        assert all(item["id"] for item in items)


def test_unquoted_fen_is_joined_not_misread():
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
    status, items, err = run_analyse(["--depth", "1", "-q"] + fen.split())
    assert status == 0 and [item["fen"] for item in items] == [fen]
    assert "arguments 1-6 read as one position" in err and "not a FEN" not in err


def test_unquoted_fen_then_more_arguments():
    fen = "8/8/8/8/8/8/8/K6k w - -"
    status, items, err = run_analyse(["--depth", "1", "-q"] + fen.split() + ["startpos"])
    assert status == 0 and [item["fen"] for item in items] == [fen + " 0 1", START_FEN]


def test_dash_inside_a_fen_is_not_stdin():
    # Without the join, '-' would read standard input: here an EPD line that would give a record.
    status, items, err = run_analyse(["--depth", "1", "-q", "8/8/8/8/8/8/8/K6k", "w", "-", "-"],
                                     stdin_text="startpos\n")
    assert status == 0 and [item["fen"] for item in items] == ["8/8/8/8/8/8/8/K6k w - - 0 1"]


def test_half_a_fen_is_refused_with_the_argument_named():
    status, items, err = run_analyse(["--depth", "1", "-q", "8/8/8/8/8/8/8/K6k", "x"])
    assert status != 0 and items == []
    assert "argument 2" in err


def test_ignored_parts_of_an_argument_are_reported_once():
    status, items, err = run_analyse(["--depth", "1", "-q", BOARD + " bm Zz9 Qxf8+; tcsi x;"])
    assert status == 0 and len(items) == 1
    assert err.count("argument 1: bm move 'Zz9' (not legal here) ignored") == 1, err
    assert err.count("argument 1: unknown opcode 'tcsi' ignored") == 1, err


# Issue 51, item 10c: a flood of warnings about one input is five lines and a count.

def test_ten_thousand_unknown_opcodes_of_a_file_are_five_lines_and_a_count(tmp_path):
    path = tmp_path / "ops.epd"
    path.write_text(BOARD + " " + " ".join("zq%d x;" % i for i in range(10000)) + "\n")
    status, items, err = run_analyse(["--depth", "1", "--jobs", "1", "-q", str(path)])
    assert status == 0 and len(items) == 1
    assert err.count("unknown opcode 'zq") == 5, err[:2000]
    assert err.count("%s: ... and 9,995 more unknown opcodes ignored" % path) == 1, err[-2000:]


def test_ten_thousand_unknown_opcodes_of_an_argument_are_five_lines_and_a_count():
    status, items, err = run_analyse(["--depth", "1", "-q", BOARD + " " + " ".join("zq%d x;" % i for i in range(10000))])
    assert status == 0 and len(items) == 1
    assert err.count("argument 1: unknown opcode 'zq") == 5, err[:2000]
    assert err.count("argument 1: ... and 9,995 more unknown opcodes ignored") == 1, err[-2000:]


def test_many_bad_lines_of_a_file_are_five_lines_and_a_count(tmp_path):
    path = tmp_path / "bad.epd"
    path.write_text("not a position %d\n" % 0 + "".join("not a position %d\n" % i for i in range(1, 20)) + START_FEN + "\n")
    status, items, err = run_analyse(["--depth", "1", "--jobs", "1", "-q", str(path)])
    assert status == 20 and len(items) == 1  # each bad line is still a failure
    assert err.count("bad position, skipped") == 5 and "%s:5: bad position, skipped" % path in err, err
    assert "%s:6: bad position" % path not in err
    assert err.count("%s: ... and 15 more bad positions skipped" % path) == 1, err


def test_many_broken_games_of_a_file_are_five_lines_and_a_count(tmp_path):
    path = tmp_path / "broken.pgn"
    path.write_text("\n".join([BROKEN_GAME] * 8 + [SCHOLAR]))
    status, items, err = run_analyse(["--depth", "1", "--jobs", "1", "-q", str(path)])
    assert status == 8 and items, err
    assert err.count("skipped: illegal san: 'Ke3'") == 5, err
    assert err.count("%s: ... and 3 more games skipped" % path) == 1, err


@pytest.mark.parametrize("argv", [
    [START + " b", "KQkq", "-", "0", "1"],                       # half-quoted
    [START + " b KQkq", "-", "0", "1"],
    [START + " b KQkq - 0", "1"],
])
def test_a_half_quoted_fen_is_joined_with_its_other_fields(argv):
    # Without the join: a record for '... b - - 0 1' and the '-' reads standard input.
    status, items, err = run_analyse(["--depth", "1", "-q"] + argv, stdin_text="startpos\n")
    assert status == 0 and [item["fen"] for item in items] == [START + " b KQkq - 0 1"], err
    assert "arguments 1-%d read as one position" % len(argv) in err


@pytest.mark.parametrize("argv,named", [
    ([START, "b", "KQkx", "-", "0", "1"], "castling field 'KQkx'"),
    ([START + " b", "KQkx", "-", "0", "1"], "castling field 'KQkx'"),
    ([START, "b", "KQkq", "-", "0", "x"], "fullmove number 'x'"),
    ([START + " b KQkq - 0 x"], "fullmove number 'x'"),
    ([START, "b", "KQkq", "e9", "0", "1"], "en passant field 'e9'"),
    (["startpos", "moves", "e2e4", "e7e6x"], "'e7e6x' at ply 2"),
    (["startpos moves e2e4 e7e6x"], "'e7e6x' at ply 2"),
    (["startpos", "moves", "e2e4", "e2e4"], "illegal move 'e2e4' at ply 2"),
    (["startpos moves e2e4", "e7e6x"], "'e7e6x' at ply 2"),
])
def test_a_split_fen_with_a_bad_field_gives_no_record(argv, named):
    # Never a record for a position the user did not give (the start position read from the
    # '-' as standard input, or the FEN without its bad field): the whole argument is refused.
    status, items, err = run_analyse(["--depth", "1", "-q"] + argv, stdin_text="startpos\n")
    assert status != 0 and items == [], err
    assert named in err, err
    first = "argument 1" if len(argv) == 1 else "arguments 1-%d" % len(argv)
    assert first + ": " in err and "read as one position" not in err, err
    if len(argv) > 1:
        assert "quote" in err


def test_movetext_without_tags_and_startpos_moves():
    status, items, err = run_analyse(["--depth", "1", "-q", "-"], stdin_text="1. e4 e5 2. Nf3 Nc6 *\n")
    assert status == 0 and [item["move_san"] for item in items] == ["e4", "e5", "Nf3", "Nc6", None]
    status, items, err = run_analyse(["--depth", "1", "-q", "startpos moves e2e4 e7e5"])
    assert status == 0 and [item["fen"] for item in items] == [
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]


def test_a_file_without_a_game_is_an_error(tmp_path):
    junk = tmp_path / "x.pgn"
    junk.write_bytes(bytes((n * 7919 + 13) % 256 for n in range(3000)))
    text = tmp_path / "notes.pgn"
    text.write_text("These are my notes, not a game.\n")
    for path in (junk, text):
        status, items, err = run_analyse(["--depth", "1", "-q", str(path)])
        assert status != 0 and items == []
        assert "%s: no games found (not a PGN file?)" % path in err


def test_empty_stdin_is_an_error():
    status, items, err = run_analyse(["--depth", "1", "-q", "-"], stdin_text="")
    assert status != 0 and items == [] and "<stdin>: no positions found" in err


# -- --jobs ---------------------------------------------------------------------------------

def test_jobs_two_gives_the_same_output_as_jobs_one(files):
    argv = ["--depth", "3", "-q", files["opera.pgn"], files["suite.epd"], "startpos"]
    status1, out1, err1 = run(argv + ["--jobs", "1"])
    status2, out2, err2 = run(argv + ["--jobs", "2"])
    assert status1 == status2 == 2 and err1 == err2
    assert without_time(records(out1)) == without_time(records(out2))
    pgn1 = run(argv + ["--jobs", "1", "--format", "pgn"])[1]
    pgn2 = run(argv + ["--jobs", "2", "--format", "pgn"])[1]
    assert pgn1 == pgn2 and pgn1.count("[Annotator ") == 1 + EPD_GOOD + 1


# -- CSV ------------------------------------------------------------------------------------

def test_csv_has_a_row_per_position_and_line(files):
    status, out, _ = run(["--depth", "2", "--multipv", "2", "--format", "csv", "-q", files["suite.epd"]])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == EPD_GOOD * 2 and [row["multipv"] for row in rows] == ["1", "2"] * EPD_GOOD
    _, jsonl, _ = run(["--depth", "2", "--multipv", "2", "-q", files["suite.epd"]])
    for item, row in zip(records(jsonl), rows[1::2]):
        second = item["lines"][1]
        assert row["best_uci"] == second["move_uci"] and row["pv_uci"] == " ".join(second["pv_uci"])
        assert row["fen"] == item["fen"] and row["nodes"] == str(item["nodes"])


# Issue 51, item 10a: no cell taken from the input starts a formula in a spreadsheet (OWASP's
# "CSV Injection": a cell beginning with = + - @ tab or CR gets a leading single quote, and
# text cells are quoted); numbers, a negative score among them, stay bare numbers.
LOSING = "4k3/8/8/8/8/8/8/3QK3 b - -"
"""Black to move a queen down: a negative ``cp``."""
FORMULA_IDS = ["=HYPERLINK('http://x')", "+1", "-2", "@SUM(A1)", "\tx", "'quoted"]


def test_csv_cells_from_the_input_cannot_start_a_formula(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = ['%s id "%s";' % (LOSING, text) for text in FORMULA_IDS]
    (tmp_path / "=cmd.epd").write_text("\n".join(lines) + "\n")
    status, out, err = run(["--depth", "1", "--jobs", "1", "--format", "csv", "-q", "=cmd.epd"])
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    _, jsonl, _ = run(["--depth", "1", "--jobs", "1", "-q", "=cmd.epd"])
    assert [item["id"] for item in records(jsonl)] == FORMULA_IDS  # read as they are
    assert [row["id"] for row in rows] == ["'" + text for text in FORMULA_IDS]
    assert [row["source"] for row in rows] == ["'=cmd.epd:%d" % n for n in range(1, len(lines) + 1)]
    for line in out.splitlines()[1:]:
        assert line.startswith('"\'=cmd.epd:'), line  # the escaped cell is quoted
        assert re.search(r',-[0-9]+,', line), line  # the negative cp: a bare number, no quote
    assert all(int(row["cp"]) < 0 for row in rows)


def test_csv_escaping_is_undone_when_a_run_is_resumed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "=cmd.epd").write_text("%s id =a;\n%s id =b;\n%s id =c;\n" % (LOSING, LOSING, LOSING))
    argv = ["--depth", "1", "--jobs", "1", "--format", "csv", "-q", "-o", "out.csv", "=cmd.epd"]
    assert run(argv)[0] == 0
    whole = (tmp_path / "out.csv").read_text().splitlines(keepends=True)
    (tmp_path / "out.csv").write_text("".join(whole[:2]))  # the header and the first record
    status, _, err = run(argv + ["--resume"])
    assert status == 0, err
    resumed = (tmp_path / "out.csv").read_text().splitlines(keepends=True)
    time_ms = CSV_COLUMNS.index("time_ms")
    assert [row[:time_ms] for row in csv.reader(resumed)] == [row[:time_ms] for row in csv.reader(whole)]


# -- annotated PGN --------------------------------------------------------------------------

def read_annotated(path):
    with open(str(path)) as handle:
        game = chess.pgn.read_game(handle)
        assert chess.pgn.read_game(handle) is None
    return game


MATE_TEXTS = {"mate_created": "Checkmate is now unavoidable", "mate_lost": "Lost forced checkmate sequence"}


def test_annotated_pgn_round_trips_through_python_chess(files, tmp_path):
    target = tmp_path / "annotated.pgn"
    status, out, _ = run(["--depth", "3", "--format", "pgn", "-o", str(target), "-q", files["opera.pgn"]])
    assert status == 0 and out == ""
    _, jsonl, _ = run(["--depth", "3", "-q", files["opera.pgn"]])
    items = records(jsonl)
    game = read_annotated(target)
    assert game.errors == [] and game.headers["Annotator"].endswith("(depth 3)")
    assert game.headers["White"] == "Paul Morphy"
    nodes = list(game.mainline())
    assert [node.move.uci() for node in nodes] == [item["move_uci"] for item in items[:-1]]
    nag_of = {"inaccuracy": chess.pgn.NAG_DUBIOUS_MOVE, "mistake": chess.pgn.NAG_MISTAKE,
              "blunder": chess.pgn.NAG_BLUNDER, None: None}
    judged = unjudged_alternatives = 0
    for node, item in zip(nodes, items):
        after = node.eval()
        if item["after_white_mate"] == 0:  # checkmate on the board: no [%eval]
            assert after is None
        else:
            assert after is not None
            assert (after.white().score(), after.white().mate()) == (item["after_white_cp"], item["after_white_mate"])
        assert set(node.nags) == ({nag_of[item["judgement"]]} if item["judgement"] else set())
        if item["judgement"]:
            judged += 1
            text = MATE_TEXTS.get(item["mate_judgement"], item["judgement"].capitalize())
            assert "%s. Best was %s." % (text, item["best_san"]) in node.comment
        variations = node.parent.variations
        if item["judgement"]:  # as lichess: the engine's line at judged moves only
            assert len(variations) == 2 and variations[0] is node
            line = variations[1]
            assert [n.move.uci() for n in [line] + list(line.mainline())] == item["pv_uci"]
            engine_eval = line.eval().white()
            assert (engine_eval.score(), engine_eval.mate()) == (item["white_cp"], item["white_mate"])
        else:
            assert len(variations) == 1
            unjudged_alternatives += item["best_uci"] != item["move_uci"]
    assert judged == sum(1 for item in items if item["judgement"]) and judged >= 3
    assert unjudged_alternatives >= 3  # moves that were not the best but not judged: no variation
    assert any(item["mate_judgement"] for item in items)  # 15... Nxd7 lets White mate in 2


def test_variations_all_and_none(files, tmp_path):
    _, jsonl, _ = run(["--depth", "3", "-q", files["opera.pgn"]])
    items = records(jsonl)
    for choice in ("all", "none"):
        target = tmp_path / ("%s.pgn" % choice)
        status, _, err = run(["--depth", "3", "--format", "pgn", "--variations", choice, "-o", str(target), "-q",
                              files["opera.pgn"]])
        assert status == 0, err
        nodes = list(read_annotated(target).mainline())
        for node, item in zip(nodes, items):
            variations = node.parent.variations
            if choice == "all" and item["best_uci"] != item["move_uci"]:
                assert len(variations) == 2
                assert [n.move.uci() for n in [variations[1]] + list(variations[1].mainline())] == item["pv_uci"]
            else:
                assert len(variations) == 1
    status, _, err = run(["--variations", "some", "startpos"])
    assert status == EXIT_USAGE and "--variations" in err


def test_position_input_as_pgn():
    status, out, _ = run(["--depth", "2", "--multipv", "2", "--format", "pgn", "-q", "startpos"])
    game = chess.pgn.read_game(io.StringIO(out))
    assert status == 0 and len(game.variations) == 2
    assert all(variation.eval() is not None for variation in game.variations)


# -- judging ----------------------------------------------------------------------------------

def fake(turn, score, best=None):
    from pruner.engine.analysis import Analysis
    return Analysis("", turn, best, None, None, chess.engine.PovScore(score, turn))


@pytest.mark.parametrize("before,after,expected", [
    (0, -50, None),              # 0.092 chances: not yet an inaccuracy
    (0, -60, "inaccuracy"),
    (0, -120, "mistake"),
    (0, -180, "blunder"),
    (800, 500, "inaccuracy"),    # winning either way: the same drop matters less
    (300, -300, "blunder"),
])
def test_judgement_thresholds(before, after, expected):
    played = chess.Move.from_uci("a2a3")
    best = chess.Move.from_uci("e2e4")
    # ``after`` is from the mover's (White's) view; the position after the move has Black to move.
    verdict = judge(fake(chess.WHITE, chess.engine.Cp(before), best),
                    fake(chess.BLACK, chess.engine.Cp(-after)), played)
    assert verdict.name == expected and verdict.cp_loss == before - after
    same = judge(fake(chess.WHITE, chess.engine.Cp(before), played), fake(chess.BLACK, chess.engine.Cp(-after)), played)
    assert same.name is None  # the engine's own move is never judged


def test_winning_chances_and_mates():
    assert winning_chances(chess.engine.Cp(0)) == 0
    assert winning_chances(chess.engine.Mate(3)) == winning_chances(chess.engine.Cp(5000)) > 0.95
    assert winning_chances(chess.engine.Mate(0)) == -winning_chances(chess.engine.MateGiven)
    walked_into_mate = judge(fake(chess.WHITE, chess.engine.Cp(50), chess.Move.from_uci("e2e4")),
                             fake(chess.BLACK, chess.engine.Mate(2)), chess.Move.from_uci("a2a3"))
    assert walked_into_mate.name == "blunder" and walked_into_mate.cp_loss == 1050
    assert walked_into_mate.mate == "mate_created" and walked_into_mate.text == "Checkmate is now unavoidable"


Cp, Mate = chess.engine.Cp, chess.engine.Mate


@pytest.mark.parametrize("before,after,name,mate", [
    # lichess (lila Advice.scala): a centipawn score before, mated after: "Checkmate is now unavoidable"
    (Cp(50), Mate(-2), "blunder", "mate_created"),
    (Cp(-500), Mate(-4), "blunder", "mate_created"),      # by winning chances only a mistake (0.22)
    (Cp(-800), Mate(-5), "mistake", "mate_created"),      # by winning chances not even an inaccuracy (0.05)
    (Cp(-1200), Mate(-5), "inaccuracy", "mate_created"),  # lost anyway
    (Cp(-999), Mate(-5), "mistake", "mate_created"),      # "< -999" is lichess's bound
    # mating before, not after: "Lost forced checkmate sequence"
    (Mate(3), Cp(150), "blunder", "mate_lost"),
    (Mate(3), Cp(800), "mistake", "mate_lost"),           # by winning chances 0.05: nothing
    (Mate(3), Cp(1500), "inaccuracy", "mate_lost"),
    (Mate(3), Cp(999), "mistake", "mate_lost"),           # "> 999" is lichess's bound
    (Mate(2), Mate(-3), "blunder", "mate_lost"),          # from mating to mated
    # mate changes lichess does not judge
    (Mate(2), Mate(6), None, None),                       # a slower mate
    (Cp(300), Mate(4), None, None),                       # a mate found
    (Mate(-6), Mate(-2), None, None),                     # mated either way
    (Mate(-3), Cp(-400), None, None),                     # escaped a mate
])
def test_mate_judgements_follow_lichess(before, after, name, mate):
    played, best = chess.Move.from_uci("a2a3"), chess.Move.from_uci("e2e4")
    # scores from the mover's (White's) view; the position after the move has Black to move
    verdict = judge(fake(chess.WHITE, before, best),
                    fake(chess.BLACK, chess.engine.PovScore(after, chess.WHITE).pov(chess.BLACK)), played)
    assert (verdict.name, verdict.mate) == (name, mate)
    if mate:
        nag = {"inaccuracy": chess.pgn.NAG_DUBIOUS_MOVE, "mistake": chess.pgn.NAG_MISTAKE,
               "blunder": chess.pgn.NAG_BLUNDER}[name]
        assert verdict.nag == nag
        assert verdict.text == {"mate_created": "Checkmate is now unavoidable",
                                "mate_lost": "Lost forced checkmate sequence"}[mate]
    same = judge(fake(chess.WHITE, before, played),
                 fake(chess.BLACK, chess.engine.PovScore(after, chess.WHITE).pov(chess.BLACK)), played)
    assert same.name is None and same.mate is None  # the engine's own move is never judged


def test_a_mate_judgement_in_records_and_pgn(tmp_path):
    # 1. f3 e5 2. g4?? lets Black mate at once (Qh4#): "Checkmate is now unavoidable"
    pgn = tmp_path / "fool.pgn"
    pgn.write_text('[White "A"]\n[Black "B"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')
    status, out, err = run(["--depth", "3", "-q", str(pgn)])
    assert status == 0, err
    items = records(out)
    assert [(item["judgement"], item["mate_judgement"]) for item in items][2] == ("blunder", "mate_created")
    assert all(item["mate_judgement"] is None for i, item in enumerate(items) if i != 2)
    status, out, err = run(["--depth", "3", "-q", "--format", "pgn", str(pgn)])
    node = list(chess.pgn.read_game(io.StringIO(out)).mainline())[2]
    assert node.comment.endswith("Checkmate is now unavoidable. Best was %s." % items[2]["best_san"])
    assert node.nags == {chess.pgn.NAG_BLUNDER} and len(node.parent.variations) == 2


# -- progress bar -------------------------------------------------------------------------------

def test_progress_bar_text_and_quiet_modes():
    now = [100.0]
    stream = io.StringIO()
    bar = Progress(10, stream, enabled=True, clock=lambda: now[0])
    now[0] += 2.0
    bar.advance(4)
    assert bar.text(now[0]) == "[#########...............] 4/10 positions  2.0/s  ETA 0:03"
    assert stream.getvalue().startswith("\r[#########")
    now[0] += 3.0
    bar.advance(6)
    assert "10/10 positions  2.0/s  done in 0:05" in stream.getvalue()
    bar.finish()
    assert stream.getvalue().endswith("\r")
    silent = io.StringIO()
    off = Progress(10, silent, enabled=False)
    off.advance(10)
    off.finish()
    assert silent.getvalue() == ""
    # A non-terminal stderr gets no bar, only the summary (and --quiet drops that too).
    status, _, err = run(["--depth", "1", "startpos"])
    assert status == 0 and "\r" not in err and err.startswith("pruner analyse: 1 position in ")


# -- the real command ---------------------------------------------------------------------------

def command():
    exe = shutil.which("pruner")
    return [exe, "analyse"] if exe else [sys.executable, "-m", "pruner", "analyse"]


def test_real_command_jsonl_to_stdout(files, repo_root):
    done = subprocess.run(command() + ["--depth", "2", "--jobs", "2", files["suite.epd"]], cwd=repo_root,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert done.returncode == 2
    items = records(done.stdout)
    assert len(items) == EPD_GOOD
    assert "suite.epd:4: bad position" in done.stderr and "3 positions in" in done.stderr


def _process_group(pgid: int) -> str:
    """The processes of group ``pgid`` as /proc shows them (Linux): command line, state and what
    each thread waits in, for a failure message."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc") if os.path.isdir("/proc") else []):
        try:
            if os.getpgid(int(pid)) != pgid:
                continue
            with open("/proc/%s/cmdline" % pid, "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open("/proc/%s/stat" % pid) as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
            waits = []
            for task in os.listdir("/proc/%s/task" % pid):
                with open("/proc/%s/task/%s/wchan" % (pid, task)) as handle:
                    waits.append(handle.read().strip() or "-")
            found.append("%s [%s, threads waiting in %s] %s" % (pid, state, ",".join(waits), cmdline))
        except OSError:  # it ended meanwhile
            continue
    return "; ".join(found) or "none found"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_cleanly_with_whole_lines(repo_root, tmp_path, jobs):
    """SIGINT to the whole process group, as a terminal's Ctrl-C, once output has started."""
    epd = tmp_path / "many.epd"
    epd.write_text("\n".join(["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"] * 5
                             + ["r3k2r/pp1nbppp/2p1pn2/q7/3P4/2N1PN2/PPQ1BPPP/R3K2R b KQkq - 0 10"] * 40) + "\n")
    # A terminal's Ctrl-C reaches a process whose SIGINT is live; a shell without job control
    # starts background jobs with SIGINT ignored and the child inherits that (Python then
    # installs no KeyboardInterrupt handler), so give the child the terminal's default.
    process = subprocess.Popen(command() + ["--depth", "7", "--jobs", jobs, str(epd)], cwd=repo_root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # Unbuffered, so communicate() below (which reads the pipe itself) misses nothing.
        first = process.stdout.readline().decode()  # output has started: the run is well under way
        os.killpg(process.pid, signal.SIGINT)
        try:
            rest, err = (data.decode() for data in process.communicate(timeout=30))
        except subprocess.TimeoutExpired:  # seen once in CI (PyPy, --jobs 2, a loaded machine): say where it stuck
            pytest.fail("still running 30 s after Ctrl-C, nothing more written; its processes: %s"
                        % _process_group(process.pid))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == EXIT_INTERRUPTED
    items = records(first + rest)
    assert 1 <= len(items) < 45 and all(item["depth"] == 7 for item in items)
    assert "interrupted; %d positions written" % len(items) in err and "Traceback" not in err
