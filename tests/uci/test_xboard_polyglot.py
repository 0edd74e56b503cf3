"""A real GUI adapter: xboard/WinBoard users run UCI engines through PolyGlot (Debian package
``polyglot``). The test writes a PolyGlot ini for ``python -m protocol``, speaks the xboard
protocol (CECP) to PolyGlot and plays a 24-ply game: the engine plays White at depth 2, the
test answers for Black with seeded random legal moves; every engine move must be legal.
"""

import os
import random
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


def write_ini(directory, repo_root) -> str:
    path = os.path.join(str(directory), "pruner.ini")
    with open(path, "w") as f:
        f.write("[PolyGlot]\n"
                "EngineDir = %s\n"
                "EngineCommand = %s -m protocol\n"
                "Log = false\n"
                "Book = false\n"
                "[Engine]\n"
                "Hash = 16\n" % (repo_root, sys.executable))
    return path


def test_a_game_through_polyglot(tmp_path, repo_root):
    ini = write_ini(tmp_path, repo_root)
    child = pexpect.popen_spawn.PopenSpawn([POLYGLOT, ini], cwd=str(tmp_path), timeout=30, encoding="utf-8")
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
