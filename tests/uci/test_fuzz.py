"""Protocol fuzzing: random and mutated UCI command streams against the loop and the process.

Streams mix valid commands with hostile arguments (huge and malformed numbers, unicode,
control characters, truncated lines, unknown words), interleaved ``go``/``stop``/``isready``/
``ponderhit``/``quit``. Invariants, checked on every stream:

* no exception escapes ``handle_line`` and no ``info string error: internal`` is printed;
* exactly one ``bestmove`` per ``go`` (``quit`` too stops a search with one), in order, each legal for
  the position of its ``go`` (its ponder move legal after it), ``(none)`` only without moves,
  ``0000`` exactly when the last ``position`` was refused (no ``bestmove`` for ``go perft``);
* one ``readyok`` per ``isready``;
* a rejected ``position``/``setoption``/``debug`` leaves the state as it was (position FEN and
  move stack, option values, debug flag), and no other command changes it;
* every output line is a UCI engine line (``id``, ``option``, ``uciok``, ``readyok``, ``info``,
  ``bestmove``) or a line of the text ``d``, ``eval`` and ``go perft`` print (as Stockfish's),
  without embedded line breaks.

The default suite runs a few hundred streams in-process (fake and real searcher) and a dozen
against the real process; ``pytest -m slow tests/uci/test_fuzz.py`` runs the heavy profile.
"""

import platform
import random
import re
import threading
from typing import List, Optional, Tuple

import chess
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine_process import WAIT, EngineProcess
from pruner.uci.loop import _EOF, _TOO_LONG, UciLoop, read_lines
from pruner.uci.output import Writer
from pruner.uci.wire import parse_command
from loop_helpers import FakeSearcher

ENGINE_LINE_PREFIXES = ("id ", "option ", "uciok", "readyok", "info ", "bestmove ")

DISPLAY_LINE = re.compile("|".join([
    r"",                                                              # blank lines around blocks
    r" \+(---\+){8}", r" \|( [PNBRQKpnbrqk ] \|){8} [1-8]", r"   a   b   c   d   e   f   g   h",  # d
    r"Fen: \S.*", r"Key: [0-9A-F]{16}", r"Checkers: ([a-h][1-8] )*",
    r" Contributing terms .*", r"\+-+(\+-{13}){3}\+", r"\|[^|]+\|[^|]+\|[^|]+\|[^|]+\|",   # eval
    r"Phase +\d+/24 .*", r"(Tapered|Tempo) +[+-]\d+\.\d\d \(white side.*\)",
    r"Classical evaluation +[+-]\d+\.\d\d \(white side\)", r"NNUE +[+-]\d+\.\d\d \(white side\) \S.*",  # with a net
    r"Final evaluation(: none \(in check\)| +[+-]\d+\.\d\d \(white side\))",
    r"[a-h][1-8][a-h][1-8][qrbn]?: \d+", r"Nodes searched: \d+",   # go perft
]))
"""Lines of the text ``d``, ``eval`` and ``go perft`` print, as Stockfish prints them."""


def is_engine_line(text: str) -> bool:
    return text.startswith(ENGINE_LINE_PREFIXES) or DISPLAY_LINE.fullmatch(text) is not None

FUZZ_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))

# -- strategies ------------------------------------------------------------------------------

FENS = [
    chess.STARTING_FEN,
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",  # mate in one
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # checkmated
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",  # Chess960 (Shredder-FEN)
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant
    "8/P6k/8/8/8/8/6pK/8 w - - 0 1",  # promotions
    "4k3/8/8/8/8/8/8/4K3 w - - 99 80",  # fifty-move rule pending
    "4k3/8/8/8/8/8/8/4K3 w - - 150 1",
    "4k3/8/8/8/8/8/8/4K3 w",  # short FEN
    "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings: rejected
    "4k3/8/8/8/8/8/8/4K2q b - - 0 1",  # side not to move in check: rejected
    "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1",  # too few ranks
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999999999999",
    "rnbqkbnr/pppppppp/٨/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",  # an Arabic-Indic eight
    "k7/8/8/8/8/8/8/K7 x - - 0 1",
]

