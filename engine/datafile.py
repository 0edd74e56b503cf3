"""The data files the engine maps into memory (opening books, Syzygy tables): regular files
only, opened without blocking, checked for changes before each use.

Why each step:

* A path is ``stat``-ed before it is opened and only a regular file is opened: opening a FIFO
  waits for a writer (the engine hung before its ``readyok``), and a device such as
  ``/dev/zero`` or ``/dev/urandom`` has no size and never ends.
* The open itself does not block (``O_NONBLOCK``) and the descriptor is checked again
  (``fstat``): a path swapped for a FIFO or a device between the ``stat`` and the ``open`` is
  refused instead of waited on.
* A mapped file read past its current end kills the process with SIGBUS, which Python cannot
  catch. ``check`` is the cheap guard before each use (one ``stat`` of the path, about 3 µs,
  6 % of a Syzygy WDL probe on CPython: docs/results.md): a file modified in place since it was mapped (size or modification time
  changed) is reported, and the caller leaves it out instead of reading it. A file renamed
  over or deleted stays readable through the mapping, unchanged, and is used as it was.
  A file truncated *during* a read (between the check and the read) still ends the process,
  as it ends Stockfish, which maps its tables too (docs/gui.md).
"""

import mmap
import os
import stat
from typing import Callable, Optional, Tuple

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class UnusableFile(OSError):
    """A path that names no usable data file: not a regular file, empty, or swapped while it
    was being opened. The message is the reason alone (the caller names the file)."""


class FileChanged(OSError):
    """A mapped file was modified in place since it was mapped: reading it could crash the engine."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: ``a FIFO``, ``a directory``, ..."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def regular_file(path: str) -> os.stat_result:
    """``os.stat(path)`` when it names a regular file (through links); raises ``OSError``
    (missing, unreadable), ``UnusableFile`` (``not a regular file (a FIFO)``) otherwise."""
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise UnusableFile("not a regular file (%s)" % file_kind(status.st_mode))
    return status


def _identity(status: os.stat_result) -> Tuple[int, int, int, int]:
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


class MappedFile:
    """A regular file mapped read-only (``data``), with the identity it had when mapped."""

    def __init__(self, path: str, data: mmap.mmap, identity: Tuple[int, int, int, int]) -> None:
        self.path = path
        self.data = data
        """The mapping (python-chess reads books and tables through it)."""
        self.identity = identity
        """(device, inode, size, modification time in ns) when it was mapped."""

    @property
    def size(self) -> int:
        """Size in bytes when the file was mapped."""
        return self.identity[2]

    @classmethod
    def open(cls, path: str, accept_size: Optional[Callable[[int], None]] = None) -> "MappedFile":
        """Map the regular file at ``path``. ``accept_size(size)`` may refuse the size (it raises
        ``OSError`` or ``ValueError``) before anything is mapped. Raises ``OSError`` (or what
        ``accept_size`` raises) with the reason; never opens anything but a regular file, never
        blocks."""
        before = regular_file(path)
        fd = os.open(path, _OPEN_FLAGS)
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode) or (status.st_dev, status.st_ino) != (before.st_dev, before.st_ino):
                raise UnusableFile("the file changed while it was being opened (now %s)"
                                 % ("another file" if stat.S_ISREG(status.st_mode) else file_kind(status.st_mode)))
            if accept_size is not None:
                accept_size(status.st_size)
            if status.st_size == 0:
                raise UnusableFile("empty file")
            data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)  # the mapping keeps the file
        try:
            data.madvise(mmap.MADV_RANDOM)  # probes jump around the file (as python-chess advises)
        except (AttributeError, OSError):
            pass
        return cls(path, data, _identity(status))

    def check(self) -> None:
        """Raise ``FileChanged`` when the file at ``path`` is the mapped one modified in place
        (its size or modification time differ). A path that now names another file, or none,
        leaves the mapping intact: nothing to report."""
        try:
            now = os.stat(self.path)
        except OSError:
            return
        identity = _identity(now)
        if identity[:2] != self.identity[:2] or identity == self.identity:
            return
        raise FileChanged("changed on disk since it was loaded (%d bytes, was %d)" % (now.st_size, self.size))

    def close(self) -> None:
        """Unmap the file."""
        self.data.close()
