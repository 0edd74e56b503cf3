"""The search's own make/unmake (``pruner.engine.makemove``) against python-chess's ``push``/``pop``.

After every ``do_move``/``do_null`` on an ``pruner.engine.board.Position`` each of its fields must
equal those of a fresh ``Position`` of the board python-chess's ``push`` gives (pieces,
colours, the square table, side to move, castling rights, en-passant square, fifty-move
counter, king squares, Zobrist key, material and phase, the net's accumulator); after ``undo_move`` the position
must equal the one before the move. Checked to depth 2 on the standard perft suite and, of
the Chess960 one, on the 219 positions that hold all its castling layouts (all 960 with
`pytest -m slow`), on a sample to depth 3, on promoted pieces, and on seeded random games
played to the end and taken back.
"""

import random
from pathlib import Path

import chess
import pytest

from pruner.engine import evaluate as evaluation
from pruner.engine.attacks import from_move, unsigned
from pruner.engine.board import Position
from pruner.engine.makemove import do_move, do_null, undo_move

from chess960_cover import castling_cover, layouts
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


def fields(pos):
    """Everything ``do_move`` changes, as comparable values (the move stack's depth too; the
    accumulator as the value it stands for, which a lazy one computes now)."""
    net = evaluation.DEFAULT.net
    acc = net.accumulators.value(pos.acc) if net is not None else pos.acc
    return (tuple(pos.bb[1:]), tuple(pos.occ), pos.occupied, tuple(pos.squares[:64]), pos.turn, pos.castling,
            pos.ep, pos.hmc, tuple(pos.king_squares), pos.key, pos.mg, pos.eg, pos.phase, acc, len(pos.stack))


def _pushed(board, move):
    """The fields of a fresh Position after python-chess's own push (taken back at once)."""
    board.push(move)
    after = fields(Position(board))
    board.pop()
    return after


def _same(pos, expected):
    """``pos`` equals the expected fields, the stack depth aside."""
    return fields(pos)[:-1] == expected[:-1]


def _check_move(board, pos, move, seen):
    """``do_move`` equals ``push``; the board is pushed along (``_undo`` takes both back)."""
    expected = _pushed(board, move)
    if board.is_castling(move):
        seen["castling"] += 1
    elif board.is_en_passant(move):
        seen["en passant"] += 1
    if move.promotion:
        seen["promotion %s" % chess.piece_symbol(move.promotion)] += 1
    gives_check = do_move(pos, from_move(move))
    board.push(move)
    assert _same(pos, expected), (board.fen(), move)
    assert gives_check == board.is_check(), (board.fen(), move)


def _check_null(board, pos):
    """``do_null`` equals pushing ``Move.null()``; the board is pushed along."""
    expected = _pushed(board, chess.Move.null())
    do_null(pos)
    board.push(chess.Move.null())
    assert _same(pos, expected), board.fen()


def _undo(board, pos):
    undo_move(pos)
    board.pop()


def _walk(board, pos, depth, seen):
    """Every move (and a null move out of check) to ``depth``, each checked and taken back."""
    before = fields(pos)
    if not board.is_check():
        _check_null(board, pos)
        _undo(board, pos)
        assert fields(pos) == before
    for move in list(board.legal_moves):
        _check_move(board, pos, move, seen)
        if depth > 1:
            _walk(board, pos, depth - 1, seen)
        _undo(board, pos)
        assert fields(pos) == before, (board.fen(), move)


def _seen():
    return dict.fromkeys(["castling", "en passant", "promotion q", "promotion r", "promotion b",
                          "promotion n"], 0)


# The Chess960 sweep (960 positions, 72 s on CPython) in interleaved chunks, so that
# pytest-xdist can spread it over its workers instead of one worker finishing it alone after the
# rest; it runs with `pytest -m slow`, and the default suite walks the 219 positions that hold
# every castling layout of the suite (tests/chess960_cover.py).
CHUNKS_960 = 6


def _walk_all(boards, chess960):
    seen = _seen()
    for board in boards:
        _walk(board, Position(board), 2, seen)
    assert seen["castling"] and seen["en passant"], seen
    assert chess960 or all(seen.values()), seen  # the Chess960 suite promotes deeper


