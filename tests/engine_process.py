"""The engine as a subprocess with its output read by threads: line arrival times for latency
checks, stderr kept apart, and waits that never sleep (conditions with timeouts)."""

import subprocess
import threading
import time
from typing import Callable, List, Optional, Tuple

WAIT = 20.0
"""Bound for waits on the process (they normally take milliseconds)."""


class EngineProcess:
    """``python -m pruner`` on pipes; ``lines`` holds (arrival time, text) of each output line."""

    def __init__(self, command: List[str], cwd: str) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.pid = self.process.pid
        self.timed: List[Tuple[float, str]] = []
        self.partial = b""
        """Bytes after the last line break when the output ended (a half-written line)."""
        self.stderr = b""
        self.cond = threading.Condition()
        self.readers = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read_stdout(self) -> None:
        for raw in iter(self.process.stdout.readline, b""):
            now = time.perf_counter()
            with self.cond:
                if raw.endswith(b"\n"):
                    self.timed.append((now, raw[:-1].decode("utf-8")))
                else:
                    self.partial = raw
                self.cond.notify_all()

    def _read_stderr(self) -> None:
        self.stderr = self.process.stderr.read()

    @property
    def lines(self) -> List[str]:
        with self.cond:
            return [text for _, text in self.timed]

    def send(self, data: bytes) -> float:
        """Write raw bytes; returns the time just before the write."""
        now = time.perf_counter()
        self.process.stdin.write(data)
        self.process.stdin.flush()
        return now

    def send_line(self, line: str) -> float:
        return self.send(line.encode("utf-8") + b"\n")

    def count(self, predicate: Callable[[str], bool]) -> int:
        with self.cond:
            return sum(1 for _, line in self.timed if predicate(line))

    def wait_for(self, predicate: Callable[[str], bool], number: int = 1, timeout: float = WAIT) -> None:
        """Wait until ``number`` output lines satisfy ``predicate``."""
        with self.cond:
            done = self.cond.wait_for(lambda: sum(1 for _, line in self.timed if predicate(line)) >= number,
                                      timeout)
            assert done, [line for _, line in self.timed[-20:]]

    def next_line(self, predicate: Callable[[str], bool], after: int, timeout: float = WAIT) -> Tuple[int, float, str]:
        """The first line from index ``after`` on that satisfies ``predicate``: (index, time, text)."""
        found: List[Tuple[int, float, str]] = []

        def look() -> bool:
            for index in range(after, len(self.timed)):
                if predicate(self.timed[index][1]):
                    found.append((index,) + self.timed[index])
                    return True
            return False
        with self.cond:
            assert self.cond.wait_for(look, timeout), [line for _, line in self.timed[-20:]]
        return found[0]

    def sync(self) -> None:
        """isready/readyok fence."""
        number = self.count(lambda line: line == "readyok") + 1
        self.send_line("isready")
        self.wait_for(lambda line: line == "readyok", number)

    def finish(self, timeout: float = WAIT) -> int:
        """Close stdin, wait for the exit and for both readers; the exit status."""
        try:
            self.process.stdin.close()
        except OSError:
            pass
        status = self.process.wait(timeout)
        for reader in self.readers:
            reader.join(timeout)
        return status

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def exited_within(self, seconds: float) -> Optional[int]:
        """The exit status if the process ends within ``seconds``, else None."""
        try:
            return self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            return None
