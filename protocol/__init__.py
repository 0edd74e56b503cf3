"""The ways the outside world talks to the engine: one folder per program.

``uci/`` is the UCI server (``pruner``, ``python -m pruner``); ``analyse/`` is the
``pruner analyse`` application; ``__main__`` holds the one table of subcommands. The two
programs never import each other; both import ``engine`` and the helpers here that they
share with the match lab in scripts/ (``cluster``: Dask; ``extras``: optional dependencies).

Installed, this folder is the package ``pruner`` (docs/architecture.md, "One import name"):
``pruner.uci``, ``pruner.analyse_app``, ``pruner.engine`` (engine/), ``pruner.lab`` (scripts/lab/).
The analysis API is importable from here, ``from pruner import analyse, Analyser``, loaded on
first use (PEP 562), so ``pruner`` answers ``uci`` without importing it (start-up, issue 54).
"""

import os as _os

if __name__ == "protocol":
    # This folder imported by its own name, not as ``pruner``: ``python -m protocol`` run in a
    # checkout's root (the match lab's frozen baselines: ``--dir``, ``cwd=``). ``python -m
    # pruner`` there would import the installed pruner and silently play the installed code
    # against itself; so the pruner packages are mapped to this checkout's folders first
    # (the finder the PyPy bootstrap uses), and what follows imports this checkout's code.
    # A checkout from before the one import name has its own ``protocol`` and runs as before.
    from protocol.interpreter import map_checkout
    map_checkout(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))

__all__ = ["Analyser", "Analysis", "DEFAULT_DEPTH", "Line", "analyse", "describe_status", "pov_score", "pov_wdl"]
"""pruner.engine.analysis's public API (its ``__all__``), re-exported lazily."""


def __getattr__(name):
    if name in __all__:
        from pruner.engine import analysis
        return getattr(analysis, name)
    raise AttributeError("module 'pruner' has no attribute %r" % name)


def __dir__():
    return sorted(list(globals()) + __all__)
