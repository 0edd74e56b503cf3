"""``pruner analyse --engine CMD``: any UCI engine behind the same tasks, records, PGN and review.

``UciAnalyser`` is an ``Analyser`` look-alike that drives one engine process through
python-chess's ``chess.engine``: ``new_game()`` makes the next search send ``ucinewgame``
(the engine forgets its tables, like ``Analyser.new_game``), ``analyse()`` sends
``position``/``go`` and turns the final ``info`` lines into an ``pruner.engine.analysis.Analysis``.
With Pruner as the engine the records equal the in-process ones at a fixed depth or node
count (same search, same tables), apart from ``time_ms``.

Without ``--cluster``, ``EngineRunner`` runs the tasks on ``--jobs`` such engines, one
thread of this process driving each (the engines do the searching; the threads wait);
with ``--cluster`` each Dask worker thread keeps one (``cluster_runner``). The engine's own
settings come from ``--engine-option NAME=VALUE``: ``probe`` starts the engine once before
anything is analysed and refuses an option the engine does not have or a value it would not
take, naming it.
"""

import argparse
import asyncio
import logging
import queue
import shlex
import threading
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import chess
import chess.engine

from pruner.engine.analysis import Analysis, Line, san_line
from pruner.engine.position import unplayable
from pruner.analyse_app.inputs import Task
from pruner.analyse_app.stream import IN_FLIGHT_PER_JOB, STALL_SECONDS, in_order
from pruner.analyse_app.tasks import Settings, TaskFailure, TaskResult, run_task

INFO = chess.engine.INFO_ALL
START_TIMEOUT = 30.0
"""Seconds an engine may take to answer ``uci``/``isready`` (and any other command but ``go``)."""
POLL_SECONDS = 0.1
"""How often the runner looks whether the run is over while it waits for a result."""

MANAGED_HINTS = {"multipv": " (use --multipv)", "uci_chess960": " (from the position)",
                 "ponder": " (analysis never ponders)", "uci_variant": " (standard chess or Chess960 only)"}
"""Why an option python-chess sets on its own cannot be given."""

EngineOptions = Tuple[Tuple[str, str], ...]
"""``--engine-option`` pairs (name, value) as given, in order."""


class EngineStartError(Exception):
    """The engine cannot be started or does not speak UCI."""


class EngineOptionError(Exception):
    """An ``--engine-option`` the engine does not have, or a value it would not take."""


class EngineFault(TaskFailure):
    """The engine answered a search with something unusable (an illegal or garbled
    ``bestmove``, no principal variation) or stopped answering: its task fails with this
    reason, the engine is stopped and the next task gets a new one."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--engine-option`` on the ``pruner analyse`` parser."""
    group = parser.add_argument_group("another UCI engine (docs/analysis.md)")
    group.add_argument("--engine", metavar="CMD",
                       help="search with this UCI engine instead of Pruner in-process, e.g. /usr/games/stockfish "
                            "or 'pypy3 -m pruner' (--jobs N: N engine processes; with --cluster: one per "
                            "worker thread)")
    group.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                       help="set a UCI option of --engine, e.g. 'Threads=2' or 'Skill Level=10' (repeatable); "
                            "checked against the engine's own list before anything is analysed")


def parse_engine_options(texts: Sequence[str]) -> EngineOptions:
    """``NAME=VALUE`` texts as (name, value) pairs; ValueError naming the bad one."""
    pairs: List[Tuple[str, str]] = []
    seen = set()
    for text in texts:
        name, equals, value = text.partition("=")
        name = name.strip()
        if not equals or not name:
            raise ValueError("--engine-option %r: expected NAME=VALUE" % text)
        if name.lower() in seen:
            raise ValueError("--engine-option %r: %s is given twice" % (text, name))
        seen.add(name.lower())
        pairs.append((name, value.strip()))
    return tuple(pairs)


