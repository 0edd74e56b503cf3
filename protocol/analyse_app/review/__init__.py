"""Game review of ``pruner analyse --report/--plot``: ``model`` (the numbers; imports no
renderer), ``html`` and ``plot`` (the two renderers), ``collect`` (the options and the hook)."""
