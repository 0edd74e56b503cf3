"""Shared fixtures: how to start the engine under test.

The engine runs with the interpreter running pytest (``sys.executable -m protocol``) from the
repository root, so CPython and PyPy test runs each test their own interpreter.
"""

import sys
from typing import List

import pytest

from paths import ROOT as REPO_ROOT

ENGINE_COMMAND: List[str] = [sys.executable, "-m", "protocol"]
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


@pytest.fixture(autouse=True)
def _evaluation_restored():
    """Each test ends with the evaluation it began with: a search switches the process's net
    (``SearchParams.evalfile``; the limited levels use the classical evaluation alone), and a
    test that follows must not depend on which test ran before it on the same worker."""
    from engine import evaluate
    before = evaluate.net_in_use()
    yield
    evaluate.use_net(before)


@pytest.fixture
def classical_evaluation():
    """The classical evaluation alone for one test (the one the tuner fits and ``eval``'s terms
    describe), whether or not a net ships."""
    from engine import evaluate
    evaluate.use_net(None)
    yield
