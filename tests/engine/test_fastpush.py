"""The search's own make/unmake (``engine.makemove``) against python-chess's ``push``/``pop``.

After every ``do_move``/``do_null`` each field python-chess's ``push`` sets must equal what
``push`` gives (pushed and popped on the same board just before), so every python-chess call
in the search stays right; after ``undo_move`` the board must equal the position before the
move. Checked on every position of the perft suites (standard and Chess960) to depth 2, a
sample to depth 3, promoted pieces, and seeded random games played to the end and taken back.
"""

import random
from pathlib import Path

import chess
import pytest

from engine.evaluate import material_pst
from engine.makemove import do_move, do_null, full_key, initial_state, undo_move

from paths import EPD

SHARED = Path(EPD)
SUITES = [("perft_standard.epd", False), ("perft_chess960.epd", True)]
FIELDS = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "occupied", "promoted",
          "turn", "castling_rights", "ep_square", "halfmove_clock", "fullmove_number")


def _boards(name, chess960):
    """The suite's positions with the move counters the EPD gives (``hmvc``, ``fmvn``)."""
    boards = []
    for line in (SHARED / name).read_text().splitlines():
        if not line.strip():
            continue
        board = chess.Board(" ".join(line.split()[:4]), chess960=chess960)
        for op in line.split(";"):
            words = op.split()
            if len(words) == 2 and words[0] == "hmvc":
                board.halfmove_clock = int(words[1])
            elif len(words) == 2 and words[0] == "fmvn":
                board.fullmove_number = int(words[1])
        boards.append(board)
    return boards


def fields(board):
    """Everything python-chess's push and pop change, as comparable values."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied, board.promoted, board.turn, board.castling_rights, board.ep_square,
            board.halfmove_clock, board.fullmove_number, tuple(board.occupied_co),
            len(board.move_stack), board.move_stack[-1] if board.move_stack else None, len(board._stack))


def _pushed(board, move):
    """The fields after python-chess's own push (taken back at once with its own pop)."""
    board.push(move)
    after = fields(board)
    board.pop()
    return after


def _check_move(board, move, state, seen, check_state=True):
    """``do_move`` equals ``push`` (fields; key and material if ``check_state``); returns the new state."""
    expected = _pushed(board, move)
    if board.is_castling(move):
        seen["castling"] += 1
    elif board.is_en_passant(move):
        seen["en passant"] += 1
    if move.promotion:
        seen["promotion %s" % chess.piece_symbol(move.promotion)] += 1
    child = do_move(board, move, *state)
    assert fields(board) == expected, (board.fen(), move)
    if check_state:
        assert child[0] == full_key(board), (board.fen(), move)
        assert child[1:] == material_pst(board), (board.fen(), move)
    return child


def _check_null(board, key):
    """``do_null`` equals pushing ``Move.null()``; returns the new key."""
    expected = _pushed(board, chess.Move.null())
    child = do_null(board, key)
    assert fields(board) == expected, board.fen()
    assert child == full_key(board), board.fen()
    return child


def _walk(board, state, depth, seen, state_depth):
    """Every move (and a null move out of check) to ``depth``, each checked and taken back;
    the key and material are checked down to ``state_depth`` (they cost more than the rest)."""
    before = fields(board)
    if not board.is_check():
        _check_null(board, state[0])
        undo_move(board)
        assert fields(board) == before
    for move in list(board.legal_moves):
        child = _check_move(board, move, state, seen, state_depth > 0)
        if depth > 1:
            _walk(board, child, depth - 1, seen, state_depth - 1)
        undo_move(board)
        assert fields(board) == before, (board.fen(), move)


def _seen():
    return dict.fromkeys(["castling", "en passant", "promotion q", "promotion r", "promotion b",
                          "promotion n"], 0)


@pytest.mark.parametrize("suite,chess960,state_depth", [("perft_standard.epd", False, 2),
                                                        ("perft_chess960.epd", True, 1)])
def test_perft_positions_depth_2(suite, chess960, state_depth):
    seen = _seen()
    for board in _boards(suite, chess960):
        _walk(board, initial_state(board), 2, seen, state_depth)
    assert seen["castling"] and seen["en passant"], seen
    assert chess960 or all(seen.values()), seen  # the Chess960 suite promotes deeper


@pytest.mark.parametrize("suite,chess960,sample", [("perft_standard.epd", False, slice(0, 8)),
                                                   ("perft_chess960.epd", True, slice(0, None, 240))])
def test_perft_positions_depth_3_sample(suite, chess960, sample):
    seen = _seen()
    for board in _boards(suite, chess960)[sample]:
        _walk(board, initial_state(board), 3, seen, 3)
    assert seen["castling"] and seen["en passant"], seen


@pytest.mark.parametrize("suite,chess960", SUITES)
def test_first_push_cleans_castling_rights_as_python_chess_does(suite, chess960):
    """With an empty stack python-chess cleans the rights before the first push (not after)."""
    boards = _boards(suite, chess960) + [
        chess.Board("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", chess960=chess960),  # rights without rooks
        chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=chess960),
    ]
    for board in boards:
        board.castling_rights |= chess.BB_CORNERS  # not clean: no rook or king there
        state = initial_state(board.copy())
        for move in list(board.legal_moves):
            expected = _pushed(board, move)
            before = fields(board)
            do_move(board, move, *state)
            assert fields(board) == expected, (board.fen(), move)
            undo_move(board)
            assert fields(board) == before
        expected = _pushed(board, chess.Move.null())
        do_null(board, state[0])
        assert fields(board) == expected


def test_standard_castling_notation_on_a_chess960_board():
    """e1g1 on a Chess960 board is king-takes-rook for python-chess: the move stack says e1h1."""
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    for uci in ("e1g1", "e1c1", "e1h1", "e1a1"):
        move = chess.Move.from_uci(uci)
        expected = _pushed(board, move)
        before = fields(board)
        child = do_move(board, move, *initial_state(board))
        assert fields(board) == expected, uci
        assert child[0] == full_key(board)
        undo_move(board)
        assert fields(board) == before


@pytest.mark.parametrize("chess960", [False, True])
def test_promoted_pieces_move_capture_and_castle(chess960):
    """Promoted pieces keep their mark where they go and lose it when taken, even a promoted
    rook that castles (python-chess allows it when the rights say so)."""
    board = chess.Board("4k3/8/8/3n4/8/8/3Q4/4K2R w K - 0 1", chess960=chess960)
    board.promoted = chess.BB_H1 | chess.BB_D2 | chess.BB_D5
    seen = _seen()
    _walk(board, initial_state(board), 2, seen, 2)
    assert seen["castling"], seen


@pytest.mark.parametrize("suite,chess960", SUITES)
def test_random_games_to_the_end_and_back(suite, chess960):
    rng = random.Random(5)
    seen = _seen()
    boards = _boards(suite, chess960)
    for _ in range(60):
        board = rng.choice(boards).copy()
        state = initial_state(board)
        history = [fields(board)]
        while any(board.generate_legal_moves()) and not board.is_insufficient_material() \
                and board.halfmove_clock < 150 and len(history) < 500:
            if rng.random() < 0.1 and not board.is_check():
                state = (_check_null(board, state[0]),) + state[1:]
            else:
                state = _check_move(board, rng.choice(list(board.legal_moves)), state, seen)
            history.append(fields(board))
        for expected in reversed(history[:-1]):
            undo_move(board)
            assert fields(board) == expected
    assert seen["castling"] and seen["promotion q"], seen
