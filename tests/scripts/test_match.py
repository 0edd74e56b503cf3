"""scripts/match.py: time controls, engine specs, openings, adjudication, PGN, tally, faults.

Fault tests play real (tiny) games against tests/fake_engines/fake_uci.py, which crashes,
plays an illegal move, oversleeps its clock or fails to start on request.  The last test
plays Pruner against itself.
"""

import concurrent.futures
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import chess
import chess.engine
import chess.pgn
import pytest

import match as match_cli
from pruner.lab.matchlib.adjudication import AdjudicationRules, Adjudicator, rules_outcome
from pruner.lab.matchlib.engines import EnginePlayer, match_options, parse_engine_spec, parse_option, wait_monotonic
from pruner.lab.matchlib.game import GameJob, GameRecord, GameSettings, play_game
from pruner.lab.matchlib.openings import Opening, load_openings, pair_order
from pruner.lab.matchlib.pgnout import record_to_pgn
from pruner.lab.matchlib.resume import pgn_games
from pruner.lab.matchlib.runner import EXIT_DONE, EXIT_H0, EXIT_INCONCLUSIVE, EXIT_INTERRUPTED
from pruner.lab.matchlib.tally import Tally
from pruner.lab.matchlib.timecontrol import TimeControl, parse_tc
from paths import ROOT, SCRIPTS

pytestmark = pytest.mark.one_interpreter

BOOKS = os.path.join(ROOT, "scripts", "books")
NOOB = os.path.join(BOOKS, "noob_3moves_5000.epd")
FRC = os.path.join(BOOKS, "chess960_starts.epd")
FAKE = os.path.join(ROOT, "tests", "fake_engines", "fake_uci.py")


def fake(*args: str) -> str:
    return " ".join([sys.executable, FAKE] + list(args))


def run_match(capsys, tmp_path, *argv: str):
    """Run match.py in-process; (exit code, output lines, PGN games)."""
    pgn_path = tmp_path / "games.pgn"
    code = match_cli.main(list(argv) + ["--pgn", str(pgn_path), "--seed", "7"])
    lines = capsys.readouterr().out.splitlines()
    games = []
    if pgn_path.exists():
        with open(pgn_path, encoding="utf-8") as handle:
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                games.append(game)
    return code, lines, games


# --- time controls -----------------------------------------------------------------------

def test_parse_tc():
    assert parse_tc("10+0.1") == TimeControl(base=10.0, inc=0.1)
    assert parse_tc("1+0.01") == TimeControl(base=1.0, inc=0.01)
    assert parse_tc("60") == TimeControl(base=60.0, inc=0.0)
    assert parse_tc("1:30+1") == TimeControl(base=90.0, inc=1.0)
    for bad in ("40/60", "0+1", "x", "-1+0"):
        with pytest.raises(ValueError):
            parse_tc(bad)


def test_time_control_limits_and_tags():
    tc = TimeControl(base=10.0, inc=0.1)
    limit = tc.limit(9.5, -0.02)
    assert (limit.white_clock, limit.black_clock, limit.white_inc, limit.black_inc) == (9.5, 0.001, 0.1, 0.1)
    assert tc.allowed(9.5) == 9.5 and tc.pgn_tag() == "10+0.1"
    assert TimeControl(base=60.0).pgn_tag() == "60"
    movetime = TimeControl(movetime=0.25)
    assert movetime.limit(1, 1).time == 0.25 and movetime.allowed(5.0) == 0.25 and movetime.pgn_tag() == "1/0.25"
    depth = TimeControl(depth=5)
    assert depth.limit(1, 1).depth == 5 and depth.allowed(1.0) is None and depth.pgn_tag() == "-"
    with pytest.raises(ValueError):
        TimeControl()
    with pytest.raises(ValueError):
        TimeControl(base=1.0, movetime=0.1)



@pytest.mark.parametrize("argv, flags", [
    (["--tc", "10+0.1", "--movetime", "100"], ["--tc", "--movetime"]),  # --movetime was ignored
    (["--movetime", "0"], ["--movetime"]),
    (["--movetime=-5"], ["--movetime"]),
    (["--movetime", "nan"], ["--movetime"]),  # every game lost on time, exit status 0
    (["--movetime", "inf"], ["--movetime"]),
    (["--depth", "0"], ["--depth"]),
    (["--nodes=-1"], ["--nodes"]),
    (["--tc=-5+0.1"], ["--tc"]),
    (["--tc", "10+-1"], ["--tc"]),
    (["--tc", "nan"], ["--tc"]),
    (["--tc", "10+inf"], ["--tc"]),
    (["--tc", "0+1"], ["--tc"]),
    (["--tc", "10+0.1", "--jobs", "0"], ["--jobs"]),
    (["--tc", "10+0.1", "--games", "3"], ["--games"]),
])
def test_bad_limits_are_refused_when_the_arguments_are_read(capsys, argv, flags):
    with pytest.raises(SystemExit) as exit_info:
        match_cli.build_parser().parse_args(["--engine", fake()] + argv)
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_info.value.code == 2 and error.startswith("match.py: error: "), error
    assert all(flag in error for flag in flags), error


def test_good_limits_reach_the_time_control():
    def tc_of(*argv):
        parser = match_cli.build_parser()
        return match_cli._time_control(parser.parse_args(["--engine", fake()] + list(argv)), parser)
    assert tc_of("--movetime", "250") == TimeControl(movetime=0.25)
    assert tc_of("--tc", "1:00+1", "--depth", "5") == TimeControl(base=60.0, inc=1.0, depth=5)
    assert tc_of("--nodes", "1000", "--depth", "3") == TimeControl(depth=3, nodes=1000)

# --- engine specs ------------------------------------------------------------------------

