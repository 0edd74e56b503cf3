"""Which interpreter runs Pruner: ``pruner`` moves itself onto PyPy when one is installed.

The search is pure Python, and PyPy runs it 1.4-3.4x as fast as CPython (docs/pypy.md); in
games that is most of Pruner's strength. So the ``pruner`` command, started on CPython by a
normal install, replaces itself by PyPy when a ``pypy3`` is installed:

    PRUNER_INTERPRETER=auto | pypy | cpython | PATH-OF-A-PYPY      (or: pruner --interpreter ...)

* ``auto``, the default of ``pruner``: PyPy for the engine (``pruner``, ``pruner uci``,
  ``pruner bench``, ``--version``) when ``pypy3`` on the PATH is PyPy 3.9 or newer; ``pruner
  analyse`` stays on CPython (its extras, matplotlib, Dask and zstandard, are CPython packages).
* ``pypy`` (or a path): PyPy for every command; ``cpython``: no switch.
* ``python -m pruner`` runs on the Python that starts it unless asked otherwise, so a
  command that names its interpreter gets that one (the tests, ``scripts/match.py``, benches).

How (``start``): a probe (``pypy3 -S -c ...``, standard input closed, so it cannot take what the
GUI has already sent) checks that the command is PyPy 3.9 or newer (its answer is kept in the
user's cache while PyPy's files are unchanged: protocol/probe_cache.py); then ``os.execve`` puts
PyPy in place of this process, running protocol/run_pruner.py (``boot_command``): same process
id, same standard streams (lines sent meanwhile wait in the pipe), signals reach PyPy directly;
nothing relays; ``ps`` shows ``pypy3 .../pruner/run_pruner.py``, ``top`` ``pruner``. That program
puts the folder holding this installation's python-chess on PyPy's path, after PyPy's standard
library and before its own site-packages, and maps ``pruner``, ``pruner.engine`` to this
installation's folders with a finder first on ``sys.meta_path``: an editable install has no
``pruner/`` folder (pyproject's package-dir maps protocol/ and engine/), so a path entry alone
would not find it; a normal install's finder points into site-packages/pruner/. So PyPy runs
the very files CPython would have run (all pure Python), and a ``pruner.py`` in the working
directory shadows nothing. If they do not import there, it executes CPython again on the same
program, and Pruner runs on CPython and says why (``describe``: ``pruner --version``, an ``info
string`` after ``uci``; and one line on stderr). ``PYPY_GC_NURSERY`` is set in the same exec
(protocol/__main__.py says why), so PyPy starts once.

Windows has no exec (``os.execv`` starts a new process and ends this one, and the GUI would see
its engine exit), so there Pruner stays where it started: install it into a PyPy venv instead.
"""

import os
import platform
import sys
from typing import Dict, List, MutableMapping, NamedTuple, Optional, Tuple


VARIABLE = "PRUNER_INTERPRETER"
"""The environment variable that chooses (``--interpreter`` on the command line wins)."""
BOOT = "PRUNER_BOOT"
"""The parameters of protocol/run_pruner.py (``boot_command``), as a new process reads them."""
HANDOVER = "PRUNER_INTERPRETER_HANDOVER"
"""Set across an exec: why the new process runs where it does, after ``FELL_BACK`` when PyPy
handed back to CPython. The new process reads and removes it, so no engine that Pruner starts
(``pruner analyse --engine pruner``) inherits it."""
FELL_BACK = "!"
"""Marks a ``HANDOVER`` from protocol/run_pruner.py back to CPython (the new process warns on stderr)."""
MINIMUM = (3, 9)
"""The oldest Python version Pruner's code runs on (pyproject's ``requires-python``)."""
FLAG = "--interpreter"
AUTO, PYPY, CPYTHON = "auto", "pypy", "cpython"
CHOICES = (AUTO, PYPY, CPYTHON)
PYPY_COMMAND = "pypy3"
"""What ``auto`` looks for on the PATH (Debian, Ubuntu, Homebrew and conda name PyPy 3 so)."""
PROBE_SECONDS = 5.0
"""A ``pypy3`` that has not printed its version by then is left alone."""
NURSERY = "4M"
"""``PYPY_GC_NURSERY`` for a PyPy started from CPython (the reason: protocol/__main__.py)."""

