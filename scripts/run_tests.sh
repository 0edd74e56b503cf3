#!/bin/sh
# The whole test suite, as the README's test command and .ci/run run it: CPython (the `python3`
# first on PATH), then PyPy (scripts/pypy_tests.sh, which says it is skipped without pypy3).
# Each interpreter runs in two phases (scripts/pytest_phases.sh): the tests in parallel, then
# the ones that assert on wall time alone. A plain `python3 -m pytest` still runs every test,
# serially, in one process.
set -eu
cd "$(dirname "$0")/.."
sh scripts/pytest_phases.sh python3 "not slow"
sh scripts/pypy_tests.sh
