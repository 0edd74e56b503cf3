"""Reading PGN as files circulate it: which text is a game, and why a game cannot be used.

One reader for ``pruner analyse`` and the match openings. python-chess reads the games
(``chess.pgn.read_game``); it skips whatever it cannot read, so any text (notes, random bytes)
comes back as a "game", often with a move or two found in the junk. Here a game is text with a
tag pair (``[Event "..."]``), or movetext from its first line on (``1. e4 ...``, ``e4 e5 ...``,
``{comment} 1. e4``) in which python-chess found a move or an error. Other text is left out and counted
(``PgnReader.not_games``) for the caller to report once. A game that python-chess reports an
error for (an illegal move, a bad FEN tag), a variant other than chess and Chess960, or an
illegal start position comes with the reason (``PgnGame.problem``): a game is used whole or not
at all. Never prints: problems go to the caller.

Texts of any size are read as a stream, a line at a time: ``PgnReader.read`` takes a string or
a text handle (``PgnLines`` turns bytes into one: UTF-8, else Latin-1, line by line), keeps
only the game being read, and can leave games out by their headers without reading their
movetext (``PgnReader(want=...)``: python-chess's skip path, as ``chess.pgn.read_headers``).
What is held stays bounded whatever the text: a game longer than ``textlines.MAX_GAME_BYTES``,
or with a line the handle gives as an ``pruner.engine.textlines.LongLine`` (too long to hold), is
skipped with the reason, up to the next line that starts a game (a tag after a blank line).
"""

import io
import re
from dataclasses import dataclass
from typing import IO, Callable, Dict, Iterator, List, Optional, Union

import chess
import chess.pgn

from pruner.engine.position import unplayable
from pruner.engine import textlines
from pruner.engine.textlines import LongLine, megabytes

_MOVETEXT_START = re.compile(r"([0-9]+\s*\.|[NBRQK]?[a-h]?[1-8]?[x-]?[a-h][1-8]|[O0]-[O0]|\{)")
"""How a game without tags begins: a move number, a move, castling, or a comment."""
_NON_BLANK = re.compile(r"\S")


@dataclass
class PgnGame:
    """One game read from a PGN text."""

    number: int
    """1-based index among the games of the text (text that is not a game is not counted)."""
    line: int
    """1-based line of the game's first non-blank character."""
    text: str
    """The game's PGN text, as read."""
    game: Optional[chess.pgn.Game]
    """The game as python-chess reads it; None only when python-chess failed on it."""
    problem: Optional[str] = None
    """Why the game cannot be used, or None."""


class _GameBuilder(chess.pgn.GameBuilder):
    """``chess.pgn.GameBuilder`` that collects errors in ``game.errors`` without logging them,
    counts the tag pairs it reads, joins each node's comments once, and never lets an
    unmatched ``)`` remove the game's root.

    python-chess joins every comment to the ones its node already has (``visit_comment``:
    ``" ".join([node.comment, comment])``), which copies the whole text each time: a node with
    100,000 comments cost seconds, growing with their square. Here they are kept in a list per
    node and joined at the end of the game, to the same text (empty comments left out).

    After an illegal move python-chess skips to the end of the "variation" and then calls
    ``end_variation`` even when the illegal move was on the main line, which empties
    ``variation_stack``; the next move or NAG raises IndexError (``1. e4 ( e5 ) ) !``,
    ``1. e4 Nf3 ) e5``; python-chess PR #1204 makes the same fix upstream).

    ``want``: called with the headers of a game that has tag pairs once they are read; when it
    returns False the movetext is skipped unread (python-chess's fast path) and ``refused`` is
    set."""

    def __init__(self, want: Optional[Callable[[chess.pgn.Headers], bool]] = None) -> None:
        super().__init__()
        self.want = want
        self.refused = False

    def begin_game(self) -> None:
        super().begin_game()
        self.tags = 0
        self._comments: Dict[chess.pgn.GameNode, List[str]] = {}
        self._starting: List[str] = []

    def visit_comment(self, comment: str) -> None:
        # where python-chess puts it: the current node's comment, or the next move's starting one
        node = self.variation_stack[-1]
        if self.in_variation or (node.parent is None and node.is_end()):
            self._comments.setdefault(node, [node.comment]).append(comment)
        else:
            self._starting.append(comment)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.starting_comment = " ".join(filter(None, self._starting))
        self._starting = []
        super().visit_move(board, move)

    def end_game(self) -> None:
        for node, comments in self._comments.items():
            node.comment = " ".join(filter(None, comments))
        self._comments = {}
        super().end_game()

    def end_headers(self):  # type: ignore[override]
        if self.want is not None and self.tags and not self.want(self.game.headers):
            self.refused = True
            return chess.pgn.SKIP
        return super().end_headers()

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        super().visit_header(tagname, tagvalue)
        self.tags += 1

    def end_variation(self) -> None:
        if len(self.variation_stack) > 1:
            super().end_variation()

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def read_game(handle: io.TextIOBase) -> Optional[chess.pgn.Game]:
    """``chess.pgn.read_game`` without log output and without python-chess's IndexError on an
    unmatched ``)``; errors end up in ``game.errors``."""
    return chess.pgn.read_game(handle, Visitor=_GameBuilder)


