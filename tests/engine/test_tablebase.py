"""Syzygy tablebases with real tables (tests/data/syzygy): root ranking by DTZ with the
fifty-move counter, conversion of won endings against the best defence, drawn endings held,
tablebase scores in the transposition table, and unreadable table files."""

import os
import random

import chess
import chess.syzygy
import pytest

from pruner.engine.search import Searcher
from pruner.engine.tablebase import MAX_DTZ, WIN_RANK, Tablebases, rank_score
from pruner.engine.tt import score_from_tt, score_to_tt, tt_key
from pruner.engine.types import TB_BOUND, TB_WIN, Limits, shown_cp
from loop_helpers import QUEEN_TAKES_ROOK, broken_copy
from pruner.uci.wire import format_score

from paths import SYZYGY


@pytest.fixture(scope="module")
def tables():
    tb = Tablebases.open(SYZYGY)
    yield tb
    tb.close()


def searcher_with(tables) -> Searcher:
    searcher = Searcher(4)
    searcher.tablebases = tables
    return searcher


# -- root ranking ------------------------------------------------------------------------------

def _zeroing_distance(tables, board: chess.Board, move: chess.Move) -> int:
    """Plies from ``board`` to the next capture, pawn move or mate after ``move``, best play."""
    board.push(move)
    try:
        return 1 if board.is_checkmate() or board.halfmove_clock == 0 else 1 - tables.tables.probe_dtz(board)
    finally:
        board.pop()


def test_a_win_ranks_its_moves_by_their_distance_to_zeroing(tables):
    """The fastest wins first from the first move on (it used to rank every win alike until a
    position repeated: Pruner then shuffled, and told only a FEN it never saw the repetition)."""
    board = chess.Board("8/8/8/8/3k4/8/8/R3K3 w - - 0 1")
    ranked = tables.rank_root_moves(board, list(board.legal_moves))
    wins = [(move, rank) for move, rank in ranked if rank >= WIN_RANK]
    assert len(wins) == len(ranked)  # no move gives the rook away here
    distances = [_zeroing_distance(tables, board, move) for move, _ in wins]
    assert distances == sorted(distances) and distances[0] < distances[-1]
    assert [rank for _, rank in wins] == [MAX_DTZ - distance for distance in distances]
    assert distances[0] == tables.tables.probe_dtz(board)  # the first rank: a fastest move
    hanging = chess.Move.from_uci("a1a4")  # Ra4+ Kc3: slower, still a win; Rd1+?? Kxd1 would not be
    assert dict(ranked)[hanging] >= WIN_RANK


def test_the_fifty_move_counter_turns_the_slow_wins_into_cursed_ones(tables):
    moves = list(chess.Board("8/8/8/8/3k4/8/8/R3K3 w - - 0 1").legal_moves)
    fresh = tables.rank_root_moves(chess.Board("8/8/8/8/3k4/8/8/R3K3 w - - 0 1"), moves)
    late = tables.rank_root_moves(chess.Board("8/8/8/8/3k4/8/8/R3K3 w - - 70 80"), moves)
    assert [move for move, _ in late] == [move for move, _ in fresh]  # the same order...
    assert late[0][1] >= WIN_RANK  # ...the fastest still wins...
    assert sum(rank >= WIN_RANK for _, rank in late) < len(late)  # ...the slowest would hit the rule


def test_kpvk_near_promotion_is_ranked_without_kbvk_and_knvk_tables(tables):
    """tests/data/syzygy has no KBvK or KNvK table (dead draws): python-chess needed them for
    every under-promotion, so this root was not ranked at all."""
    board = chess.Board("8/4P3/8/8/8/2k5/8/K7 w - - 0 1")
    ranked = dict(tables.rank_root_moves(board, list(board.legal_moves)))
    assert ranked[chess.Move.from_uci("e7e8q")] == ranked[chess.Move.from_uci("e7e8r")] == MAX_DTZ - 1
    assert ranked[chess.Move.from_uci("e7e8b")] == ranked[chess.Move.from_uci("e7e8n")] == 0
    assert tables.wdl(chess.Board("8/8/8/8/8/3k4/8/KN6 w - - 0 1")) == 0


