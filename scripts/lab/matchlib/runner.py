"""The match: worker threads playing colour-reversed pairs, live output, SPRT early stop.

Each worker thread owns one process of each engine and plays games one after another;
finished games go through a queue to the main thread, which alone prints, writes the PGN
and updates the tally.  Threads are enough: the runner only waits on engine pipes, and
python-chess gives every engine its own event-loop thread.  A worker never raises: any
engine failure is a fault on a game, and an unexpected error ends only that game.
"""

import os
import queue
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import IO, List, Optional, Tuple

import chess

from pruner.output_files import OutputError

from . import fastchess
from .engines import EnginePlayer, EngineSpec, EngineStartError
from .game import Fault, GameJob, GameRecord, GameSettings, play_game
from .openings import Opening
from .pgnout import PgnWriter
from .plot import MatchPlot
from .report import final_line, progress_line, summary_lines
from .resume import Resumed
from .stats import Sprt
from .tally import Tally

EXIT_DONE = 0
"""The match was played (with an SPRT: H1 was accepted)."""
EXIT_START = 2
"""An engine could not be started (before the match, or 3 times in a row during it)."""
EXIT_H0 = 3
"""The SPRT accepted H0."""
EXIT_INCONCLUSIVE = 4
"""The SPRT decided nothing before the games ran out."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C)."""
STOP_SECONDS = 5.0
"""How long the worker threads may take to end a stopped match (their engines quit), and
again once the engines left are killed."""


@dataclass
class MatchConfig:
    """Everything a match needs; built by scripts/match.py from its arguments."""

    engine1: EngineSpec
    engine2: EngineSpec
    settings: GameSettings
    games: int
    openings: List[Opening]
    order: List[int]
    """Opening index for each pair."""
    concurrency: int = 1
    pgn: Optional[str] = None
    pgn_append: bool = False
    sprt: Optional[Sprt] = None
    chess960: bool = False
    event: str = "Pruner match"
    site: str = "?"
    """PGN Site tag: "?" (unknown, as the PGN standard writes it) unless given."""
    start_timeout: float = 10.0
    max_start_failures: int = 3
    """Stop the match after this many consecutive failed starts of one engine."""
    header: Tuple[str, ...] = ()
    """Extra lines for the header (openings source, seed...)."""
    plot: Optional[MatchPlot] = None
    """Draws the Elo/LLR chart every N games and at the end (``--plot``)."""
    book: str = ""
    """The openings file, named in fastchess's result block ('' for none)."""
    report_every: int = fastchess.DEFAULT_EVERY
    """Print fastchess's result block after every N-th pair (0: only at the end)."""
    resumed: Optional[Resumed] = None
    """``--resume``: the finished pairs of the stopped match, counted first and not played again."""


@dataclass
class MatchResult:
    """What a match ends with: the tally, the SPRT verdict, the exit status and the engines' names."""

    tally: Tally
    verdict: Optional[str]
    """SPRT verdict "H0"/"H1" if a bound was crossed."""
    exit_code: int
    """``EXIT_DONE`` (0; with an SPRT: H1 accepted), ``EXIT_START`` (2), ``EXIT_H0`` (3),
    ``EXIT_INCONCLUSIVE`` (4), ``EXIT_INTERRUPTED`` (130), or the cluster's 69."""
    names: Tuple[str, str]


def _default_name(player: EnginePlayer) -> str:
    return player.spec.name or player.id_name or os.path.basename(player.spec.command[0])


def engine_options(player: EnginePlayer) -> Tuple[Optional[str], Optional[str]]:
    """A started engine's ``(Threads, Hash)`` values (None for an option it does not have)."""
    return player.option_value("Threads"), player.option_value("Hash")