def test_engine_spec_parsing():
    spec = parse_engine_spec("cwd=/tmp/base PYTHONPATH=/tmp/base name=base python -m pruner")
    assert spec.command == ["python", "-m", "pruner"]
    assert spec.cwd == "/tmp/base" and spec.name == "base" and spec.env == {"PYTHONPATH": "/tmp/base"}
    spec = parse_engine_spec("stockfish", name="SF", cwd="/x", options=["Hash=16", "Skill Level=3"],
                             env=["A=1"])
    assert spec.command == ["stockfish"] and spec.name == "SF" and spec.cwd == "/x"
    assert spec.options == {"Hash": "16", "Skill Level": "3"} and spec.env == {"A": "1"}
    assert parse_engine_spec("'/opt/my engine/bin' --uci").command == ["/opt/my engine/bin", "--uci"]
    assert parse_option("UCI_Elo=1500") == ("UCI_Elo", "1500")
    with pytest.raises(ValueError):
        parse_option("Hash")
    with pytest.raises(ValueError):
        parse_engine_spec("cwd=/tmp")


# --- openings ----------------------------------------------------------------------------

def test_load_epd_openings():
    openings = load_openings(NOOB)
    assert len(openings) == 5000
    first = openings[0]
    assert first.board.fen() == "r1bqkbnr/pp1npppp/2pp4/8/2P5/N4N2/PP1PPPPP/R1BQKB1R w KQkq - 0 4"
    assert first.moves == [] and first.label == "noob_3moves_5000.epd:1"
    starts = load_openings(FRC, chess960=True)
    assert len(starts) == 960 and all(o.board.chess960 for o in starts)
    assert all(o.board.is_valid() for o in starts)


def test_load_pgn_openings(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_text('[Event "a"]\n[Opening "Italian"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n\n'
                    '[Event "b"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. e4 Kd7 *\n')
    openings = load_openings(str(path))
    assert len(openings) == 2
    assert [m.uci() for m in openings[0].moves] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]
    assert "Italian" in openings[0].label
    assert openings[1].board.fen() == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    assert openings[1].start().fen() == "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2"
    short = load_openings(str(path), plies=2)
    assert len(short[0].moves) == 2 and len(short[0].start().move_stack) == 2


