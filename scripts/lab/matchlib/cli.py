"""The end of every script's command line: run ``main`` and exit with its status.

A script whose output is piped into a reader that stops early (``| head``) gets a
BrokenPipeError at its next print; that is the reader's choice, not a fault, so the script
stops quietly (no traceback) with status 1, as a Unix tool killed by SIGPIPE would fail.
An output that cannot be written (``pruner.output_files.OutputError``: standard output on a
full disk or ``/dev/full``, a ``--json`` or ``--pgn`` file) ends it with one line naming the
output and status 74 (sysexits ``EX_IOERR``). Any other OSError that reaches the top (a
missing input file, an engine program that is not installed, a folder it may not write) is
the user's to fix, not a bug: one line naming the script, the file and the reason, and
status 2, as argparse ends a bad command line.

Before ``main`` it says so on stderr when the engine this process imports is not the one of the
checkout the script is in (``other_engine``): a script reaches ``engine`` and ``protocol`` as
installed packages, so the scripts of a second checkout, run with the Python of a venv that has
the first one installed, would measure, tune or profile the first one's engine.
"""

import os
import sys
from typing import Callable, Optional

from pruner.output_files import OutputError

from . import ROOT

EXIT_OUTPUT = 74
"""An output could not be written (sysexits.h ``EX_IOERR``)."""


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit fails no more."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # closed, or not a file
        pass


def script_root() -> str:
    """The checkout of the script running (scripts/NAME.py: the folder above scripts/), else ROOT:
    with one import name the lab and the engine are always one installation's, so what can
    differ is the script's checkout."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0].endswith(".py") else ""
    folder = os.path.dirname(script)
    return os.path.dirname(folder) if os.path.basename(folder) == "scripts" else ROOT


def other_engine() -> Optional[str]:
    """The checkout (or installed copy) whose ``pruner.engine`` this process imports, when it is
    not the checkout of the script running; None when they are the same."""
    from pruner import engine
    where = os.path.dirname(os.path.dirname(os.path.abspath(engine.__file__)))
    return None if os.path.realpath(where) == os.path.realpath(script_root()) else where


def warn_if_other_engine(name: str) -> None:
    """One line on stderr, naming the script ``name``, when ``other_engine`` finds one."""
    where = other_engine()
    if where is not None:
        root = script_root()
        print("%s: warning: this script is in %s but imports the engine in %s; `pip install -e %s` "
              "installs this checkout" % (name, root, where, root), file=sys.stderr)


def run(main: Callable[[], Optional[int]]) -> None:
    """``sys.exit(main())``; quiet when stdout's reader has gone away, one line for an OSError;
    first a warning when the script and the engine it imports are two checkouts'."""
    name = os.path.basename(sys.argv[0]) or "script"
    warn_if_other_engine(name)
    try:
        status = main()
    except BrokenPipeError:
        _silence_stdout()
        sys.exit(1)
    except OutputError as error:
        _silence_stdout()
        print("%s: error: %s" % (name, error), file=sys.stderr)
        sys.exit(EXIT_OUTPUT)
    except OSError as error:
        print("%s: error: %s" % (name, error), file=sys.stderr)
        sys.exit(2)
    sys.exit(status)
