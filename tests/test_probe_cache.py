"""protocol/probe_cache.py: ``pypy3``'s probe answered from the user's cache while PyPy's files
are unchanged, probed again when they change, and probed as before when the cache cannot be
written (issue 54, item 1)."""

import os
import sys

import pytest

from pruner import interpreter, probe_cache

pytestmark = pytest.mark.skipif(os.name != "posix", reason="shell-script stand-ins")


def counting_pypy(folder, version="3 9 16"):
    """A ``pypy3`` that answers the probe as PyPy ``version`` with a standard library folder of
    its own, and notes each probe in ``probes``."""
    library = folder / "lib-pypy"
    library.mkdir(exist_ok=True)
    path = folder / "pypy3"
    path.write_text('#!/bin/sh\necho probed >> "%s"\necho "pypy %s"\necho "%s"\n'
                    % (folder / "probes", version, library))
    path.chmod(0o755)
    return str(path), library


def probes(folder):
    return len((folder / "probes").read_text().splitlines()) if (folder / "probes").exists() else 0


@pytest.fixture
def env(tmp_path):
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path / "home")}


def test_the_second_start_does_not_probe(tmp_path, env):
    pypy, _ = counting_pypy(tmp_path)
    assert interpreter.cached_probe(pypy, env) == ("3.9.16", "")
    assert interpreter.cached_probe(pypy, env) == ("3.9.16", "")
    assert probes(tmp_path) == 1
    assert os.path.isfile(os.path.join(env["XDG_CACHE_HOME"], "pruner", "pypy-probe"))


def test_a_changed_pypy_is_probed_again(tmp_path, env):
    pypy, library = counting_pypy(tmp_path)
    interpreter.cached_probe(pypy, env)
    pypy, _ = counting_pypy(tmp_path, version="3 10 14")  # rewritten: another size, mtime, ctime
    assert interpreter.cached_probe(pypy, env) == ("3.10.14", "")
    (library / "new.py").write_text("")  # its standard library changed (an upgrade)
    assert interpreter.cached_probe(pypy, env) == ("3.10.14", "")
    assert probes(tmp_path) == 3


def test_a_pypy_that_cannot_run_pruner_is_not_kept(tmp_path, env):
    pypy, _ = counting_pypy(tmp_path, version="3 8 13")
    for _ in range(2):
        version, why = interpreter.cached_probe(pypy, env)
        assert version is None and "older than 3.9" in why
    assert probes(tmp_path) == 2


def test_a_cache_that_cannot_be_written_probes_each_time(tmp_path):
    pypy, _ = counting_pypy(tmp_path)
    (tmp_path / "file").write_text("not a folder")
    for env in ({"XDG_CACHE_HOME": str(tmp_path / "file")}, {}):  # a file in the way; no HOME at all
        assert interpreter.cached_probe(pypy, env) == ("3.9.16", "")
        assert interpreter.cached_probe(pypy, env) == ("3.9.16", "")
    assert probes(tmp_path) == 4


def test_the_cache_folder_follows_xdg(tmp_path):
    assert probe_cache.cache_path({"XDG_CACHE_HOME": "/c", "HOME": "/h"}) == os.path.join("/c", "pruner", "pypy-probe")
    assert probe_cache.cache_path({"XDG_CACHE_HOME": "relative", "HOME": "/h"}) == \
        os.path.join("/h", ".cache", "pruner", "pypy-probe")
    assert probe_cache.cache_path({}) is None


def test_a_damaged_cache_file_is_probed_over(tmp_path, env):
    pypy, _ = counting_pypy(tmp_path)
    path = probe_cache.cache_path(env)
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as handle:
        handle.write(b"\xff\xfe garbage\t1\n%s\tx\n" % os.path.realpath(pypy).encode())
    assert interpreter.cached_probe(pypy, env) == ("3.9.16", "")
    assert interpreter.cached_probe(pypy, env) == ("3.9.16", "")
    assert probes(tmp_path) == 1


def test_start_uses_the_kept_answer(tmp_path, env, monkeypatch):
    """``pruner``'s start probes once; the next start execs PyPy without probing."""
    monkeypatch.setattr(interpreter, "_reason", interpreter.reason())
    monkeypatch.setattr(interpreter.platform, "python_implementation", lambda: "CPython")
    execs = []
    monkeypatch.setattr(interpreter.os, "execve", lambda path, argv, environ: execs.append(path))
    pypy, _ = counting_pypy(tmp_path)
    for _ in range(2):
        interpreter.start(None, [], True, environ=dict(env, PATH=str(tmp_path)))
    assert execs == [pypy, pypy] and probes(tmp_path) == 1