_PROBE = ("import os, sys; v = sys.version_info; "
          "print(sys.implementation.name, v[0], v[1], v[2]); print(os.path.dirname(os.__file__))")
"""What the probe runs: the implementation and version, then the folder of its standard library
(part of the cache key: ``probe_cache_key``)."""

_reason = "started on %s" % platform.python_implementation()
"""Why this process runs on its interpreter: set once by ``start`` (a fact of the process, as
``sys.executable`` is), read by ``reason``."""


class Request(NamedTuple):
    """What was asked for."""

    choice: str
    """``auto``, ``pypy`` or ``cpython``."""
    pypy: Optional[str]
    """The PyPy executable named, or None to look for ``pypy3`` on the PATH."""
    source: str
    """Where it was asked: ``--interpreter X``, ``PRUNER_INTERPRETER=X`` or the default."""


def parse(value: str, source: str) -> Request:
    """A request from a flag or variable value; ValueError names what is accepted."""
    text = value.strip()
    if text.lower() in CHOICES:
        return Request(text.lower(), None, source)
    if os.sep in text or (os.altsep is not None and os.altsep in text):
        return Request(PYPY, text, source)
    raise ValueError("%s: not one of auto, pypy, cpython or the path of a PyPy executable" % source)


def split_flag(argv: List[str]) -> Tuple[Optional[str], List[str]]:
    """``--interpreter X`` or ``--interpreter=X`` taken off the front of the command line (it goes
    before the command: ``pruner --interpreter cpython bench``); ValueError without a value."""
    if argv and argv[0] == FLAG:
        if len(argv) < 2:
            raise ValueError("%s needs a value: auto, pypy, cpython or the path of a PyPy executable" % FLAG)
        return argv[1], argv[2:]
    if argv and argv[0].startswith(FLAG + "="):
        return argv[0][len(FLAG) + 1:], argv[1:]
    return None, list(argv)


COMMAND_DEFAULT = Request(AUTO, None, AUTO)
"""What ``pruner`` does unless told: ``auto``."""
MODULE_DEFAULT = Request(CPYTHON, None, "python -m pruner")
"""What ``python -m pruner`` does unless told: stay on the Python named."""


def requested(flag: Optional[str], environ: MutableMapping[str, str], default: Request) -> Tuple[Request, str]:
    """The request and a warning ('' for none): the flag (ValueError when bad), else the
    variable (a bad value is warned about and the default used), else the default."""
    if flag is not None:
        return parse(flag, "%s %s" % (FLAG, flag)), ""
    value = environ.get(VARIABLE, "")
    if value.strip():
        try:
            return parse(value, "%s=%s" % (VARIABLE, value)), ""
        except ValueError as exc:
            return default, "pruner: %s; using %s" % (exc, default.source)
    return default, ""


def _probe(executable: str) -> Tuple[Optional[str], str, str]:
    """``probe``'s answer and the folder of the executable's standard library ('' when not said)."""
    import subprocess  # only when the cache has no answer: not on every start
    try:
        run = subprocess.run([executable, "-S", "-c", _PROBE], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=PROBE_SECONDS, universal_newlines=True)
    except subprocess.TimeoutExpired:
        return None, "%s did not answer within %g s" % (executable, PROBE_SECONDS), ""
    except OSError as exc:
        return None, "%s cannot be run (%s)" % (executable, exc.strerror or exc), ""
    if run.returncode != 0:
        said = (run.stderr.strip().splitlines() or [""])[-1]
        return None, "%s exited with status %d%s" % (executable, run.returncode, ": " + said if said else ""), ""
    lines = run.stdout.splitlines() or [""]
    fields = lines[0].split()
    if len(fields) != 4 or not all(field.isdigit() for field in fields[1:]):
        return None, "%s printed %r, not a Python version" % (executable, run.stdout.strip()[:80]), ""
    version = ".".join(fields[1:])
    if fields[0] != "pypy":
        return None, "%s is %s %s, not PyPy" % (executable, fields[0], version), ""
    if (int(fields[1]), int(fields[2])) < MINIMUM:
        return None, "%s is PyPy %s, older than %d.%d" % ((executable, version) + MINIMUM), ""
    return version, "", lines[1].strip() if len(lines) > 1 else ""