def check_arguments(args: argparse.Namespace) -> Optional[str]:
    """A usage error message for ``--engine``/``--engine-option``, or None; sets
    ``args.engine_command`` (a list, or None) and ``args.engine_options`` (pairs)."""
    args.engine_command = None
    args.engine_options = ()
    if args.engine_option and args.engine is None:
        return "--engine-option needs --engine"
    if args.engine is None:
        return None
    try:
        args.engine_command = shlex.split(args.engine)
    except ValueError as exc:
        return "--engine: %s" % exc
    if not args.engine_command:
        return "--engine: empty command"
    try:
        args.engine_options = parse_engine_options(args.engine_option)
    except ValueError as exc:
        return str(exc)
    return None


def engine_config(options: "chess.engine.UciOptionMap[chess.engine.Option]", hash_mb: Optional[int],
                  pairs: EngineOptions) -> Dict[str, chess.engine.ConfigValue]:
    """The ``configure`` mapping for an engine declaring ``options``: ``UCI_ShowWDL`` on and
    ``Hash`` from ``--hash`` (when the engine has them and no ``--engine-option`` sets them),
    then every pair, checked
    against the engine's declaration; EngineOptionError naming the first bad one."""
    config: Dict[str, chess.engine.ConfigValue] = {}
    given = {name.lower() for name, _ in pairs}
    if "UCI_ShowWDL" in options and "uci_showwdl" not in given:
        config[options["UCI_ShowWDL"].name] = True  # the engine's own wdl goes into the records
    if hash_mb is not None and "Hash" in options and "hash" not in given:
        try:
            config[options["Hash"].name] = options["Hash"].parse(hash_mb)
        except chess.engine.EngineError as exc:
            raise EngineOptionError("--hash %d: %s" % (hash_mb, exc))
    for name, value in pairs:
        shown = "--engine-option '%s=%s'" % (name, value)
        option = options.get(name)
        if option is None:
            raise EngineOptionError("%s: the engine has no option %r (it has: %s)" % (
                shown, name, ", ".join(sorted(options, key=str.lower)) or "none"))
        if option.is_managed():
            raise EngineOptionError("%s: %s is set by pruner analyse itself%s" % (
                shown, option.name, MANAGED_HINTS.get(option.name.lower(), "")))
        if option.type in ("button", "reset", "save"):
            raise EngineOptionError("%s: %s is a button, not a setting" % (shown, option.name))
        if option.type == "check":
            if value.lower() not in ("true", "false"):
                raise EngineOptionError("%s: %s is a check option: true or false" % (shown, option.name))
            config[option.name] = value.lower() == "true"
            continue
        if option.type == "combo":  # the engine's own spelling of the value
            value = next((choice for choice in option.var or [] if choice.lower() == value.lower()), value)
        try:
            config[option.name] = option.parse(value)
        except chess.engine.EngineError as exc:
            raise EngineOptionError("%s: %s" % (shown, exc))
    return config


def start_engine(command: Sequence[str], timeout: float = START_TIMEOUT,
                 setpgrp: bool = False) -> chess.engine.SimpleEngine:
    """The engine process, past ``uci``/``uciok``; EngineStartError saying why not."""
    try:
        return chess.engine.SimpleEngine.popen_uci(list(command), timeout=timeout, setpgrp=setpgrp)
    except (OSError, chess.engine.EngineError, asyncio.TimeoutError, TimeoutError) as exc:
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
            reason = "no uciok within %g s" % timeout
        raise EngineStartError("--engine %s: cannot start it: %s" % (shlex.join(list(command)), reason))


def probe(command: Sequence[str], hash_mb: Optional[int], pairs: EngineOptions,
          timeout: float = START_TIMEOUT) -> str:
    """Start the engine, check the options against its declaration, quit; its name
    (``id name``, else the command). EngineStartError or EngineOptionError otherwise."""
    analyser = UciAnalyser(command, hash_mb, timeout, pairs)
    try:
        return analyser.name
    finally:
        analyser.close()


