"""Engine processes for the runner: command specs, start/restart, timed moves, fault classes.

One ``EnginePlayer`` wraps one ``chess.engine.SimpleEngine`` and is used by one worker
thread only; it is reused across games (``ucinewgame`` + ``isready`` before each game, off
the clock) and restarted after any fault.  Every way an engine can misbehave becomes one
of four exceptions: ``EngineStartError``, ``MoveTimeout``, ``IllegalMove``, ``EngineCrash``.
"""

import asyncio
import concurrent.futures
import os
import re
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO, Any, Dict, Iterable, List, Optional, Tuple

import chess
import chess.engine

from . import ROOT
from pruner.interpreter import AUTO, VARIABLE
from pruner.stockfish import STOCKFISH_PATHS, find_stockfish  # noqa: F401 - the scripts import them from here

_ENV_TOKEN = re.compile(r"^[A-Z_][A-Z0-9_]*=")
_RUNNER_KEYS = ("cwd", "dir", "name")

PLAY_INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE

MATCH_OPTIONS = {"Human Time": "false"}
"""Options a match sets on every engine that declares them, unless its spec names them:
Pruner's ``Human Time`` would hold each limited-strength move for seconds, and the strength
calibration plays thousands of such games (an engine's ``--option1 "Human Time=true"`` keeps it)."""


def match_options(declared: Iterable[str], options: Dict[str, str]) -> Dict[str, str]:
    """``options`` (a spec's) plus the ``MATCH_OPTIONS`` the engine declares (``declared``, its
    option names) and ``options`` does not set; names compare case-insensitively, as in UCI."""
    given = {name.lower() for name in options}
    names = {name.lower() for name in declared}
    merged = dict(options)
    merged.update((name, value) for name, value in MATCH_OPTIONS.items()
                  if name.lower() in names and name.lower() not in given)
    return merged


@dataclass
class EngineSpec:
    """How to start an engine: command line, working directory, environment, UCI options."""

    command: List[str]
    name: Optional[str] = None
    """Display name (PGN White/Black); None: the engine's ``id name``."""
    cwd: Optional[str] = None
    """Working directory of the engine process (e.g. a ``git worktree`` of a base revision)."""
    env: Dict[str, str] = field(default_factory=dict)
    """Extra environment variables (added to the runner's environment)."""
    options: Dict[str, str] = field(default_factory=dict)
    """UCI options sent with ``setoption`` after start."""

    def describe(self) -> str:
        """Command line with directory, environment and options, for headers and logs."""
        text = " ".join(shlex.quote(part) for part in self.command)
        extras = []
        if self.cwd:
            extras.append("cwd=%s" % self.cwd)
        extras.extend("%s=%s" % item for item in sorted(self.env.items()))
        extras.extend("%s=%s" % item for item in self.options.items())
        return text + (" [%s]" % ", ".join(extras) if extras else "")


def this_pruner() -> str:
    """The engine command of Pruner from this checkout, a script's default engine: run by the
    Python running the script (no ``pruner`` on the PATH, no active venv needed) in the
    checkout's root, and moved onto PyPy as the ``pruner`` command is (``PRUNER_INTERPRETER``
    as the user set it, else ``auto``: protocol/interpreter.py)."""
    words = ["cwd=" + ROOT] + ([] if os.environ.get(VARIABLE, "").strip() else ["%s=%s" % (VARIABLE, AUTO)])
    return " ".join(shlex.quote(word) for word in words + [sys.executable, "-m", "pruner"])


