#!/usr/bin/env python3
"""Tablebase endgames against another engine: are won endings converted and drawn ones held?

Pruner and an opponent (Stockfish by default), both with the same Syzygy tables, play each
position of a small set from the side it is judged for: a won position must end in Pruner's
win (checkmate, before the fifty-move rule draws it), a drawn one must not be lost. Games are
played to the end by the rules (threefold repetition, fifty moves, insufficient material).

    python3 scripts/tb_endgames.py --syzygy tests/data/syzygy --movetime 200

Prints one line per game and a summary; exits 1 when any position missed its expected result.
"""

import os
import shlex
import sys
import time
from typing import List, Tuple

import chess
import chess.engine

from protocol.arguments import ArgumentParser

import matchlib
from matchlib.engines import find_stockfish

ROOT = matchlib.ROOT

POSITIONS: List[Tuple[str, str, str]] = [
    # (FEN, expected result for the side to move in the FEN: "win" or "draw", name)
    ("8/8/8/8/3k4/8/8/R3K3 w - - 0 1", "win", "KRvK (issue 19)"),
    ("8/8/8/8/8/2k5/8/K6R w - - 40 60", "win", "KRvK, 40 half-moves on the counter"),
    ("8/8/3k4/3r4/8/8/8/KQ6 w - - 0 1", "win", "KQvKR"),
    ("K7/8/1k1r4/8/8/5Q2/8/8 w - - 0 1", "win", "KQvKR, 57 plies to the capture"),
    ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", "win", "KPvK, king in front"),
    ("8/8/8/8/8/2k1P3/8/4K3 w - - 0 1", "win", "KPvK, 15 plies to the promotion"),
    ("8/8/8/8/8/1k6/1P6/1K6 b - - 0 1", "draw", "KPvK, defended"),
    ("8/8/8/8/8/4k3/4P3/1K6 b - - 0 1", "draw", "KPvK, defended (2)"),
    ("8/8/4k3/8/8/8/4P3/4K3 w - - 0 1", "draw", "KPvK, the attacker cannot win"),
    ("8/8/2k5/8/8/r7/5R2/4K3 w - - 0 1", "draw", "KRvKR"),
    ("8/8/2k5/8/8/r7/5R2/4K3 b - - 0 1", "draw", "KRvKR, the other side"),
]


def play(fen: str, pruner: chess.engine.SimpleEngine, opponent: chess.engine.SimpleEngine,
         limit: chess.engine.Limit, max_plies: int) -> chess.Board:
    """One game from ``fen``, Pruner to move first; the final board."""
    board = chess.Board(fen)
    pruner_side = board.turn
    while not (board.is_game_over() or board.is_repetition(3) or board.halfmove_clock >= 100) \
            and len(board.move_stack) < max_plies:
        engine = pruner if board.turn == pruner_side else opponent
        board.push(engine.play(board, limit).move)
    return board


def verdict(board: chess.Board, pruner_side: chess.Color, expected: str) -> Tuple[bool, str]:
    """(as expected?, how the game ended)."""
    if board.is_checkmate():
        winner = not board.turn
        ended = "%s mates" % ("Pruner" if winner == pruner_side else "the opponent")
        return winner == pruner_side, ended  # a drawn position may be won, never lost
    reason = ("threefold repetition" if board.is_repetition(3) else "fifty-move rule" if board.halfmove_clock >= 100
              else "stalemate" if board.is_stalemate() else "insufficient material"
              if board.is_insufficient_material() else "move limit")
    return expected == "draw", "draw by " + reason


def main(argv=None) -> int:
    """Run ``tb_endgames.py``: play every position and print the games and a summary; 1 when any missed."""
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--syzygy", default=os.path.join(ROOT, "tests", "data", "syzygy"),
                        help="Syzygy directory for both engines (default: tests/data/syzygy)")
    parser.add_argument("--engine", help="the opponent's command (default: stockfish on PATH, else "
                        "/usr/games/stockfish)")
    parser.add_argument("--pruner", default="%s -m protocol" % shlex.quote(sys.executable),
                        help="Pruner's command (default: this Python's -m protocol, from the repository)")
    parser.add_argument("--movetime", type=int, default=200, help="milliseconds per move (default: 200)")
    parser.add_argument("--max-plies", type=int, default=300, help="stop a game after this many plies")
    args = parser.parse_args(argv)
    limit = chess.engine.Limit(time=args.movetime / 1000)
    pruner = chess.engine.SimpleEngine.popen_uci(shlex.split(args.pruner), cwd=ROOT)
    opponent_cmd = shlex.split(args.engine) if args.engine else [find_stockfish() or "stockfish"]
    opponent = chess.engine.SimpleEngine.popen_uci(opponent_cmd)
    failures = 0
    try:
        for engine in (pruner, opponent):
            engine.configure({"SyzygyPath": os.path.abspath(args.syzygy)})
        for fen, expected, name in POSITIONS:
            start = time.monotonic()
            pruner_side = chess.Board(fen).turn
            board = play(fen, pruner, opponent, limit, args.max_plies)
            ok, ended = verdict(board, pruner_side, expected)
            failures += not ok
            print("%-4s %-38s expected %-4s: %s after %d plies (%.0f s)%s" % (
                "ok" if ok else "FAIL", name, expected, ended, len(board.move_stack),
                time.monotonic() - start, "" if ok else "  final " + board.fen()), flush=True)
    finally:
        pruner.quit()
        opponent.quit()
    print("%d of %d positions as expected (movetime %d ms, opponent %s)"
          % (len(POSITIONS) - failures, len(POSITIONS), args.movetime, " ".join(opponent_cmd)))
    return 1 if failures else 0


if __name__ == "__main__":
    from matchlib import cli
    cli.run(main)
