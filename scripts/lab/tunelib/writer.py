"""``tune.py write``: a weights module (engine/weights.py's shape) from a fitted vector.

``render`` is the one place that knows the module's layout: engine/weights.py itself is its
output for the current weights (a test checks the round trip), so a tuned module differs from
it only in numbers and its ``SOURCE`` line.
"""

import json
import sys
import textwrap
from typing import Dict, List, Optional, Sequence

from pruner.lab.tunelib import params
from pruner.engine import eval_terms

HEADER = '''"""The evaluation's weights, in centipawns: material, piece-square tables and positional terms.

engine/evaluate.py reads them; scripts/tune.py writes this module (``tune.py write``,
docs/tuning.md), so edit the numbers here or re-run the tuner, not the layout. Tables are
indexed by python-chess piece type (1 pawn ... 6 king); piece-square tables as PeSTO
publishes them: index 0 is a8, 63 is h1 (White's view, rank 8 first).
"""

'''

_PIECE_NAMES = ("", "pawn", "knight", "bishop", "rook", "queen", "king")

_DOCS = {
    "MG_VALUE": "Middlegame material by piece type (index 0 unused, the king counts 0).",
    "EG_VALUE": "Endgame material by piece type.",
    "MG_TABLES": "Middlegame piece-square bonus by piece type, PeSTO's square order (a8 first).",
    "EG_TABLES": "Endgame piece-square bonus by piece type.",
    "PASSED_MG": "Passed pawn bonus by relative rank (index 1 = second rank), middlegame.",
    "PASSED_EG": "Passed pawn bonus by relative rank, endgame (the pawn table already rewards advance).",
    "ISOLATED": "(mg, eg) per isolated pawn (no own pawn on an adjacent file).",
    "DOUBLED": "(mg, eg) per pawn beyond the first on a file.",
    "BISHOP_PAIR": "(mg, eg) for two bishops or more.",
    "ROOK_OPEN_FILE": "(mg, eg) per rook on a file without pawns.",
    "ROOK_SEMI_OPEN_FILE": "(mg, eg) per rook on a file with enemy pawns only.",
    "TEMPO": "Bonus for the side to move (it can act first); not tapered.",
}
_DOCS.update(eval_terms.DESCRIPTIONS)


def _tuple(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"


def _source(source: str) -> str:
    """``SOURCE = ...``, wrapped into pieces of at most 80 characters (breaking at spaces)."""
    pieces = textwrap.wrap(source, 80, drop_whitespace=False, break_long_words=False) or [""]
    quoted = [json.dumps(piece) for piece in pieces]  # double quotes always (repr picks either)
    if len(quoted) == 1:
        return "SOURCE = " + quoted[0]
    return "SOURCE = (" + "\n          ".join(quoted) + ")"


def render(tables: Dict[str, object], source: str) -> str:
    """The module's text for ``tables`` (as ``params.tables`` returns them); ``source`` says
    where the numbers come from (the module's ``SOURCE``)."""
    lines: List[str] = [HEADER.rstrip("\n"), ""]
    lines.append(_source(source))
    lines.append('"""Where these numbers come from."""')
    lines.append("")
    for name in ("MG_VALUE", "EG_VALUE"):
        lines += ["%s = %s" % (name, _tuple(tables[name])), '"""%s"""' % _DOCS[name], ""]
    for name in ("MG_TABLES", "EG_TABLES"):
        lines.append("%s = {" % name)
        for pt in range(1, 7):
            values = tables[name][pt]
            lines.append("    %d: (  # %s" % (pt, _PIECE_NAMES[pt]))
            for rank in range(8):
                row = ", ".join(str(v) for v in values[rank * 8:rank * 8 + 8])
                lines.append("        %s%s" % (row, "," if rank < 7 else "),"))
        lines += ["}", '"""%s"""' % _DOCS[name], ""]
    for name in ("PASSED_MG", "PASSED_EG") + params.PAIRS:
        lines += ["%s = %s" % (name, _tuple(tables[name])), '"""%s"""' % _DOCS[name], ""]
    lines += ["TEMPO = %d" % tables["TEMPO"], '"""%s"""' % _DOCS["TEMPO"]]
    return "\n".join(lines) + "\n"


def diff(old: Sequence[int], new: Sequence[int]) -> List[str]:
    """One line per changed weight: ``name: old -> new (+delta)``."""
    return ["%s: %d -> %d (%+d)" % (name, a, b, b - a)
            for name, a, b in zip(params.NAMES, old, new) if a != b]


def load(path: str) -> dict:
    """The JSON ``tune.py fit`` wrote (``names``, ``weights``, figures); its names must be ours."""
    with open(path) as handle:
        try:
            data = json.load(handle)
        except ValueError as error:
            raise ValueError("%s: not the JSON of tune.py fit (%s)" % (path, error)) from None
    if data.get("names") != params.NAMES:
        raise ValueError("%s: its weight names are not this checkout's (tunelib/params.py)" % path)
    return data


def source_line(data: dict) -> str:
    """The ``SOURCE`` of a tuned module: the fit's data and figures."""
    if data.get("method", "coordinate") == "gradient":
        how = "--method gradient --rate %g, weights of epoch %d of %d" % (
            data["rate"], data.get("best_pass", data["passes"]), data["passes"])
    else:
        how = "seed %d, weights of pass %d of %d" % (data["seed"], data.get("best_pass", data["passes"]),
                                                     data["passes"])
    if data.get("score_weight"):
        how += ", labels %g search score" % data["score_weight"]
    line = ("scripts/tune.py fit on %s (%d positions, K %.6f, %s): mean squared error %.6f -> %.6f"
            % (data["positions_file"], data["positions"], data["k"], how, data["error_before"], data["error_after"]))
    if data.get("holdout_before") is not None:
        line += ", held out (%d positions) %.6f -> %.6f" % (data["holdout_positions"], data["holdout_before"],
                                                           data["holdout_after"])
    return line


def main(path: str, output: Optional[str], show_diff: bool) -> int:
    """``tune.py write``: print or write the module (or the diff) for the fit in ``path``."""
    data = load(path)
    vector = [int(v) for v in data["weights"]]
    if show_diff:
        lines = diff(params.current(), vector)
        print("\n".join(lines) if lines else "no weight changed")
        print("%d of %d weights changed" % (len(lines), len(vector)), file=sys.stderr)
        return 0
    text = render(params.tables(vector), source_line(data))
    if output:
        with open(output, "w") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
