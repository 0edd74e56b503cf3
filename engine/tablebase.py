"""Syzygy endgame tablebases through python-chess: WDL inside the search, DTZ at the root.

WDL values are python-chess's: 2 win, 1 win spoiled by the fifty-move rule, 0 draw,
-1 loss saved by the fifty-move rule, -2 loss, from the side to move. Inside the search a
win scores ``TB_WIN - ply`` (below every mate score, above every evaluation); the
fifty-move-rule results score as draws. A WDL value holds for a fifty-move counter of zero,
so the tree probes only right after a capture or pawn move.

At the root the moves are ranked by DTZ with the game's fifty-move counter, as Stockfish
ranks them (``Tablebases::root_probe``) but stricter: a win ranks by its distance to zeroing
(the fastest first) from the first move on, not only once a position has repeated, so every
move of a won ending brings the mate, capture or pawn move nearer and the win is converted
within the fifty-move rule whatever the engine knows of the game's history (told only a FEN,
it cannot see repetitions). Draws rank alike, losses by how long they last (the search
chooses among equals).

Table files are opened through ``pruner.engine.datafile``: only regular files (a FIFO or a device
named like a table is never opened), each mapped once when the tables are loaded and kept
mapped (python-chess would re-open a file by its path later). A table file that cannot be read
(truncated, wrong size, not a Syzygy file, or garbage inside a valid header, which
python-chess meets only when it decodes a position), or one modified on disk after loading
(checked before every probe of it), is left out with a message in ``problems``, once; the
search goes on without it.
"""

import os
from typing import Dict, List, Optional, Sequence, Tuple

import chess
import chess.syzygy

from pruner.engine.datafile import MappedFile, UnusableFile, regular_file
from pruner.engine.types import TB_WIN

MAX_DTZ = 1 << 18
"""Rank of a certain win (Stockfish's ``MAX_DTZ``); ranks fall from it as the fifty-move
budget runs short."""

WIN_RANK = MAX_DTZ - 100
"""Ranks at or above this win (with the fifty-move rule); below it and above 0 the win is
spoiled by the rule (a "cursed win")."""

_PROBE_ERRORS = (KeyError, IndexError, ValueError, chess.syzygy.MissingTableError)
"""What a probe raises when a table it needs is not there: the position is simply not known."""


def _popcount(bb: int) -> int:
    return bin(bb).count("1")


def rank_score(rank: int) -> int:
    """The score shown for a root move of ``rank``: a tablebase win or loss, a draw, or for
    a win or loss the fifty-move rule spoils a few centipawns (1-50, more the nearer the
    real result), as Stockfish shows them."""
    if rank >= WIN_RANK:
        return TB_WIN - 1
    if rank > 0:
        return max(3, rank - (MAX_DTZ - 200)) // 2
    if rank == 0:
        return 0
    if rank > -WIN_RANK:
        return min(-3, rank + (MAX_DTZ - 200)) // 2
    return -TB_WIN + 1


def _dtz_rank(dtz: int, fifty: int) -> int:
    """The root rank of a move with ``dtz`` plies to zeroing (counted from the root, positive
    when the mover wins) at fifty-move counter ``fifty``. Losses rank as Stockfish ranks them;
    wins always by DTZ (Stockfish ranks every win within the fifty-move budget alike until a
    position repeats and lets its search find the mate: Pruner's shallower search shuffled,
    and without the game's moves it never saw the repetition; docs/gui.md)."""
    if dtz > 0:
        return MAX_DTZ - (dtz + fifty)
    if dtz < 0:
        return -MAX_DTZ if -dtz * 2 + fifty < 100 else -MAX_DTZ + (-dtz + fifty)
    return 0


_DTZ_OF_ZEROING = {2: 1, 1: 101, 0: 0, -1: -101, -2: -1}
"""DTZ of a move that zeroes the counter itself, by the WDL after it (Stockfish's
``dtz_before_zeroing``)."""


class _Tables(chess.syzygy.Tablebase):
    """python-chess's tables, knowing the two dead draws that need no file: a king and a bishop
    or a knight against a bare king. Complete Syzygy sets ship KBvK and KNvK; a partial set
    (tests/data/syzygy has none) lacks them, and python-chess looks them up for every position
    where a pawn can under-promote, so a KPvK root near promotion could not be ranked at all."""

    def probe_wdl_table(self, board: chess.Board) -> int:
        if _popcount(board.occupied) == 3 and board.occupied == board.kings | board.bishops | board.knights:
            return 0
        return super().probe_wdl_table(board)


