"""engine/epd.py and the programs that read positions through it: EPD/FEN files as other tools
write them (tests/data/quirky), command lines as users type them, and scripts/match.py's
argument errors.

Each quirk has a line that python-chess alone refuses (checked first), so a regression of the
lenient reader cannot hide behind python-chess.
"""

import io
import json
import os
import re
import subprocess
import sys

import chess
import pytest

from engine.epd import EpdReader, SkippedLine
from protocol.analyse.cli import main as analyse_main

from matchlib.epdsuite import load_suite
from matchlib.openings import load_openings
from paths import ROOT, SCRIPTS

QUIRKY = os.path.join(ROOT, "tests", "data", "quirky")

BOARD = "2Q2n2/2R4p/1p1qpp1k/8/3P3P/3B2P1/5PK1/r7 w - -"
START_FEN = chess.STARTING_FEN

# (quirk, line, what the reader must find): each line is one that python-chess refuses.
QUIRKS = [
    ("unquoted id (SBD, LCT II)", BOARD + " bm Qxf8+; id  sbd.001;", {"bm": ["c8f8"], "id": "sbd.001"}),
    ("counters before the operations (Kaufman)", BOARD + " 0 1 ; bm Qxf8+;", {"bm": ["c8f8"]}),
    ("operations without semicolons", BOARD + " 0 1 bm Qxf8+ dm 26", {"bm": ["c8f8"], "dm": 26}),
    ("annotated move", BOARD + " bm Qxf8+!; id \"a\";", {"bm": ["c8f8"], "id": "a"}),
    ("lone check sign after a move", BOARD + " bm Qxf8 +; id \"b\";", {"bm": ["c8f8"], "id": "b"}),
    ("move list broken by a semicolon", BOARD + " bm Qxf8+; Qe8 +; id \"c\";", {"bm": ["c8f8", "c8e8"], "id": "c"}),
    ("UCI move", BOARD + " bm c8f8 c7c8q; id \"d\";", {"bm": ["c8f8"], "id": "d"}),
    ("unquoted c0 text", BOARD + " bm Qxf8+; c0 from a magazine, 1999;", {"bm": ["c8f8"], "c0": "from a magazine, 1999"}),
]


def found(ops):
    out = {}
    for key, value in ops.items():
        if isinstance(value, list):
            out[key] = [move.uci() for move in value]
        elif isinstance(value, chess.Move):
            out[key] = value.uci()
        else:
            out[key] = value
    return out


@pytest.mark.parametrize("quirk,line,expected", QUIRKS, ids=[q[0] for q in QUIRKS])
def test_each_quirk_is_read(quirk, line, expected):
    with pytest.raises(ValueError):
        chess.Board.from_epd(line)
    reader = EpdReader()
    board, ops = reader.parse(line, 1)
    assert board.board_fen() == BOARD.split()[0] and board.turn == chess.WHITE
    assert {key: value for key, value in found(ops).items() if key in expected} == expected


def test_line_junk_is_cleaned_and_comments_skipped():
    reader = EpdReader()
    lines = ["\ufeff# a comment\r\n", "\r\n", "% another\n", "// and another\n", "; and a last one\n",
             BOARD + ' bm Qxf8+; id "x";\x00\x00  \r\n', "\t" + BOARD + " bm Qxf8+\t\x1a\n"]
    items = list(reader.read(lines))
    assert [item.number for item in items] == [6, 7]
    assert all(not isinstance(item, SkippedLine) for item in items)
    assert [found(item.ops)["bm"] for item in items] == [["c8f8"], ["c8f8"]]
    assert reader.summary() == []


def test_ignored_parts_are_counted_per_kind_and_reported_once():
    reader = EpdReader()
    lines = [BOARD + " bm Zz9 Qxf8+; tcsi \"a\";", BOARD + " bm Qxf8+; tcsi \"b\"; dm x;", BOARD + " tcsi c;"]
    items = list(reader.read(lines))
    assert len(items) == 3 and all(found(item.ops).get("bm", ["c8f8"]) == ["c8f8"] for item in items)
    assert reader.summary() == [
        "1 line: bm move 'Zz9' (not legal here) ignored (first at line 1)",
        "3 lines: unknown opcode 'tcsi' ignored (first at line 1)",
        "1 line: dm operand 'x' (not an integer) ignored (first at line 2)",
    ]


