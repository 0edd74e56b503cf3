"""Reading positions as files circulate them: EPD records and FEN lines, quirks included.

One reader for every program that takes positions from a file or a command line
(``pruner analyse``, ``scripts/suite.py``, match openings). The board fields are read
strictly: placement, side to move, castling, en passant (the four of EPD), then the halfmove
clock and fullmove number when numbers follow (one number is the halfmove clock, as
python-chess and Stockfish read a five-field FEN). A field that is there but malformed
(castling ``KQkz``, en passant ``e9``, fullmove ``x``) refuses the line: it is never taken for
an operation, which would analyse the board without it. python-chess's own FEN parser then
builds the board. The operations go to python-chess (``Board.from_epd``) first; when it
refuses them they are read leniently, so that the suites of common collections read in full:

* unquoted string operands (``bm Qc7; id  sbd.001``, as in the SBD and LCT II files);
* a FEN's halfmove and fullmove counters before the operations (``... w KQkq - 0 1 ; bm Qb3``,
  ``... - 2 3; bm Bb5``);
* operations without semicolons (``... w - - 0 1 bm Rc8+ dm 26``), each known opcode
  starting a new one;
* moves in SAN or UCI with annotations (``Qh8!``, ``Qh8 +``, ``Nf6+?``), a move list broken by a
  stray semicolon (``bm Bxg2; Bxh2 +``);
* CRLF line ends, NUL or Ctrl-Z bytes, a byte-order mark, tabs, trailing blanks; blank lines and
  comment lines (``#``, ``%``, ``;``, ``//``) are skipped.

Known opcodes are read (``bm am`` moves, ``pm sm`` one move, ``pv`` a line; ``dm acd acn acs ce
hmvc fmvn`` and the perft counts ``D1``... integers; ``id c0``-``c9`` text); what cannot be used
(an unknown opcode, a move that is not legal, a malformed number) is left out and counted, so the
caller can report it once per file (``EpdReader.ignored``). A line is skipped only when its board
fields are malformed or its board is not a position a search can start from, with the reason.
``read_epd`` and ``read_epd_file`` read a whole source and word what there is to report about it.
"""

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import chess

from pruner.engine.position import unplayable

MOVE_OPCODES = frozenset(["bm", "am"])
"""Operands are alternative moves from the position."""
SINGLE_MOVE_OPCODES = frozenset(["pm", "sm"])
"""The operand is one move (python-chess gives a ``Move``, not a list)."""
LINE_OPCODES = frozenset(["pv"])
"""Operands are a sequence of moves (a variation)."""
INT_OPCODES = frozenset(["dm", "acd", "acn", "acs", "ce", "hmvc", "fmvn"])
"""Operands are one integer."""
TEXT_OPCODES = frozenset(["id"] + ["c%d" % i for i in range(10)])
"""Operands are text (quoted or not)."""

_PERFT_OPCODE = re.compile(r"D[1-9][0-9]?\Z")
PLACEMENT = re.compile(r"[1-8pnbrqkPNBRQK]+(/[1-8pnbrqkPNBRQK]+){7}\Z")
"""A FEN's piece placement: eight ranks of pieces and empty-square counts."""
_CASTLING = re.compile(r"(-|[KQkqA-Ha-h]{1,4})\Z")
_EP = re.compile(r"(-|[a-h][36])\Z")
_COUNTER = re.compile(r"[0-9]{1,9}\Z")
_INTEGER = re.compile(r"[+-]?[0-9]{1,9}\Z")
_FIELD = re.compile(r"\s*([^\s;]+)")
"""One board field: a word, ended by a blank or a semicolon (``... 0 1; bm Bb5``)."""
FEN_FIELD_NAMES = ("piece placement", "side to move", "castling field", "en passant field",
                   "halfmove clock", "fullmove number")
"""The fields of a FEN, in order (an EPD line has the first four)."""
_TOKEN = re.compile(r'"[^"]*"?|;|[^\s;"]+')
_ANNOTATION = re.compile(r"[!?+#]+\Z")
_MOVE_WORD = re.compile(r"([NBRQK]?[a-h]?[1-8]?[x:-]?[a-h][1-8](=?[NBRQnbrq])?|[a-h][1-8][a-h][1-8][nbrq]?"
                        r"|[O0]-[O0](-[O0])?)?[!?+#]*\Z")
