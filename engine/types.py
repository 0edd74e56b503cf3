"""Shared value types of the engine: search limits, per-iteration and progress reports, score
constants.

Scores are integers in centipawns from the side to move. Mate scores are encoded as
``MATE - ply`` (the mover mates in ``ply`` half-moves) or ``-(MATE - ply)`` (the mover is
mated); anything with ``abs(score) >= MATE_BOUND`` is a mate score.
"""

from dataclasses import dataclass, field
from typing import List, Optional

import chess

MAX_PLY = 128
"""Deepest ply the search ever reaches (bounds iterative deepening and extensions)."""

MATE = 32000
"""Score of delivering mate at the root (mate at ply ``p`` scores ``MATE - p``)."""

MATE_BOUND = MATE - MAX_PLY
"""Scores at or beyond this magnitude are mate scores."""

INF = MATE + 1
"""Larger than any score; the initial alpha-beta window is ``(-INF, INF)``."""

TB_WIN = MATE_BOUND - 1
"""Score of a tablebase win at the root; one found ``ply`` half-moves away scores
``TB_WIN - ply`` (below every mate score, above every evaluation)."""

TB_BOUND = TB_WIN - MAX_PLY
"""Scores at or beyond this magnitude (and below ``MATE_BOUND``) are tablebase wins/losses."""

TB_SHOWN = 20000
"""A tablebase win ``d`` half-moves away is shown to GUIs as ``cp 20000 - d`` (as Stockfish 16
and later show them): far above any evaluation, clearly not a mate."""

EVAL_LIMIT = 10000
"""No static evaluation is larger (``pruner.engine.evaluate`` clamps it): whatever a net's weights say,
an evaluation stays far below the tablebase (``TB_BOUND``) and mate (``MATE_BOUND``) scores."""

DRAW = 0


def shown_cp(score: int) -> int:
    """The centipawns a GUI is shown for a non-mate ``score``: the score itself, or for a
    tablebase win or loss ``d`` half-moves away ``+-(TB_SHOWN - d)``."""
    if score >= TB_BOUND:
        return TB_SHOWN - (TB_WIN - score)
    if score <= -TB_BOUND:
        return -TB_SHOWN + (TB_WIN + score)
    return score


def mate_in_moves(score: int) -> Optional[int]:
    """Moves (not plies) to mate for a mate score, negative when the mover is mated; else None."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


@dataclass
class Limits:
    """What a ``go`` asks for. Times are in milliseconds; ``None`` means "not given"."""

    depth: Optional[int] = None
    """Search to this many plies at most."""
    nodes: Optional[int] = None
    """Stop after about this many nodes."""
    mate: Optional[int] = None
    """Search for a mate in this many moves; stop when one is found."""
    movetime: Optional[int] = None
    """Spend exactly this long (minus the move overhead)."""
    wtime: Optional[int] = None
    """White's remaining clock."""
    btime: Optional[int] = None
    """Black's remaining clock."""
    winc: Optional[int] = None
    """White's increment per move."""
    binc: Optional[int] = None
    """Black's increment per move."""
    movestogo: Optional[int] = None
    """Moves until the next time control."""
    infinite: bool = False
    """Search until told to stop."""
    ponder: bool = False
    """Search on the opponent's time; clocks apply only after ``ponderhit``."""
    searchmoves: Optional[List[chess.Move]] = None
    """Restrict the root to these moves."""
    time_cap_only: bool = False
    """The clock (or movetime) only caps the search (its hard limit, for safety) and never
    ends it early: the node limit decides (``UCI_LimitStrength``, so that a level plays the
    same at every time control while the clock allows)."""


@dataclass
class SearchInfo:
    """One line of progress: the result of a completed (or aborted) iteration for one PV."""

    depth: int
    """Nominal depth of the iteration, in plies."""
    seldepth: int
    """Deepest ply reached, quiescence included."""
    score: int
    """Score from the side to move, centipawns or mate-encoded (see module docstring)."""
    nodes: int
    """Nodes searched so far in this ``go``."""
    time_ms: int
    """Milliseconds since the search started."""
    pv: List[chess.Move] = field(default_factory=list)
    """Principal variation, legal from the root position."""
    multipv: int = 1
    """Rank of this line (1 = best)."""
    bound: str = "exact"
    """``exact``, or ``lower``/``upper`` when the score failed high/low (aspiration windows)."""
    hashfull: int = 0
    """Transposition table fill in permille."""
    tbhits: int = 0
    """Endgame tablebase probes that found a value so far in this ``go``."""

    @property
    def mate(self) -> Optional[int]:
        """Mate in N moves (negative: being mated), or None for a centipawn score."""
        return mate_in_moves(self.score)

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return self.nodes * 1000 // max(1, self.time_ms)


@dataclass
class SearchProgress:
    """A report from inside a running iteration (``Searcher.search``'s ``on_progress``): which
    root move is being searched, or how far the search has got. Sent only after the first
    second of a search, so that a GUI's node counter and current move keep moving during
    iterations that take seconds."""

    depth: int
    """Nominal depth of the running iteration, in plies."""
    seldepth: int
    """Deepest ply reached so far in this ``go``, quiescence included."""
    nodes: int
    """Nodes searched so far in this ``go``."""
    time_ms: int
    """Milliseconds since the search started."""
    hashfull: int = 0
    """Transposition table fill in permille (0 in a ``currmove`` report, which has no use for it)."""
    tbhits: int = 0
    """Endgame tablebase probes that found a value so far in this ``go``."""
    currmove: Optional[chess.Move] = None
    """Set in a root-move report: the root move whose search starts now; None in a periodic
    report of nodes and time."""
    currmovenumber: int = 0
    """Set with ``currmove``: its 1-based number in the root move order of this iteration."""

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return self.nodes * 1000 // max(1, self.time_ms)


@dataclass
class SearchResult:
    """What a finished search returns."""

    best_move: Optional[chess.Move]
    """Best move found; None only when the root has no legal move."""
    ponder_move: Optional[chess.Move] = None
    """Expected reply (second PV move), if known."""
    lines: List[SearchInfo] = field(default_factory=list)
    """The last completed iteration's lines, best first (one per MultiPV)."""
    nodes: int = 0
    """Total nodes searched."""
    time_ms: int = 0
    """Total milliseconds spent."""
    error: Optional[BaseException] = None
    """What made the search fail, if it did: the result is then its last completed iteration
    (or the best-ordered root move when none completed)."""

    @property
    def depth(self) -> int:
        """Depth of the last completed iteration (0 if none completed)."""
        return self.lines[0].depth if self.lines else 0

    @property
    def score(self) -> Optional[int]:
        """Score of the best line from the side to move, if any iteration completed."""
        return self.lines[0].score if self.lines else None
