"""Perft and bench stop when asked, and never print a partial count as a result."""

import threading

import chess
import pytest

from pruner.engine import bench
from pruner.engine.perft import PerftStopped, perft, perft_divide


def test_perft_stops_when_asked_and_never_returns_a_partial_total():
    stop = threading.Event()
    assert perft(chess.Board(), 3, stop) == 8902
    stop.set()
    assert perft(chess.Board(), 1, stop) == 20  # the last ply is one count: nothing to stop
    with pytest.raises(PerftStopped):
        perft(chess.Board(), 3, stop)
    counted = []
    with pytest.raises(PerftStopped):
        for move, count in perft_divide(chess.Board(), 4, stop):
            counted.append(count)
    assert counted == []


def test_a_stopped_bench_prints_no_signature():
    stop = threading.Event()
    stop.set()
    lines = []
    result = bench.report(3, lines.append, stop=stop)
    assert result.stopped and lines == []
