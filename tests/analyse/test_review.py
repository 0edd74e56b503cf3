"""``pruner analyse --report`` / ``--plot``: the game review page and the evaluation picture.

The numbers are checked against the analysis itself (the JSON Lines records and the
annotated PGN's NAGs of the same run settings, depth 3: the output is deterministic), the
page against a strict HTML parser and for external references, and, when Chromium is
installed, a real browser's screenshot of it.
"""

import html
import io
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser

import chess
import chess.pgn
import pytest

from pruner.engine.openings import classify
from pruner.analyse_app.cli import EXIT_USAGE, build_parser, main
from pruner.analyse_app.review.html import format_score, numbered_line
from pruner.analyse_app.review.model import chart_limit, chart_points, move_ticks
from pruner.extras import missing_matplotlib

from png_helpers import png_summary
from sample_games import IMMORTAL_GAME, OPERA_GAME

FROM_FEN = """[Event "From a position <&>"]
[White "Fool"]
[Black "Scholar"]
[Result "1-0"]
[SetUp "1"]
[FEN "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"]

3... Nf6 4. Qxf7# 1-0
"""

DEPTH = "3"
HAVE_MATPLOTLIB = not missing_matplotlib()
needs_matplotlib = pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="--plot needs matplotlib (pip install matplotlib)")
NAG_NAMES = {chess.pgn.NAG_DUBIOUS_MOVE: "inaccuracy", chess.pgn.NAG_MISTAKE: "mistake",
             chess.pgn.NAG_BLUNDER: "blunder"}
VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                 "track", "wbr"}


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def opera(tmp_path_factory):
    """The Opera game analysed at depth 3: report, JSON Lines records and annotated PGN."""
    folder = tmp_path_factory.mktemp("opera")
    pgn = folder / "opera.pgn"
    pgn.write_text(OPERA_GAME)
    report, jsonl, annotated = folder / "review.html", folder / "opera.jsonl", folder / "annotated.pgn"
    status, out, err = run(["--depth", DEPTH, "--jobs", "1", "-q", "--report", str(report), str(pgn)])
    assert status == 0, err
    assert out == ""  # a report-only run writes no records
    assert run(["--depth", DEPTH, "--jobs", "1", "-q", "-o", str(jsonl), str(pgn)])[0] == 0
    assert run(["--depth", DEPTH, "--jobs", "1", "-q", "--format", "pgn", "-o", str(annotated), str(pgn)])[0] == 0
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    with open(annotated, encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    return dict(html=report.read_text(encoding="utf-8"), records=records, game=game, folder=folder, pgn=pgn)


def expected_score(record):
    """White's score as the chart must draw it: centipawns clamped to ±1000, mates at the edge."""
    mate = record["white_mate"]
    if mate is not None:
        if mate == 0:  # checkmate on the board: the side to move is mated
            return -1000 if record["turn"] == "w" else 1000
        return 1000 if mate > 0 else -1000
    return max(-1000, min(1000, record["white_cp"]))


class StrictHTML(HTMLParser):
    """html.parser with a strict check: every element closed, in order; collects ids and links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.links, self.tags = [], [], [], Counter()
        self.attributes = []

    def _seen(self, tag, attrs):
        self.tags[tag] += 1
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
            if name == "id":
                self.ids.append(value)
            if name in ("href", "xlink:href", "src"):
                self.links.append(value)

    def handle_starttag(self, tag, attrs):
        self._seen(tag, attrs)
        if tag not in VOID_ELEMENTS:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self._seen(tag, attrs)

    def handle_endtag(self, tag):
        assert self.stack, "</%s> closes nothing" % tag
        assert self.stack[-1] == tag, "</%s> closes <%s> (open: %s)" % (tag, self.stack[-1], self.stack[-5:])
        self.stack.pop()


def parse(text):
    parser = StrictHTML()
    parser.feed(text)
    parser.close()
    assert parser.stack == [], "unclosed: %s" % parser.stack
    return parser


def external_references(text):
    """Everything in src/href/url() that a browser would fetch."""
    found = re.findall(r'(?:src|href)\s*=\s*["\']?\s*((?:[a-z][a-z0-9+.-]*:)?//[^"\'\s>]*)', text, re.I)
    found += re.findall(r'url\(\s*["\']?\s*(?!#)([^)"\'\s]+)', text, re.I)  # url(#id) is internal
    found += re.findall(r'@import', text, re.I)
    return found


def check_self_contained(text):
    parser = parse(text)
    assert text.startswith("<!DOCTYPE html>")
    assert parser.tags["html"] == parser.tags["head"] == parser.tags["body"] == 1
    assert parser.tags["link"] == parser.tags["img"] == parser.tags["iframe"] == parser.tags["object"] == 0
    assert [name for tag, name, _ in parser.attributes if tag == "script" and name == "src"] == []  # inline only
    assert external_references(text) == []
    assert all(link.startswith("#") for link in parser.links), [l for l in parser.links if not l.startswith("#")]
    duplicates = [name for name, count in Counter(parser.ids).items() if count > 1]
    assert duplicates == []
    internal = [link[1:] for link in parser.links] + re.findall(r"url\(#([^)]+)\)", text)
    missing = set(internal) - set(parser.ids)
    assert missing == set(), "links to nothing: %s" % sorted(missing)[:5]
    return parser


# --- numbers ------------------------------------------------------------------------------------

def test_chart_points_equal_the_analysis_numbers(opera):
    records, text = opera["records"], opera["html"]
    expected = [(record["ply"], expected_score(record)) for record in records]
    assert chart_points(records) == expected
    assert expected[-1] == (33, 1000)  # 17. Rd8# : White mates, on the chart's upper edge
    curve = re.search(r'<polyline class="eval"[^>]*data-plies="([^"]*)" data-scores="([^"]*)"', text)
    drawn = list(zip(map(int, curve.group(1).split()), map(int, curve.group(2).split())))
    assert drawn == expected
    marks = [(int(ply), int(score), name) for name, ply, score in
             re.findall(r'<circle class="mark (\w+)"[^>]*data-ply="(\d+)" data-score="(-?\d+)"', text)]
    scores = dict(expected)
    judged = [(record["ply"] + 1, scores[record["ply"] + 1], record["judgement"])
              for record in records if record["judgement"]]
    assert marks == judged and judged, judged
    assert chart_limit(expected) == 1000


def test_mistake_counts_equal_the_annotated_pgns_nags(opera):
    nags = {chess.WHITE: Counter(), chess.BLACK: Counter()}
    for node in opera["game"].mainline():
        for nag in node.nags & set(NAG_NAMES):
            nags[node.parent.board().turn][NAG_NAMES[nag]] += 1
    assert sum(sum(counter.values()) for counter in nags.values()) >= 3  # the test means something
    text = opera["html"]
    table = re.search(r'<table class="stats">(.*?)</table>', text).group(1)
    for name, plural in (("inaccuracy", "Inaccuracies"), ("mistake", "Mistakes"), ("blunder", "Blunders")):
        row = re.search(r'<td class="%s">%s \([?!]+\)</td><td>(\d+)</td><td>(\d+)</td>' % (name, plural), table)
        assert (int(row.group(1)), int(row.group(2))) == (nags[chess.WHITE][name], nags[chess.BLACK][name]), name
    # average centipawn loss: the records' capped losses, per side
    for column, turn in ((1, "w"), (2, "b")):
        losses = [r["cp_loss"] for r in opera["records"] if r["turn"] == turn and r["cp_loss"] is not None]
        row = re.search(r"<td>Average centipawn loss</td><td>([^<]*)</td><td>([^<]*)</td>", table)
        assert row.group(column) == "%.0f" % (sum(losses) / len(losses))
    # a diagram with two arrows (played, best) at every mistake and blunder, none for inaccuracies
    serious = [r for r in opera["records"] if r["judgement"] in ("mistake", "blunder")]
    figures = re.findall(r"<figure id=\"g1-d(\d+)\">(.*?)</figure>", text, re.S)
    assert [int(ply) for ply, _ in figures] == [r["ply"] for r in serious]
    for (_, figure), record in zip(figures, serious):
        assert figure.count('class="arrow"') >= 4  # two arrows: a line and a head each
        assert "played %s (red), best %s (green)" % (record["move_san"], record["best_san"]) in figure
    # the engine's line at every judged move, with move numbers
    for record in opera["records"]:
        if record["judgement"]:
            board = chess.Board(record["fen"])
            line = numbered_line(board, record["pv_san"])
            assert line.split()[0].startswith(str(record["move_number"]))
            assert line.replace("<", "&lt;") in text


def test_header_shows_players_event_opening_and_limits(opera):
    text = opera["html"]
    for expected in ("Paul Morphy", "Duke Karl / Count Isouard", "Paris", "1-0", "C41 Philidor Defense",
                     "Pruner 0.1.0, depth 3", "34 positions"):
        assert expected in text, expected
    assert "<title>Game review: Paul Morphy – Duke Karl / Count Isouard</title>" in text
    assert "PGN opening" not in text  # the PGN's tags say what the data set says: one row


NIMZO_BY_THE_ENGLISH = """[Event "A transposition"]
[Result "*"]

1. c4 e6 2. Nc3 Nf6 3. d4 Bb4 4. e3 O-O *
"""

MISTAGGED = """[Event "Tagged by someone else"]
[Result "*"]
[ECO "A00"]
[Opening "Polish Opening"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 *
"""


def test_the_opening_is_named_on_the_page_and_in_the_pgn(tmp_path):
    """The data set's name of each game (pruner.engine.openings, tested against the data itself in
    tests/engine/test_openings.py): on the page with a link to its position, and in the
    annotated PGN's ECO/Opening tags unless the game has its own."""
    texts = [IMMORTAL_GAME, NIMZO_BY_THE_ENGLISH, MISTAGGED]
    pgn, report, annotated = tmp_path / "openings.pgn", tmp_path / "openings.html", tmp_path / "annotated.pgn"
    pgn.write_text("\n".join(texts))
    status, _, err = run(["--depth", "1", "--jobs", "1", "-q", "--report", str(report), "--format", "pgn",
                          "-o", str(annotated), str(pgn)])
    assert status == 0, err
    page = report.read_text(encoding="utf-8")
    check_self_contained(page)
    with open(annotated, encoding="utf-8") as handle:
        written = [chess.pgn.read_game(handle) for _ in texts]
    for index, text in enumerate(texts, 1):
        game = chess.pgn.read_game(io.StringIO(text))
        ply, opening = classify(game.board(), game.mainline_moves())
        section = re.search(r'<section class="game" id="game-%d".*?</section>' % index, page, re.S).group(0)
        row = re.search(r'<th>Opening</th><td><span class="opening" data-eco="(\w+)">([^<]*)</span> '
                        r'<a class="to-board" href="#g%d-m(\d+)" data-ply="(\d+)">after ([^<]*)</a>' % index, section)
        assert row, section[:2000]
        assert (row.group(1), html.unescape(row.group(2))) == (opening.eco, opening.text)
        assert (int(row.group(3)), int(row.group(4))) == (ply - 1, ply)  # the move that reaches it
        board = game.board()
        for move in list(game.mainline_moves())[:ply - 1]:
            board.push(move)
        reached_by = board.variation_san([list(game.mainline_moves())[ply - 1]]).replace("...", "... ")
        assert html.unescape(row.group(5)) == reached_by
        headers = written[index - 1].headers
        if "ECO" in game.headers:  # its own tags stay, and the page shows them too
            assert (headers["ECO"], headers["Opening"]) == (game.headers["ECO"], game.headers["Opening"])
            assert "<th>PGN opening</th><td>A00 Polish Opening</td>" in section
        else:
            assert (headers["ECO"], headers["Opening"]) == (opening.eco, opening.name)
            assert "PGN opening" not in section


# --- the page -------------------------------------------------------------------------------

def test_the_report_is_well_formed_and_self_contained(opera):
    parser = check_self_contained(opera["html"])
    # the chart, the diagrams, the interactive board and the piece drawings it uses
    assert parser.tags["svg"] == 3 + len(re.findall(r"<figure", opera["html"]))
    assert "http://" not in opera["html"] and "https://" not in opera["html"]


def test_many_games_and_a_game_from_a_fen(tmp_path):
    pgn = tmp_path / "two.pgn"
    pgn.write_text(OPERA_GAME + "\n" + FROM_FEN)
    report, plot = tmp_path / "two.html", tmp_path / "two.png"
    plotting = ["--plot", str(plot)] if HAVE_MATPLOTLIB else []
    status, out, err = run(["--depth", "2", "--jobs", "2", "-q", "--format", "jsonl",
                            "--report", str(report)] + plotting + [str(pgn)])
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]  # --format given: records still written
    assert [r["game"] for r in records] == [1] * 34 + [2] * 3
    text = report.read_text(encoding="utf-8")
    check_self_contained(text)
    assert re.findall(r'<li><a href="#(game-\d)">', text) == ["game-1", "game-2"]
    second = text[text.index('<section class="game" id="game-2"'):]
    assert "From a position &lt;&amp;&gt;" in second  # PGN text is escaped
    assert "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3" in second
    assert '<span class="num">3...</span> <b>Nf6??</b>' in second
    assert re.search(r'<td class="blunder">Blunders \(\?\?\)</td><td>0</td><td>1</td>', second)
    assert 'data-plies="0 1 2"' in second and 'data-scores="' in second
    if HAVE_MATPLOTLIB:
        width, height, colours = png_summary(str(plot))
        assert width > 600 and height > 500 and colours > 20  # two stacked panels


