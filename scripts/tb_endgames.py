#!/usr/bin/env python3
"""Tablebase endgames against another engine: are won endings converted and drawn ones held?

Pruner and an opponent (Stockfish by default), both with the same Syzygy tables, play each
position of a small set from the side it is judged for: a won position must end in Pruner's
win (checkmate, before the fifty-move rule draws it), a drawn one must not be lost. Games are
played to the end by the rules (threefold repetition, fifty moves, insufficient material).

    python3 scripts/tb_endgames.py --syzygy tests/data/syzygy --movetime 200
    python3 scripts/tb_endgames.py --movetime 1000 --only KQvK

The set (35 positions) covers the tables in tests/data/syzygy: KQvK, KRvK, KQvKR, KPvK, KRvKR
(no KRPvKR: that table is not in the set), won and drawn, both colours, fifty-move counters near the end.

Prints one line per game and a summary; exits 1 when any position missed its expected result.
"""

import os
import shlex
import sys
import time
from typing import List, Tuple

import chess
import chess.engine

from pruner.arguments import ArgumentParser

from pruner.lab import matchlib
from pruner.lab.matchlib.engines import find_stockfish

ROOT = matchlib.ROOT

POSITIONS: List[Tuple[str, str, str]] = [
    # (FEN, expected result for the side to move in the FEN: "win" or "draw", name). Plies are
    # the tables' DTZ (to mate, to the capture or to the pawn move); a counter near its end
    # leaves 4-6 plies more than the fastest conversion needs. Drawn positions where only
    # one or two moves hold ("1 of 8 moves draws") were drawn at random from the tables.

    # wins: every one converted within the fifty-move rule
    ("8/8/8/8/3k4/8/8/R3K3 w - - 0 1", "win", "KRvK (issue 19)"),
    ("8/8/8/8/8/2k5/8/K6R w - - 40 60", "win", "KRvK, 40 half-moves on the counter"),
    ("8/8/8/3k4/5R2/8/8/K7 w - - 0 1", "win", "KRvK, 31 plies to mate"),
    ("1r6/8/3K4/8/8/8/8/6k1 b - - 0 1", "win", "KRvK, Black, 29 plies to mate"),
    ("R6K/8/8/8/3k4/8/8/8 w - - 64 80", "win", "KRvK, 29 plies to mate, counter 64"),
    ("k7/8/8/1r6/8/3K4/8/8 b - - 64 80", "win", "KRvK, Black, 29 plies, counter 64"),
    ("8/8/2k5/8/8/3r4/8/4KQ2 w - - 0 1", "win", "KQvKR, Qxd3 (issue 44)"),
    ("K7/8/8/8/8/5k2/8/1Q6 w - - 0 1", "win", "KQvK, 17 plies to mate"),
    ("qk6/8/8/8/8/4K3/8/8 b - - 0 1", "win", "KQvK, Black, 17 plies to mate"),
    ("8/5k2/8/8/8/8/7Q/K7 w - - 78 90", "win", "KQvK, 17 plies to mate, counter 78"),
    ("k7/8/8/8/8/3K4/8/q7 b - - 78 90", "win", "KQvK, Black, 17 plies, counter 78"),
    ("8/8/3k4/3r4/8/8/8/KQ6 w - - 0 1", "win", "KQvKR"),
    ("K7/8/1k1r4/8/8/5Q2/8/8 w - - 0 1", "win", "KQvKR, 57 plies to the capture"),
    ("8/8/8/4k3/6Q1/8/8/4r2K w - - 0 1", "win", "KQvKR, 53 plies to the capture"),
    ("8/8/3R2q1/3K4/8/8/8/k7 b - - 0 1", "win", "KQvKR, Black, 55 plies to the capture"),
    ("2K5/8/8/2r1k3/Q7/8/8/8 w - - 44 70", "win", "KQvKR, 51 plies, counter 44"),
    ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", "win", "KPvK, king in front"),
    ("8/8/8/8/8/2k1P3/8/4K3 w - - 0 1", "win", "KPvK, 15 plies to the promotion"),
    ("8/8/5k2/8/8/1P3K2/8/8 w - - 0 1", "win", "KPvK, 17 plies to a pawn move"),
    ("2k5/8/3p2K1/8/8/8/8/8 b - - 0 1", "win", "KPvK, Black, 15 plies to a pawn move"),
    ("8/8/8/2k5/8/5P2/8/7K w - - 80 90", "win", "KPvK, 15 plies to a pawn move, counter 80"),
    ("8/4P3/8/8/8/2k5/8/K7 w - - 0 1", "win", "KPvK, promotion at once"),
    ("k7/8/8/8/8/8/4p3/2K5 b - - 0 1", "win", "KPvK, Black, promotion at once"),
    # draws: none lost
    ("8/8/8/8/8/1k6/1P6/1K6 b - - 0 1", "draw", "KPvK, defended"),
    ("8/8/8/8/8/4k3/4P3/1K6 b - - 0 1", "draw", "KPvK, defended (2)"),
    ("8/8/4k3/8/8/8/4P3/4K3 w - - 0 1", "draw", "KPvK, the attacker cannot win"),
    ("8/8/8/5k2/4p3/6K1/8/8 w - - 0 1", "draw", "KPvK, defender, 2 of 5 moves draw"),
    ("8/8/8/P7/4k3/8/8/2K5 b - - 0 1", "draw", "KPvK, Black defends, 1 of 8 moves draws"),
    ("4k3/8/7P/8/8/8/3K4/8 b - - 90 90", "draw", "KPvK, Black defends, counter 90"),
    ("8/8/2k5/8/8/r7/5R2/4K3 w - - 0 1", "draw", "KRvKR"),
    ("8/8/2k5/8/8/r7/5R2/4K3 b - - 0 1", "draw", "KRvKR, the other side"),
    ("8/5k2/6R1/8/8/8/1r1K4/8 w - - 0 1", "draw", "KRvKR, 2 of 6 moves draw"),
    ("8/R1k5/8/4r3/5K2/8/8/8 b - - 0 1", "draw", "KRvKR, Black, 2 of 6 moves draw"),
    ("5q2/5k2/8/8/8/8/R5K1/8 w - - 0 1", "draw", "KQvKR, the rook side, 1 of 20 moves draws"),
    ("5K2/5Q2/7k/8/r7/8/8/8 b - - 0 1", "draw", "KQvKR, Black's rook, 1 of 15 moves draws"),
]


