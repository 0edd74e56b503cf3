"""``pruner analyse`` on inputs of any size (issue 25): read as a stream in every mode,
compressed files, the game filters, the progress line, bounded memory.

Structural checks first: every runner and ``--resume`` take an endless iterator of tasks and
hand results on after reading a bounded number of them; the first record comes out while the
input is still open; ``--games`` reads no further. Then the command on a 20,000-game
``.pgn.gz`` made on the fly (tests/analyse/corpus.py): the first record as soon as on a small
input, and the peak memory of the process as on a 100-game input.
"""

import bz2
import gzip
import io
import itertools
import json
import lzma
import os
import select
import shlex
import subprocess
import sys
import time

import chess
import chess.pgn
import pytest

from pruner.engine.pgn import PgnLines, PgnReader, decode
from pruner.analyse_app.cli import EXIT_USAGE, main
from pruner.analyse_app.filters import GameFilter, parse_condition
from pruner.analyse_app.inputs import PositionTask
from pruner.analyse_app.output import Progress
from pruner.analyse_app.pool import ProcessRunner
from pruner.analyse_app.resume import resume_output
from pruner.analyse_app.review import collect
from pruner.analyse_app.sources import from_name, missing_zstandard, parse_input_format
from pruner.analyse_app.stream import IN_FLIGHT_PER_JOB, READ_AHEAD, TaskFeed
from pruner.analyse_app.tasks import Settings, TaskResult
from pruner.analyse_app.uci_engine import EngineRunner

from corpus import REAL_GAMES, corpus_games, headers_of, write_corpus
from paths import FAKE_ENGINE, ROOT

try:
    import zstandard
except ImportError:  # the [zst] extra is optional (CPython only: PyPy's build lacks its cffi backend)
    zstandard = None

needs_zstandard = pytest.mark.skipif(zstandard is None, reason="zstandard: %s (pip install 'pruner-chess[zst]'; "
                                     "CPython only)" % missing_zstandard())
COMPRESSIONS = ["gz", "bz2", "xz", pytest.param("zst", marks=needs_zstandard)]
OPENERS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
           "zst": lambda data: zstandard.ZstdCompressor().compress(data)}
EPD = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
       '1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";']


def _real_plies():
    """Plies of each real game, in the corpus's order."""
    plies = []
    with open(REAL_GAMES, encoding="utf-8") as handle:
        for game in iter(lambda: chess.pgn.read_game(handle), None):
            plies.append(len(list(game.mainline_moves())))
    return plies


PLIES = _real_plies()


def positions_of(count):
    """Records of corpus games 1 to ``count`` (one per position, the final one included)."""
    return sum(PLIES[(number - 1) % len(PLIES)] + 1 for number in range(1, count + 1))


