"""protocol/interpreter.py: ``pruner`` moves itself onto PyPy when one is installed, stays on
CPython when asked or when PyPy cannot run it, and says which runs.

The processes here are started as the ``pruner`` console script starts (``main()`` with its
default, ``auto``), from the repository root; a fake ``pypy3`` on a PATH of the test's own
stands in for PyPy where the real one is not needed: it answers the probe as PyPy 3.9 and runs
the bootstrap on this interpreter, so the fallback is tested everywhere.
"""

import os
import platform
import re
import shutil
import signal
import subprocess
import sys

import chess
import pytest

from paths import ROOT
from uci_process import uci_lines
from pruner import __main__ as command_line
from pruner import interpreter
from pruner import run_pruner as run_pruner_program

PYPY = platform.python_implementation() == "PyPy"
POSIX = os.name == "posix"
CONSOLE_SCRIPT = "import sys; from pruner.__main__ import main; sys.exit(main())"
"""What pip's ``pruner`` script runs."""
INFO = re.compile(r"^info string Pruner runs on (\S+) (\S+) \((.*)\)$", re.M)

needs_cpython = pytest.mark.skipif(PYPY or not POSIX, reason="the switch starts from CPython on a POSIX system")


@pytest.fixture(autouse=True)
def keep_the_reason(monkeypatch, tmp_path_factory):
    """``start`` records why this process runs where it does; the tests' calls leave it as it
    was. The probe's cache (protocol/probe_cache.py) is a folder of the test's own."""
    monkeypatch.setattr(interpreter, "_reason", interpreter.reason())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


def fake_pypy(folder, version="3 9 16", name="pypy", block_chess=False, status=0):
    """A ``pypy3`` that answers the probe as ``name version`` (no standard library folder: its
    answer is not cached) and runs the program it is given on this interpreter (with
    python-chess made unimportable if ``block_chess``)."""
    path = folder / "pypy3"
    block = "sys.modules['chess'] = None; " if block_chess else ""
    path.write_text('#!/bin/sh\n'
                    'if [ "$1" = "-S" ]; then echo "%s %s"; exit %d; fi\n'
                    'exec "%s" -c "import runpy, sys; %ssys.argv = sys.argv[1:]; '
                    'runpy.run_path(sys.argv[0], run_name=\'__main__\')" "$@"\n'
                    % (name, version, status, sys.executable, block))
    path.chmod(0o755)
    return str(path)


def environment(path, **variables):
    env = {key: value for key, value in os.environ.items() if key not in (interpreter.VARIABLE, interpreter.HANDOVER)}
    env["PATH"] = str(path)
    env.update(variables)
    return env


def run_pruner(env, *argv, stdin="uci\nisready\nquit\n"):
    """``pruner ARGV`` as the console script runs it; the whole input is written at once, before
    any switch, so lines that wait in the pipe across the exec are tested too."""
    return subprocess.run([sys.executable, "-c", CONSOLE_SCRIPT] + list(argv), cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)


def info(run):
    found = INFO.search(run.stdout)
    assert found, run.stdout + run.stderr
    return found.groups()


# -- choosing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ("auto", ("auto", None)), ("PyPy", ("pypy", None)), (" cpython ", ("cpython", None)),
    ("/opt/pypy/bin/pypy3", ("pypy", "/opt/pypy/bin/pypy3")), ("./pypy3", ("pypy", "./pypy3"))])
def test_parse_values(value, expected):
    request = interpreter.parse(value, "here")
    assert (request.choice, request.pypy) == expected


@pytest.mark.parametrize("value", ["", "pypy2", "python", "jython"])
def test_parse_refuses_other_values_naming_the_accepted_ones(value):
    with pytest.raises(ValueError, match="^--interpreter x: not one of auto, pypy, cpython or the path"):
        interpreter.parse(value, "--interpreter x")


