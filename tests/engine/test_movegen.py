"""Perft through the engine's own move generation: ``pruner.engine.movepick.ordered_moves``, the staged
generator the search uses (hash move, captures, killers, quiets, losing captures).

At every node the moves yielded must be exactly ``board.legal_moves`` (no move missing, none
twice), and the leaf counts must match the published perft numbers: the standard suite to
depth 2 and the Chess960 suite to depth 3 (castling as king-takes-rook): in the default suite
the 219 of its 960 positions that hold every castling layout it has (tests/chess960_cover.py),
all 960 with `pytest -m slow` (8 chunks of 120, about 10 s each on CPython 3.11 on this machine).
"""

import os
import random
from typing import List

import chess
import pytest

from pruner.engine.attacks import from_move, to_move
from pruner.engine.board import Position, in_check
from pruner.engine.history import MoveStats
from pruner.engine.makemove import do_move, undo_move
from pruner.engine.movegen import generate, is_legal, legal_captures, legal_quiets, queen_promotions
from pruner.engine.movepick import ordered_moves, tactical_moves

from chess960_cover import castling_cover
from paths import EPD as EPD_DIR
from playouts import random_game_end
STANDARD = os.path.join(EPD_DIR, "perft_standard.epd")
CHESS960 = os.path.join(EPD_DIR, "perft_chess960.epd")
CHUNKS = 8

NO_STATS = MoveStats()
"""No killers, every history score 0."""


def load(path: str, chess960: bool = False):
    """(board, {"D1": n, ...}) per line of a perft suite of tests/data/epd."""
    with open(path) as f:
        return [chess.Board.from_epd(line, chess960=chess960) for line in f if line.strip()]


def staged_perft(board: chess.Board, depth: int, counts: List[int], ply: int = 0, pos: Position = None) -> None:
    """Add the node count of every ply below ``board`` to ``counts[ply]``, walking the moves
    ``ordered_moves`` yields to ``depth`` plies (on the search's own board, made and taken back
    with ``do_move``/``undo_move``) and checking them at every node against python-chess."""
    if pos is None:
        pos = Position(board)
    moves = [to_move(move) for move, _ in ordered_moves(pos, 0, NO_STATS, ply, in_check(pos))]
    unique = set(moves)
    assert len(moves) == len(unique), "a move yielded twice in %s" % board.fen()
    legal = set(board.legal_moves)
    assert unique == legal, "%s: missing %s, extra %s" % (
        board.fen(), sorted(m.uci() for m in legal - unique), sorted(m.uci() for m in unique - legal))
    counts[ply] += len(moves)
    if depth == 1:
        return
    for move in moves:
        board.push(move)
        do_move(pos, from_move(move))
        staged_perft(board, depth - 1, counts, ply + 1, pos)
        undo_move(pos)
        board.pop()


def check_suite(positions, depth: int) -> None:
    """D1..D``depth`` of every position (where the suite gives them) in one walk each."""
    failures = []
    for board, ops in positions:
        counts = [0] * depth
        staged_perft(board, depth, counts)
        for d, got in enumerate(counts, 1):
            expected = ops.get("D%d" % d)
            if expected is not None and got != expected:
                failures.append("%s D%d: %d, expected %d" % (board.fen(), d, got, expected))
    assert not failures, "\n".join(failures)


def test_standard_perft_depth_2():
    check_suite(load(STANDARD), 2)


@pytest.mark.exhaustive
@pytest.mark.parametrize("half", range(2))
def test_chess960_perft_depth_3_castling_layouts(half):
    positions = load(CHESS960, chess960=True)
    sample = castling_cover([board for board, _ in positions])
    check_suite([positions[index] for index in sample[half::2]], 3)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_chess960_perft_depth_3(chunk):
    positions = load(CHESS960, chess960=True)
    assert len(positions) == 960
    size = len(positions) // CHUNKS
    check_suite(positions[chunk * size:(chunk + 1) * size], 3)


def test_ordering_hints_never_change_the_move_set():
    """A hash move, killers (legal, illegal, captures) and history only reorder the moves."""
    board, _ = load(CHESS960, chess960=True)[17]
    legal = list(board.legal_moves)
    stats = MoveStats()
    stats.history = [(i * 7919) % 301 - 150 for i in range(8192)]
    castles = [m for m in legal if board.is_castling(m)]
    hints = [(legal[0], [legal[1], legal[2]]),
             (legal[-1], [chess.Move.from_uci("a1a8"), None]),
             (None, [castles[0] if castles else legal[3], legal[3]])]
    pos = Position(board)
    for tt_move, killers in hints:
        codes = [from_move(m) if m else 0 for m in [tt_move] + killers]
        stats.killers(3)[:] = codes[1:]
        moves = [to_move(m) for m, _ in ordered_moves(pos, codes[0], stats, 3, board.is_check())]
        assert len(moves) == len(set(moves)) and set(moves) == set(legal)
        if tt_move is not None:
            assert moves[0] == tt_move