def test_a_line_is_skipped_only_for_its_board():
    reader = EpdReader()
    lines = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w KQkq - bm e4;",   # two white kings
             "this is not a position",
             "8/8/8/8/8/8/8/K6k w - - bm Kb2 nonsense nonsense;"]               # bad ops, good board
    items = list(reader.read(lines))
    assert [type(item).__name__ for item in items] == ["SkippedLine", "SkippedLine", "EpdRecord"]
    assert items[0].reason == "illegal position: too many kings"
    assert items[1].reason.startswith("not a FEN or EPD position")
    assert found(items[2].ops) == {"bm": ["a1b2"]}


def test_fen_forms_counters_chess960_and_uci_moves():
    reader = EpdReader()
    board, ops = reader.parse(BOARD + " bm Qxf8+; hmvc 12; fmvn 40;")
    assert (board.halfmove_clock, board.fullmove_number) == (12, 40)
    board, _ = reader.parse("bnrbkrqn/pppppppp/8/8/8/8/PPPPPPPP/BNRBKRQN w FCfc - 0 1")
    assert board.chess960 and board.has_kingside_castling_rights(chess.WHITE)
    board, _ = reader.parse("startpos moves e2e4 e7e5")
    assert board.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert len(board.move_stack) == 2  # the history is kept, for repetitions
    with pytest.raises(ValueError, match="illegal move 'e2e5' at ply 1"):
        reader.parse("startpos moves e2e5")


# -- the board fields are read strictly: a bad one refuses the line, never drops the field ------

START = START_FEN.split()[0]


@pytest.mark.parametrize("line,reason", [
    (START + " w KQkz - 0 1", "castling field 'KQkz'"),
    (START + " w e3 0 1", "castling field 'e3'"),
    (START + " w KQkq e9 0 1", "en passant field 'e9'"),
    (START + " w KQkq e9 bm e4;", "en passant field 'e9'"),
    (START + " b KQkq - 0 x", "fullmove number 'x'"),
    (START + " w KQkq - 0x 1", "halfmove clock '0x'"),
    (START + " w KQkq - -1 1", "halfmove clock '-1'"),
    (START + " w KQkq - 0 1x; bm e4;", "fullmove number '1x'"),
    (START + " w ; bm e4;", "no castling field"),
])
def test_a_bad_board_field_refuses_the_line(line, reason):
    reader = EpdReader()
    [item] = list(reader.read(["", line], first_number=7))
    assert isinstance(item, SkippedLine) and item.number == 8
    assert reason in item.reason and "bad" in item.reason, item.reason
    assert reader.summary() == []  # nothing of a refused line is counted as ignored
    with pytest.raises(ValueError, match=re.escape(reason)):
        reader.parse(line)


def test_counters_directly_followed_by_a_semicolon():
    reader = EpdReader()
    board, ops = reader.parse("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3; bm Bb5;", 1)
    assert (board.halfmove_clock, board.fullmove_number) == (2, 3)
    assert found(ops) == {"bm": ["f1b5"]} and reader.summary() == []
    board, ops = reader.parse(START + " w KQkq - 4;bm e4", 2)
    assert (board.halfmove_clock, board.fullmove_number) == (4, 1) and found(ops) == {"bm": ["e2e4"]}
    assert reader.summary() == []


@pytest.mark.parametrize("line", [START + " w KQkq - 5", START + " w KQkq - 5 bm e4;", START + " w KQkq - 5 ;"])
def test_one_bare_counter_is_the_halfmove_clock(line):
    # As python-chess's FEN parser (and Stockfish) read a five-field FEN.
    assert chess.Board(" ".join(line.split()[:5])).halfmove_clock == 5
    reader = EpdReader()
    board, ops = reader.parse(line, 1)
    assert (board.halfmove_clock, board.fullmove_number) == (5, 1)
    assert "5" not in ops and reader.summary() == []


def test_lines_python_chess_accepts_are_checked_too():
    # python-chess reads these lines alone: an unknown opcode kept silently, 'id 5' as an integer.
    line = START + ' w KQkq - bm e4; tcsi "x"; id 5;'
    assert chess.Board.from_epd(line)[1]["id"] == 5
    reader = EpdReader()
    board, ops = reader.parse(line, 3)
    assert found(ops) == {"bm": ["e2e4"], "id": "5"}
    assert reader.summary() == ["1 line: unknown opcode 'tcsi' ignored (first at line 3)"]


# -- the quirky files: read in full by every program ---------------------------------------------

