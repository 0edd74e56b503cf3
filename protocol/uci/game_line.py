"""The moves of ``position ... moves``: applied incrementally, kept compactly.

A GUI sends the whole game before each ``go``, and a hostile one may send 800,000 legal moves
(a 4 MB line). Three things keep that cheap:

* The board keeps on its move stack only what repetition detection needs: the moves since the
  last capture or pawn move, at most ``KEPT_PLIES``. The search (``pruner.engine.search``) replays
  those and no more, so a ``go`` costs nothing per ply of older history.
* A line that extends the previous one (same start, the previous moves and then more, as GUIs
  send a game) applies only the new moves to the previous board. (Stockfish replays the whole
  line, cheaply in C++; in Python the shared beginning is what costs.)
* Each move is checked and played by python-chess once per distinct position and move: a
  position met again (a long line cannot avoid repetitions) takes the stored result.

Everything here is pure: ``IllegalMove`` says which move is wrong; protocol/uci/wire.py turns
it into the ``position`` command's error.
"""

from collections import deque
from typing import Deque, Dict, List, Optional, Sequence, Tuple

import chess

KEPT_PLIES = 100
"""Moves kept on a board's stack at most. The search looks for repetitions only among the
positions since the last capture or pawn move, and once 100 plies have passed without one
the fifty-move rule makes every continuation a draw before any repetition is looked for
(``pruner.engine.search``: the draw at ``hmc >= 100`` comes first), so older moves change nothing."""

TRANSITIONS_KEPT = 4096
"""Positions-and-moves whose result ``play`` remembers at most (then it forgets them all):
enough for every cycle a long shuffling line repeats, bounded for a line that never repeats."""

Fields = Tuple[int, int, int, int, int, int, int, int, int, int, bool, int, Optional[int]]
"""A board's state without its clocks and stack: what a move's legality and result depend on."""


class IllegalMove(ValueError):
    """A move of the line is not legal (or not a move) where it stands."""

    def __init__(self, text: str, ply: int, fen: str) -> None:
        super().__init__("illegal move %r at ply %d in %s" % (text, ply, fen))
        self.text = text
        """The move as the line wrote it."""
        self.ply = ply
        """Its place in the line's moves, from 1."""
        self.fen = fen
        """The position it was played in."""


def _fields(board: chess.Board) -> Fields:
    occupied_co = board.occupied_co
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            occupied_co[chess.WHITE], occupied_co[chess.BLACK], board.occupied, board.promoted,
            board.turn, board.castling_rights, board.ep_square)


def _restore(board: chess.Board, fields: Fields) -> None:
    occupied_co = board.occupied_co
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
     occupied_co[chess.WHITE], occupied_co[chess.BLACK], board.occupied, board.promoted,
     board.turn, board.castling_rights, board.ep_square) = fields


def _parse(board: chess.Board, text: str, ply: int) -> chess.Move:
    try:
        move = board.parse_uci(text)
    except ValueError:
        move = chess.Move.null()
    if not move:  # also refuses the null move "0000": python-chess parses it without a check
        raise IllegalMove(text, ply, board.fen())
    return move


Entry = Tuple[Fields, int, int, chess.Move]
"""A kept ply: the state before the move, its half-move clock and full-move number, the move."""


def _kept_entries(board: chess.Board) -> List[Entry]:
    """The entries of the moves on ``board``'s stack since its last capture or pawn move."""
    work = board.root()
    entries: List[Entry] = []
    for move in board.move_stack:
        if work.is_zeroing(move):
            entries.clear()
        else:
            entries.append((_fields(work), work.halfmove_clock, work.fullmove_number, move))
        work.push(move)
    return entries