"""A SAN or UCI move, possibly annotated, or an annotation alone (``+`` after a blank)."""
_C_FILE_PAWN_MOVE = re.compile(r"c[1-8]\Z")
"""Both a comment opcode (``c1``) and a pawn move (``c6``)."""
_JUNK = "\x00\x1a\ufeff"
COMMENT_PREFIXES = ("#", "%", ";", "//")
"""A line starting with one of these (after blanks) is a comment."""
REPEATS_SHOWN = 5
"""Warnings of one kind about one input worded in full; the rest are counted in one line."""


class Repeats:
    """Warnings about one input, by kind: the first ``shown`` of a kind are worded, the rest
    only counted, so that a hostile file (10,000 unknown opcodes) cannot flood stderr."""

    def __init__(self, shown: int = REPEATS_SHOWN) -> None:
        self.shown = shown
        self._counts: Dict[str, int] = {}

    def admit(self, kind: str) -> bool:
        """Count one more warning of ``kind`` (a plural noun: ``"unknown opcodes"``); True while
        it is still to be worded."""
        count = self._counts.get(kind, 0) + 1
        self._counts[kind] = count
        return count <= self.shown

    def tail(self) -> List[str]:
        """One line per kind with warnings left unworded: ``... and 9,995 more unknown opcodes``."""
        return ["... and {:,} more {}".format(count - self.shown, kind)
                for kind, count in self._counts.items() if count > self.shown]


@dataclass
class EpdRecord:
    """One position read from a line."""

    number: int
    """1-based line number in its source."""
    board: chess.Board
    """The position (halfmove/fullmove counters from the line, its ``hmvc``/``fmvn``, or 0 and 1)."""
    ops: Dict[str, Any] = field(default_factory=dict)
    """Operations as python-chess gives them: ``bm``/``am``/``pv`` lists of moves, ``pm``/``sm`` a
    move, integers, text."""

    @property
    def id(self) -> Optional[str]:
        """The ``id`` operation, if any."""
        value = self.ops.get("id")
        return value if isinstance(value, str) else None


@dataclass
class SkippedLine:
    """A line that holds no usable position, and why."""

    number: int
    reason: str


def clean_line(raw: str) -> str:
    """The text of a line without line-end characters, NUL/Ctrl-Z bytes, byte-order marks and
    surrounding blanks."""
    for junk in _JUNK:
        if junk in raw:
            raw = raw.replace(junk, "")
    return raw.strip()


def is_comment(text: str) -> bool:
    """True for a blank line or a comment line."""
    return not text or text.startswith(COMMENT_PREFIXES)


