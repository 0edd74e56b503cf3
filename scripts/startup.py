#!/usr/bin/env python3
"""Start-up of a UCI engine: launch to ``uciok`` and to ``readyok``, wall time and CPU time, over
fresh processes (issue 54, item 1).

    python scripts/startup.py                                   # pruner, 5 runs
    python scripts/startup.py --runs 10 "PRUNER_INTERPRETER=cpython pruner" stockfish

Each command (words as a shell splits them; leading ``NAME=value`` words set variables) is
started ``--runs`` times; each run times from just before the process starts to its ``uciok``,
and to the ``readyok`` of an ``isready`` sent then (what a GUI waits for before its first
``go``), as scripts/latency.py does, and adds the CPU time the process used (user + system,
its whole life). Prints min, median and max of each. Wall times want an idle machine; CPU
times are what to compare on a loaded one.
"""

import os
import resource
import shlex
import statistics
import sys
from typing import Dict, List, Optional, Tuple

from latency import startup_ms
from pruner.arguments import ArgumentParser


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


def _children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def measure(text: str, runs: int) -> Dict[str, List[float]]:
    """Milliseconds per run of the command ``text``: ``uciok``, ``readyok`` (wall) and ``cpu``."""
    variables, command = split_command(text)
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    times: Dict[str, List[float]] = {"uciok": [], "readyok": [], "cpu": []}
    try:
        for _ in range(runs):
            before = _children_cpu_ms()
            uciok, readyok = startup_ms(command)
            times["uciok"].append(uciok)
            times["readyok"].append(readyok)
            times["cpu"].append(_children_cpu_ms() - before)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
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
        commands = [(text, split_command(text)) for text in args.commands]
    except ValueError as exc:
        parser.error(str(exc))
    print("ms, min / median / max over %d runs | launch to uciok | launch to readyok | CPU time" % args.runs)
    for text, _ in commands:
        times = measure(text, args.runs)
        print("%s | %s | %s | %s" % (text, summary(times["uciok"]), summary(times["readyok"]), summary(times["cpu"])))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