MOVE_WORDS = ["e2e4", "e7e5", "g1f3", "b8c6", "e1g1", "e1h1", "e8g8", "a7a8q", "h2h1n", "e2e5", "0000", "zz",
              "e2e4q", "E2E4", "a2a3", "d2d4", "f5e6", "e2", "e2e4e6", "a1a8", "\u0665\u0662"]

NUMBER_TEXTS = st.one_of(
    st.integers(-10 ** 25, 10 ** 25).map(str),
    st.integers(-3, 3).map(str),
    st.sampled_from(["0", "-0", "+5", "1_000", "\u0663", "1e3", "0x10", "", "nan", "-", "1.5", "9" * 30,
                     "9" * 5000, "-" + "9" * 40, "\uff11\uff10"]),
)

JUNK = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["joho", "\x00", "\x1b[31m", "\ufffd", "\u2028", "\x85", "\x7f", "\t", "\x0b", "\U0001F600",
                     "ü", "value", "name", "moves", "fen", "startpos", "infinite"]),
)

GO_INT_WORDS = ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime"]

GO_PART = st.one_of(
    st.tuples(st.sampled_from(GO_INT_WORDS), NUMBER_TEXTS).map(" ".join),
    st.sampled_from(GO_INT_WORDS + ["infinite", "ponder"]),
    st.lists(st.sampled_from(MOVE_WORDS), max_size=4).map(lambda moves: " ".join(["searchmoves"] + moves)),
    JUNK,
)

OPTION_NAMES = ["Hash", "hash", "HASH", "Clear Hash", "clear  hash", "Move Overhead", "move overhead", "Ponder",
                "MultiPV", "UCI_AnalyseMode", "UCI_Chess960", "uci_chess960", "OwnBook", "BookFile", "SyzygyPath",
                "EvalFile", "UCI_LimitStrength", "UCI_Elo", "Threads", "UCI_ShowWDL", "Skill Level", "", "value",
                "name", "Hash value"]

OPTION_VALUES = st.one_of(
    NUMBER_TEXTS.filter(lambda text: not text.strip().isdigit() or len(text) > 4 or int(text) <= 64),
    st.sampled_from(["true", "false", "TRUE", "maybe", "<empty>", "", "/nonexistent", "/dev/null", "/", "/tmp",
                     "a:b:c", "\x00", "1 2", "  16  ", "4097", "800", "2000", "799", "2001", "1500"]),
)


def random_game(seed: int, plies: int) -> List[str]:
    """UCI moves of a seeded random legal game from the start (stops at the end of the game)."""
    rng = random.Random(seed)
    board = chess.Board()
    moves = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(board.uci(move))
        board.push(move)
    return moves


POSITION_LINE = st.one_of(
    st.tuples(st.integers(0, 2 ** 16), st.integers(0, 60)).map(
        lambda seed_plies: " ".join(["position", "startpos", "moves"] + random_game(*seed_plies))),
    st.tuples(st.sampled_from(FENS), st.lists(st.sampled_from(MOVE_WORDS), max_size=3)).map(
        lambda fen_moves: " ".join(["position", "fen", fen_moves[0]] + (["moves"] + fen_moves[1] if fen_moves[1] else []))),
    st.lists(st.one_of(st.sampled_from(["startpos", "fen", "moves"] + MOVE_WORDS), JUNK), max_size=6).map(
        lambda words: " ".join(["position"] + words)),
)

SETOPTION_LINE = st.one_of(
    st.tuples(st.sampled_from(OPTION_NAMES), OPTION_VALUES).map(lambda nv: "setoption name %s value %s" % nv),
    st.sampled_from(OPTION_NAMES).map(lambda name: "setoption name " + name),
    st.lists(st.one_of(st.sampled_from(["name", "value"] + OPTION_NAMES), JUNK), max_size=5).map(
        lambda words: " ".join(["setoption"] + words)),
)

