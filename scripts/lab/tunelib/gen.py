"""``tune.py gen``: Pruner against itself at a fixed node count, through scripts/match.py.

The games come from the project's own match runner, so they are played exactly as a match
is (runner-side adjudication, openings from scripts/books/ played twice with colours
reversed, the PGN it writes). Two copies of the same deterministic engine at the same node
count would play each opening pair's second game as the first one with the names swapped.
The two sides get different, small hash sizes (2 and 1 MB: 6,553 and 3,276 slots), so their
tables overwrite different entries within a few moves and the searches part (16 and 15 MB,
as for docs/wdl.md's games at 10,000 nodes, were not enough at 3,000: the pair's games were
the same game).
"""

import shlex
from typing import List, Optional


def match_argv(pgn: str, games: int, nodes: int, engine: str, jobs: int, seed: int,
               openings: Optional[str] = None, directory: Optional[str] = None, resume: bool = False) -> List[str]:
    """The scripts/match.py command line of a self-play run (without the program name);
    ``resume``: go on with a run that stopped, from its PGN (``match.py --resume``)."""
    argv = ["--engine", engine, "--engine", engine, "--name1", "Pruner-H2", "--name2", "Pruner-H1",
            "--option1", "Hash=2", "--option2", "Hash=1",
            "--nodes", str(nodes), "--games", str(games), "--jobs", str(jobs), "--seed", str(seed),
            # Adjudication as for docs/wdl.md's games: a decided game's result is known before
            # its end, and shorter games give more games per hour.
            "--resign-score", "600", "--resign-moves", "3",
            "--draw-score", "20", "--draw-moves", "8", "--draw-after", "34",
            "--event", "Pruner tuning self-play", "--pgn", pgn, "--report-every", "0"]
    if directory:
        argv += ["--dir1", directory, "--dir2", directory]
    if openings:
        argv += ["--openings", openings]
    if resume:
        argv.append("--resume")
    return argv


def describe(argv: List[str]) -> str:
    """The command line as a shell would take it (printed so a run can be repeated)."""
    return "python3 scripts/match.py " + " ".join(shlex.quote(word) for word in argv)


def count_games(pgn: str) -> int:
    """How many games the PGN file ``pgn`` holds (0 if there is no file): a run stopped early,
    or resumed, holds another number than the one asked for. Read as ``match.py --resume``
    reads it (``pruner.lab.matchlib.resume.pgn_games``, python-chess's header reader)."""
    from pruner.lab.matchlib.resume import pgn_games
    try:
        return len(pgn_games(pgn))
    except FileNotFoundError:
        return 0
