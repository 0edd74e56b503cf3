"""``scripts/match.py --cluster ADDRESS``: the games of a match played on a Dask cluster.

``ClusterMatch`` is a ``runner.Match`` whose worker threads do not own engine processes:
each one takes an opening pair (the two colour-reversed games of one opening), submits it
as one Dask task and waits for it. On the worker, ``play_pair`` plays the two games with
``game.play_game`` against engine processes that stay alive across the pairs the worker
thread plays (restarted after a fault, exactly as locally) and returns the two
``GameRecord``s. The client then handles each game as a local match does: the live line,
the tally, the Elo interval, the SPRT stop (no new pairs; the pairs in progress finish and
count), the PGN file. As many pairs are in flight as the cluster has worker threads.

A worker that dies mid-pair has the pair replayed elsewhere by the scheduler (the client
only ever receives one result per pair, so nothing is counted twice); a pair whose workers
die ``allowed-failures`` times (3) becomes two uncounted games. Workers running other
runner or Pruner code than the client are refused before the first game.
"""

import os
import sys
import threading
import time
import traceback
from typing import Dict, List, Optional, Sequence, Tuple

import chess

from .engines import EnginePlayer, EngineSpec, EngineStartError
from .game import Fault, GameJob, GameRecord, GameSettings, play_game
from .runner import Match, MatchConfig, MatchResult, engine_options

from pruner.cluster import (ClusterError, WorkerCache, error_text, is_killed_worker, open_cluster,
                              parse_address, release_on_workers, require_identity)

PACKAGES = ("pruner", "pruner.engine", "pruner.lab")
"""Code every worker must share with the client (the runner and the Pruner it starts)."""
EXIT_UNAVAILABLE = 69
"""The cluster cannot be used (sysexits.h ``EX_UNAVAILABLE``)."""
RETRIES = 1
"""Extra attempts of a pair whose task raised (a runner bug); worker deaths are the scheduler's."""
POLL_SECONDS = 0.1


def cluster_address(text: str) -> str:
    """argparse type of ``--cluster``: a scheduler address or ``local:N``."""
    import argparse
    try:
        parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


# -- on the workers ------------------------------------------------------------------------

def _quit_pair(players: Tuple[EnginePlayer, EnginePlayer]) -> None:
    for player in players:
        player.quit()


_PLAYERS = WorkerCache(_quit_pair)
"""This worker process's engine pairs, one per (thread, engine specs): kept across pairs."""


def _worker_players(spec1: EngineSpec, spec2: EngineSpec, start_timeout: float,
                    chess960: bool) -> Tuple[EnginePlayer, EnginePlayer]:
    return _PLAYERS.get((repr(spec1), repr(spec2), start_timeout, chess960),
                        lambda: (EnginePlayer(spec1, start_timeout=start_timeout, chess960=chess960),
                                 EnginePlayer(spec2, start_timeout=start_timeout, chess960=chess960)))


def release_players() -> int:
    """Quit this process's engines; run on every worker when a match ends."""
    return _PLAYERS.release()


def probe_engines(spec1: EngineSpec, spec2: EngineSpec, start_timeout: float, chess960: bool,
                  identity: Dict[str, str]) -> Tuple[Optional[str], Optional[str], int, str, Tuple, Tuple]:
    """Start both engines on a worker: ``(id name 1, id name 2, 0, "", options 1, options 2)``
    with each engine's ``(Threads, Hash)`` values, or ``(None, None, engine number, error,
    (), ())`` for the first that fails to start."""
    require_identity(PACKAGES, identity)
    players = _worker_players(spec1, spec2, start_timeout, chess960)
    for number, player in enumerate(players, 1):
        try:
            player.start()
        except EngineStartError as exc:
            return None, None, number, str(exc), (), ()
    return players[0].id_name, players[1].id_name, 0, "", engine_options(players[0]), engine_options(players[1])


def play_pair(spec1: EngineSpec, spec2: EngineSpec, start_timeout: float, chess960: bool,
              settings: GameSettings, jobs: Sequence[GameJob], names: Tuple[str, str],
              identity: Dict[str, str]) -> List[GameRecord]:
    """The Dask task: play ``jobs`` (one opening, both colours) in order; their records."""
    require_identity(PACKAGES, identity)
    engine1, engine2 = _worker_players(spec1, spec2, start_timeout, chess960)
    records = []
    for job in jobs:
        if job.engine1_white:
            white, black = engine1, engine2
            game_names = {chess.WHITE: names[0], chess.BLACK: names[1]}
        else:
            white, black = engine2, engine1
            game_names = {chess.WHITE: names[1], chess.BLACK: names[0]}
        try:
            record = play_game(job, white, black, game_names, settings)
        except Exception as exc:  # noqa: BLE001 - a runner bug ends one game, not the match
            traceback.print_exc(file=sys.stderr)
            record = GameRecord(job, game_names[chess.WHITE], game_names[chess.BLACK], job.opening.start(), 0,
                                reason="runner error: %s: %s" % (type(exc).__name__, exc))
            engine1.kill()
            engine2.kill()
        records.append(record)
    return records


