"""The engine process as a GUI drives it through pexpect (``Uci``), shared by the protocol tests."""

import io
import os
import re
import signal
import tempfile

import chess
import pexpect
import pexpect.popen_spawn

BESTMOVE = r"bestmove (\S+)(?: ponder (\S+))?\r?\n"
ERROR = r"info string error: ([^\r\n]*)\r?\n"
HOLD_SECONDS = 1.0
"""How long a held search must stay silent (a TIMEOUT is the expected outcome)."""


class Uci:
    """A running engine process with GUI-side helpers."""

    def __init__(self, command, cwd) -> None:
        self.command, self.cwd = command, cwd
        self.stderr = tempfile.TemporaryFile()
        fd = self.stderr.fileno()
        self.transcript = io.StringIO()
        self.child = pexpect.popen_spawn.PopenSpawn(
            command, timeout=20, encoding="utf-8", cwd=cwd,
            preexec_fn=lambda: os.dup2(fd, 2))
        self.child.logfile_read = self.transcript
        self.gos = 0

    def send(self, line: str) -> None:
        if line.split()[:1] == ["go"]:
            self.gos += 1
        self.child.sendline(line)

    def send_bytes(self, data: bytes) -> None:
        self.child.proc.stdin.write(data)
        self.child.proc.stdin.flush()

    def expect(self, pattern, timeout: float = 20):
        self.child.expect(pattern, timeout=timeout)
        return self.child.match

    def error(self, fragment: str = "", timeout: float = 20) -> str:
        """Wait for the next ``info string error`` line; check that it mentions ``fragment``."""
        message = self.expect(ERROR, timeout).group(1)
        assert fragment in message, message
        return message

    def sync(self) -> str:
        """isready/readyok fence; returns everything printed before readyok."""
        self.child.sendline("isready")
        self.child.expect(r"readyok\r?\n", timeout=20)
        return self.child.before

    def bestmove(self, timeout: float = 30):
        match = self.expect(BESTMOVE, timeout)
        return match.group(1), match.group(2)

    def no_bestmove_for(self, seconds: float = HOLD_SECONDS) -> None:
        index = self.child.expect([BESTMOVE, pexpect.TIMEOUT], timeout=seconds)
        assert index == 1, "bestmove came while it had to be held: %r" % self.child.after

    def handshake(self) -> str:
        self.child.sendline("uci")
        self.child.expect(r"uciok\r?\n", timeout=20)
        return self.child.before

    def exit_status(self, timeout: float = 10) -> int:
        self.child.expect(pexpect.EOF, timeout=timeout)
        return self.child.wait()

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def count_bestmoves(self) -> int:
        return len(re.findall(r"^bestmove ", self.transcript.getvalue(), re.M))

    def close(self) -> None:
        if self.child.proc.poll() is None:
            self.child.kill(signal.SIGKILL)
            self.child.proc.wait()
        self.stderr.close()


def legal(fen_or_board, move_text: str) -> bool:
    board = fen_or_board if isinstance(fen_or_board, chess.Board) else chess.Board(fen_or_board)
    try:
        return board.parse_uci(move_text) in board.legal_moves
    except ValueError:
        return False


def uci_lines(process) -> list:
    """Send ``uci`` to a ``subprocess.Popen`` engine (text pipes) and return its lines up to
    ``uciok``, stripped (an AssertionError if it ends first)."""
    process.stdin.write("uci\n")
    process.stdin.flush()
    lines = []
    while not lines or lines[-1] != "uciok":
        line = process.stdout.readline()
        assert line, "the engine ended before uciok: %r" % lines
        lines.append(line.strip())
    return lines
