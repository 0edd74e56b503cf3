"""Command line: ``pruner`` / ``python -m protocol``.

    pruner                 the UCI engine on stdin/stdout
    pruner bench [depth]   fixed-depth bench: per-position nodes, then the totals
    pruner analyse ...     handled by protocol.analyse_cli
"""

import argparse
import importlib
import platform
import sys
from typing import List, Optional

import engine

ANALYSE_MODULE = "protocol.analyse_cli"


def _version() -> str:
    return "Pruner %s (%s %s)" % (engine.__version__, platform.python_implementation(), platform.python_version())


def _analyse(argv: List[str]) -> int:
    """Hand ``pruner analyse ...`` to ``protocol.analyse_cli.main(argv)`` (imported only now)."""
    try:
        module = importlib.import_module(ANALYSE_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != ANALYSE_MODULE:
            raise  # the module exists but one of its own imports is missing: show that
        print("pruner: 'analyse' is not available in this build (%s is missing)" % ANALYSE_MODULE, file=sys.stderr)
        return 2
    status = module.main(argv)
    return status if isinstance(status, int) else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pruner",
        description="Pruner, a UCI chess engine in Python. Without a command it speaks UCI on stdin/stdout.")
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", metavar="command")
    commands.add_parser("uci", help="speak UCI on stdin/stdout (the default)")
    bench = commands.add_parser("bench", help="search the bench positions to a fixed depth; print nodes and speed")
    bench.add_argument("depth", nargs="?", type=int, help="search depth (default: engine.bench.DEFAULT_DEPTH)")
    commands.add_parser("analyse", help="analyse positions or games (see `pruner analyse --help`)")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``pruner`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "analyse":
        return _analyse(argv[1:])  # its options belong to analyse_cli, not to this parser
    args = _parser().parse_args(argv)
    if args.command == "bench":
        if args.depth is not None and args.depth < 1:
            print("pruner bench: depth must be at least 1", file=sys.stderr)
            return 2
        from protocol.loop import run_bench

        def emit(line: str) -> None:
            print(line, flush=True)

        run_bench(args.depth, emit)
        return 0
    from protocol.loop import serve
    return serve()


if __name__ == "__main__":
    sys.exit(main())
