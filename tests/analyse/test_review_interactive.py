"""The interactive review page (``--report``): its data and its references without a browser,
then its board, move list, keys and chart in a real browser (Selenium driving Chromium
headless; skipped, with the reason, where selenium, chromium or chromedriver is missing).

The page is the Opera game's review at depth 3 (deterministic); the browser's answers are
checked against the analysis records and python-chess's own replay of the game.
"""

import io
import json
import re
import shutil
import tempfile

import chess
import chess.pgn
import pytest

from protocol.analyse.cli import main

from sample_games import OPERA_GAME, OPERA_PLIES

DEPTH = "3"


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def opera(tmp_path_factory):
    folder = tmp_path_factory.mktemp("interactive")
    pgn = folder / "opera.pgn"
    pgn.write_text(OPERA_GAME)
    report = folder / "review.html"
    status, out, err = run(["--depth", DEPTH, "--jobs", "1", "-q", "--report", str(report), "-o",
                            str(folder / "opera.jsonl"), str(pgn)])
    assert status == 0, err
    records = [json.loads(line) for line in (folder / "opera.jsonl").read_text().splitlines()]
    game = chess.pgn.read_game(io.StringIO(OPERA_GAME))
    boards = [game.board()]
    for move in game.mainline_moves():
        board = boards[-1].copy()
        board.push(move)
        boards.append(board)
    return dict(path=report, html=report.read_text(encoding="utf-8"), records=records, boards=boards)


def game_data(text, index=1):
    sections = re.findall(r'<section class="game" id="game-(\d+)" data-interactive>.*?'
                          r'<script type="application/json" class="review-data">(.*?)</script>', text, re.S)
    return json.loads(dict(sections)[str(index)])


# --- without a browser ---------------------------------------------------------------------------

def test_the_page_refers_to_nothing_outside(opera):
    text = opera["html"]
    assert "://" not in text  # no http(s), file or data address anywhere, not even in the script or a comment
    assert not re.search(r"<(link|img|iframe|object|embed|audio|video|source|base)\b", text, re.I)
    assert not re.search(r"\bsrc\s*=", text, re.I)
    assert not re.search(r"@import|@font-face", text, re.I)
    assert re.findall(r"url\(\s*([^)]*)\)", text) == [u for u in re.findall(r"url\(\s*([^)]*)\)", text) if u.startswith("#")]
    for word in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "EventSource", "sendBeacon", "document.write",
                 "eval(", "new Function", "window.open", "navigator."):
        assert word not in text, word
    scripts = re.findall(r"<script([^>]*)>", text)
    assert scripts == [' type="application/json" class="review-data"', ""]  # the game's data, the page's script
    hrefs = re.findall(r'\bhref="([^"]*)"', text)
    assert hrefs and all(href.startswith("#") for href in hrefs)


