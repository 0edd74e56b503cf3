#!/usr/bin/env python3
"""A very long legal ``position startpos moves ...`` line, and what a UCI engine takes to read
it and answer a ``go`` after it (issue 51, item 4).

    python scripts/long_position.py --plies 820000 --print > long.uci     # the input, for /usr/bin/time -v
    python scripts/long_position.py --plies 820000                        # Pruner from this checkout
    python scripts/long_position.py --plies 820000 --engine "pypy3 -m pruner"

The line: both knights shuffle out and back (g1f3 g8f6 f3g1 f6g8), and every so often each
side plays a pawn move or a pawn capture, as long as some are left, so the history holds
irreversible moves all along; no game this long avoids the fifty-move rule and repetitions,
so its end is a draw any arbiter would grant, but every move is legal and the engine must
still answer. 820,000 plies make a 4.1 MB line, under the server's 4 MiB cap.

Measuring mode prints the seconds from writing the ``position`` line to the ``readyok`` of an
``isready`` sent after it (the reading), from ``go`` to ``bestmove``, and the engine's
maximum resident set size (``getrusage`` of the waited-for child; the same figure as
``/usr/bin/time -v``'s "Maximum resident set size").
"""

import os
import resource
import shlex
import subprocess
import sys
import time
from typing import List, Optional

import chess

from pruner.arguments import ArgumentParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHUFFLE = ("g1f3", "g8f6", "f3g1", "f6g8")
"""Four plies that come back to the position they started from."""


def _shuffle_is_legal(board: chess.Board) -> bool:
    board = board.copy(stack=False)
    for text in SHUFFLE:
        move = chess.Move.from_uci(text)
        if not board.is_legal(move):
            return False
        board.push(move)
    return True


def _irreversible_pair(board: chess.Board) -> Optional[List[chess.Move]]:
    """A pawn move (captures first) of White, then one of Black, after which the knights can
    still shuffle; None when there is none."""
    def pawn_moves(position: chess.Board) -> List[chess.Move]:
        moves = [m for m in position.legal_moves if position.piece_type_at(m.from_square) == chess.PAWN
                 and not position.gives_check(m) and m.promotion in (None, chess.QUEEN)]
        return sorted(moves, key=lambda m: (not position.is_capture(m), m.from_square, m.to_square))

    for first in pawn_moves(board):
        board.push(first)
        for second in pawn_moves(board):
            board.push(second)
            fine = _shuffle_is_legal(board)
            board.pop()
            if fine:
                board.pop()
                return [first, second]
        board.pop()
    return None


def long_line(plies: int, spacing: Optional[int] = None) -> List[str]:
    """``plies`` legal moves from the start position, as UCI texts: knight shuffles with a pawn
    move of each side every ``spacing`` plies or so (default: a sixteenth of the line) while
    pawn moves are left."""
    spacing = spacing if spacing is not None else max(4, plies // 16)
    board = chess.Board()
    texts: List[str] = []
    while len(texts) < plies:
        pair = _irreversible_pair(board) if len(texts) + 2 <= plies else None
        if pair is not None:
            for move in pair:
                board.push(move)
                texts.append(move.uci())
        cycles = max(1, min(spacing, plies - len(texts)) // 4)
        texts.extend(SHUFFLE * cycles)
        for text in SHUFFLE:  # one cycle is as many: each ends where it began (and no en passant is left)
            board.push_uci(text)
        if pair is None and len(texts) < plies:
            texts.extend(SHUFFLE * ((plies - len(texts)) // 4 + 1))
    del texts[plies:]
    return texts


def position_line(plies: int, spacing: Optional[int] = None) -> str:
    """The ``position startpos moves ...`` line of ``long_line(plies, spacing)``."""
    return "position startpos moves " + " ".join(long_line(plies, spacing))


def measure(command: List[str], line: str, go: str) -> dict:
    """Start ``command``, send ``line`` and ``go``; the seconds to read it, to answer, and the
    child's maximum RSS in MB."""
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    output = iter(process.stdout.readline, "")

    def ask(text: str, answer: str) -> str:
        process.stdin.write(text + "\n")
        process.stdin.flush()
        for reply in output:
            if reply.startswith(answer):
                return reply.strip()
        raise RuntimeError("the engine closed its output before %r" % answer)

    try:
        ask("uci\nisready", "readyok")
        began = time.perf_counter()
        ask(line + "\nisready", "readyok")
        read_s = time.perf_counter() - began
        began = time.perf_counter()
        bestmove = ask("go " + go, "bestmove")
        go_s = time.perf_counter() - began
        process.stdin.close()  # end of input: the engine exits
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # Linux: kilobytes
    return {"read_s": read_s, "go_s": go_s, "bestmove": bestmove, "max_rss_mb": rss_kb / 1024}


def main(argv: Optional[List[str]] = None) -> int:
    """Print the line (``--print``) or measure an engine with it."""
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", type=int, default=820000, help="moves in the line (default 820000)")
    parser.add_argument("--print", action="store_true", dest="print_only",
                        help="write the input (uci, the line, go; its end ends the engine) to stdout instead of measuring")
    parser.add_argument("--engine", default="%s -m pruner" % shlex.quote(sys.executable),
                        help="engine command (default: this Python, -m pruner)")
    parser.add_argument("--go", default="wtime 1000", help="arguments of the go command (default: wtime 1000)")
    args = parser.parse_args(argv)
    line = position_line(args.plies)
    if args.print_only:
        sys.stdout.write("uci\nisready\n%s\nisready\ngo %s\n" % (line, args.go))
        return 0
    result = measure(shlex.split(args.engine), line, args.go)
    print("%d plies, %d bytes: read %.2f s, go %s -> %s in %.2f s, max RSS %.0f MB"
          % (args.plies, len(line), result["read_s"], args.go, result["bestmove"], result["go_s"],
             result["max_rss_mb"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
