"""scripts/matchlib/cli.py: every script's exit, its status passed on, and a reader that stops
early (`| head`) ending it quietly. The programs run in scripts/, where a script finds this
checkout's matchlib first (``python scripts/NAME.py`` puts scripts/ first on its path)."""

import os
import shutil
import subprocess
import sys

import pytest

from tests.paths import ROOT, SCRIPTS

pytestmark = pytest.mark.one_interpreter

THIS_CHECKOUT = dict(os.environ, PYTHONPATH=ROOT)
"""The programs' environment: this checkout's engine too, whichever checkout the venv has
installed (a developer's second worktree), or ``cli.run`` would warn about the mix."""

SCRIPT = """
from pruner.lab.matchlib import cli

def main():
    for number in range({lines}):
        print("line %06d of a long report" % number)
    return {status}

cli.run(main)
"""


def _start(lines, status):
    code = SCRIPT.format(lines=lines, status=status)
    return subprocess.Popen([sys.executable, "-c", code], cwd=SCRIPTS, env=THIS_CHECKOUT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_the_status_of_main_is_the_exit_status():
    process = _start(3, 4)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 4 and out.decode().count("\n") == 3 and not err


def test_a_reader_that_goes_away_ends_the_script_quietly_with_status_1():
    process = _start(20000, 0)  # about 560 kB: more than a pipe holds, whatever the timing
    assert process.stdout.readline().startswith(b"line 000000")
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1 and "Traceback" not in error and "BrokenPipe" not in error


def test_an_os_error_ends_the_script_with_one_line_naming_the_file():
    code = "from pruner.lab.matchlib import cli\ndef main():\n    open('/nonexistent/input.pgn')\ncli.run(main)\n"
    process = subprocess.run([sys.executable, "-c", code], cwd=SCRIPTS, env=THIS_CHECKOUT, capture_output=True,
                             timeout=60)
    error = process.stderr.decode()
    assert process.returncode == 2 and "Traceback" not in error
    assert error.count("\n") == 1 and "error: [Errno 2] No such file or directory: '/nonexistent/input.pgn'" in error


def test_a_script_that_imports_another_checkouts_engine_says_so(tmp_path):
    """A script reaches ``pruner`` as an installed package: a script of another checkout (here a
    copy in other/scripts/) run with this Python, whose Pruner is this checkout, warns in one
    line before it runs; the same script in this checkout's scripts/ does not."""
    other = tmp_path / "other"
    (other / "scripts").mkdir(parents=True)
    script = other / "scripts" / "probe.py"
    script.write_text("from pruner.lab.matchlib import cli\ncli.run(lambda: 0)\n")
    process = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), capture_output=True, text=True,
                             timeout=60)
    assert process.returncode == 0 and process.stderr.count("\n") == 1, process.stderr
    assert "warning: this script is in %s but imports the engine in %s; `pip install -e %s`" % (other, ROOT, other) \
        in process.stderr
    process = subprocess.run([sys.executable, "-c", "from pruner.lab.matchlib import cli\ncli.run(lambda: 0)\n"],
                             cwd=SCRIPTS, capture_output=True, text=True, timeout=60)
    assert process.returncode == 0 and process.stderr == "", process.stderr
