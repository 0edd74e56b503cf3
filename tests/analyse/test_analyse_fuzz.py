"""Hostile-input fuzzing of ``pruner analyse``: random and mutated EPD/PGN bytes, gzip- or
bzip2-compressed (whole or cut short) or not, from a file or standard input, into every
output format (the reading side's counterpart of tests/uci/test_fuzz.py).

The texts start from the repository's real files (tests/data: Bratko-Kopec, the quirky EPD
files, real and Chess960 games) and are mutated: bytes flipped, inserted (NUL, CR, Latin-1
and broken UTF-8, PGN brackets), deleted, duplicated, lines swapped in from the other
format, truncated, long lines added. The line, game and give-up bounds of
``pruner.engine.textlines`` are made small here, so that the paths that skip a long line or game,
or give up on an endless one, run in every profile. Invariants, checked on every input:

* ``main`` returns (no exception escapes), with a status in 0-63: only inputs fail;
* every line on stderr is one ``pruner analyse: ...`` message, no traceback, nothing
  "internal"; the status is 0 exactly when no message says an input failed;
* the output parses in its format: JSON Lines records with every key, a FEN python-chess
  reads and a best move legal in it; CSV rows under the header, as wide as it; PGN games
  python-chess reads without an error;
* every record names its input (``path:line``, a line that exists).

The default suite runs a few hundred inputs in-process (seconds); ``pytest -m slow
tests/analyse/test_analyse_fuzz.py`` runs the heavy profile (docs/hardening.md has its figures).
"""

import bz2
import csv
import gzip
import io
import json
import os
import platform
from typing import List, Tuple

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pruner.engine import textlines
from pruner.analyse_app.cli import main
from pruner.analyse_app.output import CSV_COLUMNS
from pruner.analyse_app.tasks import RECORD_KEYS

from paths import DATA, EPD, QUIRKY

FUZZ_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))

SMALL_LINE = 300
"""The line bound while fuzzing (4 MB in use): real EPD and PGN lines are shorter."""
SMALL_GAME = 3000
"""The game bound while fuzzing (4 MB in use): some real games are longer."""
SMALL_GIVE_UP = 20000
"""The give-up bound while fuzzing (1 GB in use)."""

FAILURE_WORDS = ("skipped", "cannot read", "no positions found", "no games found", "analysis failed",
                 "not a FEN")
"""Words of the messages that report a failed input (what the exit status counts)."""


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


EPD_SEEDS = [_read(os.path.join(EPD, "bk.epd"))[:1500]] + \
    [_read(os.path.join(QUIRKY, name)) for name in sorted(os.listdir(QUIRKY))]
PGN_SEEDS = [_read(os.path.join(DATA, "games", "real_games.pgn"))[:5000],
             _read(os.path.join(DATA, "games", "chess960_games.pgn"))[:3000]]
JUNK = [b"\x00", b"\r", b"\n", b"\r\n", b"\xff", b"\xc3", b"\xe2\x80", b"\x1a", b"\xef\xbb\xbf", b"[", b"]",
        b"{", b"}", b"(", b")", b";", b"%", b'"', b" ", b"\t", b"1.", b"e4", b"O-O", b"#", b"*", b"1-0", b"bm",
        b"id", b"\\", b"\xe9"]


