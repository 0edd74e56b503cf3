"""Where the tests find the repository and their data, wherever a test module sits in tests/."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The repository root (the working directory of engine processes)."""
DATA = os.path.join(ROOT, "tests", "data")
"""Test data; tests/data/README.md notes each file's origin."""
EPD = os.path.join(DATA, "epd")
SYZYGY = os.path.join(DATA, "syzygy")
SCRIPTS = os.path.join(ROOT, "scripts")
FAKE_ENGINE = os.path.join(ROOT, "tests", "fake_engines", "fake_uci.py")
"""A scriptable fake UCI engine (tests/fake_engines/fake_uci.py)."""
