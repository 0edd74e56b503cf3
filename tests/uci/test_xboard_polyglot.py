"""A real GUI adapter: xboard/WinBoard users run UCI engines through PolyGlot (Debian package
``polyglot``). The test takes the PolyGlot ini that docs/gui.md gives (the venv's ``pruner`` by
its full path; the ini it gave before, ``python3 -m pruner``, failed with ``child exited with
status 1`` for anyone who had installed into a venv), speaks the xboard protocol (CECP) to
PolyGlot and plays a 24-ply game: the engine plays White at depth 2, the test answers for
Black with seeded random legal moves; every engine move must be legal.
"""

import os
import random
import re
import shutil
import sys

import chess
import pexpect
import pexpect.popen_spawn
import pytest


def find_polyglot():
    """PolyGlot on PATH, or where Debian installs it (/usr/games is not always on PATH)."""
    found = shutil.which("polyglot")
    if found is None and os.access("/usr/games/polyglot", os.X_OK):
        found = "/usr/games/polyglot"
    return found


POLYGLOT = find_polyglot()

pytestmark = [pytest.mark.skipif(POLYGLOT is None, reason="polyglot is not installed (apt-get install polyglot)"),
              pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")]

PLIES = 24
VENV = "/path/to/pruner-venv"
"""The placeholder of docs/gui.md's ini: the venv Pruner was installed into."""


def documented_ini(repo_root) -> str:
    """The ``ini`` block of docs/gui.md's PolyGlot section."""
    with open(os.path.join(repo_root, "docs", "gui.md"), encoding="utf-8") as handle:
        section = handle.read().split("### xboard / WinBoard through PolyGlot", 1)[1].split("\n### ", 1)[0]
    return re.search(r"```ini\n(.*?)```", section, re.S).group(1)


def make_venv(directory) -> str:
    """A stand-in for the venv: ``bin/pruner`` as pip writes a console script (this Python in
    its first line, then ``pruner.__main__.main``), starting the Pruner installed for it."""
    venv = directory / "pruner-venv"
    (venv / "bin").mkdir(parents=True)
    script = venv / "bin" / "pruner"
    script.write_text("#!%s\nimport sys\nfrom pruner.__main__ import main\nsys.exit(main())\n" % sys.executable)
    script.chmod(0o755)
    return str(venv)


def test_the_documented_ini_names_the_venvs_pruner(repo_root):
    ini = documented_ini(repo_root)
    assert "EngineCommand = %s/bin/pruner\n" % VENV in ini and "EngineDir = %s\n" % VENV in ini
    assert "python3 -m pruner" not in ini


def test_a_game_through_polyglot_with_the_documented_ini(tmp_path, repo_root):
    ini = str(tmp_path / "pruner.ini")
    with open(ini, "w") as handle:
        handle.write(documented_ini(repo_root).replace(VENV, make_venv(tmp_path)))
    workdir = tmp_path / "elsewhere"  # xboard's folder, not the engine's
    workdir.mkdir()
    # a GUI's PATH: no venv on it; the engine is found by its full path alone
    env = dict(os.environ, PATH=os.pathsep.join(["/usr/bin", "/bin"]))
    child = pexpect.popen_spawn.PopenSpawn([POLYGLOT, ini], cwd=str(workdir), timeout=30, encoding="utf-8",
                                           env=env)
    try:
        child.sendline("xboard")
        child.sendline("protover 2")
        child.expect(r"feature done=1")
        transcript = child.before
        assert 'myname="Pruner' in transcript and "fischerandom" in transcript  # UCI_Chess960 seen
        child.sendline("new")
        child.sendline("sd 2")
        child.sendline("go")  # the engine plays White
        board = chess.Board()
        rng = random.Random(6)
        while len(board.move_stack) < PLIES and not board.is_game_over():
            child.expect(r"(?m)^move (\S+)\r?$")
            move = chess.Move.from_uci(child.match.group(1))
            assert move in board.legal_moves, "illegal engine move %s in %s" % (move, board.fen())
            board.push(move)
            if board.is_game_over():
                break
            reply = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
            board.push(reply)
            child.sendline("usermove %s" % reply.uci())
        assert len(board.move_stack) >= PLIES or board.is_game_over()
        child.sendline("ping 7")
        child.expect(r"pong 7")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        if child.proc.poll() is None:
            child.kill(9)
            child.proc.wait()
