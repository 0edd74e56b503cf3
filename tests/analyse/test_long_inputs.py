"""Long games, games of many comments and odd line ends in ``pruner analyse`` (issue 51,
items 5-7): the cost of a game grows with its length, not its square; a game is parsed once;
CR, LF and CRLF line ends read alike, as python-chess reads them."""

import io
import os
import random
import subprocess
import sys

import chess
import chess.pgn
import pytest

import pruner.engine.pgn
from pruner import engine
from pruner.engine.pgn import PgnReader
from pruner.engine.textlines import UniversalNewlines
from pruner.analyse_app.cli import main
from pruner.analyse_app.inputs import GameTask, Inputs
from pruner.analyse_app.review.model import build_review
from pruner.analyse_app.tasks import Settings, TaskResult, run_task

from long_games import long_game_pgn, many_comments_pgn
from paths import ROOT
from sample_games import IMMORTAL_GAME, OPERA_GAME


def tasks_of(path, **selection):
    reports = []
    tasks = list(Inputs([str(path)], reports.append))
    return tasks, reports


def game_task(tmp_path, text, name="game.pgn"):
    path = tmp_path / name
    path.write_text(text)
    tasks, reports = tasks_of(path)
    assert reports == [] and len(tasks) == 1
    return tasks[0]


# --- item 5: a long game ---------------------------------------------------------------------------------

def test_a_review_copies_no_move_stack_per_ply(tmp_path):
    task = game_task(tmp_path, long_game_pgn(600))
    review = build_review(1, task, TaskResult(task.source), "depth 1")
    assert len(review.plies) == 600
    assert [len(view.board.move_stack) for view in review.plies] == [0] * 600
    replay = chess.Board(review.start.fen())
    for view in review.plies:  # still the position before each move
        assert view.board.fen() == replay.fen() and view.san == replay.san(view.move)
        replay.push(view.move)


class StackSpy:
    """An analyser that records the move stack of every board it is given (a real one beneath)."""

    def __init__(self, analyser):
        self.analyser = analyser
        self.stacks = []

    def new_game(self):
        self.analyser.new_game()

    def analyse(self, board, **limits):
        self.stacks.append((len(board.move_stack), board.halfmove_clock))
        return self.analyser.analyse(board, **limits)


def test_a_game_is_searched_with_the_history_repetitions_need(tmp_path):
    """Each search gets the moves since the last capture or pawn move (what the search replays),
    not the whole game; the records are those of searches given the whole game."""
    from pruner.engine.analysis import Analyser
    task = game_task(tmp_path, long_game_pgn(300))
    spy = StackSpy(Analyser(16))
    result = run_task(task, Settings(depth=1), analyser=spy)
    assert result.error is None and len(result.records) == 301
    assert all(length == clock for length, clock in spy.stacks)
    assert max(length for length, _ in spy.stacks) < 20
    # the same searches on boards with the whole game's stack
    reference = Analyser(16)
    board = task.start_board()
    for ply, record in enumerate(result.records):
        analysis = reference.analyse(board, depth=1)
        assert (record["best_uci"], record["cp"], record["nodes"]) == \
            (analysis.best_move.uci(), analysis.score.relative.score(), analysis.nodes), ply
        if ply < len(task.moves):
            board.push(task.moves[ply])
    assert len(board.move_stack) == 300


