"""The learned evaluation's lab: training data from Pruner's self-play (``datagen``), the
data's reader (``dataset``) and the trainer (``train``). Driven by ``scripts/nnue.py``.

Nothing here runs in the engine: the engine reads only the net file (``pruner.engine.nnue``)."""
