"""The end of every script's command line: run ``main`` and exit with its status.

A script whose output is piped into a reader that stops early (``| head``) gets a
BrokenPipeError at its next print; that is the reader's choice, not a fault, so the script
stops quietly (no traceback) with status 1, as a Unix tool killed by SIGPIPE would fail.
Any other OSError that reaches the top (a missing input file, an engine program that is not
installed, a folder it may not write) is the user's to fix, not a bug: one line naming the
script, the file and the reason, and status 2, as argparse ends a bad command line.
"""

import os
import sys
from typing import Callable, Optional


def run(main: Callable[[], Optional[int]]) -> None:
    """``sys.exit(main())``; quiet when stdout's reader has gone away, one line for an OSError."""
    try:
        status = main()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python flushes stdout at exit
        sys.exit(1)
    except OSError as error:
        print("%s: error: %s" % (os.path.basename(sys.argv[0]) or "script", error), file=sys.stderr)
        sys.exit(2)
    sys.exit(status)
