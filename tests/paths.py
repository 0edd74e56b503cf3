"""Where the tests find the repository and their data, wherever a test module sits in tests/
(and what the quirky EPD files hold, which every program's tests check)."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The repository root (the working directory of engine processes)."""
DATA = os.path.join(ROOT, "tests", "data")
"""Test data; tests/data/README.md notes each file's origin."""
EPD = os.path.join(DATA, "epd")
SYZYGY = os.path.join(DATA, "syzygy")
QUIRKY = os.path.join(DATA, "quirky")
"""EPD files as other tools write them, quirks included: every program reads them in full."""
SCRIPTS = os.path.join(ROOT, "scripts")
FAKE_ENGINE = os.path.join(ROOT, "tests", "fake_engines", "fake_uci.py")
"""A scriptable fake UCI engine (tests/fake_engines/fake_uci.py)."""

QUIRKY_FILES = {  # file: (lines with a position, positions with something to find for a suite)
    "sbd_style.epd": (12, 12),
    "lct2_style.epd": (10, 10),
    "kaufman_style.epd": (10, 10),
    "mate_style.epd": (10, 10),
    "mixed_quirks.epd": (6, 5),
}
"""What each file of ``QUIRKY`` holds."""
QUIRKY_SUMMARY = [
    "1 line: unknown opcode 'tcsi' ignored (first at line 3)",
    "1 line: bm move 'Zz9' (not legal here) ignored (first at line 4)",
    "1 line: dm operand 'x' (not an integer) ignored (first at line 7)",
]
"""What ``EpdReader.summary`` says the lenient reading left out of mixed_quirks.epd."""