def test_cursed_win_is_a_small_score_not_a_win(tables):
    # KRvK with the counter at 98 and mate far away: every move draws by the fifty-move rule.
    board = chess.Board("8/8/8/8/3k4/8/8/R3K3 w - - 98 120")
    ranked = tables.rank_root_moves(board, list(board.legal_moves))
    assert 0 < ranked[0][1] < WIN_RANK
    assert 0 < rank_score(ranked[0][1]) <= 50
    result = searcher_with(tables).search(board, Limits(depth=3))
    assert 0 <= result.score <= 50


def test_tablebase_win_is_shown_as_a_clear_score(tables):
    board = chess.Board("8/8/8/8/3k4/8/8/R3K3 w - - 0 1")
    result = searcher_with(tables).search(board, Limits(depth=4))
    assert result.score == TB_WIN - 1
    assert format_score(result.score, None) == "cp 19999"
    assert shown_cp(-(TB_WIN - 5)) == -19995 and shown_cp(250) == 250


# -- tablebase scores in the transposition table ------------------------------------------------

def test_tablebase_scores_are_stored_relative_to_the_node():
    win_seen_at_ply_3 = TB_WIN - 3
    stored = score_to_tt(win_seen_at_ply_3, 1)  # stored by a node at ply 1: win in 2 from there
    assert stored == TB_WIN - 2
    assert score_from_tt(stored, 5) == TB_WIN - 7  # the same node reached at ply 5
    assert score_from_tt(score_to_tt(-(TB_WIN - 4), 2), 2) == -(TB_WIN - 4)
    assert score_to_tt(TB_BOUND - 1, 7) == TB_BOUND - 1  # an evaluation is not moved


def test_table_keys_change_with_the_fifty_move_counter():
    key = 0x1234_5678_9ABC
    assert tt_key(key, 0) == tt_key(key, 13) == key
    assert tt_key(key, 14) != key and tt_key(key, 14) == tt_key(key, 21) != tt_key(key, 22)
    assert tt_key(key, 500) == tt_key(key, 1000)


# -- games against the best defence ----------------------------------------------------------------

class Oracle:
    """Plays from the tables: the strongest move by WDL, then DTZ (fastest win, slowest loss)."""

    def __init__(self, tables: chess.syzygy.Tablebase) -> None:
        self.tables = tables

    def move(self, board: chess.Board) -> chess.Move:
        def value(move):
            board.push(move)
            try:
                if board.is_checkmate():
                    return (3, 0)
                wdl = -self.tables.probe_wdl(board)
                dtz = -self.tables.probe_dtz(board)
                return (wdl, -dtz if wdl > 0 else -dtz if wdl < 0 else 0)
            finally:
                board.pop()
        return max(board.legal_moves, key=value)


def game_over(board: chess.Board) -> bool:
    """Mate, stalemate, bare kings, a threefold repetition or a fifty-move draw, as match runners
    adjudicate them (a repetition the side to move could still make does not end the game)."""
    return board.is_game_over() or board.is_repetition(3) or board.halfmove_clock >= 100


def play(fen: str, tables, pruner_plays: chess.Color, depth: int = 4, max_plies: int = 300) -> chess.Board:
    """Pruner (fixed depth, the game's history known) against the oracle; the final board."""
    board = chess.Board(fen)
    searcher = searcher_with(tables)
    oracle = Oracle(tables.tables)
    while not game_over(board) and len(board.move_stack) < max_plies:
        if board.turn == pruner_plays:
            move = searcher.search(board, Limits(depth=depth)).best_move
        else:
            move = oracle.move(board)
        board.push(move)
    return board


