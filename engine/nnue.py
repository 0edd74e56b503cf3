"""The learned evaluation: a 768->N->1 network with perspective accumulators (NNUE).

Inputs: one feature per (piece, square) as each side sees the board: its own pieces in planes
0-5, the opponent's in 6-11, squares mirrored top to bottom for Black, so the same position
with colours swapped gives the same numbers to the side to move (colour symmetry by
construction). Each perspective's accumulator is ``b1 + sum of W1's rows of its features``;
the output is ``b2 + W2 . [crelu(acc of the side to move), crelu(acc of the other side)]``,
scaled to centipawns.

Each interpreter keeps the accumulators in the representation it runs fastest
(``REPRESENTATION``, chosen at import by ``platform.python_implementation()``;
``PRUNER_ACCUMULATOR=packed|lists|lazy`` overrides it, so the tests run both on both interpreters;
a ``Net`` made with ``representation=`` uses that one). The evaluation is the same integer
either way, bit for bit.

* ``packed`` (CPython): both perspectives in one Python integer of 2N lanes of 16 bits (White's
  perspective in lanes 0..N-1, Black's in N..2N-1), each lane holding its value plus 2^15. A
  move adds and subtracts whole columns (one precomputed integer per piece, colour and square),
  a few big-integer operations whatever N is, inline in ``pruner.engine.makemove.do_move_packed``.
  The clipped ReLU works lane-wise with masks from each lane's top bit, ``to_bytes(...)[::2]``
  takes every lane's low byte (clipped values are 0..255) and the output layer is one numpy
  dot product of those bytes (``PackedAccumulators.output``; ``sum(map(mul, ...))``, three times
  slower, where numpy is not installed: the same integer).
* ``lists`` (PyPy): a list of ints of four 16-bit lanes each, in the same order
  (``ListAccumulators``): machine words, which PyPy's JIT adds and shifts in registers where
  its big integers are library calls. A move makes the new list in one loop over the words
  (``moved``, ``castled``, after the board's update: ``pruner.engine.makemove.do_move_lists``)
  and the output layer reads the lanes out of each word, clipped as ``min(max(v, 0), qa)``.
  One int a lane evaluated as fast but made a move cost twice as much.
* ``lazy`` (a choice, no interpreter's default): the lists, but a move only records its
  columns (``Pending``, ``pruner.engine.makemove.do_move_lazy``) and the evaluation computes the
  list (``settled``). In the bench a third of the moves are never evaluated, which with N = 64
  just pays for the node objects (PyPy's bench 8 the same time as ``lists``); with N = 256 it
  searched 17% faster (docs/nnue.md).

Either way ``pruner.engine.makemove`` keeps the old accumulator on its undo stack, so taking a
move back is free. Measured (scripts/accumulator_bench.py, docs/nnue.md "The network"): on PyPy
an evaluation of the packed integer costs three times the list's and a move about the same;
on CPython the list costs three times as much a move and six times an evaluation.

File format (little-endian; docs/nnue.md): a 32-byte header

    magic  b"PRUNRNET"  8 bytes
    version            u16 (FORMAT_VERSION)
    hidden N           u16
    qa                 u16 (255: the accumulator's 1.0; the clipped ReLU's top)
    qb                 u16 (the output weights' 1.0)
    scale              u16 (centipawns of an output of 1.0)
    flags              u16 (bit 0: residual, added to the classical evaluation)
    payload length     u32
    payload CRC-32     u32 (zlib.crc32)

then the payload: W1 as int16 [768][N] (feature-major), b1 int16 [N], W2 int16 [2N],
b2 int32. Never pickle: the file is data only. Header fields outside what the engine supports
are refused with the field and its range (``check_fields``): a ``qb`` of 0 divided by zero at
every evaluation, a ``scale`` of 65535 scored the start position as a mate.
"""

import array
import hashlib
import os
import platform
import stat
import struct
import sys
import zlib
from operator import mul
from typing import Dict, List, Optional, Sequence, Tuple

MAGIC = b"PRUNRNET"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sHHHHHHII")
FEATURES = 768
LANE = 16
LANE_OFFSET = 1 << (LANE - 1)
FLAG_RESIDUAL = 1
MAX_PIECES = 32
"""At most 32 pieces stand on a board: with the bound the trainer keeps on W1 and b1, no lane
leaves its 16 bits (``check_bounds``)."""

