"""scripts/check_pvs.py: the outside check of pruner analyse's lines (issue 19's sweep)."""

import json

import chess
import pytest

import check_pvs
from pruner.analyse_app.cli import main as analyse

pytestmark = pytest.mark.one_interpreter

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


def record(fen, pv_uci, game_over=None):
    board = chess.Board(fen)
    sans = []
    for uci in pv_uci:
        move = chess.Move.from_uci(uci)
        sans.append(board.san(move) if move in board.legal_moves else "??")
        if move in board.legal_moves:
            board.push(move)
    best = None if game_over else pv_uci[0]
    return {"source": "x:1", "fen": fen, "game_over": game_over, "best_uci": best,
            "best_san": sans[0] if best else None, "pv_uci": pv_uci, "pv_san": sans,
            "lines": [{"multipv": 1, "pv_uci": pv_uci, "pv_san": sans}]}


def test_a_legal_line_passes_and_each_kind_of_fault_is_named():
    assert check_pvs.record_problems(record(chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3"])) == []
    stale = check_pvs.record_problems(record(chess.STARTING_FEN, ["e2e4", "e2e4"]))
    where = "move 2 (e2e4) is not legal in rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert stale == ["pv: " + where, "line 1: " + where]
    after_mate = check_pvs.record_problems(record(MATE_IN_ONE, ["a1a8", "g8h8"][:1] + ["h2h3"]))
    assert after_mate == ["pv: move 2 (h2h3) after the game ended", "line 1: move 2 (h2h3) after the game ended"]
    wrong_san = record(chess.STARTING_FEN, ["g1f3"])
    wrong_san["lines"][0]["pv_san"] = ["Nh3"]  # the top-level pv keeps the right one
    assert check_pvs.record_problems(wrong_san) == ["line 1: move 1: SAN 'Nh3', expected 'Nf3'"]
    assert check_pvs.record_problems(dict(record(chess.STARTING_FEN, ["e2e4"]), game_over="checkmate")) == [
        "a best move in a finished game"]


def test_the_real_output_of_pruner_analyse_passes(tmp_path, capsys):
    epd = tmp_path / "m.epd"
    epd.write_text("6R1/8/4B3/5Q2/4P3/3k1K2/8/8 w - - id \"m5\";\n%s id \"m1\";\n" % MATE_IN_ONE[:-4])
    out = tmp_path / "out.jsonl"
    assert analyse(["-q", "--depth", "5", "--multipv", "3", "-o", str(out), str(epd)]) == 0
    assert len(out.read_text().splitlines()) == 2
    assert check_pvs.main([str(out)]) == 0
    assert capsys.readouterr().out.endswith("2 records, 6 lines, %d moves replayed; 0 problems\n" % sum(
        len(line["pv_uci"]) for text in out.read_text().splitlines() for line in json.loads(text)["lines"]))
    text = out.read_text()
    for spoiled in (text.replace('"pv_uci": ["', '"pv_uci": ["a1a1", "', 1),    # the top-level pv
                    text.replace('"pv_uci": ["', '"pv_uci": ["a1a1", "', 2).replace(
                        '"pv_uci": ["a1a1", "', '"pv_uci": ["', 1)):                 # its first line
        out.write_text(spoiled)
        assert check_pvs.main([str(out)]) == 1
