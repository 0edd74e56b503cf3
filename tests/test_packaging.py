"""The wheel installs one import name, ``pruner`` (issue 53, item 1), and runs where a user's
engine.py and protocol.py would shadow a generic name. Before the rename these fail: the wheel's
top level was engine, protocol, matchlib, tunelib and nnuelib, and there was no ``pruner``."""

import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

from paths import ROOT

pytestmark = pytest.mark.one_interpreter

SHADOWS = {"engine.py": "raise ImportError('a user engine.py was imported')\n",
           "protocol.py": "raise ImportError('a user protocol.py was imported')\n"}
"""A user's files beside the command: importing either is the failure they report."""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """``pip wheel . --no-deps`` of this checkout: the wheel's path."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    ROOT], check=True, capture_output=True, timeout=300)
    (found,) = sorted(out.glob("*.whl"))
    return found


def test_the_wheels_only_top_level_name_is_pruner(wheel):
    with zipfile.ZipFile(str(wheel)) as archive:
        names = archive.namelist()
        (top_level,) = [name for name in names if name.endswith(".dist-info/top_level.txt")]
        assert archive.read(top_level).decode().split() == ["pruner"]
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert tops == {"pruner"}, tops
    assert "pruner/engine/pruner.nnue" in names and "pruner/engine/data/openings.tsv.gz" in names
    assert "pruner/__main__.py" in names and "pruner/lab/matchlib/runner.py" in names


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh venv with the wheel installed offline (python-chess from this environment's
    site-packages, so nothing is downloaded): its Python."""
    where = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=300)
    python = str(where / "bin" / "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    with zipfile.ZipFile(str(wheel)) as archive:  # a wheel is a zip of site-packages files
        archive.extractall(purelib)
    import chess
    with open(os.path.join(purelib, "outer.pth"), "w") as handle:  # python-chess, not Pruner, from here
        handle.write(os.path.dirname(os.path.dirname(os.path.abspath(chess.__file__))) + "\n")
    return python


def shadowed_dir(tmp_path):
    for name, text in SHADOWS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_python_m_pruner_answers_uciok_beside_a_users_engine_and_protocol(venv, tmp_path):
    run = subprocess.run([venv, "-m", "pruner"], input="uci\nquit\n", cwd=str(shadowed_dir(tmp_path)),
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PRUNER_INTERPRETER="cpython"))
    assert "uciok" in run.stdout.splitlines(), run.stdout + run.stderr


def test_from_pruner_import_analyse_beside_a_users_engine_and_protocol(venv, tmp_path):
    code = ("import chess, pruner; from pruner import analyse, Analyser; "
            "print(pruner.__file__); print(analyse(chess.Board(), depth=1).best_move)")
    run = subprocess.run([venv, "-c", code], cwd=str(shadowed_dir(tmp_path)), capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    where, move = run.stdout.split()
    assert "site-packages" in where and move in {m.uci() for m in __import__("chess").Board().legal_moves}


def test_the_analysis_api_is_not_imported_at_start_up(venv, tmp_path):
    """``pruner`` answers ``uci`` without the analysis API (start-up time, issue 54)."""
    code = "import sys, pruner.__main__; print('pruner.engine.analysis' in sys.modules)"
    run = subprocess.run([venv, "-c", code], cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "False", run.stdout + run.stderr


def test_the_pypy_bootstrap_runs_a_normal_install(venv, tmp_path):
    """The hand-over's bootstrap made by the installed copy runs it, beside a user's files."""
    code = ("import os, sys; from pruner import interpreter; env = {}; "
            "command = interpreter.boot_command(sys.executable, ['--version'], env, None); "
            "print(command[1]); print(env[interpreter.BOOT])")
    made = subprocess.run([venv, "-c", code], cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    program, parameters = made.stdout.splitlines()
    assert "site-packages" in program and os.path.basename(program) == "run_pruner.py"  # the installed copy
    run = subprocess.run([venv, program, "--version"], cwd=str(shadowed_dir(tmp_path)), capture_output=True,
                         text=True, timeout=120,
                         env=dict(os.environ, PRUNER_INTERPRETER="cpython", PRUNER_BOOT=parameters))
    assert run.returncode == 0 and run.stdout.startswith("Pruner "), run.stdout + run.stderr


def _checkout_copy(destination: pathlib.Path, version: str) -> pathlib.Path:
    """The packages of this checkout copied to ``destination``, its version string changed, so
    a run can tell which copy it ran."""
    for folder in ("protocol", "engine", os.path.join("scripts", "lab")):
        shutil.copytree(os.path.join(ROOT, folder), str(destination / folder),
                        ignore=shutil.ignore_patterns("__pycache__"))
    init = destination / "engine" / "__init__.py"
    text = init.read_text()
    start = text.index('__version__ = "') + len('__version__ = "')
    end = text.index('"', start)
    init.write_text(text[:end] + "+" + version + text[end:])
    return destination


def test_python_m_protocol_in_a_checkout_runs_that_checkouts_code(tmp_path):
    """The match lab's baselines (``--dir``, ``cwd=``) run ``python -m protocol`` in another
    checkout's root: that checkout's code runs, not the installed one, which ``python -m
    pruner`` would run there whatever the working directory."""
    copy = _checkout_copy(tmp_path / "base", "baseline")
    environ = dict(os.environ, PRUNER_INTERPRETER="cpython")
    ran = subprocess.run([sys.executable, "-m", "protocol", "--version"], cwd=str(copy), env=environ,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert "+baseline" in ran.stdout.splitlines()[0]
    uci = subprocess.run([sys.executable, "-m", "protocol"], cwd=str(copy), env=environ, input="uci\nquit\n",
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert "id name Pruner" in uci.stdout and "+baseline" in uci.stdout, uci.stdout + uci.stderr
    installed = subprocess.run([sys.executable, "-m", "pruner", "--version"], cwd=str(copy), env=environ,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert installed.returncode == 0 and "+baseline" not in installed.stdout
