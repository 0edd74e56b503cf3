"""Shared fixtures: how to start the engine under test.

The engine runs with the interpreter running pytest (``sys.executable -m pruner``) from the
repository root, so CPython and PyPy test runs each test their own interpreter.
"""

import os
import sys
from typing import List

import pytest

from paths import ROOT as REPO_ROOT


def pytest_configure(config):
    """Stop before any test when the ``pruner`` this Python imports is another checkout's: with
    one import name (pyproject's package-dir) the working directory no longer provides it, so
    the tests would test the installed copy (``pip install -e .`` here makes it this one)."""
    import pruner.engine
    where = os.path.dirname(os.path.dirname(os.path.abspath(pruner.engine.__file__)))
    if os.path.realpath(where) != os.path.realpath(REPO_ROOT) and not os.environ.get("PRUNER_TEST_INSTALLED"):
        pytest.exit("the pruner imported here is in %s, not this checkout (%s): pip install -e %s, "
                    "or set PRUNER_TEST_INSTALLED=1 to test that one" % (where, REPO_ROOT, REPO_ROOT), 2)

ENGINE_COMMAND: List[str] = [sys.executable, "-m", "pruner"]
"""Command line of the UCI engine under test."""


@pytest.fixture
def engine_command() -> List[str]:
    """The engine's command line (a fresh list each time)."""
    return list(ENGINE_COMMAND)


@pytest.fixture
def repo_root() -> str:
    """Repository root: the working directory of engine processes."""
    return REPO_ROOT


@pytest.fixture
def uci_after_handshake(engine_command, repo_root):
    """The engine process driven with pexpect (tests/uci_process.py), after ``uci``/``uciok``;
    killed at the end of the test."""
    from uci_process import Uci
    process = Uci(engine_command, repo_root)
    process.handshake()
    yield process
    process.close()


@pytest.fixture
def classical_evaluation(monkeypatch):
    """The classical evaluation alone as the engine's own for one test (the one the tuner fits
    and ``eval``'s terms describe), whether or not a net ships: ``pruner.engine.evaluate.DEFAULT``,
    which the module's functions and a ``Position`` made without an evaluator use."""
    from pruner.engine import evaluate
    evaluator = evaluate.Evaluator()
    monkeypatch.setattr(evaluate, "DEFAULT", evaluator)
    yield evaluator
