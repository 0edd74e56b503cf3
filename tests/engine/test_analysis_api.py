"""pruner.engine.analysis: the in-process analysis API (analyse, Analyser) and its agreement with UCI."""

import os
import re
import threading

import chess
import chess.engine
import pytest

from pruner.engine.analysis import DEFAULT_DEPTH, Analyser, Analysis, Line, analyse

from paths import ROOT

ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
BK01 = "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1"  # Black mates in 3 (Qd1+)
MIDDLEGAME = "r3k2r/pp1nbppp/2p1pn2/q7/3P4/2N1PN2/PPQ1BPPP/R3K2R b KQkq - 0 10"
CHESS960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
DOCS = os.path.join(ROOT, "docs", "analysis.md")
EXAMPLE = re.compile(r"<!-- example:start -->\s*```python\n(.*?)```\s*<!-- example:end -->", re.S)


def test_result_is_typed_and_consistent():
    board = chess.Board(MIDDLEGAME)
    result = analyse(board, depth=3)
    assert isinstance(result, Analysis) and result.fen == MIDDLEGAME and result.turn == chess.BLACK
    assert result.best_move in board.legal_moves
    assert result.best_san == board.san(result.best_move)
    assert result.depth == 3 and result.seldepth >= 3 and result.nodes > 0 and result.time_ms >= 0
    assert len(result.lines) == 1 and isinstance(result.lines[0], Line)
    assert result.pv[0] == result.best_move and result.pv_san[0] == result.best_san
    replay = board.copy()
    for move, san in zip(result.pv, result.pv_san):
        assert replay.san(move) == san
        replay.push(move)
    # The score from both views: Black is to move, so White's view is the negation.
    assert isinstance(result.score, chess.engine.PovScore) and result.score.turn == chess.BLACK
    assert result.cp is not None and result.mate is None
    assert result.white_cp == -result.cp == result.score.white().score()


def test_board_is_never_modified():
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6"]:
        board.push_san(san)
    before_fen, before_stack = board.fen(), list(board.move_stack)
    analyse(board, depth=3, multipv=2)
    Analyser().analyse(board, depth=2)
    assert board.fen() == before_fen and board.move_stack == before_stack


def test_same_position_same_depth_same_result_and_nodes():
    board = chess.Board(MIDDLEGAME)
    first, second = analyse(board, depth=4), analyse(board, depth=4)
    assert (first.best_move, first.score, first.pv, first.nodes) == (second.best_move, second.score, second.pv, second.nodes)
    by_nodes = [analyse(board, nodes=700) for _ in range(2)]
    assert by_nodes[0].nodes == by_nodes[1].nodes and by_nodes[0].pv == by_nodes[1].pv


def test_analyser_reuses_its_table_and_new_game_forgets_it():
    boards = []
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]:
        board.push_san(san)
        boards.append(board.copy())
    fresh = [analyse(b, depth=4) for b in boards]
    analyser = Analyser()
    reused = [analyser.analyse(b, depth=4) for b in boards]
    # The table carried from one position to the next saves work over the game.
    assert sum(r.nodes for r in reused) < sum(f.nodes for f in fresh)
    analyser.new_game()
    again = analyser.analyse(boards[-1], depth=4)
    assert (again.best_move, again.score, again.nodes) == (fresh[-1].best_move, fresh[-1].score, fresh[-1].nodes)


def test_multipv_lines_are_distinct_ranked_and_ordered():
    board = chess.Board(ITALIAN)
    result = analyse(board, depth=3, multipv=4)
    assert [line.multipv for line in result.lines] == [1, 2, 3, 4]
    moves = [line.move for line in result.lines]
    assert len(set(moves)) == 4 and all(move in board.legal_moves for move in moves)
    scores = [line.score.relative.score(mate_score=100000) for line in result.lines]
    assert scores == sorted(scores, reverse=True)
    assert result.best_move == moves[0] and result.score == result.lines[0].score
    # More lines than legal moves: one line per legal move.
    few = chess.Board("7k/8/8/8/8/8/8/K7 w - - 0 1")
    assert len(analyse(few, depth=2, multipv=10).lines) == few.legal_moves.count()


def test_searchmoves_restrict_the_root():
    board = chess.Board(ITALIAN)
    result = analyse(board, depth=3, searchmoves=["b1c3", chess.Move.from_uci("f1c4")])
    assert result.best_move.uci() in ("b1c3", "f1c4")
    lines = analyse(board, depth=2, multipv=3, searchmoves=["a2a3", "h2h3"]).lines
    assert sorted(line.move.uci() for line in lines) == ["a2a3", "h2h3"]
    with pytest.raises(ValueError):
        analyse(board, depth=2, searchmoves=["e1e3"])


def test_mate_scores_from_both_sides():
    result = analyse(chess.Board(BK01), depth=4)
    assert result.best_san == "Qd1+"
    assert result.mate == 3 and result.cp is None
    assert result.white_mate == -3 and result.white_cp is None
    assert result.score.relative == chess.engine.Mate(3)
    mate_in_one = analyse(chess.Board("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"), depth=2)
    assert mate_in_one.mate == 1 and mate_in_one.white_mate == 1 and mate_in_one.best_san in ("Qf8#", "Qg7#")


