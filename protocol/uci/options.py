"""UCI options: declarations, value validation, defaults and the ``option`` lines of ``uci``.

Adding an option is one declaration in ``declared_options()``: its UCI type, default and
range, and (when it configures the searcher) an ``apply(searcher, value)`` hook. Options
without a hook are read by the loop when a search starts (``MultiPV``, ``UCI_Elo``) or only
inform the GUI (``Ponder``). An option naming a file (``BookFile``, ``SyzygyPath``, ``EvalFile``) also has
a ``load(value)`` hook: it opens the file at ``setoption`` (so a bad path is refused and the
old value stands), and the loaded object is what ``apply`` receives and
``Options.loaded(name)`` returns. A ``note(argument)`` hook returns a line the loop shows as
``info string`` when the option is set (how a value is taken, e.g. ``Threads`` beyond the
CPUs, or what a file option loaded: ``SyzygyPath``'s table count); it gets what ``apply``
gets. Examples of one-liners::

    Check("UCI_Chess960", False),
    Spin("Threads", 1, 1, 1024, apply=apply_threads, note=threads_note),
    String("SyzygyPath", "", load=open_tablebases, apply=..., note=tablebases_found),
    Combo("Style", "Normal", ["Solid", "Normal", "Risky"]),
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

from pruner.engine import strength
from pruner.engine.cpus import usable_cpus
from pruner.uci.wire import parse_int, quote

Apply = Callable[[Any, Any], None]
"""``apply(searcher, value)``: push a new value into the searcher."""

Load = Callable[[Any], Any]
"""``load(value)``: the object a value stands for (an open book, tablebases), None for an
empty value; raises ``OSError``/``ValueError`` when it cannot be loaded."""

PATH_MAX = 4096
"""Longest path a file option's error message repeats whole (Linux's ``PATH_MAX``)."""

Note = Callable[[Any], Optional[str]]
"""``note(argument)``: a line to show the user about a value just set (``info string``), or None;
``argument`` is the value, or for a file option the object it loaded (as ``apply`` gets it)."""


class OptionError(ValueError):
    """A ``setoption`` that names no option or gives an invalid value; the old value stands."""


class Option:
    """One declared option. Subclasses implement ``parse`` and ``describe`` for their UCI type."""

    kind = ""

    def __init__(self, name: str, default: Any, apply: Optional[Apply] = None,
                 apply_at_start: bool = True, load: Optional[Load] = None, note: Optional[Note] = None) -> None:
        self.name = name
        """Name as shown to the GUI; matched case-insensitively."""
        self.default = default
        """Value before any ``setoption``."""
        self.apply = apply
        """Hook that pushes the value into the searcher, or None."""
        self.apply_at_start = apply_at_start
        """Apply the current value when the searcher is created (False: the constructor takes it)."""
        self.load = load
        """Hook that opens what the value names, at ``setoption``; None for plain values.
        The default value is never loaded (file options default to empty)."""
        self.note = note
        """Hook that returns a line about a value just set (shown as ``info string``), or None."""

    def parse(self, text: Optional[str]) -> Any:
        """Validate the text after ``value`` (None when absent); raise ``OptionError``."""
        raise NotImplementedError

    def describe(self) -> str:
        """The ``option name ... type ...`` line sent after ``uci``."""
        raise NotImplementedError


class Spin(Option):
    """An integer in ``[minimum, maximum]``; out-of-range values are refused, not clamped."""

    kind = "spin"

    def __init__(self, name: str, default: int, minimum: int, maximum: int,
                 apply: Optional[Apply] = None, apply_at_start: bool = True, note: Optional[Note] = None) -> None:
        super().__init__(name, default, apply, apply_at_start, note=note)
        self.minimum = minimum
        self.maximum = maximum

    def parse(self, text: Optional[str]) -> int:
        if text is None or not text.strip():
            raise OptionError("option %s needs a value" % self.name)
        try:
            value = parse_int(text.strip())
        except ValueError:
            raise OptionError("option %s: not an integer: %s" % (self.name, quote(text))) from None
        if not self.minimum <= value <= self.maximum:
            raise OptionError("option %s: %d is out of range %d..%d"
                              % (self.name, value, self.minimum, self.maximum))
        return value

    def describe(self) -> str:
        return "option name %s type spin default %d min %d max %d" % (
            self.name, self.default, self.minimum, self.maximum)


class Check(Option):
    """A boolean, ``true`` or ``false`` (any case)."""

    kind = "check"

    def parse(self, text: Optional[str]) -> bool:
        word = (text or "").strip().lower()
        if word not in ("true", "false"):
            raise OptionError("option %s: expected true or false, got %s" % (self.name, quote(text or "")))
        return word == "true"

    def describe(self) -> str:
        return "option name %s type check default %s" % (self.name, "true" if self.default else "false")


class Button(Option):
    """An action without a value (``setoption name Clear Hash``); any value is ignored."""

    kind = "button"

    def __init__(self, name: str, apply: Optional[Apply] = None) -> None:
        super().__init__(name, None, apply, apply_at_start=False)

    def parse(self, text: Optional[str]) -> None:
        return None

    def describe(self) -> str:
        return "option name %s type button" % self.name


class String(Option):
    """Free text; ``<empty>`` (the UCI spelling of nothing) and a missing value mean ``""``."""

    kind = "string"

    def __init__(self, name: str, default: str, apply: Optional[Apply] = None,
                 apply_at_start: bool = True, load: Optional[Load] = None, note: Optional[Note] = None) -> None:
        super().__init__(name, default, apply, apply_at_start, load, note)

    def parse(self, text: Optional[str]) -> str:
        text = (text or "").strip()
        return "" if text == "<empty>" else text

    def describe(self) -> str:
        return "option name %s type string default %s" % (self.name, self.default or "<empty>")


class Combo(Option):
    """One of a fixed list of words (matched case-insensitively, stored as declared)."""

    kind = "combo"

    def __init__(self, name: str, default: str, choices: Sequence[str],
                 apply: Optional[Apply] = None, apply_at_start: bool = True) -> None:
        super().__init__(name, default, apply, apply_at_start)
        self.choices = list(choices)

    def parse(self, text: Optional[str]) -> str:
        wanted = (text or "").strip().lower()
        for choice in self.choices:
            if choice.lower() == wanted:
                return choice
        raise OptionError("option %s: %s is not one of %s" % (self.name, quote(text or ""), ", ".join(self.choices)))

    def describe(self) -> str:
        return "option name %s type combo default %s %s" % (
            self.name, self.default, " ".join("var " + choice for choice in self.choices))


def open_book(path: str) -> Any:
    """``BookFile``: the Polyglot book at ``path``, or None for an empty path."""
    if not path:
        return None
    from pruner.engine.book import OpeningBook
    return OpeningBook(path)


def open_tablebases(path: str) -> Any:
    """``SyzygyPath``: the Syzygy tables in the ``os.pathsep``-separated directories, or None."""
    if not path:
        return None
    from pruner.engine.tablebase import Tablebases
    return Tablebases.open(path)


def tablebases_found(tables: Any) -> Optional[str]:
    """``SyzygyPath``: how many table files were loaded, in Stockfish's words (since Stockfish 17:
    ``Found 510 WDL and 510 DTZ tablebase files (up to 6-man).``), or None for no tables."""
    counts = getattr(tables, "file_counts", None)
    if counts is None:
        return None
    wdl, dtz = counts()
    return "Found %d WDL and %d DTZ tablebase files (up to %d-man)." % (wdl, dtz, tables.max_pieces)


class EvalChoice(NamedTuple):
    """What ``EvalFile`` loaded: the name the searcher is given (``SearchParams.evalfile``: ""
    the shipped net, ``classical`` none, else the path) and the evaluation it names, for the
    line that says so and for ``eval``."""

    name: str
    evaluator: Any


def load_evalfile(value: str) -> EvalChoice:
    """``EvalFile``: the net file at ``value`` read now (again, if it was read before: a net
    trained anew under the same name is the new one), "" the shipped net, ``classical`` (any
    case) none. A file that is no usable net raises ``ValueError`` with the reason."""
    from pruner.engine import nnue
    from pruner.engine.evaluate import Evaluator
    name = "classical" if value.lower() == "classical" else value
    try:
        net = nnue.read_named(name)
    except nnue.NetError as exc:
        reason = str(exc)
        # The option's refusal names the file already: the reason alone after it.
        raise ValueError(reason[len(name) + 2:] if reason.startswith(name + ": ") else reason) from None
    return EvalChoice(name, Evaluator(net=net, evalfile=name))


def apply_evalfile(searcher: Any, choice: Optional[EvalChoice]) -> None:
    """``EvalFile``: the searcher evaluates with the net chosen (every Lazy SMP helper too). Never
    set (None), the searcher keeps the evaluation it was made with (the shipped net, or the one
    ``PRUNER_PARAMS`` names); a searcher from another factory without ``set_evalfile`` keeps its own."""
    set_evalfile = getattr(searcher, "set_evalfile", None)
    if choice is not None and set_evalfile is not None:
        set_evalfile(choice.name)


def evaluation_note(choice: EvalChoice) -> str:
    """``EvalFile``: which evaluation is now in use, in the words of the line ``uci`` shows
    (``Evaluator.describe``: ``NNUE evaluation using FILE sha256 ...`` or the classical one)."""
    return choice.evaluator.describe()


THREADS_MAX = 1024
"""``Threads`` maximum, as Stockfish declares it: the same on every machine, so that a
configuration written elsewhere (lichess-bot's default is 4) is accepted everywhere."""


def searcher_cap() -> int:
    """How many searcher processes ``Threads`` starts at most: one per CPU this process may run
    on (at least 2, so that ``Threads`` 2 always has a helper). Each searcher is a process with
    its own interpreter; more of them than CPUs only share the CPUs and slow the main search
    (docs/gui.md measures it)."""
    return max(2, usable_cpus())


def searchers_for(threads: int) -> int:
    """Searcher processes for a ``Threads`` value: the value, at most ``searcher_cap()``."""
    return min(threads, searcher_cap())


def apply_threads(searcher: Any, threads: int) -> None:
    """``Threads``: start or stop the searcher's helper processes (``searchers_for(threads)``
    searchers in all). A searcher from another factory (tests, embedding) that has no
    ``set_threads`` searches alone."""
    set_threads = getattr(searcher, "set_threads", None)
    if set_threads is not None:
        set_threads(searchers_for(threads))


def threads_note(threads: int) -> Optional[str]:
    """Say once, when ``Threads`` is set beyond the CPUs, how many searchers will run."""
    searchers = searchers_for(threads)
    if searchers == threads:
        return None
    helpers = searchers - 1
    return ("Threads %d: %d searcher processes (the main search and %d helper%s), one per usable CPU; "
            "more would only share the CPUs and slow the main search"
            % (threads, searchers, helpers, "" if helpers == 1 else "s"))


def declared_options() -> List[Option]:
    """Every option Pruner offers, in the order ``uci`` lists them. Declare only what works."""
    calibration = strength.UCI_ELO
    return [
        # The Searcher is constructed with the Hash size, so it is not re-applied at creation.
        Spin("Hash", 16, 1, 4096, apply=lambda searcher, mb: searcher.set_hash(mb), apply_at_start=False),
        Button("Clear Hash", apply=lambda searcher, _: searcher.clear_hash()),
        Spin("Threads", 1, 1, THREADS_MAX, apply=apply_threads, note=threads_note),
        Spin("Move Overhead", 10, 0, 5000, apply=lambda searcher, ms: setattr(searcher, "move_overhead_ms", ms)),
        Check("Ponder", False),
        Spin("MultiPV", 1, 1, 256),
        # 20 plays at full strength; 0-19 at calibrated UCI_Elo settings (pruner.engine.strength).
        Spin("Skill Level", strength.SKILL_LEVEL_MAX, 0, strength.SKILL_LEVEL_MAX),
        Check("UCI_AnalyseMode", False),
        Check("UCI_Chess960", False),
        Check("OwnBook", False),
        String("BookFile", "", load=open_book),
        String("SyzygyPath", "", load=open_tablebases,
               apply=lambda searcher, tables: setattr(searcher, "tablebases", tables), note=tablebases_found),
        # Stockfish's name: a net file of Pruner's format (docs/nnue.md), "" the shipped one, classical none.
        String("EvalFile", "", load=load_evalfile, apply=apply_evalfile, note=evaluation_note),
        Check("UCI_LimitStrength", False),
        Spin("UCI_Elo", calibration.default_elo, calibration.min_elo, calibration.max_elo),
        # A weakened move on a clock takes a human-like time (pruner.engine.timeman.human_time); match
        # runners switch it off (scripts/matchlib/engines.py) so calibration games stay fast.
        Check("Human Time", True),
        Check("UCI_ShowWDL", False),
    ]


class Options:
    """Current values of the declared options, keyed case-insensitively by name."""

    def __init__(self, declared: Optional[List[Option]] = None) -> None:
        self.declared = declared if declared is not None else declared_options()
        self._by_key: Dict[str, Option] = {option_key(o.name): o for o in self.declared}
        self._values: Dict[str, Any] = {option_key(o.name): o.default for o in self.declared}
        self._loaded: Dict[str, Any] = {}

    def lookup(self, name: str) -> Option:
        """The option called ``name`` (any case, any spacing); ``OptionError`` if there is none."""
        option = self._by_key.get(option_key(name))
        if option is None:
            raise OptionError("no such option: %s" % quote(name))
        return option

    def set(self, name: str, text: Optional[str]) -> Option:
        """Validate (and load) and store a value; on error nothing changes. Returns the option."""
        option = self.lookup(name)
        value = option.parse(text)
        key = option_key(option.name)
        if option.load is not None:
            try:
                self._loaded[key] = option.load(value)
            except (OSError, ValueError) as exc:
                # The whole path (up to PATH_MAX), so that the message names the file.
                raise OptionError("option %s: cannot load %s: %s"
                                  % (option.name, quote(value, PATH_MAX), exc)) from None
        if option.kind != "button":
            self._values[key] = value
        return option

    def __getitem__(self, name: str) -> Any:
        return self._values[option_key(self.lookup(name).name)]

    def loaded(self, name: str) -> Any:
        """The object loaded for an option with a ``load`` hook (None until it is set)."""
        return self._loaded.get(option_key(self.lookup(name).name))

    def argument(self, name: str) -> Any:
        """What the option's ``apply`` receives: the loaded object, or else the value."""
        option = self.lookup(name)
        return self.loaded(name) if option.load is not None else self[name]

    def uci_lines(self) -> List[str]:
        """The ``option`` lines for the reply to ``uci``."""
        return [option.describe() for option in self.declared]

    def summary(self) -> str:
        """``Name=value`` for every valued option (for debug output)."""
        return " ".join("%s=%s" % (o.name.replace(" ", "_"), self[o.name])
                        for o in self.declared if o.kind != "button")


def option_key(name: str) -> str:
    """Normalised option name: lower case, single spaces."""
    return " ".join(name.lower().split())
