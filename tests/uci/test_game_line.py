"""``position ... moves`` applied incrementally and kept compactly (protocol/uci/game_line.py,
issue 51 item 4): the same position and recent history as pushing every move, repetitions
seen across position lines, a refused line that changes nothing, and a 4 MB line read and
answered in seconds and well under 600 MB."""

import random
import sys
import time

import chess
import pytest

import long_position
from loop_helpers import WAIT, make_loop, run
from memwatch import rss_kb
from playouts import random_moves
from pruner.uci.game_line import KEPT_PLIES, IllegalMove, play
from pruner.uci.wire import UciError, parse_command, parse_position, parse_position_line
from uci_process import Uci, legal

QUEEN_UP = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
"""Black has no queen: White is a queen up, so a draw by repetition is far from the eval."""
SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def replayed(board: chess.Board, texts):
    """``board`` with every move of ``texts`` pushed by python-chess (the reference)."""
    board = board.copy()
    for text in texts:
        board.push(board.parse_uci(text))
    return board


def recent(board: chess.Board):
    """The moves of ``board``'s stack since its last capture or pawn move, at most ``KEPT_PLIES``."""
    kept = []
    work = board.root()
    for move in board.move_stack:
        kept = [] if work.is_zeroing(move) else kept + [move]
        work.push(move)
    return kept[-KEPT_PLIES:]


def shuffled_game(rng: random.Random, start: chess.Board, plies: int):
    """UCI texts of a random game from ``start`` in which, now and then, both sides move a piece
    out and back (positions and moves met again, as a long line has them)."""
    board = start.copy()
    texts = []
    for move in random_moves(rng, board, plies):
        texts.append(move.uci())
        if rng.random() < 0.3 and _out_and_back(rng, board):
            texts += [m.uci() for m in board.move_stack[-4:]]
    return texts


def _out_and_back(rng: random.Random, board: chess.Board) -> bool:
    """Push a quiet piece move of each side and both moves back, if they are all legal."""
    pushed = 0
    for _ in range(2):
        quiet = [m for m in board.legal_moves if not board.is_zeroing(m) and not board.is_castling(m)]
        if not quiet:
            break
        board.push(rng.choice(quiet))
        pushed += 1
    for _ in range(2 if pushed == 2 else 0):
        there = board.move_stack[-2]
        back = chess.Move(there.to_square, there.from_square)
        if not board.is_legal(back):
            break
        board.push(back)
        pushed += 1
    if pushed == 4:
        return True
    for _ in range(pushed):
        board.pop()
    return False


# -- the board after a line ---------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(12))
def test_play_gives_the_position_and_recent_moves_of_pushing_every_move(seed):
    rng = random.Random(seed)
    start = chess.Board()
    if seed % 3 == 2:  # Chess960 starts: castling written king-takes-rook
        start = chess.Board.from_chess960_pos(rng.randrange(960))
    texts = shuffled_game(rng, start, rng.randrange(40, 400))
    start_fen = start.fen()
    expected = replayed(start, texts)
    board = play(start, texts)
    assert board.fen() == expected.fen() and board.chess960 == expected.chess960
    assert board.move_stack == recent(expected)
    assert board.is_repetition(2) == expected.is_repetition(2)
    assert [m.uci() for m in board.legal_moves] == [m.uci() for m in expected.legal_moves]
    assert start.fen() == start_fen and not start.move_stack  # untouched


def test_a_long_line_keeps_only_what_repetitions_need():
    texts = long_position.long_line(3000, spacing=500)
    expected = replayed(chess.Board(), texts)
    board = parse_position(["startpos", "moves"] + texts)
    assert board.fen() == expected.fen()
    assert expected.halfmove_clock > KEPT_PLIES  # the fifty-move rule draws; a hundred moves are kept
    assert len(board.move_stack) == KEPT_PLIES and board.move_stack == expected.move_stack[-KEPT_PLIES:]
    texts = ["e2e4", "e7e5"] + SHUFFLE * 50 + ["d2d4", "d7d5"] + SHUFFLE * 3 + ["g1f3"]
    board = parse_position(["startpos", "moves"] + texts)
    assert board.move_stack == [chess.Move.from_uci(t) for t in SHUFFLE * 3 + ["g1f3"]]
    assert board.halfmove_clock == 13 and board.fullmove_number == replayed(chess.Board(), texts).fullmove_number


