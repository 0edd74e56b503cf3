"""What tests of programs' files and processes need from the operating system: a FIFO with a
reader, a device node of the test's own, and the processes /proc shows (Linux)."""

import os
import stat
import threading
from typing import List, Tuple

import pytest

NULL_DEVICE = (1, 3)
"""Major and minor numbers of a node that behaves as /dev/null."""
FULL_DEVICE = (1, 7)
"""... as /dev/full (every write fails: no space left on device)."""


def fifo_with_reader(path: str) -> Tuple[threading.Thread, List[bytes]]:
    """Make a FIFO at ``path`` and a thread that reads it to its end into the list returned
    (join the thread, with a timeout, before looking)."""
    os.mkfifo(path)
    received: List[bytes] = []

    def reader() -> None:
        with open(path, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread, received


def device_node(path: str, numbers: Tuple[int, int]) -> str:
    """A character device node at ``path`` (a private /dev/null or /dev/full: a program that
    replaced its output by renaming over it would replace this one, never the system's);
    the test is skipped where nodes cannot be made (not root)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*numbers))
    except (OSError, AttributeError) as exc:
        pytest.skip("cannot make a device node here: %s" % exc)
    return path


def _processes() -> List[Tuple[int, int, str, bytes]]:
    """(pid, parent pid, state, command line) of every process /proc shows."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open("/proc/%s/cmdline" % entry, "rb") as handle:
                cmdline = handle.read()
        except OSError:  # it ended meanwhile
            continue
        found.append((int(entry), int(fields[1]), fields[0], cmdline))
    return found


def children(pid: int) -> List[int]:
    """The processes whose parent is ``pid``."""
    return [child for child, parent, _, _ in _processes() if parent == pid]


def live_processes_with(marker: str) -> List[int]:
    """The processes, zombies left out, whose command line holds ``marker``."""
    return [pid for pid, _, state, cmdline in _processes() if state != "Z" and marker.encode() in cmdline]


SAME_FILE_NAMES = ("same path", "symbolic link", "hard link")
"""The ways ``same_file`` names a file again."""


def same_file(path: str, how: str) -> str:
    """``path`` itself, or a symbolic or hard link to it made beside it (``how``: one of
    ``SAME_FILE_NAMES``)."""
    if how == "same path":
        return path
    folder, name = os.path.split(path)
    other = os.path.join(folder, "%s-%s" % (how.split()[0], name))
    (os.symlink if how == "symbolic link" else os.link)(path, other)
    return other