def probe(executable: str) -> Tuple[Optional[str], str]:
    """Is ``executable`` PyPy 3.9 or newer? Its version (``3.9.16``) and '', or None and why not."""
    return _probe(executable)[:2]


def cached_probe(executable: str, environ: MutableMapping[str, str]) -> Tuple[Optional[str], str]:
    """``probe``, answered from the user's cache when this PyPy answered it before and its files
    are unchanged (protocol/probe_cache.py); a new answer is kept there."""
    # Imported here: this module is also imported as protocol.interpreter before ``pruner``
    # is mapped to a checkout (protocol/__init__.py), where ``pruner`` may not be importable.
    from pruner import probe_cache
    version = probe_cache.lookup(executable, environ)
    if version is not None:
        return version, ""
    version, problem, library = _probe(executable)
    if version is not None and library:
        probe_cache.store(executable, library, version, environ)
    return version, problem


PACKAGES = ("pruner", "pruner.engine")
"""The packages the bootstrap maps: ``pruner`` and the engine, which pyproject maps from another
folder (the lab's pruner.lab is not for the engine's process: it stays unmapped there)."""


def package_locations() -> Dict[str, str]:
    """This installation's packages -> their folders (``PACKAGES``): an editable install's
    are folders of the checkout, a normal install's nest in site-packages/pruner/."""
    locations: Dict[str, str] = {}
    from importlib.util import find_spec
    for name in PACKAGES:
        module = sys.modules.get(name)  # imported already: no search (pruner.lab is not, usually)
        path = list(getattr(module, "__path__", None) or []) if module is not None else []
        if not path:
            spec = find_spec(name)
            path = list(spec.submodule_search_locations or []) if spec is not None else []
        if not path:
            raise LookupError("%s is not an importable package here" % name)
        locations[name] = os.path.abspath(path[0])
    return locations


def checkout_packages(root: str) -> Dict[str, str]:
    """The engine's packages (``PACKAGES``) of the checkout at ``root``, by their folders
    (pyproject's package-dir: protocol/, engine/). The lab's package is left out, as in the
    PyPy bootstrap: no engine process imports it."""
    return dict(zip(PACKAGES, (os.path.join(root, "protocol"), os.path.join(root, "engine"))))


def map_checkout(root: str) -> None:
    """From now on in this process, ``pruner`` is the checkout at ``root`` (``python -m
    protocol`` in a checkout's root: protocol/__init__.py), whatever is installed."""
    import runpy  # the program, by its path (it imports pruner.__main__, which imports this module)
    packages = checkout_packages(root)
    runpy.run_path(boot_file(packages), run_name="pruner_checkout")["install_finder"](packages)


def package_folders() -> List[str]:
    """The folder holding this installation's python-chess: what PyPy needs on its path (the
    ``pruner`` packages come by their own finder, ``package_locations``)."""
    from importlib.util import find_spec
    folders: List[str] = []
    for name in ("chess",):
        spec = find_spec(name)
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if not locations:
            raise LookupError("%s is not an importable package here" % name)
        folder = os.path.dirname(os.path.abspath(locations[0]))
        if folder not in folders:
            folders.append(folder)
    return folders


def boot_file(packages: Optional[Dict[str, str]] = None) -> str:
    """The program a new process runs Pruner with (protocol/run_pruner.py) in ``packages``'
    ``pruner`` folder (default: this installation's)."""
    return os.path.join((package_locations() if packages is None else packages)["pruner"], "run_pruner.py")


def boot_command(executable: str, argv: List[str], environ: MutableMapping[str, str], fallback: Optional[str],
                 failed: str = "", packages: Optional[Dict[str, str]] = None) -> List[str]:
    """The command line that runs ``pruner ARGV`` on ``executable`` with this installation's
    packages (or ``packages``) and python-chess, having put its parameters in ``environ``: if they
    do not import there, ``fallback`` runs it instead, told ``failed`` and the error (None: none).
    LookupError: a package cannot be found here."""
    packages = package_locations() if packages is None else packages
    environ[BOOT] = repr({"packages": dict(packages), "folders": package_folders(), "fallback": fallback,
                          "failed": failed, "handover": HANDOVER, "fell_back": FELL_BACK, "minimum": MINIMUM})
    return [executable, boot_file(packages)] + list(argv)


