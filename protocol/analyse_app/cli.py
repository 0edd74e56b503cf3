"""``pruner analyse``: analyse FENs, EPD files and PGN files from the shell.

    pruner analyse [--depth N] [--nodes N] [--movetime MS] [--multipv K] [--jobs N]
                   [--format jsonl|csv|pgn] [-o FILE] [--side white|black] [--from-move N]
                   [--to-move N] [--where COND]... [--skip-games N] [--games N] [--input-format FMT]
                   [--hash MB] [--chess960] [--quiet] [--stall-timeout S]
                   [--engine CMD [--engine-option NAME=VALUE]...]
                   INPUT...

Tasks (one per position, one per game) run in ``--jobs`` worker processes, or with
``--engine`` on ``--jobs`` processes of that UCI engine; results are written in input order,
each flushed as soon as it and everything before it is done. The inputs are read as a
stream (``inputs.Inputs``, read ahead on a thread by ``stream.TaskFeed``), so memory does not
grow with them and the first records come at once however large they are.
Exit status: 0 when every input was usable, else the number of inputs that failed (bad FEN
or EPD line, broken PGN game, unreadable file, failed analysis) capped at 63; 64 for a
usage error (an ``--engine-option`` the engine refuses included) or an output file that
cannot be written (sysexits ``EX_USAGE``); 69 when the ``--cluster`` or the ``--engine``
cannot be used (``EX_UNAVAILABLE``); 74 when an output fails while it is written
(``EX_IOERR``: a full disk, standard output closed); 75 when another run is writing one of its
outputs (``-o``, ``--report``, ``--plot``: ``EX_TEMPFAIL``, see ``output_files.locked``); 130 when
interrupted (Ctrl-C), 143 when terminated (SIGTERM), 129 on SIGHUP. See docs/analysis.md and
docs/cluster.md.
"""

import argparse
import collections
import contextlib
import os
import signal
import stat
import threading
import sys
import time
from typing import IO, Callable, Deque, Iterable, Iterator, List, Optional


from pruner.engine.analysis import DEFAULT_DEPTH
from pruner.engine.cpus import physical_memory_mb, usable_cpus
from pruner.signals import is_ignored
from pruner.analyse_app.annotate import VARIATIONS
from pruner.analyse_app.filters import build_filter
from pruner.analyse_app.inputs import GameTask, Inputs, Selection, Task, file_arguments
from pruner.analyse_app import cluster_runner, uci_engine
from pruner.analyse_app.review import collect as review_collect
from pruner.analyse_app.output import FORMATS, Progress, make_writer
from pruner.analyse_app.pool import ProcessRunner
from pruner.analyse_app.resume import (ResumeError, RunSettings, check_settings, record_settings, resume_output,
                                     settings_path)
from pruner.analyse_app.sources import ZSTD_HINT, InputFormat, missing_zstandard, parse_input_format
from pruner.analyse_app.stream import STALL_SECONDS
from pruner.analyse_app.tasks import Settings
from pruner.arguments import ArgumentParser
from pruner.cluster import ClusterError
from pruner.output_files import (EXIT_BUSY, Named, OutputBusy, OutputError, describe_error, locked,
                                   same_file_problem)

MAX_FAILED_STATUS = 63
"""Exit status for this many failed inputs or more."""
EXIT_USAGE = 64
"""Bad command line (sysexits.h ``EX_USAGE``)."""
EXIT_UNAVAILABLE = cluster_runner.EXIT_UNAVAILABLE
"""The ``--cluster`` or the ``--engine`` cannot be used (sysexits.h ``EX_UNAVAILABLE``)."""
EXIT_IOERR = 74
"""An output could not be written: disk full, a device that fails, standard output closed
(sysexits.h ``EX_IOERR``)."""
EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C (128 + SIGINT)."""
EXIT_TERMINATED = 143
"""Stopped by SIGTERM (128 + SIGTERM), as Ctrl-C stops it."""
EXIT_HANGUP = 129
"""Stopped by SIGHUP (128 + SIGHUP: the terminal closed), as SIGTERM stops it."""
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that end a run as Ctrl-C does (Windows has no SIGHUP)."""



class UsageError(Exception):
    """A bad command line."""


class OutputConflict(UsageError):
    """An output that names an input or another output (refused before anything is written)."""


class _Parser(ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argument type: a whole number of at least ``minimum``, else a message that says so."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a whole number" % text)
        if value < minimum:
            raise argparse.ArgumentTypeError("must be at least %d, got %d" % (minimum, value))
        return value
    return parse


