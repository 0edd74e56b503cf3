"""``match.py --json FILE``: the final numbers of a match as one JSON object.

Everything the last lines print, for scripts: the games and their W/D/L, the score, the Elo
estimate with its 95% interval (the final line's), fastchess's nElo and ratios, the LOS, the
pentanomial counts, the SPRT (LLR, bounds, decision), the faults and the exit status. A number
that has no finite value (fastchess's nElo of a one-sided sample, say) is ``null``.
"""

import json
import math
from typing import Any, Dict, Optional

from pruner.output_files import OutputError, unwritable, write_file

from .fastchess import tally_elo
from .runner import MatchConfig, MatchResult
from .stats import EloEstimate, los
from .tally import Tally

FORMAT = 1
"""Version of this layout; raised when a field changes meaning or goes away."""


def _number(value: Optional[float]) -> Optional[float]:
    return value if value is not None and math.isfinite(value) else None


def _estimate(estimate: Optional[EloEstimate], model: str) -> Optional[Dict[str, Any]]:
    if estimate is None:
        return None
    return {"value": _number(estimate.elo), "low": _number(estimate.low), "high": _number(estimate.high),
            "error": _number(estimate.error), "confidence": 0.95, "model": model, "adjusted": estimate.adjusted}


def tally_fields(tally: Tally) -> Dict[str, Any]:
    """The numbers of the JSON object that come from the results alone: W/D/L, score, the Elo
    estimates, LOS, pentanomial counts, fastchess's block (calibrate.py re-counts a resumed
    point's games through this)."""
    estimate, model = tally.best_elo()
    block = tally_elo(tally)
    return {
        "games": tally.games,
        "wins": tally.wins,
        "draws": tally.draws,
        "losses": tally.losses,
        "points": tally.points,
        "score": tally.score,
        "uncounted": tally.uncounted,
        "elo": _estimate(estimate, model),
        "elo_trinomial": _estimate(tally.elo(), "trinomial"),
        "elo_pentanomial": _estimate(tally.penta_elo(), "pentanomial"),
        "los": los(tally.wins, tally.losses),
        "pairs": tally.pairs,
        "pentanomial": list(tally.pentanomial),
        "pairs_wl": tally.pairs_wl,
        "pairs_dd": tally.pairs_dd,
        "fastchess": {"elo": _number(block.elo), "elo_error": _number(block.elo_error),
                      "nelo": _number(block.nelo), "nelo_error": _number(block.nelo_error),
                      "los": _number(block.los), "draw_ratio": _number(block.draw_ratio),
                      "pairs_ratio": _number(block.pairs_ratio), "wl_dd_ratio": _number(block.wl_dd_ratio)},
    }


def result_object(result: MatchResult, config: MatchConfig) -> Dict[str, Any]:
    """The JSON object of a finished (or failed) match."""
    tally = result.tally
    sprt = config.sprt
    counts = tally.fault_counts()
    obj: Dict[str, Any] = {"format": FORMAT, "engine1": result.names[0], "engine2": result.names[1]}
    obj.update(tally_fields(tally))
    obj["sprt"] = None if sprt is None else {
        "elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta, "model": sprt.model,
        "llr": sprt.llr(tally.pentanomial), "lower": sprt.lower, "upper": sprt.upper,
        "decision": result.verdict}
    obj["faults"] = dict(counts, total=len(tally.faults),
                         list=[{"game": fault.game, "engine": fault.engine, "name": fault.name, "kind": fault.kind,
                                "detail": fault.detail} for fault in tally.faults])
    obj["exit_status"] = result.exit_code
    return obj


def check_path(path: str) -> Optional[str]:
    """Why ``path`` cannot receive the JSON (None when it can), asked before the first game."""
    return unwritable(path)


def write(path: str, result: MatchResult, config: MatchConfig) -> None:
    """Write the object to ``path`` (``pruner.output_files``: a regular file through a
    temporary file, so a reader never sees half; a device or FIFO in place)."""
    text = json.dumps(result_object(result, config), indent=2, allow_nan=False) + "\n"
    try:
        write_file(path, text.encode("utf-8"))
    except OSError as exc:
        raise OutputError("--json %s" % path, exc) from None
