"""engine/openings.py: opening names by position from lichess's chess-openings data set.

Expectations come from the data file itself (read here with the csv module and python-chess's
PGN reader, not through the module) and from lichess's own ECO/Opening headers on real games.
"""

import csv
import gzip
import io
import os

import chess
import chess.pgn
import pytest

from pruner.engine import openings
from paths import ROOT

IMMORTAL = "1. e4 e5 2. f4 exf4 3. Bc4 Qh4+ 4. Kf1 b5 5. Bxb5 Nf6 6. Nf3 Qh6 7. d3 Nh5 8. Nh4 Qg5 9. Nf5 c6"
NIMZO_BY_THE_ENGLISH = "1. c4 e6 2. Nc3 Nf6 3. d4 Bb4 4. e3 O-O"
"""A Nimzo-Indian reached through the English move order: no entry has these moves."""
LICHESS_GAMES = os.path.join(ROOT, "docs", "data", "lichess_2026-06_800-1999.pgn.gz")


@pytest.fixture(scope="module")
def rows():
    """The data file's entries as ``(eco, name, pgn)``, read without pruner.engine.openings."""
    with gzip.open(openings.DATA_FILE, "rt", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert next(reader) == ["eco", "name", "pgn"]
        return [tuple(row) for row in reader]


def sans(pgn):
    return [token for token in pgn.split() if not token[0].isdigit()]


def game_of(moves):
    return chess.pgn.read_game(io.StringIO(moves))


def test_every_entry_is_keyed_by_the_position_its_moves_reach(rows):
    table = openings.table()
    assert len(rows) > 3000 and len(table) == len(rows)  # the data set promises one entry per position
    for eco, name, pgn in rows[::7]:  # every 7th: python-chess's PGN reader replays it independently
        board = game_of(pgn).end().board()
        assert table[board.epd()] == openings.Opening(eco, name, pgn)
    assert os.path.getsize(openings.DATA_FILE) < 512 * 1024


def test_a_game_gets_its_longest_named_beginning(rows):
    played = sans(IMMORTAL)
    named = [row for row in rows if played[:len(sans(row[2]))] == sans(row[2])]
    longest = max(named, key=lambda row: len(sans(row[2])))
    game = game_of(IMMORTAL)
    ply, opening = openings.classify(game.board(), game.mainline_moves())
    assert (opening.eco, opening.name, opening.pgn) == longest and ply == len(sans(longest[2]))
    assert opening.text == "%s %s" % longest[:2]
    # only the first plies count: lichess's limit, here 4 plies
    ply, opening = openings.classify(game.board(), game.mainline_moves(), max_plies=4)
    assert ply == 4 and opening.pgn == "1. e4 e5 2. f4 exf4"


def test_a_transposed_move_order_gets_the_positions_name(rows):
    by_moves = [row for row in rows if sans(NIMZO_BY_THE_ENGLISH)[:len(sans(row[2]))] == sans(row[2])]
    assert max(len(sans(row[2])) for row in by_moves) == 2  # by its own moves only "1. c4 e6" is named
    nimzo = next(row for row in rows if row[2] == "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. e3 O-O")
    game = game_of(NIMZO_BY_THE_ENGLISH)
    ply, opening = openings.classify(game.board(), game.mainline_moves())
    assert ply == 8 and (opening.eco, opening.name, opening.pgn) == nimzo


def test_a_game_from_a_named_position_and_an_unnamed_one():
    start = game_of("1. e4 e5 2. f4").end().board()
    ply, opening = openings.classify(start, [])
    assert ply == 0 and opening == openings.opening_at(start) and opening.pgn == "1. e4 e5 2. f4"
    odd = chess.Board("rnbqkbnr/1ppppp1p/6p1/6B1/p7/3P4/PPPNPPPP/R2QKBNR w KQkq - 0 4")
    assert openings.classify(odd, [chess.Move.from_uci("e2e3")]) is None


def test_the_names_agree_with_lichesss_own_headers():
    """lichess names its games with (an earlier version of) the same data set: the first 100
    games of docs/data carry its ECO and Opening headers."""
    agree = total = 0
    with gzip.open(LICHESS_GAMES, "rt", encoding="utf-8") as handle:
        while total < 100:
            game = chess.pgn.read_game(handle)
            found = openings.classify(game.board(), game.mainline_moves())
            total += 1
            agree += found is not None and (found[1].eco, found[1].name) == (game.headers["ECO"], game.headers["Opening"])
    assert agree >= 97, "%d of %d agree" % (agree, total)


def test_a_malformed_table_is_named(tmp_path):
    path = tmp_path / "bad.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("eco\tname\tpgn\nC20\tKing's Pawn Game\t1. e4\nC99\tNonsense\t1. e4 Ke7 2. Kxe8\n")
    with pytest.raises(ValueError, match=r"bad\.tsv\.gz: C99 Nonsense: illegal san: 'Ke7'"):
        openings.read_table(str(path))
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("eco\tname\tpgn\nC20\tKing's Pawn Game\n")
    with pytest.raises(ValueError, match=r"bad\.tsv\.gz:2: expected 3 tab-separated columns, got 2"):
        openings.read_table(str(path))
