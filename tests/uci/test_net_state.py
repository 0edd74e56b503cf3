"""The net's state is visible in a real engine process (issue 51, item 2): a shipped net that
cannot be used (a damaged or unreadable copy, through ``PRUNER_SHIPPED_NET``) is named with the
reason in an ``info string`` before ``uciok``, in one line on stderr, in ``eval`` and in
``pruner --version``; a good one is named with its checksum in one ``info string``."""

import hashlib
import os
import subprocess

import pytest

from pruner.engine import nnue
from net_helpers import damaged_copies, shipped_bytes

KINDS = ("truncated", "zeroed", "random", "a folder in its place", "unreadable", "missing")


def run_engine(command, cwd, net, *argv, stdin=""):
    env = dict(os.environ, **{nnue.NET_VARIABLE: net})
    return subprocess.run(list(command) + list(argv), input=stdin, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("kind", KINDS)
def test_an_unusable_shipped_net_is_named_after_uci_on_stderr_in_eval_and_in_version(
        tmp_path, engine_command, repo_root, kind):
    path, reason = damaged_copies(tmp_path)[kind]
    said = "classical evaluation, because the shipped net cannot be used: %s: " % path
    run = run_engine(engine_command, repo_root, path, stdin="uci\nuci\neval\nquit\n")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    handshake = lines[:lines.index("uciok")]
    named = [line for line in handshake if line.startswith("info string " + said)]
    assert len(named) == 1 and reason in named[0], handshake
    assert [line for line in run.stderr.splitlines() if said in line] == ["pruner: " + named[0][12:]]  # once
    assert "NNUE                   none: " + named[0][12:] in lines  # eval
    version = run_engine(engine_command, repo_root, path, "--version")
    assert version.returncode == 0 and version.stdout.splitlines()[1:] == [named[0][12:]], version.stdout


def test_a_good_net_is_named_with_its_checksum_in_one_info_string_and_nothing_on_stderr(
        tmp_path, engine_command, repo_root):
    copy = tmp_path / "copy.nnue"
    data = shipped_bytes()
    copy.write_bytes(data)
    run = run_engine(engine_command, repo_root, str(copy), stdin="uci\nquit\n")
    lines = run.stdout.splitlines()
    named = [line for line in lines[:lines.index("uciok")] if "NNUE" in line or "evaluation" in line]
    assert named == ["info string NNUE evaluation using copy.nnue sha256 %s (768->%dx2->1, added to the "
                     "classical evaluation)" % (hashlib.sha256(data).hexdigest()[:12], nnue.from_bytes(data).hidden)]
    assert run.stderr == ""
    version = run_engine(engine_command, repo_root, str(copy), "--version")
    assert version.stdout.splitlines()[1] == named[0][len("info string "):]