class UciAnalyser:
    """One UCI engine process with ``Analyser``'s ``analyse``/``new_game`` interface.

    A search that the engine answers with an illegal or garbled ``bestmove``, without a
    principal variation, or not at all (silent for ``stall_seconds`` beyond its move time)
    raises ``EngineFault`` and the process is killed. (python-chess, given an illegal
    ``bestmove`` after the search has started, reports it to its event loop's exception
    handler and leaves the search waiting for ever: the handler here ends it instead.)"""

    def __init__(self, command: Sequence[str], hash_mb: Optional[int] = 16, timeout: float = START_TIMEOUT,
                 options: EngineOptions = (), setpgrp: bool = False,
                 stall_seconds: Optional[float] = STALL_SECONDS) -> None:
        """Start ``command`` and configure it (``Hash`` from ``hash_mb``, then ``options``);
        EngineStartError or EngineOptionError (the process is gone then)."""
        self.command = list(command)
        self.stall_seconds = stall_seconds
        self._search: Optional[chess.engine.AnalysisResult] = None
        """The search in progress (touched on the engine's event loop only)."""
        self._killed = False
        _quiet_engine_logs()
        self.engine = start_engine(self.command, timeout, setpgrp)
        self.engine.protocol.loop.call_soon_threadsafe(self.engine.protocol.loop.set_exception_handler,
                                                       self._loop_error)
        try:
            self.engine.configure(engine_config(self.engine.options, hash_mb, options))
            self.name = self.engine.id.get("name") or shlex.join(self.command)
        except chess.engine.EngineTerminatedError as exc:
            self.kill()
            raise EngineStartError("--engine %s: died while being set up: %s" % (shlex.join(self.command), exc))
        except BaseException:
            self.kill()
            raise
        self._game = 0

    @property
    def alive(self) -> bool:
        """False once the process has died (a new one is then started for the next task)."""
        return not self.engine.protocol.returncode.done()

    def new_game(self) -> None:
        """The next search sends ``ucinewgame`` first (python-chess does, on a new game key)."""
        self._game += 1

    def analyse(self, board: chess.Board, depth: Optional[int] = None, nodes: Optional[int] = None,
                time: Optional[float] = None, multipv: int = 1) -> Analysis:
        """Like ``Analyser.analyse``; positions without a legal move are answered here, unsearched."""
        problem = unplayable(board)
        if problem:
            raise ValueError("invalid position %s: %s" % (board.fen(), problem))
        fen = board.fen(shredder=board.chess960)
        if not any(board.generate_legal_moves()):
            outcome = board.outcome()
            mated = outcome is not None and outcome.termination == chess.Termination.CHECKMATE
            score = chess.engine.PovScore(chess.engine.Mate(0) if mated else chess.engine.Cp(0), board.turn)
            return Analysis(fen, board.turn, None, None, None, score, outcome=outcome)
        limit = chess.engine.Limit(depth=depth, nodes=nodes, time=time)
        silence = None if self.stall_seconds is None else self.stall_seconds + (time or 0.0)
        search = self._searched(board, limit, multipv, silence)
        try:
            infos = asyncio.run_coroutine_threadsafe(search, self.engine.protocol.loop).result()
        except (asyncio.TimeoutError, TimeoutError):
            self.kill()
            raise EngineFault("no answer from the engine for %g s (--stall-timeout): stopped" % silence) from None
        except chess.engine.EngineTerminatedError:
            raise
        except chess.engine.EngineError as exc:
            self.kill()
            raise EngineFault("the engine's answer is unusable: %s" % exc) from None
        lines = [self._line(board, info) for info in infos if info.get("pv")]
        if not lines:
            self.kill()
            raise EngineFault("the engine answered without a principal variation (no 'info ... pv' line)")
        best = lines[0].pv[0]
        return Analysis(fen=fen, turn=board.turn, best_move=best,
                        best_san=board.san(best) if best is not None else None,
                        ponder_move=lines[0].pv[1] if lines and len(lines[0].pv) > 1 else None,
                        score=lines[0].score if lines else None, lines=lines,
                        nodes=max((int(info.get("nodes", 0)) for info in infos), default=0),
                        time_ms=max((int(round(info.get("time", 0.0) * 1000)) for info in infos), default=0))

    async def _searched(self, board: chess.Board, limit: chess.engine.Limit, multipv: int,
                        silence: Optional[float]) -> List[Dict]:
        """The search's final info per line, on the engine's event loop; asyncio.TimeoutError
        when nothing comes for ``silence`` seconds, EngineError for an unusable answer."""
        search = await self.engine.protocol.analysis(board, limit, multipv=multipv,
                                                     game=("pruner analyse", self._game), info=INFO)
        self._search = search
        try:
            with search:
                while True:  # every info line counts as a sign of life
                    try:
                        await asyncio.wait_for(search.get(), silence)
                    except chess.engine.AnalysisComplete:
                        break
        finally:
            self._search = None
        return search.multipv

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: Dict) -> None:
        """The engine's event loop's exception handler: an error python-chess found in the
        engine's answer after the search had started (an illegal ``bestmove``) ends the
        search with it; anything else goes to asyncio's default handler."""
        error = context.get("exception")
        if self._killed and isinstance(error, chess.engine.EngineTerminatedError):
            return  # a search stopped by killing its engine: its end is known, and nobody waits for it
        if self._search is not None and isinstance(error, chess.engine.EngineError):
            try:
                self._search.set_exception(error)
            except asyncio.InvalidStateError:  # the search had ended already
                pass
            return
        loop.default_exception_handler(context)

    @staticmethod
    def _line(board: chess.Board, info: Dict) -> Line:
        pv = list(info["pv"])
        bound = "lower" if info.get("lowerbound") else "upper" if info.get("upperbound") else "exact"
        return Line(multipv=int(info.get("multipv", 1)), pv=pv, pv_san=san_line(board, pv),
                    score=info["score"], depth=int(info.get("depth", 0)), seldepth=int(info.get("seldepth", 0)),
                    nodes=int(info.get("nodes", 0)), time_ms=int(round(info.get("time", 0.0) * 1000)), bound=bound,
                    wdl=info.get("wdl"))

    def close(self) -> None:
        """Quit the engine (kill it if it does not quit)."""
        try:
            self.engine.quit()
        except Exception:  # noqa: BLE001 - already gone
            self.kill()

    def kill(self) -> None:
        """Stop the engine now, searching or not: the process is killed, and gone on return
        (python-chess kills it from its event loop thread; wait for that)."""
        self._killed = True
        try:
            self.engine.close()
            self.engine.returncode.result(timeout=START_TIMEOUT)
        except Exception:  # noqa: BLE001 - already gone, or the loop is
            pass


