#!/usr/bin/env python3
"""Start-up of a UCI engine: launch to ``uciok`` and to ``readyok``, wall time and CPU time, over
fresh processes (issue 54, item 1).

    python scripts/startup.py                                   # pruner, 5 runs
    python scripts/startup.py --runs 10 "PRUNER_INTERPRETER=cpython pruner" stockfish

Each command (words as a shell splits them; leading ``NAME=value`` words set variables) is
started ``--runs`` times; each run times from just before the process starts to its ``uciok``,
and to the ``readyok`` of an ``isready`` sent then (what a GUI waits for before its first
``go``; scripts/latency.py also times ``stop``), and reads the CPU time the process used, user
and system, its whole life (``os.wait4``). Prints min, median and max of each. Wall times want an idle machine; CPU
times are what to compare on a loaded one.
"""

import os
import shlex
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

from pruner.arguments import ArgumentParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def split_command(text: str) -> Tuple[Dict[str, str], List[str]]:
    """``NAME=value ... command args``: the variables and the command line (ValueError: none)."""
    words = shlex.split(text)
    variables = {}
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        name, value = words.pop(0).split("=", 1)
        variables[name] = value
    if not words:
        raise ValueError("%r: no command" % text)
    return variables, words


def one_start(command: List[str], environ: Dict[str, str]) -> Tuple[float, float, float]:
    """Milliseconds from starting a fresh engine process (in the repository root) to its
    ``uciok``, to the ``readyok`` of an ``isready`` sent then, and its CPU time after ``quit``."""
    began = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=environ, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               universal_newlines=True, bufsize=1)
    marks = []
    try:
        for send, wanted in (("uci", "uciok"), ("isready", "readyok")):
            process.stdin.write(send + "\n")
            process.stdin.flush()
            while True:
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError("%s closed its output before %s" % (" ".join(command), wanted))
                if line.strip() == wanted:
                    marks.append((time.perf_counter() - began) * 1000)
                    break
        process.stdin.write("quit\n")
        process.stdin.close()
        process.stdout.read()
    except BaseException:
        process.kill()
        process.wait()
        raise
    _, _, usage = os.wait4(process.pid, 0)  # its own CPU time, which Popen.wait does not give
    process.returncode = 0
    process.stdout.close()
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return marks[0], marks[1], cpu


def measure(text: str, runs: int) -> Dict[str, List[float]]:
    """Milliseconds per run of the command ``text``: ``uciok``, ``readyok`` (wall) and ``cpu``."""
    variables, command = split_command(text)
    environ = dict(os.environ, **variables)
    times: Dict[str, List[float]] = {"uciok": [], "readyok": [], "cpu": []}
    for _ in range(runs):
        uciok, readyok, cpu = one_start(command, environ)
        times["uciok"].append(uciok)
        times["readyok"].append(readyok)
        times["cpu"].append(cpu)
    return times


def summary(times: List[float]) -> str:
    """``min / median / max`` in milliseconds."""
    return "%4.0f / %4.0f / %4.0f" % (min(times), statistics.median(times), max(times))


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``startup.py``: measure each command and print a table (ms, min / median / max)."""
    parser = ArgumentParser(prog="startup.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("commands", nargs="*", default=["pruner"], metavar="COMMAND",
                        help='engine commands, each one argument (default: "pruner")')
    parser.add_argument("--runs", type=int, default=5, metavar="N", help="fresh processes per command (default: 5)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    try:
        for text in args.commands:
            split_command(text)
    except ValueError as exc:
        parser.error(str(exc))
    print("ms, min / median / max over %d runs | launch to uciok | launch to readyok | CPU time" % args.runs)
    for text in args.commands:
        times = measure(text, args.runs)
        print("%s | %s | %s | %s" % (text, summary(times["uciok"]), summary(times["readyok"]), summary(times["cpu"])))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
