"""Opening book (a Polyglot file the test writes) and tablebase probing (a mock table)."""

import random
import struct

import chess
import pytest

from engine.book import OpeningBook
from engine.tablebase import TB_WIN, Tablebases


def _polyglot_move(move: chess.Move) -> int:
    promo = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    return (move.to_square & 7) | (move.to_square >> 3) << 3 | (move.from_square & 7) << 6 \
        | (move.from_square >> 3) << 9 | promo << 12


def write_book(path, entries):
    """entries: (board, move, weight); Polyglot books are sorted by key."""
    rows = sorted((chess.polyglot.zobrist_hash(b), _polyglot_move(m), w) for b, m, w in entries)
    with open(path, "wb") as f:
        for key, move, weight in rows:
            f.write(struct.pack(">QHHI", key, move, weight, 0))


def test_book_weighted_choice_and_out_of_book(tmp_path):
    start = chess.Board()
    e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
    path = tmp_path / "small.bin"
    write_book(path, [(start, e4, 3), (start, d4, 1)])
    book = OpeningBook(str(path))
    rng = random.Random(1)
    picks = [book.pick(start, rng) for _ in range(400)]
    assert set(picks) == {e4, d4}
    assert 0.6 < picks.count(e4) / len(picks) < 0.9  # weight 3 of 4
    after = start.copy()
    after.push(e4)
    assert book.pick(after, rng) is None  # out of book
    book.close()


def test_book_missing_file_raises():
    with pytest.raises(OSError):
        OpeningBook("/nonexistent/book.bin")


class MockTables:
    """KQ v K: the side with the queen wins; DTZ grows with the defending king's centrality."""

    def __init__(self):
        self.probes = 0

    def _queen_side(self, board):
        return chess.WHITE if board.pieces(chess.QUEEN, chess.WHITE) else chess.BLACK

    def probe_wdl(self, board):
        self.probes += 1
        if not board.queens:
            return 0
        return 2 if board.turn == self._queen_side(board) else -2

    def probe_dtz(self, board):
        wdl = self.probe_wdl(board)
        if wdl == 0:
            return 0
        weak_king = board.king(not self._queen_side(board))
        centrality = 7 - max(abs(3.5 - (weak_king & 7)), abs(3.5 - (weak_king >> 3))) * 2
        return int(centrality + 1) * (1 if wdl > 0 else -1)


def test_tablebase_scores_and_root_ranking():
    tb = Tablebases(MockTables(), max_pieces=3)
    board = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    assert tb.covers(board)
    assert not tb.covers(chess.Board())
    assert tb.wdl(board) == 2
    assert tb.wdl_score(2, 3) == TB_WIN - 3 and tb.wdl_score(-2, 3) == -TB_WIN + 3 and tb.wdl_score(1, 0) == 0
    ranked = tb.root_moves(board)
    moves = {m for m, _, _ in ranked}
    assert moves == set(board.legal_moves)
    # The queen must not be given away: every winning move is ranked above the losing ones.
    wdls = [wdl for _, wdl, _ in ranked]
    assert wdls == sorted(wdls, reverse=True)
    best_move, best_wdl, _ = ranked[0]
    assert best_wdl == 2
