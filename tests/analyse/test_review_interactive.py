"""The interactive review page (``--report``): its data and its references without a browser,
then its board, move list, keys and chart in a real browser (Selenium driving Chromium
headless; skipped, with the reason, where selenium, chromium or chromedriver is missing).

The page is the Opera game's review at depth 3 with three lines per position (``--multipv
3``; deterministic); the browser's answers are checked against the analysis records and
python-chess's own replay of the game. The layout is checked at a desktop's size (1280×900)
and on an emulated phone (390×844, touch, no hover), each in a tab of its own set up through
the DevTools protocol (scripts/review_screenshots.py's ``emulated``, which takes the docs'
screenshots the same way).
"""

import importlib.util
import io
import json
import math
import re
import shutil
import tempfile

import chess
import chess.pgn
import pytest

from pruner.engine.openings import opening_at
from pruner.analyse_app.cli import main
from pruner.analyse_app.review.html import numbered_line

from png_helpers import png_summary
from review_screenshots import DESKTOP, PHONE, emulated, find_browser, start_browser, wait_until_ready
from sample_games import OPERA_GAME, OPERA_PLIES

DEPTH = "3"
LINES = 3


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
    status, out, err = run(["--depth", DEPTH, "--multipv", str(LINES), "--jobs", "1", "-q", "--report", str(report), "-o",
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


def expected_share(record):
    """White's share of the evaluation bar, as lichess's gauge: win% of White's score capped at
    ±1000, a mate all or nothing (0: the side to move is mated)."""
    if record["white_mate"] is not None:
        if record["white_mate"] == 0:
            return 0.0 if record["turn"] == "w" else 100.0
        return 100.0 if record["white_mate"] > 0 else 0.0
    cp = max(-1000, min(1000, record["white_cp"]))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


def expected_score(cp, mate):
    return ("#" if mate == 0 else "#%d" % mate) if mate is not None else "%+.2f" % (cp / 100.0 + 0.0)


def test_the_data_holds_the_bar_the_lines_and_the_openings(opera):
    data = game_data(opera["html"])
    for position, record, board in zip(data["positions"], opera["records"], opera["boards"]):
        assert position["share"] == pytest.approx(expected_share(record), abs=0.051)
        named = opening_at(board)
        assert position["opening"] == (named.text if named else None)
        if len(record["lines"]) > 1:
            assert [line["uci"] for line in position["lines"]] == [line["move_uci"] for line in record["lines"]]
            for shown, line in zip(position["lines"], record["lines"]):
                assert shown["score"] == expected_score(line["white_cp"], line["white_mate"])
                assert shown["san"] == line["move_san"] and shown["line"] == numbered_line(board, line["pv_san"])
        else:
            assert "lines" not in position
    assert data["positions"][-1]["share"] == 100.0  # White has mated
    assert sum(len(record["lines"]) == LINES for record in opera["records"]) > 20
    assert sum(position["opening"] is not None for position in data["positions"]) >= 4


# --- in a browser ----------------------------------------------------------------------------------

CHROMIUM, CHROMEDRIVER = find_browser()


# The browser tests below are left to CPython (the PyPy leg skips `one_interpreter`): Chromium
# runs the page's JavaScript, which is the same whichever interpreter wrote the page, and the
# page's data and references are checked on both interpreters by the two tests above. Two of them
# alone took 11 s of the PyPy leg on a slow machine (2026-11-28, when its CI ran over 15 minutes).
BROWSER_TEST = pytest.mark.one_interpreter


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through Selenium (scripts/review_screenshots.py starts it: a fresh
    profile, Debian's chromedriver, a mouse that hovers)."""
    pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install -y chromium)")
    if CHROMEDRIVER is None:
        pytest.skip("chromedriver is not installed (apt-get install -y chromium-driver)")
    profile = tempfile.mkdtemp(prefix="pruner-chromium-")
    driver = start_browser(CHROMIUM, CHROMEDRIVER, profile)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def load(driver, path, fragment=""):
    driver.get("file://%s%s" % (path, fragment))
    wait_until_ready(driver)
    errors = [entry for entry in _console(driver) if entry.get("level") == "SEVERE"]
    assert errors == []


def _console(driver):
    try:
        return driver.get_log("browser")
    except Exception:  # noqa: BLE001 - a driver without logs
        return []


def viewer(driver):
    return driver.find_element("css selector", "#g1-viewer")


def info(driver):
    """What the page says of the selected position (beside or under the board)."""
    return driver.find_element("css selector", "#game-1 .review .info")


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
        assert "Engine: %s" % record["best_san"] in info(driver).text
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
    assert "Checkmate." in info(browser).text
    # a judged move shows its judgement and the better move
    judged = next(ply for ply, record in enumerate(opera["records"]) if record["judgement"])
    browser.find_element("css selector", '#g1-m%d' % judged).click()
    wait_for_ply(browser, judged + 1)
    assert "Best was %s" % opera["records"][judged]["best_san"] in info(browser).text


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


# --- the page's size, colours and new parts in a browser ------------------------------------------------

def box(driver, element):
    """``element``'s box in the viewport (CSS pixels): left, top, right, bottom, width, height."""
    return driver.execute_script(
        "var r = arguments[0].getBoundingClientRect();"
        "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};",
        element)


def check_no_sideways_scroll(driver):
    width = driver.execute_script("return window.innerWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    # nor anything sticking out of a box that scrolls on its own (the move list)
    wide = driver.execute_script(
        "return Array.prototype.filter.call(document.querySelectorAll('main *'), function (e) {"
        "  return e.getBoundingClientRect().right > window.innerWidth + 0.5; }).map(function (e) {"
        "  return e.tagName + '.' + e.getAttribute('class'); }).slice(0, 5);")
    assert wide == []


def check_board_in_view(driver):
    """The whole board, its evaluation bar and every button under it inside the viewport."""
    width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    parts = [viewer(driver).find_element("css selector", selector) for selector in ("svg.board", ".evalbar")]
    parts += viewer(driver).find_elements("css selector", ".controls button")
    assert len(parts) == 7
    for part in parts:
        rect = box(driver, part)
        inside = (-0.5 <= rect["left"] and rect["right"] <= width + 0.5
                  and -0.5 <= rect["top"] and rect["bottom"] <= height + 0.5)
        assert inside, \
            (part.get_attribute("class") or part.text, rect, width, height)
        assert rect["width"] > 10 and rect["height"] > 10


def select_move(driver, ply):
    """Click the move that leads to the position after ``ply`` plies (it scrolls into view)."""
    driver.find_element("css selector", "#g1-m%d" % (ply - 1)).click()
    wait_for_ply(driver, ply)


@BROWSER_TEST
def test_the_page_fits_a_phone(browser, opera):
    with emulated(browser, *PHONE, phone=True):
        load(browser, opera["path"])
        assert browser.execute_script("return [innerWidth, innerHeight, matchMedia('(hover: hover)').matches, "
                                      "matchMedia('(pointer: coarse)').matches]") == list(PHONE) + [False, True]
        check_no_sideways_scroll(browser)
        check_board_in_view(browser)  # the board comes first on a phone: in view as the page opens
        board = box(browser, viewer(browser).find_element("css selector", "svg.board"))
        assert board["width"] >= 320 and board["height"] == pytest.approx(board["width"], abs=1)  # as wide as it can be
        select_move(browser, 21)
        check_board(browser, opera, 21)
        check_no_sideways_scroll(browser)
        # a note's "board" link from far down the list brings the board back into view
        browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        judged = next(ply for ply, record in enumerate(opera["records"]) if record["judgement"] in ("mistake", "blunder"))
        link = browser.find_element("css selector", 'figure#g1-d%d a.to-board' % judged)
        link.click()
        wait_for_ply(browser, judged + 1)
        check_board_in_view(browser)


@BROWSER_TEST
def test_the_page_at_a_desktops_size(browser, opera):
    with emulated(browser, *DESKTOP):
        load(browser, opera["path"])
        assert browser.execute_script("return [innerWidth, innerHeight]") == list(DESKTOP)
        check_no_sideways_scroll(browser)
        check_board_in_view(browser)
        board = box(browser, viewer(browser).find_element("css selector", "svg.board"))
        bar = box(browser, viewer(browser).find_element("css selector", ".evalbar"))
        text, moves = (box(browser, browser.find_element("css selector", ".review " + name)) for name in (".info", ".moves"))
        assert board["width"] == pytest.approx(400, abs=1) and board["height"] == pytest.approx(400, abs=1)
        assert bar["right"] <= board["left"] and bar["height"] == pytest.approx(board["height"], abs=1)  # beside it
        # beside the board: the position's text, and under it the move list down to the buttons' row
        assert text["left"] >= board["right"] and text["top"] == pytest.approx(board["top"], abs=1)
        assert moves["left"] == text["left"] and moves["top"] > text["bottom"] and moves["height"] > 150
        assert moves["bottom"] == pytest.approx(box(browser, viewer(browser))["bottom"], abs=1)


def rgb(colour):
    """``rgb(42, 93, 176)`` or ``rgba(...)`` as a tuple of numbers."""
    return tuple(float(part) for part in re.findall(r"[\d.]+", colour))


def contrast(foreground, background):
    """WCAG 2 contrast ratio of two opaque colours."""
    def luminance(colour):
        channels = [value / 255.0 for value in colour[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def style(driver, element, name):
    return driver.execute_script("return getComputedStyle(arguments[0]).getPropertyValue(arguments[1])", element, name)


def check_readable(driver, move):
    """Every text of a move (the move, its number, its score) against the move's background."""
    background = rgb(style(driver, move, "background-color"))
    assert len(background) == 3 or background[3] == 1, background  # opaque: the selection or the hover colour
    for part in [move] + move.find_elements("css selector", "b, small, .num"):
        ratio = contrast(rgb(style(driver, part, "color")), background)
        assert ratio >= 4.5, (part.text, style(driver, part, "color"), background, ratio)


@BROWSER_TEST
def test_a_hovered_selected_move_stays_readable(browser, opera):
    from selenium.webdriver.common.action_chains import ActionChains
    judged = next(ply for ply, record in enumerate(opera["records"]) if record["judgement"])
    with emulated(browser, *DESKTOP):  # a pointer that hovers
        load(browser, opera["path"])
        for ply in (9, judged + 1):  # a plain move and a judged one (coloured, bold): selected, hovered
            select_move(browser, ply)
            move = browser.find_element("css selector", "#g1-m%d" % (ply - 1))
            ActionChains(browser).move_to_element(move).perform()
            assert browser.execute_script("return arguments[0].matches(':hover')", move)
            assert rgb(style(browser, move, "background-color")) == (42, 93, 176)  # the selection's blue
            check_readable(browser, move)
        select_move(browser, 1)
        assert judged not in (0, 3)
        for other in ("#g1-m3", "#g1-m%d" % judged):  # not selected: hovering shows where the pointer is
            other = browser.find_element("css selector", other)
            ActionChains(browser).move_to_element(other).perform()
            assert rgb(style(browser, other, "background-color")) == (232, 238, 248)
            check_readable(browser, other)


@BROWSER_TEST
def test_no_hover_sticks_after_a_tap(browser, opera):
    with emulated(browser, *PHONE, phone=True):
        load(browser, opera["path"])
        select_move(browser, 5)
        button = viewer(browser).find_element("css selector", 'button[data-go="next"]')
        button.click()
        wait_for_ply(browser, 6)
        assert browser.execute_script("return arguments[0].matches(':hover')", button)  # the tap left it hovered
        assert rgb(style(browser, button, "background-color")) == (250, 250, 250)  # but not highlighted
        tapped = browser.find_element("css selector", "#g1-m4")
        tapped.click()
        wait_for_ply(browser, 5)
        browser.find_element("css selector", "#g1-m8").click()
        wait_for_ply(browser, 9)
        assert rgb(style(browser, tapped, "background-color"))[3:] == (0,)  # transparent again


def bar_state(driver):
    """White's share on the bar (``data-white``), the fill's share of its height, and the edges
    of the bar the fill touches (``bottom``: White's share grows from White's side of the board)."""
    bar = viewer(driver).find_element("css selector", ".evalbar")
    outer, fill = box(driver, bar), box(driver, bar.find_element("css selector", ".fill"))
    edges = {edge for edge in ("top", "bottom") if abs(fill[edge] - outer[edge]) < 0.5}
    return float(bar.get_attribute("data-white")), fill["height"] / outer["height"], edges


@BROWSER_TEST
def test_the_eval_bar_follows_the_selected_move(browser, opera):
    load(browser, opera["path"])
    records = opera["records"]
    share, height, edges = bar_state(browser)
    assert share == pytest.approx(expected_share(records[0]), abs=0.051) and height == pytest.approx(share / 100, abs=0.01)
    assert edges == {"bottom"}
    shares = []
    for ply in (9, 21, 26, OPERA_PLIES):
        select_move(browser, ply)
        share, height, edges = bar_state(browser)
        assert share == pytest.approx(expected_share(records[ply]), abs=0.051)
        assert height == pytest.approx(share / 100, abs=0.01) and "bottom" in edges  # White at the bottom
        shares.append(share)
    assert len(set(shares)) == len(shares) and shares[-1] == 100.0  # it moved, and White's mate fills it
    select_move(browser, 9)
    viewer(browser).find_element("css selector", 'button[data-go="flip"]').click()
    share, height, edges = bar_state(browser)  # flipped: White at the top, so is its share
    assert share == pytest.approx(expected_share(records[9]), abs=0.051) and 0 < share < 100
    assert height == pytest.approx(share / 100, abs=0.01) and edges == {"top"}


@BROWSER_TEST
def test_several_engine_lines_at_a_move(browser, opera):
    load(browser, opera["path"])
    for ply in (10, 21):
        select_move(browser, ply)
        record, board = opera["records"][ply], opera["boards"][ply]
        items = info(browser).find_elements("css selector", "ol.lines li")
        assert len(items) == len(record["lines"]) == LINES
        for item, line in zip(items, record["lines"]):
            assert item.get_attribute("data-uci") == line["move_uci"]
            assert item.text == "%s %s" % (expected_score(line["white_cp"], line["white_mate"]),
                                           numbered_line(board, line["pv_san"]))
        check_board(browser, opera, ply)  # the best line's move is the arrow


@BROWSER_TEST
def test_links_go_to_the_interactive_board(browser, opera):
    records = opera["records"]
    judged = [ply for ply, record in enumerate(records) if record["judgement"] in ("mistake", "blunder")]
    with emulated(browser, *DESKTOP):
        load(browser, opera["path"])
        # the note's "board" in the move list
        note = browser.find_element("css selector", '.moves .note a.to-board[data-ply="%d"]' % (judged[0] + 1))
        assert note.get_attribute("href").endswith("#g1-ply-%d" % (judged[0] + 1))  # a link to the board, to copy
        note.click()
        wait_for_ply(browser, judged[0] + 1)
        assert browser.execute_script("return window.location.hash") == "#g1-ply-%d" % (judged[0] + 1)
        check_board_in_view(browser)
        # a diagram's caption, far below the board
        caption = browser.find_element("css selector", "figure#g1-d%d figcaption a" % judged[-1])
        browser.execute_script("arguments[0].scrollIntoView()", caption)
        assert box(browser, viewer(browser))["top"] < 0  # the board is (partly) out of sight
        caption.click()
        wait_for_ply(browser, judged[-1] + 1)
        check_board_in_view(browser)
        # the opening's name, to its position
        opening = browser.find_element("css selector", "table.meta a.to-board")
        opening.click()
        ply = int(opening.get_attribute("data-ply"))
        wait_for_ply(browser, ply)
        assert info(browser).find_element("css selector", ".opening").text == \
            browser.find_element("css selector", "table.meta .opening").text


@BROWSER_TEST
def test_the_screenshot_script(browser, opera, tmp_path):
    """scripts/review_screenshots.py (how the docs' pictures are taken): a desktop's and a
    phone's screenshot at their sizes, not blank; an argument error before any browser starts."""
    import review_screenshots
    desktop, phone = tmp_path / "desktop.png", tmp_path / "phone.png"
    assert review_screenshots.main([str(opera["path"]), "--select", "g1-ply-21", "--desktop", str(desktop),
                                    "--phone", str(phone), "--colours", "64"]) == 0
    reduced = importlib.util.find_spec("PIL") is not None  # the palette needs Pillow
    for path, size in ((desktop, DESKTOP), (phone, PHONE)):
        width, height, colours = png_summary(str(path))
        assert (width, height) == size and colours > 20 and (colours <= 64 or not reduced)
    with pytest.raises(SystemExit) as stopped:
        review_screenshots.main([str(tmp_path / "missing.html"), "--phone", str(phone)])
    assert stopped.value.code == 2


# --- a tag too long for any line (issue 51, item 9) -------------------------------------------------------

LONG_NAME = "N" * 100000


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    """The review of a short game whose tags hold 100,000-letter words."""
    folder = tmp_path_factory.mktemp("long-names")
    pgn = folder / "long.pgn"
    pgn.write_text('[Event "%s"]\n[White "%s"]\n[Black "%s"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n'
                   % (LONG_NAME, LONG_NAME, "B" + LONG_NAME))
    report = folder / "review.html"
    status, out, err = run(["--depth", "1", "--jobs", "1", "-q", "--report", str(report), "-o", str(folder / "long.jsonl"),
                            str(pgn)])
    assert status == 0, err
    return dict(path=report, html=report.read_text(encoding="utf-8"))


def test_long_words_may_wrap_anywhere_in_the_page(long_names):
    """Without a browser: the name is shown, and the page's style lets any word in it wrap."""
    from pruner.analyse_app.review.html import STYLE
    assert LONG_NAME in long_names["html"]
    style = re.sub(r"/\*.*?\*/", "", STYLE, flags=re.S)
    rules = dict((selector.strip(), body) for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", style))
    assert "overflow-wrap: break-word" in rules["main"]


@BROWSER_TEST
def test_a_100000_letter_name_does_not_widen_a_phones_page(browser, long_names):
    with emulated(browser, *PHONE, phone=True):
        load(browser, long_names["path"])
        assert browser.execute_script("return innerWidth") == PHONE[0]
        check_no_sideways_scroll(browser)
        title = browser.find_element("css selector", "#game-1 h2")
        assert LONG_NAME[:50] in title.text and box(browser, title)["height"] > 1000  # wrapped, not cut
