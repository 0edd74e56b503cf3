"""The review page says what budget made its judgements and how far to trust them (the
measurement of scripts/judge_agreement.py, docs/analysis.md), and, where Stockfish is installed,
how to review with it (issue 45, item 3)."""

import html
import io
import os

import pytest

from pruner.engine.analysis import DEFAULT_DEPTH
from paths import ROOT
from pruner.analyse_app.cli import main
from pruner.analyse_app.review import collect, trust
from pruner.analyse_app.tasks import Settings

GAME = """[Event "t"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"""


def pruner_row(depth):
    return next(row for row in trust.MEASURED if row.engine == "Pruner" and row.depth == depth)


def review_page(tmp_path, monkeypatch, stockfish, *limits):
    monkeypatch.setattr(collect, "find_stockfish", lambda: stockfish)
    pgn = tmp_path / "game.pgn"
    pgn.write_text(GAME)
    report = tmp_path / "review.html"
    err = io.StringIO()
    assert main(list(limits) + ["-q", "--report", str(report), str(pgn)], stdout=io.StringIO(), stderr=err) == 0, \
        err.getvalue()
    return html.unescape(report.read_text(encoding="utf-8"))


def test_the_page_says_how_far_its_budget_can_be_trusted_and_how_to_use_stockfish(tmp_path, monkeypatch):
    row = pruner_row(4)
    text = review_page(tmp_path, monkeypatch, "/opt/chess/stock fish", "--depth", "4")
    assert "1 game analysed by Pruner" in text and ", depth 4." in text
    assert "How far to trust the judgements: " + row.summary() + "</summary>" in text
    assert "<p>" + row.sentence() + "</p>" in text
    assert "finds %.0f%% of the mistakes and blunders that Stockfish at depth 20 finds" % (100 * row.recall) in text
    # the path is quoted for a shell
    assert "pruner analyse --engine '/opt/chess/stock fish' --depth %d --report review.html GAMES.pgn" \
        % trust.STOCKFISH_DEPTH in text


def test_without_stockfish_the_page_does_not_suggest_it(tmp_path, monkeypatch):
    text = review_page(tmp_path, monkeypatch, None, "--nodes", "300")
    assert "Stockfish is installed" not in text
    assert "How far to trust the judgements: not measured at this budget</summary>" in text
    assert "<p>not measured at this budget (docs/analysis.md compares Pruner at depth 4," in text


def test_the_note_follows_the_budget():
    for row in trust.MEASURED:
        settings = Settings(depth=row.depth, movetime_ms=row.movetime_ms,
                            engine_name=None if row.engine == "Pruner" else "Stockfish 15.1")
        assert trust.measured(settings) == row and trust.trust_note(settings) == row.sentence()
        assert trust.trust_summary(settings) == row.summary() and row.summary() in row.sentence().replace(" that ", " ")
    assert trust.measured(Settings()) == pruner_row(DEFAULT_DEPTH)  # no limit: pruner analyse's default depth
    assert trust.measured(Settings(depth=6, nodes=1000)) is None
    assert trust.measured(Settings(depth=6, movetime_ms=1000)) is None
    assert trust.trust_note(Settings(depth=5)).startswith("not measured at this budget")
    assert trust.trust_note(Settings(depth=5, engine_name="FakeEngine 1.0")) is None  # nothing to say
    assert trust.trust_summary(Settings(depth=5, engine_name="FakeEngine 1.0")) is None
    assert trust.trust_summary(Settings(depth=5)) == "not measured at this budget"
    assert trust.stockfish_command(Settings(depth=5, engine_name="Stockfish 15.1"), "/usr/games/stockfish") is None


def test_the_figures_are_those_of_the_table_in_the_docs():
    """Every measured budget is a row of docs/analysis.md's agreement table with these figures."""
    with open(os.path.join(ROOT, "docs", "analysis.md"), encoding="utf-8") as handle:
        rows = [line for line in handle if line.startswith("| ")]
    for row in trust.MEASURED:
        label = "%s %s" % (row.engine, row.budget)
        found = [line for line in rows if line.startswith("| %s |" % label)]
        assert len(found) == 1, label
        # the cells' first words: the figure, without its interval
        cells = [cell.split()[0] for cell in found[0].strip().strip("|").split("|")[1:]]
        columns = dict(zip(["cpu", "wall", "moves", "same", "kappa", "recall", "precision", "blunders", "accuracy"],
                           cells))
        assert columns["recall"] == "%.0f%%" % (100 * row.recall), cells
        assert columns["precision"] == "%.0f%%" % (100 * row.precision), cells
        assert columns["accuracy"] == "%.1f" % row.accuracy_diff, cells
        assert columns["cpu"] == "%.0f" % row.seconds, cells