class Tablebases:
    """Probe wrapper around ``chess.syzygy.Tablebase`` (or any object with its probe methods)."""

    def __init__(self, tables, max_pieces: int, problems: Sequence[str] = ()) -> None:
        self.tables = tables
        self.max_pieces = max_pieces
        """Largest piece count (kings included) of the loaded tables."""
        self.problems: List[str] = list(problems)
        """Messages about unreadable tables not yet shown to the user (see ``take_problems``)."""

    @classmethod
    def open(cls, path: str) -> "Tablebases":
        """Load every table in the ``os.pathsep``-separated directories of ``path`` (``:`` on
        Unix, ``;`` on Windows). Each file is opened once: one that cannot be read is left
        out with a message in ``problems``. Raises ``OSError`` or ``ValueError`` when no
        table can be used."""
        tables = _Tables(max_fds=None)  # never closed and re-opened by path
        loaded = 0
        problems: List[str] = []
        for directory in filter(None, path.split(os.pathsep)):
            loaded += _add_directory(tables, directory, problems)
        problems += _drop_unreadable(tables)
        names = list(tables.wdl)
        if not loaded or not names:
            reason = "; ".join(problems) if problems else "no Syzygy tables found"
            raise ValueError("%s in %r" % (reason, path))
        return cls(tables, max(len(name) - 1 for name in names), problems)  # "KQvK" -> 3 pieces

    def close(self) -> None:
        """Release the table files (when the tables object has a ``close``)."""
        close = getattr(self.tables, "close", None)
        if close is not None:
            close()

    def file_counts(self) -> Tuple[int, int]:
        """How many WDL (``.rtbw``) and DTZ (``.rtbz``) files are in use (a file serves its
        material both ways round, and is counted once)."""
        tables = self.tables
        if not isinstance(tables, chess.syzygy.Tablebase):
            return 0, 0
        return len({id(table) for table in tables.wdl.values()}), len({id(table) for table in tables.dtz.values()})

    def take_problems(self) -> List[str]:
        """The messages about unreadable tables found since the last call (each shown once)."""
        problems, self.problems = self.problems, []
        return problems

    def covers(self, board: chess.Board) -> bool:
        """True when ``board`` is small enough and has no castling rights (tables have none)."""
        return _popcount(board.occupied) <= self.max_pieces and not board.castling_rights

    def _unreadable(self, exc: BaseException) -> None:
        """A probe met a file that cannot be read: leave out the table it was decoding (or every
        table whose file no longer opens), say so once. When the failing table cannot be told,
        every table is left out: a probe that fails at every node would cost the whole search."""
        tables = self.tables
        if not isinstance(tables, chess.syzygy.Tablebase):
            self.problems.append("Syzygy tables left out: %s" % _describe(exc))
            self.max_pieces = 0
            return
        table = _failing_table(exc)
        if table is not None:
            _remove(tables, table.path)
            self.problems.append("Syzygy table %s left out: %s" % (os.path.basename(table.path), _describe(exc)))
            return
        found = _drop_unreadable(tables)
        if not found:
            self.max_pieces = 0
            found = ["Syzygy tables left out: %s" % _describe(exc)]
        self.problems.extend(found)

    def wdl(self, board: chess.Board) -> Optional[int]:
        """WDL of ``board`` from the side to move, or None if a table is missing or unreadable."""
        try:
            return self.tables.probe_wdl(board)
        except _PROBE_ERRORS as exc:
            if _failing_table(exc) is None:
                return None  # no table for this material: simply not known
            self._unreadable(exc)  # raised while decoding a table: its data is bad
            return None
        except Exception as exc:  # OSError, struct.error, RecursionError... from a spoiled file
            self._unreadable(exc)
            return None

    def wdl_score(self, wdl: int, ply: int) -> int:
        """Search score of a WDL value found ``ply`` half-moves from the root."""
        if wdl >= 2:
            return TB_WIN - ply
        if wdl <= -2:
            return -TB_WIN + ply
        return 0

    def rank_root_moves(self, board: chess.Board, moves: Sequence[chess.Move],
                        is_draw_after=None) -> Optional[List[Tuple[chess.Move, int]]]:
        """``(move, rank)`` for each of ``moves`` (legal in ``board``), best rank first, the
        order of ``moves`` kept among equal ranks; None when a table is missing.

        ``is_draw_after(move)``: True when the move draws at once by repetition or the
        fifty-move rule (the tables do not know the game).
        """
        fifty = board.halfmove_clock
        ranked = []
        for move in moves:
            zeroing = board.is_zeroing(move)
            if is_draw_after is not None and not zeroing and is_draw_after(move):
                ranked.append((move, 0))
                continue
            board.push(move)
            try:
                if board.is_checkmate():
                    dtz = 1
                elif zeroing:
                    dtz = _DTZ_OF_ZEROING[-self.tables.probe_wdl(board)]
                else:
                    dtz = -self.tables.probe_dtz(board)
                    dtz = dtz + 1 if dtz > 0 else (dtz - 1 if dtz < 0 else 0)
            except _PROBE_ERRORS as exc:
                if _failing_table(exc) is not None:
                    self._unreadable(exc)
                return None
            except Exception as exc:  # a spoiled file (see ``wdl``)
                self._unreadable(exc)
                return None
            finally:
                board.pop()
            ranked.append((move, _dtz_rank(dtz, fifty)))
        ranked.sort(key=lambda item: -item[1])  # stable: the caller's order among equals
        return ranked


