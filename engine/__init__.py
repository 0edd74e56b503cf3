"""Pruner's engine: search and chess knowledge over python-chess boards.

Never reads stdin or prints; the UCI layer (``protocol``) drives it through
``engine.search.Searcher`` and receives progress through a callback.
"""

__version__ = "0.1.0"