# -- pruner.engine.movegen: own generation, equal to python-chess's move for move ----------------------

def python_chess_captures(board: chess.Board) -> List[chess.Move]:
    return list(board.generate_legal_captures())


def python_chess_quiets(board: chess.Board) -> List[chess.Move]:
    return [move for move in board.generate_legal_moves(chess.BB_ALL, ~board.occupied_co[not board.turn])
            if not board.is_en_passant(move)]


def python_chess_queen_promotions(board: chess.Board) -> List[chess.Move]:
    pawns = board.pawns & board.occupied_co[board.turn]
    return [move for move in board.generate_legal_moves(pawns, (chess.BB_RANK_1 | chess.BB_RANK_8) & ~board.occupied)
            if move.promotion == chess.QUEEN]


def assert_same_generation(board: chess.Board) -> None:
    # Same moves in the same order: the order feeds the stable sorts of move ordering, so the
    # search (and the bench signature) stays what it was with python-chess's generators.
    pos = Position(board)
    check = board.is_check()
    assert in_check(pos) == check, board.fen()
    legal = list(board.generate_legal_moves())
    assert [to_move(m) for m in generate(pos)] == legal, board.fen()
    assert [to_move(m) for m in legal_captures(pos, check)] == python_chess_captures(board), board.fen()
    assert [to_move(m) for m in legal_quiets(pos, check)] == python_chess_quiets(board), board.fen()
    assert [to_move(m) for m in queen_promotions(pos, check)] == python_chess_queen_promotions(board), board.fen()
    assert all(is_legal(pos, from_move(move)) for move in legal), board.fen()
    assert [to_move(m) for m in tactical_moves(pos, check)] == python_chess_tactical(board), board.fen()


def python_chess_tactical(board: chess.Board) -> List[chess.Move]:
    """Captures and queen promotions by MVV-LVA, as pruner.engine.movepick orders them, from python-chess's lists."""
    scored = []
    for move in python_chess_captures(board):
        victim = board.piece_type_at(move.to_square) or chess.PAWN
        scored.append(((100, 100, 320, 330, 500, 900, 20000)[victim] * 8 - board.piece_type_at(move.from_square)
                       + (800 if move.promotion == chess.QUEEN else 0), move))
    scored += [(6400, move) for move in python_chess_queen_promotions(board)]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [move for _, move in scored]


@pytest.mark.parametrize("path,chess960", [(STANDARD, False), (CHESS960, True)], ids=["standard", "chess960"])
def test_own_generators_equal_python_chess_on_the_perft_suites(path, chess960):
    positions = load(path, chess960=chess960)
    for board, _ in positions[:200] if chess960 else positions:
        assert_same_generation(board)
        for move in list(board.legal_moves):  # one ply further: checks, pins, en passant, promotions
            board.push(move)
            assert_same_generation(board)
            board.pop()


def test_own_generators_equal_python_chess_in_random_games():
    rng = random.Random(5)
    for _ in range(60):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            assert_same_generation(board)
            board.push(rng.choice(list(board.legal_moves)))


def test_own_generators_on_pins_en_passant_promotions_and_no_king():
    for fen in ["4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",        # en passant along a pinned rank: illegal
                "4k3/4r3/8/8/4B3/8/8/4K3 w - - 0 1",         # bishop pinned on the file: no capture
                "4k3/8/8/8/8/2b5/1P6/K7 w - - 0 1",          # pawn pinned, capturing the pinner
                "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",  # promotions with and without capture
                "8/8/8/3k4/8/8/8/8 w - - 0 1",               # no king of the side to move
                "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1"]:           # in check: python-chess's evasions
        assert_same_generation(chess.Board(fen))


def test_is_legal_refuses_what_python_chess_refuses():
    """Killers come from sibling positions: moves of the wrong side, through pieces, into
    check, pinned, castling through attacks; each judged as python-chess judges it."""
    rng = random.Random(11)
    codes = [frm << 6 | to for frm in range(64) for to in range(64) if frm != to]
    codes += [frm << 6 | to | piece << 12 for frm in list(range(8, 16)) + list(range(48, 56))
              for to in list(range(0, 8)) + list(range(56, 64)) for piece in (2, 3, 4, 5)]
    boards = [chess.Board(), chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
              chess.Board("r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R b KQkq - 0 1"),
              chess.Board("4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1")]
    for _ in range(20):
        boards.append(random_game_end(rng, 10, 60))
    for board in boards:
        pos = Position(board)
        own_rooks = board.rooks & board.occupied_co[board.turn]
        for code in codes:
            move = chess.Move(code >> 6 & 63, code & 63, code >> 12 or None)
            if board.kings & chess.BB_SQUARES[move.from_square] and own_rooks & chess.BB_SQUARES[move.to_square]:
                continue  # king takes rook on a standard board: python-chess's other notation, never generated
            assert is_legal(pos, code) == board.is_legal(move), (board.fen(), move)