class _MappedTable:
    """Mixin for python-chess's tables: the file is mapped through ``pruner.engine.datafile`` (a
    regular file, opened without blocking) and checked for changes on disk before every probe.
    python-chess calls ``init_mmap`` at the start of each probe of the table."""

    path: str
    data: Optional[object]
    mapped: Optional[MappedFile] = None

    def init_mmap(self) -> None:
        if self.data is not None and self.mapped is not None:
            self.mapped.check()  # raises FileChanged: the probe fails and the table is left out
            return
        self.mapped = MappedFile.open(self.path, accept_size=_check_table_size)
        self.data = self.mapped.data


class _WdlTable(_MappedTable, chess.syzygy.WdlTable):
    """A WDL table (``.rtbw``) read through ``_MappedTable``."""


class _DtzTable(_MappedTable, chess.syzygy.DtzTable):
    """A DTZ table (``.rtbz``) read through ``_MappedTable``."""


_TABLE_KINDS = {".rtbw": ("wdl", _WdlTable), ".rtbz": ("dtz", _DtzTable)}


def _check_table_size(size: int) -> None:
    if size % 64 != 16:  # python-chess's own check, made here since the mapping is made here
        raise UnusableFile("invalid size %d bytes (not a Syzygy file, or truncated)" % size)


def _add_directory(tables: chess.syzygy.Tablebase, directory: str, problems: List[str]) -> int:
    """Register the table files of ``directory`` (python-chess's ``add_directory`` with our
    table classes); a file named like a table that is not a regular file (a FIFO, a directory)
    is never opened and gets a message in ``problems``. The number of tables registered;
    raises ``OSError`` when ``directory`` cannot be listed."""
    directory = os.path.abspath(directory)
    found = 0
    for name in sorted(os.listdir(directory)):
        tablename, extension = os.path.splitext(name)
        kind = _TABLE_KINDS.get(extension)
        if kind is None or not chess.syzygy.is_tablename(tablename):
            continue
        path = os.path.join(directory, name)
        try:
            regular_file(path)
        except OSError as exc:
            problems.append("Syzygy table %s left out: %s" % (name, _describe(exc)))
            continue
        registry, table_class = getattr(tables, kind[0]), kind[1]
        table = table_class(path)
        old = registry.get(table.key)
        if old is not None:  # the same table in an earlier directory: the later one is used
            old.close()
        registry[table.key] = registry[table.mirrored_key] = table
        found += 1
    return found


def _drop_unreadable(tables: chess.syzygy.Tablebase) -> List[str]:
    """Map and read the header of every table of ``tables`` once and remove those that cannot be
    read (size and magic number checked, piece lists matched to the file name); one message
    per file. The tables kept stay mapped."""
    problems = []
    for registry, init in ((tables.wdl, "init_table_wdl"), (tables.dtz, "init_table_dtz")):
        seen: Dict[int, str] = {}
        for key, table in list(registry.items()):
            if id(table) in seen:
                if seen[id(table)]:
                    del registry[key]
                continue
            try:
                getattr(table, init)()
                _check_pieces(table)
                seen[id(table)] = ""
            except Exception as exc:  # OSError, ValueError, struct.error...: any bad file
                seen[id(table)] = str(exc)
                problems.append("Syzygy table %s left out: %s" % (os.path.basename(table.path), _describe(exc)))
                del registry[key]
                table.close()
    return problems


def _check_pieces(table: chess.syzygy.Table) -> None:
    """Raise ValueError unless every piece list in the table's header names the material of its
    file name. Garbage there is not only a wrong answer: python-chess's probe then looks for a
    piece the board does not have and never returns (an endless loop, not an exception)."""
    name = os.path.splitext(os.path.basename(table.path))[0]
    expected = {chess.syzygy.normalize_tablename(name), chess.syzygy.normalize_tablename(name, mirror=True)}
    lists = []
    for holder in [table] + list(getattr(table, "files", [])):
        pieces = getattr(holder, "pieces", None)
        lists.extend(pieces.values() if isinstance(pieces, dict) else [pieces] if pieces else [])
    if not lists:
        raise ValueError("no piece list in the header")
    for pieces in lists:
        if chess.syzygy.recalc_key(list(pieces)) not in expected:
            raise ValueError("header does not describe %s (corrupt file)" % name)


def _failing_table(exc: BaseException) -> Optional[chess.syzygy.Table]:
    """The python-chess table object that was decoding its file when ``exc`` was raised (the
    innermost frame of the traceback whose ``self`` is a table), or None when the error came
    from outside every table (a table missing for the material, say)."""
    found = None
    trace = exc.__traceback__
    while trace is not None:
        owner = trace.tb_frame.f_locals.get("self")
        if isinstance(owner, chess.syzygy.Table):
            found = owner
        trace = trace.tb_next
    return found


def _remove(tables: chess.syzygy.Tablebase, path: str) -> None:
    """Leave the table file ``path`` out of both registries (a file serves several keys)."""
    for registry in (tables.wdl, tables.dtz):
        for key, table in list(registry.items()):
            if table.path == path:
                del registry[key]
                table.close()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return "%s: %s" % (type(exc).__name__, text) if text and not isinstance(exc, OSError) else (text or type(exc).__name__)