def test_a_refused_move_names_itself_its_ply_and_its_position():
    texts = SHUFFLE * 3 + ["e2e4", "e7e5", "g1f3", "e8e6"]
    with pytest.raises(IllegalMove) as caught:
        play(chess.Board(), texts)
    assert (caught.value.text, caught.value.ply) == ("e8e6", 16)
    assert caught.value.fen == replayed(chess.Board(), texts[:-1]).fen()
    for bad in ("0000", "e2e5", "xyzzy", "e7e5"):  # the null move, illegal, not a move, the wrong side's
        with pytest.raises(UciError, match=r"illegal move '%s' at ply 9 in " % bad):
            parse_position(["startpos", "moves"] + SHUFFLE * 2 + [bad])


def test_the_same_line_again_or_longer_plays_only_the_new_moves(monkeypatch):
    loop, output, _ = make_loop()
    rng = random.Random(5)
    texts = shuffled_game(rng, chess.Board(), 120)
    more = [m.uci() for m in random_moves(rng, replayed(chess.Board(), texts), 3)]
    expected = replayed(chess.Board(), texts + more)
    run(loop, "position startpos moves " + " ".join(texts))
    checked = []
    real = chess.Board.parse_uci
    monkeypatch.setattr(chess.Board, "parse_uci", lambda board, text: checked.append(text) or real(board, text))
    run(loop, "position startpos moves " + " ".join(texts + more))
    assert checked == more  # as a GUI sends a game: each move checked once
    longer = loop.state.board
    checked.clear()
    run(loop, "position startpos moves " + " ".join(texts + more))
    assert checked == []
    monkeypatch.undo()
    assert longer.fen() == loop.state.board.fen() == expected.fen()
    assert longer.move_stack == loop.state.board.move_stack == recent(expected)
    assert output.lines == []


@pytest.mark.parametrize("other", [
    ["startpos", "moves", "e2e4", "e7e5", "g1f3"],  # taken back and replaced: no prefix
    ["startpos", "moves", "e2e4", "e7e6"],  # the same length, another move
    ["startpos", "moves", "e2e4", "e7e5b"],  # a token that starts with the previous one
    ["fen", chess.STARTING_FEN, "moves", "e2e4", "e7e5", "g1f3", "b8c6"],  # another start
])
def test_another_line_is_played_in_full(other):
    previous = parse_position_line(["startpos", "moves", "e2e4", "e7e5", "g1f3", "b8c6"])
    try:
        line = parse_position_line(other, previous=previous)
    except UciError as exc:
        assert "e7e5b" in str(exc)
        return
    expected = parse_position(other)
    assert line.board.fen() == expected.fen() and line.board.move_stack == expected.move_stack


def test_the_chess960_setting_is_part_of_the_start():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    previous = parse_position_line(["fen"] + fen.split() + ["moves"], chess960=False)
    line = parse_position_line(["fen"] + fen.split() + ["moves", "e1h1"], chess960=True, previous=previous)
    assert line.board.chess960 and line.board.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    assert line.board.uci(line.board.move_stack[0]) == "e1h1"


def test_a_parsed_command_has_every_token_without_spans_but_setoption_keeps_them():
    line = "  position\tstartpos moves e2e4\x0be7e5  "
    command = parse_command(line)
    assert (command.name, command.args, command.spans) == ("position", ["startpos", "moves", "e2e4", "e7e5"], [])
    command = parse_command("joho setoption name  Book File value a  b.bin")
    assert command.skipped == ["joho"] and command.args[-2:] == ["a", "b.bin"]
    assert command.line[command.spans[-2][0]:command.spans[-1][1]] == "a  b.bin"


# -- the UCI loop ---------------------------------------------------------------------------------

def test_a_gui_sending_the_whole_game_each_time_gets_the_full_replays_positions():
    loop, output, _ = make_loop()
    rng = random.Random(11)
    texts = shuffled_game(rng, chess.Board(), 200)
    expected = chess.Board()
    for end in range(0, len(texts) + 1, 7):
        run(loop, " ".join(["position", "startpos", "moves"] + texts[:end]))
        expected = replayed(expected, texts[len(expected.move_stack):end])
        assert loop.state.board.fen() == expected.fen()
        assert loop.state.board.move_stack == recent(expected)
    assert output.with_prefix("info string error") == []


def test_a_refused_line_keeps_the_old_position_and_go_answers_for_none():
    loop, output, _ = make_loop()
    run(loop, "position startpos moves e2e4 e7e5")
    kept = loop.state.board
    run(loop, "position startpos moves e2e4 e7e5 g1f3 g8f6 e1e3")
    assert output.with_prefix("info string error") == [
        "info string error: position: illegal move 'e1e3' at ply 5 in "
        "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"]
    assert loop.state.board is kept and kept.fen() == replayed(chess.Board(), ["e2e4", "e7e5"]).fen()
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("bestmove") == ["bestmove 0000"]  # the GUI's position is another
    run(loop, "position startpos moves e2e4 e7e5 g1f3")  # extends the last accepted line
    assert loop.state.board.fen() == replayed(chess.Board(), ["e2e4", "e7e5", "g1f3"]).fen()
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("bestmove")[1] != "bestmove 0000"


