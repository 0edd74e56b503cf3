#!/usr/bin/env python3
"""Check ``pruner analyse`` JSONL output: every line of every record a legal line of play.

    python3 scripts/check_pvs.py out.jsonl [more.jsonl ...]

For each record: the best move and every MultiPV line's moves are replayed with python-chess
from the record's FEN (Chess960 castling read from the FEN); each must be legal, its SAN must
be the one reported, and a line must not go on after mate or stalemate. A record with
``game_over`` must have no best move. Prints the counts and each problem (file:line); exits 1
if there is any. This is the check of issue 19's sweep (docs/results.md): the engine's own
PV integrity, seen from the outside.
"""

import json
from typing import List

import chess

from pruner.arguments import ArgumentParser


def line_problems(fen: str, moves_uci: List[str], moves_san: List[str]) -> List[str]:
    """What is wrong with one line (empty when it is a legal sequence with the reported SAN)."""
    board = chess.Board(fen, chess960=True)
    if len(moves_uci) != len(moves_san):
        return ["%d UCI moves but %d SAN moves" % (len(moves_uci), len(moves_san))]
    for number, (uci, san) in enumerate(zip(moves_uci, moves_san), 1):
        if board.is_checkmate() or board.is_stalemate():
            return ["move %d (%s) after the game ended" % (number, uci)]
        try:
            move = board.parse_uci(uci)
        except ValueError:
            return ["move %d (%s) is not legal in %s" % (number, uci, board.fen())]
        if board.san(move) != san:
            return ["move %d: SAN %r, expected %r" % (number, san, board.san(move))]
        board.push(move)
    return []


def record_problems(record: dict) -> List[str]:
    """Problems of one analyse record: its best move and each of its lines."""
    problems = []
    fen = record["fen"]
    if record.get("game_over"):
        if record.get("best_uci") is not None:
            problems.append("a best move in a finished game")
        return problems
    if record.get("best_uci") is None:
        return ["no best move in a position with legal moves"]
    problems += line_problems(fen, [record["best_uci"]], [record["best_san"]])
    problems += ["pv: %s" % problem for problem in line_problems(fen, record["pv_uci"], record["pv_san"])]
    for line in record.get("lines") or []:
        problems += ["line %s: %s" % (line["multipv"], problem)
                     for problem in line_problems(fen, line["pv_uci"], line["pv_san"])]
    return problems


def main(argv=None) -> int:
    """Check each file; print totals and problems."""
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="JSONL written by pruner analyse")
    args = parser.parse_args(argv)
    records = lines = moves = bad = 0
    for path in args.files:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                record = json.loads(text)
                records += 1
                for line in record.get("lines") or []:
                    lines += 1
                    moves += len(line["pv_uci"])
                for problem in record_problems(record):
                    bad += 1
                    print("%s:%d: %s: %s" % (path, number, record.get("source"), problem))
    print("%d records, %d lines, %d moves replayed; %d problems" % (records, lines, moves, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