def test_move_ticks_follow_the_start_position():
    black_to_move = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3")
    assert move_ticks(black_to_move, 2) == [(1, 4)]  # ply 1 is the position before White's 4th move
    assert move_ticks(chess.Board(), 33) == [(2 * (m - 1), m) for m in range(2, 18, 2)]
    assert numbered_line(black_to_move, ["Nf6", "Qxf7#"]) == "3... Nf6 4. Qxf7#"
    assert format_score(34, None) == "+0.34" and format_score(None, -2) == "#-2" and format_score(None, 0) == "#"


def test_report_options_errors(tmp_path, monkeypatch):
    pgn = tmp_path / "g.pgn"
    pgn.write_text(FROM_FEN)
    status, _, err = run(["--report", str(tmp_path / "missing" / "r.html"), str(pgn)])
    assert status == EXIT_USAGE and "--report" in err and "no such directory" in err
    status, _, err = run(["--plot", str(tmp_path / "eval.gif"), str(pgn)])
    assert status == EXIT_USAGE and "must end in .png" in err
    if "--resume" in build_parser().format_help():
        status, _, err = run(["--resume", "-o", str(tmp_path / "o.jsonl"), "--report", str(tmp_path / "r.html"),
                              str(pgn)])
        assert status == EXIT_USAGE and "cannot be combined with --resume" in err
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    status, _, err = run(["--plot", str(tmp_path / "eval.png"), str(pgn)])
    assert status == EXIT_USAGE and "--plot needs matplotlib" in err and "pip install matplotlib" in err
    assert not (tmp_path / "eval.png").exists()


