"""Whether this process was started with a signal ignored (``nohup`` ignores SIGHUP).

The programs install their own SIGTERM and SIGHUP handlers only where the signal is not
ignored, so that ``nohup pruner analyse ...`` keeps going when its terminal closes. Python's
``signal.getsignal`` answers that question on CPython, but PyPy 3.9 (7.3.11) reports
``SIG_DFL`` for a signal ignored since the process started, so on Linux the kernel's own
record, the ``SigIgn`` mask of /proc/self/status, is read instead.
"""

import signal
from typing import Optional

_STATUS = "/proc/self/status"


def _kernel_ignores(number: int) -> Optional[bool]:
    """The kernel's answer (Linux), or None where /proc cannot tell."""
    try:
        with open(_STATUS) as status:
            for line in status:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) >> (number - 1) & 1)
    except (OSError, ValueError, IndexError):
        return None
    return None


def is_ignored(number: int) -> bool:
    """True if signal ``number`` is ignored now: by the process's start (``nohup``) or by a
    ``signal.signal(number, SIG_IGN)`` since; for a signal with a Python handler, False."""
    handler = signal.getsignal(number)
    if handler is signal.SIG_IGN:
        return True
    if handler is not signal.SIG_DFL:
        return False  # a Python handler of ours: the kernel's mask says nothing of it
    kernel = _kernel_ignores(number)
    return bool(kernel)
