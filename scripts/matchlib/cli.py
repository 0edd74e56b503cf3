"""The end of every script's command line: run ``main`` and exit with its status.

A script whose output is piped into a reader that stops early (``| head``) gets a
BrokenPipeError at its next print; that is the reader's choice, not a fault, so the script
stops quietly (no traceback) with status 1, as a Unix tool killed by SIGPIPE would fail.
An output that cannot be written (``protocol.output_files.OutputError``: standard output on a
full disk or ``/dev/full``, a ``--json`` or ``--pgn`` file) ends it with one line naming the
output and status 74 (sysexits ``EX_IOERR``). Any other OSError that reaches the top (a
missing input file, an engine program that is not installed, a folder it may not write) is
the user's to fix, not a bug: one line naming the script, the file and the reason, and
status 2, as argparse ends a bad command line.
"""

import os
import sys
from typing import Callable, Optional

from protocol.output_files import OutputError

EXIT_OUTPUT = 74
"""An output could not be written (sysexits.h ``EX_IOERR``)."""


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit fails no more."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # closed, or not a file
        pass


def run(main: Callable[[], Optional[int]]) -> None:
    """``sys.exit(main())``; quiet when stdout's reader has gone away, one line for an OSError."""
    name = os.path.basename(sys.argv[0]) or "script"
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