WON = [
    ("8/8/8/8/3k4/8/8/R3K3 w - - 0 1", "KRvK"),
    ("8/8/8/8/8/2k5/8/K6R w - - 40 60", "KRvK with 40 half-moves already on the counter"),
    ("8/8/3k4/3r4/8/8/8/KQ6 w - - 0 1", "KQvKR"),
    ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", "KPvK, pawn to promote"),
]


@pytest.mark.parametrize("fen,what", WON, ids=[w for _, w in WON])
def test_won_endings_are_converted(tables, fen, what):
    board = play(fen, tables, chess.WHITE)
    assert board.is_checkmate() and board.turn == chess.BLACK, (
        "%s: not won after %d plies: %s" % (what, len(board.move_stack), board.fen()))


def self_play_told_only_fens(fen: str, tables, depth: int = 3, max_plies: int = 120) -> chess.Board:
    """Pruner against itself at a fixed depth, each move searched from the position's FEN alone
    (no game moves: some programs send only the FEN, and the engine cannot see repetitions);
    the final board, with its moves."""
    board = chess.Board(fen)
    searchers = {chess.WHITE: searcher_with(tables), chess.BLACK: searcher_with(tables)}
    while not game_over(board) and len(board.move_stack) < max_plies:
        board.push(searchers[board.turn].search(chess.Board(board.fen()), Limits(depth=depth)).best_move)
    return board


TOLD_ONLY_FENS = [
    ("8/8/2k5/8/8/3r4/8/4KQ2 w - - 0 1", "KQvKR, Qxd3 (issue 44)"),
    ("qk6/8/8/8/8/4K3/8/8 b - - 0 1", "KQvK, Black"),
    ("8/8/8/3k4/5R2/8/8/K7 w - - 0 1", "KRvK, 31 plies to mate"),
    ("8/8/8/8/8/2k1P3/8/4K3 w - - 0 1", "KPvK"),
]


@pytest.mark.parametrize("fen,what", TOLD_ONLY_FENS, ids=[w for _, w in TOLD_ONLY_FENS])
def test_every_move_of_a_won_ending_brings_the_next_zeroing_nearer(tables, fen, what):
    """Told only the FEN, the winner used to shuffle into a threefold repetition (the issue's
    Qb5 Ka8 Qb3 Ka7 Qb5 Ka8): now each of its moves lowers the distance to the next capture,
    pawn move or mate by the tables, and the game ends in mate."""
    board = self_play_told_only_fens(fen, tables)
    winner = chess.Board(fen).turn
    assert board.is_checkmate() and board.turn != winner, "%s: %s after %d plies" % (
        what, board.fen(), len(board.move_stack))
    replay = chess.Board(fen)
    for move in board.move_stack:
        if replay.turn == winner:
            before = tables.tables.probe_dtz(replay)
            assert _zeroing_distance(tables, replay, move) <= before, (what, replay.fen(), move)
        replay.push(move)


DRAWN = [
    ("8/8/8/8/8/4k3/4P3/1K6 b - - 0 1", chess.BLACK, "KPvK defended"),
    ("8/8/4k3/8/8/8/4P3/4K3 w - - 0 1", chess.WHITE, "KPvK, nothing to win, nothing to lose"),
    ("8/8/2k5/8/8/r7/5R2/4K3 w - - 0 1", chess.WHITE, "KRvKR"),
    ("8/8/2k5/8/8/r7/5R2/4K3 b - - 0 1", chess.BLACK, "KRvKR, the other side"),
]


@pytest.mark.parametrize("fen,side,what", DRAWN, ids=[w for _, _, w in DRAWN])
def test_drawn_endings_are_held(tables, fen, side, what):
    assert tables.wdl(chess.Board(fen)) == 0
    board = play(fen, tables, side, depth=3, max_plies=120)
    assert not board.is_checkmate(), "%s: lost in %s" % (what, board.fen())
    assert tables.wdl(board) in (0, None) or board.halfmove_clock >= 100, board.fen()


# -- unreadable tables ----------------------------------------------------------------------------

