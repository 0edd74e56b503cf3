"""Pruner's engine: search and chess knowledge over python-chess boards.

Never reads stdin or prints; the UCI layer (``protocol``) drives it through
``engine.search.Searcher`` and receives progress through a callback.
"""

__version__ = "0.1.0"


def __getattr__(name):  # PEP 562: engine.analyse / engine.Analyser, imported on first use
    if name in ("analyse", "Analyser"):
        from engine import analysis
        return getattr(analysis, name)
    raise AttributeError("module 'engine' has no attribute %r" % name)