DEFAULT_NET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pruner.nnue")
"""The net shipped in the package."""
NET_VARIABLE = "PRUNER_SHIPPED_NET"
"""A path here stands in for ``DEFAULT_NET`` when the evaluation loads it, once, at import
(tests point it at a damaged copy; the real file is never touched)."""

MAX_HIDDEN = 1024
"""More hidden units than this are refused: the accumulators would hold 2,048 lanes, and the
search in Python would evaluate a few hundred positions a second."""
MAX_QB = 32767
"""``qb`` is the int16 output weight that stands for 1.0: above int16's top no weight reaches it."""
MAX_SCALE = 1000
"""Centipawns of an output of 1.0 (the trainer writes 400): beyond ten pawns a unit the file is
not a net of this engine's scale."""


class NetError(ValueError):
    """A net file that cannot be used: the message names the file and the reason."""


def feature(perspective: int, piece_type: int, color: int, square: int) -> int:
    """Input index of a piece as ``perspective`` (1 White, 0 Black) sees it."""
    plane = (0 if color == perspective else 6) + piece_type - 1
    return plane * 64 + (square if perspective else square ^ 56)


class Net:
    """A loaded network: its integer weights and the tables the search uses."""

    def __init__(self, hidden: int, qa: int, qb: int, scale: int, residual: bool, w1: Sequence[int],
                 b1: Sequence[int], w2: Sequence[int], b2: int, name: str = "",
                 representation: Optional[str] = None) -> None:
        check_fields(name or "net", hidden, qa, qb, scale, FLAG_RESIDUAL if residual else 0)
        if len(w1) != FEATURES * hidden or len(b1) != hidden or len(w2) != 2 * hidden:
            raise NetError("%s: layer sizes do not match hidden size %d" % (name or "net", hidden))
        self.hidden = hidden
        self.qa, self.qb, self.scale = qa, qb, scale
        self.residual = residual
        self.w1 = list(w1)
        self.b1 = list(b1)
        self.w2 = list(w2)
        self.b2 = b2
        self.name = name
        self.sha256 = ""
        """The file's SHA-256 in hex ("" for a net not read from a file)."""
        check_bounds(self)
        self.representation = representation or REPRESENTATION
        """How the search keeps this net's accumulators: ``packed`` or ``lists`` (``REPRESENTATION``)."""
        if self.representation not in REPRESENTATIONS:
            raise ValueError("accumulator representation must be one of %s, not %r"
                             % (", ".join(REPRESENTATIONS), self.representation))
        self.accumulators = REPRESENTATIONS[self.representation](self)
        """The representation's tables and functions (``PackedAccumulators`` or ``ListAccumulators``)."""
        self.columns = self.accumulators.columns
        """``columns[piece_type][color][square]``: what the piece adds to the accumulator."""

    def in_representation(self, representation: str) -> "Net":
        """This net (the same weights, name and checksum) with its accumulators kept in
        ``representation`` (the tests compare them in one process)."""
        net = Net(self.hidden, self.qa, self.qb, self.scale, self.residual, self.w1, self.b1, self.w2, self.b2,
                  name=self.name, representation=representation)
        net.sha256 = self.sha256
        return net

    def accumulator(self, pieces):
        """The accumulator of a board from scratch in this net's representation; ``pieces``:
        (piece type, colour, square)."""
        return self.accumulators.accumulator(pieces)

    def evaluate(self, acc, turn: int) -> int:
        """The net's score in centipawns, from the side to move (``turn``: 1 White). The search
        calls ``accumulators.evaluate`` itself (one call fewer)."""
        return self.accumulators.evaluate(acc, turn)

    def to_bytes(self) -> bytes:
        """The net as a file's bytes (the format in the module docstring)."""
        payload = (array.array("h", self.w1).tobytes() + array.array("h", self.b1).tobytes()
                   + array.array("h", self.w2).tobytes() + struct.pack("<i", self.b2))
        if sys.byteorder != "little":
            raise NetError("writing nets needs a little-endian machine")
        header = HEADER.pack(MAGIC, FORMAT_VERSION, self.hidden, self.qa, self.qb, self.scale,
                             FLAG_RESIDUAL if self.residual else 0, len(payload), zlib.crc32(payload))
        return header + payload