class EpdReader:
    """Reads the lines of one source; ``ignored`` then holds what was left out, by kind.

    ``chess960``: read castling rights as Chess960. Without it, Chess960 is still recognised
    when the castling rights only make sense for it (Shredder-FEN ``HAha``, X-FEN on other
    files).
    """

    def __init__(self, chess960: bool = False) -> None:
        self.chess960 = chess960
        self.ignored: Dict[str, List[int]] = {}
        """What the lenient reading left out, each kind with the lines it happened on."""
        self._categories: Dict[str, str] = {}
        """The category of each kind of ``ignored`` (``"unknown opcodes"``), for ``summary``."""

    def read(self, lines: Iterable[str], first_number: int = 1) -> Iterator[Union[EpdRecord, SkippedLine]]:
        """An ``EpdRecord`` or a ``SkippedLine`` for each line that is not blank or a comment."""
        for number, raw in enumerate(lines, first_number):
            text = clean_line(raw)
            if is_comment(text):
                continue
            try:
                board, ops = self.parse(text, number)
            except ValueError as exc:
                yield SkippedLine(number, str(exc))
            else:
                yield EpdRecord(number, board, ops)

    def parse(self, text: str, number: int = 0) -> Tuple[chess.Board, Dict[str, Any]]:
        """Board and operations of one line; ``ValueError`` (with the reason) when the board is
        unusable. ``startpos`` is the standard start position."""
        text = clean_line(text)
        head, found, moves = text.partition(" moves")
        if found and (not moves or moves[:1].isspace()):  # UCI: startpos|<fen> moves e2e4 ...
            board, ops = self.parse(head, number)
            return _play_uci(board, moves.split()), ops
        if text == "startpos":
            return chess.Board(chess960=self.chess960), {}
        board, ops = self._parse(text, self.chess960, number)
        if not self.chess960 and board.status() & chess.STATUS_BAD_CASTLING_RIGHTS:
            try:
                board960, ops960 = self._parse(text, True, None)
            except ValueError:
                pass
            else:
                if unplayable(board960) is None and not board960.status() & chess.STATUS_BAD_CASTLING_RIGHTS:
                    board, ops = board960, ops960
        problem = unplayable(board)
        if problem:
            raise ValueError("illegal position: %s" % problem)
        return board, ops

    def summary(self) -> List[str]:
        """One sentence per kind of thing left out: ``'2 lines: unknown opcode 'xyz' ignored
        (first at line 4)'``, at most ``REPEATS_SHOWN`` of a category (unknown opcodes, moves
        not legal, ...) and then ``'... and 9,995 more unknown opcodes ignored'``; empty when
        nothing was."""
        out = []
        repeats = Repeats()
        for kind, numbers in self.ignored.items():
            if repeats.admit(self._categories[kind]):
                count = "%d line%s" % (len(numbers), "" if len(numbers) == 1 else "s")
                out.append("%s: %s ignored (first at line %d)" % (count, kind, numbers[0]))
        return out + [line + " ignored" for line in repeats.tail()]

    def kinds(self) -> List[str]:
        """The kinds of things left out (``"unknown opcode 'tcsi'"``), at most ``REPEATS_SHOWN``
        of a category, then a count of the rest per category (``"... and 9,995 more unknown
        opcodes"``): what to report about one line, such as a command-line argument."""
        out = []
        repeats = Repeats()
        for kind in self.ignored:
            if repeats.admit(self._categories[kind]):
                out.append(kind)
        return out + repeats.tail()

    # -- one line ----------------------------------------------------------------------------

    def _note(self, number: Optional[int], category: str, kind: str) -> None:
        if number is not None:
            self.ignored.setdefault(kind, []).append(number)
            self._categories[kind] = category

    def _parse(self, text: str, chess960: bool, number: Optional[int]) -> Tuple[chess.Board, Dict[str, Any]]:
        fields, rest = _board_fields(text)
        try:
            board = chess.Board(" ".join(fields), chess960=chess960)
        except ValueError as exc:
            raise ValueError("bad position %r: %s" % (" ".join(fields), exc)) from None
        problem = unplayable(board)
        if problem:  # before the operations: nothing of a skipped line is counted as ignored
            raise ValueError("illegal position: %s" % problem)
        return board, self._operations(board, fields, rest, number)

    def _operations(self, board: chess.Board, fields: List[str], rest: str,
                    number: Optional[int]) -> Dict[str, Any]:
        """The operations after the board fields: python-chess's reading when it accepts them,
        else the lenient one; ``hmvc``/``fmvn`` set the board's counters."""
        ops: Dict[str, Any] = {}
        if rest.strip(" \t;"):
            try:
                _, ops = chess.Board.from_epd(" ".join(fields[:4]) + " " + rest, chess960=board.chess960)
            except ValueError:
                ops = self._lenient_operations(board, rest, number)
            else:
                if not all(_as_read(opcode, value) for opcode, value in ops.items()):
                    ops = self._lenient_operations(board, rest, number)
        if "hmvc" in ops:
            board.halfmove_clock = max(0, ops["hmvc"])
        if "fmvn" in ops:
            board.fullmove_number = max(1, ops["fmvn"])
        return ops

    def _lenient_operations(self, board: chess.Board, rest: str, number: Optional[int]) -> Dict[str, Any]:
        ops: Dict[str, Any] = {}
        for opcode, operands in _split_operations(_TOKEN.findall(rest)):
            if opcode in MOVE_OPCODES or opcode in LINE_OPCODES:
                moves = self._moves(board, opcode, operands, number)
                if moves:
                    ops.setdefault(opcode, []).extend(moves)
            elif opcode in SINGLE_MOVE_OPCODES:
                moves = self._moves(board, opcode, operands[:1], number)
                if moves:
                    ops[opcode] = moves[0]
            elif opcode in INT_OPCODES or _PERFT_OPCODE.match(opcode):
                words = [_unquote(w) for w in operands]
                if len(words) == 1 and _INTEGER.match(words[0]):
                    ops[opcode] = int(words[0])
                else:
                    self._note(number, "operands not integers", "%s operand %r (not an integer)" % (opcode, " ".join(words)))
            elif opcode in TEXT_OPCODES:
                ops[opcode] = " ".join(_unquote(word) for word in operands)
            elif opcode.startswith('"') or not opcode[:1].isalpha():
                self._note(number, "texts outside an operation", "text %r outside an operation" % " ".join([opcode] + operands))
            else:
                self._note(number, "unknown opcodes", "unknown opcode %r" % opcode)
        return ops

    def _moves(self, board: chess.Board, opcode: str, operands: List[str], number: Optional[int]) -> List[chess.Move]:
        """The legal moves among ``operands`` (SAN or UCI, annotations dropped); for ``pv`` a
        line, played one move after the other and cut at the first move that is not legal."""
        position = board.copy(stack=False)
        moves = []
        for word in operands:
            word = _ANNOTATION.sub("", _unquote(word))
            if not word:
                continue  # a lone "+" or "!" after a move
            move = _parse_move(position, word)
            if move is None:
                self._note(number, "moves not legal", "%s move %r (not legal here)" % (opcode, word))
                if opcode in LINE_OPCODES:
                    break
                continue
            moves.append(move)
            if opcode in LINE_OPCODES:
                position.push(move)
        return moves


