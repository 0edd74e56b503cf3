"""Every principal variation the searcher reports is a legal line from the root.

Thousands of searches over positions nobody picked for Pruner: the perft suites (standard and
Chess960), the tactical suites, positions from real games, mates, with MultiPV and
``searchmoves``. Every ``SearchInfo`` of every iteration is checked, not only the final one: a
stale move left in the PV table by another subtree shows up as an illegal (or, worse, legal
but wrong) move somewhere in a line.
"""

import os
import random
from typing import List

import chess
import chess.pgn
import pytest

from pruner.engine.search import Searcher
from pruner.engine.types import Limits, SearchInfo

from paths import DATA


def epd_boards(name: str, chess960: bool = False, step: int = 1) -> List[chess.Board]:
    """The positions of an EPD file of tests/data/epd (operations dropped)."""
    boards = []
    with open(os.path.join(DATA, "epd", name), encoding="utf-8") as handle:
        for index, line in enumerate(handle):
            fields = line.split()
            if len(fields) >= 4 and index % step == 0:
                boards.append(chess.Board(" ".join(fields[:4]) + " 0 1", chess960=chess960))
    return boards


def game_boards(name: str, every: int) -> List[chess.Board]:
    """Every ``every``-th position (with its move history) of the games in tests/data/games."""
    boards = []
    with open(os.path.join(DATA, "games", name), encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return boards
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                board.push(move)
                if ply % every == 0 and not board.is_game_over():
                    boards.append(board.copy())


def assert_legal_line(board: chess.Board, moves: List[chess.Move], what: str) -> None:
    position = board.copy()
    for ply, move in enumerate(moves):
        assert position.is_legal(move), "%s: move %d (%s) of %s is illegal in %s" % (
            what, ply + 1, move.uci(), [m.uci() for m in moves], position.fen())
        position.push(move)


def search_and_check(board: chess.Board, depth: int, multipv: int = 1, searchmoves=None,
                     hash_mb: int = 1) -> List[SearchInfo]:
    """Search and check every reported line and the result; returns the reports."""
    infos: List[SearchInfo] = []
    result = Searcher(hash_mb).search(board, Limits(depth=depth, searchmoves=searchmoves), on_info=infos.append,
                                multipv=multipv)
    what = "%s depth %d multipv %d" % (board.fen(), depth, multipv)
    assert infos, what
    for info in infos:
        assert info.pv, what
        assert_legal_line(board, info.pv, "%s (iteration %d line %d)" % (what, info.depth, info.multipv))
        if searchmoves:
            assert info.pv[0] in searchmoves, what
    assert result.best_move == result.lines[0].pv[0], what
    if result.ponder_move is not None:
        assert_legal_line(board, [result.best_move, result.ponder_move], what + " (ponder)")
    return infos


# Positions where the PV table handed a line over from another subtree before the fix
# (the first from the issue: `pruner analyse --depth 5` failed on it).
STALE_PV_POSITIONS = [
    # (fen, depth, MultiPV, Hash)
    ("6R1/8/4B3/5Q2/4P3/3k1K2/8/8 w - - 0 1", 5, 1, 16),
    ("r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1", 4, 2, 1),
    ("6k1/5p2/p5np/4B3/3P4/1PP1q3/P3r1QP/6RK w - - 0 1", 5, 2, 1),
    ("b4r1k/pq2rp2/1p1bpn1p/3PN2n/2P2P2/P2B3K/1B2Q2N/3R2R1 w - - 0 1", 5, 3, 1),
    ("5b2/pp2r1pk/2pp1pRp/4rP1N/2P1P3/1P4QP/P3q1P1/5R1K w - - 0 1", 4, 1, 1),
]


@pytest.mark.parametrize("fen,depth,multipv,hash_mb", STALE_PV_POSITIONS)
def test_no_stale_moves_in_known_positions(fen, depth, multipv, hash_mb):
    search_and_check(chess.Board(fen), depth, multipv, hash_mb=hash_mb)


def test_mate_lines_end_in_mate():
    board = chess.Board("6R1/8/4B3/5Q2/4P3/3k1K2/8/8 w - - 0 1")
    infos = search_and_check(board, 6)
    final = infos[-1]
    assert final.mate == 3
    position = board.copy()
    for move in final.pv:
        position.push(move)
    assert position.is_checkmate() and len(final.pv) == 5


def _sweep(boards: List[chess.Board], seed: int) -> int:
    """Search each board at a random small depth, MultiPV and sometimes ``searchmoves``."""
    rng = random.Random(seed)
    lines = 0
    for board in boards:
        legal = list(board.legal_moves)
        searchmoves = None
        if len(legal) > 3 and rng.random() < 0.2:
            searchmoves = rng.sample(legal, rng.randint(1, 3))
        lines += len(search_and_check(board, rng.randint(1, 4), rng.choice([1, 1, 2, 3]), searchmoves))
    return lines


SUITES = {
    "perft": lambda: epd_boards("perft_standard.epd"),
    "chess960": lambda: epd_boards("perft_chess960.epd", chess960=True, step=8)
    + [b for b in game_boards("chess960_games.pgn", 4)],
    "tactics": lambda: epd_boards("wac.epd") + epd_boards("bk.epd"),
    "games": lambda: game_boards("real_games.pgn", 4),
}


@pytest.mark.exhaustive
@pytest.mark.parametrize("suite", sorted(SUITES))
def test_every_reported_line_is_legal(suite):
    boards = SUITES[suite]()
    assert len(boards) >= 100
    assert _sweep(boards, seed=len(suite)) >= 2 * len(boards)
