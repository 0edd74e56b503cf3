"""Command line: ``pruner`` / ``python -m pruner``, one table of subcommands.

    pruner                 the UCI engine on stdin/stdout (also ``pruner uci``)
    pruner bench [depth]   fixed-depth bench: per-position nodes, then the totals
    pruner analyse ...     depth-limited analysis of FENs, EPD and PGN files (protocol/analyse_app/)
    pruner --interpreter auto|pypy|cpython|PATH ...   which Python runs it (protocol/interpreter.py)

Each subcommand's module is imported only when it runs, so ``pruner`` answers ``uci`` without
loading the analysis application, and a subcommand owns its own options: ``analyse`` gets its
arguments untouched.
"""

import argparse
import importlib
import os
import platform
import shlex
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional

from pruner import engine
from pruner import interpreter
from pruner.arguments import ArgumentParser, is_option, nearest


class Subcommand(NamedTuple):
    """One row of the table."""

    help: str
    module: str
    """Imported when the subcommand runs."""
    run: Callable[[object, List[str]], int]
    """``run(module, argv)``: the exit status."""
    parser: Optional[Callable[[object], ArgumentParser]] = None
    """``parser(module)``: the subcommand's argument parser, for the options it takes."""


def _serve(module: object, argv: List[str]) -> int:
    if argv:
        print("pruner uci: takes no arguments, got %s" % " ".join(argv), file=sys.stderr)
        return 2
    return module.serve()  # type: ignore[attr-defined]


def _bench_parser(module: object) -> ArgumentParser:
    parser = ArgumentParser(prog="pruner bench", description=SUBCOMMANDS["bench"].help)
    default = module.DEFAULT_DEPTH  # type: ignore[attr-defined]
    parser.add_argument("depth", nargs="?", type=int, help="search depth (default: %d)" % default)
    return parser


def _bench(module: object, argv: List[str]) -> int:
    args = _bench_parser(module).parse_args(argv)
    if args.depth is not None and args.depth < 1:
        print("pruner bench: depth must be at least 1", file=sys.stderr)
        return 2
    module.report(args.depth, lambda line: print(line, flush=True))  # type: ignore[attr-defined]
    return 0


def _analyse(module: object, argv: List[str]) -> int:
    status = module.main(argv)  # type: ignore[attr-defined]
    return status if isinstance(status, int) else 0


SUBCOMMANDS: Dict[str, Subcommand] = {
    "uci": Subcommand("speak UCI on stdin/stdout (the default)", "pruner.uci.loop", _serve),
    "bench": Subcommand("search the bench positions to a fixed depth; print nodes and speed", "pruner.engine.bench",
                        _bench, _bench_parser),
    "analyse": Subcommand("analyse positions or games (see `pruner analyse --help`)", "pruner.analyse_app.cli",
                          _analyse, lambda module: module.build_parser()),  # type: ignore[attr-defined]
}
"""Every subcommand of ``pruner``; without one, ``uci``. To add one: a row here and a module
with the function its ``run`` calls."""


def _version() -> str:
    """``--version``: the version and the Python it runs on, then which evaluation runs."""
    from pruner.engine.evaluate import describe_evaluation  # loads the net: only for --version
    return "Pruner %s (%s; %s)\n%s" % (engine.__version__, interpreter.running_on(), interpreter.reason(),
                                      describe_evaluation())