_count = _whole_number(0)
_positive = _whole_number(1)


def _seconds(text: str) -> Optional[float]:
    """A number of seconds, 0 meaning none (wait for ever)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text)
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be 0 (no limit) or more seconds, got %s" % text)
    return value or None


def build_parser() -> argparse.ArgumentParser:
    """The ``pruner analyse`` argument parser."""
    parser = _Parser(
        prog="pruner analyse",
        description="Analyse positions (FEN strings, EPD files) or games (PGN files) with Pruner. "
                    "Writes one JSON object per position to stdout unless told otherwise.",
        epilog="Exit status: 0 all inputs analysed; 1-63 that many inputs failed (63: 63 or more); "
               "64 usage error; 69 --cluster or --engine unavailable; 74 an output could not be written; "
               "75 another run is writing an output; "
               "129 hung up (SIGHUP); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM). Details: docs/analysis.md.")
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
    games = parser.add_argument_group("large inputs: which games, and how files are read (docs/analysis.md)")
    games.add_argument("--to-move", type=_positive, metavar="N", help="PGN: only the positions up to full move N")
    games.add_argument("--where", action="append", default=[], metavar="'TAG OP VALUE'",
                       help="PGN: only the games whose headers meet this condition (repeatable: all must); "
                            "OP: = != < <= > >= (< ... >= on numbers) or ~ (contains), case-sensitive: "
                            "'WhiteElo>=2000', 'Event~Rated Blitz'")
    games.add_argument("--skip-games", type=_count, default=0, metavar="N",
                       help="PGN: leave out the first N games (of those that meet --where); read past "
                            "their headers only")
    games.add_argument("--games", type=_positive, metavar="N",
                       help="PGN: at most N games (after --skip-games); the rest of the input is not read")
    games.add_argument("--input-format", metavar="FMT",
                       help="how to read every file and '-': pgn or epd, and/or a compression gz, bz2, xz, zst "
                            "(pgn.zst, epd.gz, zst); what it names overrides the file name (default: from "
                            "the name, e.g. games.pgn.zst; for '-' PGN or EPD from the content)")
    parser.add_argument("--variations", choices=VARIATIONS, default="judged",
                        help="--format pgn: the engine's line as a variation at judged moves (default, as "
                             "lichess does), at every move that was not the engine's best (all), or nowhere")
    parser.add_argument("--hash", type=_positive, default=16, metavar="MB",
                        help="transposition table per worker (default 16)")
    parser.add_argument("--chess960", action="store_true",
                        help="read FEN/EPD castling rights as Chess960 (detected on its own when unambiguous)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary on stderr")
    parser.add_argument("--stall-timeout", type=_seconds, default=STALL_SECONDS, metavar="S",
                        help="a --jobs worker process that gives no sign of life for S seconds (stopped, "
                             "frozen) is killed and its tasks retried; an --engine that sends nothing for S "
                             "seconds beyond --movetime fails its task (default %g; 0: wait for ever)"
                             % STALL_SECONDS)
    review_collect.add_arguments(parser)  # --report FILE.html, --plot FILE.png
    uci_engine.add_arguments(parser)  # --engine CMD, --engine-option NAME=VALUE
    cluster_runner.add_arguments(parser)  # --cluster ADDRESS, --resume
    return parser



def _selection(args: argparse.Namespace) -> Selection:
    """What to read and how, from the options; UsageError naming a bad one."""
    try:
        games = build_filter(args.where, args.skip_games, args.games)
    except ValueError as exc:
        raise UsageError(str(exc))
    input_format: InputFormat = (None, None)
    if args.input_format is not None:
        try:
            input_format = parse_input_format(args.input_format)
        except ValueError as exc:
            raise UsageError("--input-format %s" % exc)
    if args.from_move is not None and args.to_move is not None and args.to_move < args.from_move:
        raise UsageError("--to-move %d is before --from-move %d" % (args.to_move, args.from_move))
    if input_format[1] == "zst" or any(name.lower().endswith(".zst") for name in args.inputs):
        problem = missing_zstandard()
        if problem:
            raise UsageError(".zst input needs %s: %s" % (problem, ZSTD_HINT))
    side = None if args.side is None else args.side == "white"
    return Selection(chess960=args.chess960, side=side, from_move=args.from_move, to_move=args.to_move,
                     games=games, input_format=input_format)


def _hash_problem(args: argparse.Namespace) -> Optional[str]:
    """Why ``--hash`` cannot be had: every worker here (``--jobs``, or the engine processes of
    ``--engine``) takes a table of that size, and together they must fit in the machine's
    memory; else each input would fail with a MemoryError. Not checked with ``--cluster`` (the
    workers are other machines) or where the system does not tell its memory."""
    memory = physical_memory_mb()
    if args.cluster or memory is None:
        return None
    jobs = args.jobs or usable_cpus()
    if args.hash * jobs <= memory:
        return None
    what = "more" if args.hash > memory else "%d workers of %d MB are more" % (jobs, args.hash)
    return "--hash %d: %s than this machine's memory (%d MB); at most %d with --jobs %d" % (
        args.hash, what, memory, memory // jobs, jobs)


def _outputs(args: argparse.Namespace) -> List[Named]:
    """The files the run writes, by option (locked for the run: ``output_files.locked``)."""
    return [(option, path) for option, path in (("-o", args.output), ("--report", args.report),
                                                ("--plot", args.plot)) if path is not None]


def _output_problem(args: argparse.Namespace, stdin: Optional[IO[str]]) -> Optional[str]:
    """Why the outputs cannot be written: one of them is an input (it would be destroyed before
    it is read) or another output; asked before anything is opened for writing."""
    outputs = _outputs(args)
    if args.output is not None:
        outputs.append(("the settings of -o", settings_path(args.output)))
    inputs = [("input", path) for path in file_arguments(args.inputs)]
    return same_file_problem(outputs, inputs, (stdin or sys.stdin) if "-" in args.inputs else None)


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
    stdout = stdout or sys.stdout  # None when started with standard output closed
    stderr = stderr or sys.stderr or open(os.devnull, "w")
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        review = review_collect.from_args(args, parser)  # None without --report/--plot
        problem = cluster_runner.check_arguments(args) or uci_engine.check_arguments(args) or _hash_problem(args)
        if problem is not None:
            raise UsageError(problem)
        selection = _selection(args)
        problem = _output_problem(args, stdin)
        if problem is not None:
            raise OutputConflict(problem)
        engine_name = None
        if args.engine_command and not args.cluster:  # the cluster runner checks on a worker
            engine_name = uci_engine.probe(args.engine_command, args.hash, args.engine_options)
    except (UsageError, uci_engine.EngineOptionError) as exc:
        if not isinstance(exc, OutputConflict):  # not a matter of syntax: the usage would not help
            parser.print_usage(stderr)
        stderr.write("pruner analyse: error: %s\n" % exc)
        return EXIT_USAGE
    except uci_engine.EngineStartError as exc:
        stderr.write("pruner analyse: %s\n" % exc)
        return EXIT_UNAVAILABLE
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    settings = _settings(args, engine_name)
    try:
        # Held until the review is written: a second run on one of these outputs is refused.
        with locked(_outputs(args)), _terminate_as_interrupt():
            return _run(args, settings, selection, review, stdout, stderr, stdin)
    except OutputBusy as exc:
        stderr.write("pruner analyse: %s\n" % exc)
        return EXIT_BUSY
    except KeyboardInterrupt as exc:  # after the records (the review being drawn, the summary)
        _say(stderr, "pruner analyse: %s" % ("terminated" if isinstance(exc, Terminated) else "interrupted"))
        return _interrupted_status(exc)


def _run(args: argparse.Namespace, settings: Settings, selection: Selection,
         review: Optional[review_collect.ReviewCollector], stdout: Optional[IO[str]], stderr: IO[str],
         stdin: Optional[IO[str]]) -> int:
    """The run of a checked command line: read, analyse, write; the exit status."""
    started = time.monotonic()
    progress = Progress(0, stderr, enabled=False)
    lock = threading.RLock()  # stderr: messages come from the input reader's thread too

    def report(message: str) -> None:
        with lock:
            progress.clear()
            _say(stderr, "pruner analyse: %s" % message)
            progress.draw()

    def advance(count: int) -> None:
        with lock:
            progress.advance(count)

    inputs = Inputs(args.inputs, report, selection, stdin)
    tasks: Iterable[Task] = inputs
    resumed = None
    where = "standard output" if args.output is None else "-o %s" % args.output
    recorded = _run_settings(args, settings)
    try:
        if args.resume:  # keep what an interrupted run wrote; analyse the rest (resume.py)
            note = check_settings(args.output, recorded) if _has_output(args.output) else None
            resumed = resume_output(args.output, args.format, inputs, args.multipv)
            out, tasks = resumed.stream, resumed.tasks
            if note is not None:
                report("%s: %s" % (where, note))
            if resumed.done_tasks and not args.quiet:
                report("resuming %s: %d positions kept, %d inputs done" % (
                    args.output, resumed.done_positions, resumed.done_tasks))
        elif args.output is None:
            if stdout is None:  # started with its standard output closed (`>&-`)
                report("standard output: cannot write: it is closed (give -o FILE)")
                return EXIT_IOERR
            out = stdout
        else:
            out = open(args.output, "w", encoding="utf-8", newline="")
    except KeyboardInterrupt as exc:
        return _interrupted_status(exc)
    except ResumeError as exc:
        report("cannot resume: %s" % exc)
        return EXIT_USAGE
    except OSError as exc:
        report("%s: cannot write: %s" % (args.output, describe_error(exc)))
        return EXIT_USAGE
    positions = games = failed = 0
    status = None
    stop: Optional[BaseException] = None
    try:
        if out is not stdout and _is_regular(out):  # for a later --resume to check
            try:
                record_settings(args.output, recorded)
            except OSError as exc:
                raise OutputError("%s (its settings, %s)" % (where, settings_path(args.output)), exc) from None
        try:
            writer = resumed.writer(args.format) if resumed else make_writer(args.format, out)
        except OSError as exc:  # the CSV header
            raise OutputError(where, exc) from None
        progress = Progress(None, stderr, enabled=not args.quiet and _isatty(stderr))
        passing = _Passing(tasks, lambda total: progress.set_total(total))
        with _runner(args, settings, advance, report) as runner:
            settings = runner.settings  # the cluster runner names the engine it found on a worker
            for result in runner.run(passing):
                task = passing.result_of()
                if result.error is not None:
                    failed += 1
                    report("%s: %s" % (result.source, result.error))
                with _interrupts_deferred():  # Ctrl-C lands before or after a result, never inside
                    try:
                        positions += writer.write(result)
                    except BrokenPipeError:
                        raise
                    except OSError as exc:
                        raise OutputError(where, exc) from None
                if isinstance(task, GameTask) and result.error is None:
                    games += 1
                    progress.games = games
                if review is not None:
                    review.keep(task, result, report)
    except KeyboardInterrupt as exc:
        stop = exc
    except ClusterError as exc:
        report(str(exc))
        status = EXIT_UNAVAILABLE
    except uci_engine.EngineOptionError as exc:  # --cluster: refused on a worker before any work
        report("error: %s" % exc)
        status = EXIT_USAGE
    except uci_engine.EngineStartError as exc:
        report(str(exc))
        status = EXIT_UNAVAILABLE
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        _silence(out)
        return min(failed + inputs.failed, MAX_FAILED_STATUS)
    except OutputError as exc:  # disk full, a device that fails: one line, and stop
        _silence(out)
        report(str(exc))
        status = EXIT_IOERR
    finally:
        progress.finish()
        if out is not stdout:
            try:
                out.close()
            except OSError as exc:  # what was still buffered could not be written
                if status is None and stop is None:
                    report(str(OutputError(where, exc)))
                    status = EXIT_IOERR
    if stop is not None:
        _say(stderr, "pruner analyse: %s; %d positions written" % (
            "terminated" if isinstance(stop, Terminated) else "interrupted", positions))
        return _interrupted_status(stop)
    if status is not None:
        return status
    failed += inputs.failed
    if review is not None:
        try:
            if not review.finish(settings, report):
                return EXIT_USAGE
        except OutputError as exc:
            report(str(exc))
            return EXIT_IOERR
    if not args.quiet:
        elapsed = time.monotonic() - started
        _say(stderr, "pruner analyse: %d position%s in %.1f s (%.1f/s)%s%s" % (
            positions, "" if positions == 1 else "s", elapsed, positions / elapsed if elapsed > 0 else 0.0,
            ", %d game%s" % (games, "" if games == 1 else "s") if games else "",
            "; %d input%s failed" % (failed, "" if failed == 1 else "s") if failed else ""))
    return min(failed, MAX_FAILED_STATUS)


def _run_settings(args: argparse.Namespace, settings: Settings) -> RunSettings:
    """What makes the records of this run, by option, as ``--resume`` checks them (resume.py).
    The engine is named by its ``id name`` (Pruner by its version); under ``--cluster`` that
    is known only once a worker has started it, so its command stands in."""
    engine = {"engine": settings.engine_text()} if settings.engine_name or not args.engine_command \
        else {"--engine": args.engine}
    engine_options = [[name.lower(), value] for name, value in sorted(args.engine_options,
                                                                        key=lambda pair: pair[0].lower())]
    return dict(engine, **{
        "--format": args.format, "--depth": settings.depth, "--nodes": settings.nodes,
        "--movetime": settings.movetime_ms, "--multipv": settings.multipv, "--hash": settings.hash_mb,
        "--variations": settings.variations if args.format == "pgn" else None,
        "--engine-option": engine_options, "--chess960": args.chess960, "--side": args.side,
        "--from-move": args.from_move, "--to-move": args.to_move, "--where": list(args.where),
        "--skip-games": args.skip_games, "--games": args.games, "--input-format": args.input_format})


def _has_output(path: str) -> bool:
    """Whether ``path`` holds output to continue (it exists and is not empty)."""
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _is_regular(stream: IO[str]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


def _runner(args: argparse.Namespace, settings: Settings, advance: Callable[[int], None],
            report: Callable[[str], None]):
    """The runner the options ask for: Dask, another UCI engine, or worker processes here."""
    jobs = args.jobs or usable_cpus()
    if args.cluster:  # Dask (protocol/analyse_app/cluster_runner.py)
        return cluster_runner.ClusterRunner(args.cluster, settings, advance,
                                            (lambda message: None) if args.quiet else report,
                                            engine=args.engine_command, engine_options=args.engine_options)
    if args.engine_command:  # another UCI engine, --jobs processes (protocol/analyse_app/uci_engine.py)
        return uci_engine.EngineRunner(args.engine_command, args.engine_options, settings, jobs, advance,
                                       stall_seconds=args.stall_timeout)
    return ProcessRunner(settings, jobs, advance, stall_seconds=args.stall_timeout, say=report)


def _say(stream: IO[str], line: str) -> None:
    """A line on stderr; when even that cannot be written, there is nobody left to tell."""
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


class _Passing:
    """The tasks on their way to the runner, each remembered until its result is back (results
    come in task order), and ``on_end(positions)`` once the input is read to its end: the
    total for the progress bar."""

    def __init__(self, tasks: Iterable[Task], on_end: Callable[[int], None]) -> None:
        self._tasks = tasks
        self._on_end = on_end
        self._waiting: Deque[Task] = collections.deque()

    def __iter__(self) -> Iterator[Task]:
        work = 0
        for task in self._tasks:
            work += task.work
            self._waiting.append(task)
            yield task
        self._on_end(work)

    def result_of(self) -> Task:
        """The task whose result comes next."""
        return self._waiting.popleft()


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``) or SIGHUP (the terminal closed): the run stops as on Ctrl-C,
    with status 128 + the signal's number (143, 129)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__()
        self.signum = signum


def _interrupted_status(stop: BaseException) -> int:
    return 128 + stop.signum if isinstance(stop, Terminated) else EXIT_INTERRUPTED


class _DeferredInterrupt:
    """Ctrl-C or SIGTERM that waits while a result is being written, so the written count
    matches the output (the same prefix of it whichever signal stops the run).

    Blocking the signals with ``pthread_sigmask`` is not enough: with ``--jobs N`` the pool's
    helper threads can take them, and Python then raises KeyboardInterrupt in the main thread
    anyway. Python handlers always run in the main thread, so this one decides there.
    """

    def __init__(self) -> None:
        self.writing = False
        self.pending: Optional[BaseException] = None

    def handler(self, signum, frame) -> None:
        stop = Terminated(signum) if signum in STOP_SIGNALS else KeyboardInterrupt()
        if not self.writing:
            raise stop
        if self.pending is None or isinstance(stop, Terminated):
            self.pending = stop

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        self.writing = True
        try:
            yield
        finally:
            self.writing = False
        if self.pending is not None:
            stop, self.pending = self.pending, None
            raise stop


_INTERRUPT = _DeferredInterrupt()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """For the run: SIGTERM and SIGHUP stop it as Ctrl-C does (``Terminated``), unless ignored
    (``nohup`` ignores SIGHUP: it stays so). Left at their default, they would kill the run
    without its last words, and the pool's resource tracker would warn of leaked semaphores."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be installed from the main thread
        return
    previous = {number: signal.signal(number, _INTERRUPT.handler) for number in STOP_SIGNALS
                if signal.getsignal(number) is signal.SIG_DFL and not is_ignored(number)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while a result is written (see ``_DeferredInterrupt``)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be installed from the main thread
        return
    previous = signal.signal(signal.SIGINT, _INTERRUPT.handler) \
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler else None
    try:
        with _INTERRUPT.deferred():
            yield
    finally:
        if previous is not None:
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
