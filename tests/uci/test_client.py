"""Pruner through python-chess's ``chess.engine``: the way GUIs, match runners and scripts use it.

These tests use real clocks where the point is time handling (the self-play game), but never
assert on speed: only on legality, completion and not losing on time.
"""

import logging
import time

import chess
import chess.engine
import pytest

SELF_PLAY_PLIES = 60
CLOCK_SECONDS = 1.0
INCREMENT_SECONDS = 0.01


@pytest.fixture
def open_engine(engine_command, repo_root):
    """Factory for engine processes; all are quit at the end of the test."""
    started = []

    def start() -> chess.engine.SimpleEngine:
        engine = chess.engine.SimpleEngine.popen_uci(engine_command, cwd=repo_root, timeout=30)
        started.append(engine)
        return engine

    yield start
    for engine in started:
        try:
            engine.quit()
        except chess.engine.EngineTerminatedError:
            pass


def test_handshake_reports_name_and_options(open_engine):
    engine = open_engine()
    assert engine.id["name"].startswith("Pruner ")
    assert engine.id["author"] == "The Pruner developers"
    assert {"Hash", "Clear Hash", "Move Overhead", "Ponder", "MultiPV", "UCI_AnalyseMode"} <= set(engine.options)
    assert engine.options["Hash"].default == 16 and engine.options["MultiPV"].max == 256
    engine.configure({"Hash": 32, "Move Overhead": 20})
    engine.ping()


def test_analyse_to_a_fixed_depth(open_engine):
    engine = open_engine()
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["depth"] == 3
    assert info["score"].white() == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("a1a8")
    board = chess.Board()
    info = engine.analyse(board, chess.engine.Limit(depth=2))
    assert info["depth"] == 2 and board.is_legal(info["pv"][0])
    assert isinstance(info["score"].relative, chess.engine.Cp)
    assert {"seldepth", "nodes", "nps", "time", "hashfull"} <= set(info)


def test_analyse_multipv_and_searchmoves(open_engine):
    engine = open_engine()
    board = chess.Board()
    infos = engine.analyse(board, chess.engine.Limit(depth=2), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert len({info["pv"][0] for info in infos}) == 3
    scores = [info["score"].relative.score() for info in infos]
    assert scores == sorted(scores, reverse=True)
    root_moves = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h4")]
    info = engine.analyse(board, chess.engine.Limit(depth=2), root_moves=root_moves)
    assert info["pv"][0] in root_moves


@pytest.mark.clock  # asserts on wall time: run alone (scripts/run_tests.sh)
def test_play_with_movetime_and_with_clocks(open_engine):
    engine = open_engine()
    board = chess.Board()
    result = engine.play(board, chess.engine.Limit(time=0.2))
    assert board.is_legal(result.move)
    board.push(result.move)
    start = time.monotonic()
    result = engine.play(board, chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.1, black_inc=0.1))
    assert board.is_legal(result.move)
    assert time.monotonic() - start < 5  # never more than the whole clock
    result = engine.play(board, chess.engine.Limit(white_clock=2, black_clock=2, remaining_moves=5))
    assert board.is_legal(result.move)


FORCED_MATED = "r1bqr1k1/p1R4Q/1p3bp1/3pB3/3p4/4P3/PP3PPP/5RK1 b - - 0 19"
"""Issue 44, item 8: Kf8 is the only move, and white mates next (Rf7 or Qf7)."""


def test_a_forced_move_on_a_clock_reports_the_mate_and_a_ponder_move(open_engine):
    """Stockfish answers `score mate -1`, `bestmove g8f8 ponder c7f7`; Pruner said `score cp 33`
    from depth 1, with no ponder move. Either mating reply (Rf7, Qf7) is a true ponder move."""
    engine = open_engine()
    board = chess.Board(FORCED_MATED)
    result = engine.play(board, chess.engine.Limit(white_clock=60, black_clock=60), info=chess.engine.INFO_ALL)
    assert result.move == chess.Move.from_uci("g8f8")
    assert result.info["score"].relative == chess.engine.Mate(-1) and result.info["depth"] >= 2
    board.push(result.move)
    assert result.ponder is not None and board.is_legal(result.ponder)
    board.push(result.ponder)
    assert board.is_checkmate()