def _pack(values: Sequence[int]) -> int:
    """Signed values as one integer of 16-bit lanes (exact: a negative lane borrows from the
    next, and adding it to lanes holding their offset gives each lane its sum)."""
    packed = 0
    for i, value in enumerate(values):
        packed += value << (LANE * i)
    return packed


class PackedAccumulators:
    """Both perspectives' accumulators as one integer of 2N 16-bit lanes (the module docstring):
    CPython's fastest. ``pruner.engine.makemove.do_move_packed`` adds the columns inline."""

    name = "packed"

    def __init__(self, net: "Net", output: Optional[str] = None) -> None:
        """``output``: ``numpy`` or ``python`` (``self.output``); None: numpy on CPython where
        it is installed, else python."""
        hidden = net.hidden
        lanes = 2 * hidden
        self.sign_bits = sum(1 << (LANE * i + LANE - 1) for i in range(lanes))
        self.offsets = sum(LANE_OFFSET << (LANE * i) for i in range(lanes))
        self.tops = sum(net.qa << (LANE * i) for i in range(lanes))
        self.lane_bytes = lanes * LANE // 8
        self.w2_white = net.w2[:]
        """Output weights in lane order when White is to move (White's perspective first)."""
        self.w2_black = net.w2[hidden:] + net.w2[:hidden]
        self.b2, self.scale, self.divisor = net.b2, net.scale, net.qa * net.qb
        half = LANE * hidden
        rows = _rows(net)
        self.columns: List[List[List[int]]] = [[[0] * 64, [0] * 64]]
        """``columns[piece_type][color][square]``: what the piece adds to the packed accumulator."""
        for piece_type in range(1, 7):
            by_color = []
            for color in (0, 1):
                by_color.append([_pack(rows[feature(1, piece_type, color, sq)])
                                 + (_pack(rows[feature(0, piece_type, color, sq)]) << half) for sq in range(64)])
            self.columns.append(by_color)
        self.bias = _pack([b + LANE_OFFSET for b in net.b1]) + (_pack([b + LANE_OFFSET for b in net.b1]) << half)
        """The packed accumulator of an empty board (bias and lane offsets)."""
        numpy = _numpy() if output == "numpy" or (output is None and platform.python_implementation() == "CPython") \
            else None
        if output == "numpy" and numpy is None:
            raise ValueError("the numpy output layer needs numpy")
        self.output = "numpy" if numpy is not None else "python"
        """How the output layer's dot product is taken: ``numpy`` (CPython's default where numpy
        is installed: a third of the time of ``sum(map(mul, ...))`` for 128 lanes) or ``python``."""
        if numpy is not None:
            # The clipped lanes' bytes, low byte of each lane then 0 (``to_bytes``), against the
            # weights with a 0 between each: one dot product of the whole buffer, no slicing.
            bound = 2 * lanes * 255 * max([abs(w) for w in net.w2] + [1])
            dtype = numpy.int32 if bound < 2 ** 31 else numpy.int64
            self._dot_white = self._interleaved(numpy, self.w2_white, dtype).dot
            self._dot_black = self._interleaved(numpy, self.w2_black, dtype).dot
            self._frombuffer, self._uint8 = numpy.frombuffer, numpy.uint8
            self.evaluate = self.evaluate_numpy
        else:
            self.evaluate = self.evaluate_python

    @staticmethod
    def _interleaved(numpy, weights: List[int], dtype):
        """``weights`` at the even places of an array twice as long, zeros at the odd ones."""
        array_ = numpy.zeros(2 * len(weights), dtype=dtype)
        array_[::2] = weights
        return array_

    def accumulator(self, pieces) -> int:
        """The packed accumulator of a board from scratch; ``pieces``: (piece type, colour, square)."""
        acc = self.bias
        columns = self.columns
        for piece_type, color, square in pieces:
            acc += columns[piece_type][color][square]
        return acc

    def value(self, acc: int) -> int:
        """The accumulator ``acc`` stands for: itself (``LazyAccumulators.value`` computes one)."""
        return acc

    def evaluate(self, acc: int, turn: int) -> int:
        """The net's score in centipawns, from the side to move (``turn``: 1 White), by the
        output layer ``self.output`` names. (``__init__`` binds that one to the instance under
        this name, so the search's calls skip this dispatch.)"""
        return (self.evaluate_numpy if self.output == "numpy" else self.evaluate_python)(acc, turn)

    def _clipped(self, acc: int) -> int:
        """The clipped ReLU of every lane, lane-wise in one integer (0..qa a lane)."""
        sign = self.sign_bits
        offsets = self.offsets
        positive = ((acc & sign) >> (LANE - 1)) * 0xFFFF
        above = acc - self.tops
        over = ((above & sign) >> (LANE - 1)) * 0xFFFF
        return (acc & positive) - (offsets & positive) - ((above & over) - (offsets & over))

    def evaluate_python(self, acc: int, turn: int) -> int:
        """``evaluate`` with the output layer as ``sum(map(mul, ...))`` over the lanes' low bytes."""
        hidden = self._clipped(acc).to_bytes(self.lane_bytes, "little")[::2]
        total = sum(map(mul, self.w2_white if turn else self.w2_black, hidden)) + self.b2
        return total * self.scale // self.divisor

    def evaluate_numpy(self, acc: int, turn: int) -> int:
        """``evaluate`` with the output layer as one numpy dot product (the same integer)."""
        # The clipping is written out again (not ``_clipped``): a call less at every evaluation.
        sign = self.sign_bits
        offsets = self.offsets
        positive = ((acc & sign) >> (LANE - 1)) * 0xFFFF
        above = acc - self.tops
        over = ((above & sign) >> (LANE - 1)) * 0xFFFF
        clipped = (acc & positive) - (offsets & positive) - ((above & over) - (offsets & over))
        lanes = self._frombuffer(clipped.to_bytes(self.lane_bytes, "little"), self._uint8)
        total = int((self._dot_white if turn else self._dot_black)(lanes)) + self.b2
        return total * self.scale // self.divisor


