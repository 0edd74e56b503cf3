"""The UCI wire format: parse a GUI line into a command, format ``info``/``bestmove`` lines.

Pure functions over strings and python-chess boards; no I/O, no threads, no search. Parsers
raise ``UciError`` (or return a list of error texts) whose message the loop reports as
``info string error: <message>``.
"""

import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import chess

from pruner.engine.position import unplayable
from pruner.engine.types import Limits, SearchInfo, SearchProgress, shown_cp
from pruner.engine.wdl import material, wdl_of_score
from pruner.uci.game_line import GameLine, IllegalMove, play_line

COMMANDS = frozenset([
    "uci", "debug", "isready", "setoption", "register", "ucinewgame", "position", "go", "stop",
    "ponderhit", "quit", "bench", "d", "eval",
])
"""Command words the loop understands (``bench``, ``d`` and ``eval`` are Pruner's, as in Stockfish)."""

GO_INT_PARAMS = {
    # name: smallest accepted value. Clocks may be negative: some GUIs send an overstepped
    # clock as a negative number, and the time manager clamps it to zero (as Stockfish does).
    "wtime": None, "btime": None, "winc": None, "binc": None,
    "movestogo": 0, "movetime": 0,
    # depth/nodes 0 would mean "no limit" to the searcher: refuse it rather than search forever.
    "depth": 1, "nodes": 1, "mate": 1,
}
"""``go`` parameters that take an integer, with the least value accepted (None: any)."""

GO_KEYWORDS = frozenset(list(GO_INT_PARAMS) + ["searchmoves", "ponder", "infinite"])

_TOKEN = re.compile(r"\S+")
_INTEGER = re.compile(r"[+-]?[0-9]{1,20}\Z")

class UciError(ValueError):
    """A malformed or impossible command; the state it would have changed stays as it was."""


def quote(text: str, limit: int = 60) -> str:
    """``repr`` of user input cut to ``limit`` characters: safe to echo on one output line."""
    if len(text) > limit:
        return repr(text[:limit]) + "...(%d chars)" % len(text)
    return repr(text)


def parse_int(text: str) -> int:
    """A decimal integer as GUIs write it: an optional sign and at most 20 ASCII digits.

    ``int()`` alone also takes ``1_000`` and the digits of other scripts (U+0663 reads as 3), and
    interpreters without a digit limit (CPython before 3.9.14/3.10.7) take quadratic time on
    a 4 MB number. Raises ``ValueError``.
    """
    if not _INTEGER.match(text):
        raise ValueError("not an integer: %s" % quote(text))
    return int(text)


@dataclass
class Command:
    """One input line, split into the command word and its argument tokens."""

    name: Optional[str]
    """The command word, or None when the line holds no known command."""
    args: List[str] = field(default_factory=list)
    """Tokens after the command word."""
    spans: List[Tuple[int, int]] = field(default_factory=list)
    """(start, end) of each token of ``args`` in ``line`` (to keep a value's inner spaces)."""
    line: str = ""
    """The whole line."""
    skipped: List[str] = field(default_factory=list)
    """Unknown tokens before the command word (ignored, as the UCI spec asks)."""


def parse_command(line: str) -> Optional[Command]:
    """Split a line; None for a blank line.

    Per the UCI spec, unknown tokens before the first command word are skipped
    (``joho debug on`` switches debug on); they are reported in ``skipped``.
    """
    tokens = line.split()  # the tokens of _TOKEN (str.split and \s agree on every character), without match objects
    if not tokens:
        return None
    for index, token in enumerate(tokens):
        if token in COMMANDS:
            if token != "setoption":  # only setoption needs the spans: a 4 MB position line need not pay for them
                return Command(token, tokens[index + 1:], [], line, tokens[:index])
            matches = list(_TOKEN.finditer(line))
            rest = matches[index + 1:]
            return Command(token, [m.group() for m in rest], [m.span() for m in rest], line, tokens[:index])
    return Command(None, line=line, skipped=tokens)


def parse_position(args: Sequence[str], chess960: bool = False) -> chess.Board:
    """``startpos | fen <fen> [moves m1 m2 ...]`` -> a new board; any error rejects the whole line."""
    return parse_position_line(args, chess960).board


