"""Time controls: ``base+inc`` clocks kept by the runner, fixed move time, depth or nodes.

The runner owns the clocks: it measures each move's wall time itself, passes its own view
of both clocks to the engine, and decides time losses (``elapsed > remaining + margin``).
"""

from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine


def parse_seconds(text: str) -> float:
    """Seconds from ``"10"``, ``"0.5"`` or ``"m:ss"`` (``"1:30"``)."""
    text = text.strip()
    try:
        if ":" in text:
            minutes, seconds = text.split(":", 1)
            value = int(minutes) * 60 + float(seconds)
        else:
            value = float(text)
    except ValueError:
        raise ValueError("not a number of seconds: %r" % text) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("not a number of seconds: %r" % text)
    if value < 0:
        raise ValueError("negative time: %r" % text)
    return value


def parse_tc(text: str) -> "TimeControl":
    """``"10+0.1"`` (10 s, 0.1 s increment), ``"60"`` or ``"1:00+1"``; base must be > 0."""
    if "/" in text:
        raise ValueError("moves-per-session time controls (%r) are not supported; use base+inc" % text)
    base_text, _, inc_text = text.partition("+")
    base = parse_seconds(base_text)
    inc = parse_seconds(inc_text) if inc_text else 0.0
    if base <= 0:
        raise ValueError("time control base must be positive: %r" % text)
    return TimeControl(base=base, inc=inc)


def _number(value: float) -> str:
    return ("%.3f" % value).rstrip("0").rstrip(".")


@dataclass(frozen=True)
class TimeControl:
    """What limits each move: a clock (``base``/``inc``), a fixed ``movetime``, or depth/nodes."""

    base: Optional[float] = None
    """Starting clock in seconds (clock mode)."""
    inc: float = 0.0
    """Increment in seconds added after each move (clock mode)."""
    movetime: Optional[float] = None
    """Fixed seconds per move."""
    depth: Optional[int] = None
    nodes: Optional[int] = None

    def __post_init__(self) -> None:
        if self.base is not None and self.movetime is not None:
            raise ValueError("use either a clock (--tc) or --movetime, not both")
        if self.base is None and self.movetime is None and self.depth is None and self.nodes is None:
            raise ValueError("no time control: give --tc, --movetime, --depth or --nodes")

    @property
    def uses_clock(self) -> bool:
        """True with a clock (``--tc``), kept by the runner; False with per-move limits only."""
        return self.base is not None

    def limit(self, white_clock: float, black_clock: float) -> chess.engine.Limit:
        """The UCI ``go`` limits for the next move, given the runner's clocks (seconds)."""
        limit = chess.engine.Limit(depth=self.depth, nodes=self.nodes)
        if self.uses_clock:
            # An engine inside the margin may be slightly negative; never send zero or less.
            limit.white_clock = max(white_clock, 0.001)
            limit.black_clock = max(black_clock, 0.001)
            limit.white_inc = self.inc
            limit.black_inc = self.inc
        elif self.movetime is not None:
            limit.time = self.movetime
        return limit

    def allowed(self, clock: float) -> Optional[float]:
        """Seconds the mover may use before the margin (None: no time limit)."""
        if self.uses_clock:
            return clock
        return self.movetime

    def pgn_tag(self) -> str:
        """PGN TimeControl value: ``base+inc``, ``1/secs`` for a fixed move time, ``-`` otherwise."""
        if self.uses_clock:
            return "%s+%s" % (_number(self.base or 0.0), _number(self.inc)) if self.inc else _number(self.base or 0.0)
        if self.movetime is not None:
            return "1/%s" % _number(self.movetime)
        return "-"

    def describe(self) -> str:
        """Human-readable, e.g. ``tc 10+0.1``, ``movetime 0.1s``, ``depth 6``."""
        parts = []
        if self.uses_clock:
            parts.append("tc %s+%s" % (_number(self.base or 0.0), _number(self.inc)))
        if self.movetime is not None:
            parts.append("movetime %ss" % _number(self.movetime))
        if self.depth is not None:
            parts.append("depth %d" % self.depth)
        if self.nodes is not None:
            parts.append("nodes %d" % self.nodes)
        return ", ".join(parts)