def play(board: chess.Board, texts: Sequence[str], first_ply: int = 1) -> chess.Board:
    """The board after the UCI moves ``texts`` from ``board`` (which is left as it was); raises
    ``IllegalMove`` for the first that is not legal (``first_ply``: the number of ``texts[0]``).

    Its move stack holds the moves since the last capture or pawn move, at most
    ``KEPT_PLIES`` (``board``'s own count among them): the same position, clocks and recent
    moves as pushing every move on a copy of ``board``.
    """
    work = board.copy(stack=False)
    window: Deque[Entry] = deque(_kept_entries(board), maxlen=KEPT_PLIES)
    transitions: Dict[Tuple[Fields, str], Tuple[chess.Move, Fields, bool]] = {}
    occupied_co = work.occupied_co
    for ply, text in enumerate(texts, first_ply):
        # The fields inline (as _fields): this loop runs once per move of a 4 MB line.
        fields = (work.pawns, work.knights, work.bishops, work.rooks, work.queens, work.kings,
                  occupied_co[chess.WHITE], occupied_co[chess.BLACK], work.occupied, work.promoted,
                  work.turn, work.castling_rights, work.ep_square)
        halfmove_clock, fullmove_number = work.halfmove_clock, work.fullmove_number
        known = transitions.get((fields, text))
        if known is None:
            move = _parse(work, text, ply)
            zeroing = work.is_zeroing(move)
            work.push(move)
            work.clear_stack()  # the kept moves are in ``window``
            if len(transitions) >= TRANSITIONS_KEPT:
                transitions.clear()
            transitions[(fields, text)] = (move, _fields(work), zeroing)
        else:
            # What push did the first time, clocks as push counts them.
            move, after, zeroing = known
            _restore(work, after)
            work.halfmove_clock = 0 if zeroing else halfmove_clock + 1
            if not fields[10]:  # Black moved
                work.fullmove_number = fullmove_number + 1
        if zeroing:
            window.clear()  # no position before a capture or pawn move comes again
        else:
            window.append((fields, halfmove_clock, fullmove_number, move))
    return _with_stack(work, window)


def _with_stack(work: chess.Board, window: Deque[Entry]) -> chess.Board:
    """``work``'s position with the moves of ``window`` on its stack (pushed by python-chess
    from the state before the first)."""
    if not window:
        return work
    fields, halfmove_clock, fullmove_number, _ = window[0]
    board = chess.Board(None, chess960=work.chess960)
    _restore(board, fields)
    board.halfmove_clock, board.fullmove_number = halfmove_clock, fullmove_number
    for entry in window:
        board.push(entry[3])
    if _fields(board) != _fields(work) or board.halfmove_clock != work.halfmove_clock \
            or board.fullmove_number != work.fullmove_number:
        raise RuntimeError("position: the kept moves do not lead to the position played")  # a bug, never a wrong board
    return board


class GameLine:
    """An accepted ``position`` command: its start, its moves as one text, and the board after them."""

    __slots__ = ("start", "moves", "plies", "board")

    def __init__(self, start: Tuple[object, ...], moves: str, plies: int, board: chess.Board) -> None:
        self.start = start
        """What the moves start from: the variant flag and the tokens before ``moves``."""
        self.moves = moves
        """The moves, joined by single spaces (a GUI's next line starts with them)."""
        self.plies = plies
        """How many moves ``moves`` holds."""
        self.board = board
        """The position after them (its stack: see ``play``). Never changed: a new line makes a new board."""

    def new_moves(self, start: Tuple[object, ...], moves: str) -> Optional[int]:
        """How many of the moves ``moves`` (joined by single spaces) from ``start`` are this
        line's, when they begin with all of this line's; None when the line is another one."""
        if start != self.start:
            return None
        if not self.moves:
            return 0
        if moves == self.moves or moves.startswith(self.moves + " "):
            return self.plies
        return None


def play_line(start: Tuple[object, ...], board: chess.Board, texts: List[str],
              previous: Optional[GameLine] = None) -> GameLine:
    """The line of the moves ``texts`` from ``board`` (the position ``start`` names), applying
    only the moves after ``previous``'s when it is the same line's beginning. Raises ``IllegalMove``."""
    moves = " ".join(texts)
    done = previous.new_moves(start, moves) if previous is not None else None
    if done is None:
        return GameLine(start, moves, len(texts), play(board, texts))
    return GameLine(start, moves, len(texts), play(previous.board, texts[done:], done + 1))
