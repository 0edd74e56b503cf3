#!/usr/bin/env python3
"""Micro-benchmark of the net's accumulator representations on the interpreter that runs it.

    python3 scripts/accumulator_bench.py [--depth 3] [--rounds 3] [--positions 22]
    PYPY_GC_NURSERY=4M pypy3 scripts/accumulator_bench.py ...   (as ``pruner`` runs itself on PyPy)

Walks every move to ``--depth`` plies from the bench positions (the moves generated once
beforehand), with the search's own make/unmake (``pruner.engine.makemove.mover``), once
without a net (``none``: no accumulator work) and once with the shipped net in each
representation (``pruner.engine.nnue``: ``packed``, ``lists``), then again with the net's
evaluation of every leaf. It prints the best round's microseconds per ``do_move`` and
``undo_move`` pair, and per evaluation (the leaves' extra time over the walk without them).
The search does about 0.6 evaluations a move (the evaluation cache answers the rest), so what
a representation costs a move is about ``move + 0.6 * evaluation``. docs/nnue.md, "Where the
time goes", gives the figures this measured.
"""

import platform
import time
from typing import List, Optional, Tuple

import chess

from pruner.arguments import ArgumentParser
from pruner.engine import bench, nnue
from pruner.engine.board import Position
from pruner.engine.evaluate import Evaluator
from pruner.engine.makemove import do_move, mover, undo_move
from pruner.engine.movegen import generate

Tree = Tuple[List[int], Optional[list]]
"""A position's moves and, above the last ply, the tree below each."""


def tree(pos: Position, depth: int) -> Tree:
    """Every move to ``depth`` plies from ``pos``."""
    moves = generate(pos)
    if depth <= 1:
        return moves, None
    below = []
    for move in moves:
        do_move(pos, move)
        below.append(tree(pos, depth - 1))
        undo_move(pos)
    return moves, below


def walk(pos: Position, node: Tree, play, evaluate) -> int:
    """Play the tree on ``pos`` (``evaluate``: called on each leaf's accumulator, or None);
    returns the moves made."""
    moves, below = node
    if below is None:
        if evaluate is None:
            for move in moves:
                play(pos, move)
                undo_move(pos)
        else:
            for move in moves:
                play(pos, move)
                evaluate(pos.acc, pos.turn)
                undo_move(pos)
        return len(moves)
    made = len(moves)
    for move, child in zip(moves, below):
        play(pos, move)
        made += walk(pos, child, play, evaluate)
        undo_move(pos)
    return made


def best_time(positions: List[Position], trees: List[Tree], evaluate, rounds: int) -> Tuple[float, int]:
    """(best round's CPU seconds, moves a round) of walking every tree."""
    best = float("inf")
    made = 0
    for _ in range(rounds):
        start = time.process_time()
        made = sum(walk(pos, node, mover(pos), evaluate) for pos, node in zip(positions, trees))
        best = min(best, time.process_time() - start)
    return best, made


def main(argv=None) -> int:
    """Time each representation's walks; print a table."""
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="plies walked (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the best is kept (default 3)")
    parser.add_argument("--positions", type=int, default=len(bench.POSITIONS),
                        help="bench positions walked from (default all %d)" % len(bench.POSITIONS))
    args = parser.parse_args(argv)
    if args.depth < 1 or args.rounds < 1 or not 1 <= args.positions <= len(bench.POSITIONS):
        parser.error("--depth and --rounds must be positive, --positions 1-%d" % len(bench.POSITIONS))
    net = nnue.shipped_net()[0]
    if net is None:
        parser.error("the shipped net cannot be used: %s" % nnue.shipped_net()[1])
    boards = [chess.Board(fen) for fen in bench.POSITIONS[:args.positions]]
    print("%s %s, %d-ply walks from %d bench positions, best of %d rounds"
          % (platform.python_implementation(), platform.python_version(), args.depth, len(boards), args.rounds))
    print("%-15s %12s %12s" % ("representation", "move (us)", "eval (us)"))
    for name in ("none", "packed", "lists"):
        evaluator = Evaluator(net=None if name == "none" else net.in_representation(name))
        positions = [Position(board, evaluator) for board in boards]
        trees = [tree(pos, args.depth) for pos in positions]
        leaves = sum(_leaves(node) for node in trees)
        walked, made = best_time(positions, trees, None, args.rounds)
        line = "%-15s %12.3f" % (name, walked / made * 1e6)
        if evaluator.net is not None:
            evaluated, _ = best_time(positions, trees, evaluator.net.accumulators.evaluate, args.rounds)
            line += " %12.3f" % (max(evaluated - walked, 0.0) / leaves * 1e6)
        print(line)
    return 0


def _leaves(node: Tree) -> int:
    """The moves of the last ply (each one an evaluation in the walk with them)."""
    moves, below = node
    return len(moves) if below is None else sum(_leaves(child) for child in below)


if __name__ == "__main__":
    raise SystemExit(main())