def _find(request: Request, environ: MutableMapping[str, str]) -> Tuple[Optional[str], str]:
    """The PyPy to try and '', or None and why there is none."""
    if request.pypy is not None:
        return request.pypy, ""
    import shutil
    found = shutil.which(PYPY_COMMAND, path=environ.get("PATH", os.defpath))
    return (found, "") if found else (None, "no %s on the PATH" % PYPY_COMMAND)


def _settle(reason: str, warning: str = "") -> None:
    global _reason
    _reason = reason
    if warning:
        sys.stderr.write(warning + "\n")
        sys.stderr.flush()


def start(flag: Optional[str], argv: List[str], moves: bool, default: Request = COMMAND_DEFAULT,
          environ: Optional[MutableMapping[str, str]] = None) -> None:
    """Choose the interpreter, first thing in a ``pruner`` process of its own (``flag``: the
    ``--interpreter`` value, ``argv`` the rest of the command line): for PyPy this process is
    replaced and the call does not return; otherwise ``reason`` says afterwards why it stays.
    ``moves``: whether ``auto`` may move this command (the engine and the bench do, ``analyse``
    does not). ValueError: a bad ``--interpreter``."""
    environ = os.environ if environ is None else environ
    handed_over = environ.pop(HANDOVER, None)
    if handed_over is not None:  # a process this function started: it runs where it was put
        if handed_over.startswith(FELL_BACK):  # PyPy's bootstrap handed back
            handed_over = handed_over[len(FELL_BACK):]
            _settle(handed_over, "pruner: %s; running on %s" % (handed_over, platform.python_implementation()))
        else:
            _settle(handed_over)
        return
    request, warning = requested(flag, environ, default)
    if warning:
        sys.stderr.write(warning + "\n")
    label = request.source
    implementation = platform.python_implementation()
    if implementation == "PyPy":
        _settle("started on PyPy" if request in (COMMAND_DEFAULT, MODULE_DEFAULT) else "%s: started on PyPy" % label)
        return
    if request.choice == CPYTHON or (request.choice == AUTO and not moves):
        _settle("%s: %s" % (label, "no switch" if request.choice == CPYTHON else "pruner analyse stays"))
        return
    explicit = request.choice == PYPY
    if os.name != "posix":
        _settle("%s: no switch on Windows (no exec there: install into a PyPy venv)" % label,
                "pruner: %s: no switch to PyPy on Windows; running on %s" % (label, implementation) if explicit else "")
        return
    pypy, missing = _find(request, environ)
    version, problem = cached_probe(pypy, environ) if pypy is not None else (None, missing)
    if version is None:
        _settle("%s: %s" % (label, problem),
                "pruner: %s: %s; running on %s" % (label, problem, implementation) if explicit or pypy else "")
        return
    assert pypy is not None
    saved = {name: environ.get(name) for name in (HANDOVER, "PYPY_GC_NURSERY", BOOT)}
    try:
        command = boot_command(pypy, argv, environ, sys.executable, "%s: %s could not run Pruner" % (label, pypy))
    except LookupError as exc:
        _settle("%s: %s" % (label, exc), "pruner: %s: %s; running on %s" % (label, exc, implementation))
        return
    environ[HANDOVER] = "%s: %s" % (label, pypy)
    if "PYPY_GC_NURSERY" not in environ:
        environ["PYPY_GC_NURSERY"] = NURSERY
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(pypy, command, environ)
    except OSError as exc:
        for name, value in saved.items():
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = value
        problem = "%s cannot be run (%s)" % (pypy, exc.strerror or exc)
        _settle("%s: %s" % (label, problem), "pruner: %s: %s; running on %s" % (label, problem, implementation))


def running_on() -> str:
    """This process's interpreter: ``PyPy 3.9.16``."""
    return "%s %s" % (platform.python_implementation(), platform.python_version())


def reason() -> str:
    """Why this process runs on it: ``auto: /usr/bin/pypy3``, ``auto: no pypy3 on the PATH``..."""
    return _reason


def describe() -> str:
    """``Pruner runs on PyPy 3.9.16 (auto: /usr/bin/pypy3)``: the engine's ``info string`` after ``uci``."""
    return "Pruner runs on %s (%s)" % (running_on(), reason())
