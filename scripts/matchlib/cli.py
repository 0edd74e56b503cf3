"""The end of every script's command line: run ``main`` and exit with its status.

A script whose output is piped into a reader that stops early (``| head``) gets a
BrokenPipeError at its next print; that is the reader's choice, not a fault, so the script
stops quietly (no traceback) with status 1, as a Unix tool killed by SIGPIPE would fail.
"""

import os
import sys
from typing import Callable, Optional


def run(main: Callable[[], Optional[int]]) -> None:
    """``sys.exit(main())``, stopping quietly when stdout's reader has gone away."""
    try:
        status = main()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python flushes stdout at exit
        sys.exit(1)
    sys.exit(status)