class _OneLine(logging.Filter):
    """python-chess's log records about an engine's output without their tracebacks (the
    exception's own message is kept): one line each on stderr."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info:
            error = record.exc_info[1]
            record.msg, record.args = "%s (%s)" % (record.getMessage(), error), ()
            record.exc_info, record.exc_text = None, None
        return True


def _quiet_engine_logs() -> None:
    logger = logging.getLogger("chess.engine")
    if not any(isinstance(item, _OneLine) for item in logger.filters):
        logger.addFilter(_OneLine())


class EngineRunner:
    """``pool.ProcessRunner`` for ``--engine CMD`` without ``--cluster``: ``run(tasks)`` yields
    results in input order, from up to ``jobs`` threads that each start one engine process and
    take the next task until none is left; a thread is started for each of the first ``jobs``
    tasks, so there are ``min(jobs, tasks)`` engines.

    ``tasks`` may be any iterable, of any length: it is read ahead on a thread
    (``stream.TaskFeed``), at most ``jobs * IN_FLIGHT_PER_JOB`` tasks handed to the threads and
    not yet written, at most ``READ_AHEAD`` more read.

    A context manager: leaving it quits the engines, or kills them when leaving on an
    exception (Ctrl-C). The engines run in their own process group, so a terminal's Ctrl-C
    reaches only ``pruner analyse``, which then stops them. An engine that dies fails its
    task (reported, counted) and its thread starts a new one for its next task.
    """

    def __init__(self, command: Sequence[str], options: EngineOptions, settings: Settings, jobs: int,
                 tick: Callable[[int], None], timeout: float = START_TIMEOUT,
                 stall_seconds: Optional[float] = STALL_SECONDS) -> None:
        self.command = list(command)
        self.options = tuple(options)
        self.stall_seconds = stall_seconds
        self.settings = settings
        self.jobs = max(1, jobs)
        self.tick = tick
        self.timeout = timeout
        self.started: List[UciAnalyser] = []
        """Every engine started so far (``--jobs N`` with N tasks or more: N of them)."""
        self._lock = threading.Lock()
        self._closed = False
        self._threads: List[threading.Thread] = []
        self._work: "queue.Queue[Optional[Tuple[int, Task]]]" = queue.Queue()

    def __enter__(self) -> "EngineRunner":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        with self._lock:
            self._closed = True
            engines = list(self.started)
        for _ in self._threads:
            self._work.put(None)
        for analyser in engines:
            if kind is None:
                analyser.close()
            else:
                analyser.kill()  # a search in progress ends with an error nobody reads
        for thread in self._threads:
            thread.join(self.timeout)

    def _start(self) -> UciAnalyser:
        analyser = UciAnalyser(self.command, self.settings.hash_mb, self.timeout, self.options, setpgrp=True,
                               stall_seconds=self.stall_seconds)
        with self._lock:
            self.started.append(analyser)
            closed = self._closed
        if closed:  # the run ended while this one was starting
            analyser.kill()
            raise EngineStartError("the run is over")
        return analyser

    def _work_loop(self, done: "queue.Queue[Tuple[str, object]]") -> None:
        """One thread: an engine of its own, tasks until told to stop (None) or the run is over."""
        analyser: Optional[UciAnalyser] = None
        problem = ""
        try:
            analyser = self._start()
        except (EngineStartError, EngineOptionError) as exc:
            problem = str(exc)
        while not self._closed:
            item = self._work.get()
            if item is None:
                return
            index, task = item
            if analyser is not None and not analyser.alive:  # it died in the last task
                analyser.kill()
                analyser = None
                try:
                    analyser = self._start()
                except (EngineStartError, EngineOptionError) as exc:
                    problem = str(exc)
            if analyser is None:
                result = TaskResult(task.source, error=problem)
            else:
                result = run_task(task, self.settings, lambda count: done.put(("tick", count)), analyser)
            done.put(("result", (index, result)))

    def run(self, tasks: Iterable[Task]) -> Iterator[TaskResult]:
        """Results in the order of ``tasks``."""
        done: "queue.Queue[Tuple[str, object]]" = queue.Queue()

        def submit(index: int, task: Task) -> None:
            if len(self._threads) < self.jobs:
                thread = threading.Thread(target=self._work_loop, args=(done,), daemon=True,
                                          name="pruner-analyse-engine-%d" % (len(self._threads) + 1))
                self._threads.append(thread)
                thread.start()
            self._work.put((index, task))

        def collect() -> List[Tuple[int, TaskResult]]:
            try:
                kind, payload = done.get(timeout=POLL_SECONDS)
            except queue.Empty:
                return []
            if kind == "tick":
                self.tick(payload)  # type: ignore[arg-type]
            return [payload] if kind == "result" else []  # type: ignore[list-item]

        try:
            yield from in_order(tasks, self.jobs * IN_FLIGHT_PER_JOB, submit, collect,
                                lambda: done.put(("input", None)))
        finally:
            for _ in self._threads:  # no more tasks: the threads end
                self._work.put(None)