def parse_position_line(args: Sequence[str], chess960: bool = False,
                        previous: Optional[GameLine] = None) -> GameLine:
    """``startpos | fen <fen> [moves m1 m2 ...]`` -> the line and its board (only the moves after
    ``previous``'s are played when this line extends it); any error rejects the whole line."""
    if not args:
        raise UciError("position: expected startpos or fen")
    if args[0] == "startpos":
        board = chess.Board(chess960=chess960)
        end = 1
    elif args[0] == "fen":
        end = 1
        while end < len(args) and args[end] != "moves":
            end += 1
        if end == 1:
            raise UciError("position fen: missing FEN")
        fen = " ".join(args[1:end])
        try:
            board = chess.Board(fen, chess960=chess960)
        except ValueError as exc:
            raise UciError("position fen: invalid FEN %s (%s)" % (quote(fen), exc)) from None
        problem = unplayable(board)
        if problem:
            raise UciError("position fen: impossible position %s (%s)" % (quote(fen), problem))
    else:
        raise UciError("position: expected startpos or fen, got %s" % quote(args[0]))
    if end < len(args) and args[end] != "moves":
        raise UciError("position: expected moves, got %s" % quote(args[end]))
    start = (chess960,) + tuple(args[:end])
    try:
        return play_line(start, board, list(args[end + 1:]), previous)
    except IllegalMove as exc:
        raise UciError("position: illegal move %s at ply %d in %s" % (quote(exc.text), exc.ply, exc.fen)) from None


def parse_go(args: Sequence[str], board: chess.Board) -> Tuple[Limits, List[str]]:
    """``go`` parameters -> (Limits, errors).

    Parameters may come in any order and any subset. A bad token is reported and ignored,
    and the search still runs with the rest (a GUI that sent ``go`` waits for a ``bestmove``).
    """
    limits = Limits()
    errors: List[str] = []
    limit_refused = False
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token in GO_INT_PARAMS:
            if i >= len(args) or args[i] in GO_KEYWORDS:
                errors.append("go %s: missing value" % token)
                limit_refused = True
                continue
            text = args[i]
            i += 1
            try:
                value = parse_int(text)
            except ValueError:
                errors.append("go %s: not an integer: %s" % (token, quote(text)))
                limit_refused = True
                continue
            least = GO_INT_PARAMS[token]
            if least is not None and value < least:
                errors.append("go %s: %d is below %d" % (token, value, least))
                limit_refused = True
                continue
            setattr(limits, token, value)
        elif token == "infinite":
            limits.infinite = True
        elif token == "ponder":
            limits.ponder = True
        elif token == "searchmoves":
            moves = []
            while i < len(args) and args[i] not in GO_KEYWORDS:
                text = args[i]
                i += 1
                try:
                    move = board.parse_uci(text)
                except ValueError:
                    move = chess.Move.null()
                if move:
                    moves.append(move)
                else:
                    errors.append("go searchmoves: illegal move %s" % quote(text))
            if moves:
                limits.searchmoves = moves
            else:
                errors.append("go searchmoves: no legal move given, searching all moves")
        else:
            errors.append("go: unknown token %s" % quote(token))
            limit_refused = True
    if limit_refused and not (limits.infinite or limits.ponder) and not is_bounded(limits):
        # What was refused (a bad clock, depth 0, an unknown word) must not turn the `go`
        # into a search that never ends by itself: the GUI is waiting for a move.
        limits.depth = 1
        errors.append("go: no valid limit left; searching depth 1 only")
    return limits, errors


def is_bounded(limits: Limits) -> bool:
    """True when something ends the search by itself (a depth, nodes, a mate, a clock)."""
    return limits.mate is not None or ends_in_finite_time(limits)


def ends_in_finite_time(limits: Limits) -> bool:
    """True when a depth, a node count or a clock ends the search whatever the position:
    ``go mate N`` alone searches on until it finds the mate, for ever where there is none."""
    return any(value is not None for value in (limits.depth, limits.nodes, limits.movetime,
                                               limits.wtime, limits.btime))


PERFT_MAX_DEPTH = 6
"""``go perft`` deeper than this would run for hours in Python (depth 6 from the start
position is 119 million leaves): refused."""


def parse_perft(args: Sequence[str]) -> int:
    """``go perft <depth>`` -> the depth (1 to ``PERFT_MAX_DEPTH``); raises ``UciError``."""
    if len(args) != 2:
        raise UciError("go perft: expected one depth, as in 'go perft 4'")
    try:
        depth = parse_int(args[1])
    except ValueError:
        raise UciError("go perft: depth must be an integer, got %s" % quote(args[1])) from None
    if not 1 <= depth <= PERFT_MAX_DEPTH:
        raise UciError("go perft: depth must be 1 to %d, got %d" % (PERFT_MAX_DEPTH, depth))
    return depth


def parse_bench(args: Sequence[str]) -> Optional[int]:
    """``bench [depth]`` -> the depth, or None for the default; raises ``UciError``."""
    if not args:
        return None
    try:
        depth = parse_int(args[0])
    except ValueError:
        raise UciError("bench: depth must be an integer, got %s" % quote(args[0])) from None
    if depth < 1:
        raise UciError("bench: depth must be at least 1")
    return depth