# -- on the client -------------------------------------------------------------------------

class _RemotePlayer:
    """Stands in for a worker thread's engines, which live on the cluster."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec

    def kill(self) -> None:
        pass

    def quit(self) -> None:
        pass


class ClusterMatch(Match):
    """``Match`` whose games are played on the Dask cluster at ``address`` (or ``local:N``)."""

    def __init__(self, config: MatchConfig, address: str, out=None) -> None:
        super().__init__(config, out)
        self.address = address
        self.cluster = None
        self._identity: Dict[str, str] = {}
        self._pair_lock = threading.Lock()
        self._refused = False

    def run(self) -> MatchResult:
        """Connect (or start a LocalCluster), check the workers, play the match, clean up."""
        config = self.config
        try:
            with open_cluster(self.address) as cluster:
                cluster.wait_for_workers(self.say)
                self._identity = cluster.check_workers(PACKAGES)
                self.cluster = cluster
                config.concurrency = max(1, cluster.total_threads())  # one pair per worker thread
                config.header = tuple(config.header) + ("Cluster: %s" % cluster.describe(),)
                try:
                    return super().run()
                finally:
                    release_on_workers(cluster, release_players)
        except ClusterError as exc:
            self.say("Cluster: %s" % exc)
            return MatchResult(self.tally, None, EXIT_UNAVAILABLE, self.names)

    # -- Match's hooks --------------------------------------------------------------------

    def _new_player(self, spec: EngineSpec) -> EnginePlayer:  # type: ignore[override]
        return _RemotePlayer(spec)  # type: ignore[return-value]

    def probe(self) -> Optional[Tuple[EnginePlayer, EnginePlayer]]:
        """Start both engines on a worker once, to check them and learn their names."""
        config = self.config
        future = self.cluster.client.submit(
            probe_engines, config.engine1, config.engine2, config.start_timeout, config.chess960,
            self._identity, pure=False)
        try:
            id1, id2, failed, detail, options1, options2 = future.result()
        except Exception as exc:  # noqa: BLE001 - the cluster's failure, reported as such
            raise ClusterError("engine check on a worker failed: %s" % error_text(exc)) from None
        if failed:
            spec = config.engine1 if failed == 1 else config.engine2
            name = spec.name or os.path.basename(spec.command[0])
            self.tally.faults.append(Fault(0, failed, name, "start", detail))
            self.say("Engine %d (%s) failed to start: %s" % (failed, spec.describe(), detail))
            return None
        names = [spec.name or id_name or os.path.basename(spec.command[0])
                 for spec, id_name in ((config.engine1, id1), (config.engine2, id2))]
        if names[0] == names[1]:
            names = [names[0] + " (1)", names[1] + " (2)"]
        self.names = (names[0], names[1])
        self.set_uci_values(options1, options2)
        return self._new_player(config.engine1), self._new_player(config.engine2)

    def _worker(self, players) -> None:
        """One in-flight pair at a time: take it, play it on the cluster, queue its records."""
        try:
            while True:
                with self._pair_lock:  # both games of a pair, never one of them to another thread
                    first = self._take_job()
                    second = self._take_job() if first is not None and first.number % 2 == 1 else None
                if first is None:
                    break
                for record in self._play_remote([job for job in (first, second) if job is not None]):
                    self.results.put(record)
        finally:
            self.results.put(None)

    def _play_remote(self, jobs: List[GameJob]) -> List[GameRecord]:
        config = self.config
        future = self.cluster.client.submit(
            play_pair, config.engine1, config.engine2, config.start_timeout, config.chess960,
            config.settings, jobs, self.names, self._identity,
            key="pruner-match-pair-%d-%s" % (jobs[0].pair, os.urandom(4).hex()),
            priority=-jobs[0].pair, retries=RETRIES, pure=False)
        while not future.done():
            if self.abort.is_set():
                future.cancel()
                return []
            time.sleep(POLL_SECONDS)
        if future.status == "finished":
            return list(future.result())
        if future.status == "error":
            exc = future.exception()
            if type(exc).__name__ == "VersionMismatch":
                with self._lock:
                    refused, self._refused = self._refused, True
                if not refused:
                    self.say("Cluster: refusing to go on: a worker that joined during the match has other "
                             "code: %s" % exc)
                    self._exit_code = EXIT_UNAVAILABLE
                self.stop.set()
                reason = "not played: worker with other code"
            elif is_killed_worker(exc):
                reason = "lost: the workers playing this pair died repeatedly (Dask KilledWorker)"
            else:
                reason = "runner error on the cluster: %s" % error_text(exc)
        else:
            reason = "lost: the Dask scheduler dropped the pair (%s)" % future.status
        records = []
        for job in jobs:
            first, second = self.names if job.engine1_white else (self.names[1], self.names[0])
            records.append(GameRecord(job, first, second, job.opening.start(), 0, reason=reason))
        return records
