"""Where Stockfish is installed: the strong engine the review suggests for judgements that can
be trusted (``pruner analyse --engine``) and the match lab's default opponent and judge
(scripts/). Only the standard library: the match lab imports it without the search."""

import os
import shutil
from typing import Optional

STOCKFISH_PATHS = ("/usr/games/stockfish",)
"""Where Debian's package puts Stockfish (not on a normal user's PATH)."""


def find_stockfish() -> Optional[str]:
    """Stockfish's command: ``stockfish`` on PATH, else Debian's ``STOCKFISH_PATHS``; None when neither."""
    found = shutil.which("stockfish")
    if found:
        return found
    for path in STOCKFISH_PATHS:
        if os.access(path, os.X_OK):
            return path
    return None
