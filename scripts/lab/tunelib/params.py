"""The evaluation's weights as one flat vector with a name per entry.

Each name is the Python expression that reads the weight from engine/weights.py
(``MG_TABLES[2][27]``, ``PASSED_EG[5]``, ``TEMPO``), so a vector goes back into the module's
tables by name (``tables``) and a diff can be read without a key. Weights that can never
count are left out: the king's material, the pawn tables' first and last ranks and the
passed-pawn bonus of ranks a pawn never stands on.

A *term* is a pair of weights (middlegame, endgame) that count the same feature; the
features of a position are counts per term (``pruner.lab.tunelib.features``), and the tempo bonus is
the one weight counted after the taper.
"""

from typing import Dict, List, Sequence, Tuple

from pruner.engine import eval_terms
from pruner.engine import weights as _weights

PIECES = "PNBRQK"
"""Piece letters by python-chess piece type - 1 (for group names and messages)."""

PAIRS = ("ISOLATED", "DOUBLED", "BISHOP_PAIR", "ROOK_OPEN_FILE", "ROOK_SEMI_OPEN_FILE") + eval_terms.NAMES
"""The (mg, eg) pairs of engine/weights.py, one term each (the candidate terms of
engine/eval_terms.py last)."""

GROUPS = {"material": ("MG_VALUE", "EG_VALUE"), "pst": ("MG_TABLES", "EG_TABLES"),
          "pawns": ("PASSED_MG", "PASSED_EG", "ISOLATED", "DOUBLED"),
          "pieces": ("BISHOP_PAIR", "ROOK_OPEN_FILE", "ROOK_SEMI_OPEN_FILE"), "tempo": ("TEMPO",),
          "candidates": eval_terms.NAMES,
          # The candidates by cost: the pawn-structure ones live in the search's pawn cache,
          # the others are computed at every evaluation (a third of the nodes a second with
          # all of them on: docs/tuning.md), so a fit can take the cheap ones alone.
          "candidate_pawns": eval_terms.NAMES[-eval_terms.PAWN_TERMS:],
          "candidate_pieces": eval_terms.NAMES[:-eval_terms.PAWN_TERMS]}
"""``fit --groups``: which weights each group holds (by table name)."""


def _build() -> Tuple[List[str], List[Tuple[int, int]], Dict[str, int]]:
    names: List[str] = []
    terms: List[Tuple[int, int]] = []
    term_of: Dict[str, int] = {}

    def term(key: str, mg: str, eg: str) -> None:
        term_of[key] = len(terms)
        terms.append((len(names), len(names) + 1))
        names.extend((mg, eg))

    for pt in range(1, 6):
        term("value%d" % pt, "MG_VALUE[%d]" % pt, "EG_VALUE[%d]" % pt)
    for pt in range(1, 7):
        for index in range(64):
            if pt == 1 and (index < 8 or index >= 56):
                continue  # no pawn stands on the first or the last rank
            term("pst%d_%d" % (pt, index), "MG_TABLES[%d][%d]" % (pt, index), "EG_TABLES[%d][%d]" % (pt, index))
    for rank in range(1, 7):
        term("passed%d" % rank, "PASSED_MG[%d]" % rank, "PASSED_EG[%d]" % rank)
    for pair in PAIRS:
        term(pair, "%s[0]" % pair, "%s[1]" % pair)
    names.append("TEMPO")
    return names, terms, term_of


NAMES, TERMS, TERM_OF = _build()
"""``NAMES[i]``: weight i's name; ``TERMS[t]``: the (mg, eg) weight indices of term t;
``TERM_OF[key]``: a term's index by its key (``value2``, ``pst3_27``, ``passed4``, ``ISOLATED``)."""
TEMPO_INDEX = len(NAMES) - 1
"""Index of ``TEMPO``: counted once, after the taper, from the side to move."""


def _table(module, table: str):
    """A table of a weights module; a candidate term's (mg, eg) as ``eval_terms.weights_of``
    reads it ((0, 0) when the module lacks the term: one written before engine/eval_terms.py)."""
    if table in eval_terms.NAMES:
        return eval_terms.weights_of(module)[eval_terms.NAMES.index(table)]
    return getattr(module, table)


def _read(module, name: str) -> int:
    """The value of a weight name (``MG_TABLES[2][27]``) in a weights module."""
    table, _, rest = name.partition("[")
    value = _table(module, table)
    for part in rest.rstrip("]").split("][") if rest else ():
        value = value[int(part)]
    return value


def current(module=_weights) -> List[int]:
    """The weight vector of a weights module (engine/weights.py by default)."""
    return [_read(module, name) for name in NAMES]


def group_indices(groups: str) -> List[int]:
    """Indices of the weights in ``groups`` ('all' or a comma list of ``GROUPS`` keys)."""
    if groups == "all":
        return list(range(len(NAMES)))
    tables = []
    for group in groups.split(","):
        if group not in GROUPS:
            raise ValueError("unknown group %r (known: all, %s)" % (group, ", ".join(GROUPS)))
        tables.extend(GROUPS[group])
    return [i for i, name in enumerate(NAMES) if name.partition("[")[0] in tables]


def tables(vector: Sequence[int], module=_weights) -> Dict[str, object]:
    """The tables of a weights module with ``vector``'s values put in (the rest as ``module`` has
    them): table name -> tuple, dict of tuples (piece tables) or int (``TEMPO``)."""
    out: Dict[str, object] = {}
    for table in ("MG_VALUE", "EG_VALUE", "PASSED_MG", "PASSED_EG") + PAIRS:
        out[table] = list(_table(module, table))
    for table in ("MG_TABLES", "EG_TABLES"):
        out[table] = {pt: list(values) for pt, values in getattr(module, table).items()}
    out["TEMPO"] = module.TEMPO
    for name, value in zip(NAMES, vector):
        table, _, rest = name.partition("[")
        if not rest:
            out[table] = int(value)
            continue
        parts = [int(part) for part in rest.rstrip("]").split("][")]
        target = out[table]
        for part in parts[:-1]:
            target = target[part]
        target[parts[-1]] = int(value)
    for table, value in out.items():
        if isinstance(value, list):
            out[table] = tuple(value)
        elif isinstance(value, dict):
            out[table] = {pt: tuple(values) for pt, values in value.items()}
    return out