@pytest.mark.clock  # asserts on wall time: run alone (scripts/run_tests.sh)
def test_a_forced_move_on_a_long_clock_still_answers_quickly(open_engine):
    """Kxg7 is the only move: searched beyond depth 1 but for at most half a second (Stockfish's
    cap), not the ~12 s a normal move gets from a 10-minute clock."""
    engine = open_engine()
    board = chess.Board("r1b2rk1/2p1qnQp/p1pp2p1/5p2/2P1P3/1PN2N1P/PB3PP1/3R1RK1 b - - 0 1")
    engine.ping()
    start = time.monotonic()
    result = engine.play(board, chess.engine.Limit(white_clock=600, black_clock=600), info=chess.engine.INFO_ALL)
    assert time.monotonic() - start < 3  # 0.5 s and the replies, on a loaded machine
    assert result.move == chess.Move.from_uci("g8g7") and result.ponder is not None
    assert result.info["depth"] >= 2


def test_play_with_pondering(open_engine, caplog):
    engine = open_engine()
    board = chess.Board()
    game = object()
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    for ply in range(6):
        result = engine.play(board, chess.engine.Limit(white_clock=3, black_clock=3), ponder=True, game=game)
        assert board.is_legal(result.move)
        board.push(result.move)
        # The opponent's reply: the expected one (ponderhit) or another (stop, new search).
        expected = result.ponder if result.ponder is not None and board.is_legal(result.ponder) else None
        board.push(expected if expected is not None and ply % 2 == 0 else next(iter(board.legal_moves)))
    sent = [record.getMessage() for record in caplog.records]
    assert any(message.endswith("<< ponderhit") for message in sent)
    assert any(message.endswith("<< stop") for message in sent)


def test_no_legal_move_and_analysis_of_a_finished_game(open_engine):
    engine = open_engine()
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert engine.play(mated, chess.engine.Limit(depth=2)).move is None
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    info = engine.analyse(stalemate, chess.engine.Limit(depth=2))
    assert info["score"].relative == chess.engine.Cp(0)


def test_infinite_analysis_is_stopped_by_the_client(open_engine):
    engine = open_engine()
    with engine.analysis(chess.Board()) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 3:
                break
    best = analysis.wait()
    assert chess.Board().is_legal(best.move)


@pytest.mark.clock  # asserts on wall time: run alone (scripts/run_tests.sh)
def test_self_play_game_on_a_one_second_clock(open_engine):
    """Two processes, 1 s + 10 ms each, clocks kept here: a legal game with no time loss."""
    engines = {chess.WHITE: open_engine(), chess.BLACK: open_engine()}
    for engine in engines.values():
        engine.configure({"Move Overhead": 30})  # pipe and python-chess latency on a busy 2-core runner
    clocks = {chess.WHITE: CLOCK_SECONDS, chess.BLACK: CLOCK_SECONDS}
    board = chess.Board()
    game = object()
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < SELF_PLAY_PLIES:
        side = board.turn
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=INCREMENT_SECONDS, black_inc=INCREMENT_SECONDS)
        start = time.monotonic()
        result = engines[side].play(board, limit, game=game)
        clocks[side] -= time.monotonic() - start
        assert clocks[side] > 0, "%s lost on time at ply %d" % ("white" if side else "black", len(board.move_stack))
        clocks[side] += INCREMENT_SECONDS
        assert result.move is not None and board.is_legal(result.move), (board.fen(), result.move)
        board.push(result.move)
    assert len(board.move_stack) == SELF_PLAY_PLIES or board.is_game_over(claim_draw=True)
