#!/usr/bin/env python3
"""A tiny fake UCI engine for testing the match and suite runners.

It plays a seeded random legal move at once and can misbehave on purpose:

    fake_uci.py                         a well-behaved random mover
    fake_uci.py --crash-after 3         exits (code 3) instead of its 4th move of a game
    fake_uci.py --illegal-after 3       answers its 4th move with an illegal move
    fake_uci.py --garbage-after 3       answers its 4th move with 'bestmove banana' (no info line)
    fake_uci.py --sleep-after 3 --sleep 30
                                        sleeps 30 s before its 4th move (past any short clock)
    fake_uci.py --fail-start exit       exits before answering 'uci'
    fake_uci.py --fail-start hang       never answers 'uci'
    fake_uci.py --score -500            reports 'score cp -500' with every move
    fake_uci.py --best e2e4             plays this move when legal (for suite tests)
    fake_uci.py --elo-range 1350:2850   also declares UCI_LimitStrength and UCI_Elo (spin, this
                                        range), as Stockfish does; setting them changes nothing
    fake_uci.py --barrier DIR:3         answers its first 'go' only once 3 engines given the same
                                        DIR have answered 'uci' (each leaves a file there); for
                                        tests that need several engines running at once

Moves are counted from 'ucinewgame'.
"""

import argparse
import os
import random
import sys
import time

import chess


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="FakeUCI")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--crash-after", type=int)
    parser.add_argument("--illegal-after", type=int)
    parser.add_argument("--garbage-after", type=int)
    parser.add_argument("--sleep-after", type=int)
    parser.add_argument("--sleep", type=float, default=30.0)
    parser.add_argument("--fail-start", choices=["exit", "hang"])
    parser.add_argument("--score", type=int, default=0)
    parser.add_argument("--best", action="append", default=[], help="preferred moves (UCI)")
    parser.add_argument("--barrier", help="DIR:N, see above")
    parser.add_argument("--elo-range", help="MIN:MAX, see above")
    args = parser.parse_args()

    if args.fail_start == "exit":
        print("fake engine: refusing to start", file=sys.stderr, flush=True)
        sys.exit(1)

    rng = random.Random(args.seed)
    board = chess.Board()
    chess960 = False
    moves_played = 0
    barrier_passed = args.barrier is None

    def send(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            if args.fail_start == "hang":
                time.sleep(3600)
            send("id name %s" % args.name)
            send("id author Pruner tests")
            send("option name Hash type spin default 16 min 1 max 1024")
            send("option name UCI_Chess960 type check default false")
            if args.elo_range:
                low, high = args.elo_range.split(":")
                send("option name UCI_LimitStrength type check default false")
                send("option name UCI_Elo type spin default %s min %s max %s" % (low, low, high))
            if args.barrier is not None:
                folder = args.barrier.rsplit(":", 1)[0]
                open(os.path.join(folder, "engine-%d" % os.getpid()), "w").close()
            send("uciok")
        elif command == "isready":
            send("readyok")
        elif command == "setoption":
            text = " ".join(words[1:])
            if text.lower().startswith("name uci_chess960 value"):
                chess960 = text.split()[-1].lower() == "true"
        elif command == "ucinewgame":
            moves_played = 0
        elif command == "position":
            if words[1] == "startpos":
                board = chess.Board(chess960=chess960)
                rest = words[2:]
            else:
                board = chess.Board(" ".join(words[2:8]), chess960=chess960)
                rest = words[8:]
            if rest and rest[0] == "moves":
                for uci in rest[1:]:
                    board.push_uci(uci)
        elif command == "go":
            if not barrier_passed:  # a barrier, not a delay: it waits for the other engines' files
                folder, count = args.barrier.rsplit(":", 1)
                deadline = time.monotonic() + 60
                while len(os.listdir(folder)) < int(count) and time.monotonic() < deadline:
                    time.sleep(0.01)
                barrier_passed = True
            if args.crash_after is not None and moves_played >= args.crash_after:
                print("fake engine: crashing on purpose", file=sys.stderr, flush=True)
                sys.exit(3)
            if args.sleep_after is not None and moves_played >= args.sleep_after:
                time.sleep(args.sleep)
            moves_played += 1
            legal = list(board.legal_moves)
            if args.illegal_after is not None and moves_played > args.illegal_after:
                empty = next(sq for sq in chess.SQUARES if board.piece_at(sq) is None)
                send("bestmove %s" % chess.Move(empty, (empty + 8) % 64).uci())
                continue
            if args.garbage_after is not None and moves_played > args.garbage_after:
                send("bestmove banana")
                continue
            preferred = [move for move in legal if move.uci() in args.best]
            move = preferred[0] if preferred else rng.choice(legal)
            send("info depth 1 score cp %d nodes 1 time 0 pv %s" % (args.score, move.uci()))
            send("bestmove %s" % move.uci())
        elif command == "quit":
            break


if __name__ == "__main__":
    main()
