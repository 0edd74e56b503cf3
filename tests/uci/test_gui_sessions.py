"""The command sequences real GUIs send, replayed on the engine process (docs/gui.md).

Each sequence was copied from the wire between the GUI and Pruner (a logging wrapper around
the engine command), under Xvfb with Debian 12's packages: Scid 4.7.4's analysis window and
GNOME Chess 43.1's game. What they do that other GUIs do not: Scid sends ``<empty>`` for an
empty string option, GNOME Chess sends ``ucinewgame`` before ``uciok`` and a ``go`` line with
a trailing space (its fixed ``go wtime 30000 btime 30000 %s`` with no go options).
"""

import re

import chess
import pytest

from uci_process import Uci, legal

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")

SCID_4_7_OPTIONS = [
    "setoption name SyzygyPath value <empty>",
    "setoption name UCI_Elo value 1100",
    "setoption name Hash value 16",
    "setoption name Move Overhead value 10",
    "setoption name MultiPV value 1",
    "setoption name UCI_LimitStrength value false",
    "setoption name Skill Level value 20",
    "setoption name Threads value 1",
    "setoption name BookFile value <empty>",
    "setoption name OwnBook value false",
]
"""What Scid 4.7.4 sends after ``uciok`` when its analysis window starts Pruner, in its order:
every option of its "Configure UCI engine" dialog, the empty strings as ``<empty>``."""


@pytest.fixture
def uci(engine_command, repo_root):
    process = Uci(engine_command, repo_root)
    yield process
    process.close()


def test_scid_analysis_start_takes_empty_as_no_file(uci):
    """``<empty>`` for SyzygyPath and BookFile means no file (Stockfish's rule), not a path:
    no error line, and the analysis runs."""
    uci.handshake()
    for line in SCID_4_7_OPTIONS:
        uci.send(line)
    before_ready = uci.sync()
    assert "error" not in before_ready, before_ready
    uci.send("position startpos moves")
    uci.send("go infinite")
    uci.expect(r"info depth 2 .* pv \S+")
    uci.send("stop")
    move, _ = uci.bestmove()
    assert legal(chess.Board(), move)
    assert not re.search(r"info string error", uci.transcript.getvalue())


def test_gnome_chess_game_with_skill_level_and_its_fixed_clock(uci):
    """GNOME Chess 43.1: ``ucinewgame`` right after ``uci`` (before ``uciok``), the difficulty's
    ``Skill Level`` from /etc/gnome-chess/engines.conf, then every move with the same clock."""
    uci.send("uci")
    uci.send("ucinewgame")
    uci.expect(r"uciok\r?\n")
    uci.send("setoption name Skill Level value 10")
    uci.sync()
    board = chess.Board()
    board.push_uci("e2e4")
    for _ in range(2):
        uci.send("position startpos moves " + " ".join(move.uci() for move in board.move_stack))
        uci.send("go wtime 30000 btime 30000 ")
        move, _ = uci.bestmove()
        assert legal(board, move)
        board.push_uci(move)
        board.push(next(iter(board.legal_moves)))
    assert not re.search(r"info string error", uci.transcript.getvalue())
