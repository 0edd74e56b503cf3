"""``pruner analyse``: analyse FENs, EPD files and PGN files from the shell.

    pruner analyse [--depth N] [--nodes N] [--movetime MS] [--multipv K] [--jobs N]
                   [--format jsonl|csv|pgn] [-o FILE] [--side white|black] [--from-move N]
                   [--hash MB] [--chess960] [--quiet] [--engine CMD [--engine-option NAME=VALUE]...]
                   INPUT...

Tasks (one per position, one per game) run in ``--jobs`` worker processes, or with
``--engine`` on ``--jobs`` processes of that UCI engine; results are written in input order,
each flushed as soon as it and everything before it is done.
Exit status: 0 when every input was usable, else the number of inputs that failed (bad FEN
or EPD line, broken PGN game, unreadable file, failed analysis) capped at 63; 64 for a
usage error (an ``--engine-option`` the engine refuses included) or an output file that
cannot be written (sysexits ``EX_USAGE``); 69 when the ``--cluster`` or the ``--engine``
cannot be used (``EX_UNAVAILABLE``); 130 when interrupted (Ctrl-C). See docs/analysis.md
and docs/cluster.md.
"""

import argparse
import contextlib
import multiprocessing
import os
import signal
import threading
import sys
import time
from functools import partial
from typing import IO, Callable, Iterator, List, Optional


from engine.analysis import DEFAULT_DEPTH
from engine.cpus import usable_cpus
from protocol.analyse.annotate import VARIATIONS
from protocol.analyse.inputs import Task, read_inputs
from protocol.analyse import cluster_runner, uci_engine
from protocol.analyse.review import collect as review_collect
from protocol.analyse.output import FORMATS, Progress, make_writer
from protocol.analyse.resume import ResumeError, resume_output
from protocol.analyse.tasks import Settings, TaskResult, run_task
from protocol.cluster import ClusterError

MAX_FAILED_STATUS = 63
"""Exit status for this many failed inputs or more."""
EXIT_USAGE = 64
"""Bad command line (sysexits.h ``EX_USAGE``)."""
EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C (128 + SIGINT)."""

POLL_SECONDS = 0.1
"""How often the parent process collects progress ticks while it waits for a result."""


class UsageError(Exception):
    """A bad command line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % value)
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``pruner analyse`` argument parser."""
    parser = _Parser(
        prog="pruner analyse",
        description="Analyse positions (FEN strings, EPD files) or games (PGN files) with Pruner. "
                    "Writes one JSON object per position to stdout unless told otherwise.",
        epilog="Exit status: 0 all inputs analysed; 1-63 that many inputs failed (63: 63 or more); "
               "64 usage error; 69 --cluster or --engine unavailable; 130 interrupted. Details: docs/analysis.md.")
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="a FEN or EPD string (quoted) or 'startpos', an .epd file (any non-.pgn file "
                             "is read as one FEN/EPD per line), a .pgn file, or '-' for standard input")
    limits = parser.add_argument_group("limits (any combination: the first one reached ends a search; "
                                       "default --depth %d)" % DEFAULT_DEPTH)
    limits.add_argument("--depth", type=_positive, metavar="N", help="search depth in plies")
    limits.add_argument("--nodes", type=_positive, metavar="N", help="nodes per position")
    limits.add_argument("--movetime", type=_positive, metavar="MS", help="milliseconds per position")
    parser.add_argument("--multipv", type=_positive, default=1, metavar="K", help="best K lines per position")
    parser.add_argument("--jobs", "-j", type=_positive, default=None, metavar="N",
                        help="worker processes (default: CPUs available, %d here)" % usable_cpus())
    parser.add_argument("--format", choices=FORMATS, default="jsonl",
                        help="jsonl (default), csv (a row per position and line), or pgn (annotated games)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    parser.add_argument("--side", choices=("white", "black"),
                        help="PGN: only the positions with this side to move (its moves)")
    parser.add_argument("--from-move", type=_positive, metavar="N",
                        help="PGN: only the positions from full move N on")
    parser.add_argument("--variations", choices=VARIATIONS, default="judged",
                        help="--format pgn: the engine's line as a variation at judged moves (default, as "
                             "lichess does), at every move that was not the engine's best (all), or nowhere")
    parser.add_argument("--hash", type=_positive, default=16, metavar="MB",
                        help="transposition table per worker (default 16)")
    parser.add_argument("--chess960", action="store_true",
                        help="read FEN/EPD castling rights as Chess960 (detected on its own when unambiguous)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary on stderr")
    review_collect.add_arguments(parser)  # --report FILE.html, --plot FILE.png
    uci_engine.add_arguments(parser)  # --engine CMD, --engine-option NAME=VALUE
    cluster_runner.add_arguments(parser)  # --cluster ADDRESS, --resume
    return parser


def _worker_init(queue) -> None:
    """Worker processes leave Ctrl-C to the parent, which terminates them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _TICKS
    _TICKS = queue