@dataclass
class EpdSource:
    """The positions of one source (a file, standard input) and what to tell the user about it."""

    records: List[EpdRecord]
    """The usable positions, in line order."""
    skipped: int
    """Lines left out: no usable position, or refused by the caller's ``check``."""
    problems: List[str]
    """What to report, in line order: ``source:N: skipped: reason`` for each line left out, then
    ``source: ...`` for each kind of thing the lenient reading left out (``EpdReader.summary``)."""


def read_epd(lines: Iterable[str], source: str, chess960: bool = False,
             check: Optional[Callable[[EpdRecord], Optional[str]]] = None,
             skipped_as: str = "skipped") -> EpdSource:
    """The positions of ``lines`` read by an ``EpdReader``, ``source`` naming them in the problems.
    ``check`` may refuse a record by returning the reason; ``skipped_as`` words a line left out."""
    reader = EpdReader(chess960)
    records: List[EpdRecord] = []
    problems: List[str] = []
    for item in reader.read(lines):
        reason = item.reason if isinstance(item, SkippedLine) else check(item) if check else None
        if reason is None:
            records.append(item)
        else:
            problems.append("%s:%d: %s: %s" % (source, item.number, skipped_as, reason))
    left_out = len(problems)
    problems.extend("%s: %s" % (source, message) for message in reader.summary())
    return EpdSource(records, left_out, problems)


def read_epd_file(path: str, chess960: bool = False,
                  check: Optional[Callable[[EpdRecord], Optional[str]]] = None) -> EpdSource:
    """``read_epd`` of the file at ``path`` (UTF-8, with or without a byte-order mark, bad bytes
    replaced); OSError when it cannot be read."""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        return read_epd(handle, path, chess960, check)


def _play_uci(board: chess.Board, moves: List[str]) -> chess.Board:
    """``board`` after the UCI ``moves`` (the game history is kept for repetitions)."""
    for ply, text in enumerate(moves, 1):
        try:
            chess.Move.from_uci(text)
        except ValueError:
            raise ValueError("not a UCI move %r at ply %d" % (text, ply)) from None
        try:
            move = board.parse_uci(text)
        except ValueError:
            move = chess.Move.null()
        if not move:
            raise ValueError("illegal move %r at ply %d in %s" % (text, ply, board.fen()))
        board.push(move)
    return board