def run(argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def records(text):
    return [json.loads(line) for line in text.splitlines()]


def comparable(items):
    """Records without what differs between two files of the same games: time, file name."""
    for item in items:
        item.pop("time_ms")
        item["source"] = item["source"].rsplit(":", 1)[-1]
    return items


READ_TOO_FAR = 5000
"""Reading this many tasks of an endless input means reading it all: fail, not hang."""


def endless(pulled):
    """Tasks without end (the start position, numbered), counting in ``pulled[0]`` those read."""
    for number in itertools.count(1):
        pulled[0] += 1
        assert number < READ_TOO_FAR, "the endless input is being read to its end"
        yield PositionTask("endless:%d" % number, chess.STARTING_FEN, False)


def command():
    return [sys.executable, "-m", "pruner", "analyse"]


# -- every runner and --resume take an endless stream -------------------------------------------

def test_the_feed_reads_ahead_only_once_a_first_task_is_done():
    """The first searches do not compete with reading hundreds of games ahead."""
    pulled = [0]
    with TaskFeed(endless(pulled), 2, read_ahead=10) as feed:
        taken = [feed.take(wait=True), feed.take(wait=True)]
        assert feed.read == 2 and pulled[0] <= 3  # the reader waits (maybe holding a third)
        feed.done()
        taken += [feed.take(wait=True) for _ in range(11)]
        assert feed.read == 13 and pulled[0] <= 14
    assert [task.source for task in taken] == ["endless:%d" % n for n in range(1, 14)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_runner_hands_results_on_from_an_endless_input(jobs):
    pulled = [0]
    with ProcessRunner(Settings(depth=1), jobs, lambda n: None) as runner:
        results = runner.run(endless(pulled))
        first = [next(results) for _ in range(20)]
        assert pulled[0] <= 20 + jobs * IN_FLIGHT_PER_JOB + READ_AHEAD + 1
        assert len(runner.workers) == (0 if jobs == 1 else jobs)
        results.close()
    assert [result.source for result in first] == ["endless:%d" % n for n in range(1, 21)]


def test_worker_processes_are_started_per_task_up_to_jobs():
    with ProcessRunner(Settings(depth=1), 4, lambda n: None) as runner:
        results = list(runner.run([PositionTask("a", chess.STARTING_FEN, False)] * 2))
        assert len(runner.workers) == 2  # never more processes than tasks
    assert [result.error for result in results] == [None, None]


def test_the_engine_runner_hands_results_on_from_an_endless_input():
    pulled = [0]
    engine = shlex.split(shlex.join([sys.executable, FAKE_ENGINE]))
    with EngineRunner(engine, (), Settings(depth=1, engine_name="FakeUCI"), 2, lambda n: None) as runner:
        results = runner.run(endless(pulled))
        first = [next(results) for _ in range(10)]
        assert pulled[0] <= 10 + 2 * IN_FLIGHT_PER_JOB + READ_AHEAD + 1
        results.close()
    assert len(runner.started) == 2  # the second may still have been starting above
    assert [result.source for result in first] == ["endless:%d" % n for n in range(1, 11)]


def test_resume_reads_the_inputs_no_further_than_the_file(tmp_path):
    out = tmp_path / "out.jsonl"
    status, _, _ = run(["-q", "--depth", "1", "--jobs", "1", "-o", str(out), "startpos", "startpos", "startpos"])
    assert status == 0
    lines = out.read_text().splitlines(True)
    out.write_text("".join(json.dumps(dict(json.loads(line), source="endless:%d" % n)) + "\n"
                           for n, line in enumerate(lines, 1)))
    pulled = [0]
    resumed = resume_output(str(out), "jsonl", endless(pulled))
    resumed.stream.close()
    assert (resumed.done_tasks, resumed.done_positions, pulled[0]) == (3, 3, 3)
    assert next(resumed.tasks).source == "endless:4"


def test_resume_redoes_a_cut_game_of_a_compressed_input(tmp_path):
    corpus = write_corpus(str(tmp_path / "c.pgn.gz"), 5)
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    base = ["-q", "--depth", "1", "--jobs", "2", "--skip-games", "1", "--games", "3", corpus]
    assert run(base + ["-o", str(full)])[0] == 0
    text = full.read_text()
    assert [item["game"] for item in records(text)][0] == 2
    part.write_text(text[:len(text) * 2 // 3])
    assert run(base + ["--resume", "-o", str(part)])[0] == 0
    assert comparable(records(part.read_text())) == comparable(records(text))


# -- the first record while the input is still being written --------------------------------------

@pytest.mark.parametrize("jobs", ["1", "2"])
def test_first_record_before_the_input_ends(jobs):
    """Standard input is a pipe this test keeps open: the records of the games written so far
    come out before the end of the input is known."""
    process = subprocess.Popen(command() + ["--depth", "1", "--jobs", jobs, "-q", "-"], cwd=ROOT, bufsize=0,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        process.stdin.write("".join(corpus_games(3)).encode())
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 120)  # a guard: fail instead of hanging
        assert ready, "no record while the input is open"
        first = json.loads(process.stdout.readline())  # unbuffered: communicate() below misses nothing
        assert (first["game"], first["ply"]) == (1, 0)
        rest, err = process.communicate(timeout=120)  # closes standard input: the end
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert 1 + len(rest.splitlines()) == positions_of(3)


def _descendants(pid):
    """The processes below ``pid`` (from /proc: each process's parent)."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on pidfds (Linux, Python 3.9+)")
def test_worker_processes_end_when_pruner_analyse_is_killed(tmp_path):
    """Killed without a chance to stop them (SIGKILL), the workers notice and end, and with
    them the fork server: nothing is left behind."""
    corpus = write_corpus(str(tmp_path / "corpus.pgn.gz"), 2000)
    process = subprocess.Popen(command() + ["--depth", "1", "--jobs", "2", "-q", corpus], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        process.stdout.readline()  # running: workers busy, tasks queued
        below = _descendants(process.pid)
        pidfds = []
        for pid in below:
            try:
                pidfds.append(os.pidfd_open(pid))
            except ProcessLookupError:
                pass
        assert len(pidfds) >= 3  # the fork server and two workers (and maybe a resource tracker)
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 60
    try:
        while pidfds and time.monotonic() < deadline:  # a pidfd is readable once its process ended
            ended, _, _ = select.select(pidfds, [], [], deadline - time.monotonic())
            for fd in ended:
                pidfds.remove(fd)
                os.close(fd)
        assert not pidfds, "processes left behind: %s" % [pid for pid in below if os.path.exists("/proc/%d" % pid)]
    finally:
        for fd in pidfds:
            os.close(fd)
        for pid in below:
            if os.path.exists("/proc/%d" % pid):
                os.kill(pid, 9)


# -- compressed inputs ----------------------------------------------------------------------------

@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_compressed_files_read_like_plain_ones(tmp_path, compression):
    pgn_text = "".join(corpus_games(3)).encode()
    epd_text = ("\n".join(EPD) + "\n").encode()
    plain = [tmp_path / "games.pgn", tmp_path / "suite.epd"]
    packed = [tmp_path / ("games.pgn." + compression), tmp_path / ("suite.epd." + compression)]
    for path, data in zip(plain, (pgn_text, epd_text)):
        path.write_bytes(data)
    for path, data in zip(packed, (pgn_text, epd_text)):
        path.write_bytes(OPENERS[compression](data))
    status, expected, _ = run(["-q", "--depth", "1", "--jobs", "1"] + [str(path) for path in plain])
    assert status == 0
    status, out, err = run(["-q", "--depth", "1", "--jobs", "1"] + [str(path) for path in packed])
    assert status == 0, err
    assert comparable(records(out)) == comparable(records(expected))
    assert len(records(out)) == positions_of(3) + 2
    # standard input, told what it is
    stdin = io.TextIOWrapper(io.BytesIO(OPENERS[compression](pgn_text)))
    status, out, err = run(["-q", "--depth", "1", "--input-format", "pgn." + compression, "-"], stdin=stdin)
    assert status == 0, err
    assert comparable(records(out)) == comparable(records(expected))[:positions_of(3)]
    stdin = io.TextIOWrapper(io.BytesIO(OPENERS[compression](epd_text)))  # the content tells EPD
    status, out, err = run(["-q", "--depth", "1", "--input-format", compression, "-"], stdin=stdin)
    assert status == 0, err
    assert [item["fen"].split()[0] for item in records(out)] == [fen.split()[0] for fen in EPD]


def test_a_truncated_file_keeps_the_games_before_the_damage(tmp_path):
    data = gzip.compress("".join(corpus_games(40)).encode())
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(data[:len(data) // 2])
    status, out, err = run(["--depth", "1", "--jobs", "1", "--games", "40", str(cut)])
    assert status == 1
    games = {item["game"] for item in records(out)}
    assert games and min(games) == 1 and max(games) < 40
    assert "cut.pgn.gz: cannot read further (after %d inputs): " % max(games) in err
    assert "Traceback" not in err


def test_latin1_and_utf8_files_read_as_before(tmp_path):
    """Line by line decoding reads a Latin-1 file as the whole-file decoding does."""
    text = '[Event "Café"]\n[White "Müller"]\n[Black "Ødegaard"]\n\n1. e4 e5 *\n\n'
    for encoding in ("latin-1", "utf-8", "utf-8-sig"):
        data = text.encode(encoding)
        streamed = [(game.number, game.line, game.text) for game in PgnReader().read(PgnLines(io.BytesIO(data)))]
        whole = [(game.number, game.line, game.text) for game in PgnReader().read(decode(data))]
        assert streamed == whole and "Müller" in streamed[0][2]


def test_a_stream_and_a_text_give_the_same_games():
    messy = open(REAL_GAMES, encoding="utf-8").read()[:3000] + "\n\nsome notes, not a game\n\n" + \
        "1. e4 e5 2. Ke3 *\n\n%% escape\n[Event \"x\"]\n\n1. d4 (1. c4 ) d5 *\n"
    streamed, whole = PgnReader(), PgnReader()
    one = [(game.number, game.line, game.text, game.problem) for game in streamed.read(io.StringIO(messy))]
    two = [(game.number, game.line, game.text, game.problem) for game in whole.read(messy)]
    assert one == two and len(one) >= 5
    assert streamed.not_games == whole.not_games and streamed.not_games


def test_input_format_and_names():
    assert from_name("a.PGN.zst") == ("pgn", "zst") and from_name("a.epd") == ("epd", None)
    assert from_name("x.txt.xz") == ("epd", "xz") and from_name("games.pgn.gz") == ("pgn", "gz")
    assert parse_input_format("pgn.zst") == ("pgn", "zst") and parse_input_format("gz") == (None, "gz")
    assert parse_input_format("EPD") == ("epd", None)
    for bad in ("zip", "pgn.zip", "pgn.gz.xz", ""):
        with pytest.raises(ValueError):
            parse_input_format(bad)


@pytest.mark.parametrize("argv,message", [
    (["--input-format", "pgn.zip", "-"], "--input-format 'pgn.zip': expected pgn or epd"),
    (["--where", "WhiteElo", "x.pgn"], "--where 'WhiteElo': expected TAG OP VALUE"),
    (["--where", "WhiteElo>=abc", "x.pgn"], "--where 'WhiteElo>=abc': >= compares numbers, and 'abc' is not one"),
    (["--where", "=2000", "x.pgn"], "--where '=2000': expected TAG OP VALUE"),
    (["--games", "0", "x.pgn"], "--games: must be at least 1"),
    (["--skip-games", "-1", "x.pgn"], "--skip-games: must be at least 0"),
    (["--from-move", "20", "--to-move", "10", "x.pgn"], "--to-move 10 is before --from-move 20"),
])
def test_bad_stream_options_are_usage_errors(argv, message):
    status, out, err = run(argv)
    assert status == EXIT_USAGE and message in err and out == ""


def test_zst_without_zstandard_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if it could not be imported
    status, _, err = run(["games.pgn.zst"])
    assert status == EXIT_USAGE
    assert ".zst input needs the zstandard package" in err and 'pip install "pruner-chess[zst]"' in err


# -- which games ----------------------------------------------------------------------------------

def test_where_conditions():
    headers = {"WhiteElo": "2100", "BlackElo": "?", "Event": "Rated Blitz game", "Round": "1.0"}
    holds = {text: parse_condition(text).matches(headers) for text in (
        "WhiteElo>=2000", "WhiteElo>2100", "WhiteElo<=2100", "WhiteElo<3000", "WhiteElo=2100", "WhiteElo!=2100",
        "BlackElo>0", "BlackElo=?", "Event~Blitz", "Event~blitz", 'Event="Rated Blitz game"', "Round=1",
        "Site=?", "Site!=London", "Opening~Sicilian", "Opening!=Sicilian", " WhiteElo >= 2000 ")}
    assert holds == {"WhiteElo>=2000": True, "WhiteElo>2100": False, "WhiteElo<=2100": True, "WhiteElo<3000": True,
                     "WhiteElo=2100": True, "WhiteElo!=2100": False, "BlackElo>0": False, "BlackElo=?": True,
                     "Event~Blitz": True, "Event~blitz": False, 'Event="Rated Blitz game"': True, "Round=1": True,
                     "Site=?": False, "Site!=London": True, "Opening~Sicilian": False, "Opening!=Sicilian": True,
                     " WhiteElo >= 2000 ": True}
    chosen = GameFilter([parse_condition("WhiteElo>=2000")], skip=1, limit=2)
    assert [chosen.want({"WhiteElo": elo}) for elo in ("2000", "1000", "2500", "2001", "2002")] == \
        [False, False, True, True, False]
    assert chosen.full


def test_where_skip_and_games_choose_games_by_their_headers(tmp_path):
    corpus = write_corpus(str(tmp_path / "corpus.pgn.xz"), 60)
    wanted = [number for number in range(1, 61) if int(headers_of(number)["WhiteElo"]) >= 2000
              and "Blitz" in headers_of(number)["Event"]]
    assert len(wanted) >= 5
    status, out, err = run(["-q", "--depth", "1", "--where", "WhiteElo>=2000", "--where", "Event~Blitz",
                            "--skip-games", "1", "--games", "3", "--side", "white", "--to-move", "2", corpus])
    assert status == 0, err
    items = records(out)
    assert sorted({item["game"] for item in items}) == wanted[1:4]  # numbers in the file kept
    assert {(item["move_number"], item["turn"]) for item in items} == {(1, "w"), (2, "w")}


def test_games_left_out_are_not_parsed_and_the_rest_is_not_read():
    broken = '[Event "broken"]\n\n1. e4 e5 2. Ke3 *\n\n'

    class Stdin:
        """A text stream that counts the lines read from it."""

        def __init__(self, text):
            self.lines = io.StringIO(text).readlines()
            self.read = 0

        def readline(self, size=-1):  # lines shorter than any size asked for
            self.read += 1
            return self.lines[self.read - 1] if self.read <= len(self.lines) else ""

        def isatty(self):
            return False

    stdin = Stdin(broken + "".join(corpus_games(200)))
    status, out, err = run(["--depth", "1", "--skip-games", "1", "--games", "1", "-"], stdin=stdin)
    assert status == 0 and "broken" not in err  # skipped unparsed: its illegal move is not seen
    assert {item["game"] for item in records(out)} == {2}
    assert stdin.read < 40 < len(stdin.lines)  # two games and a bit: the rest is not read


# -- progress and report ---------------------------------------------------------------------------

def test_progress_line_while_the_total_is_unknown():
    now = [100.0]
    stream = io.StringIO()
    line = Progress(None, stream, enabled=True, clock=lambda: now[0])
    now[0] += 20.0
    line.games = 12
    line.advance(812)
    assert line.text(now[0]) == "812 positions, 12 games  40.6/s  0:20"
    assert stream.getvalue().startswith("\r812 positions")
    line.set_total(1624)
    assert line.text(now[0]) == "[############............] 812/1624 positions  40.6/s  ETA 0:20"
    line.finish()


def test_the_review_keeps_the_first_tasks_only(tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_REVIEWED", 2)
    corpus = write_corpus(str(tmp_path / "three.pgn"), 3)
    report = tmp_path / "review.html"
    status, out, err = run(["--depth", "1", "--report", str(report), "-o", str(tmp_path / "all.jsonl"), corpus])
    assert status == 0, err
    assert err.count("--report %s: the review shows the first 2 games and positions" % report) == 1
    assert {item["game"] for item in records((tmp_path / "all.jsonl").read_text())} == {1, 2, 3}
    page = report.read_text()
    assert "Rated Rapid game 1" in page and "Casual Classical game 2" in page and "Rated Blitz game 3" not in page


def test_collector_is_bounded():
    kept = collect.ReviewCollector("r.html", None, limit=3)
    said = []
    for number in range(10):
        source = "s:%d" % number
        kept.keep(PositionTask(source, chess.STARTING_FEN, False), TaskResult(source), said.append)
    assert len(kept.kept) == 3 and kept.left_out == 7 and len(said) == 1


# -- the command on a large compressed input -------------------------------------------------------

def _status_kb(pid, field):
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def _first_record_and_peak(path, records_wanted=200):
    """Seconds from start to the first record, and the process's peak RSS (kB) once
    ``records_wanted`` records are out, of ``--depth 1 --jobs 2`` on ``path`` (then killed)."""
    started = time.monotonic()
    process = subprocess.Popen(command() + ["--depth", "1", "--jobs", "2", "-q", path], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 300)  # a guard: fail instead of hanging
        assert ready, "no record in 300 s"
        process.stdout.readline()
        first = time.monotonic() - started
        for _ in range(records_wanted - 1):
            assert process.stdout.readline()
        return first, _status_kb(process.pid, "VmHWM")
    finally:
        process.kill()
        process.wait()


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak RSS from /proc (Linux)")
@pytest.mark.clock  # asserts on wall time: run alone (scripts/run_tests.sh)
def test_a_large_input_starts_at_once_with_the_memory_of_a_small_one(tmp_path):
    """20,000 games (11 MB of PGN): the first record as soon as from 10 games, and the peak
    memory of the process (its own, not the workers') when 200 records are written within
    10 MB of a 100-game run's (issue 25 asks 50 MB on 200,000 games; this input is a tenth,
    and reading it whole would take 11 MB of text and tens of MB of tasks)."""
    large = write_corpus(str(tmp_path / "large.pgn.gz"), 20000)
    small = write_corpus(str(tmp_path / "small.pgn.gz"), 10)
    hundred = write_corpus(str(tmp_path / "hundred.pgn.gz"), 100)
    first_small, _ = _first_record_and_peak(small)
    first_large, peak_large = _first_record_and_peak(large)
    _, peak_hundred = _first_record_and_peak(hundred)
    assert first_large < first_small + 1.5, (first_large, first_small)
    assert peak_large < peak_hundred + 10 * 1024, (peak_large, peak_hundred)


PEAK = """import resource, sys
from pruner.analyse_app.cli import main
status = main(sys.argv[1:])
print("peak", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(status)
"""


def _whole_pass_peak(path, skip):
    """The peak RSS (kB) of a whole run that reads all of ``path`` and analyses its last games."""
    done = subprocess.run([sys.executable, "-c", PEAK, "--depth", "1", "--jobs", "2", "-q", "--skip-games",
                           str(skip), "-o", os.devnull, path], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split("peak")[-1].split()[0])


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kB on Linux")
def test_reading_a_large_input_to_its_end_keeps_memory_flat(tmp_path):
    """The whole 20,000-game file is read (all but the last 10 games skipped by their
    headers); the process's peak memory stays within 10 MB of the same run on 100 games."""
    large = write_corpus(str(tmp_path / "large.pgn.gz"), 20000)
    hundred = write_corpus(str(tmp_path / "hundred.pgn.gz"), 100)
    assert _whole_pass_peak(large, 19990) < _whole_pass_peak(hundred, 90) + 10 * 1024