@pytest.mark.parametrize("data", [random.Random(1).randbytes(1000), b"", None], ids=["random bytes", "empty", "truncated"])
def test_unreadable_table_is_left_out_and_reported(tmp_path, data):
    if data is None:
        with open(os.path.join(SYZYGY, "KQvK.rtbw"), "rb") as handle:
            whole = handle.read()
        data = whole[:len(whole) // 2]
    directory = broken_copy(tmp_path, "KQvK.rtbw", data)
    tables = Tablebases.open(str(directory))
    problems = tables.take_problems()
    assert len(problems) == 1 and "KQvK.rtbw" in problems[0]
    assert tables.take_problems() == []  # reported once
    fen, capture = QUEEN_TAKES_ROOK
    result = searcher_with(tables).search(chess.Board(fen), Limits(depth=3))
    assert result.error is None and result.best_move == capture
    tables.close()


def test_table_spoiled_after_loading_is_left_out_during_the_search(tmp_path):
    directory = broken_copy(tmp_path, "KQvK.rtbw.unused", b"")
    tables = Tablebases.open(str(directory))
    assert tables.take_problems() == []
    (directory / "KQvK.rtbw").write_bytes(random.Random(2).randbytes(999))  # e.g. a download overwriting it
    fen, capture = QUEEN_TAKES_ROOK
    result = searcher_with(tables).search(chess.Board(fen), Limits(depth=3))
    assert result.error is None and result.best_move == capture
    problems = tables.take_problems()
    assert problems and all("KQvK.rtbw" in p for p in problems)
    tables.close()


def garbage_inside(path: str, seed: int) -> bytes:
    """The file with its magic number kept and every later byte random (seeded): the size and
    the magic pass python-chess's checks, the rest is nonsense."""
    with open(path, "rb") as handle:
        size = len(handle.read())
    rng = random.Random(seed)
    with open(path, "rb") as handle:
        magic = handle.read(4)
    return magic + bytes(rng.randrange(256) for _ in range(size - 4))


@pytest.mark.parametrize("name", ["KQvK.rtbw", "KQvK.rtbz", "KQvKR.rtbw", "KQvKR.rtbz"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("when", ["at load", "after load"])
def test_garbage_inside_a_valid_header_is_left_out_and_the_search_goes_on(tmp_path, name, seed, when):
    """Same size, right magic, garbage after it: python-chess raises struct.error or
    RecursionError, or (a piece list naming other material) loops for ever in the probe."""
    bad = garbage_inside(os.path.join(SYZYGY, name), seed)
    directory = broken_copy(tmp_path, name, bad) if when == "at load" else broken_copy(tmp_path, "unused", b"")
    tables = Tablebases.open(str(directory))
    problems = tables.take_problems()
    if when == "after load":
        assert problems == []
        (directory / name).write_bytes(bad)
    fen, capture = QUEEN_TAKES_ROOK
    result = searcher_with(tables).search(chess.Board(fen), Limits(depth=3))
    assert result.error is None and result.best_move == capture
    problems += tables.take_problems()
    if when == "at load" or name.endswith("rtbw") or name.startswith("KQvKR"):  # files this search reads
        assert len(problems) == 1 and name in problems[0], problems
    assert tables.take_problems() == []  # reported once
    tables.close()


def test_the_search_answers_after_its_preparation_fails():
    """Tables that raise something unforeseen at the root: the search goes on without the
    ranking and says why, instead of the loop playing any legal move."""
    class Exploding:
        max_pieces = 5
        problems: list = []

        def covers(self, board):
            return True

        def rank_root_moves(self, *args, **kwargs):
            raise RuntimeError("boom")

        def wdl(self, board):
            return None

        def take_problems(self):
            return []

    fen, capture = QUEEN_TAKES_ROOK
    result = searcher_with(Exploding()).search(chess.Board(fen), Limits(depth=3))
    assert result.best_move == capture and isinstance(result.error, RuntimeError)