def test_a_bug_while_reading_a_position_line_leaves_no_position_to_answer_for(monkeypatch):
    loop, output, _ = make_loop()
    run(loop, "position startpos moves e2e4")

    def broken(board, text):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(chess.Board, "parse_uci", broken)
    run(loop, "position startpos moves e2e4 e7e5 g1f3")
    monkeypatch.undo()
    assert [line for line in output.with_prefix("info string error") if "disk on fire" in line]
    run(loop, "go depth 1")
    assert loop.wait_idle(WAIT)
    assert output.with_prefix("bestmove") == ["bestmove 0000"]  # not a move for the position after e2e4


def _score_of(move: str, *lines: str) -> str:
    """The score a real one-thread search gives ``move`` after the position lines ``lines``."""
    from pruner.engine.search import Searcher
    from pruner.uci.loop import UciLoop
    from pruner.uci.output import Writer
    from loop_helpers import Output
    output = Output()
    loop = UciLoop(Writer(output.write), lambda hash_mb: Searcher(hash_mb))
    run(loop, *lines)
    run(loop, "go depth 3 searchmoves %s" % move)
    assert loop.wait_idle(WAIT * 3)
    info = output.with_prefix("info depth 3 ")[-1].split()
    return " ".join(info[info.index("score") + 1:info.index("score") + 3])


def test_a_repetition_across_position_lines_is_a_draw():
    # After two shuffles the position after g1f3 has been seen twice: a third time draws,
    # though White is a queen up; the history came in two lines, the second extending the first.
    base = "position fen %s moves" % QUEEN_UP
    assert _score_of("g1f3", "%s %s" % (base, " ".join(SHUFFLE)),
                     "%s %s" % (base, " ".join(SHUFFLE * 2))) == "cp 0"
    assert _score_of("b1c3", "%s %s" % (base, " ".join(SHUFFLE * 2))) != "cp 0"
    # A pawn move in between: the positions before it do not come again.
    pawns = ["a2a3", "a7a6"]
    assert _score_of("g1f3", "%s %s" % (base, " ".join(SHUFFLE * 60 + pawns + SHUFFLE))) != "cp 0"
    assert _score_of("g1f3", "%s %s" % (base, " ".join(SHUFFLE * 60 + pawns + SHUFFLE * 2))) == "cp 0"


def test_a_line_past_the_fifty_move_rule_draws_and_still_answers():
    base = "position fen %s moves %s" % (QUEEN_UP, " ".join(SHUFFLE * 30))  # 120 plies: no capture, no pawn move
    assert _score_of("b1c3", base) == "cp 0"


# -- a 4 MB line in the engine process ------------------------------------------------------------

LONG_PLIES = 820000
"""A 4.1 MB line, under the server's 4 MiB cap (protocol/uci/loop.py, MAX_LINE_BYTES)."""


@pytest.mark.clock  # asserts on wall time: run alone (scripts/run_tests.sh)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_4_mb_position_line_is_read_and_answered_in_seconds_in_little_memory(engine_command, repo_root):
    from pruner.uci.loop import MAX_LINE_BYTES
    texts = long_position.long_line(LONG_PLIES)
    line = "position startpos moves " + " ".join(texts)
    assert len(line) < MAX_LINE_BYTES
    uci = Uci(engine_command, repo_root)
    try:
        uci.handshake()
        uci.sync()
        began = time.monotonic()
        uci.send(line)
        uci.send("isready")
        uci.expect(r"readyok\r?\n", timeout=300)  # before the fix: 13 s on an idle machine, 50 s on a busy one
        read_s = time.monotonic() - began
        began = time.monotonic()
        uci.send("go wtime 1000")
        move, _ = uci.bestmove(timeout=300)
        go_s = time.monotonic() - began
        hwm_mb = rss_kb(uci.child.proc.pid, "VmHWM") // 1024
        # Before: 13 s to read, 10-15 s to answer, 1.1-2.0 GB; now about 2 s, 0.1 s and 100-180 MB
        # (docs/hardening.md). Generous bounds for a shared, slow machine.
        assert read_s < 20 and go_s < 5 and hwm_mb < 600, (read_s, go_s, hwm_mb)
        uci.send(line + " " + move)  # the GUI's next line: only the new move is played
        uci.send("d")
        fen = uci.expect(r"Fen: ([^\r\n]+)").group(1)
    finally:
        uci.close()
    final = play(chess.Board(), texts)
    assert legal(final, move)
    assert fen == replayed(final, [move]).fen()