FIXTURES = {  # file: (lines with a position, positions with something to find for a suite)
    "sbd_style.epd": (12, 12),
    "lct2_style.epd": (10, 10),
    "kaufman_style.epd": (10, 10),
    "mate_style.epd": (10, 10),
    "mixed_quirks.epd": (6, 5),
}
MIXED_SUMMARY = [
    "1 line: unknown opcode 'tcsi' ignored (first at line 3)",
    "1 line: bm move 'Zz9' (not legal here) ignored (first at line 4)",
    "1 line: dm operand 'x' (not an integer) ignored (first at line 7)",
]


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_quirky_files_are_read_in_full(name):
    path = os.path.join(QUIRKY, name)
    reader = EpdReader()
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        items = list(reader.read(handle))
    records = [item for item in items if not isinstance(item, SkippedLine)]
    assert len(records) == FIXTURES[name][0]
    assert reader.summary() == (MIXED_SUMMARY if name == "mixed_quirks.epd" else [])
    if name != "mixed_quirks.epd":
        assert all(item.id and (item.ops.get("bm") or item.ops.get("am")) for item in records)
        with open(path, "rb") as handle:  # the file's own python-chess refusals are what is tested
            raw = [line for line in handle.read().decode("utf-8", "replace").splitlines()
                   if line.strip("\x00\x1a \t") and line[:1] not in "#%"]
        refused = 0
        for line in raw:
            try:
                chess.Board.from_epd(line.strip())
            except ValueError:
                refused += 1
        assert refused == len(raw), "%s: python-chess reads it alone, the fixture tests nothing" % name


def test_mate_suite_fixture_keeps_its_mate_distances():
    reader = EpdReader()
    with open(os.path.join(QUIRKY, "mate_style.epd"), encoding="utf-8") as handle:
        records = list(reader.read(handle))
    assert [record.id for record in records] == ["M%02d" % n for n in range(1, 11)]
    assert all(1 <= record.ops["dm"] <= 4 for record in records)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_suite_script_reads_the_quirky_files(name):
    reports = []
    positions = load_suite(os.path.join(QUIRKY, name), report=reports.append)
    assert len(positions) == FIXTURES[name][1]
    summary = [line.split(": ", 1)[1] for line in reports if ": skipped: " not in line]
    assert summary == (MIXED_SUMMARY if name == "mixed_quirks.epd" else [])


def run_analyse(argv, stdin_text=None):
    out, err = io.StringIO(), io.StringIO()
    status = analyse_main(list(argv), stdout=out, stderr=err,
                          stdin=io.StringIO(stdin_text) if stdin_text is not None else None)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_pruner_analyse_reads_the_quirky_files(name):
    path = os.path.join(QUIRKY, name)
    status, items, err = run_analyse(["--depth", "1", "--jobs", "1", "-q", path])
    assert len(items) == FIXTURES[name][0], err
    if name == "mixed_quirks.epd":
        assert status != 0 and "mixed_quirks.epd:6: bad position, skipped: illegal position: too many kings" in err
        for line in MIXED_SUMMARY:
            assert err.count(line) == 1, err
    else:
        assert status == 0 and "ignored" not in err, err
        assert all(item["id"] for item in items)


# -- command lines ------------------------------------------------------------------------------

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


# -- match openings from PGN: the same reader as pruner analyse ----------------------------------

def test_pgn_openings_refuse_a_file_without_a_game(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_text("hello world\n")
    with pytest.raises(ValueError, match=re.escape("%s: no games found (not a PGN file?)" % path)):
        load_openings(str(path))


def test_pgn_openings_refuse_a_broken_game_without_crashing(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_text("1. e4 ( e5 ) ) !\n")  # python-chess alone raises IndexError on it
    with pytest.raises(ValueError, match=re.escape("%s:1: game 1: illegal san: 'e5'" % path)):
        load_openings(str(path))


def test_pgn_openings_read_latin1(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_bytes('[Event "a"]\n[Opening "Réti"]\n\n1. Nf3 d5 *\n'.encode("latin-1"))
    [opening] = load_openings(str(path))
    assert opening.label == "book.pgn:game 1 (Réti)" and [m.uci() for m in opening.moves] == ["g1f3", "d7d5"]


# -- scripts/match.py ---------------------------------------------------------------------------

def run_match(*args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", "pruner"] + list(args),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args,message", [
    (["--tc", "1+x"], "--tc 1+x"),
    (["--tc", "1+0.1", "--games", "3"], "--games 3: games come in pairs"),
    (["--tc", "1+0.1", "--jobs", "0"], "--jobs must be at least 1"),
    (["--tc", "1+0.1", "--openings", "nowhere.epd"], "--openings nowhere.epd"),
])
def test_match_argument_errors_name_the_flag(args, message):
    proc = run_match(*args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_match_from_the_start_position_only_is_loud(tmp_path):
    proc = run_match("--depth", "1", "--games", "2", "--openings", "startpos",
                     "--pgn", str(tmp_path / "m.pgn"), "--max-moves", "2")
    assert "WARNING: every game starts from the start position" in proc.stderr, proc.stderr