def test_pgn_openings_refuse_a_file_without_a_game(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_text("hello world\n")
    with pytest.raises(ValueError, match=re.escape("%s: no games found (not a PGN file?)" % path)):
        load_openings(str(path))


def test_pgn_openings_refuse_a_broken_game_without_crashing(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_text("1. e4 ( e5 ) ) !\n")  # python-chess alone raises IndexError on it
    with pytest.raises(ValueError, match=re.escape("%s:1: game 1: illegal san: 'e5'" % path)):
        load_openings(str(path))


def test_pgn_openings_read_latin1(tmp_path):
    path = tmp_path / "book.pgn"
    path.write_bytes('[Event "a"]\n[Opening "Réti"]\n\n1. Nf3 d5 *\n'.encode("latin-1"))
    [opening] = load_openings(str(path))
    assert opening.label == "book.pgn:game 1 (Réti)" and [m.uci() for m in opening.moves] == ["g1f3", "d7d5"]


def test_pair_order():
    assert pair_order(5, 7, randomize=False, start=3) == [3, 4, 0, 1, 2, 3, 4]
    random_order = pair_order(100, 100, randomize=True, seed=42)
    assert sorted(random_order) == list(range(100))  # every opening once before any repeats
    assert random_order == pair_order(100, 100, randomize=True, seed=42)
    assert random_order != pair_order(100, 100, randomize=True, seed=43)


# --- adjudication ------------------------------------------------------------------------

def test_rules_outcome():
    assert rules_outcome(chess.Board()) is None
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert rules_outcome(mated) == ("0-1", "normal", "Black mates")
    assert rules_outcome(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))[0] == "1/2-1/2"  # stalemate
    assert "insufficient" in rules_outcome(chess.Board("8/8/8/4k3/8/8/8/4KB2 w - - 0 1"))[2]
    assert "fifty" in rules_outcome(chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 100 80"))[2]
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(uci)
    assert rules_outcome(board) == ("1/2-1/2", "normal", "Draw by 3-fold repetition")


def test_adjudicator_resign_needs_both_sides():
    adjudicator = Adjudicator(AdjudicationRules(resign_score=500, resign_moves=2))
    board = chess.Board()
    assert adjudicator.after_move(board, chess.WHITE, -600) is None
    assert adjudicator.after_move(board, chess.BLACK, 100) is None  # the winner does not agree
    assert adjudicator.after_move(board, chess.WHITE, -600) is None
    assert adjudicator.after_move(board, chess.BLACK, 600) is None
    assert adjudicator.after_move(board, chess.WHITE, -700) is None
    assert adjudicator.after_move(board, chess.BLACK, 650) == ("0-1", "adjudication",
                                                              "White resigns (score adjudication)")


def test_adjudicator_draw_and_max_moves():
    draw = Adjudicator(AdjudicationRules(draw_score=10, draw_moves=2, draw_after=30))
    early, late = chess.Board(), chess.Board()
    late.fullmove_number = 31
    for side in (chess.WHITE, chess.BLACK) * 2:
        assert draw.after_move(early, side, 0) is None  # before move 30: not counted
    results = [draw.after_move(late, side, 5) for side in (chess.WHITE, chess.BLACK) * 2]
    assert results[:3] == [None] * 3 and results[3][2] == "Draw by score adjudication"
    capped = Adjudicator(AdjudicationRules(max_moves=2))
    results = [capped.after_move(early, side, None) for side in (chess.WHITE, chess.BLACK) * 2]
    assert results[:3] == [None] * 3 and results[3][0] == "1/2-1/2"


# --- PGN and tally -----------------------------------------------------------------------

def _record(number, engine1_white, result, opening=None, pair=None):
    opening = opening or Opening(chess.Board(), [], "start")
    job = GameJob(number, pair or (number + 1) // 2, 0, opening, engine1_white)
    board = opening.start()
    return GameRecord(job, "A" if engine1_white else "B", "B" if engine1_white else "A", board,
                      len(board.move_stack), result=result, termination="normal",
                      comments=["book"] * len(board.move_stack))


def test_pgn_tags_roundtrip_chess960():
    opening = load_openings(FRC, chess960=True)[0]
    record = _record(3, True, "1/2-1/2", opening)
    record.board.push_uci("b2b3")
    record.comments.append("+0.10/5 0.100s")
    record.reason = "Draw by maximum game length (1 moves)"
    text = str(record_to_pgn(record, TimeControl(base=10, inc=0.1), "Test event", "here"))
    game = chess.pgn.read_game(io.StringIO(text))
    headers = game.headers
    assert [headers[tag] for tag in ("Event", "Site", "Round", "White", "Black", "Result")] == \
        ["Test event", "here", "3", "A", "B", "1/2-1/2"]
    assert headers["Variant"] == "Chess960" and headers["SetUp"] == "1"
    assert headers["FEN"].startswith("bbqnnrkr/pppppppp") and headers["TimeControl"] == "10+0.1"
    assert headers["Termination"] == "normal" and headers["PlyCount"] == "1"
    assert re.match(r"\d{4}\.\d\d\.\d\d$", headers["Date"])
    assert game.board().chess960 and [m.uci() for m in game.mainline_moves()] == ["b2b3"]
    assert "maximum game length" in game.end().comment


def test_tally_pairs_in_any_order():
    tally = Tally()
    assert not tally.add(_record(2, False, "1-0"))   # engine 1 black, loses
    assert not tally.add(_record(3, True, "1-0"))    # engine 1 white, wins
    assert tally.add(_record(1, True, "1/2-1/2"))    # completes pair 1: D + L
    assert tally.add(_record(4, False, "1/2-1/2"))   # completes pair 2: W + D
    assert (tally.wins, tally.draws, tally.losses) == (1, 2, 1)
    assert tally.white == [1, 1, 0] and tally.black == [0, 1, 1]
    assert tally.pentanomial == [0, 1, 0, 1, 0]
    assert tally.best_elo()[1] == "pentanomial"
    unfinished = _record(5, True, "*")
    assert not tally.add(unfinished) and tally.uncounted == 1
    assert not tally.add(_record(6, False, "0-1"))   # its partner had no result: no pair
    assert tally.pairs == 2 and tally.best_elo()[1] == "trinomial"


# --- matches against fake engines ----------------------------------------------------------

def test_match_plays_pairs_and_writes_pgn(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "Alpha"),
                                   "--engine", fake("--name", "Beta", "--seed", "2"),
                                   "--tc", "5+0.05", "--games", "4", "--concurrency", "2", "--max-moves", "10",
                                   "--openings", NOOB, "--event", "Unit test")
    assert code == 0
    assert len([line for line in lines if line.startswith("[")]) == 4  # a progress line per game
    assert lines[-1].startswith("Final: W 0 D 4 L 0  score 50.0% (2/4)  Elo")
    assert lines[-1].endswith("faults 0")
    assert sorted(int(g.headers["Round"]) for g in games) == [1, 2, 3, 4]
    by_round = {int(g.headers["Round"]): g for g in games}
    for number, game in by_round.items():
        headers = game.headers
        assert headers["Event"] == "Unit test" and headers["TimeControl"] == "5+0.05"
        assert headers["White"] == ("Alpha" if number % 2 else "Beta")
        assert headers["Result"] == "1/2-1/2" and headers["Termination"] == "adjudication"
        assert headers["SetUp"] == "1" and chess.Board(headers["FEN"]).fullmove_number == 4
        assert len(list(game.mainline_moves())) == 20
    # each opening twice, colours reversed
    assert by_round[1].headers["FEN"] == by_round[2].headers["FEN"] != by_round[3].headers["FEN"]


def test_crash_is_a_loss_and_the_engine_is_restarted(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "Crasher", "--crash-after", "3"),
                                   "--engine", fake("--name", "Good"), "--tc", "5+0.05", "--games", "2",
                                   "--concurrency", "1", "--max-moves", "20")
    assert code == 0
    assert lines[-1].startswith("Final: W 0 D 0 L 2") and lines[-1].endswith("faults 2")
    assert "Faults: 2 (time losses 0, illegal moves 0, crashes/disconnects 2, failed starts 0)" in lines
    assert any("engine 1 (Crasher) crash" in line and "crashing on purpose" in line for line in lines)
    assert [g.headers["Termination"] for g in games] == ["abandoned", "abandoned"]
    assert games[0].headers["Result"] == "0-1" and games[1].headers["Result"] == "1-0"
    # the second game reached the crasher's 4th move again: it was restarted
    assert all(len(list(g.mainline_moves())) in (6, 7) for g in games)


def test_illegal_move_is_a_loss(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "Good"),
                                   "--engine", fake("--name", "Cheat", "--illegal-after", "2"),
                                   "--tc", "5+0.05", "--games", "2", "--concurrency", "2")
    assert lines[-1].startswith("Final: W 2 D 0 L 0") and lines[-1].endswith("faults 2")
    assert any(line.startswith("Faults: 2 (time losses 0, illegal moves 2") for line in lines)
    assert [g.headers["Termination"] for g in games] == ["rules infraction"] * 2
    assert all("illegal move" in g.end().comment for g in games)


def test_sleeping_past_the_clock_loses_on_time(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "Sleepy", "--sleep-after", "1",
                                                                     "--sleep", "30"),
                                   "--engine", fake("--name", "Good"), "--tc", "0.5+0", "--margin", "50",
                                   "--games", "2", "--concurrency", "2")
    assert lines[-1].startswith("Final: W 0 D 0 L 2") and lines[-1].endswith("faults 2")
    assert any(line.startswith("Faults: 2 (time losses 2,") for line in lines)
    assert [g.headers["Termination"] for g in games] == ["time forfeit"] * 2
    durations = [float(re.search(r"([\d.]+)s\)", line).group(1)) for line in lines if line.startswith("[")]
    assert all(d < 5 for d in durations)  # the runner stopped waiting at 0.5 s + margin


