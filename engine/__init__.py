"""Pruner's engine: search and chess knowledge over python-chess boards.

Never reads stdin or prints; the UCI layer (``protocol``) drives it through
``pruner.engine.search.Searcher`` and receives progress through a callback.
"""

__version__ = "0.1.0"

try:
    import pypyjit  # PyPy only
except ImportError:
    pass
else:
    # PyPy's JIT unrolls recursive calls into its traces by default; negamax and quiescence
    # recurse at every node, so traces explode and are thrown away, and the search ran at
    # 1-2k nodes/s (below PyPy's own interpreter with the JIT off, 5-10k). With 0 no Python
    # call is inlined into a trace at all (PyPy counts the frames of the callee, >= 0): every
    # function gets its own compiled entry. Inlining the small helpers back (dont_trace_here on
    # the others) measured the same; inlining the large ones was slower (docs/pypy.md).
    pypyjit.set_param("max_unroll_recursion=0")


def __getattr__(name):  # PEP 562: engine.analyse / engine.Analyser, imported on first use
    if name in ("analyse", "Analyser"):
        from pruner.engine import analysis
        return getattr(analysis, name)
    raise AttributeError("module 'pruner.engine' has no attribute %r" % name)
