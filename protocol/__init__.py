"""The ways the outside world talks to the engine: one folder per program.

``uci/`` is the UCI server (``pruner``, ``python -m protocol``); ``analyse/`` is the
``pruner analyse`` application; ``__main__`` holds the one table of subcommands. The two
programs never import each other; both import ``engine`` and the helpers here that they
share with the match lab in scripts/ (``cluster``: Dask; ``extras``: optional dependencies).
"""
