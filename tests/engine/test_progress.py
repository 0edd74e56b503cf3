"""Progress reports from inside long iterations (``Searcher.search``'s ``on_progress``).

The searcher's clock is replaced by one that runs with the node count (10,000 nodes a
"second"), so every report comes at the same node on every machine: no sleeps, no real time.
"""

import chess

from pruner.engine import bench
from pruner.engine.search import Searcher
from pruner.engine.smp import ParallelSearcher
from pruner.engine.types import Limits, SearchInfo, SearchProgress

NODES_PER_SECOND = 10000
SECOND_MS = 1000
"""The issue's figures: nothing extra in the first second, then counters about once a second."""
FEN = bench.POSITIONS[1]  # depth 6: about 45,000 nodes, 48 root moves


def node_clock(searcher: Searcher):
    """A clock that reads the searcher's node count as time."""
    return lambda: searcher.nodes / NODES_PER_SECOND


def run(depth: int, fen: str = FEN, progress: bool = True, multipv: int = 1):
    """(result, events): events are ("info", SearchInfo) and ("progress", SearchProgress) in order."""
    searcher = Searcher()
    searcher.clock = node_clock(searcher)
    events = []
    on_progress = (lambda report: events.append(("progress", report))) if progress else None
    result = searcher.search(chess.Board(fen), Limits(depth=depth), multipv=multipv,
                             on_info=lambda info: events.append(("info", info)), on_progress=on_progress)
    return result, events


def reports(events, currmove: bool):
    return [report for kind, report in events
            if kind == "progress" and (report.currmove is not None) == currmove]


def test_a_search_shorter_than_a_second_reports_nothing_more():
    result, events = run(depth=4)
    assert result.nodes < NODES_PER_SECOND  # the test's premise: under a "second"
    assert [kind for kind, _ in events] == ["info"] * 4


def test_after_the_first_second_root_moves_and_counters_are_reported():
    result, events = run(depth=6)
    moves = list(chess.Board(FEN).legal_moves)
    currmoves = reports(events, currmove=True)
    counters = reports(events, currmove=False)
    assert currmoves and counters
    # Nothing in the first second.
    assert all(report.time_ms >= SECOND_MS for _, report in events if isinstance(report, SearchProgress))
    # Root moves: legal, numbered within the root list, at the depth of the running iteration.
    for report in currmoves:
        assert report.currmove in moves and 1 <= report.currmovenumber <= len(moves)
    # Each root search counts its moves from 1 (an aspiration window failing starts it again;
    # the first report comes in the middle of one).
    for previous, report in zip(currmoves, currmoves[1:]):
        assert report.currmovenumber == 1 or (report.depth == previous.depth
                                              and report.currmovenumber == previous.currmovenumber + 1)
    # The counters: nodes that only grow, at most one report per second, none within a second
    # after an iteration's info (that line shows the nodes already).
    last_ms = None
    for kind, report in events:
        if kind == "info" or report.currmove is None:
            if kind == "progress":
                assert last_ms is None or report.time_ms - last_ms >= SECOND_MS
                assert report.hashfull >= 0 and report.seldepth >= report.depth - 1
            last_ms = report.time_ms
    assert [r.nodes for r in counters] == sorted(r.nodes for r in counters)
    assert all(r.nodes < result.nodes for r in counters)


def test_reports_change_nothing_in_the_search():
    with_reports, events = run(depth=6)
    without, _ = run(depth=6, progress=False)
    assert reports(events, currmove=True)  # the test's premise: reports were made
    assert (with_reports.nodes, with_reports.best_move, with_reports.score, with_reports.lines[0].pv) == \
        (without.nodes, without.best_move, without.score, without.lines[0].pv)


def test_multipv_numbers_root_moves_after_the_better_lines():
    _, events = run(depth=5, multipv=3)
    numbers = [report.currmovenumber for report in reports(events, currmove=True)]
    assert numbers and min(numbers) >= 1
    assert max(numbers) <= len(list(chess.Board(FEN).legal_moves))
    # The second and third lines search the root list without the better lines' moves.
    assert any(number >= 2 for number in numbers)


def test_only_the_main_searcher_reports_and_nodes_include_the_helpers():
    searcher = ParallelSearcher(threads=2)
    try:
        main = searcher.main
        main.clock = node_clock(main)
        progress = []
        infos = []
        result = searcher.search(chess.Board(FEN), Limits(depth=6), on_info=infos.append,
                                 on_progress=progress.append)
    finally:
        searcher.close()
    counters = [report for report in progress if report.currmove is None]
    assert counters, "no progress report"
    # The reports come through the main searcher's clock (one "second" = 10,000 of its nodes,
    # so it had searched at most time_ms * 10 + 9 then) and count the helper's nodes too.
    main_at_most = [report.time_ms * NODES_PER_SECOND // SECOND_MS + 9 for report in counters]
    assert any(report.nodes > most for report, most in zip(counters, main_at_most))
    assert all(isinstance(info, SearchInfo) for info in infos)
    assert result.best_move in chess.Board(FEN).legal_moves
