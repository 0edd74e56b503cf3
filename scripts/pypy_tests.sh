#!/bin/sh
# The test suite again under PyPy (issue 5: CI runs both interpreters).
# Makes (once) a PyPy venv, installs Pruner with its test extra into it, and runs pytest there,
# so every engine process the tests start runs on PyPy too (they use sys.executable).
# Without pypy3 it says so and succeeds: the PyPy leg is optional on a developer's machine;
# .ci/run installs pypy3 first, so CI always runs it. Extra arguments go to pytest.
set -eu
cd "$(dirname "$0")/.."
if ! command -v pypy3 >/dev/null 2>&1; then
    echo "PyPy leg skipped: no pypy3 (apt-get install pypy3 pypy3-venv)"
    exit 0
fi
venv="${PRUNER_PYPY_VENV:-.venv-pypy}"
[ -x "$venv/bin/python" ] || pypy3 -m venv "$venv"
"$venv/bin/python" -m pip install -q -e '.[test]'
echo "PyPy leg: $("$venv/bin/python" -c 'import sys; print(sys.version.replace(chr(10), " "))')"
exec "$venv/bin/python" -m pytest "$@"
