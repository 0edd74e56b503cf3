#!/bin/sh
# The test suite again under PyPy (issue 5: CI runs both interpreters).
# Makes (once) a PyPy venv, installs Pruner with its test extra into it, and runs pytest there,
# so every engine process the tests start runs on PyPy too (they use sys.executable).
# Without pypy3 it says so and succeeds, since the PyPy leg is optional on a developer's
# machine; but with PRUNER_PYPY_REQUIRED=1 (set by .ci/run once it has installed pypy3) a leg
# that cannot run is a failure, so CI cannot pass without it. Extra arguments go to pytest.
# The tests marked `exhaustive` (whole-suite sweeps: every PV of thousands of searches, perft of
# the Chess960 suite's castling layouts) are left out here: the search and the move generator
# compute the same nodes on both interpreters (tests/test_pypy.py compares the bench on PyPy
# with CPython), the CPython leg runs the sweeps, and on PyPy they cost 3 of the leg's 8 minutes
# (measured when they held the full 960-position Chess960 sweeps), mostly JIT warm-up of short
# searches. `-m exhaustive` among the extra arguments runs them. The tests marked
# `one_interpreter` (the match lab's tests, which run on CPython whichever interpreter their
# engines use, and the project-file checks) are left to CPython too: 113 of the leg's 308 s of
# its parallel phase on 2026-11-28, and nothing in them depends on PyPy.
set -eu
cd "$(dirname "$0")/.."
required="${PRUNER_PYPY_REQUIRED:-0}"
skip() {
    if [ "$required" = 1 ]; then
        echo "PyPy leg FAILED to run: $1 (PRUNER_PYPY_REQUIRED=1)" >&2
        exit 1
    fi
    echo "PyPy leg skipped: $1"
    exit 0
}
command -v pypy3 >/dev/null 2>&1 || skip "no pypy3 (apt-get install pypy3 pypy3-venv)"
venv="${PRUNER_PYPY_VENV:-.venv-pypy}"
[ -x "$venv/bin/python" ] || pypy3 -m venv "$venv" || skip "pypy3 -m venv failed (apt-get install pypy3-venv)"
"$venv/bin/python" -m pip install -q -e '.[test]'
# PyPy before 7.3.16 (Debian 12's pypy3 is 7.3.11) has a garbage-collector bug that crashes it
# at random (a segmentation fault, most often in pytest's assertion rewriting while collecting):
# a list copied while the incremental GC is half-way through marking can lose a reference
# (pypy/pypy#3959, pytest-dev/pytest#11168; fixed in 7.3.16). `.ci/run` hit it once (exit 139
# during collection, at a commit whose PyPy leg had passed twice; not reproduced here in 15
# collections). The bug needs the program to run between two marking steps; with a marking
# step larger than any heap of this suite, each major collection marks in one step
# (PYPYLOG=gc-collect-step shows one MARKING step per collection instead of about two), so the
# window is gone. The pytest process and every engine the tests start inherit it.
if [ -z "${PYPY_GC_INCREMENT_STEP:-}" ]; then
    PYPY_GC_INCREMENT_STEP=16GB
    export PYPY_GC_INCREMENT_STEP
fi
# Tests that start `pruner` by name get the PyPy one.
PATH="$(cd "$venv/bin" && pwd):$PATH"
export PATH
echo "PyPy leg: $("$venv/bin/python" -c 'import sys; print(sys.version.replace(chr(10), " "))')"
# With arguments, one pytest process with them (as before); without, the two phases of
# scripts/pytest_phases.sh (parallel, then the tests on a clock alone).
if [ $# -gt 0 ]; then
    exec "$venv/bin/python" -m pytest -m "not slow and not exhaustive and not one_interpreter" "$@"
fi
exec sh scripts/pytest_phases.sh "$venv/bin/python" "not slow and not exhaustive and not one_interpreter"
