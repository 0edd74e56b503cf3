"""How many CPUs this process may run on: the default of every "how many in parallel" setting
(``Threads``' range, ``pruner analyse --jobs``, the match lab's ``--jobs``); and how much memory
the machine has (what ``pruner analyse --hash`` may ask for)."""

import os
from typing import Optional


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one, e.g. under
    ``taskset`` or a container limit), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def physical_memory_mb() -> Optional[int]:
    """The machine's physical memory in MB, or None where the system does not say (not POSIX)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)
    except (AttributeError, OSError, ValueError):
        return None
