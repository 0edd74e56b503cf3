"""The optional extras of pyproject.toml (``[plots]``, ``[cluster]``): is one installed, and
how does a user install it. Shared by ``pruner analyse`` and the match lab in scripts/ (the
cluster hint through protocol/cluster.py), so that both say the same thing when a picture or
a cluster cannot be made."""

import importlib

MATPLOTLIB_HINT = "pip install matplotlib (or: pip install 'pruner-chess[plots]')"
"""How to get ``--plot`` pictures."""

CLUSTER_HINT = 'pip install "pruner-chess[cluster]"  (or: pip install "dask[distributed]")'
"""How to get Dask for ``--cluster``, quoted in every "not installed" error."""


def missing(module: str) -> bool:
    """True when ``import module`` fails (the module is imported, and so cached, when present)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return True
    return False


def missing_matplotlib() -> bool:
    """True when matplotlib, needed by every ``--plot``, cannot be imported."""
    return missing("matplotlib")