def test_the_flag_goes_before_the_command_and_wins_over_the_variable():
    assert interpreter.split_flag(["--interpreter", "cpython", "bench", "3"]) == ("cpython", ["bench", "3"])
    assert interpreter.split_flag(["--interpreter=pypy"]) == ("pypy", [])
    assert interpreter.split_flag(["bench", "--interpreter", "pypy"]) == (None, ["bench", "--interpreter", "pypy"])
    with pytest.raises(ValueError, match="needs a value"):
        interpreter.split_flag(["--interpreter"])
    env = {interpreter.VARIABLE: "cpython"}
    assert interpreter.requested("pypy", env, interpreter.COMMAND_DEFAULT)[0].choice == "pypy"
    request, warning = interpreter.requested(None, env, interpreter.COMMAND_DEFAULT)
    assert request.choice == "cpython" and request.source == "PRUNER_INTERPRETER=cpython" and warning == ""
    request, warning = interpreter.requested(None, {interpreter.VARIABLE: "fast"}, interpreter.COMMAND_DEFAULT)
    assert request == interpreter.COMMAND_DEFAULT and "PRUNER_INTERPRETER=fast: not one of" in warning and "using auto" in warning


def test_a_bad_flag_is_a_usage_error(capsys):
    assert command_line.main(["--interpreter", "fastest", "bench", "1"]) == 2
    assert capsys.readouterr().err == \
        "pruner: --interpreter fastest: not one of auto, pypy, cpython or the path of a PyPy executable\n"


# -- the probe --------------------------------------------------------------------------------

@pytest.mark.skipif(not POSIX, reason="shell-script stand-ins")
@pytest.mark.parametrize("kwargs, problem", [
    ({"version": "3 8 13"}, "is PyPy 3.8.13, older than 3.9"),
    ({"name": "cpython", "version": "3 11 7"}, "is cpython 3.11.7, not PyPy"),
    ({"status": 127}, "exited with status 127"),
    ({"version": "three"}, "not a Python version"),
])
def test_the_probe_turns_down_what_cannot_run_pruner(tmp_path, kwargs, problem):
    version, why = interpreter.probe(fake_pypy(tmp_path, **kwargs))
    assert version is None and problem in why


def test_the_probe_of_a_missing_file(tmp_path):
    version, why = interpreter.probe(str(tmp_path / "pypy3"))
    assert version is None and "cannot be run" in why


@pytest.mark.skipif(shutil.which("pypy3") is None, reason="no pypy3 installed")
def test_the_probe_of_the_real_pypy():
    version, why = interpreter.probe(shutil.which("pypy3"))
    assert why == "" and re.fullmatch(r"3\.\d+\.\d+", version)


# -- the switch, in this process (os.execve replaced) -----------------------------------------

@pytest.fixture
def execs(monkeypatch):
    calls = []
    monkeypatch.setattr(interpreter.platform, "python_implementation", lambda: "CPython")
    monkeypatch.setattr(interpreter.os, "execve", lambda path, argv, env: calls.append((path, argv, dict(env))))
    return calls


@pytest.mark.skipif(not POSIX, reason="shell-script stand-ins")
def test_auto_puts_pypy_in_place_of_this_process(execs, tmp_path):
    pypy = fake_pypy(tmp_path)
    env = {"PATH": str(tmp_path)}
    interpreter.start(None, ["bench", "3"], True, environ=env)
    [(path, argv, passed)] = execs
    assert path == pypy and argv == [pypy, interpreter.boot_file(), "bench", "3"]
    assert os.path.isfile(argv[1]) and argv[1].endswith(os.path.join("", "run_pruner.py"))
    assert passed[interpreter.HANDOVER] == "auto: " + pypy and passed["PYPY_GC_NURSERY"] == "4M"
    given = run_pruner_program.parameters(passed[interpreter.BOOT])
    assert given["packages"] == interpreter.package_locations() and given["folders"] == interpreter.package_folders()
    assert given["fallback"] == sys.executable and given["failed"] == "auto: %s could not run Pruner" % pypy


@pytest.mark.skipif(not POSIX, reason="shell-script stand-ins")
@pytest.mark.parametrize("flag, variable, moves, default, reason", [
    ("cpython", None, True, interpreter.COMMAND_DEFAULT, "--interpreter cpython: no switch"),
    (None, "cpython", True, interpreter.COMMAND_DEFAULT, "PRUNER_INTERPRETER=cpython: no switch"),
    (None, None, False, interpreter.COMMAND_DEFAULT, "auto: pruner analyse stays"),
    (None, None, True, interpreter.MODULE_DEFAULT, "python -m pruner: no switch"),
])
def test_no_switch_when_not_asked(execs, tmp_path, flag, variable, moves, default, reason):
    fake_pypy(tmp_path)
    env = {"PATH": str(tmp_path)}
    if variable:
        env[interpreter.VARIABLE] = variable
    interpreter.start(flag, [], moves, default, environ=env)
    assert execs == [] and interpreter.reason() == reason


