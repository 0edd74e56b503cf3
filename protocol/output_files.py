"""Output files written without harm to what is there: shared by ``pruner analyse`` and the
match lab (scripts/matchlib), which both write reports, pictures and JSON next to their inputs.

* ``write_file``/``replaced``: a whole file (a report, a picture, a JSON summary). A regular
  file, or a name that does not exist yet, gets a temporary file in the same folder that is
  renamed over it once complete, so a reader never sees half of it and a failed write leaves
  the old file. A symbolic link is written through: its target is replaced the same way and
  the link stays. A regular file with other hard links is written in place, so every name
  sees the new content. Anything else (a device such as ``/dev/null`` or ``/dev/stdout``, a
  FIFO) is written in place, as ``cat > PATH`` would: renaming over it would replace the
  device node by a regular file.
* ``same_file_problem``: an output that names an input (the same file, also through a
  symbolic or hard link: the same ``st_dev``/``st_ino``; or the same path when it does not
  exist yet) or another output is refused before anything is opened for writing. Character
  devices are exempt: ``/dev/stdin`` and ``/dev/stdout`` on one terminal are one device, and
  writing to a device destroys nothing.
* ``unwritable``: why a path cannot be written, asked before the work starts.
* ``OutputError``: a write that failed (disk full, a device that fails, a closed standard
  output), naming the output, for a program to end with one line instead of a traceback.
* ``locked``: the outputs of a run locked for the whole run, so a second run given one of
  them refuses it at once (``OutputBusy``, exit status ``EXIT_BUSY``) instead of splicing its
  records into the first's. Each output has a lock file ``.NAME.lock`` next to it (through a
  symbolic link: next to its target) held with ``fcntl.flock``: the kernel lets it go when the
  holder ends however it ends (``kill -9`` included), so no stale lock is left to clean up.
  A directory (a run that appends to the files in it) is locked the same way. Devices and
  FIFOs are not locked (two runs writing ``/dev/null`` harm nothing); where the
  folder takes no lock file the output itself is locked; a platform without ``fcntl`` or a
  file system without ``flock`` runs unlocked, as before.
"""

import contextlib
import errno
import itertools
import os
import stat
from typing import IO, Iterator, List, Optional, Sequence, Tuple

try:
    import fcntl
except ImportError:  # Windows: no advisory locks of this kind; runs are not locked there
    fcntl = None  # type: ignore[assignment]

Named = Tuple[str, str]
"""(what it is on the command line, such as ``--report`` or ``input``; its path)."""

_serial = itertools.count()


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except (OSError, ValueError):  # missing, a dangling link, a name with a NUL byte
        return None


def _identity(path: str, status: Optional[os.stat_result] = None) -> Tuple[object, ...]:
    """What makes two paths one file: device and inode when it exists, else its resolved path."""
    status = status if status is not None else _stat(path)
    if status is not None:
        return ("inode", status.st_dev, status.st_ino)
    return ("path", os.path.realpath(os.path.abspath(path)))


def same_file_problem(outputs: Sequence[Named], inputs: Sequence[Named] = (),
                      stdin: Optional[IO] = None) -> Optional[str]:
    """Why these outputs cannot be written (one of them names an input, or another output), or
    None. ``stdin``: the stream read as input ``-``, compared by its file descriptor."""
    seen = []
    for label, path in inputs:
        seen.append((label, path, _identity(path)))
    if stdin is not None:
        try:
            status = os.fstat(stdin.fileno())
        except (AttributeError, OSError, ValueError):  # a stream without a descriptor
            status = None
        if status is not None and not stat.S_ISCHR(status.st_mode):
            seen.append(("input", "- (standard input)", _identity("", status)))
    for label, path in outputs:
        status = _stat(path)
        identity = _identity(path, status)
        if status is None or not stat.S_ISCHR(status.st_mode):
            for other_label, other_path, other in seen:
                if other == identity:
                    if other_label == "input":
                        return "%s %s is the input %s: writing it would destroy it" % (label, path, other_path)
                    return "%s %s is the same file as %s %s" % (label, path, other_label, other_path)
        seen.append((label, path, identity))
    return None


def unwritable(path: str) -> Optional[str]:
    """Why ``path`` cannot be written (None when it can, as far as can be told before trying)."""
    status = _stat(path)
    if status is not None and stat.S_ISDIR(status.st_mode):
        return "is a directory"
    if status is not None and not stat.S_ISREG(status.st_mode):
        return None if os.access(path, os.W_OK) else "permission denied"
    target = os.path.realpath(path)
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        return "no such directory"
    if not os.access(folder, os.W_OK) or (status is not None and not os.access(target, os.W_OK)):
        return "permission denied"
    return None


def _in_place(status: Optional[os.stat_result]) -> bool:
    """Whether a file is written where it is rather than replaced: not a regular file (a device,
    a FIFO), or a regular file with other hard links."""
    return status is not None and (not stat.S_ISREG(status.st_mode) or status.st_nlink > 1)


