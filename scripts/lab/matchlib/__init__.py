"""Library behind scripts/match.py and scripts/suite.py, one concept per module.

- ``stats``        Elo from score, 95% intervals (trinomial, pentanomial), LOS, GSPRT
- ``openings``     load openings from EPD (``pruner.engine.epd``) or PGN files; pair order (sequential or
                   seeded random)
- ``timecontrol``  parse ``base+inc``; build the UCI limit from the runner's clocks
- ``args``         argparse types the scripts share (``--tc``, ``--movetime``, ``--depth``, ``--games``...):
                   a bad value is refused while the arguments are read, naming the flag
- ``engines``      engine command specs; one engine process per worker with off-clock
                   ``ucinewgame``, a hard deadline per move and fault classification
- ``adjudication`` rule draws, resign/draw adjudication by score, maximum game length
- ``game``         play one game with runner-side clocks, returning a ``GameRecord``
- ``pgnout``       turn a ``GameRecord`` into a PGN game with proper tags
- ``pgnread``      read games back: the score in a move's comment, whether a game ended on the board
- ``tally``        W/D/L, per-colour results, pentanomial pairs and the fault list
- ``history``      the running numbers after each game (Elo, intervals, LLR), kept by the tally
- ``plot``         ``--plot``: Elo ± 95% and the SPRT's LLR against games played (matplotlib)
- ``runner``       the match: worker threads, live progress, SPRT early stop, summary
- ``cluster``      ``--cluster``: the match's opening pairs played on a Dask cluster
- ``epdsuite``     EPD test suites (bm/am/c0), time to solution, parallel solving
- ``cli``          every script's exit: ``main``'s status, and a quiet stop when ``| head`` goes away

The match lab's libraries (``pruner.lab.matchlib``, ``tunelib``, ``nnuelib``) are packages of
the ``pruner-chess`` distribution (pyproject.toml maps scripts/lab/ to ``pruner.lab``), so a script
imports them and the engine as installed packages: after ``pip install -e .`` a script runs from
any directory, with the code of the checkout that was installed (``cli.run`` warns when a
script of one checkout runs with the Pruner of another).
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
"""The checkout's root (the folder holding engine/, protocol/ and scripts/), where the scripts
start Pruner (``engines.this_pruner``) and find its files."""
