"""engine/epd.py: EPD/FEN lines and files as other tools write them (tests/data/quirky).

The programs that read positions through it are tested with each program: command lines as
users type them and the quirky files through ``pruner analyse`` in
tests/analyse/test_analyse_cli.py, the quirky files as a suite in tests/scripts/test_suite.py,
match openings and scripts/match.py's argument errors in tests/scripts/test_match.py.

Each quirk has a line that python-chess alone refuses (checked first), so a regression of the
lenient reader cannot hide behind python-chess.
"""

import os
import re

import chess
import pytest

from pruner.engine.epd import EpdReader, SkippedLine

from paths import QUIRKY, QUIRKY_FILES, QUIRKY_SUMMARY

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


def test_many_kinds_of_one_category_are_summarised_after_the_first_five():
    # 10,000 different unknown opcodes are one category: five worded, the rest counted in one
    # line, so a hostile file cannot flood stderr (issue 51, item 10c).
    reader = EpdReader()
    line = BOARD + " " + " ".join("zq%d x;" % i for i in range(10000)) + " dm x;"
    assert len(list(reader.read([line]))) == 1
    summary = reader.summary()
    assert summary[:5] == ["1 line: unknown opcode 'zq%d' ignored (first at line 1)" % i for i in range(5)]
    assert summary[5:] == ["1 line: dm operand 'x' (not an integer) ignored (first at line 1)",
                           "... and 9,995 more unknown opcodes ignored"]


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

@pytest.mark.parametrize("name", sorted(QUIRKY_FILES))
def test_quirky_files_are_read_in_full(name):
    path = os.path.join(QUIRKY, name)
    reader = EpdReader()
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        items = list(reader.read(handle))
    records = [item for item in items if not isinstance(item, SkippedLine)]
    assert len(records) == QUIRKY_FILES[name][0]
    assert reader.summary() == (QUIRKY_SUMMARY if name == "mixed_quirks.epd" else [])
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