class StubPlayer:
    """Stands in for EnginePlayer: plays the first legal move and reports a scripted elapsed time."""

    def __init__(self, elapsed):
        self.elapsed = list(elapsed)
        self.limits = []

    def start(self):
        pass

    def new_game(self, key):
        pass

    def play(self, board, limit, timeout):
        self.limits.append((limit, timeout))
        move = next(iter(board.legal_moves))
        return chess.engine.PlayResult(move, None, {}), self.elapsed.pop(0)


def test_runner_clock_accounting():
    # 1 s + 0.1 s; margin 0.05 s.  White uses 0.5 s, then 0.55 s: 1 - 0.5 + 0.1 = 0.6 left, and
    # 0.55 <= 0.6 + 0.05 is fine (0.15 left after the increment); then 0.21 > 0.15 + 0.05: lost.
    white, black = StubPlayer([0.5, 0.55, 0.21]), StubPlayer([0.2, 0.2, 0.2])
    job = GameJob(1, 1, 0, Opening(chess.Board()), True)
    settings = GameSettings(tc=TimeControl(base=1.0, inc=0.1), margin=0.05)
    record = play_game(job, white, black, {chess.WHITE: "W", chess.BLACK: "B"}, settings)
    assert record.result == "0-1" and record.termination == "time forfeit"
    assert record.fault.kind == "time" and record.fault.engine == 1
    assert "used 0.210s with 0.150s left" in record.reason
    assert len(record.board.move_stack) == 4  # the late move is not played
    clocks = [(round(lim.white_clock, 3), round(lim.black_clock, 3)) for lim, _ in white.limits]
    assert clocks == [(1.0, 1.0), (0.6, 0.9), (0.15, 0.8)]
    assert [round(t, 3) for _, t in white.limits] == [1.05, 0.65, 0.2]  # runner's deadlines
    assert all(lim.white_inc == 0.1 and lim.black_inc == 0.1 for lim, _ in white.limits)


def test_movetime_overrun_is_a_time_loss():
    white, black = StubPlayer([0.1, 0.16]), StubPlayer([0.1])
    job = GameJob(1, 1, 0, Opening(chess.Board()), True)
    record = play_game(job, white, black, {chess.WHITE: "W", chess.BLACK: "B"},
                       GameSettings(tc=TimeControl(movetime=0.1), margin=0.05))
    assert record.termination == "time forfeit" and len(record.board.move_stack) == 2
    assert white.limits[0][0].time == 0.1 and white.limits[0][1] == pytest.approx(0.15)


class EarlyWakingFuture(concurrent.futures.Future):
    """A future whose first timed waits end at once, as PyPy's do when the wall clock steps."""

    def __init__(self, early_wakes: int, answer=None) -> None:
        super().__init__()
        self.early_wakes = early_wakes
        self.answer = answer
        """Set as the result after the early wakes (None: the engine never answers)."""
        self.waits = []

    def result(self, timeout=None):
        self.waits.append(timeout)
        if self.early_wakes and not self.done():
            self.early_wakes -= 1
            raise concurrent.futures.TimeoutError()
        if self.answer is not None and not self.done():
            self.set_result(self.answer)
        return super().result(timeout)


def test_a_wait_cut_short_by_the_wall_clock_is_waited_out():
    future = EarlyWakingFuture(early_wakes=2, answer="e2e4")
    assert wait_monotonic(future, 60.0, time.perf_counter()) == "e2e4"
    assert len(future.waits) == 3 and all(0 < wait <= 60.0 for wait in future.waits)


def test_a_wait_still_times_out_at_its_monotonic_deadline():
    future = EarlyWakingFuture(early_wakes=1)
    start = time.perf_counter()
    with pytest.raises(concurrent.futures.TimeoutError):
        wait_monotonic(future, 0.05, start)
    assert time.perf_counter() - start >= 0.05 and len(future.waits) == 2


def test_a_timeout_raised_by_the_coroutine_itself_is_not_waited_out():
    future = EarlyWakingFuture(early_wakes=0)
    future.set_exception(concurrent.futures.TimeoutError())
    with pytest.raises(concurrent.futures.TimeoutError):
        wait_monotonic(future, 60.0, time.perf_counter())
    assert len(future.waits) == 1


def test_engine_that_stops_answering_is_killed_at_the_deadline():
    # The engine sleeps 30 s on its first move with 0.1 s + 0.05 s on its clock.
    spec = parse_engine_spec(fake("--name", "Slow", "--sleep-after", "0", "--sleep", "30"))
    players = [EnginePlayer(spec), EnginePlayer(parse_engine_spec(fake("--name", "Good")))]
    try:
        job = GameJob(1, 1, 0, Opening(chess.Board()), True)
        settings = GameSettings(tc=TimeControl(base=0.1), margin=0.05)
        record = play_game(job, players[0], players[1], {chess.WHITE: "Slow", chess.BLACK: "Good"}, settings)
        assert not players[0].running  # killed; restarted by its next game
    finally:
        for player in players:
            player.quit()
    assert record.result == "0-1" and record.termination == "time forfeit"
    assert record.fault.kind == "time" and record.fault.engine == 1 and record.duration < 5


@pytest.mark.parametrize("mode", ["exit", "hang"])
def test_engine_that_fails_to_start(capsys, tmp_path, mode):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--fail-start", mode),
                                   "--engine", fake(), "--tc", "1+0", "--games", "2", "--start-timeout", "1")
    assert code == 2 and games == []
    assert "failed to start" in lines[0]
    assert lines[-1] == "Final: W 0 D 0 L 0  score n/a  Elo n/a (95%, trinomial)  faults 1"