def test_the_data_follows_the_game_and_the_records(opera):
    data = game_data(opera["html"])
    positions, records, boards = data["positions"], opera["records"], opera["boards"]
    assert len(positions) == OPERA_PLIES + 1 == len(records)
    for ply, (position, record, board) in enumerate(zip(positions, records, boards)):
        assert position["fen"] == board.fen() == record["fen"]
        assert position["uci"] == (board.peek().uci() if ply else None)
        assert position["best"] == record["best_uci"] and position["bestSan"] == record["best_san"]
        assert position["check"] == (chess.square_name(board.king(board.turn)) if board.is_check() else None)
        judged = records[ply - 1]["judgement"] if ply else None
        assert position.get("judgement") == judged
        if judged:
            assert position["alt"] == records[ply - 1]["best_san"]
            assert position["label"].endswith({"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[judged])
    assert positions[-1]["over"] == "Checkmate." and positions[-1]["best"] is None
    texts = {position.get("text") for position in positions}
    assert "Lost forced checkmate sequence" in texts or "Checkmate is now unavoidable" in texts


# --- in a browser ----------------------------------------------------------------------------------

CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1200,1600"]


def _find(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = _find(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"])
CHROMEDRIVER = _find(["chromedriver"])


# The browser tests below are left to CPython (the PyPy leg skips `one_interpreter`): Chromium
# runs the page's JavaScript, which is the same whichever interpreter wrote the page, and the
# page's data and references are checked on both interpreters by the two tests above. Two of them
# alone took 11 s of the PyPy leg on a slow machine (2026-11-28, when its CI ran over 15 minutes).
BROWSER_TEST = pytest.mark.one_interpreter


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install -y chromium)")
    if CHROMEDRIVER is None:
        pytest.skip("chromedriver is not installed (apt-get install -y chromium-driver)")
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix="pruner-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS + ["--user-data-dir=%s" % profile]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)  # no driver download
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def load(driver, path, fragment=""):
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get("file://%s%s" % (path, fragment))
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element("css selector", "html").get_attribute("data-review-ready") == "1")
    errors = [entry for entry in _console(driver) if entry.get("level") == "SEVERE"]
    assert errors == []


def _console(driver):
    try:
        return driver.get_log("browser")
    except Exception:  # noqa: BLE001 - a driver without logs
        return []


def viewer(driver):
    return driver.find_element("css selector", "#g1-viewer")


def wait_for_ply(driver, ply):
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 10).until(lambda d: viewer(d).get_attribute("data-ply") == str(ply))


def shown(driver):
    """What the board shows: {square name: piece symbol}, from the drawn pieces."""
    pieces = viewer(driver).find_elements("css selector", "svg.board use.piece")
    return {piece.get_attribute("data-square"): piece.get_attribute("data-piece") for piece in pieces}


def check_board(driver, opera, ply):
    board, record = opera["boards"][ply], opera["records"][ply]
    assert viewer(driver).get_attribute("data-fen") == board.fen()
    assert shown(driver) == {chess.square_name(square): piece.symbol() for square, piece in board.piece_map().items()}
    arrows = viewer(driver).find_elements("css selector", "svg.board .best-arrow")
    if record["best_uci"]:
        assert [arrow.get_attribute("data-uci") for arrow in arrows] == [record["best_uci"]]
        assert arrows[0].find_elements("css selector", "line") and arrows[0].find_elements("css selector", "polygon")
        info = viewer(driver).find_element("css selector", ".info").text
        assert "Engine: %s" % record["best_san"] in info
    else:
        assert arrows == []


@BROWSER_TEST
def test_clicking_a_move_shows_the_board_after_it(browser, opera):
    load(browser, opera["path"])
    wait_for_ply(browser, 0)
    check_board(browser, opera, 0)
    for ply in (21, 9, OPERA_PLIES):  # 11. Bxb5+ (check), 5. Qxf3, 17. Rd8# (the end: no arrow)
        browser.find_element("css selector", '#g1-m%d' % (ply - 1)).click()
        wait_for_ply(browser, ply)
        check_board(browser, opera, ply)
        selected = browser.find_elements("css selector", ".review .moves .mv.sel")
        assert [element.get_attribute("data-after") for element in selected] == [str(ply)]
    assert "Checkmate." in viewer(browser).find_element("css selector", ".info").text
    # a judged move shows its judgement and the better move
    judged = next(ply for ply, record in enumerate(opera["records"]) if record["judgement"])
    browser.find_element("css selector", '#g1-m%d' % judged).click()
    wait_for_ply(browser, judged + 1)
    info = viewer(browser).find_element("css selector", ".info").text
    assert "Best was %s" % opera["records"][judged]["best_san"] in info


@BROWSER_TEST
def test_the_arrow_keys_step_through_the_game(browser, opera):
    from selenium.webdriver.common.keys import Keys
    load(browser, opera["path"])
    browser.find_element("css selector", "#g1-m19").click()
    wait_for_ply(browser, 20)
    body = browser.find_element("css selector", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for_ply(browser, 21)
    check_board(browser, opera, 21)
    body.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    wait_for_ply(browser, 19)
    check_board(browser, opera, 19)
    body.send_keys(Keys.END)
    wait_for_ply(browser, OPERA_PLIES)
    body.send_keys(Keys.ARROW_RIGHT)  # past the end: stays
    body.send_keys(Keys.HOME)
    wait_for_ply(browser, 0)
    body.send_keys(Keys.ARROW_LEFT)  # before the start: stays
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for_ply(browser, 1)
    check_board(browser, opera, 1)
    assert browser.execute_script("return window.location.hash") == "#g1-ply-1"


@BROWSER_TEST
def test_clicking_the_chart_selects_that_move(browser, opera):
    from selenium.webdriver.common.action_chains import ActionChains
    load(browser, opera["path"])
    chart = browser.find_element("css selector", "svg.eval-chart")
    left, width, span = (float(chart.get_attribute(name)) for name in ("data-left", "data-width", "data-span"))
    box = chart.rect
    scale = box["width"] / 760.0  # the chart's viewBox is 760 wide
    for ply in (10, 27):
        x = (left + width * ply / span) * scale - box["width"] / 2  # offsets from the element's centre
        ActionChains(browser).move_to_element_with_offset(chart, int(round(x)), -int(box["height"] * 0.3)).click().perform()
        wait_for_ply(browser, ply)
        check_board(browser, opera, ply)
        cursor = chart.find_element("css selector", "line.cursor")
        assert cursor.get_attribute("visibility") == "visible"
        assert float(cursor.get_attribute("x1")) == pytest.approx(left + width * ply / span)
    # a judged move's dot selects the position after that move
    mark = chart.find_elements("css selector", "circle.mark")[0]
    mark.click()
    wait_for_ply(browser, int(mark.get_attribute("data-ply")))
    assert browser.execute_script("return window.location.hash").startswith("#g1-ply-")  # no jump to the diagram


@BROWSER_TEST
def test_an_address_selects_a_move_and_the_board_flips(browser, opera):
    load(browser, opera["path"], "#g1-ply-13")
    wait_for_ply(browser, 13)
    check_board(browser, opera, 13)
    king = viewer(browser).find_element("css selector", 'use.piece[data-square="e1"]')
    assert king.get_attribute("transform").replace(" ", "") == "translate(180,315)"
    viewer(browser).find_element("css selector", 'button[data-go="flip"]').click()
    king = viewer(browser).find_element("css selector", 'use.piece[data-square="e1"]')
    assert king.get_attribute("transform").replace(" ", "") == "translate(135,0)"  # White at the top
    check_board(browser, opera, 13)
    viewer(browser).find_element("css selector", 'button[data-go="previous"]').click()
    wait_for_ply(browser, 12)
