"""How many CPUs this process may run on: the default of every "how many in parallel" setting
(``Threads``' range, ``pruner analyse --jobs``, the match lab's ``--jobs``)."""

import os


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one, e.g. under
    ``taskset`` or a container limit), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)
