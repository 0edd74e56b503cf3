"""The UCI server's output: the one writer of stdout, and the error lines every part prints.

``Writer`` is the only code that writes to stdout: one lock, one flushed write per line, so
the command loop, the search thread and a perft or bench thread never cut into each other's
lines. ``error`` and ``internal`` are the two shapes of a problem report (``info string
error: ...``), shared by the loop (bad commands) and the engine state (bad files, bugs).
"""

import os
import sys
import threading
import traceback
from typing import Any, Callable, Optional


class Writer:
    """The single owner of stdout: thread-safe, one flushed write per line.

    When the output is gone (closed pipe, SIGPIPE ignored by Python -> ``BrokenPipeError``)
    it stops writing and calls ``on_broken`` once, so the loop can exit instead of spinning.
    """

    def __init__(self, write: Callable[[bytes], Any], on_broken: Optional[Callable[[], None]] = None) -> None:
        self._write = write
        self._on_broken = on_broken
        self._lock = threading.Lock()
        self.broken = False

    def send(self, line: str) -> None:
        """Write one line (embedded line breaks are flattened: one call, one line)."""
        data = (line.replace("\r", " ").replace("\n", " ") + "\n").encode("utf-8", "replace")
        with self._lock:
            if self.broken:
                return
            try:
                self._write(data)
                return
            except (OSError, ValueError):  # ValueError: the stream object was closed
                self.broken = True
        if self._on_broken is not None:
            self._on_broken()

    def error(self, message: str) -> None:
        """Report a problem to the GUI: ``info string error: <message>``."""
        self.send("info string error: " + message)

    def internal(self, exc: BaseException, context: str = "") -> None:
        """A bug, not bad input: traceback to stderr, one ``info string error: internal`` line."""
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        self.error("internal: %s%s" % (context + ": " if context else "", describe(exc)))


def fd_writer(fd: int) -> Callable[[bytes], None]:
    """Unbuffered writes to a file descriptor (no Python buffer to flush or to fail at exit)."""
    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    return write


def describe(exc: BaseException) -> str:
    """``Type: message`` of an exception (the type alone when it has no message)."""
    return "%s: %s" % (type(exc).__name__, exc) if str(exc) else type(exc).__name__


def report_problems(writer: Writer, resource: Any) -> None:
    """Show once what a loaded resource (the tables, the book) could not use."""
    take = getattr(resource, "take_problems", None)
    if take is not None:
        for message in take():
            writer.error(message)


def join_unless_output_lost(thread: threading.Thread, stop: threading.Event, writer: Writer) -> None:
    """Wait for ``thread`` to end; set ``stop`` if the output is lost meanwhile (nobody would
    read the rest, and a caller waiting here cannot see the loss otherwise)."""
    while thread.is_alive():
        thread.join(0.05)
        if writer.broken:
            stop.set()