def parse_setoption(command: Command) -> Tuple[str, Optional[str]]:
    """``setoption name <id> [value <x>]`` -> (name, value or None).

    The name may contain spaces; the value keeps its inner spacing (a path may have two spaces).
    """
    args = command.args
    if not args or args[0] != "name":
        raise UciError("setoption: expected 'name'")
    try:
        at = args.index("value", 1)
    except ValueError:
        at = len(args)
    name = " ".join(args[1:at])
    if not name:
        raise UciError("setoption: missing option name")
    value = None
    if at + 1 < len(args):
        value = command.line[command.spans[at + 1][0]:command.spans[-1][1]]
    return name, value


# -- output ------------------------------------------------------------------------------------

def format_score(score: int, mate: Optional[int]) -> str:
    """``cp X`` or ``mate N`` (moves; negative when the side to move is mated); a tablebase
    win ``d`` half-moves away is ``cp 20000-d`` (``pruner.engine.types.shown_cp``)."""
    return "mate %d" % mate if mate is not None else "cp %d" % shown_cp(score)


def format_pv(board: chess.Board, moves: Sequence[chess.Move]) -> List[str]:
    """UCI texts of a PV from ``board``; stops at the first move that is not legal there."""
    position = board.copy(stack=False)
    texts = []
    for move in moves:
        if not position.is_legal(move):
            break
        texts.append(position.uci(move))  # board.uci: castling notation follows the board's variant
        position.push(move)
    return texts


def format_wdl(board: chess.Board, score: int) -> str:
    """``wdl W D L``: the side to move's win/draw/loss chances per mille at ``score`` (the
    model of ``pruner.engine.wdl``, at the material of ``board``, the root, as Stockfish does)."""
    return "wdl %d %d %d" % wdl_of_score(score, material(board))


def format_info(board: chess.Board, info: SearchInfo, nodes: Optional[int] = None,
                time_ms: Optional[int] = None, wdl: bool = False) -> str:
    """The ``info depth ... pv ...`` line of one PV; ``nodes``/``time_ms`` override the report's;
    ``wdl`` (``UCI_ShowWDL``) adds ``wdl W D L`` after the score, where Stockfish puts it."""
    nodes = info.nodes if nodes is None else nodes
    time_ms = info.time_ms if time_ms is None else time_ms
    parts = ["info depth %d seldepth %d multipv %d score %s" % (
        info.depth, info.seldepth, info.multipv, format_score(info.score, info.mate))]
    if wdl:
        parts.append(format_wdl(board, info.score))
    if info.bound in ("lower", "upper"):
        parts.append(info.bound + "bound")
    parts.append("nodes %d nps %d hashfull %d tbhits %d time %d" % (
        nodes, nodes * 1000 // max(1, time_ms), info.hashfull, info.tbhits, time_ms))
    pv = format_pv(board, info.pv)
    if pv:
        parts.append("pv " + " ".join(pv))
    return " ".join(parts)


def format_progress(nodes: int, time_ms: int) -> str:
    """An ``info`` line without a score (a search stopped before its first iteration ended)."""
    return "info nodes %d nps %d time %d" % (nodes, nodes * 1000 // max(1, time_ms), time_ms)


def format_search_progress(board: chess.Board, progress: SearchProgress) -> str:
    """A report from inside an iteration: ``info depth D currmove M currmovenumber N`` when a
    root move starts (as Stockfish prints it), else ``info depth D seldepth S nodes N nps X
    hashfull H tbhits T time MS`` (the counters of an ``info`` line, without a score)."""
    if progress.currmove is not None:
        return "info depth %d currmove %s currmovenumber %d" % (
            progress.depth, board.uci(progress.currmove), progress.currmovenumber)
    return "info depth %d seldepth %d nodes %d nps %d hashfull %d tbhits %d time %d" % (
        progress.depth, progress.seldepth, progress.nodes, progress.nps, progress.hashfull,
        progress.tbhits, progress.time_ms)


def format_no_moves(board: chess.Board) -> str:
    """What Stockfish reports at a root without legal moves: mated, or stalemate (a draw)."""
    return "info depth 0 score %s" % ("mate 0" if board.is_check() else "cp 0")


def format_bestmove(board: chess.Board, move: Optional[chess.Move], ponder: Optional[chess.Move] = None) -> str:
    """``bestmove <move> [ponder <move>]``, or ``bestmove (none)``; the caller checked legality."""
    if move is None:
        return "bestmove (none)"
    text = "bestmove " + board.uci(move)
    if ponder is not None:
        after = board.copy(stack=False)
        after.push(move)
        text += " ponder " + after.uci(ponder)
    return text