def test_failed_restart_during_a_match_is_not_counted():
    broken = EnginePlayer(parse_engine_spec(fake("--fail-start", "exit")))
    good = EnginePlayer(parse_engine_spec(fake()))
    try:
        job = GameJob(5, 3, 0, Opening(chess.Board()), False)
        record = play_game(job, good, broken, {chess.WHITE: "Good", chess.BLACK: "Broken"},
                           GameSettings(tc=TimeControl(base=1.0)))
    finally:
        good.quit()
        broken.quit()
    assert not record.counted and record.result == "*"
    assert record.fault.kind == "start" and record.fault.engine == 1 and record.fault.game == 5


def test_resign_adjudication_and_sprt_early_stop(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "Winner", "--score", "800"),
                                   "--engine", fake("--name", "Loser", "--score", "-800"),
                                   "--tc", "5+0.05", "--games", "40", "--concurrency", "2",
                                   "--resign-score", "600", "--resign-moves", "2",
                                   "--sprt", "0", "200", "--alpha", "0.1", "--beta", "0.1")
    # 6 won pairs cross the upper bound (LLR 2.51 > 2.20); games already started still finish
    decided = [re.match(r"SPRT: H1 accepted after (\d+) games", line) for line in lines]
    decided = [int(m.group(1)) for m in decided if m]
    assert len(decided) == 1 and decided[0] >= 12  # pairs may finish out of order
    assert lines[-1].endswith("SPRT H1") and code == EXIT_DONE
    assert lines[-2] == "SPRT ([0.00, 200.00]) completed - H1 was accepted"  # as fastchess says it
    assert decided[0] <= len(games) < 40
    assert all(g.headers["Termination"] == "adjudication" for g in games)
    assert all("resigns" in g.end().comment for g in games)
    assert re.match(r"Final: W \d+ D 0 L 0", lines[-1])


def test_sprt_accepting_h0_exits_3(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "Loser", "--score", "-800"),
                                   "--engine", fake("--name", "Winner", "--score", "800"),
                                   "--tc", "5+0.05", "--games", "40", "--concurrency", "2",
                                   "--resign-score", "600", "--resign-moves", "2",
                                   "--sprt", "0", "200", "--alpha", "0.1", "--beta", "0.1")
    assert lines[-1].endswith("SPRT H0") and code == EXIT_H0 == 3
    assert lines[-2] == "SPRT ([0.00, 200.00]) completed - H0 was accepted"


def test_sprt_without_a_decision_exits_4_and_no_sprt_exits_0(capsys, tmp_path):
    argv = ["--engine", fake("--name", "A"), "--engine", fake("--name", "B"), "--depth", "2", "--games", "2",
            "--max-moves", "5"]
    code, lines, _ = run_match(capsys, tmp_path, *argv, "--sprt", "0", "10")
    assert code == EXIT_INCONCLUSIVE == 4 and "no decision" in "\n".join(lines)
    assert not any(line.startswith("SPRT (") for line in lines)
    code, lines, _ = run_match(capsys, tmp_path, *argv)
    assert code == EXIT_DONE == 0


def test_fastchess_result_block_at_report_intervals_and_at_the_end(capsys, tmp_path):
    code, lines, _ = run_match(capsys, tmp_path, "--engine", fake("--name", "Alpha"), "--engine", fake("--name", "Beta"),
                               "--tc", "5+0.05", "--games", "6", "--concurrency", "1", "--max-moves", "10",
                               "--openings", NOOB, "--report-every", "2", "--sprt", "0", "5")
    headings = [number for number, line in enumerate(lines) if line.startswith("Results of Alpha vs Beta (5+0.05")]
    # after pair 2 and at the end (pair 3 is not a multiple of 2; the end always has one)
    assert len(headings) == 2, lines
    assert lines[headings[0]] == "Results of Alpha vs Beta (5+0.05, NULL, 16MB, noob_3moves_5000.epd):"
    end = lines[headings[1] - 1:]
    assert end[0] == end[7] == "-" * 50 and end[-1].startswith("Final: W 0 D 6 L 0")
    assert end[1:7] == [
        "Results of Alpha vs Beta (5+0.05, NULL, 16MB, noob_3moves_5000.epd):",
        # fastchess: "Elo: -0.00 +/- 0.00, nElo: -nan +/- -nan" and "LOS: -nan %" (no variance);
        # the final line's bounded estimate instead (-400 log10(1) is -0.0 in C too)
        "Elo: -0.00 +/- 170.24, nElo: 0.00 +/- 240.76",
        "LOS: 50.00 %, DrawRatio: 100.00 %, PairsRatio: -nan",
        "Games: 6, Wins: 0, Losses: 0, Draws: 6, Points: 3.0 (50.00 %)",
        "Ptnml(0-2): [0, 0, 3, 0, 0], WL/DD Ratio: 0.00",
        end[6]]
    assert re.match(r"LLR: -?\d+\.\d\d \(-?\d+\.\d%\) \(-2\.94, 2\.94\) \[0\.00, 5\.00\]$", end[6]), end[6]
    assert "Elo +0.0 ± 170.2 (95%, pentanomial, adjusted)" in end[-1]


