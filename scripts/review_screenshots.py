#!/usr/bin/env python3
"""Screenshots of a game review page (``pruner analyse --report``) on a desktop and a phone.

    python scripts/review_screenshots.py review.html --select g1-ply-30 \\
        --desktop docs/review.png --phone docs/review-phone.png

Chromium (headless, driven by Selenium through chromedriver, as the page's browser tests drive
it) opens the page in a tab of its own per device: a desktop of 1280×900 CSS pixels with a
mouse, and a phone of 390×844 (a mobile viewport, touch: a coarse pointer that cannot hover),
the sizes the tests check. ``--select`` opens the page at that address fragment (a selected
move). With Pillow installed (matplotlib brings it) each PNG is reduced to a palette of
``--colours`` colours, a third of its size or less. Chromium's own ``--screenshot`` is no
substitute: its window is not its viewport (a 900-pixel window shows 757 pixels of page).

The browser tests (tests/analyse/test_review_interactive.py) use ``start_browser`` and
``emulated`` from here. Exit status: 0 written, 2 a bad argument or no browser.
"""

import contextlib
import os
import shutil
import sys
import tempfile
from typing import Iterator, List, Optional, Tuple

from pruner.arguments import ArgumentParser

DESKTOP = (1280, 900)
"""A laptop's browser window, CSS pixels."""
PHONE = (390, 844)
"""A phone's screen in CSS pixels (iPhone 12 to 14)."""

CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--hide-scrollbars", "--window-size=1200,1600",
                # A desktop's mouse: headless Chromium has no pointer, so (hover: hover) and
                # (pointer: fine) would not match (Blink's HoverType 2 = hover, PointerType 4 = fine).
                "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4"]
"""Chromium's command line: headless, quiet, a fresh profile is added by ``start_browser``."""


def find_browser() -> Tuple[Optional[str], Optional[str]]:
    """The paths of Chromium (or Chrome) and chromedriver on PATH (None where missing)."""
    browser = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome",
                                                    "google-chrome-stable") if shutil.which(name)), None)
    return browser, shutil.which("chromedriver")


def start_browser(browser: str, driver: str, profile: str):
    """A Selenium WebDriver on ``browser`` through the ``driver`` binary (no driver download),
    with the profile folder ``profile``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROME_FLAGS + ["--user-data-dir=%s" % profile]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


@contextlib.contextmanager
def emulated(driver, width: int, height: int, phone: bool = False) -> Iterator[None]:
    """A tab of its own showing pages at ``width``×``height`` CSS pixels, as Chromium's device
    mode shows them: a phone (a mobile viewport, touch: a coarse pointer that cannot hover) or a
    desktop (the browser's mouse, ``CHROME_FLAGS``). The tab is closed afterwards: ending touch
    emulation in a tab would not give it back its mouse."""
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone})
        if phone:
            driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        yield
    finally:
        driver.close()
        driver.switch_to.window(original)


def wait_until_ready(driver, timeout: float = 20) -> None:
    """Until the page's script has drawn every board (it marks the page when done)."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, timeout).until(
        lambda d: d.find_element("css selector", "html").get_attribute("data-review-ready") == "1")


def reduce_colours(path: str, colours: int) -> bool:
    """Rewrite the PNG at ``path`` with a palette of ``colours`` colours; False without Pillow."""
    try:
        from PIL import Image
    except ImportError:
        return False
    with Image.open(path) as image:
        # octree keeps the few saturated colours (arrows, judgements) that median cut merges into grey
        reduced = image.convert("RGB").quantize(colors=colours, method=Image.Quantize.FASTOCTREE,
                                                dither=Image.Dither.NONE)
    reduced.save(path, optimize=True)
    return True


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="review_screenshots.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="the review page (pruner analyse --report FILE.html)")
    parser.add_argument("--select", metavar="FRAGMENT", default="",
                        help="open the page at this address fragment, e.g. g1-ply-30 (game 1 after 30 plies)")
    parser.add_argument("--desktop", metavar="FILE.png", help="the desktop's screenshot (%dx%d)" % DESKTOP)
    parser.add_argument("--phone", metavar="FILE.png", help="the phone's screenshot (%dx%d)" % PHONE)
    parser.add_argument("--colours", type=int, default=256, metavar="N",
                        help="palette size of the PNGs, 2-256 (default 256; 0: keep Chromium's PNG)")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not os.path.isfile(args.report):
        parser.error("%s: no such file" % args.report)
    if not (args.desktop or args.phone):
        parser.error("nothing to do: give --desktop and/or --phone")
    if args.colours and not 2 <= args.colours <= 256:
        parser.error("--colours %d: between 2 and 256, or 0" % args.colours)
    browser, driver_path = find_browser()
    if browser is None or driver_path is None:
        parser.error("Chromium and chromedriver are needed (apt-get install -y chromium chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        parser.error("selenium is needed (pip install selenium)")
    url = "file://%s%s" % (os.path.abspath(args.report), "#" + args.select.lstrip("#") if args.select else "")
    profile = tempfile.mkdtemp(prefix="pruner-chromium-")
    driver = start_browser(browser, driver_path, profile)
    try:
        for path, (width, height), phone in ((args.desktop, DESKTOP, False), (args.phone, PHONE, True)):
            if path:
                with emulated(driver, width, height, phone):
                    driver.get(url)
                    wait_until_ready(driver)
                    driver.save_screenshot(path)
                reduced = args.colours and reduce_colours(path, args.colours)
                print("%s: %dx%d%s, %d bytes" % (path, width, height, ", %d colours" % args.colours if reduced else "",
                                                 os.path.getsize(path)))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
