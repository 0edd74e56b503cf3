"""PyPy specifics: the ``pruner`` command restarts itself once with ``PYPY_GC_NURSERY`` set
(protocol/__main__.py: a 4 MB nursery measured 38% faster than PyPy's own choice here), and PyPy
searches the same tree as CPython."""

import os
import platform
import subprocess
import sys

import pytest
from uci_process import uci_lines

from pruner import __main__ as command_line
from pruner import interpreter, run_pruner

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def execs(monkeypatch):
    calls = []
    monkeypatch.setattr(command_line.platform, "python_implementation", lambda: "PyPy")
    monkeypatch.setattr(command_line.os, "execv", lambda path, argv: calls.append((path, argv)))
    monkeypatch.setattr(command_line.sys, "argv", ["pruner", "bench", "3"])
    monkeypatch.delenv("PYPY_GC_NURSERY", raising=False)
    return calls


def test_pypy_without_the_variable_runs_the_same_command_again_with_it(execs):
    command_line.restart_with_pypy_nursery()
    [(path, argv)] = execs
    assert path == sys.executable and argv == [sys.executable, interpreter.boot_file(), "bench", "3"]
    # the packages by their folders (an editable install has no pruner/), no fallback
    given = run_pruner.parameters(os.environ.pop(interpreter.BOOT))
    assert given["packages"] == interpreter.package_locations() and given["fallback"] is None
    assert os.environ["PYPY_GC_NURSERY"] == command_line.PYPY_NURSERY == "4M"


@pytest.mark.parametrize("value", ["", "64M"])
def test_a_nursery_the_user_set_is_kept(execs, monkeypatch, value):
    monkeypatch.setenv("PYPY_GC_NURSERY", value)
    command_line.restart_with_pypy_nursery()
    assert execs == [] and os.environ["PYPY_GC_NURSERY"] == value


def test_cpython_never_restarts(execs, monkeypatch):
    monkeypatch.setattr(command_line.platform, "python_implementation", lambda: "CPython")
    command_line.restart_with_pypy_nursery()
    assert execs == [] and "PYPY_GC_NURSERY" not in os.environ


def test_a_failed_restart_runs_on_unchanged(execs, monkeypatch):
    def refuse(path, argv):
        raise OSError("exec refused")
    monkeypatch.setattr(command_line.os, "execv", refuse)
    command_line.restart_with_pypy_nursery()
    assert "PYPY_GC_NURSERY" not in os.environ and interpreter.BOOT not in os.environ


@pytest.mark.skipif(platform.python_implementation() != "PyPy" or not os.path.exists("/proc/self/environ"),
                    reason="the restart happens on PyPy; its environment is read from Linux's /proc")
@pytest.mark.parametrize("given,expected", [(None, "4M"), ("", ""), ("8M", "8M")])
def test_the_engine_process_runs_with_the_nursery(given, expected):
    env = dict(os.environ)
    env.pop("PYPY_GC_NURSERY", None)
    if given is not None:
        env["PYPY_GC_NURSERY"] = given
    process = subprocess.Popen([sys.executable, "-m", "pruner"], cwd=ROOT, env=env, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        lines = uci_lines(process)
        assert lines[0].startswith("id name Pruner")
        with open("/proc/%d/environ" % process.pid, "rb") as handle:  # same process id after the exec
            variables = dict(item.split(b"=", 1) for item in handle.read().split(b"\0") if b"=" in item)
        assert variables.get(b"PYPY_GC_NURSERY") == expected.encode()
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()


def cpython_with_chess():
    """The first ``python3`` on the PATH that is CPython and imports python-chess, or None."""
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, "python3")
        if not os.access(candidate, os.X_OK):
            continue
        probe = subprocess.run([candidate, "-c", "import platform, chess; print(platform.python_implementation())"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == "CPython":
            return candidate
    return None


@pytest.mark.skipif(platform.python_implementation() != "PyPy", reason="compares PyPy with CPython")
def test_pypy_searches_the_same_nodes_as_cpython():
    """Why the PyPy leg may leave the exhaustive sweeps to CPython: the same tree on both."""
    from pruner.engine import bench
    cpython = cpython_with_chess()
    if cpython is None:
        pytest.skip("no CPython python3 with python-chess on the PATH")
    output = subprocess.run([cpython, "-m", "pruner", "bench", "4"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout
    nodes = int(output.split("Nodes searched:")[1].split()[0])
    assert nodes == bench.run(4).nodes