WORD_LANES = 4
"""Lanes of 16 bits in one int of ``ListAccumulators``: 64 bits, a machine word on PyPy."""
_WORD_OFFSETS = sum(LANE_OFFSET << (LANE * j) for j in range(WORD_LANES - 1))
"""The offsets of a word's lower lanes (its top lane is signed and has none)."""
_TOP = LANE * (WORD_LANES - 1)


class ListAccumulators:
    """Both perspectives' accumulators as a list of ints, four 16-bit lanes in each (the packed
    lanes' order, White's perspective first; the last word padded with zero lanes): PyPy's
    fastest, where each int is a machine word the JIT adds in a register. The lower three
    lanes of a word hold their value plus 2^15, the top lane its value signed, so a word stays
    within 64 signed bits on any board ``check_bounds`` allows. A move makes the new list in
    one loop over the words (``moved``, ``castled``: ``pruner.engine.makemove.do_move_lists``)
    and the output layer reads the lanes out of each word with the clipped ReLU as
    ``min(max(value, 0), qa)``."""

    name = "lists"

    def __init__(self, net: "Net") -> None:
        hidden = net.hidden
        lanes = 2 * hidden
        self.words = -(-lanes // WORD_LANES)
        padding = [0] * (self.words * WORD_LANES - lanes)
        self.qa = net.qa
        self.w2_white = net.w2[:] + padding
        """Output weights in lane order when White is to move (White's perspective first; 0
        for the padding lanes)."""
        self.w2_black = net.w2[hidden:] + net.w2[:hidden] + padding
        self.b2, self.scale, self.divisor = net.b2, net.scale, net.qa * net.qb
        rows = _rows(net)
        self.columns: List[List[List[List[int]]]] = [[[[0] * self.words] * 64] * 2]
        """``columns[piece_type][color][square]``: the piece's lanes as words (without offsets;
        piece type 0: zeros, what ``moved`` subtracts for a move that captures nothing)."""
        for piece_type in range(1, 7):
            self.columns.append([[self._words(rows[feature(1, piece_type, color, sq)]
                                              + rows[feature(0, piece_type, color, sq)] + padding)
                                  for sq in range(64)] for color in (0, 1)])
        self.bias = [word + _WORD_OFFSETS for word in self._words(net.b1 + net.b1 + padding)]
        """The accumulator of an empty board (bias and the lower lanes' offsets)."""

    def _words(self, values: List[int]) -> List[int]:
        """Lane values (a multiple of four) as words: value j of a word shifted by 16 j, signed."""
        return [_pack(values[i:i + WORD_LANES]) for i in range(0, len(values), WORD_LANES)]

    def accumulator(self, pieces) -> List[int]:
        """The accumulator of a board from scratch; ``pieces``: (piece type, colour, square)."""
        acc = self.bias[:]
        columns = self.columns
        for piece_type, color, square in pieces:
            column = columns[piece_type][color][square]
            for i in range(self.words):
                acc[i] += column[i]
        return acc

    def value(self, acc: List[int]) -> List[int]:
        """The accumulator ``acc`` stands for: itself (``LazyAccumulators.value`` computes one)."""
        return acc

    def evaluate(self, acc: List[int], turn: int) -> int:
        """The net's score in centipawns, from the side to move (``turn``: 1 White)."""
        # A word's four lanes written out (an inner loop over a word's lanes, tried with three
        # lanes a word, ran a third slower on PyPy); the JIT keeps every value a machine integer.
        weights = self.w2_white if turn else self.w2_black
        qa = self.qa
        total = 0
        i = 0
        for word in acc:
            total += (weights[i] * min(max((word & 0xFFFF) - LANE_OFFSET, 0), qa)
                      + weights[i + 1] * min(max((word >> 16 & 0xFFFF) - LANE_OFFSET, 0), qa)
                      + weights[i + 2] * min(max((word >> 32 & 0xFFFF) - LANE_OFFSET, 0), qa)
                      + weights[i + 3] * min(max(word >> _TOP, 0), qa))
            i += WORD_LANES
        return (total + self.b2) * self.scale // self.divisor


def moved(acc: List[int], added: List[int], removed: List[int], captured: List[int]) -> List[int]:
    """A list accumulator after a move: ``removed`` the moved piece's column on its old square,
    ``added`` the moved (or promoted) piece's on its new one, ``captured`` the captured piece's
    (the zero column when nothing is captured). A new list: the old one stays on the undo stack."""
    # In this order every partial sum is the accumulator of at most 32 pieces, so each word
    # stays a machine word (a larger int would turn the list into one of objects on PyPy).
    # One loop in place on a copy: the loop PyPy's JIT ran fastest of the ones measured
    # (list comprehensions over zip or range, a fresh list filled in; docs/nnue.md).
    new = acc[:]
    for i in range(len(new)):
        new[i] = new[i] - removed[i] + added[i] - captured[i]
    return new


def castled(acc: List[int], king_to: List[int], king_from: List[int], rook_to: List[int],
            rook_from: List[int]) -> List[int]:
    """A list accumulator after castling: the king's and the rook's columns moved."""
    new = acc[:]
    for i in range(len(new)):
        new[i] = new[i] - king_from[i] + king_to[i] - rook_from[i] + rook_to[i]
    return new


class Pending:
    """A lazy accumulator (``LazyAccumulators``): ``acc``, the list accumulator once computed
    (None until an evaluation needs it), else how to compute it: the accumulator before the
    move (``prev``, another ``Pending``) and the move's columns, as ``moved`` takes them, or
    for castling (``rook_to`` not None) the king's move in ``added``/``removed`` and the rook's
    in ``rook_to``/``captured``. Mutable on purpose: the node the undo stack and the children
    share is computed at most once, whichever of them asks first."""

    __slots__ = ("acc", "prev", "added", "removed", "captured", "rook_to")

    def __init__(self, acc, prev, added, removed, captured, rook_to) -> None:
        self.acc = acc
        self.prev = prev
        self.added = added
        self.removed = removed
        self.captured = captured
        self.rook_to = rook_to


def settled(node: Pending) -> List[int]:
    """The list accumulator of ``node``, computed now from the nearest computed one before it
    (each node on the way keeps its list, so a sibling's evaluation does not compute it again)."""
    acc = node.acc
    if acc is not None:
        return acc
    chain = []
    while acc is None:
        chain.append(node)
        node = node.prev
        acc = node.acc
    for node in reversed(chain):
        if node.rook_to is None:
            acc = moved(acc, node.added, node.removed, node.captured)
        else:
            acc = castled(acc, node.added, node.removed, node.rook_to, node.captured)
        node.acc = acc
        node.prev = None  # the chain behind a computed node is never read again: let it go
    return acc


class LazyAccumulators(ListAccumulators):
    """``ListAccumulators`` brought up to date only when a position is evaluated: a move makes
    a ``Pending`` node (``pruner.engine.makemove.do_move_lazy``) instead of a new list, and the
    evaluation computes it (``settled``). A node the search never evaluates (cut by the
    transposition table, answered by the evaluation cache, in check, ...) never pays the
    update. The accumulator a position holds is a ``Pending``; ``value`` gives its list."""

    name = "lazy"

    def accumulator(self, pieces) -> Pending:
        """A computed node holding the list accumulator of a board from scratch."""
        return Pending(ListAccumulators.accumulator(self, pieces), None, None, None, None, None)

    def evaluate(self, acc: Pending, turn: int) -> int:
        """The net's score in centipawns, from the side to move (``turn``: 1 White); computes
        ``acc`` first if it is pending."""
        return ListAccumulators.evaluate(self, settled(acc), turn)

    def value(self, acc: Pending) -> List[int]:
        """The list accumulator ``acc`` stands for (computed now if pending)."""
        return settled(acc)


REPRESENTATIONS = {"packed": PackedAccumulators, "lists": ListAccumulators, "lazy": LazyAccumulators}
"""The accumulator representations by name."""
REPRESENTATION_VARIABLE = "PRUNER_ACCUMULATOR"
"""``packed`` or ``lists`` here overrides the interpreter's choice (``default_representation``)."""


def default_representation() -> str:
    """The representation this interpreter runs fastest (``lists`` on PyPy, ``packed`` on
    CPython and others), or the one ``PRUNER_ACCUMULATOR`` names (another value is ignored:
    the engine does not stop over a tuning variable)."""
    chosen = os.environ.get(REPRESENTATION_VARIABLE, "")
    if chosen in REPRESENTATIONS:
        return chosen
    return "lists" if platform.python_implementation() == "PyPy" else "packed"


REPRESENTATION = default_representation()
"""The accumulator representation of the nets this process makes, chosen at import."""


def _numpy():
    """numpy, or None where it is not installed (the pure-Python output layer is used then)."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _rows(net: "Net") -> List[List[int]]:
    """W1's row of each input feature (N weights)."""
    hidden = net.hidden
    return [net.w1[f * hidden:(f + 1) * hidden] for f in range(FEATURES)]


def check_fields(name: str, hidden: int, qa: int, qb: int, scale: int, flags: int) -> None:
    """Refuse header fields outside what the engine supports, naming the field, its value and the
    range: a ``qb`` of 0 would divide by zero at every evaluation, a huge ``scale`` make the net's
    scores meaningless, an unknown flag ask for something this engine does not do."""
    ranges = (("hidden units", hidden, 1, MAX_HIDDEN), ("qa", qa, 1, 255), ("qb", qb, 1, MAX_QB),
              ("scale", scale, 1, MAX_SCALE))
    for field, value, low, high in ranges:
        if not low <= value <= high:
            raise NetError("%s: %s must be %d..%d, not %d" % (name, field, low, high, value))
    if flags & ~FLAG_RESIDUAL:
        raise NetError("%s: unknown flags 0x%04x (this engine knows only bit 0, residual)" % (name, flags))


def check_bounds(net: Net) -> None:
    """Refuse a net whose accumulator could leave a lane's 16 bits on some board (its clipped
    ReLU top, ``qa``, is below 256 by ``check_fields``: the evaluation reads one byte a lane)."""
    hidden = net.hidden
    for i in range(hidden):
        column = net.w1[i::hidden]
        reach = MAX_PIECES * max(max(column), -min(column))
        if abs(net.b1[i]) + reach > LANE_OFFSET - 256 - 1:
            raise NetError("%s: hidden unit %d can overflow its lane (bias %d, largest weight x 32 = %d)"
                           % (net.name or "net", i, net.b1[i], reach))


def from_bytes(data: bytes, name: str = "net") -> Net:
    """A net from a file's bytes; ``NetError`` says what is wrong (magic, version, a header field,
    size, checksum)."""
    if len(data) < HEADER.size:
        raise NetError("%s: %d bytes, shorter than the %d-byte header" % (name, len(data), HEADER.size))
    magic, version, hidden, qa, qb, scale, flags, length, crc = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise NetError("%s: not a Pruner net (magic %r)" % (name, magic))
    if version != FORMAT_VERSION:
        raise NetError("%s: format version %d, this engine reads %d" % (name, version, FORMAT_VERSION))
    check_fields(name, hidden, qa, qb, scale, flags)  # before the sizes: an absurd N is named as such
    payload = data[HEADER.size:]
    expected = 2 * (FEATURES * hidden + hidden + 2 * hidden) + 4
    if length != expected or len(payload) != length:
        raise NetError("%s: payload of %d bytes (header says %d, hidden %d needs %d)"
                       % (name, len(payload), length, hidden, expected))
    if zlib.crc32(payload) != crc:
        raise NetError("%s: checksum mismatch (the file is damaged)" % name)
    values = array.array("h")
    values.frombytes(payload[:-4])
    if sys.byteorder != "little":
        values.byteswap()
    w1_end = FEATURES * hidden
    w1, b1, w2 = values[:w1_end], values[w1_end:w1_end + hidden], values[w1_end + hidden:]
    b2 = struct.unpack("<i", payload[-4:])[0]
    net = Net(hidden, qa, qb, scale, bool(flags & FLAG_RESIDUAL), w1, b1, w2, b2, name=name)
    net.sha256 = hashlib.sha256(data).hexdigest()
    return net


MAX_FILE_BYTES = 16 << 20
"""A larger file is refused before it is read (a net of N=256 is 400 KB)."""


def load(path: str) -> Net:
    """The net in the file at ``path``; ``NetError`` names the file and the reason."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise NetError("%s: not a regular file" % path)
        if info.st_size > MAX_FILE_BYTES:
            raise NetError("%s: %d bytes, more than a net can be" % (path, info.st_size))
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise NetError("%s: %s" % (path, exc.strerror or exc)) from None
    net = from_bytes(data, name=path)  # a refusal names the whole path
    net.name = os.path.basename(path)
    return net


def board_pieces(board) -> list:
    """(piece type, colour, square) of every piece of a python-chess board."""
    return [(piece.piece_type, int(piece.color), square) for square, piece in board.piece_map().items()]


def default_path() -> str:
    """The shipped net's file: ``DEFAULT_NET``, or the path ``PRUNER_SHIPPED_NET`` names."""
    return os.environ.get(NET_VARIABLE) or DEFAULT_NET


def load_default() -> Tuple[Optional[Net], Optional[str]]:
    """The shipped net, or None and the reason it could not be loaded (naming the file)."""
    try:
        return load(default_path()), None
    except NetError as exc:
        return None, str(exc)


_shipped: Dict[str, Tuple[Optional[Net], Optional[str]]] = {}
"""``load_default``'s answer under "", once it was asked (the file is read once a process)."""


def shipped_net() -> Tuple[Optional[Net], Optional[str]]:
    """The shipped net (None when it cannot be used) and why not (None when it can), read at
    the first call in a process."""
    if "" not in _shipped:
        _shipped[""] = load_default()
    return _shipped[""]


_nets_by_name: Dict[str, Net] = {}
"""Nets loaded by ``net_named``, by the name asked for (each file is read once a process)."""


def net_named(name: str) -> Optional[Net]:
    """The net a name stands for: "" the shipped one (None if it could not be loaded:
    ``shipped_net`` says why), ``classical`` none, else the file at that path; ``NetError`` (a
    ``ValueError``) names the file and the reason it cannot be used."""
    if name == "classical":
        return None
    if name == "":
        return shipped_net()[0]
    net = _nets_by_name.get(name)
    if net is None:
        net = _nets_by_name[name] = load(name)
    return net


def read_named(name: str, data: Optional[bytes] = None) -> Optional[Net]:
    """The net ``name`` stands for, read now, and from now on what ``net_named(name)`` gives: a
    path's file is read again (the ``EvalFile`` option: a net trained again under the same name
    is the new one), or the net is made from ``data``, a file's bytes (a Lazy SMP helper gets
    the main process's net so, the same even if the file changed since). "" and ``classical``
    as ``net_named``. ``NetError`` names the file and the reason; the net kept under the name
    before stays."""
    if name in ("", "classical"):
        return net_named(name)
    if data is None:
        net = load(name)
    else:
        net = from_bytes(data, name=name)
        net.name = os.path.basename(name)  # as ``load`` names it
    _nets_by_name[name] = net
    return net