def test_json_holds_the_final_numbers(capsys, tmp_path):
    path = tmp_path / "result.json"
    code, lines, _ = run_match(capsys, tmp_path, "--engine", fake("--name", "Alpha"), "--engine", fake("--name", "Beta"),
                               "--tc", "5+0.05", "--games", "2", "--max-moves", "10", "--sprt", "0", "5",
                               "--json", str(path))
    data = json.loads(path.read_text())
    assert (data["engine1"], data["engine2"], data["games"], data["wins"], data["draws"], data["losses"]) == \
        ("Alpha", "Beta", 2, 0, 2, 0)
    assert data["score"] == 0.5 and data["pentanomial"] == [0, 0, 1, 0, 0] and data["pairs_dd"] == 1
    assert data["elo"]["model"] == "pentanomial" and data["elo"]["adjusted"] is True
    assert data["elo"]["low"] < data["elo"]["value"] < data["elo"]["high"]
    # fastchess's nElo of a zero variance is not a number: the block's comes from the adjusted counts
    assert data["fastchess"]["elo"] == pytest.approx(data["elo"]["value"]) and data["fastchess"]["nelo"] == 0.0
    assert data["fastchess"]["elo_error"] == pytest.approx(data["elo"]["error"])
    assert data["sprt"]["decision"] is None and data["sprt"]["upper"] == pytest.approx(2.944, abs=1e-3)
    assert data["faults"]["total"] == 0 and data["exit_status"] == code == EXIT_INCONCLUSIVE
    assert "Elo %+.1f ± %.1f" % (data["elo"]["value"] + 0.0, data["elo"]["error"]) in lines[-1]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_kill_stops_a_background_match_as_ctrl_c_does_and_writes_the_json(tmp_path, name):
    # A shell's `cmd &` starts the match with SIGINT ignored; `kill PID` (SIGTERM) must still
    # end it with the finished games counted and the JSON written; SIGHUP (the terminal closed) too.
    path = tmp_path / "result.json"
    argv = [sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", fake("--name", "A"),
            "--engine", fake("--name", "B"), "--depth", "1", "--games", "400", "--max-moves", "10",
            "--jobs", "1", "--json", str(path)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    lines = []
    for line in process.stdout:
        lines.append(line)
        if re.match(r"\[ *2/", line):
            process.send_signal(getattr(signal, name))
            break
    lines += process.stdout.readlines()
    assert process.wait(timeout=60) == EXIT_INTERRUPTED
    data = json.loads(path.read_text())
    assert 2 <= data["games"] < 400 and data["exit_status"] == EXIT_INTERRUPTED
    assert any("Interrupted" in line for line in lines)


def test_no_pgn_unless_asked_and_site_unknown(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["--engine", fake("--name", "A"), "--engine", fake("--name", "B"), "--depth", "1", "--games", "2",
            "--max-moves", "3", "--seed", "1"]
    assert match_cli.main(argv) == EXIT_DONE
    assert os.listdir(str(tmp_path)) == []  # no match.pgn in the working directory
    assert match_cli.main(argv + ["--pgn", "games.pgn"]) == EXIT_DONE
    with open(tmp_path / "games.pgn", encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game.headers["Site"] == "?"  # not the host name
    assert "PGN: games.pgn" in capsys.readouterr().out


def test_help_names_every_documented_exit_status():
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    epilog = " ".join(out.split("Exit status:", 1)[1].split())
    with open(os.path.join(ROOT, "docs", "match.md"), encoding="utf-8") as handle:
        table = handle.read().split("| Exit status |", 1)[1].split("\n\n", 1)[0]
    codes = re.findall(r"^\| (\d+) \|", table, re.M)
    assert {"0", "2", "3", "4", "69", "130"} <= set(codes)
    assert [code for code in codes if not re.search(r"(^|[ ,])%s " % code, epilog)] == [], epilog


def test_chess960_match(capsys, tmp_path):
    code, lines, games = run_match(capsys, tmp_path, "--engine", fake("--name", "A"), "--engine", fake("--name", "B"),
                                   "--chess960", "--openings", FRC, "--depth", "3", "--games", "2",
                                   "--max-moves", "30")
    assert code == 0 and len(games) == 2
    for game in games:
        assert game.headers["Variant"] == "Chess960" and game.headers["TimeControl"] == "-"
        board = game.board()
        for move in game.mainline_moves():  # every move legal under Chess960 rules
            assert move in board.legal_moves
            board.push(move)


def test_help_lists_every_option():
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    for option in ("--engine", "--option1", "--option2", "--tc", "--depth", "--nodes", "--movetime", "--margin",
                   "--games", "--openings", "--concurrency", "--pgn", "--sprt", "--seed", "--random", "--sequential",
                   "--max-moves", "--resign-score", "--resign-moves", "--draw-score", "--draw-moves", "--draw-after",
                   "--chess960", "--name1", "--name2", "--dir1", "--dir2"):
        assert option in out, option



def test_help_says_a_missing_book_is_an_error(capsys, tmp_path, monkeypatch):
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    openings_help = " ".join(out.rsplit("--openings FILE", 1)[1].split("--book-plies")[0].split())
    assert "else the start position" not in openings_help, openings_help
    assert "a missing book is an error" in openings_help and "'startpos'" in openings_help, openings_help
    # ... as it is: no start-position fallback when the default book is absent.
    monkeypatch.setattr(match_cli, "DEFAULT_BOOK", str(tmp_path / "gone.epd"))
    with pytest.raises(SystemExit) as exit_info:
        match_cli.main(["--engine", fake(), "--engine", fake(), "--depth", "1", "--pgn", ""])
    error = capsys.readouterr().err
    assert exit_info.value.code == 2 and "--openings %s" % (tmp_path / "gone.epd") in error, error


# --- the script's own argument errors ------------------------------------------------------

def run_match_script(*args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", "pruner"] + list(args),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args,message", [
    (["--tc", "1+x"], "--tc 1+x"),
    (["--tc", "1+0.1", "--games", "3"], "--games 3: games come in pairs"),
    (["--tc", "1+0.1", "--jobs", "0"], "--jobs must be at least 1"),
    (["--tc", "1+0.1", "--openings", "nowhere.epd"], "--openings nowhere.epd"),
])
def test_match_argument_errors_name_the_flag(args, message):
    proc = run_match_script(*args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_match_from_the_start_position_only_is_loud(tmp_path):
    proc = run_match_script("--depth", "1", "--games", "2", "--openings", "startpos",
                            "--pgn", str(tmp_path / "m.pgn"), "--max-moves", "2")
    assert "WARNING: every game starts from the start position" in proc.stderr, proc.stderr


# --- Pruner ----------------------------------------------------------------------------------

def test_pruner_vs_pruner(tmp_path):
    """Four games of Pruner against itself at 1+0.05, through the command line: this Python's
    against the default opponent (on PyPy when one is installed)."""
    pgn = tmp_path / "pruner.pgn"
    engine = "cwd=%s %s -m pruner" % (ROOT, sys.executable)
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", engine,
                           "--tc", "1+0.05", "--games", "4", "--concurrency", "2", "--max-moves", "25",
                           "--openings", NOOB, "--seed", "1", "--pgn", str(pgn)],
                          capture_output=True, text=True, timeout=150)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    final = lines[-1]
    match = re.match(r"Final: W (\d+) D (\d+) L (\d+)  score .*faults (\d+)", final)
    assert match, final
    assert sum(int(x) for x in match.groups()[:3]) == 4
    assert "illegal moves 0, crashes/disconnects 0, failed starts 0" in proc.stdout, proc.stdout
    with open(pgn, encoding="utf-8") as handle:
        games = [chess.pgn.read_game(handle) for _ in range(4)]
    assert all(g is not None and g.headers["White"].startswith("Pruner") for g in games)


# --- --resume --------------------------------------------------------------------------------

def _rounds(path):
    with open(path, encoding="utf-8") as handle:
        return [(int(headers["Round"]), headers.get("FEN")) for headers in
                iter(lambda: chess.pgn.read_headers(handle), None)]


def _sequential_match(pgn, games, max_moves, opening_start, concurrency):
    """A match of two fake engines on the book's openings from ``opening_start``, to resume."""
    return ["--engine", fake("--name", "A"), "--engine", fake("--name", "B", "--seed", "3"), "--depth", "1",
            "--games", str(games), "--max-moves", str(max_moves), "--openings", NOOB, "--sequential",
            "--opening-start", str(opening_start), "--pgn", str(pgn), "--concurrency", str(concurrency)]


def test_resume_counts_the_finished_pairs_and_plays_the_rest(capsys, tmp_path):
    pgn = tmp_path / "games.pgn"
    argv = _sequential_match(pgn, 8, 4, 40, 2)
    assert match_cli.main(argv) == 0
    capsys.readouterr()
    full = dict(_rounds(pgn))
    # A stop: games 4 and 8 never finished (pairs 2 and 4 unfinished), written out of order.
    kept = [text for headers, text in pgn_games(str(pgn)) if int(headers["Round"]) in (1, 2, 3, 5, 6, 7)]
    pgn.write_text("".join(reversed(kept)))
    assert match_cli.main(argv + ["--resume"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Resumed from %s: 2 finished pairs counted (4 games, 0 faults), 2 games of unfinished pairs left " \
           "out to be played again" % pgn in lines
    progress = [re.match(r"\[\s*(\d+)/8\]", line) for line in lines]
    assert sorted(int(m.group(1)) for m in progress if m) == [3, 4, 7, 8]  # pairs 2 and 4 again
    rounds = _rounds(pgn)
    assert sorted(number for number, _ in rounds) == list(range(1, 9))
    assert dict(rounds) == full  # every game from the opening the uninterrupted match gave it
    assert re.match(r"Final: W \d+ D \d+ L \d+  score [\d.]+% \([\d.]+/8\)", lines[-1]), lines[-1]


def test_resume_refuses_a_pgn_of_other_openings_and_needs_a_pgn(capsys, tmp_path):
    pgn = tmp_path / "games.pgn"
    argv = ["--engine", fake("--name", "A"), "--engine", fake("--name", "B"), "--depth", "1", "--games", "2",
            "--max-moves", "3", "--openings", NOOB, "--sequential", "--pgn", str(pgn)]
    assert match_cli.main(argv) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        match_cli.main(argv[:-2] + ["--opening-start", "9", "--pgn", str(pgn), "--resume"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert "--resume: %s: game 1 started from" % pgn in error and "pair 1 opens from" in error
    with pytest.raises(SystemExit):
        match_cli.main(argv[:-2] + ["--resume"])
    assert "--resume needs the stopped match's --pgn FILE" in capsys.readouterr().err


def test_resume_after_an_sprt_decided_plays_nothing_and_keeps_the_verdict(capsys, tmp_path):
    pgn = tmp_path / "games.pgn"
    argv = ["--engine", fake("--name", "Winner", "--score", "800"), "--engine", fake("--name", "Loser", "--score", "-800"),
            "--tc", "5+0.05", "--games", "40", "--concurrency", "2", "--resign-score", "600", "--resign-moves", "2",
            "--sprt", "0", "200", "--alpha", "0.1", "--beta", "0.1", "--seed", "7", "--pgn", str(pgn)]
    assert match_cli.main(argv) == EXIT_DONE
    first = capsys.readouterr().out.splitlines()[-1]
    assert match_cli.main(argv + ["--resume"]) == EXIT_DONE
    lines = capsys.readouterr().out.splitlines()
    assert "SPRT: H1 was accepted before the stop: no game to play" in lines
    assert not any(re.match(r"\[\s*\d+/40\]", line) for line in lines)
    finished = int(re.match(r"Final: W (\d+)", first).group(1))
    # The finished pairs count again; wins of pairs the first run left unfinished are not kept.
    assert lines[-1].endswith("SPRT H1") and 0 < int(re.match(r"Final: W (\d+)", lines[-1]).group(1)) <= finished


def test_resume_reads_faults_and_refuses_what_is_not_one_match(tmp_path):
    from pruner.lab.matchlib.resume import resume
    openings = [Opening(chess.Board()), Opening(chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"))]
    pgn = tmp_path / "games.pgn"

    def game(number, result, termination="normal", fen=None):
        headers = '[Round "%d"]\n[White "%s"]\n[Black "%s"]\n[Result "%s"]\n[Termination "%s"]\n' % (
            number, "A" if number % 2 else "B", "B" if number % 2 else "A", result, termination)
        if fen:
            headers += '[SetUp "1"]\n[FEN "%s"]\n' % fen
        return headers + "\n" + result + "\n\n"

    end = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    pgn.write_text(game(1, "1-0") + game(2, "1-0", "time forfeit") + game(3, "0-1", fen=end) + game(4, "*", fen=end))
    resumed = resume(str(pgn), openings, [0, 1], 4)
    assert resumed.pairs == {1} and resumed.dropped == 2
    assert resumed.games == [(1, 1.0, True, "normal"), (1, 0.0, False, "time forfeit")]
    assert [(f.game, f.engine, f.name, f.kind) for f in resumed.faults] == [(2, 1, "A", "time")]
    assert [int(headers["Round"]) for headers, _ in pgn_games(str(pgn))] == [1, 2]  # the rest taken out
    pgn.write_text(game(1, "1-0") + game(1, "0-1"))
    with pytest.raises(ValueError, match="two games numbered 1"):
        resume(str(pgn), openings, [0, 1], 4)
    pgn.write_text(game(5, "1-0") + game(6, "0-1"))
    with pytest.raises(ValueError, match="game 5 is beyond this command's --games 4"):
        resume(str(pgn), openings, [0, 1], 4)
    assert resume(str(tmp_path / "none.pgn"), openings, [0, 1], 4).pairs == frozenset()


def _cut_points(text):
    """Where a game's record can be torn: within its headers, right after them, within its
    moves, before its result and within it (each an offset into ``text``, the game's record)."""
    moves = text.index("\n\n") + 2
    result = text.rstrip().rindex(" ") + 1
    return {"in the headers": text.index("[Result") + 5, "after the headers": moves,
            "within the moves": (moves + result) // 2, "before the result": result,
            "within the result": result + 2}


def test_resume_replays_a_game_whose_record_is_torn(capsys, tmp_path):
    pgn = tmp_path / "games.pgn"
    argv = _sequential_match(pgn, 4, 6, 20, 1)
    assert match_cli.main(argv) == 0
    capsys.readouterr()
    whole, rounds = pgn.read_text(), _rounds(pgn)
    last = pgn_games(str(pgn))[-1][1]
    start = whole.rindex(last.strip())
    assert len(_cut_points(last)) == 5 and all(0 < cut < len(last.strip()) for cut in _cut_points(last).values())
    for where, cut in _cut_points(last).items():
        pgn.write_text(whole[:start + cut])
        assert match_cli.main(argv + ["--resume"]) == 0, where
        lines = capsys.readouterr().out.splitlines()
        assert "Resumed from %s: 1 finished pairs counted (2 games, 0 faults), 2 games of unfinished pairs left " \
               "out to be played again" % pgn in lines, (where, lines)
        progress = [re.match(r"\[\s*(\d+)/4\]", line) for line in lines]
        assert sorted(int(m.group(1)) for m in progress if m) == [3, 4], where  # pair 2 again
        assert _rounds(pgn) == rounds, where  # each game from the opening the match that never stopped gave it
        with open(pgn, encoding="utf-8") as handle:
            games = list(iter(lambda: chess.pgn.read_game(handle), None))
        assert [len(list(game.mainline_moves())) for game in games] == \
            [int(game.headers["PlyCount"]) for game in games] and not any(game.errors for game in games), where
    pgn.write_text(whole.rstrip() + "\n")  # whole, only its last blank line lost: nothing to replay
    assert match_cli.main(argv + ["--resume"]) == 0
    assert "Resumed from %s: 2 finished pairs counted (4 games" % pgn in capsys.readouterr().out


# --- the default opponent --------------------------------------------------------------------

def test_the_default_opponent_is_this_checkouts_pruner_on_this_python(monkeypatch):
    from pruner.lab.matchlib import ROOT as MATCHLIB_ROOT
    from pruner.lab.matchlib.engines import this_pruner
    monkeypatch.delenv("PRUNER_INTERPRETER", raising=False)
    spec = parse_engine_spec(this_pruner())
    assert spec.command == [sys.executable, "-m", "pruner"] and spec.cwd == MATCHLIB_ROOT == ROOT
    assert spec.env == {"PRUNER_INTERPRETER": "auto"}  # as the `pruner` command runs
    monkeypatch.setenv("PRUNER_INTERPRETER", "cpython")
    assert parse_engine_spec(this_pruner()).env == {}  # the user's choice is inherited as it is
    assert parse_engine_spec(this_pruner(), cwd="/elsewhere").cwd == "/elsewhere"  # --dir2 still wins


def test_a_match_turns_pruners_human_time_off_unless_told_otherwise():
    """Human Time would hold each limited-strength move for seconds: the calibration's matches
    (scripts/calibrate.py plays through match.py) would take hours longer."""
    assert match_options(["Hash", "Human Time"], {"Hash": "16"}) == {"Hash": "16", "Human Time": "false"}
    assert match_options(["Hash", "Human Time"], {"human time": "true"}) == {"human time": "true"}
    assert match_options(["Hash"], {}) == {}  # an engine that does not declare it gets nothing
    from pruner.lab.matchlib.engines import this_pruner
    player = EnginePlayer(parse_engine_spec(this_pruner(), options=["UCI_LimitStrength=true"]))
    try:
        player.start()
        config = player.engine.protocol.config
        assert config["Human Time"] is False and config["UCI_LimitStrength"] is True
    finally:
        player.quit()


def test_one_engine_needs_no_pruner_on_the_path(tmp_path):
    """The venv's `pruner` was the default opponent, found only with the venv on the PATH."""
    env = dict(os.environ, PATH=str(tmp_path), PRUNER_INTERPRETER="cpython")
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", fake(), "--depth", "1",
                           "--games", "2", "--openings", NOOB, "--max-moves", "6", "--seed", "3"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.match(r"Final: W \d+ D \d+ L \d+ .* faults 0$", proc.stdout.splitlines()[-1]), proc.stdout
    assert "vs Pruner" in proc.stdout, proc.stdout
