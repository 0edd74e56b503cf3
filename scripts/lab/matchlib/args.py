"""Checked command-line values shared by scripts/match.py, suite.py and soak.py.

``checked(convert)`` is an argparse action: the value is converted and checked while the
arguments are read, and a bad one stops the script (exit status 2) with the flag as typed
and the reason, in one of two forms:

    match.py: error: --tc 1+x: not a number of seconds: 'x' (expected BASE+INC in seconds, e.g. 10+0.1)
    match.py: error: --depth must be at least 1, not 0

    parser.add_argument("--depth", action=checked(positive_int), metavar="N")
"""

import argparse
import math
from typing import Any, Callable, Optional, Sequence, Type, Union

from .timecontrol import TimeControl, parse_tc


class OutOfRange(ValueError):
    """A readable value outside the flag's range; the message says what it must be."""


def checked(convert: Callable[[str], Any], append: bool = False) -> Type[argparse.Action]:
    """An argparse action storing ``convert(value)`` (appending it with ``append``)."""

    class Checked(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Union[str, Sequence[Any], None], option_string: Optional[str] = None) -> None:
            flag = option_string or self.dest
            try:
                value = convert(str(values))
            except OutOfRange as exc:
                parser.error("%s must be %s, not %s" % (flag, exc, values))
            except ValueError as exc:
                parser.error("%s %s: %s" % (flag, values, exc))
            if append:
                value = (getattr(namespace, self.dest, None) or []) + [value]
            setattr(namespace, self.dest, value)

    return Checked


def positive_int(text: str) -> int:
    """A whole number >= 1 (``--depth``, ``--nodes``, ``--jobs``)."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError("not a whole number") from None
    if value < 1:
        raise OutOfRange("at least 1")
    return value


def _positive_number(text: str, unit: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("not a number of %s" % unit) from None
    if not math.isfinite(value) or value <= 0:
        raise OutOfRange("a positive number of %s" % unit)
    return value


def positive_ms(text: str) -> float:
    """Milliseconds > 0, finite (``--movetime``); the value stays in milliseconds."""
    return _positive_number(text, "milliseconds")


def positive_seconds(text: str) -> float:
    """Seconds > 0, finite (suite.py's ``--time``)."""
    return _positive_number(text, "seconds")


def time_control(text: str) -> TimeControl:
    """A clock ``BASE+INC`` in seconds (``10+0.1``, ``60``, ``1:00+1``): base > 0, increment >= 0,
    both finite."""
    try:
        return parse_tc(text)
    except ValueError as exc:
        raise ValueError("%s (expected BASE+INC in seconds, e.g. 10+0.1)" % exc) from None


def game_pairs(text: str) -> int:
    """A number of games: they come in pairs with colours reversed, so an even number >= 2."""
    try:
        games = int(text)
    except ValueError:
        raise ValueError("not a whole number") from None
    if games < 2 or games % 2:
        raise ValueError("games come in pairs with colours reversed; use an even number (e.g. %d)"
                         % max(2, games + 1))
    return games
