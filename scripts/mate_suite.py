#!/usr/bin/env python3
"""Make a mate suite: the positions of EPD files where a reference engine proves a short mate.

    python scripts/mate_suite.py tests/data/epd/wac.epd tests/data/epd/bk.epd \\
        --engine /usr/games/stockfish --depth 24 --max-mate 3 -o mates.epd
    python scripts/suite.py mates.epd --mate-depth --depth 1 --jobs 2

Each position the engine scores ``mate N`` (N <= ``--max-mate``, the side to move mating) is
written with ``dm N``, ``bm`` (the engine's first move) and its ``id``; ``suite.py
--mate-depth`` then searches each one to depth 2N+2 and counts it solved only with the exact
``score mate N``. Only the suite is new here: the positions are the input files', and the
reference engine is the judge of the mate distance.
"""

import os
import sys
from typing import List, Optional

import chess
import chess.engine

from pruner.engine.epd import read_epd_file
from pruner.arguments import ArgumentParser


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``mate_suite.py``: write the short mates found as a suite, and say how many were kept."""
    parser = ArgumentParser(prog="mate_suite.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("epd", nargs="+", help="EPD files to pick positions from")
    parser.add_argument("--engine", default="stockfish", metavar="CMD", help="reference engine (default: stockfish)")
    parser.add_argument("--depth", type=int, default=24, metavar="N", help="reference search depth (default: 24)")
    parser.add_argument("--max-mate", type=int, default=3, metavar="N", help="longest mate kept (default: 3)")
    parser.add_argument("-o", "--output", metavar="FILE", help="output EPD (default: stdout)")
    args = parser.parse_args(argv)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    kept = total = 0
    with chess.engine.SimpleEngine.popen_uci(args.engine.split()) as engine:
        for path in args.epd:
            for record in read_epd_file(path).records:
                board, ops, line_number = record.board, record.ops, record.number
                total += 1
                info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
                mate = info["score"].relative.mate()
                if mate is None or not 0 < mate <= args.max_mate or not info.get("pv"):
                    continue
                name = ops.get("id") or "%s:%d" % (os.path.basename(path), line_number)
                out.write(board.epd(bm=info["pv"][0], dm=mate, id=name) + "\n")
                out.flush()
                kept += 1
    if out is not sys.stdout:
        out.close()
    print("kept %d of %d positions (mate in 1-%d at depth %d)" % (kept, total, args.max_mate, args.depth),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    from pruner.lab.matchlib import cli
    cli.run(main)
