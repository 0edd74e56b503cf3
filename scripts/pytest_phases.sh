#!/bin/sh
# One interpreter's test run in two phases: usage `sh scripts/pytest_phases.sh PYTHON MARKERS`.
# Phase 1, every test selected by MARKERS except those marked `clock`, on one pytest-xdist worker
# per CPU: the suite is CPU-bound, and on a 2-core machine two workers halve the CPython leg
# (860 s serial, 435 s; 2026-11-27). Phase 2, the `clock` tests (a game on a clock, a latency) in
# one process with nothing beside them: with the other worker's engines on the same cores, the
# one-second self-play game lost on time under PyPy (0a7bb23), which is the machine, not the
# engine. Both phases must pass. `--dist worksteal`: a worker that runs out of tests takes some
# of the other's queue, so the phase does not end with one worker alone on its last long tests.
set -eu
python="$1"
markers="$2"
"$python" -m pytest -n auto --dist worksteal -m "($markers) and not clock"
"$python" -m pytest -m "($markers) and clock"