def test_no_pypy_on_the_path_is_quiet(execs, tmp_path, capsys):
    interpreter.start(None, [], True, environ={"PATH": str(tmp_path)})
    assert execs == [] and interpreter.reason() == "auto: no pypy3 on the PATH"
    assert capsys.readouterr().err == ""


def test_pypy_asked_for_but_absent_says_so(execs, tmp_path, capsys):
    interpreter.start("pypy", [], True, environ={"PATH": str(tmp_path)})
    assert execs == [] and interpreter.reason() == "--interpreter pypy: no pypy3 on the PATH"
    assert capsys.readouterr().err == "pruner: --interpreter pypy: no pypy3 on the PATH; running on CPython\n"


@pytest.mark.skipif(not POSIX, reason="shell-script stand-ins")
def test_a_pypy_too_old_is_left_alone_with_a_warning(execs, tmp_path, capsys):
    pypy = fake_pypy(tmp_path, version="3 8 13")
    interpreter.start(None, [], True, environ={"PATH": str(tmp_path)})
    assert execs == [] and interpreter.reason() == "auto: %s is PyPy 3.8.13, older than 3.9" % pypy
    assert "older than 3.9; running on CPython" in capsys.readouterr().err


def test_windows_stays(execs, tmp_path, monkeypatch):
    monkeypatch.setattr(interpreter.os, "name", "nt")
    interpreter.start(None, [], True, environ={"PATH": str(tmp_path)})
    assert execs == [] and interpreter.reason().startswith("auto: no switch on Windows")


@pytest.mark.skipif(not POSIX, reason="shell-script stand-ins")
def test_a_failed_exec_runs_on_unchanged(execs, tmp_path, monkeypatch):
    def refuse(path, argv, env):
        raise OSError(8, "Exec format error")
    monkeypatch.setattr(interpreter.os, "execve", refuse)
    pypy = fake_pypy(tmp_path)
    env = {"PATH": str(tmp_path)}
    interpreter.start(None, [], True, environ=env)
    assert env == {"PATH": str(tmp_path)}  # the variables set for PyPy are taken back (PRUNER_BOOT too)
    assert interpreter.reason() == "auto: %s cannot be run (Exec format error)" % pypy


def test_the_new_process_reads_and_removes_the_handover(execs, capsys):
    env = {interpreter.HANDOVER: "auto: /usr/bin/pypy3", interpreter.VARIABLE: "pypy"}
    interpreter.start(None, [], True, environ=env)
    assert execs == [] and interpreter.HANDOVER not in env and interpreter.reason() == "auto: /usr/bin/pypy3"
    assert capsys.readouterr().err == ""
    env = {interpreter.HANDOVER: interpreter.FELL_BACK + "auto: /x/pypy3 could not run Pruner (ImportError: no)"}
    interpreter.start(None, [], True, environ=env)
    assert execs == [] and interpreter.reason() == "auto: /x/pypy3 could not run Pruner (ImportError: no)"
    assert capsys.readouterr().err == "pruner: auto: /x/pypy3 could not run Pruner (ImportError: no); running on CPython\n"


def test_started_on_pypy_stays(monkeypatch, tmp_path):
    monkeypatch.setattr(interpreter.platform, "python_implementation", lambda: "PyPy")
    interpreter.start(None, [], True, environ={"PATH": str(tmp_path)})
    assert interpreter.reason() == "started on PyPy"