@contextlib.contextmanager
def replaced(path: str, mode: str = "wb", encoding: Optional[str] = None) -> Iterator[IO]:
    """A handle to write the whole new content of ``path`` (see the module doc): on a normal
    exit the content is in place, on an exception the file is as it was (for a file written
    in place, as far as it got) and no temporary file is left. OSError when it cannot be
    written."""
    status = _stat(path)
    if _in_place(status):
        with open(path, mode, encoding=encoding) as handle:
            yield handle
        return
    target = os.path.realpath(path)  # through a symbolic link: its target is the file
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, ".%s.%d-%d.tmp" % (name, os.getpid(), next(_serial)))
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    try:
        with os.fdopen(descriptor, mode, encoding=encoding) as handle:
            if status is not None:  # a file replaced keeps its permissions
                os.chmod(temporary, stat.S_IMODE(status.st_mode))
            yield handle
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` as the whole content of ``path`` (``replaced``); OSError when it cannot."""
    with replaced(path) as handle:
        handle.write(data)


class OutputError(Exception):
    """An output that could not be written: ``--report page.html: cannot write: No space left
    on device``. ``what`` names it as the command line does, ``error`` is the OSError."""

    def __init__(self, what: str, error: BaseException) -> None:
        super().__init__("%s: cannot write: %s" % (what, describe_error(error)))
        self.what = what
        self.error = error


def describe_error(error: BaseException) -> str:
    """The reason of an OSError as a user reads it (``No space left on device``)."""
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


EXIT_BUSY = 75
"""Exit status of a run refused because another run is writing one of its outputs (sysexits.h
``EX_TEMPFAIL``: nothing is wrong with the command; try again once the other run has ended)."""


class OutputBusy(Exception):
    """An output that another run is writing: ``-o out.jsonl: another run (pid 4242) is
    writing it (lock .out.jsonl.lock); try again when it has ended``."""

    def __init__(self, what: str, path: str, lock: str, holder: Optional[int]) -> None:
        run = "another run (pid %d)" % holder if holder else "another run"
        super().__init__("%s %s: %s is writing it (lock %s); try again when it has ended" % (what, path, run, lock))
        self.what = what
        self.path = path


def lock_path(path: str) -> str:
    """The lock file of output ``path``: ``.NAME.lock`` beside it (beside a link's target)."""
    folder, name = os.path.split(os.path.realpath(path))
    return os.path.join(folder, ".%s.lock" % name)


_BUSY = {errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES}
"""``flock`` errors that mean another holds the lock; any other (ENOLCK, EOPNOTSUPP: a file
system without such locks) leaves the output unlocked, as on a platform without them."""


def _holder(descriptor: int) -> Optional[int]:
    """The process id the holder wrote into its lock file, if it has yet."""
    try:
        text = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _lock_file(what: str, path: str) -> Tuple[Optional[int], Optional[str]]:
    """Take the lock of one output: (its descriptor, the lock file to remove on release), or
    (None, None) where it cannot be locked; OutputBusy while another process holds it."""
    lock = lock_path(path)
    while True:
        try:
            descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
            created = lock
        except OSError:  # a folder that takes no new file: lock the output itself, if it is there
            try:
                descriptor, created = os.open(path, os.O_RDONLY), None
            except OSError:
                return None, None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(descriptor) if created else None
            os.close(descriptor)
            if exc.errno not in _BUSY:
                return None, None
            raise OutputBusy(what, path, created or path, holder) from None
        if created is None:
            return descriptor, None
        # The run that held it may have removed it between our open and our flock: a lock on
        # a removed file keeps nobody out, so take the one now at that name.
        try:
            same = os.path.samestat(os.fstat(descriptor), os.stat(lock))
        except OSError:
            same = False
        if same:
            with contextlib.suppress(OSError):  # the pid only makes the busy message clearer
                os.ftruncate(descriptor, 0)
                os.pwrite(descriptor, b"%d\n" % os.getpid(), 0)
            return descriptor, lock
        os.close(descriptor)


def _release(held: List[Tuple[int, Optional[str]]]) -> None:
    # The file goes before the lock, so a run that opens it after this takes a new one.
    for descriptor, lock in reversed(held):
        if lock is not None:
            with contextlib.suppress(OSError):
                os.unlink(lock)
        os.close(descriptor)


@contextlib.contextmanager
def locked(outputs: Sequence[Named]) -> Iterator[None]:
    """Hold the lock of every output (regular files, directories a run appends to, names not
    there yet) for the block;
    OutputBusy, naming the first output another run holds, before anything is written."""
    held: List[Tuple[int, Optional[str]]] = []
    try:
        if fcntl is not None:
            seen = set()
            for what, path in outputs:
                status = _stat(path)
                if status is not None and not (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)) \
                        or lock_path(path) in seen:
                    continue
                seen.add(lock_path(path))
                descriptor, lock = _lock_file(what, path)
                if descriptor is not None:
                    held.append((descriptor, lock))
        yield
    finally:
        _release(held)
