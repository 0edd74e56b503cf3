"""scripts/matchlib/cli.py: every script's exit, its status passed on, and a reader that stops
early (`| head`) ending it quietly."""

import os
import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.one_interpreter

SCRIPT = """
import sys
sys.path.insert(0, {scripts!r})
from matchlib import cli

def main():
    for number in range({lines}):
        print("line %06d of a long report" % number)
    return {status}

cli.run(main)
"""


def _start(lines, status):
    code = SCRIPT.format(scripts=os.path.join(ROOT, "scripts"), lines=lines, status=status)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


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
    code = ("import sys\nsys.path.insert(0, %r)\nfrom matchlib import cli\n"
            "def main():\n    open('/nonexistent/input.pgn')\ncli.run(main)\n") % os.path.join(ROOT, "scripts")
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    error = process.stderr.decode()
    assert process.returncode == 2 and "Traceback" not in error
    assert error.count("\n") == 1 and "error: [Errno 2] No such file or directory: '/nonexistent/input.pgn'" in error