def _board_fields(text: str) -> Tuple[List[str], str]:
    """The board fields at the start of ``text`` and the text after them (the operations).

    Strict, so that no field is lost: the placement and the side to move must be there; castling
    and en passant must be well formed when present and must be there when operations follow;
    the words right after the en-passant field that start like a number are the halfmove clock
    and the fullmove number and must be counters. After the halfmove clock, only a counter, a
    semicolon or a known opcode may follow (``... - 0 x`` is a bad fullmove number, not an
    opcode ``x``). ValueError names the bad field."""
    fields: List[str] = []
    position = 0
    for index, name in enumerate(FEN_FIELD_NAMES):
        match = _FIELD.match(text, position)
        if not match:
            break
        word = match.group(1)
        if index == 0 and not PLACEMENT.match(word):
            raise ValueError("not a FEN or EPD position: %r" % _cut(text))
        if index == 1 and word not in ("w", "b"):
            # python-chess would assume White; Stockfish's 'position fen' assumes Black: refuse
            # rather than pick a side the user may not have meant.
            raise ValueError("no side to move after the board (w or b): %r" % _cut(text))
        if index >= 4 and word[:1] not in "0123456789+-":
            if index == 4 or _is_opcode(word):
                break  # the operations start: no counters, or the halfmove clock alone
        pattern = (_CASTLING, _EP, _COUNTER, _COUNTER)[index - 2] if index >= 2 else None
        if pattern is not None and not pattern.match(word):
            raise ValueError("bad %s %r" % (name, word))
        fields.append(word)
        position = match.end()
    if len(fields) < 2:
        if fields:
            raise ValueError("no side to move after the board (w or b): %r" % _cut(text))
        raise ValueError("not a FEN or EPD position: %r" % _cut(text))
    rest = text[position:]
    if len(fields) < 4 and rest.strip(" \t;"):
        raise ValueError("bad position: no %s before the operations" % FEN_FIELD_NAMES[len(fields)])
    return fields, rest


def _split_operations(tokens: List[str]) -> Iterator[Tuple[str, List[str]]]:
    """(opcode, operands) pairs. A semicolon ends an operation; a known opcode also starts a
    new one, so operations without semicolons read too. Two readings keep moves from being
    taken for opcodes or the reverse: in a move list, a pawn move on the c-file (``bm c6``) is
    a move unless a quoted text follows it (``c6 "comment"``); after a semicolon, a word that
    is no opcode continues a move list only if it looks like a move (``bm Bxg2; Bxh2 +``)."""
    opcode: Optional[str] = None
    operands: List[str] = []
    after_semicolon = False
    for index, token in enumerate(tokens):
        if token == ";":
            after_semicolon = True
            continue
        in_moves = opcode in MOVE_OPCODES or opcode in SINGLE_MOVE_OPCODES or opcode in LINE_OPCODES
        known = _is_opcode(token)
        if known and in_moves and not after_semicolon and _C_FILE_PAWN_MOVE.match(token):
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            known = following.startswith('"')
        continues = in_moves and after_semicolon and bool(_MOVE_WORD.match(token))
        if opcode is not None and (known or (after_semicolon and not continues)):
            yield opcode, operands
            opcode, operands = None, []
        if opcode is None:
            opcode = token
        else:
            operands.append(token)
        after_semicolon = False
    if opcode is not None:
        yield opcode, operands


KNOWN_OPCODES = MOVE_OPCODES | SINGLE_MOVE_OPCODES | LINE_OPCODES | INT_OPCODES | TEXT_OPCODES
"""Every opcode the reader knows (besides the perft counts ``D1``...)."""


def _is_opcode(token: str) -> bool:
    return token in KNOWN_OPCODES or bool(_PERFT_OPCODE.match(token))


def _as_read(opcode: str, value: Any) -> bool:
    """Whether python-chess's ``value`` for ``opcode`` is what the lenient reading would give
    (else that reading is used: it leaves out and counts an unknown opcode or a bad operand,
    and reads ``id 5`` as text, not as the integer python-chess makes of it)."""
    if opcode in TEXT_OPCODES:
        return isinstance(value, str)
    if opcode in INT_OPCODES or _PERFT_OPCODE.match(opcode):
        return type(value) is int
    if opcode in MOVE_OPCODES or opcode in LINE_OPCODES:
        return isinstance(value, list) and bool(value)
    if opcode in SINGLE_MOVE_OPCODES:
        return isinstance(value, chess.Move)
    return False  # an unknown opcode


def _parse_move(board: chess.Board, word: str) -> Optional[chess.Move]:
    for parse in (board.parse_san, board.parse_uci):
        try:
            move = parse(word)
        except ValueError:
            continue
        if move and board.is_legal(move):
            return move
    return None


def _unquote(word: str) -> str:
    return word[1:-1] if len(word) >= 2 and word[0] == word[-1] == '"' else word.strip('"')


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
