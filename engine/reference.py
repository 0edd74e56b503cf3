"""Textbook game-tree search: the algorithms Pruner grew from, kept as a yardstick.

Trees are nested lists: an ``int`` is a leaf value, a list holds the children (at least one).
The root is a MAX node and levels alternate. Every tree function returns ``(value, visited)``:
the value from the root MAX player's view and the number of nodes entered (root, inner nodes
and leaves), as the worked examples of the tutorial the project began from count them
(tests/data/seed_trees.json).

``minimax_chess`` is the same brute force over python-chess legal moves; tests compare it with
the real searcher (``pruner.engine.search``) run with pruning, reductions and extensions off.

Reference: https://www.chessprogramming.org/Minimax, .../Negamax, .../Alpha-Beta
"""

import math
from typing import Callable, List, Tuple, Union

import chess

from pruner.engine.types import DRAW, INF, MATE

Tree = Union[int, List["Tree"]]
"""A leaf value, or the list of a node's children."""


def minimax(tree: Tree) -> Tuple[int, int]:
    """Plain minimax: MAX takes the largest child value, MIN the smallest; visits every node."""

    def visit(node: Tree, maximizing: bool) -> Tuple[int, int]:
        if isinstance(node, int):
            return node, 1
        visited = 1
        values = []
        for child in node:
            value, count = visit(child, not maximizing)
            values.append(value)
            visited += count
        return (max(values) if maximizing else min(values)), visited

    return visit(tree, True)


def negamax(tree: Tree) -> Tuple[int, int]:
    """Minimax in negamax form: each node maximises the negated values of its children.

    Values inside are from the side to move (``color`` = +1 for MAX, -1 for MIN); the root's
    value is MAX's, so the result equals ``minimax(tree)``.
    """

    def visit(node: Tree, color: int) -> Tuple[int, int]:
        if isinstance(node, int):
            return color * node, 1
        visited = 1
        best = -math.inf
        for child in node:
            value, count = visit(child, -color)
            best = max(best, -value)
            visited += count
        return best, visited

    return visit(tree, 1)


def alphabeta(tree: Tree) -> Tuple[int, int]:
    """Alpha-beta: minimax that skips the remaining children once ``alpha >= beta``.

    ``alpha`` is the value MAX is already sure of, ``beta`` the value MIN is already sure of;
    the root starts with the full window ``(-inf, +inf)``, so its value is exact.
    """

    def visit(node: Tree, alpha: float, beta: float, maximizing: bool) -> Tuple[int, int]:
        if isinstance(node, int):
            return node, 1
        visited = 1
        best = -math.inf if maximizing else math.inf
        for child in node:
            value, count = visit(child, alpha, beta, not maximizing)
            visited += count
            if maximizing:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break  # cutoff: the other player will never let play reach this node
        return best, visited

    return visit(tree, -math.inf, math.inf, True)


def minimax_chess(board: chess.Board, depth: int, leaf: Callable[[chess.Board], int]) -> int:
    """Brute-force negamax over legal moves to ``depth`` plies, no pruning; side to move's score.

    At depth 0 the score is ``leaf(board)`` (the engine passes its quiescence search), with no
    other test: like the engine, the leaf decides about mates and stalemates there. The leaf gets
    the board with the line played, so ``len(board.move_stack)`` minus the root's is the ply.
    Above the leaves, a side without legal moves scores ``-(MATE - ply)`` when in check and
    ``DRAW`` otherwise; below the root, the fifty-move rule, insufficient material and any
    repetition of an earlier position (path or game history, as the engine rules) score ``DRAW``.
    ``board`` is not modified.
    """
    work = board.copy()

    def search(depth: int, ply: int) -> int:
        if depth <= 0:
            return leaf(work)
        moves = list(work.legal_moves)
        if not moves:
            return -(MATE - ply) if work.is_check() else DRAW
        if ply > 0 and (work.halfmove_clock >= 100 or work.is_insufficient_material()
                        or work.is_repetition(2)):
            return DRAW
        best = -INF
        for move in moves:
            work.push(move)
            best = max(best, -search(depth - 1, ply + 1))
            work.pop()
        return best

    return search(depth, 0)
