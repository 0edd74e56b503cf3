"""Opening book (a Polyglot file the test writes), tablebase probing and the search with
tables (a mock KQvK table: no real tables are needed)."""

import random

import chess
import pytest

from loop_helpers import MockTables

from pruner.engine.book import OpeningBook
from pruner.engine.tablebase import MAX_DTZ, WIN_RANK, Tablebases
from pruner.engine.types import TB_WIN
from polyglot_helpers import write_book


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


def test_tablebase_scores_and_root_ranking():
    tb = Tablebases(MockTables(), max_pieces=3)
    board = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    assert tb.covers(board)
    assert not tb.covers(chess.Board())
    assert tb.wdl(board) == 2
    assert tb.wdl_score(2, 3) == TB_WIN - 3 and tb.wdl_score(-2, 3) == -TB_WIN + 3 and tb.wdl_score(1, 0) == 0
    legal = list(board.legal_moves)
    ranked = tb.rank_root_moves(board, legal)
    assert {m for m, _ in ranked} == set(legal)
    # The queen must not be given away: every winning move is ranked above the drawing ones.
    ranks = [rank for _, rank in ranked]
    assert ranks == sorted(ranks, reverse=True)
    assert WIN_RANK <= ranks[0] < MAX_DTZ  # a win, ranked by its distance to mate


# -- the search with tables -------------------------------------------------------------------

def test_search_probes_after_a_capture_and_counts_tbhits():
    from pruner.engine.search import Searcher
    from pruner.engine.types import Limits
    board = chess.Board("8/8/8/4k3/8/3r4/8/KQ6 w - - 0 1")  # Qxd3 reaches KQvK
    plain = Searcher().search(board, Limits(depth=3))
    assert plain.lines[0].tbhits == 0 and plain.score < 2000
    searcher = Searcher()
    tables = MockTables()
    searcher.tablebases = Tablebases(tables, max_pieces=3)
    infos = []
    result = searcher.search(board, Limits(depth=3), on_info=infos.append)
    assert result.best_move == chess.Move.from_uci("b1d3")
    assert result.score == TB_WIN - 1  # the win found one ply from the root
    assert infos[-1].tbhits > 0 and tables.probes >= infos[-1].tbhits
    assert infos[0].tbhits == 0  # depth 1 never reaches a probe (quiescence does not probe)


class WinsOnlyFromA1(MockTables):
    """White wins while its king stays on a1 (and the queen lives); anything else draws."""

    def probe_wdl(self, board):
        self.probes += 1
        if not board.queens or board.king(chess.WHITE) != chess.A1:
            return 0
        return 2 if board.turn == chess.WHITE else -2


def test_root_in_the_tables_plays_only_the_moves_that_keep_the_win():
    from pruner.engine.search import Searcher
    from pruner.engine.types import Limits
    board = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    searcher = Searcher()
    searcher.tablebases = Tablebases(WinsOnlyFromA1(), max_pieces=3)
    result = searcher.search(board, Limits(depth=2), multipv=50)
    queen_moves = {m for m in board.legal_moves if m.from_square == chess.B1}
    # The winning moves come first, whatever the search thinks of the drawing king moves.
    assert {line.pv[0] for line in result.lines[:len(queen_moves)]} == queen_moves
    assert result.best_move in queen_moves and result.lines[0].tbhits >= len(list(board.legal_moves))
    assert all(line.score == 0 for line in result.lines[len(queen_moves):])


def test_positions_outside_the_tables_search_exactly_as_without_them():
    from pruner.engine.search import Searcher
    from pruner.engine.types import Limits
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    plain = Searcher().search(board, Limits(depth=4))
    searcher = Searcher()
    searcher.tablebases = Tablebases(MockTables(), max_pieces=3)
    probed = searcher.search(board, Limits(depth=4))
    assert (probed.nodes, probed.best_move, probed.score) == (plain.nodes, plain.best_move, plain.score)
    assert probed.lines[0].tbhits == 0
