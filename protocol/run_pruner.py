"""The program PyPy runs when ``pruner`` hands itself over (protocol/interpreter.py): a file, so
that the process shows up as ``pypy3 .../pruner/run_pruner.py uci`` in ``ps`` and as ``pruner``
in ``top`` and ``ps -o comm`` (issue 54, item 2), not as a 600-character ``-c`` program.

    PRUNER_BOOT='{"packages": ..., "folders": ..., ...}' pypy3 /path/to/run_pruner.py ARGS...

Its parameters come in the ``PRUNER_BOOT`` variable (a Python dict literal; it is removed at
once, so no engine that Pruner starts inherits it): ``packages``, the ``pruner`` packages by their folders
(an editable install has no pruner/ folder, so they are found by a finder first on
``sys.meta_path``: the very files CPython would have run); ``folders``, put on the path before
this interpreter's own site-packages (python-chess's); ``fallback``, the CPython to run this file
again on when they do not import here (None: none, the error stands), told ``failed`` and the
error (in ``handover``, after ``fell_back``); ``minimum``, the oldest Python Pruner runs on.
Plain syntax, so that even an old PyPy gets as far as the fallback. It imports nothing of
Pruner's before its finder is in place (``interpreter.map_checkout`` loads it by its path).
"""

import os
import sys

BYTECODE_FOLDER = ("pruner", "pycache")
"""Where PyPy keeps the bytecode of what it imports, under the user's cache folder."""
VARIABLE = "PRUNER_BOOT"
"""The variable holding the parameters (``interpreter.boot_command`` writes them)."""
PROCESS_NAME = "pruner"
"""What ``top`` and ``ps -o comm`` show for the engine (Linux)."""


class PrunerFinder(object):
    """Finds the ``pruner`` packages in the folders given, before any path entry (so a
    ``pruner.py`` in the working directory shadows nothing)."""

    def __init__(self, folders):
        self.folders = folders

    def find_spec(self, name, path=None, target=None):
        """The spec of a mapped package, None for any other module."""
        folder = self.folders.get(name)
        if folder is None:
            return None
        import importlib.util
        return importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                                      submodule_search_locations=[folder])


def install_finder(folders):
    """From now on in this process, the packages named in ``folders`` (name -> folder) are those folders."""
    sys.meta_path.insert(0, PrunerFinder(dict(folders)))


def name_process(name=PROCESS_NAME):
    """Set this process's name as ``top``, ``ps -o comm`` and ``pgrep`` read it, on Linux (the
    main thread's name is the process's); elsewhere, or when it cannot be written, nothing."""
    try:
        with open("/proc/self/comm", "w") as handle:
            handle.write(name[:15])
    except (IOError, OSError):
        pass


def use_bytecode_cache(environ):
    """Let PyPy keep the bytecode it compiles under the user's cache folder (``sys.pycache_prefix``)
    and read it there at the next start; the folder, or None when there is none (or the user set
    ``PYTHONPYCACHEPREFIX``: theirs stands).

    Why: PyPy compiles python-chess and Pruner from source when it cannot write its bytecode beside
    them: with ``PYTHONDONTWRITEBYTECODE`` set (or ``-B``), or in an installation it cannot write
    (pip compiles bytecode for the CPython that installs, not for PyPy). That was 830 ms from
    launch to ``readyok`` against 320 ms with the bytecode kept (issue 54, item 1). Nothing is
    written beside the sources, which is what ``PYTHONDONTWRITEBYTECODE`` is set for; the helper
    processes of ``Threads`` read the same folder (the variable is passed on)."""
    if environ.get("PYTHONPYCACHEPREFIX"):
        return None
    from pruner.probe_cache import user_cache
    base = user_cache(environ)
    if base is None:
        return None
    folder = os.path.join(base, *BYTECODE_FOLDER)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK | os.X_OK):
        return None
    sys.pycache_prefix = folder
    sys.dont_write_bytecode = False
    environ["PYTHONPYCACHEPREFIX"] = folder
    return folder


def parameters(value):
    """The parameters in a value of ``VARIABLE``: a dict (``interpreter.boot_command``)."""
    import ast
    return ast.literal_eval(value)


def boot():
    """Run ``pruner``'s main here, or on the fallback CPython when it does not import here."""
    given = parameters(os.environ.pop(VARIABLE))
    packages, folders, fallback, minimum = given["packages"], given["folders"], given["fallback"], given["minimum"]
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and sys.path[0] in ("", here):  # the script's folder: pruner's own modules, not top-level ones
        del sys.path[0]
    name_process()
    install_finder(packages)
    use_bytecode_cache(os.environ)
    try:
        if sys.version_info[:2] < tuple(minimum):
            raise RuntimeError("Python %d.%d is older than %d.%d" % (tuple(sys.version_info[:2]) + tuple(minimum)))
        index = len(sys.path)
        for i, folder in enumerate(sys.path):
            if os.path.basename(folder) in ("site-packages", "dist-packages"):
                index = i
                break
        sys.path[index:index] = folders
        import chess  # noqa: F401
        from pruner.__main__ import main
    except Exception as exc:
        if fallback is None:
            raise
        given["fallback"] = None  # CPython runs this file again, with the same packages; no further fallback
        os.environ[VARIABLE] = repr(given)
        os.environ[given["handover"]] = given["fell_back"] + given["failed"] + " (%s: %s)" % (type(exc).__name__, exc)
        sys.stderr.flush()
        os.execv(fallback, [fallback, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit(main())


if __name__ == "__main__":
    boot()