class _VersionAction(argparse.Action):
    """argparse's ``version`` action, with the text made when ``--version`` is given (``--help``
    and the other paths through ``_usage`` do not load the net)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Optional[str] = None) -> None:
        print(_version())
        parser.exit()


def _usage() -> ArgumentParser:
    parser = ArgumentParser(
        prog="pruner",
        description="Pruner, a UCI chess engine in Python. Without a command it speaks UCI on stdin/stdout.")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the version, the Python it runs on and the evaluation, and exit")
    parser.add_argument(interpreter.FLAG, metavar="WHICH",
                        help="auto (the default: PyPy for the engine when pypy3 is installed), pypy, cpython, or "
                             "the path of a PyPy executable; also the %s variable; goes before the command"
                             % interpreter.VARIABLE)
    commands = parser.add_subparsers(dest="command", metavar="command")
    for name, subcommand in SUBCOMMANDS.items():
        commands.add_parser(name, help=subcommand.help, add_help=False)
    return parser


PYPY_NURSERY = "4M"
"""PyPy's young-generation size for Pruner's processes (``PYPY_GC_NURSERY``). PyPy sizes it
from the cache size the system reports, half of it; a machine reporting a large shared cache
(480 MiB on the development VM) gets a 240 MB nursery, and the search ran 25-35% slower than
with 1-16 MB (4 MB measured best, docs/pypy.md) and held 240 MB more memory."""


def restart_with_pypy_nursery() -> None:
    """On PyPy on a POSIX system, when ``PYPY_GC_NURSERY`` is not set: set it to
    ``PYPY_NURSERY`` and replace this process by the same command run again (the process id,
    open files and standard streams stay; this checkout or installation first on the path).
    PyPy reads the variable only when a process starts, so ``main`` calls this first thing
    (``pruner`` on CPython sets it in the exec that starts PyPy: no second start there).
    Anywhere else, or when the variable is set (also to an empty string, which keeps PyPy's own
    choice), it returns; so does a failed ``execv``, and the program runs on as it is."""
    if platform.python_implementation() != "PyPy" or os.name != "posix" or "PYPY_GC_NURSERY" in os.environ:
        return
    # The same packages again, by their folders (an editable install has no pruner/ folder to
    # put on the path), before the working directory's files: protocol/run_pruner.py.
    try:
        command = interpreter.boot_command(sys.executable, sys.argv[1:], os.environ, None)
    except LookupError:
        return
    os.environ["PYPY_GC_NURSERY"] = PYPY_NURSERY
    try:
        os.execv(sys.executable, command)
    except OSError:
        del os.environ["PYPY_GC_NURSERY"]
        os.environ.pop(interpreter.BOOT, None)


def _misplaced_option(argv: List[str]) -> str:
    """What to say of an option before the command (``pruner --depth 3``): whose option it is,
    or the nearest one (``pruner`` takes only --help, --version and --interpreter itself)."""
    word = argv[0]
    owners = {}
    for name, subcommand in SUBCOMMANDS.items():
        if subcommand.parser is not None:
            for option in subcommand.parser(importlib.import_module(subcommand.module)).option_strings():
                owners.setdefault(option, name)
    option = word.split("=", 1)[0]
    if option in owners and option not in ("-h", "--help"):
        return "%s is an option of `pruner %s`; options go after the command: pruner %s %s" % (
            option, owners[option], owners[option], " ".join(shlex.quote(arg) for arg in argv))
    known = _usage().option_strings() + list(owners)
    suggestion = nearest(option, known)
    if suggestion is None:
        return "unknown option %s (see pruner --help)" % option
    where = "" if suggestion not in owners else "pruner %s " % owners[suggestion]
    return "unknown option %s; did you mean %s%s?" % (option, where, suggestion)


MOVED_BY_AUTO = ("uci", "bench", "--version")
"""The commands ``auto`` runs on PyPy (the engine without a command too); ``analyse`` stays,
since its extras (matplotlib, Dask, zstandard) are CPython packages."""


def main(argv: Optional[List[str]] = None,
         interpreter_default: interpreter.Request = interpreter.COMMAND_DEFAULT) -> int:
    """Entry point of the ``pruner`` console script; returns the exit status.
    ``interpreter_default``: what to run on unless ``--interpreter``/``PRUNER_INTERPRETER`` say
    (``auto`` for ``pruner``; ``python -m pruner`` stays where it was started)."""
    own_process = argv is None  # not a test calling main
    if own_process:  # PyPy's nursery first
        restart_with_pypy_nursery()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        flag, argv = interpreter.split_flag(argv)
        if own_process:  # may put PyPy in place of this process
            interpreter.start(flag, argv, not argv or argv[0] in MOVED_BY_AUTO, interpreter_default)
        else:
            interpreter.requested(flag, {}, interpreter_default)  # a bad --interpreter is still refused
    except ValueError as exc:
        print("pruner: %s" % exc, file=sys.stderr)
        return 2
    name = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    if name is None:
        if argv and is_option(argv[0]) and argv[0] not in _usage().option_strings():
            print("pruner: %s" % _misplaced_option(argv), file=sys.stderr)
            return 2
        if argv:  # --help, --version, or an unknown command: argparse answers and exits
            _usage().parse_args(argv)
        name = "uci"
    else:
        argv = argv[1:]
    subcommand = SUBCOMMANDS[name]
    try:
        module = importlib.import_module(subcommand.module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (subcommand.module == missing or subcommand.module.startswith(missing + ".")):
            raise  # the module exists but one of its own imports is missing: show that
        print("pruner: '%s' is not available in this build (%s is missing)" % (name, subcommand.module),
              file=sys.stderr)
        return 2
    return subcommand.run(module, argv)


if __name__ == "__main__":  # python -m pruner: the Python named runs it, unless told otherwise
    sys.exit(main(interpreter_default=interpreter.MODULE_DEFAULT))
