"""``scripts/match.py --cluster local:2``: an 8-game match played on Dask workers.

Fixed nodes and a move cap keep it short; skipped when Dask is not installed.
"""

import os
import re
import subprocess
import sys

import chess
import chess.pgn
import pytest

from paths import ROOT as REPO_ROOT

pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install 'pruner-chess[cluster]')")

pytestmark = pytest.mark.one_interpreter

MATCH = os.path.join(REPO_ROOT, "scripts", "match.py")
OPENINGS = [
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2",
]


def test_eight_game_match_on_a_local_cluster(tmp_path):
    openings = tmp_path / "openings.epd"
    openings.write_text("\n".join(OPENINGS) + "\n")
    pgn = tmp_path / "match.pgn"
    engine = "%s -m pruner" % sys.executable
    command = [sys.executable, MATCH, "--engine", engine, "--engine", engine, "--dir1", REPO_ROOT,
               "--dir2", REPO_ROOT, "--name1", "one", "--name2", "two", "--nodes", "300", "--max-moves", "20",
               "--games", "8", "--openings", str(openings), "--sequential", "--cluster", "local:2",
               "--pgn", str(pgn)]
    done = subprocess.run(command, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("Cluster: tcp://") and "2 workers, 2 threads" in line for line in lines)
    assert sum(1 for line in lines if re.match(r"\[\s*\d/8\] ", line)) == 8
    final = lines[-1]
    assert final.startswith("Final: ") and final.endswith("faults 0"), final
    assert re.search(r"W (\d+) D (\d+) L (\d+)", final)
    assert sum(map(int, re.search(r"W (\d+) D (\d+) L (\d+)", final).groups())) == 8

    games = []
    with open(str(pgn), encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            games.append(game)
    assert sorted(int(game.headers["Round"]) for game in games) == list(range(1, 9))
    for game in games:
        assert not game.errors
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert {game.headers["White"], game.headers["Black"]} == {"one", "two"}
        board = game.end().board()  # every move replays legally from the opening
        assert len(board.move_stack) == int(game.headers["PlyCount"]) > 0
    rounds = {int(game.headers["Round"]): game for game in games}
    for first in (1, 3, 5, 7):  # a pair: same opening, colours reversed
        a, b = rounds[first], rounds[first + 1]
        assert a.headers["FEN"] == b.headers["FEN"]
        assert a.headers["White"] == b.headers["Black"]