@needs_matplotlib
def test_plot_png_decodes(opera):
    plot = opera["folder"] / "eval.png"
    status, out, err = run(["--depth", "2", "--jobs", "1", "-q", "--plot", str(plot), str(opera["pgn"])])
    assert status == 0 and out == "", err
    width, height, colours = png_summary(str(plot))
    assert (width, height) == (1100, 352) and colours > 20


def test_positions_get_a_diagram(tmp_path):
    report = tmp_path / "positions.html"
    status, _, err = run(["--depth", "2", "-q", "--report", str(report), "startpos",
                          "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1"])
    assert status == 0, err
    text = report.read_text(encoding="utf-8")
    check_self_contained(text)
    assert text.count("<figure>") == 2 and "2 positions analysed by" in text


# --- a real browser ------------------------------------------------------------------------------

def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(_chromium() is None, reason="Chromium is not installed (apt-get install -y chromium)")
def test_chromium_renders_the_report(opera, tmp_path):
    shot = tmp_path / "review.png"
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               "--user-data-dir=%s" % (tmp_path / "profile"), "--screenshot=%s" % shot,
               "--window-size=1200,1600", "file://%s" % (opera["folder"] / "review.html")]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    width, height, colours = png_summary(str(shot))
    assert (width, height) == (1200, 1600)
    assert colours > 200, "the screenshot looks blank (%d colours)" % colours