COMMAND_LINE = st.one_of(
    st.lists(GO_PART, max_size=5).map(lambda parts: " ".join(["go"] + parts)),
    st.sampled_from(["go depth 1", "go nodes 200", "go infinite", "go ponder wtime 500 btime 500", "go movetime 5",
                     "go wtime 30 btime 30", "go", "go mate 1", "go searchmoves e2e4 d2d4 depth 2"]),
    st.sampled_from(["stop", "isready", "ponderhit", "ucinewgame", "uci"]),
    st.sampled_from(["stop", "isready", "go depth 1", "go infinite"]),
    st.sampled_from(["d", "eval", "d x", "eval 3", "go perft 1"]),
    POSITION_LINE,
    SETOPTION_LINE,
    st.tuples(st.just("debug"), st.sampled_from(["on", "off", "", "maybe", "ON"])).map(" ".join),
    st.tuples(st.just("register"), JUNK).map(" ".join),
    st.tuples(st.just("bench"), st.sampled_from(["deep", "0", "-1", "1.5", "\u0661", "x y"])).map(" ".join),
    JUNK,
)

CONTROL = st.sampled_from(["\x00", "\x01", "\x07", "\x1b", "\x7f", "\r", "\t", "\x0b", "\x0c", "\x1c", "\x85",
                           "\u2028", "\ufeff", "\ufffd", "\U0001F600", "é"])


@st.composite
def mutated_line(draw) -> str:
    """A command line, sometimes truncated, sprinkled with control characters, prefixed with
    unknown words or with its spaces replaced by other whitespace."""
    line = draw(COMMAND_LINE)
    how = draw(st.sampled_from(["none", "none", "none", "truncate", "insert", "prefix", "whitespace"]))
    if how == "truncate" and line:
        line = line[:draw(st.integers(0, len(line) - 1))]
    elif how == "insert":
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(CONTROL) + line[at:]
    elif how == "prefix":
        line = draw(st.sampled_from(["joho", "xyzzy", "\x00", "ß"])) + " " + line
    elif how == "whitespace":
        line = line.replace(" ", draw(st.sampled_from(["\t", "  ", "\x0b", "\x0c", "\x1c", " \r "])))
    line = line.replace("\n", " ")
    if _runnable_bench(line):  # a real bench would run for seconds: keep only the refused forms
        line = "bench nope"
    return line


def _runnable_bench(line: str) -> bool:
    command = parse_command(line)
    if command is None or command.name != "bench":
        return False
    try:
        return not command.args or int(command.args[0]) >= 1
    except ValueError:
        return False


@st.composite
def streams(draw, max_lines: int = 14) -> List[str]:
    """A list of lines; about one stream in ten has a ``quit`` somewhere."""
    lines = draw(st.lists(mutated_line(), max_size=max_lines))
    if draw(st.integers(0, 9)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["quit", "quit now", "joho quit"])))
    return lines


# -- the in-process checker ------------------------------------------------------------------

class Lines:
    """The writer's output split on ``\\n`` only (as a GUI reading a pipe does)."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        text = data.decode("utf-8")
        assert text.endswith("\n") and text.count("\n") == 1, repr(text)  # one call, one whole line
        with self.lock:
            self.lines.append(text[:-1])

    def snapshot(self) -> List[str]:
        with self.lock:
            return list(self.lines)


def _state(loop: UciLoop) -> tuple:
    board = loop.state.board
    return (board.fen(), tuple(board.move_stack), board.chess960, dict(loop.state.options._values), loop.state.debug)


def _is_rejection(line: str) -> bool:
    """An error that refuses a command (not the notice about skipped words before it)."""
    return line.startswith("info string error: ") and not line.startswith("info string error: unknown token(s) ")


def position_of_go(loop: UciLoop) -> Optional[chess.Board]:
    """The position a ``go`` sent now must search: the last ``position``, read with the current
    ``UCI_Chess960`` value (the option applies to the next ``go``); None after a refused
    ``position`` (then the answer is ``bestmove 0000``)."""
    if loop.state.position_refused is not None:
        return None
    board = loop.state.board.copy()
    board.chess960 = loop.state.options["UCI_Chess960"]
    return board


def check_bestmoves(bestmoves: List[str], boards: List[chess.Board]) -> None:
    """The i-th ``bestmove`` answers the i-th ``go``: legal there, ponder legal after it.
    The move text must be exactly the board's own notation (``e1g1``, or ``e1h1`` in Chess960)."""
    assert len(bestmoves) == len(boards), (bestmoves, len(boards))  # quit answers a running search too
    for line, board in zip(bestmoves, boards):
        words = line.split()
        assert words[0] == "bestmove" and len(words) in (2, 4), line
        assert (board is None) == (words[1] == "0000"), (line, board and board.fen())
        if board is None:
            continue
        if words[1] == "(none)":
            assert not any(board.legal_moves), (line, board.fen())
            continue
        move = board.parse_uci(words[1])  # raises for an illegal move
        assert board.uci(move) == words[1], (line, board.fen(), board.chess960)
        if len(words) == 4:
            assert words[2] == "ponder", line
            after = board.copy()
            after.push(move)
            ponder = after.parse_uci(words[3])
            assert after.uci(ponder) == words[3], (line, after.fen())