@pytest.mark.exhaustive
@pytest.mark.parametrize("suite,chess960", SUITES)
def test_perft_positions_depth_2(suite, chess960):
    boards = _boards(suite, chess960)
    if chess960:
        boards = [boards[index] for index in castling_cover(boards)]
    _walk_all(boards, chess960)


def test_the_chess960_sample_holds_every_castling_layout_of_the_suite():
    boards = _boards("perft_chess960.epd", True)
    sample = castling_cover(boards)
    assert set().union(*(layouts(boards[index]) for index in sample)) == set().union(*map(layouts, boards))
    assert len(sample) < len(boards) / 4


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS_960))
def test_every_chess960_position_depth_2(chunk):
    boards = _boards("perft_chess960.epd", True)
    assert len(boards) == 960
    _walk_all(boards[chunk::CHUNKS_960], True)


@pytest.mark.parametrize("suite,chess960,sample", [("perft_standard.epd", False, slice(0, 8)),
                                                   ("perft_chess960.epd", True, slice(0, None, 240))])
def test_perft_positions_depth_3_sample(suite, chess960, sample):
    seen = _seen()
    for board in _boards(suite, chess960)[sample]:
        _walk(board, Position(board), 3, seen)
    assert seen["castling"] and seen["en passant"], seen


@pytest.mark.parametrize("suite,chess960", SUITES)
def test_castling_rights_are_cleaned_as_python_chess_does(suite, chess960):
    """Rights without their rook or king are dropped at the root (python-chess cleans them
    before its first push), and every move keeps them as push does."""
    boards = _boards(suite, chess960) + [
        chess.Board("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", chess960=chess960),  # rights without rooks
        chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=chess960),
    ]
    for board in boards:
        board.castling_rights |= chess.BB_CORNERS  # not clean: no rook or king there
        pos = Position(board)
        assert unsigned(pos.castling) == board.clean_castling_rights()
        before = fields(pos)
        for move in list(board.legal_moves):
            expected = _pushed(board, move)
            do_move(pos, from_move(move))
            assert _same(pos, expected), (board.fen(), move)
            undo_move(pos)
            assert fields(pos) == before
        expected = _pushed(board, chess.Move.null())
        do_null(pos)
        assert _same(pos, expected)


def test_standard_castling_notation_on_a_chess960_board():
    """e1g1 on a Chess960 board is king-takes-rook for python-chess (e1h1), as for do_move."""
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    pos = Position(board)
    before = fields(pos)
    for uci in ("e1g1", "e1c1", "e1h1", "e1a1"):
        move = chess.Move.from_uci(uci)
        expected = _pushed(board, move)
        do_move(pos, from_move(move))
        assert _same(pos, expected), uci
        undo_move(pos)
        assert fields(pos) == before


@pytest.mark.parametrize("chess960", [False, True])
def test_promoted_pieces_move_capture_and_castle(chess960):
    """Promoted pieces move, capture and are taken like any other, even a promoted rook that
    castles (python-chess allows it when the rights say so)."""
    board = chess.Board("4k3/8/8/3n4/8/8/3Q4/4K2R w K - 0 1", chess960=chess960)
    board.promoted = chess.BB_H1 | chess.BB_D2 | chess.BB_D5
    seen = _seen()
    _walk(board, Position(board), 2, seen)
    assert seen["castling"], seen


@pytest.mark.parametrize("suite,chess960", SUITES)
def test_random_games_to_the_end_and_back(suite, chess960):
    rng = random.Random(5)
    seen = _seen()
    boards = _boards(suite, chess960)
    for _ in range(60):
        board = rng.choice(boards).copy()
        pos = Position(board)
        history = [fields(pos)]
        while any(board.generate_legal_moves()) and not board.is_insufficient_material() \
                and board.halfmove_clock < 150 and len(history) < 500:
            if rng.random() < 0.1 and not board.is_check():
                _check_null(board, pos)
            else:
                _check_move(board, pos, rng.choice(list(board.legal_moves)), seen)
            history.append(fields(pos))
        for expected in reversed(history[:-1]):
            _undo(board, pos)
            assert fields(pos) == expected
    assert seen["castling"] and seen["promotion q"], seen
