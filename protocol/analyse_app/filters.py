"""Which PGN games ``pruner analyse`` takes: ``--where`` header conditions, ``--skip-games``,
``--games``, decided from a game's headers alone (so the movetext of a game left out is never
parsed: ``pruner.engine.pgn.PgnReader(want=...)``).

``--where 'TAG OP VALUE'``, repeatable (all must hold):

* ``<`` ``<=`` ``>`` ``>=``: numbers (``WhiteElo>=2000``); a tag that is missing or not a number
  (``?``) does not match;
* ``=`` ``!=``: equal, as numbers when both sides are numbers (``Round=1`` matches ``1.0``),
  else as text, case-sensitive (``Result=1-0``, ``White=Carlsen, Magnus``);
* ``~``: the tag's value contains VALUE, case-sensitive (``Event~Rated Blitz``).

A game without the tag has the value python-chess gives it: ``?`` for the seven roster tags
(``Event``, ``Site``, ``Date``, ``Round``, ``White``, ``Black``; ``Result`` is ``*``), else none,
which only ``!=`` matches. Tag names are case-sensitive, as in PGN. The value may be quoted
(``Event="Rated Blitz game"``).
"""

import math
import re
from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence

OPERATORS = ("<=", ">=", "!=", "=", "<", ">", "~")
"""Longest first, as they are matched."""
NUMERIC = ("<", "<=", ">", ">=")
_CONDITION = re.compile(r"\s*([A-Za-z0-9_]+)\s*(<=|>=|!=|=|<|>|~)(.*)\Z", re.DOTALL)


def _number(text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Condition:
    """One ``--where`` condition."""

    tag: str
    op: str
    value: str
    text: str
    """As given on the command line."""

    def matches(self, headers: Mapping[str, str]) -> bool:
        """Whether a game with ``headers`` satisfies it."""
        found = headers.get(self.tag)
        if self.op == "!=":
            return found is None or not self._equal(found)
        if found is None:
            return False
        if self.op == "=":
            return self._equal(found)
        if self.op == "~":
            return self.value in found
        number, wanted = _number(found), _number(self.value)
        if number is None or wanted is None:
            return False
        return {"<": number < wanted, "<=": number <= wanted, ">": number > wanted, ">=": number >= wanted}[self.op]

    def _equal(self, found: str) -> bool:
        number, wanted = _number(found), _number(self.value)
        if number is not None and wanted is not None:
            return number == wanted
        return found == self.value


def parse_condition(text: str) -> Condition:
    """A ``--where`` condition; ValueError saying what is wrong with ``text``."""
    match = _CONDITION.match(text)
    if not match:
        raise ValueError("--where %r: expected TAG OP VALUE, OP one of %s (WhiteElo>=2000, Event~Blitz)"
                         % (text, " ".join(OPERATORS)))
    tag, op, value = match.group(1), match.group(2), match.group(3).strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    if op in NUMERIC and _number(value) is None:
        raise ValueError("--where %r: %s compares numbers, and %r is not one" % (text, op, value))
    return Condition(tag, op, value, text)


class GameFilter:
    """``want(headers)`` for ``pruner.engine.pgn.PgnReader``: the games that meet every condition,
    after the first ``skip`` of them, at most ``limit`` (None: all); called once per game in
    input order (across files: the counts run over all PGN inputs)."""

    def __init__(self, conditions: Sequence[Condition] = (), skip: int = 0, limit: Optional[int] = None) -> None:
        self.conditions = list(conditions)
        self.skip = skip
        self.limit = limit
        self.matched = 0
        """Games that met the conditions so far (those skipped included)."""
        self.taken = 0
        """Games taken so far."""

    @property
    def active(self) -> bool:
        """Whether it leaves any game out."""
        return bool(self.conditions) or self.skip > 0 or self.limit is not None

    @property
    def full(self) -> bool:
        """True once ``limit`` games were taken: no later game is wanted."""
        return self.limit is not None and self.taken >= self.limit

    def want(self, headers: Mapping[str, str]) -> bool:
        if self.full or not all(condition.matches(headers) for condition in self.conditions):
            return False
        self.matched += 1
        if self.matched <= self.skip:
            return False
        self.taken += 1
        return True


def build_filter(where: List[str], skip: int, limit: Optional[int]) -> GameFilter:
    """The filter of the command line's ``--where``, ``--skip-games`` and ``--games``;
    ValueError naming a malformed condition."""
    return GameFilter([parse_condition(text) for text in where], skip, limit)