def parse_option(text: str) -> Tuple[str, str]:
    """``"Hash=16"`` -> ``("Hash", "16")``; the name may contain spaces (``"Skill Level=3"``)."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError("expected Name=Value, got %r" % text)
    return name.strip(), value.strip()


def parse_engine_spec(text: str, name: Optional[str] = None, cwd: Optional[str] = None,
                      options: Iterable[str] = (), env: Iterable[str] = ()) -> EngineSpec:
    """Engine spec from a command string.

    Leading ``key=value`` words configure the runner, shell style: ``cwd=DIR`` (or ``dir=``)
    and ``name=NAME``; upper-case ``VAR=value`` words are environment variables.  The rest is
    the command, split with shell quoting rules::

        "cwd=/tmp/base PYTHONPATH=/tmp/base name=base python -m pruner"

    Explicit arguments (``--name1``, ``--dir1``, ``--option1``, ``--env1``) override the spec.
    """
    words = shlex.split(text)
    spec = EngineSpec(command=[])
    while words and "=" in words[0]:
        key, _, value = words[0].partition("=")
        if key in _RUNNER_KEYS:
            if key == "name":
                spec.name = value
            else:
                spec.cwd = value
        elif _ENV_TOKEN.match(words[0]):
            spec.env[key] = value
        else:
            break
        words.pop(0)
    if not words:
        raise ValueError("empty engine command in %r" % text)
    spec.command = words
    if name:
        spec.name = name
    if cwd:
        spec.cwd = cwd
    for item in env:
        key, value = parse_option(item)
        spec.env[key] = value
    for item in options:
        key, value = parse_option(item)
        spec.options[key] = value
    return spec


class EngineFault(Exception):
    """Base of the ways an engine can fail during a match."""


class EngineStartError(EngineFault):
    """The engine did not start, did not answer ``uci``, or rejected an option."""


class MoveTimeout(EngineFault):
    """No move before the runner's deadline; the engine was killed."""

    def __init__(self, elapsed: float) -> None:
        super().__init__("no move after %.3fs" % elapsed)
        self.elapsed = elapsed


class IllegalMove(EngineFault):
    """The engine's ``bestmove`` was illegal, malformed or missing."""


class EngineCrash(EngineFault):
    """The engine process died, closed its pipe, or broke the protocol."""


def _illegal_text(exc: chess.engine.EngineError) -> Optional[str]:
    """The offending move text if the error is python-chess rejecting a ``bestmove``."""
    cause = exc.args[0] if exc.args else None
    if isinstance(cause, ValueError) or isinstance(exc.__context__, ValueError):
        message = str(cause if isinstance(cause, ValueError) else exc.__context__)
        match = re.search(r"uci:? '?([^' ]*)'?", message)
        return match.group(1) if match else message
    return None


def wait_monotonic(future: "concurrent.futures.Future[Any]", timeout: Optional[float], start: float) -> Any:
    """``future.result()``, raising ``concurrent.futures.TimeoutError`` only once ``timeout``
    seconds have passed since ``start`` on ``time.perf_counter``.

    A timed wait alone is not enough: PyPy's lock timeouts follow the wall clock, so a clock
    step (NTP, a resumed virtual machine) ends them early; a 10+0.1 match once scored two
    games as lost on time "after 0.074s with 2.630s left". Only the monotonic clock decides."""
    if timeout is None:
        return future.result()
    deadline = start + timeout
    while True:
        try:
            return future.result(max(0.0, deadline - time.perf_counter()))
        except concurrent.futures.TimeoutError:
            # Done means the coroutine itself raised TimeoutError (one class with asyncio's
            # from Python 3.11 on): that is its answer, not a wait cut short.
            if future.done() or time.perf_counter() >= deadline:
                raise