def run_stream(lines: List[str], factory) -> None:
    """Feed ``lines`` to a fresh loop and check every invariant of the module docstring."""
    output = Lines()
    loop = UciLoop(Writer(output.write), factory, rng=random.Random(1))
    boards: List[chess.Board] = []
    isready = 0
    quitted = False
    try:
        for line in lines:
            command = parse_command(line)
            name = command.name if command is not None else None
            before = _state(loop)
            seen = len(output.snapshot())
            search_before = loop.state.search
            expected = position_of_go(loop)
            result = loop.handle_line(line)  # must not raise
            if name == "quit":
                assert result is False
                quitted = True
                break
            assert result is True, line
            if name == "isready":
                isready += 1
            if name == "go" and command.args[:1] == ["perft"]:
                # The lines after a perft are held until it ends (test_hardening tests that):
                # wait for it here, so that each line's effect is checked as it comes. Only for
                # the perft: a perft refused (after a refused position) leaves an endless search
                # running, as any refused command changes nothing.
                assert loop.wait_idle(WAIT, search=False)
            if name == "go" and command.args[:1] != ["perft"]:
                if expected is not None:
                    assert loop.state.search is not search_before, "go started no search: %r" % line
                boards.append(expected)
            new = output.snapshot()[seen:]
            if name not in ("position", "setoption", "debug") or any(_is_rejection(text) for text in new):
                assert _state(loop) == before, (line, new)
        if not quitted:
            loop.handle_line("stop")
            assert loop.wait_idle(WAIT)
            loop.handle_line("isready")
            isready += 1
    finally:
        loop.shutdown()
    assert loop.wait_idle(WAIT)
    printed = output.snapshot()
    for text in printed:
        assert is_engine_line(text), text
        assert "\r" not in text and "\u2028" not in text and "\x85" not in text, repr(text)
        assert not text.startswith("info string error: internal"), (text, lines)
    check_bestmoves([text for text in printed if text.startswith("bestmove ")], boards)
    if not quitted:
        assert sum(text == "readyok" for text in printed) == isready
        assert printed[-1] == "readyok"


def fake_factory(hash_mb: int) -> FakeSearcher:
    return FakeSearcher(hash_mb)


def real_factory(hash_mb: int):
    from pruner.engine.search import Searcher
    return Searcher(min(hash_mb, 4))  # the table size does not matter here, only the speed of creation


@settings(max_examples=250, **FUZZ_SETTINGS)
@given(streams())
def test_fuzz_loop_with_a_fake_searcher(lines):
    run_stream(lines, fake_factory)


# A third of the streams on PyPy: 150 took 33.6 s in the PyPy leg's parallel phase against
# under 4 s on CPython (2026-11-28; 50 alone, 4.5 s), most likely short searches run before the
# JIT has compiled them (not measured apart), and the PyPy leg is there to see the loop and its
# threads work on PyPy, which 50 streams do.
REAL_SEARCHER_EXAMPLES = 50 if platform.python_implementation() == "PyPy" else 150


@settings(max_examples=REAL_SEARCHER_EXAMPLES, **FUZZ_SETTINGS)
@given(streams())
@example(['go', 'position', 'go perft 1'])  # found by CI: a refused perft beside an endless search
def test_fuzz_loop_with_the_real_searcher(lines):
    run_stream(lines, real_factory)