_TICKS = None  # the worker's progress queue (set by _worker_init in each worker process)


def _worker_tick(n: int) -> None:
    _TICKS.put(n)


def _worker_run(settings: Settings, task: Task) -> TaskResult:
    return run_task(task, settings, _worker_tick)


class Runner:
    """Runs tasks in order, in-process (``jobs == 1``) or on a process pool; a context manager."""

    def __init__(self, settings: Settings, jobs: int, tick: Callable[[int], None]) -> None:
        self.settings = settings
        self.jobs = jobs
        self.tick = tick
        self._pool = None

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.terminate()  # nothing left to wait for, or interrupted: stop now
            self._pool.join()
            self._pool = None

    def run(self, tasks: List[Task]) -> Iterator[TaskResult]:
        """Results in the order of ``tasks``."""
        if self.jobs <= 1 or len(tasks) <= 1:
            for task in tasks:
                yield run_task(task, self.settings, self.tick)
            return
        context = multiprocessing.get_context()
        ticks = context.SimpleQueue()
        self._pool = context.Pool(min(self.jobs, len(tasks)), initializer=_worker_init, initargs=(ticks,))
        results = self._pool.imap(partial(_worker_run, self.settings), tasks, chunksize=1)
        while True:
            try:
                result = results.next(POLL_SECONDS)
            except multiprocessing.TimeoutError:
                self._drain(ticks)
                continue
            except StopIteration:
                break
            self._drain(ticks)
            yield result

    def _drain(self, ticks) -> None:
        while not ticks.empty():
            self.tick(ticks.get())


def _settings(args: argparse.Namespace, engine_name: Optional[str] = None) -> Settings:
    depth = args.depth
    if depth is None and args.nodes is None and args.movetime is None:
        depth = DEFAULT_DEPTH
    return Settings(depth=depth, nodes=args.nodes, movetime_ms=args.movetime, multipv=args.multipv,
                    hash_mb=args.hash, want_pgn=args.format == "pgn", variations=args.variations,
                    engine_name=engine_name)