@st.composite
def mutated(draw, seeds: List[bytes], others: List[bytes]) -> bytes:
    """A seed text with a few mutations."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "duplicate", "splice", "long", "truncate"]))
        at = draw(st.integers(0, len(data)))
        if kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from(JUNK)) * draw(st.integers(1, 4))
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 200))]
        elif kind == "duplicate":
            data[at:at] = data[at:at + draw(st.integers(1, 400))]
        elif kind == "splice":
            other = draw(st.sampled_from(others))
            start = draw(st.integers(0, len(other)))
            data[at:at] = other[start:start + draw(st.integers(1, 300))]
        elif kind == "long":  # a line beyond the bound, sometimes without an end
            data[at:at] = draw(st.sampled_from([b"x", b"\x00", b"e4 ", b"{"])) * \
                draw(st.sampled_from([SMALL_LINE + 1, 3 * SMALL_LINE, SMALL_GAME, 2 * SMALL_GIVE_UP]))
        elif kind == "truncate":
            del data[at:]
    return bytes(data)


@st.composite
def hostile_inputs(draw, size: int = 2000) -> Tuple[bytes, str, str]:
    """(bytes as stored, file name suffix or '-' for standard input, output format)."""
    kind = draw(st.sampled_from(["random", "epd", "pgn", "pgn"]))
    if kind == "random":
        text = draw(st.binary(max_size=size))
    else:
        text = draw(mutated(EPD_SEEDS, PGN_SEEDS) if kind == "epd" else mutated(PGN_SEEDS, EPD_SEEDS))
    compression = draw(st.sampled_from(["", "", "", ".gz", ".gz-cut", ".bz2"]))
    if compression == ".gz-cut":
        packed = gzip.compress(text)
        text, compression = packed[:draw(st.integers(0, len(packed)))], ".gz"
    elif compression == ".gz":
        text = gzip.compress(text)
    elif compression == ".bz2":
        text = bz2.compress(text)
    name = draw(st.sampled_from({"random": [".epd", ".pgn", ".txt", "-"], "epd": [".epd", ".txt", "-", ".pgn"],
                                 "pgn": [".pgn", ".pgn", "-", ".epd"]}[kind]))
    if name == "-" and compression:
        name = "-" + compression  # --input-format names the compression
    elif name != "-":
        name += compression
    return text, name, draw(st.sampled_from(["jsonl", "jsonl", "csv", "pgn"]))


def check_run(tmp_path, data: bytes, name: str, fmt: str) -> None:
    argv = ["--depth", "1", "--jobs", "1", "-q", "--to-move", "3", "--games", "3", "--format", fmt]
    stdin = None
    if name.startswith("-"):
        stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
        if name != "-":
            argv += ["--input-format", name[2:]]
        argv.append("-")
        path = "<stdin>"
    else:
        path = str(tmp_path / ("input" + name))
        with open(path, "wb") as handle:
            handle.write(data)
        argv.append(path)
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err, stdin=stdin)

    assert isinstance(status, int) and 0 <= status <= 63, (status, err.getvalue())
    messages = err.getvalue().splitlines()
    for line in messages:
        assert line.startswith("pruner analyse: "), line
        assert "Traceback" not in line and "internal" not in line, line
    failures = [line for line in messages if any(word in line for word in FAILURE_WORDS)]
    assert (status == 0) == (not failures), (status, messages)
    for source in _check_output(out.getvalue(), fmt):
        assert source.startswith(path + ":"), (source, path)
        assert int(source.rsplit(":", 1)[1]) >= 1, source


def _check_output(text: str, fmt: str) -> List[str]:
    """Check the output's format; the sources of its records."""
    if fmt == "jsonl":
        sources = []
        for line in text.splitlines():
            record = json.loads(line)
            assert tuple(record) == RECORD_KEYS
            board = chess.Board(record["fen"], chess960=record["fen"].split()[2].strip("KQkq-") != "")
            if record["best_uci"] is not None:
                assert board.is_legal(board.parse_uci(record["best_uci"]))
            else:
                assert record["game_over"] is not None
            sources.append(record["source"])
        return sources
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        assert rows and tuple(rows[0]) == CSV_COLUMNS
        assert all(len(row) == len(CSV_COLUMNS) for row in rows[1:])
        return [row[0] for row in rows[1:]]
    handle = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            return []
        assert not game.errors, game.errors


@pytest.fixture
def small_bounds(monkeypatch):
    monkeypatch.setattr(textlines, "MAX_LINE_BYTES", SMALL_LINE)
    monkeypatch.setattr(textlines, "MAX_GAME_BYTES", SMALL_GAME)
    monkeypatch.setattr(textlines, "GIVE_UP_BYTES", SMALL_GIVE_UP)


DEFAULT_EXAMPLES = 25 if platform.python_implementation() == "PyPy" else 200
"""PyPy searches slowly before its JIT has warmed up (60 inputs took 18 s of CPU there against
200 in 3.5 s on CPython, 2026-11-28): fewer inputs there, the readers are the same code."""


@settings(max_examples=DEFAULT_EXAMPLES, **FUZZ_SETTINGS)
@given(case=hostile_inputs())
def test_fuzz_analyse_with_hostile_inputs(tmp_path_factory, small_bounds, case):
    check_run(tmp_path_factory.mktemp("fuzz"), *case)


@pytest.mark.slow
@settings(max_examples=3000, **FUZZ_SETTINGS)
@given(case=hostile_inputs(size=20000))
def test_fuzz_analyse_with_hostile_inputs_heavy(tmp_path_factory, small_bounds, case):
    check_run(tmp_path_factory.mktemp("fuzz"), *case)