@pytest.mark.slow
@settings(max_examples=4000, **FUZZ_SETTINGS)
@given(streams(max_lines=40))
def test_fuzz_loop_with_a_fake_searcher_heavy(lines):
    run_stream(lines, fake_factory)


@pytest.mark.slow
@settings(max_examples=800, **FUZZ_SETTINGS)
@given(streams(max_lines=40))
def test_fuzz_loop_with_the_real_searcher_heavy(lines):
    run_stream(lines, real_factory)


# -- the real process ------------------------------------------------------------------------

RAW_LINES = st.one_of(
    st.binary(max_size=40).map(lambda data: data.replace(b"\n", b" ")),
    st.sampled_from([b"\xff\xfe go depth 1", b"go depth 1\r", b"\x00isready", b"position startpos moves e2e4\xc3\x28",
                     b"\xef\xbb\xbfisready", b"go\x00depth 1", b"y" * 20000]),
)


def model(data: bytes) -> Tuple[List[chess.Board], int, bool]:
    """What the process must do with ``data``: the board of each ``go`` (from an in-process
    loop with a fake searcher, fed the lines the reader makes of the bytes), the number of
    ``isready`` and whether a ``quit`` ends it."""
    items: list = []
    chunks = [data]
    read_lines(lambda size: chunks.pop() if chunks else b"", items.append)
    loop = UciLoop(Writer(lambda data: None), fake_factory)
    boards: List[chess.Board] = []
    isready = 0
    try:
        for item in items:
            if item is _EOF:
                break
            if item is _TOO_LONG:
                continue
            command = parse_command(item)
            name = command.name if command is not None else None
            expected = position_of_go(loop)
            if loop.handle_line(item) is False:
                return boards, isready, True
            if name == "isready":
                isready += 1
            elif name == "go" and command.args[:1] != ["perft"]:  # go perft prints no bestmove
                boards.append(expected)
            elif name == "go":
                loop.wait_idle(WAIT)  # the process holds the lines after a perft, then runs them in order
    finally:
        loop.shutdown()
    return boards, isready, False


@st.composite
def process_streams(draw, max_lines: int = 12) -> bytes:
    lines = draw(st.lists(st.one_of(mutated_line().map(lambda line: line.encode("utf-8")), RAW_LINES),
                          max_size=max_lines))
    if draw(st.integers(0, 5)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), b"quit")
    return b"".join(line + b"\n" for line in lines)


def run_process_stream(data: bytes, engine_command: List[str], repo_root: str) -> None:
    boards, isready, quits = model(data)
    engine = EngineProcess(engine_command, repo_root)
    try:
        try:
            engine.send(data)
        except BrokenPipeError:  # gone after quit before reading the rest: fine
            assert quits
        if not quits:
            # every search is stopped; its bestmove may follow a readyok (isready does not wait)
            engine.send(b"stop\n")
            engine.wait_for(lambda line: line.startswith("bestmove "), len(boards))
            engine.send(b"isready\n")
            isready += 1
            engine.wait_for(lambda line: line == "readyok", isready)
            engine.send(b"quit\n")
        status = engine.finish()
    finally:
        engine.kill()
    assert status == 0, (status, engine.stderr)
    assert engine.stderr == b"", engine.stderr.decode("utf-8", "replace")
    assert engine.partial == b"", engine.partial  # no half-written line
    printed = engine.lines
    for text in printed:
        assert is_engine_line(text), text
        assert not text.startswith("info string error: internal"), text
    check_bestmoves([text for text in printed if text.startswith("bestmove ")], boards)
    if not quits:
        assert engine.count(lambda line: line == "readyok") == isready
        assert printed[-1] == "readyok"


@settings(max_examples=20, **FUZZ_SETTINGS)
@given(process_streams())
def test_fuzz_the_engine_process(engine_command, repo_root, data):
    run_process_stream(data, engine_command, repo_root)


@pytest.mark.slow
@settings(max_examples=150, **FUZZ_SETTINGS)
@given(process_streams(max_lines=40))
def test_fuzz_the_engine_process_heavy(engine_command, repo_root, data):
    run_process_stream(data, engine_command, repo_root)