class Match:
    """Runs one match; ``run()`` prints as it goes and returns the result."""

    def __init__(self, config: MatchConfig, out: Optional[IO[str]] = None) -> None:
        self.config = config
        self.out = out if out is not None else sys.stdout
        self.tally = Tally(config.sprt)
        self.stop = threading.Event()
        """No new games (SPRT decided, too many start failures, interrupt)."""
        self.abort = threading.Event()
        """Abandon games in progress (interrupt)."""
        self.results: "queue.Queue[Optional[GameRecord]]" = queue.Queue()
        self.names = ("engine 1", "engine 2")
        self.verdict: Optional[str] = None
        self._next_game = 0
        self._lock = threading.Lock()
        self._players: List[EnginePlayer] = []
        self._start_failures = {1: 0, 2: 0}
        self._exit_code = EXIT_DONE
        self._threads: List[threading.Thread] = []
        self.setup = fastchess.Setup(fastchess.time_text(config.settings.tc), book=config.book)
        """What fastchess's result block names (the engines' Threads and Hash once started)."""
        self._done_pairs = config.resumed.pairs if config.resumed is not None else frozenset()
        if config.resumed is not None:
            self._count_resumed(config.resumed)

    def _count_resumed(self, resumed: Resumed) -> None:
        """Count the stopped match's finished pairs as if just played (the SPRT included)."""
        self.tally.faults.extend(resumed.faults)
        for pair, score, engine1_white, termination in resumed.games:
            completed = self.tally.count(pair, score, engine1_white, termination)
            if completed and self.config.sprt is not None and self.verdict is None:
                self.verdict = self.config.sprt.verdict(self.config.sprt.llr(self.tally.pentanomial))
        if self.verdict is not None:
            self.stop.set()  # decided before the stop: nothing to play

    # -- output -------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        """Print a line of the match's output (flushed); OutputError when it cannot be written
        (a reader that went away, ``| head``, is a BrokenPipeError: ``cli`` stops quietly)."""
        try:
            print(text, file=self.out, flush=True)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError("standard output", exc) from None

    # -- setup --------------------------------------------------------------------------

    def _new_player(self, spec: EngineSpec) -> EnginePlayer:
        player = EnginePlayer(spec, start_timeout=self.config.start_timeout, chess960=self.config.chess960)
        with self._lock:
            self._players.append(player)
        return player

    def probe(self) -> Optional[Tuple[EnginePlayer, EnginePlayer]]:
        """Start both engines once (checking command, options, Chess960 support) and fix the
        names; the two players are then used by the first worker.  None if one failed."""
        players = []
        for number, spec in ((1, self.config.engine1), (2, self.config.engine2)):
            player = self._new_player(spec)
            try:
                player.start()
            except EngineStartError as exc:
                name = spec.name or os.path.basename(spec.command[0])
                self.tally.faults.append(Fault(0, number, name, "start", str(exc)))
                self.say("Engine %d (%s) failed to start: %s" % (number, spec.describe(), exc))
                for other in players:
                    other.quit()
                player.quit()
                return None
            players.append(player)
        name1, name2 = _default_name(players[0]), _default_name(players[1])
        if name1 == name2:
            name1, name2 = name1 + " (1)", name2 + " (2)"
        self.names = (name1, name2)
        self.set_uci_values(engine_options(players[0]), engine_options(players[1]))
        return players[0], players[1]

    def set_uci_values(self, options1: Tuple[Optional[str], Optional[str]],
                       options2: Tuple[Optional[str], Optional[str]]) -> None:
        """Each engine's ``(Threads, Hash)`` values, for fastchess's result block."""
        self.setup = fastchess.Setup(self.setup.time, (options1[0], options2[0]), (options1[1], options2[1]),
                                     self.setup.book)

    def _take_job(self) -> Optional[GameJob]:
        with self._lock:
            while self._next_game // 2 + 1 in self._done_pairs:  # finished before --resume
                self._next_game += 1
            if self.stop.is_set() or self._next_game >= self.config.games:
                return None
            index = self._next_game
            self._next_game += 1
        pair = index // 2
        opening_index = self.config.order[pair]
        return GameJob(number=index + 1, pair=pair + 1, opening_index=opening_index,
                       opening=self.config.openings[opening_index], engine1_white=index % 2 == 0)

    # -- workers ------------------------------------------------------------------------

    def _worker(self, players: Tuple[EnginePlayer, EnginePlayer]) -> None:
        engine1, engine2 = players
        try:
            while True:
                job = self._take_job()
                if job is None:
                    break
                if job.engine1_white:
                    white, black = engine1, engine2
                    names = {chess.WHITE: self.names[0], chess.BLACK: self.names[1]}
                else:
                    white, black = engine2, engine1
                    names = {chess.WHITE: self.names[1], chess.BLACK: self.names[0]}
                try:
                    record = play_game(job, white, black, names, self.config.settings, self.abort)
                except Exception as exc:  # noqa: BLE001 - a runner bug ends one game, not the match
                    traceback.print_exc(file=sys.stderr)
                    record = GameRecord(job, names[chess.WHITE], names[chess.BLACK], job.opening.start(), 0,
                                        reason="runner error: %s: %s" % (type(exc).__name__, exc))
                    for player in players:
                        player.kill()
                self.results.put(record)
        finally:
            for player in players:
                player.quit()
            self.results.put(None)

    # -- main loop ----------------------------------------------------------------------

    def _handle(self, record: GameRecord, pgn: PgnWriter) -> None:
        config = self.config
        completed_pair = self.tally.add(record)
        if record.counted:
            pgn.write(record)
        fault = record.fault
        if fault is not None and fault.kind == "start":
            self._start_failures[fault.engine] += 1
            if self._start_failures[fault.engine] >= config.max_start_failures and not self.stop.is_set():
                self.say("Engine %d failed to start %d times in a row: stopping the match"
                         % (fault.engine, self._start_failures[fault.engine]))
                self._exit_code = EXIT_START
                self.stop.set()
        elif record.counted:
            for number in (1, 2):
                self._start_failures[number] = 0
        self.say(progress_line(record, self.tally, config.games, config.sprt))
        last = self.tally.games + self.tally.uncounted >= config.games  # the block follows the summary
        if completed_pair and config.report_every and record.job.pair % config.report_every == 0 and not last:
            self._fastchess_block()
        if config.plot is not None and record.counted:
            config.plot.game_finished(self.tally, self.names)
        if config.sprt is not None and completed_pair and self.verdict is None:
            verdict = config.sprt.verdict(config.sprt.llr(self.tally.pentanomial))
            if verdict is not None:
                self.verdict = verdict
                self.say("SPRT: %s accepted after %d games; finishing the games in progress"
                         % (verdict, self.tally.games))
                self.stop.set()

    def _fastchess_block(self) -> None:
        for line in fastchess.block(self.tally, self.names[0], self.names[1], self.setup, self.config.sprt):
            self.say(line)

    def _header(self) -> None:
        config = self.config
        tc = config.settings.tc
        if tc.uses_clock or tc.movetime is not None:
            limits = "%s (margin %g ms)" % (tc.describe(), config.settings.margin * 1000)
        else:
            limits = "%s (move timeout %gs)" % (tc.describe(), config.settings.move_timeout)
        self.say("Match: %s vs %s, %d games, %s, concurrency %d%s" % (
            self.names[0], self.names[1], config.games, limits, min(config.concurrency, config.games),
            ", Chess960" if config.chess960 else ""))
        self.say("Engine 1: %s: %s" % (self.names[0], config.engine1.describe()))
        self.say("Engine 2: %s: %s" % (self.names[1], config.engine2.describe()))
        for line in config.header:
            self.say(line)
        if config.resumed is not None:
            resumed = config.resumed
            self.say("Resumed from %s: %d finished pairs counted (%d games, %d faults), %d games of unfinished "
                     "pairs left out to be played again" % (resumed.path, len(resumed.pairs), len(resumed.games),
                                                              len(resumed.faults), resumed.dropped))
            if self.verdict is not None:
                self.say("SPRT: %s was accepted before the stop: no game to play" % self.verdict)
        if config.sprt is not None:
            sprt = config.sprt
            self.say("SPRT: elo0 %g elo1 %g alpha %g beta %g (%s Elo, pentanomial), bounds [%.2f, %.2f]" % (
                sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, sprt.model, sprt.lower, sprt.upper))

    def run(self) -> MatchResult:
        """Play the match and print everything; never raises for engine failures. An output
        that fails (OutputError, BrokenPipeError) stops the games and every engine first."""
        probed = self.probe()
        if probed is None:
            self.say(final_line(self.tally))
            return MatchResult(self.tally, None, EXIT_START, self.names)
        try:
            return self._play(probed)
        except BaseException:
            self._stop_all()
            raise

    def _stop_all(self) -> None:
        """No new game, the games in progress abandoned after the move being played (each
        worker then quits its engines), and whatever engine is still there after
        ``STOP_SECONDS`` killed."""
        self.stop.set()
        self.abort.set()
        deadline = time.monotonic() + STOP_SECONDS
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            players = list(self._players)
        for player in players:
            player.kill()
        for thread in self._threads:
            thread.join(STOP_SECONDS)

    def _play(self, probed: Tuple[EnginePlayer, EnginePlayer]) -> MatchResult:
        config = self.config
        self._header()
        pgn = PgnWriter(config.pgn, config.settings.tc, config.event, config.site, config.pgn_append)
        workers = max(1, min(config.concurrency, config.games))
        threads = self._threads
        for index in range(workers):
            players = probed if index == 0 else (self._new_player(config.engine1), self._new_player(config.engine2))
            thread = threading.Thread(target=self._worker, args=(players,), name="match-worker-%d" % index, daemon=True)
            threads.append(thread)
            thread.start()
        running = len(threads)
        interrupted = False
        try:
            while running:
                try:
                    record = self.results.get(timeout=0.5)
                except queue.Empty:
                    continue
                if record is None:
                    running -= 1
                else:
                    self._handle(record, pgn)
        except KeyboardInterrupt:
            interrupted = True
            self.say("Interrupted: stopping games in progress")
            self.stop.set()
            self.abort.set()
            with self._lock:
                players = list(self._players)
            for player in players:
                player.kill()
            while running:
                record = self.results.get()
                if record is None:
                    running -= 1
                elif record.counted:
                    self._handle(record, pgn)
        finally:
            pgn.close()
        if config.plot is not None:
            config.plot.finish(self.tally, self.names, self.verdict)
        for line in summary_lines(self.tally, self.names[0], self.names[1], config.sprt, self.verdict, config.pgn):
            self.say(line)
        self._fastchess_block()
        if config.sprt is not None and self.verdict is not None:
            self.say(fastchess.verdict_line(config.sprt, self.verdict))
        self.say(final_line(self.tally, self.verdict))
        return MatchResult(self.tally, self.verdict, self._status(interrupted), self.names)

    def _status(self, interrupted: bool) -> int:
        """The exit status: a failure first, then what the SPRT decided."""
        if interrupted:
            return EXIT_INTERRUPTED
        if self._exit_code != EXIT_DONE or self.config.sprt is None:
            return self._exit_code
        return {"H1": EXIT_DONE, "H0": EXIT_H0}.get(self.verdict or "", EXIT_INCONCLUSIVE)