def decode(data: bytes) -> str:
    """The text of a PGN file: UTF-8 (a byte-order mark dropped), else Latin-1, the encoding
    the PGN standard prescribes and older files use."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def decode_line(data: bytes) -> str:
    """One line of a PGN stream: UTF-8, else Latin-1 (``decode`` for a line at a time)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_pgn_file(path: str) -> str:
    """The text of the PGN file at ``path`` (see ``decode``); OSError when it cannot be read."""
    with open(path, "rb") as handle:
        return decode(handle.read())


class PgnLines:
    """A text handle (``readline``) over a binary stream of PGN, for ``PgnReader.read``: each
    line decoded on its own by ``decode_line`` (a stream cannot be decoded whole first), a
    byte-order mark at the start dropped. A file in one encoding reads as ``decode`` reads it."""

    def __init__(self, binary: IO[bytes]) -> None:
        self._readline = binary.readline
        self._first = True

    def readline(self) -> Union[str, LongLine]:
        data = self._readline()
        if isinstance(data, LongLine):
            return data
        if self._first:
            self._first = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
        return decode_line(data)


class _TooLong(Exception):
    """The game being read is too long to hold (``_Recorder``): ``reason``, and ``line``, the
    number of the line too long to hold within the game's lines read (None: the game as a
    whole)."""

    def __init__(self, reason: str, line: Optional[int] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class _Recorder:
    """The text handle python-chess reads from (it only calls ``readline``), keeping the
    lines of the game being read, at most ``max_bytes`` of them (``textlines.MAX_GAME_BYTES``):
    a longer game, or a line too long to hold (``LongLine``), raises ``_TooLong`` with the
    reason."""

    def __init__(self, handle: IO[str], max_bytes: Optional[int] = None) -> None:
        self._readline = handle.readline
        self.max_bytes = textlines.MAX_GAME_BYTES if max_bytes is None else max_bytes
        self.lines: List[str] = []
        self._held = 0
        self._back: List[str] = []
        self._pieces: List[str] = []
        """The rest of a long line given to python-chess in pieces, last first."""
        self.error: Optional[BaseException] = None
        """What reading the handle raised (not python-chess's failure: the caller's)."""
        self.ended = False
        """The handle ended for good (a line with no end: nothing more is read)."""

    def raw_line(self) -> Union[str, LongLine]:
        """The next line of the handle, unrecorded (a line put back first)."""
        if self._back:
            return self._back.pop()
        if self.ended:
            return ""
        try:
            line = self._readline()
        except BaseException as exc:
            self.error = exc
            raise
        if isinstance(line, LongLine) and not line.ended:
            self.ended = True
        return line

    def readline(self) -> str:
        """The next line for python-chess: a line of the handle, or a piece of a long one
        (``_pieces``); the handle's lines are recorded whole."""
        if self._pieces:
            return self._pieces.pop()
        line = self.raw_line()
        if isinstance(line, LongLine):
            self.lines.append("")  # a line all the same: the lines after it keep their numbers
            raise _TooLong(line.reason(), len(self.lines))
        if line:
            self.lines.append(line)
            self._held += len(line)
            if self._held > self.max_bytes:
                raise _TooLong("the game is longer than %s" % megabytes(self.max_bytes))
            pieces = _pieces(line)
            if len(pieces) > 1:
                self._pieces = pieces[:0:-1]
                return pieces[0]
        return line

    def put_back(self, line: str) -> None:
        """``line`` is read again next (it starts the next game)."""
        self._back.append(line)

    def take(self) -> List[str]:
        """The lines read since the last ``take``."""
        lines, self.lines, self._held, self._pieces = self.lines, [], 0, []
        return lines


class PgnReader:
    """Reads the games of one PGN text or stream; ``not_games`` then holds the lines where text
    that is not a game began.

    ``want``: called once per game, in order, with its headers; a game it refuses is numbered
    but not yielded, and when it has tag pairs its movetext is skipped unread (its errors are
    then not known). A game without tags is read whole first, to tell it from text that is
    not a game."""

    def __init__(self, want: Optional[Callable[[chess.pgn.Headers], bool]] = None) -> None:
        self.not_games: List[int] = []
        """1-based first lines of the blocks of text that are not games, in order."""
        self.want = want
        self.games = 0
        """Games found so far, those ``want`` refused included."""

    def read(self, source: Union[str, IO[str]]) -> Iterator[PgnGame]:
        """A ``PgnGame`` for each game of ``source`` (a string, or a text handle read line by
        line: only the current game is kept), in order. What the handle raises is raised."""
        # newline=None: a text's lines may end in CR, LF or CRLF, as in a file python-chess reads
        handle = _Recorder(io.StringIO(source, newline=None) if isinstance(source, str) else source)
        line = 1  # line number of the next line to read
        while True:
            builder = _GameBuilder(self.want)
            failure = None
            try:
                game = chess.pgn.read_game(handle, Visitor=lambda: builder)
            except _TooLong as exc:
                lines = handle.take()
                first = next((index for index, text in enumerate(lines) if _NON_BLANK.search(text)), 0)
                skipped = _skip_to_next_game(handle)
                self.games += 1
                what = "line %d " % (line + exc.line - 1) if exc.line is not None else ""
                yield PgnGame(self.games, line + first, "", None, "%s%s%s" % (
                    what, exc.reason, "" if handle.ended else "; read past up to the next game"))
                line += len(lines) + skipped
                if handle.ended:
                    return
                continue
            except Exception as exc:  # python-chess failing on input it did not foresee
                if exc is handle.error:
                    raise  # the stream failed (a damaged compressed file): the caller's to report
                game, failure = None, "python-chess cannot read it (%s: %s); the rest of the text is not read" % (
                    type(exc).__name__, exc)
            else:
                if game is None:
                    return
            lines = handle.take()
            first = next((index for index, text in enumerate(lines) if _NON_BLANK.search(text)), 0)
            start, line = line + first, line + len(lines)
            chunk = "".join(lines)
            if failure is not None:
                self.games += 1
                yield PgnGame(self.games, start, chunk, None, failure)
                return
            if builder.refused:
                self.games += 1
                continue
            if not builder.tags and not (_starts_with_movetext(chunk) and (game.variations or game.errors)):
                self.not_games.append(start)  # notes, random bytes: junk python-chess read around
                continue
            self.games += 1
            if not builder.tags and self.want is not None and not self.want(game.headers):
                continue
            yield PgnGame(self.games, start, chunk, game, _problem(game))

    def summary(self) -> List[str]:
        """``['2 blocks of text that are not games ignored (first at line 4)']``, or empty."""
        if not self.not_games:
            return []
        what = "1 block of text that is not a game" if len(self.not_games) == 1 else \
            "%d blocks of text that are not games" % len(self.not_games)
        return ["%s ignored (first at line %d)" % (what, self.not_games[0])]


PIECE_CHARS = 1024
"""A line longer than this goes to python-chess in pieces of about this size (``_pieces``)."""
_COMMENT_MARKS = re.compile(r"[{};]")


def _pieces(line: str) -> List[str]:
    """``line`` cut after comments (``{...}``) into pieces of at least ``PIECE_CHARS`` that
    python-chess reads as it reads the line whole.

    After each comment python-chess goes on with a copy of the rest of the line, so a line of
    100,000 comments took it 20 s, growing with the square of its length; it reads no faster
    than the pieces it is given. A piece ends right after a comment's ``}``, which no other
    token contains; the next piece is not blank (a blank line ends a game) and starts with no
    ``%`` (a line that does is an escape, skipped). Tag lines (``[``) and lines python-chess
    skips whole (``%``, ``;``) are not cut, nor anything after a ``;`` comment (it runs to the
    end of the line). Whether the line starts inside a comment or not, a ``}`` ends any
    comment, so a cut after one is always safe."""
    if len(line) <= PIECE_CHARS or line[0] in "[%;":
        return [line]
    last = len(line.rstrip())
    pieces = []
    start = 0
    in_comment = False
    for match in _COMMENT_MARKS.finditer(line):
        mark = match.group()
        if mark == "}":
            end = match.end() + 1  # the blank after it too: python-chess stops at a line that ends in "}"
            if end - start >= PIECE_CHARS and end < last and line[end - 1] in " \t" and line[end] != "%":
                pieces.append(line[start:end])
                start = end
            in_comment = False
        elif mark == "{":
            in_comment = True
        elif not in_comment:  # a ";" comment: the rest of the line is one
            break
    pieces.append(line[start:])
    return pieces


def _skip_to_next_game(handle: _Recorder) -> int:
    """Read past the rest of a game too long to hold, up to a tag line after a blank line
    (put back, to start the next game); the number of lines read past."""
    count = 0
    blank = False
    while True:
        line = handle.raw_line()
        if not line:
            return count
        if isinstance(line, str) and blank and line.lstrip(" \t\ufeff").startswith("["):
            handle.put_back(line)
            return count
        count += 1
        blank = isinstance(line, str) and not line.strip()


def _starts_with_movetext(text: str) -> bool:
    """Whether the first line of ``text`` that is not blank, a comment (``%``, ``;``) or a tag
    line begins with movetext."""
    for raw in text.split("\n"):
        stripped = raw.strip().lstrip("\ufeff")
        if stripped and stripped[0] not in "%;[":
            return bool(_MOVETEXT_START.match(stripped))
    return False


def _problem(game: chess.pgn.Game) -> Optional[str]:
    """Why ``game`` cannot be used (its first PGN error, a variant, an illegal start), or None."""
    if game.errors:
        return str(game.errors[0])
    board = game.board()
    if type(board) is not chess.Board:
        return "variant %s is not supported" % board.uci_variant
    problem = unplayable(board)
    if problem:
        return "illegal start position: %s" % problem
    return None
