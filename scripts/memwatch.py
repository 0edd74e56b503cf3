#!/usr/bin/env python3
"""Watch an engine's memory (VmRSS from /proc/<pid>/status, Linux) over a long search or many games.

    python scripts/memwatch.py --seconds 600                # go infinite for 10 minutes
    python scripts/memwatch.py --games 100 --nodes 300      # 100 short games in one process
    python scripts/memwatch.py --engine "pypy3 -m pruner" --hash 64 --seconds 120

``--seconds`` mode: ``go infinite`` from a middlegame position, one sample every
``--interval`` seconds, then ``stop``. ``--games`` mode: self-play games through one engine
process (``ucinewgame`` between games, ``go nodes N`` per move, seeded random openings), one
sample after each game. The last line is the summary; the exit status is 0 when the RSS
stayed within ``Hash`` + ``--base`` MB and grew at most ``--tolerance`` MB over the second
half of the run (it has stopped growing), 1 otherwise, 2 for a usage or start error.
"""

import os
import random
import shlex
import subprocess
import sys
import threading
import time
from typing import List, Optional, Tuple

import chess

from pruner.arguments import ArgumentParser

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POSITION = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7"
"""Where ``go infinite`` searches: a quiet middlegame with many transpositions."""


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    """A ``/proc/<pid>/status`` memory field in kB (``VmRSS``, ``VmHWM``, ``VmSize``)."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise ValueError("no %s in /proc/%d/status" % (field, pid))


def thread_count(pid: int) -> int:
    """Number of threads of a process (entries of ``/proc/<pid>/task``)."""
    return len(os.listdir("/proc/%d/task" % pid))


class Engine:
    """A UCI engine process; a thread reads its output so the pipe never fills."""

    def __init__(self, command: List[str], cwd: Optional[str] = None) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, universal_newlines=True, bufsize=1)
        self.pid = self.process.pid
        self.lines: List[Optional[str]] = []
        """Output lines; None marks the end of the output."""
        self._seen = 0
        self.nodes = 0
        """Node count of the latest ``info ... nodes N`` line."""
        self.stderr = ""
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            words = line.split()
            with self._cond:
                if "nodes" in words[:-1]:
                    self.nodes = int(words[words.index("nodes") + 1])
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self.lines.append(None)
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        self.stderr = self.process.stderr.read()

    def send(self, line: str) -> None:
        """Write one line to the engine."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, prefix: str, timeout: float = 60.0) -> str:
        """Wait for the next line starting with ``prefix`` (read from where the last one was)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                while self._seen < len(self.lines):
                    line = self.lines[self._seen]
                    if line is None:
                        raise RuntimeError("the engine closed its output (status %s)" % self.process.poll())
                    self._seen += 1
                    if line.startswith(prefix):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no %r within %gs" % (prefix, timeout))
                self._cond.wait(left)

    def sync(self) -> None:
        """``isready``, and wait for ``readyok``."""
        self.send("isready")
        self.expect("readyok")

    def quit(self, timeout: float = 10.0) -> int:
        """``quit``; the exit status (the engine is killed when it does not exit within ``timeout``)."""
        try:
            self.send("quit")
        except OSError:
            pass
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def start(command: List[str], hash_mb: int, options: List[Tuple[str, str]]) -> Engine:
    """An engine past ``uci``, with ``Hash`` and ``options`` set (``isready`` answered)."""
    engine = Engine(command, cwd=REPO)
    engine.send("uci")
    engine.expect("uciok")
    engine.send("setoption name Hash value %d" % hash_mb)
    for name, value in options:
        engine.send("setoption name %s value %s" % (name, value))
    engine.sync()
    return engine


def mb(kb: int) -> str:
    """A size in kB as ``12.3 MB``."""
    return "%.1f MB" % (kb / 1024.0)


def watch_infinite(engine: Engine, seconds: float, interval: float, say) -> List[Tuple[float, int]]:
    """``go infinite`` for ``seconds``; samples (elapsed seconds, RSS kB)."""
    engine.send("ucinewgame")
    engine.send("position fen " + POSITION)
    engine.sync()
    samples = [(0.0, rss_kb(engine.pid))]
    say("t %7.1fs  rss %s  (before go infinite)" % (0.0, mb(samples[0][1])))
    start_time = time.monotonic()
    engine.send("go infinite")
    while True:
        elapsed = time.monotonic() - start_time
        if elapsed >= seconds:
            break
        time.sleep(min(interval, seconds - elapsed))
        elapsed = time.monotonic() - start_time
        rss = rss_kb(engine.pid)
        samples.append((elapsed, rss))
        say("t %7.1fs  rss %s  hwm %s  nodes %d  threads %d" % (
            elapsed, mb(rss), mb(rss_kb(engine.pid, "VmHWM")), engine.nodes, thread_count(engine.pid)))
    engine.send("stop")
    engine.expect("bestmove")
    return samples


def play_games(engine: Engine, games: int, nodes: int, max_plies: int, say) -> List[Tuple[float, int]]:
    """Self-play games in one process; samples (game number, RSS kB) after each game."""
    samples = [(0.0, rss_kb(engine.pid))]
    say("game %4d  rss %s  (before the first game)" % (0, mb(samples[0][1])))
    for game in range(1, games + 1):
        rng = random.Random(game)
        board = chess.Board()
        for _ in range(6):  # a seeded random opening, so that the games differ
            board.push(rng.choice(list(board.legal_moves)))
        engine.send("ucinewgame")
        engine.sync()
        plies = 0
        while board.outcome(claim_draw=True) is None and plies < max_plies:
            engine.send("position startpos moves " + " ".join(move.uci() for move in board.move_stack))
            engine.send("go nodes %d" % nodes)
            move = engine.expect("bestmove").split()[1]
            board.push_uci(move)
            plies += 1
        rss = rss_kb(engine.pid)
        samples.append((float(game), rss))
        say("game %4d  rss %s  hwm %s  plies %d  threads %d" % (
            game, mb(rss), mb(rss_kb(engine.pid, "VmHWM")), plies, thread_count(engine.pid)))
    return samples


def second_half_growth(samples: List[Tuple[float, int]]) -> int:
    """RSS growth (kB) from the sample at the middle of the run to the last one."""
    middle = samples[len(samples) // 2][1]
    return samples[-1][1] - middle


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``memwatch.py``: sample the engine's memory and print the summary line; 0 when within budget."""
    parser = ArgumentParser(prog="memwatch.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="%s -m pruner" % shlex.quote(sys.executable),
                        help="engine command, run from the repository root (default: this Python -m pruner)")
    parser.add_argument("--hash", type=int, default=16, metavar="MB", help="Hash option (default 16)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="another UCI option")
    parser.add_argument("--seconds", type=float, default=120.0, help="go infinite for this long (default 120)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples (default 5)")
    parser.add_argument("--games", type=int, help="play this many games in one process instead of go infinite")
    parser.add_argument("--nodes", type=int, default=300, help="--games: nodes per move (default 300)")
    parser.add_argument("--max-plies", type=int, default=160, help="--games: plies per game at most (default 160)")
    parser.add_argument("--base", type=float, default=64.0, metavar="MB",
                        help="memory allowed on top of Hash (default 64; PyPy needs about 160)")
    parser.add_argument("--tolerance", type=float, default=2.0, metavar="MB",
                        help="growth allowed over the second half of the run (default 2)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    args = parser.parse_args(argv)
    if not os.path.isdir("/proc/self"):
        parser.error("needs Linux /proc")
    options = []
    for text in args.option:
        name, sep, value = text.partition("=")
        if not sep:
            parser.error("--option %r: expected NAME=VALUE" % text)
        options.append((name.strip(), value.strip()))

    def say(text: str) -> None:
        if not args.quiet:
            print(text, flush=True)

    try:
        engine = start(shlex.split(args.engine), args.hash, options)
    except (OSError, RuntimeError, TimeoutError) as exc:
        print("memwatch: cannot start %r: %s" % (args.engine, exc), file=sys.stderr)
        return 2
    try:
        started = time.monotonic()
        if args.games:
            samples = play_games(engine, args.games, args.nodes, args.max_plies, say)
            what = "%d games at %d nodes per move" % (args.games, args.nodes)
        else:
            samples = watch_infinite(engine, args.seconds, args.interval, say)
            what = "go infinite %gs" % args.seconds
        hwm = rss_kb(engine.pid, "VmHWM")
        threads = thread_count(engine.pid)
    finally:
        status = engine.quit()
    peak = max(rss for _, rss in samples)
    growth = second_half_growth(samples)
    budget = (args.hash + args.base) * 1024
    ok = max(peak, hwm) <= budget and growth <= args.tolerance * 1024 and status == 0
    print("memwatch: %s, Hash %d MB, %s: RSS start %s, peak %s (VmHWM %s), end %s; second-half growth %+.1f MB "
          "(tolerance %g); budget Hash + %g MB = %s; threads %d; quit status %d; %.0fs: %s" % (
              what, args.hash, engine_label(args.engine), mb(samples[0][1]), mb(peak), mb(hwm), mb(samples[-1][1]),
              growth / 1024.0, args.tolerance, args.base, mb(int(budget)), threads, status,
              time.monotonic() - started, "OK" if ok else "FAIL"), flush=True)
    return 0 if ok else 1


def engine_label(command: str) -> str:
    """The engine command as the summary names it (the program's base name and its arguments)."""
    words = shlex.split(command)
    return os.path.basename(words[0]) + (" " + " ".join(words[1:]) if len(words) > 1 else "")


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
