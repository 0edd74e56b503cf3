"""``pruner analyse --plot FILE.png``: the evaluation chart of each game drawn with matplotlib.

The same chart as the HTML report's (``pruner.analyse_app.review.model`` gives both their points,
range and marks): White's capped score per ply, one panel per game, judged moves marked.
matplotlib is imported only here and only when a plot is drawn; the figure is rendered
with the Agg canvas directly (no pyplot, no GUI backend, no global state).
"""

from typing import BinaryIO, List

from pruner.analyse_app.review.model import (
    CP_CAP, JUDGEMENT_COLOURS, JUDGEMENTS, GameReview, chart_limit, move_ticks)

FORMATS = ("png", "svg", "pdf")
"""File types ``--plot`` writes (by the file name's suffix)."""

MAX_PANELS = 50
"""At most this many games in one picture (the first ones); the HTML report has them all."""


def plot_games(reviews: List[GameReview], stream: BinaryIO, fmt: str = "png") -> None:
    """Draw one evaluation panel per game (stacked) and save the figure to ``stream``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure


    panels = max(1, len(reviews))
    figure = Figure(figsize=(10, 2.9 * panels + 0.3), dpi=110)
    FigureCanvasAgg(figure)
    axes_list = figure.subplots(panels, 1, squeeze=False)[:, 0]
    for axes, review in zip(axes_list, reviews):
        points = review.points()
        limit = chart_limit(points)
        plies = [ply for ply, _ in points]
        scores = [score / 100.0 for _, score in points]
        last_ply = max([len(review.plies)] + plies)
        axes.axhspan(0, limit / 100.0, color="#ffffff", zorder=0)
        axes.axhspan(-limit / 100.0, 0, color="#e9e9e6", zorder=0)
        axes.fill_between(plies, scores, 0, color="#5b7fa6", alpha=0.28, linewidth=0, zorder=1)
        axes.plot(plies, scores, color="#2d4f77", linewidth=1.6, zorder=2)
        axes.axhline(0, color="#888888", linewidth=0.9, zorder=1)
        for name in JUDGEMENTS:
            marks = [(ply, score / 100.0) for ply, score, view in review.marks() if view.judgement == name]
            if marks:
                axes.scatter([ply for ply, _ in marks], [score for _, score in marks], s=34, zorder=3,
                             color=JUDGEMENT_COLOURS[name], edgecolors="white", linewidths=0.8,
                             label="%s (%d)" % (name, len(marks)))
        axes.set_xlim(0, max(1, last_ply))
        axes.set_ylim(-limit / 100.0, limit / 100.0)
        ticks = move_ticks(review.start, last_ply)
        axes.set_xticks([ply for ply, _ in ticks])
        axes.set_xticklabels([str(move) for _, move in ticks])
        axes.set_xlabel("move")
        axes.set_ylabel("White's score (pawns)")
        axes.grid(True, color="#d0d0d0", linewidth=0.5)
        result = review.headers.get("Result", "")
        axes.set_title("%s  %s" % (review.title, result), fontsize=11, loc="left")
        axes.set_title(review.limits, fontsize=8, loc="right", color="#666666")
        if review.marks():
            axes.legend(loc="upper left", fontsize=8, framealpha=0.85)
    figure.text(0.995, 0.005, "scores capped at ±%d pawns; mates on the edge" % (CP_CAP // 100),
                ha="right", va="bottom", fontsize=7, color="#777777")
    figure.tight_layout()
    figure.savefig(stream, format=fmt)
