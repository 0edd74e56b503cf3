#!/usr/bin/env python3
"""Protocol latencies of a UCI engine: process start to ``uciok`` and to the first ``readyok``,
``stop`` to ``bestmove``, and a short clock's ``go`` to ``bestmove``.

    python scripts/latency.py                        # Pruner from this checkout (python -m pruner)
    python scripts/latency.py --engine "pypy3 -m pruner" --runs 20
    python scripts/latency.py --engine "python -m pruner --interpreter auto"   # as `pruner` starts

Start-up: a fresh process per run, timed from just before it is started to the ``uciok``
line, and to the ``readyok`` of an ``isready`` sent at ``uciok`` (what a GUI waits for before
its first ``go``; Pruner loads its search modules then). Stop: in one process, ``go
infinite`` on the start position, ``stop`` after the first ``info depth`` line, timed from
writing ``stop`` to reading ``bestmove``. Go (``--go "wtime 50 btime 50"``): in a fresh process
per run (a cold JIT on PyPy, the worst case), ``go`` with that clock after ``isready``, timed
from writing ``go`` to reading ``bestmove``. Prints the median and the worst of each. Run it on
an idle machine.
"""

import os
import shlex
import statistics
import subprocess
import sys
import time
from typing import List, Optional, Tuple

from pruner.arguments import ArgumentParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_until(process: subprocess.Popen, prefix: str) -> str:
    """Lines from the engine until one starts with ``prefix`` (that line is returned)."""
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("the engine closed its output before %r" % prefix)
        if line.startswith(prefix):
            return line


def send(process: subprocess.Popen, line: str) -> None:
    """Write one line to the engine."""
    process.stdin.write(line + "\n")
    process.stdin.flush()


def start(command: List[str]) -> subprocess.Popen:
    """The engine process, started in the repository root with line-buffered pipes."""
    return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def startup_ms(command: List[str]) -> Tuple[float, float]:
    """Milliseconds from starting a fresh engine process to its ``uciok``, and to the ``readyok``
    of an ``isready`` sent then."""
    began = time.perf_counter()
    process = start(command)
    try:
        send(process, "uci")
        read_until(process, "uciok")
        uciok = (time.perf_counter() - began) * 1000
        send(process, "isready")
        read_until(process, "readyok")
        return uciok, (time.perf_counter() - began) * 1000
    finally:
        send(process, "quit")
        process.wait(30)


def stop_latencies_ms(command: List[str], runs: int) -> List[float]:
    """Milliseconds from ``stop`` to ``bestmove`` for ``runs`` ``go infinite`` searches in one process."""
    process = start(command)
    try:
        send(process, "uci")
        read_until(process, "uciok")
        send(process, "isready")  # loads the search modules before the first go
        read_until(process, "readyok")
        times = []
        for _ in range(runs):
            send(process, "position startpos")
            send(process, "go infinite")
            read_until(process, "info depth")
            began = time.perf_counter()
            send(process, "stop")
            read_until(process, "bestmove")
            times.append((time.perf_counter() - began) * 1000)
        return times
    finally:
        send(process, "quit")
        process.wait(30)


def go_latency_ms(command: List[str], go: str) -> float:
    """Milliseconds from writing ``go GO`` to reading ``bestmove`` in a fresh process (start
    position, after ``isready``)."""
    process = start(command)
    try:
        send(process, "uci")
        read_until(process, "uciok")
        send(process, "isready")
        read_until(process, "readyok")
        send(process, "position startpos")
        began = time.perf_counter()
        send(process, "go " + go)
        read_until(process, "bestmove")
        return (time.perf_counter() - began) * 1000
    finally:
        send(process, "quit")
        process.wait(30)


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``latency.py``: measure and print the medians and the worst times."""
    parser = ArgumentParser(prog="latency.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="%s -m pruner" % shlex.quote(sys.executable), metavar="CMD",
                        help="engine command, run in the repository root (default: this Python -m pruner)")
    parser.add_argument("--runs", type=int, default=10, metavar="N", help="runs of each measurement (default: 10)")
    parser.add_argument("--go", metavar="ARGS",
                        help='time only "go ARGS" to bestmove in a fresh process per run (say "wtime 50 btime 50")')
    args = parser.parse_args(argv)
    command = shlex.split(args.engine)
    if args.go:
        times = [go_latency_ms(command, args.go) for _ in range(args.runs)]
        print("go %s to bestmove: median %.1f ms, worst %.1f ms over %d runs"
              % (args.go, statistics.median(times), max(times), len(times)))
        return 0
    starts = [startup_ms(command) for _ in range(args.runs)]
    stops = stop_latencies_ms(command, args.runs)
    for index, line in enumerate(("uciok", "readyok")):
        times = [pair[index] for pair in starts]
        print("start to %s: median %.0f ms, worst %.0f ms over %d runs"
              % (line, statistics.median(times), max(times), len(times)))
    print("stop to bestmove: median %.1f ms, worst %.1f ms over %d runs"
          % (statistics.median(stops), max(stops), len(stops)))
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
