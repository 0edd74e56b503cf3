"""The answer of ``pypy3``'s probe, kept between starts (protocol/interpreter.py; issue 54, item 1).

Probing ``pypy3`` starts a process (20-40 ms of every ``pruner`` start). Its answer, the PyPy
version, depends only on the files that are PyPy, so it is kept in a small file under the
user's cache folder (``$XDG_CACHE_HOME/pruner/pypy-probe``, else ``~/.cache/pruner/pypy-probe``),
one line an executable, and used again while they are unchanged: the executable (the file its
links lead to) and the folder of its standard library have the same size, modification time,
change time and inode as when it answered. A PyPy upgraded, moved, replaced or reinstalled
changes one of them (``ctime`` cannot be set back by copying tools), and is probed again. Only
a PyPy that can run Pruner is kept; when the file cannot be read or written, the probe runs
each time, as before.
"""

import os
from typing import List, MutableMapping, Optional, Tuple

FILE = os.path.join("pruner", "pypy-probe")
"""The cache file, under the user's cache folder."""

Stamp = Tuple[int, int, int, int]
"""What identifies a file's version: size, mtime and ctime (ns), inode."""


def user_cache(environ: MutableMapping[str, str]) -> Optional[str]:
    """The user's cache folder: ``$XDG_CACHE_HOME`` (when absolute, as the XDG spec asks), else
    ``$HOME/.cache``; None without either. Pruner keeps its files in its ``pruner`` folder."""
    base = environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = environ.get("HOME", "")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return base


def cache_path(environ: MutableMapping[str, str]) -> Optional[str]:
    """The cache file's path, under the user's cache folder; None without one."""
    base = user_cache(environ)
    return None if base is None else os.path.join(base, FILE)


def stamp(path: str) -> Optional[Stamp]:
    """The file's ``Stamp``, None when it cannot be read."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


def _line(executable: str, library: str) -> Optional[str]:
    """The cache line's key part for this executable and standard library as they are now."""
    program, folder = stamp(executable), stamp(library)
    if program is None or folder is None or any(c in executable + library for c in "\t\n\r"):
        return None
    return "\t".join([executable] + [str(n) for n in program] + [library] + [str(n) for n in folder])


def _lines(path: str) -> List[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except (OSError, ValueError):
        return []


def lookup(executable: str, environ: MutableMapping[str, str]) -> Optional[str]:
    """The version the PyPy at ``executable`` answered when its files were as they are now, or None."""
    path = cache_path(environ)
    if path is None:
        return None
    real = os.path.realpath(executable)
    for line in _lines(path):
        fields = line.split("\t")
        if len(fields) == 11 and fields[0] == real and _line(real, fields[5]) == "\t".join(fields[:10]):
            return fields[10]
    return None


def store(executable: str, library: str, version: str, environ: MutableMapping[str, str]) -> None:
    """Keep ``version`` for the PyPy at ``executable`` whose standard library is the folder
    ``library``; nothing when the file cannot be written (the next start probes again)."""
    path = cache_path(environ)
    real = os.path.realpath(executable)
    key = _line(real, library)
    if path is None or key is None or not version or any(c in version for c in "\t\n\r"):
        return
    kept = [line for line in _lines(path) if line.split("\t")[0] != real]
    temporary = "%s.%d.tmp" % (path, os.getpid())
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in kept + [key + "\t" + version]))
        os.replace(temporary, path)  # whole or not at all: another pruner may read it now
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