def test_the_bootstrap_runs_pruner_on_this_interpreter():
    """What PyPy runs after the exec, run here by the interpreter of the test (PyPy on the PyPy
    leg): this installation's folders on the path, then ``pruner --version``."""
    env = dict(os.environ, **{interpreter.HANDOVER: "auto: here"})
    env.pop(interpreter.VARIABLE, None)
    command = interpreter.boot_command(sys.executable, ["--version"], env, None)
    run = subprocess.run(command, cwd="/", env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "Pruner %s (%s %s; auto: here)" % (
        command_line.engine.__version__, platform.python_implementation(), platform.python_version())


# -- the switch, in real processes ------------------------------------------------------------

@needs_cpython
def test_fallback_to_cpython_when_pypy_cannot_import_pruner(tmp_path):
    pypy = fake_pypy(tmp_path, block_chess=True)
    run = run_pruner(environment(tmp_path))
    assert run.returncode == 0 and "uciok" in run.stdout and "readyok" in run.stdout, run.stderr
    implementation, _, why = info(run)
    assert implementation == "CPython"
    assert why == "auto: %s could not run Pruner (ModuleNotFoundError: import of chess halted; None in sys.modules)" \
        % pypy
    assert run.stderr == "pruner: %s; running on CPython\n" % why


@needs_cpython
def test_pruner_stays_on_cpython_when_asked(tmp_path):
    fake_pypy(tmp_path)
    run = run_pruner(environment(tmp_path, PRUNER_INTERPRETER="cpython"))
    assert info(run) == ("CPython", platform.python_version(), "PRUNER_INTERPRETER=cpython: no switch")
    run = run_pruner(environment(tmp_path), "--interpreter", "cpython", "--version", stdin="")
    assert run.stdout.startswith("Pruner %s (CPython" % command_line.engine.__version__)
    assert run.stdout.splitlines()[0].endswith("; --interpreter cpython: no switch)")


@needs_cpython
def test_python_m_protocol_stays_on_the_python_named(tmp_path):
    fake_pypy(tmp_path)
    run = subprocess.run([sys.executable, "-m", "pruner"], cwd=ROOT, env=environment(tmp_path),
                         input="uci\nquit\n", capture_output=True, text=True, timeout=60)
    assert info(run) == ("CPython", platform.python_version(), "python -m pruner: no switch")


REAL_PYPY = shutil.which("pypy3")


@needs_cpython
@pytest.mark.skipif(REAL_PYPY is None, reason="no pypy3 installed (CI installs it)")
def test_pruner_runs_on_the_real_pypy_in_the_same_process():
    """The same process id (``/proc``), the GUI's pipes answered, Ctrl-C and SIGTERM as on CPython."""
    env = environment(os.path.dirname(REAL_PYPY))
    env.pop("PYPY_GC_NURSERY", None)
    process = subprocess.Popen([sys.executable, "-c", CONSOLE_SCRIPT], cwd=ROOT, env=env, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        process.stdin.write("uci\nisready\nposition startpos moves e2e4\ngo depth 3\n")  # before the switch
        process.stdin.flush()
        lines = []
        while not lines or not lines[-1].startswith("bestmove"):
            line = process.stdout.readline()
            assert line, "the engine ended: %r %s" % (lines, process.stderr.read())
            lines.append(line.strip())
        found = INFO.search("\n".join(lines))
        assert found and found.group(1) == "PyPy" and found.group(3) == "auto: " + REAL_PYPY, lines
        board = chess.Board()
        board.push_uci("e2e4")
        assert "readyok" in lines and chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
        if os.path.exists("/proc/%d/exe" % process.pid):
            assert "pypy" in os.path.basename(os.path.realpath("/proc/%d/exe" % process.pid))
            with open("/proc/%d/environ" % process.pid, "rb") as handle:
                variables = dict(item.split(b"=", 1) for item in handle.read().split(b"\0") if b"=" in item)
            assert variables.get(b"PYPY_GC_NURSERY") == b"4M"  # set once, no second restart
        process.stdin.write("go infinite\n")
        process.stdin.flush()
        assert process.stdout.readline().startswith("info")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143  # as on CPython: docs/uci.md
        assert process.stderr.read() == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@needs_cpython
@pytest.mark.skipif(REAL_PYPY is None, reason="no pypy3 installed (CI installs it)")
def test_pruner_bench_and_version_on_the_real_pypy():
    env = environment(os.path.dirname(REAL_PYPY))
    bench = run_pruner(env, "bench", "2", stdin="")
    assert bench.returncode == 0 and re.search(r"^Interpreter: PyPy 3\.\d+", bench.stdout, re.M), bench.stderr
    version = run_pruner(env, "--version", stdin="")
    assert re.fullmatch(r"Pruner \S+ \(PyPy 3\.\d+\.\d+; auto: %s\)\nNNUE evaluation using .*\n" % re.escape(REAL_PYPY),
                        version.stdout)
    analyse = run_pruner(env, "analyse", "--depth", "1", "startpos", stdin="")
    assert analyse.returncode == 0, analyse.stderr  # auto leaves analyse on CPython


@needs_cpython
@pytest.mark.skipif(REAL_PYPY is None or not os.path.exists("/proc/self/comm"),
                    reason="needs pypy3 and Linux's /proc")
def test_the_engine_on_pypy_is_found_by_the_name_pruner():
    """``ps``/``top`` show the engine as ``pruner`` (issue 54, item 2): its command line names
    the program protocol/run_pruner.py, not a ``-c`` program, and its name is ``pruner``."""
    env = environment(os.path.dirname(REAL_PYPY))
    process = subprocess.Popen([sys.executable, "-c", CONSOLE_SCRIPT, "uci"], cwd=ROOT, env=env, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        lines = uci_lines(process)
        assert INFO.search("\n".join(lines)).group(1) == "PyPy"  # the same process, now PyPy
        with open("/proc/%d/cmdline" % process.pid, "rb") as handle:
            argv = handle.read().decode().split("\0")[:-1]
        with open("/proc/%d/comm" % process.pid) as handle:
            comm = handle.read().strip()
        assert comm == "pruner"
        assert argv == [REAL_PYPY, interpreter.boot_file(), "uci"] and "-c" not in argv
        assert os.path.basename(argv[1]) == "run_pruner.py" and len(" ".join(argv)) < 300
        process.stdin.close()  # end of input ends the engine
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()



# -- PyPy's bytecode, kept in the user's cache folder (issue 54, item 1) ------------------------

def test_the_bytecode_cache_is_the_users_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    environ = {"XDG_CACHE_HOME": str(tmp_path)}
    folder = run_pruner_program.use_bytecode_cache(environ)
    assert folder == str(tmp_path / "pruner" / "pycache") and os.path.isdir(folder)
    assert sys.pycache_prefix == folder and not sys.dont_write_bytecode  # written there, never beside the sources
    assert environ["PYTHONPYCACHEPREFIX"] == folder  # the helper processes of Threads read it too


def test_a_prefix_of_the_users_own_or_no_cache_folder_leaves_bytecode_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    theirs = {"PYTHONPYCACHEPREFIX": str(tmp_path / "mine"), "XDG_CACHE_HOME": str(tmp_path)}
    assert run_pruner_program.use_bytecode_cache(theirs) is None
    assert run_pruner_program.use_bytecode_cache({"HOME": "relative"}) is None
    (tmp_path / "file").write_text("")  # a cache folder that cannot be made
    assert run_pruner_program.use_bytecode_cache({"XDG_CACHE_HOME": str(tmp_path / "file")}) is None
    assert sys.pycache_prefix is None and sys.dont_write_bytecode
    assert not (tmp_path / "pruner").exists()


@needs_cpython
def test_the_switched_engine_keeps_its_bytecode_in_the_cache_even_with_dontwritebytecode(tmp_path):
    """With ``PYTHONDONTWRITEBYTECODE`` set PyPy compiled python-chess and Pruner from source at
    every start (830 ms to readyok against 320 ms): the switched process keeps it in the cache."""
    fake_pypy(tmp_path)  # runs run_pruner.py on this interpreter, as the real switch does on PyPy
    cache = tmp_path / "cache"
    env = environment(tmp_path, XDG_CACHE_HOME=str(cache), PYTHONDONTWRITEBYTECODE="1")
    run = run_pruner(env)
    assert run.returncode == 0 and "readyok" in run.stdout, run.stderr
    prefix = cache / "pruner" / "pycache"
    tag = sys.implementation.cache_tag
    source = os.path.join(os.path.dirname(chess.__file__), "__init__.py")
    compiled = [os.path.join(str(prefix) + os.path.dirname(path), "%s.%s.pyc" % (os.path.basename(path)[:-3], tag))
                for path in (os.path.realpath(source), os.path.join(ROOT, "engine", "evaluate.py"))]
    for path in compiled:
        assert os.path.isfile(path), (path, sorted(str(p) for p in prefix.rglob("*.pyc"))[:20])
    before = [os.stat(path).st_mtime_ns for path in compiled]
    again = run_pruner(env)
    assert again.returncode == 0 and "readyok" in again.stdout, again.stderr
    assert [os.stat(path).st_mtime_ns for path in compiled] == before  # read, not compiled again
