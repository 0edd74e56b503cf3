"""The argument parser of every Pruner command line (``pruner`` and its subcommands, the
scripts in scripts/): argparse without its prefix matching, and a suggestion for an unknown
option.

argparse takes any unambiguous prefix of a long option, so ``pruner analyse --dept 3`` ran as
``--depth 3`` while ``--deph 3`` was only "unrecognized". With ``allow_abbrev=False`` a prefix
is an unknown option like any other, and each unknown option is answered with the nearest
known one (``difflib``), the subcommand's options included:

    pruner analyse: error: unknown option --deph; did you mean --depth?

The exit status stays argparse's (2), or whatever the parser's ``error`` does.
"""

import argparse
import difflib
import re
from typing import Any, Iterable, List, Optional, Sequence

_NUMBER = re.compile(r"^-\d+(\.\d*)?$")


def nearest(word: str, known: Iterable[str]) -> Optional[str]:
    """The known option nearest to ``word`` (``--deph`` -> ``--depth``), None when none is near."""
    close = difflib.get_close_matches(word.split("=", 1)[0], sorted(set(known)), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_option_message(word: str, known: Iterable[str]) -> str:
    """``unknown option --deph; did you mean --depth?``, or ``unknown option --deph`` when no
    known option is near."""
    option, suggestion = word.split("=", 1)[0], nearest(word, known)
    return "unknown option %s; did you mean %s?" % (option, suggestion) if suggestion else "unknown option %s" % option


def is_option(word: str) -> bool:
    """Does ``word`` look like an option (``-x``, ``--name``, ``--name=value``), not a value or a
    negative number?"""
    return len(word) > 1 and word.startswith("-") and word != "--" and not _NUMBER.match(word)


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with ``allow_abbrev=False`` by default, whose subcommand
    parsers are of this class too, and whose unknown options get a suggestion."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._subcommands: List[Any] = []

    def add_subparsers(self, **kwargs: Any) -> Any:
        """As argparse's; the subcommands are remembered, so an unknown option after one is
        compared with that subcommand's options."""
        action = super().add_subparsers(**kwargs)
        self._subcommands.append(action)
        return action

    def option_strings(self, namespace: Optional[argparse.Namespace] = None) -> List[str]:
        """Every option this parser takes, with those of the subcommand chosen in ``namespace``
        (of every subcommand when it cannot tell)."""
        # _option_string_actions is argparse's table of every option, argument groups' included.
        found = list(self._option_string_actions)
        for action in self._subcommands:
            chosen = getattr(namespace, action.dest, None) if namespace is not None else None
            parsers = [action.choices[chosen]] if chosen in action.choices else list(action.choices.values())
            for parser in parsers:
                found += parser.option_strings(namespace) if isinstance(parser, ArgumentParser) \
                    else list(parser._option_string_actions)
        return found

    def parse_args(self, args: Optional[Sequence[str]] = None,  # type: ignore[override]
                   namespace: Optional[argparse.Namespace] = None) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            unknown = [word for word in extras if is_option(word)]
            if unknown:
                self.error(unknown_option_message(unknown[0], self.option_strings(parsed)))
            self.error("unrecognized arguments: %s" % " ".join(extras))
        return parsed