class EnginePlayer:
    """One engine process as used by one worker thread."""

    def __init__(self, spec: EngineSpec, start_timeout: float = 10.0, chess960: bool = False) -> None:
        self.spec = spec
        self.start_timeout = start_timeout
        self.chess960 = chess960
        self.engine: Optional[chess.engine.SimpleEngine] = None
        self.id_name: Optional[str] = None
        self.starts = 0
        self._stderr: Optional[IO[bytes]] = None
        self._game_key: object = None

    @property
    def running(self) -> bool:
        """True from ``start`` until ``kill`` or ``quit``: an engine process is up."""
        return self.engine is not None

    def start(self) -> None:
        """Start the process and configure it (no-op while running); raises EngineStartError."""
        if self.engine is not None:
            return
        self._close_stderr()
        self._stderr = tempfile.TemporaryFile()
        env = dict(os.environ, **self.spec.env) if self.spec.env else None
        self.starts += 1
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(
                self.spec.command, timeout=self.start_timeout, setpgrp=True,
                cwd=self.spec.cwd, env=env, stderr=self._stderr)
        except FileNotFoundError as exc:
            raise EngineStartError("command not found: %s" % (exc.filename or self.spec.command[0])) from None
        except (asyncio.TimeoutError, concurrent.futures.TimeoutError):
            raise EngineStartError("no 'uciok' within %gs%s" % (self.start_timeout, self.stderr_note())) from None
        except Exception as exc:  # noqa: BLE001 - any failure to start is reported, never raised
            raise EngineStartError("%s: %s%s" % (type(exc).__name__, exc, self.stderr_note())) from None
        try:
            if self.chess960 and "UCI_Chess960" not in self.engine.options:
                raise EngineStartError("engine has no UCI_Chess960 option")
            options = match_options(self.engine.options, self.spec.options)
            if options:
                self.engine.configure(options)
            self.id_name = self.engine.id.get("name")
        except EngineStartError:
            self.kill()
            raise
        except Exception as exc:  # noqa: BLE001
            self.kill()
            raise EngineStartError("%s: %s" % (type(exc).__name__, exc)) from None

    def option_value(self, name: str) -> Optional[str]:
        """The value of UCI option ``name`` as configured (the spec's, else the engine's default),
        or None when the running engine declares no such option."""
        if self.engine is None or name not in self.engine.options:
            return None
        for key, value in self.spec.options.items():
            if key.lower() == name.lower():
                return value
        default = self.engine.options[name].default
        return None if default is None else str(default)

    def new_game(self, key: object) -> None:
        """``ucinewgame`` and ``isready`` before the first move, so neither counts on the clock."""
        assert self.engine is not None
        protocol = self.engine.protocol
        try:
            protocol.loop.call_soon_threadsafe(protocol.send_line, "ucinewgame")
            self.engine.ping()
        except Exception as exc:  # noqa: BLE001
            self.kill()
            raise EngineCrash("no 'readyok' after 'ucinewgame' (%s)%s"
                              % (type(exc).__name__, self.stderr_note())) from None
        # python-chess sends its own ucinewgame when ``game`` changes; tell it this one is done
        # (attributes of UciProtocol in python-chess 1.10/1.11, pinned in pyproject).
        protocol.game = key
        protocol.first_game = False
        self._game_key = key

    def play(self, board: chess.Board, limit: chess.engine.Limit,
             timeout: Optional[float]) -> Tuple[chess.engine.PlayResult, float]:
        """The engine's move and the wall time it took, measured here.

        Waits at most ``timeout`` seconds; then the engine is killed and MoveTimeout raised."""
        assert self.engine is not None
        protocol = self.engine.protocol
        coro = protocol.play(board, limit, game=self._game_key, info=PLAY_INFO)
        start = time.perf_counter()
        future = asyncio.run_coroutine_threadsafe(coro, protocol.loop)
        try:
            result = wait_monotonic(future, timeout, start)
        except concurrent.futures.TimeoutError:
            elapsed = time.perf_counter() - start
            future.cancel()
            self.kill()
            raise MoveTimeout(elapsed) from None
        except chess.engine.EngineTerminatedError as exc:
            self.kill()
            raise EngineCrash("%s%s" % (exc, self.stderr_note())) from None
        except chess.engine.EngineError as exc:
            illegal = _illegal_text(exc)
            self.kill()
            if illegal is not None:
                raise IllegalMove("illegal move %r" % illegal) from None
            raise EngineCrash("protocol error: %s" % exc) from None
        except Exception as exc:  # noqa: BLE001 - e.g. a broken pipe while writing
            self.kill()
            raise EngineCrash("%s: %s%s" % (type(exc).__name__, exc, self.stderr_note())) from None
        elapsed = time.perf_counter() - start
        if result.move is None:
            self.kill()
            raise IllegalMove("no move ('bestmove (none)') with legal moves available")
        return result, elapsed

    def stderr_tail(self, limit: int = 300) -> str:
        """The last characters the engine wrote to stderr (its traceback, say)."""
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - limit))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def stderr_note(self) -> str:
        """``"; stderr: last | lines"`` for error messages, or ``""``."""
        tail = self.stderr_tail()
        if not tail:
            return ""
        return "; stderr: " + " | ".join(tail.splitlines()[-3:])

    def kill(self) -> None:
        """Kill the process at once (it is restarted by the next ``start``)."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        engine.close()
        try:
            engine.returncode.result(timeout=5.0)
        except Exception:  # noqa: BLE001 - already dead or stuck: nothing more to do
            pass

    def quit(self) -> None:
        """Ask the engine to quit, kill it if it does not, and release the stderr file."""
        engine = self.engine
        if engine is not None:
            try:
                engine.quit()
            except Exception:  # noqa: BLE001
                pass
            self.kill()
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            try:
                self._stderr.close()
            except OSError:
                pass
            self._stderr = None
