"""A minimal PNG reader for tests (zlib only): enough to check a picture decodes and is not blank.

Reads non-interlaced 8-bit greyscale, RGB, palette, grey+alpha and RGBA images (what
Chromium and matplotlib write) and undoes the five scanline filters.
"""

import struct
import zlib
from typing import List, Set, Tuple

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def read_png(path: str) -> Tuple[int, int, int, List[bytes]]:
    """(width, height, channels, rows of raw pixel bytes); raises ValueError on anything else."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG")
    position, chunks, header, palette = len(SIGNATURE), [], None, None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        crc, = struct.unpack(">I", data[position + 8 + length:position + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad CRC in %r" % kind)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
        position += 12 + length
    if header is None:
        raise ValueError("no IHDR")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in _CHANNELS:
        raise ValueError("unsupported PNG: depth %d colour %d interlace %d" % (depth, colour, interlace))
    channels = _CHANNELS[colour]
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
            elif kind != 0:
                raise ValueError("bad filter %d" % kind)
        rows.append(bytes(line))
        previous = line
    if colour == 3:
        rows = [b"".join(palette[3 * index:3 * index + 3] for index in row) for row in rows]
        channels = 3
    return width, height, channels, rows


def distinct_colours(rows: List[bytes], channels: int, step: int = 3) -> Set[bytes]:
    """Distinct pixel values on every ``step``-th row and column (a sample, fast enough in Python)."""
    colours = set()
    for row in rows[::step]:
        for x in range(0, len(row), channels * step):
            colours.add(row[x:x + channels])
    return colours



def png_summary(path: str) -> Tuple[int, int, int]:
    """(width, height, distinct colours in a sample) of a PNG file; raises ValueError when it
    does not decode."""
    width, height, channels, rows = read_png(path)
    return width, height, len(distinct_colours(rows, channels))
