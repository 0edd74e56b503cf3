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


@pytest.fixture
def classical_evaluation(monkeypatch):
    """The classical evaluation alone as the engine's own for one test (the one the tuner fits
    and ``eval``'s terms describe), whether or not a net ships: ``engine.evaluate.DEFAULT``,
    which the module's functions and a ``Position`` made without an evaluator use."""
    from engine import evaluate
    evaluator = evaluate.Evaluator()
    monkeypatch.setattr(evaluate, "DEFAULT", evaluator)
    yield evaluator
