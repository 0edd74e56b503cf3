#!/bin/sh
# The test suite again under PyPy (issue 5: CI runs both interpreters).
# Makes (once) a PyPy venv, installs Pruner with its test extra into it, and runs pytest there,
# so every engine process the tests start runs on PyPy too (they use sys.executable).
# Without pypy3 it says so and succeeds, since the PyPy leg is optional on a developer's
# machine; but with PRUNER_PYPY_REQUIRED=1 (set by .ci/run once it has installed pypy3) a leg
# that cannot run is a failure, so CI cannot pass without it. Extra arguments go to pytest.
# The tests marked `exhaustive` (whole-suite sweeps: every PV of thousands of searches, perft of
# every Chess960 start) are left out here: the search and the move generator compute the same
# nodes on both interpreters (tests/test_pypy.py compares the bench on PyPy with CPython), the CPython leg runs
# the sweeps, and on PyPy they cost 3 of the leg's 8 minutes, mostly JIT warm-up of short
# searches. `-m exhaustive` among the extra arguments runs them.
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
# Tests that start `pruner` by name get the PyPy one.
PATH="$(cd "$venv/bin" && pwd):$PATH"
export PATH
echo "PyPy leg: $("$venv/bin/python" -c 'import sys; print(sys.version.replace(chr(10), " "))')"
exec "$venv/bin/python" -m pytest -m "not slow and not exhaustive" "$@"