def test_positions_without_legal_moves():
    mated = analyse(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), depth=3)
    assert mated.best_move is None and mated.lines == [] and mated.nodes == 0
    assert mated.outcome.termination == chess.Termination.CHECKMATE
    assert mated.mate == 0 and mated.score.relative == chess.engine.Mate(0)
    stalemate = analyse(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), depth=3)
    assert stalemate.best_move is None and stalemate.cp == 0 and stalemate.white_cp == 0
    assert stalemate.outcome.termination == chess.Termination.STALEMATE


def test_chess960():
    board = chess.Board(CHESS960, chess960=True)
    result = analyse(board, depth=3, multipv=2)
    assert result.best_move in board.legal_moves
    board = chess.Board("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAga - 0 1", chess960=True)
    castling = analyse(board, depth=2, searchmoves=["b1g1"])  # Chess960 castling: king takes rook
    assert castling.best_move.uci() == "b1g1" and board.is_castling(castling.best_move)
    assert castling.best_san == "O-O"


def test_on_info_reports_every_iteration_and_stop_ends_early():
    seen = []
    result = analyse(chess.Board(ITALIAN), depth=3, multipv=2, on_info=seen.append)
    assert [(line.depth, line.multipv) for line in seen] == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
    assert seen[-2].pv == result.lines[0].pv
    stop = threading.Event()

    def stop_after_depth_two(line: Line) -> None:
        if line.depth >= 2:
            stop.set()

    stopped = analyse(chess.Board(ITALIAN), depth=30, on_info=stop_after_depth_two, stop=stop)
    assert stopped.depth == 2 and stopped.best_move is not None


def test_default_limit_and_bad_arguments():
    seen = []
    analyse(chess.Board("7k/8/8/8/8/8/8/K5R1 w - - 0 1"), on_info=seen.append)
    assert max(line.depth for line in seen) == DEFAULT_DEPTH
    board = chess.Board()
    for kwargs in (dict(depth=0), dict(nodes=-5), dict(time=0), dict(multipv=0), dict(searchmoves=[])):
        with pytest.raises(ValueError):
            analyse(board, **kwargs)
    with pytest.raises(ValueError, match="no black king"):
        analyse(chess.Board("8/8/8/8/8/8/8/K7 w - - 0 1"), depth=1)


def test_time_limit_returns_a_move():
    result = analyse(chess.Board(MIDDLEGAME), time=0.05)
    assert result.best_move in chess.Board(MIDDLEGAME).legal_moves


def test_docs_example_runs(capsys):
    with open(DOCS, encoding="utf-8") as handle:
        match = EXAMPLE.search(handle.read())
    assert match, "docs/analysis.md lost its example markers"
    exec(compile(match.group(1), DOCS, "exec"), {"__name__": "docs_example"})
    assert "Qd1+ 3 -3" in capsys.readouterr().out


def test_readme_example_runs():
    """The README's analysis example, once it has one between the same markers."""
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as handle:
        match = EXAMPLE.search(handle.read())
    if match is None:
        pytest.skip("README.md has no <!-- example:start --> block yet")
    exec(compile(match.group(1), path, "exec"), {"__name__": "readme_example"})


UCI_POSITIONS = [ITALIAN, BK01, MIDDLEGAME]


@pytest.mark.parametrize("multipv", [1, 3])
def test_agrees_with_the_uci_server(engine_command, repo_root, multipv):
    """Same position and depth: same moves, scores and nodes as ``go depth`` over UCI."""
    with chess.engine.SimpleEngine.popen_uci(engine_command, cwd=repo_root, timeout=30) as uci:
        for fen in UCI_POSITIONS:
            board = chess.Board(fen)
            # A new game object each time makes python-chess send ucinewgame: a fresh table.
            infos = uci.analyse(board, chess.engine.Limit(depth=3), multipv=multipv, game=object())
            result = analyse(board, depth=3, multipv=multipv)
            assert [info["pv"] for info in infos] == [line.pv for line in result.lines]
            assert [info["score"] for info in infos] == [line.score for line in result.lines]
            assert infos[0]["pv"][0] == result.best_move
            # The server may repeat the final lines with the search's total node count.
            assert max(info["nodes"] for info in infos) == result.nodes


def test_positions_of_perft_suites_that_no_game_reaches_are_analysed():
    # Two aligned checkers ("impossible check" for python-chess) cannot arise in a game, but
    # legal moves exist; the UCI position command accepts it, and so does the analysis.
    board = chess.Board("B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1")
    assert board.status() & chess.STATUS_IMPOSSIBLE_CHECK
    result = analyse(board, depth=2)
    assert result.best_move in board.legal_moves
    with pytest.raises(ValueError, match="opposite check"):
        analyse(chess.Board("4k3/8/8/8/8/8/8/4K2q b - - 0 1"), depth=1)


def test_from_pruner_import_analyse_is_the_function_whatever_was_imported_before():
    """``pruner analyse``'s package is ``pruner.analyse_app``: were it ``pruner.analyse``,
    importing it (as the CLI and its tests do) would bind the attribute ``analyse`` of
    ``pruner`` to the package, and the README's ``from pruner import analyse`` would then get
    a module (found by the suite: the README example failed after the CLI's tests)."""
    import importlib

    importlib.import_module("pruner.analyse_app.cli")
    from pruner import analyse, Analyser
    from pruner.engine.analysis import analyse as engine_analyse, Analyser as engine_analyser
    assert analyse is engine_analyse and Analyser is engine_analyser
