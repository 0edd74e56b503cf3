"""Where the bytes of ``pruner analyse``'s files come from: the input format and compression
by file name (or ``--input-format``), files and standard input opened as streams.

``games.pgn`` is PGN, ``games.pgn.zst`` PGN compressed with Zstandard; any other name holds
FEN/EPD lines, compressed when it ends in ``.gz``, ``.bz2``, ``.xz`` (the standard library) or
``.zst`` (the optional ``zstandard`` package: ``pip install 'pruner-chess[zst]'``). Nothing is
read whole: every reader decompresses as it goes.
"""

import bz2
import gzip
import io
import lzma
import zlib
from typing import IO, Optional, Tuple

FORMATS = ("pgn", "epd")
"""Input formats: PGN games, or FEN/EPD positions one per line."""
COMPRESSIONS = ("gz", "bz2", "xz", "zst")
"""Compressions, named by their file name suffix."""
ZSTD_HINT = 'pip install "pruner-chess[zst]"'
"""How to get ``.zst`` support (the ``zstandard`` package)."""
ZSTD_WINDOW = 1 << 31
"""Largest Zstandard window accepted (``zstd --long=31`` files, as some game dumps are)."""

InputFormat = Tuple[Optional[str], Optional[str]]
"""(format or None: from the name or the content, compression or None)."""


def parse_input_format(text: str) -> InputFormat:
    """``--input-format``'s value: ``pgn``, ``epd``, ``pgn.zst``, ``epd.gz``, ... or a
    compression alone (``zst``: the format from the name or the content); ValueError saying
    what is expected."""
    parts = text.lower().split(".")
    fmt = parts[0] if parts[0] in FORMATS else None
    rest = parts[1:] if fmt else parts
    if len(rest) > 1 or (rest and rest[0] not in COMPRESSIONS) or (fmt is None and not rest):
        raise ValueError("%r: expected %s, optionally followed by .%s (pgn.zst), or a compression alone"
                         % (text, " or ".join(FORMATS), "|.".join(COMPRESSIONS)))
    return fmt, rest[0] if rest else None


def from_name(name: str) -> InputFormat:
    """The format and compression a file name says: ``a.pgn.gz`` → (pgn, gz), ``a.epd`` →
    (epd, None), ``a.txt.xz`` → (epd, xz)."""
    lower = name.lower()
    compression = None
    for suffix in COMPRESSIONS:
        if lower.endswith("." + suffix):
            compression, lower = suffix, lower[:-len(suffix) - 1]
            break
    return ("pgn" if lower.endswith(".pgn") else "epd"), compression


def missing_zstandard() -> Optional[str]:
    """Why ``.zst`` cannot be read here (the ``zstandard`` package is not installed, or does
    not import: its PyPy build needs cffi), or None."""
    try:
        import zstandard  # noqa: F401
    except ImportError as exc:
        return "the zstandard package %s" % (
            "is not installed" if exc.name == "zstandard" else "cannot be imported (%s)" % exc)
    return None


def decompressed(binary: IO[bytes], compression: Optional[str]) -> IO[bytes]:
    """A binary stream of the bytes of ``binary`` decompressed as it is read (``binary``
    itself without a compression). Corrupt data raises when it is reached (``read_errors``)."""
    if compression is None:
        return binary
    if compression == "gz":
        return gzip.GzipFile(fileobj=binary, mode="rb")
    if compression == "bz2":
        return bz2.BZ2File(binary, "rb")
    if compression == "xz":
        return lzma.LZMAFile(binary, "rb")
    if compression == "zst":
        import zstandard
        reader = zstandard.ZstdDecompressor(max_window_size=ZSTD_WINDOW).stream_reader(
            binary, read_across_frames=True, closefd=False)
        return io.BufferedReader(reader)  # type: ignore[arg-type]
    raise ValueError("unknown compression %r" % compression)


def read_errors() -> Tuple[type, ...]:
    """The exceptions a damaged or truncated input raises while it is read."""
    errors: Tuple[type, ...] = (OSError, EOFError, zlib.error, lzma.LZMAError)
    try:
        import zstandard
    except ImportError:
        return errors
    return errors + (zstandard.ZstdError,)