def main(argv: Optional[List[str]] = None, stdout: Optional[IO[str]] = None,
         stderr: Optional[IO[str]] = None, stdin: Optional[IO[str]] = None) -> int:
    """Run ``pruner analyse`` with ``argv`` (without the command name); returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        review = review_collect.from_args(args, parser)  # None without --report/--plot
        problem = cluster_runner.check_arguments(args) or uci_engine.check_arguments(args)
        if problem is not None:
            raise UsageError(problem)
        engine_name = None
        if args.engine_command and not args.cluster:  # the cluster runner checks on a worker
            engine_name = uci_engine.probe(args.engine_command, args.hash, args.engine_options)
    except (UsageError, uci_engine.EngineOptionError) as exc:
        parser.print_usage(stderr)
        stderr.write("pruner analyse: error: %s\n" % exc)
        return EXIT_USAGE
    except uci_engine.EngineStartError as exc:
        stderr.write("pruner analyse: %s\n" % exc)
        return cluster_runner.EXIT_UNAVAILABLE
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    settings = _settings(args, engine_name)

    started = time.monotonic()
    progress = Progress(0, stderr, enabled=False)

    def report(message: str) -> None:
        progress.clear()
        stderr.write("pruner analyse: %s\n" % message)
        stderr.flush()
        progress.draw()

    side = None if args.side is None else args.side == "white"
    try:
        tasks, failed = read_inputs(args.inputs, report, chess960=args.chess960, side=side,
                                    from_move=args.from_move, stdin=stdin)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    resumed = None
    try:
        if args.resume:  # keep what an interrupted run wrote; analyse the rest (resume.py)
            resumed = resume_output(args.output, args.format, tasks, args.multipv)
            out, tasks = resumed.stream, resumed.tasks
            if resumed.done_tasks and not args.quiet:
                report("resuming %s: %d positions kept, %d inputs left" % (
                    args.output, resumed.done_positions, len(tasks)))
        else:
            out = stdout if args.output is None else open(args.output, "w", encoding="utf-8", newline="")
    except ResumeError as exc:
        report("cannot resume: %s" % exc)
        return EXIT_USAGE
    except OSError as exc:
        report("%s: cannot write: %s" % (args.output, exc.strerror or exc))
        return EXIT_USAGE
    positions = 0
    status = None
    try:
        writer = resumed.writer(args.format) if resumed else make_writer(args.format, out)
        if review is not None:
            writer = review.wrap(writer)
        progress = Progress(sum(task.work for task in tasks), stderr,
                            enabled=not args.quiet and _isatty(stderr))
        jobs = args.jobs or usable_cpus()
        if args.cluster:  # Dask (protocol/analyse/cluster_runner.py)
            runner = cluster_runner.ClusterRunner(args.cluster, settings, progress.advance,
                                                   (lambda message: None) if args.quiet else report,
                                                   engine=args.engine_command, engine_options=args.engine_options)
        elif args.engine_command:  # another UCI engine, --jobs processes (protocol/analyse/uci_engine.py)
            runner = uci_engine.EngineRunner(args.engine_command, args.engine_options, settings, jobs,
                                             progress.advance)
        else:
            runner = Runner(settings, jobs, progress.advance)
        with runner:
            settings = runner.settings  # the cluster runner names the engine it found on a worker
            for result in runner.run(tasks):
                if result.error is not None:
                    failed += 1
                    report("%s: %s" % (result.source, result.error))
                with _sigint_deferred():  # Ctrl-C lands before or after a result, never inside
                    positions += writer.write(result)
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except ClusterError as exc:
        report(str(exc))
        status = cluster_runner.EXIT_UNAVAILABLE
    except uci_engine.EngineOptionError as exc:  # --cluster: refused on a worker before any work
        report("error: %s" % exc)
        status = EXIT_USAGE
    except uci_engine.EngineStartError as exc:
        report(str(exc))
        status = cluster_runner.EXIT_UNAVAILABLE
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        _silence(out)
        return min(failed, MAX_FAILED_STATUS)
    finally:
        progress.finish()
        if out is not stdout:
            out.close()
    if status == EXIT_INTERRUPTED:
        stderr.write("pruner analyse: interrupted; %d positions written\n" % positions)
        return status
    if status is not None:
        return status
    if review is not None and not review.finish(tasks, settings, report):
        return EXIT_USAGE
    if not args.quiet:
        stderr.write("pruner analyse: %d position%s in %.1f s%s\n" % (
            positions, "" if positions == 1 else "s", time.monotonic() - started,
            "; %d input%s failed" % (failed, "" if failed == 1 else "s") if failed else ""))
    return min(failed, MAX_FAILED_STATUS)


class _DeferredSigint:
    """Ctrl-C that waits while a result is being written, so the written count matches the output.

    Blocking SIGINT with ``pthread_sigmask`` is not enough: with ``--jobs N`` the pool's helper
    threads can take the signal, and Python then raises KeyboardInterrupt in the main thread
    anyway. Python handlers always run in the main thread, so this one decides there.
    """

    def __init__(self) -> None:
        self.writing = False
        self.pending = False

    def handler(self, signum, frame) -> None:
        if self.writing:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        self.writing = True
        try:
            yield
        finally:
            self.writing = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


_SIGINT = _DeferredSigint()


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C back while a result is written (see ``_DeferredSigint``)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be installed from the main thread
        return
    previous = signal.signal(signal.SIGINT, _SIGINT.handler)
    try:
        with _SIGINT.deferred():
            yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _silence(stream: IO[str]) -> None:
    """After a broken pipe, keep the interpreter's final flush of ``stream`` from failing."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (AttributeError, OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