def max_rss_mb(argv):
    """Peak memory of a process running ``argv`` (resident set, MB), and its exit status."""
    code = ("import resource, subprocess, sys; status = subprocess.call(sys.argv[1:]);"
            "print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code] + argv, cwd=ROOT, capture_output=True, text=True, check=True)
    status, kilobytes = out.stdout.split()
    return int(status), int(kilobytes) / 1024.0


def test_a_3000_ply_games_review_stays_under_300_mb(tmp_path):
    """The review of a 3,000-ply game (the last few positions analysed: the review holds every
    ply anyway) in well under the 1 GB it took when every ply copied the move stack."""
    path = tmp_path / "long.pgn"
    path.write_text(long_game_pgn(3000))
    status, megabytes = max_rss_mb([sys.executable, "-m", "pruner", "analyse", "-q", "--jobs", "1", "--depth", "1",
                                    "--from-move", "1498", "--report", str(tmp_path / "r.html"),
                                    "-o", str(tmp_path / "r.jsonl"), str(path)])
    assert status == 0
    assert megabytes < 300
    assert "long game 3000" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_a_long_games_page_is_written_in_pieces(tmp_path):
    """The page goes to its file a piece at a time (a diagram a piece), the same page as
    ``render_report`` makes whole: a long game's page (74 MB at 3,000 plies) is never held
    whole, nor twice while it is joined and encoded."""
    from pruner.analyse_app.review.html import page_chunks, render_report
    task = game_task(tmp_path, long_game_pgn(200))
    result = run_task(task, Settings(depth=1))
    review = build_review(1, task, result, "depth 1")
    chunks = list(page_chunks([review]))
    page = render_report([review])
    assert "".join(chunks) == page and page.count("<figure") > 10
    assert max(len(chunk) for chunk in chunks) < len(page) / 4


# --- item 6: many comments --------------------------------------------------------------------------------

def test_a_game_is_parsed_once(tmp_path, monkeypatch):
    parsed = []
    real = chess.pgn.read_game

    def counting(handle, **kwargs):
        game = real(handle, **kwargs)
        if game is not None:
            parsed.append(game)
        return game
    monkeypatch.setattr(chess.pgn, "read_game", counting)
    path = tmp_path / "opera.pgn"
    path.write_text(OPERA_GAME)
    out, err = io.StringIO(), io.StringIO()
    assert main(["--depth", "1", "--jobs", "1", "-q", "--report", str(tmp_path / "r.html"), "-o", str(tmp_path / "r.jsonl"),
                 str(path)], stdout=out, stderr=err) == 0, err.getvalue()
    assert len(parsed) == 1 and len((tmp_path / "r.jsonl").read_text().splitlines()) == 34


def tricky_movetext(rng, comments):
    """Movetext of the Immortal game with ``comments`` comments put in at random, and the marks
    python-chess treats specially around them: ``;`` comments, ``%`` after a comment, stray
    ``}``, comments over several lines, NAGs, variations, blank-free line breaks."""
    moves = chess.pgn.read_game(io.StringIO(IMMORTAL_GAME)).mainline_moves()
    board = chess.Board()
    words = []
    for move in moves:
        if board.turn == chess.WHITE:
            words.append("%d." % board.fullmove_number)
        other = next((other for other in board.legal_moves if other != move), None)
        variation = "( %s {in a variation} )" % board.san(other) if other else ""
        words.append(board.san(move))
        board.push(move)
        for _ in range(rng.randrange(comments)):
            words.append(rng.choice(["{c%d}" % rng.randrange(1000), "{ spaced %d }" % rng.randrange(99), "{}",
                                     "{a;b}", "{multi\nline}", "}", "$1", "!?", "{x}%notescape", "{y}{z}",
                                     "{w}\t", "; rest %d" % rng.randrange(9)]))
        if rng.random() < 0.05:
            words.append(variation)
    text = ""
    for word in words:
        text += word + ("\n" if word.startswith(";") or rng.random() < 0.01 else " ")
    return text + " 1-0\n"


@pytest.mark.parametrize("seed", range(8))
def test_games_are_read_as_python_chess_reads_them(seed, monkeypatch):
    """Comments joined once and long lines handed to python-chess in pieces change nothing of
    what it reads (pieces made small here so that every line is cut)."""
    monkeypatch.setattr(engine.pgn, "PIECE_CHARS", 8)
    rng = random.Random(seed)
    text = '[Event "e}{;x"]\n[White "W"]\n\n' + tricky_movetext(rng, 8) + "\n" + tricky_movetext(rng, 3) + "\n"
    ours = [item.game for item in PgnReader().read(text)]
    handle = io.StringIO(text)
    theirs = []
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        theirs.append(game)
    assert len(ours) == 2 and [str(game) for game in ours] == [str(game) for game in theirs]
    assert [[node.comment for node in game.mainline()] for game in ours] == \
        [[node.comment for node in game.mainline()] for game in theirs]


def test_a_line_of_comments_goes_in_pieces_that_make_it_whole():
    line = " ".join("{c%d}" % number for number in range(3000)) + " e4\n"
    pieces = engine.pgn._pieces(line)
    assert "".join(pieces) == line and len(pieces) > 10
    assert max(len(piece) for piece in pieces) < 2 * engine.pgn.PIECE_CHARS


@pytest.mark.clock
def test_a_game_of_100000_comments_is_analysed_in_seconds(tmp_path):
    """A 1 MB game with 100,000 comments (all on one line, half of them on one move) at depth 1:
    it took 20-30 s when python-chess copied the rest of the line after each comment and joined
    a node's comments one at a time; the bound is generous for a loaded machine."""
    import time
    path = tmp_path / "comments.pgn"
    path.write_text(many_comments_pgn(100000, per_line=100000))
    started = time.monotonic()
    out, err = io.StringIO(), io.StringIO()
    status = main(["--depth", "1", "--jobs", "1", "-q", "--report", str(tmp_path / "r.html"),
                   "-o", str(tmp_path / "r.jsonl"), str(path)], stdout=out, stderr=err)
    elapsed = time.monotonic() - started
    assert status == 0, err.getvalue()
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 41
    assert elapsed < 10


# --- item 7: line ends ------------------------------------------------------------------------------------

TWO_GAMES = OPERA_GAME + "\n" + IMMORTAL_GAME


def read_tasks(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    tasks, reports = tasks_of(path)
    read = []
    for task in tasks:
        if isinstance(task, GameTask):
            game = chess.pgn.read_game(io.StringIO(task.pgn))
            read.append((game.board().fen(), tuple(game.mainline_moves()), tuple(game.headers.items())))
        else:
            read.append(task.fen)
    return read, reports


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_cr_and_crlf_files_read_as_lf_files(tmp_path, end):
    expected, reports = read_tasks(tmp_path, "lf.pgn", TWO_GAMES.encode())
    assert len(expected) == 2 and reports == []
    assert read_tasks(tmp_path, "other.pgn", TWO_GAMES.replace("\n", end).encode()) == (expected, [])
    epd = "".join("%s id \"p%d\";\n" % (board, n) for n, board in
                  enumerate(["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -", "4k3/8/8/8/8/8/4P3/4K3 w - -"]))
    positions, reports = read_tasks(tmp_path, "lf.epd", epd.encode())
    assert len(positions) == 2 and reports == []
    assert read_tasks(tmp_path, "other.epd", epd.replace("\n", end).encode()) == (positions, [])


def test_a_lone_cr_between_tags_keeps_the_names(tmp_path):
    text = OPERA_GAME.replace('[White "Paul Morphy"]\n', '[White "Paul Morphy"]\r')
    (task,), reports = read_tasks(tmp_path, "cr.pgn", text.encode())
    headers = dict(task[2])
    assert reports == [] and headers["White"] == "Paul Morphy" and headers["Black"] == "Duke Karl / Count Isouard"
    assert headers == dict(chess.pgn.read_game(io.StringIO(text, newline=None)).headers)


def test_a_pgn_text_reads_its_line_ends_alike():
    """``PgnReader.read`` of a string (the match openings' reader) splits it as a text file would."""
    expected = list(PgnReader().read(TWO_GAMES))
    assert len(expected) == 2
    for end in ("\r", "\r\n"):
        games = list(PgnReader().read(TWO_GAMES.replace("\n", end)))
        assert [str(item.game) for item in games] == [str(item.game) for item in expected]
        assert [item.line for item in games] == [item.line for item in expected]


def python_lines(data):
    """The lines Python's text files (universal newlines) make of ``data``."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="latin-1", newline=None).read().splitlines(keepends=True)


@pytest.mark.parametrize("size", [-1, 1, 2, 3, 7, 100])
def test_universal_newlines_split_as_python_does(size):
    rng = random.Random(size)
    for _ in range(500):
        data = bytes(rng.choice(b"ab\r\n") for _ in range(rng.randrange(40)))
        reader = UniversalNewlines(io.BytesIO(data).readline)
        got = []
        while True:
            piece = reader.readline(size)
            if not piece:
                break
            assert piece.endswith(b"\n") or len(piece) >= size or b"".join(got) + piece == data.replace(
                b"\r\n", b"\n").replace(b"\r", b"\n"), (data, piece)
            got.append(piece)
        text = b"".join(got).decode("latin-1")
        assert text == "".join(python_lines(data))
        if size < 0:
            assert [piece.decode("latin-1") for piece in got] == python_lines(data)
