"""pruner.signals: a signal ignored since the process started (``nohup``) is seen as ignored on
every interpreter (PyPy 3.9's ``signal.getsignal`` says SIG_DFL for it)."""

import os
import signal
import subprocess
import sys

import pytest

from pruner.signals import is_ignored

PROGRAM = "import signal; from pruner.signals import is_ignored; print(is_ignored(signal.SIGHUP))"


def _answer(ignore: bool) -> str:
    def start() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_IGN if ignore else signal.SIG_DFL)
    done = subprocess.run([sys.executable, "-c", PROGRAM], preexec_fn=start, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or os.name != "posix", reason="POSIX signals")
def test_a_sighup_ignored_since_the_start_is_seen_as_ignored():
    assert _answer(True) == "True"
    assert _answer(False) == "False"


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_python_handler_is_not_ignored_and_sig_ign_is():
    previous = signal.signal(signal.SIGHUP, lambda *_: None)
    try:
        assert not is_ignored(signal.SIGHUP)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        assert is_ignored(signal.SIGHUP)
    finally:
        signal.signal(signal.SIGHUP, previous)