def play(fen: str, pruner: chess.engine.SimpleEngine, opponent: chess.engine.SimpleEngine,
         limit: chess.engine.Limit, max_plies: int, fen_only: bool = False) -> chess.Board:
    """One game from ``fen``, Pruner to move first; the final board. ``fen_only``: Pruner is
    sent each position as a FEN without the game's moves (as some programs send it), so it
    cannot see repetitions; the game here still ends on them."""
    board = chess.Board(fen)
    pruner_side = board.turn
    while not (board.is_game_over() or board.is_repetition(3) or board.halfmove_clock >= 100) \
            and len(board.move_stack) < max_plies:
        if board.turn == pruner_side:
            move = pruner.play(chess.Board(board.fen()) if fen_only else board, limit).move
        else:
            move = opponent.play(board, limit).move
        board.push(move)
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
    parser.add_argument("--pruner", default="%s -m pruner" % shlex.quote(sys.executable),
                        help="Pruner's command (default: this Python's -m pruner, from the repository)")
    parser.add_argument("--movetime", type=int, default=200, help="milliseconds per move (default: 200)")
    parser.add_argument("--max-plies", type=int, default=300, help="stop a game after this many plies")
    parser.add_argument("--only", default="", help="play only the positions whose name contains this text")
    parser.add_argument("--fen-only", action="store_true",
                        help="send Pruner each position as a FEN alone, without the game's moves")
    args = parser.parse_args(argv)
    positions = [entry for entry in POSITIONS if args.only in entry[2]]
    limit = chess.engine.Limit(time=args.movetime / 1000)
    pruner = chess.engine.SimpleEngine.popen_uci(shlex.split(args.pruner), cwd=ROOT)
    opponent_cmd = shlex.split(args.engine) if args.engine else [find_stockfish() or "stockfish"]
    opponent = chess.engine.SimpleEngine.popen_uci(opponent_cmd)
    failures = 0
    try:
        for engine in (pruner, opponent):
            engine.configure({"SyzygyPath": os.path.abspath(args.syzygy)})
        for fen, expected, name in positions:
            start = time.monotonic()
            pruner_side = chess.Board(fen).turn
            board = play(fen, pruner, opponent, limit, args.max_plies, args.fen_only)
            ok, ended = verdict(board, pruner_side, expected)
            failures += not ok
            print("%-4s %-46s expected %-4s: %s after %d plies (%.0f s)%s" % (
                "ok" if ok else "FAIL", name, expected, ended, len(board.move_stack),
                time.monotonic() - start, "" if ok else "  final " + board.fen()), flush=True)
    finally:
        pruner.quit()
        opponent.quit()
    print("%d of %d positions as expected (movetime %d ms%s, opponent %s)"
          % (len(positions) - failures, len(positions), args.movetime, ", FEN only" if args.fen_only else "",
             " ".join(opponent_cmd)))
    return 1 if failures else 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
