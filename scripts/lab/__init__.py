"""The match lab's libraries, installed as ``pruner.lab``: ``matchlib`` (matches, SPRT, EPD
suites), ``tunelib`` (tuning the evaluation's weights) and ``nnuelib`` (the net's data and
trainer). The programs that use them stay in scripts/*.py (docs/architecture.md, "One import
name")."""
