"""The game review page: one self-contained HTML file (inline CSS, SVG and script, no URL).

Per game: a header (players, event, result, the opening as lichess's data set names it
(``pruner.engine.openings``), engine and limits), each side's accuracy, average centipawn loss and
judgement counts, an interactive board with an evaluation bar next to the move list (the
board after the selected move with the engine's best move as an arrow, the judgement and the
engine's lines: ``interactive``), the evaluation chart (White's capped
score per ply, an inline SVG drawn here, mistakes marked, clickable), and a ``chess.svg``
board at each mistake or blunder with arrows for the move played (red) and the engine's move
(green), which also serve readers without script. Several games get a table of contents.
Everything shown comes from ``pruner.analyse_app.review.model``.
"""

import html
import json
import re
from typing import Iterator, List, Optional, Tuple

import chess
import chess.svg

from pruner import engine
from pruner.engine.openings import opening_at
from pruner.analyse_app.review.model import (
    CP_CAP, DIAGRAM_JUDGEMENTS, JUDGEMENT_COLOURS, JUDGEMENTS, NAG_SYMBOLS, GameReview, PlyView,
    PositionReview, Review, chart_limit, move_ticks)
from pruner.analyse_app.review import interactive

CHART_WIDTH, CHART_HEIGHT = 760, 230
CHART_MARGIN = (46, 12, 12, 26)
"""left, right, top, bottom margins of the chart's plot area inside its SVG."""

BOARD_SIZE = 224
"""Diagram size in pixels: four fit side by side on a wide page."""

PLURALS = {"inaccuracy": "Inaccuracies", "mistake": "Mistakes", "blunder": "Blunders"}

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #222; background: #f4f4f2; margin: 0; line-height: 1.45; }
/* overflow-wrap: a word longer than its line (a 100,000-letter name in a tag) wraps wherever it
   must, never making the page wider than a phone's screen (break-word, unlike anywhere, leaves
   the width boxes ask for as it is, so the layout of other pages does not move) */
main { max-width: 1100px; margin: 0 auto; padding: 10px 24px 48px; overflow-wrap: break-word; }
h1 { font-size: 1.6em; margin: 4px 0 2px; }
h2 { font-size: 1.3em; margin: 0 0 6px; }
h3 { font-size: 1.05em; margin: 18px 0 6px; }
.sub { color: #666; margin: 0 0 12px; }
.trust { color: #555; font-size: 0.92em; margin: -6px 0 10px; max-width: 60em; }
.trust summary { cursor: pointer; }
.trust p { margin: 4px 0 0 1.1em; }
.trust code { overflow-wrap: anywhere; background: #e9e9e6; padding: 0 3px; border-radius: 3px; }
section.game { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 16px 20px; margin: 18px 0; }
.top { display: flex; flex-wrap: wrap; gap: 8px 32px; align-items: flex-start; }
table.meta { border-collapse: collapse; font-size: 0.92em; max-width: 420px; }
table.meta td { overflow-wrap: anywhere; }
table.meta th { text-align: left; color: #666; font-weight: normal; padding: 1px 14px 1px 0; }
table.meta td { padding: 1px 0; }
table.stats { border-collapse: collapse; margin: 6px 0; font-size: 0.95em; }
table.stats th, table.stats td { border-bottom: 1px solid #e4e4e4; padding: 3px 12px; text-align: right; }
table.stats th { font-weight: normal; color: #666; }
table.stats th b { color: #222; display: inline-block; min-width: 5em; max-width: 9em; overflow-wrap: anywhere; }
table.stats th:first-child, table.stats td:first-child { text-align: left; }
.chart svg { width: 100%; height: auto; display: block; }
.moves { font-size: 0.95em; }
.moves .mv { display: inline-block; margin: 1px 6px 1px 0; white-space: nowrap; }
.moves .mv small { color: #666; margin-left: 3px; }
.moves .num { color: #666; }
.note { margin: 4px 0 6px 16px; padding: 3px 10px; border-left: 4px solid #ccc; background: #fafafa; }
.note .line { color: #444; }
/* text in the judgement's colour, darker than the chart's dots: readable (4.5:1) on white and hovered */
.inaccuracy { color: #2463a0; } .mistake { color: #8f6200; } .blunder { color: #c0392b; }
.note.inaccuracy { border-left-color: #3d8fd1; } .note.mistake { border-left-color: #e69f00; }
.note.blunder { border-left-color: #d64545; } .note span.text { color: #222; }
.mv.inaccuracy b, .mv.mistake b, .mv.blunder b { font-weight: 700; }
.diagrams { display: flex; flex-wrap: wrap; gap: 14px; }
figure { margin: 0; width: 224px; }
figure svg { width: 224px; height: 224px; display: block; }
figcaption { font-size: 0.88em; color: #333; margin-top: 4px; }
.legend { font-size: 0.85em; color: #555; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin: 0 4px 0 10px; }
.error { color: #b00; }
a { color: #2a5db0; text-decoration: none; }
table.meta a.to-board { white-space: nowrap; }
nav ol { margin: 4px 0; }
@media (max-width: 600px) {  /* a phone: the page's margins go to the board, which comes first */
  main { padding: 8px 8px 32px; }
  h1 { font-size: 1.35em; }
  section.game { padding: 10px; margin: 12px 0; }
  section.game[data-interactive] { display: flex; flex-direction: column; }
  section.game[data-interactive] > h2 { order: -2; }
  section.game[data-interactive] > .review { order: -1; margin-top: 4px; }
  .top { gap: 8px 16px; margin-top: 12px; }
  table.stats th, table.stats td { padding: 3px 8px; }
}
"""


def format_score(white_cp: Optional[int], white_mate: Optional[int]) -> str:
    """``+0.34``, ``#3``, ``#-2``; a checkmate on the board (mate 0) is ``#``."""
    if white_mate is not None:
        return "#" if white_mate == 0 else "#%d" % white_mate
    if white_cp is None:
        return ""
    return "%+.2f" % (white_cp / 100.0 + 0.0)


def numbered_line(board: chess.Board, sans: List[str]) -> str:
    """``14... Nc3 15. Be2 O-O`` for SAN moves played from ``board``."""
    parts = []
    number, turn = board.fullmove_number, board.turn
    for index, san in enumerate(sans):
        if turn == chess.WHITE:
            parts.append("%d. %s" % (number, san))
        elif index == 0:
            parts.append("%d... %s" % (number, san))
        else:
            parts.append(san)
        if turn == chess.BLACK:
            number += 1
        turn = not turn
    return " ".join(parts)


def esc(text: object) -> str:
    """``str(text)`` escaped for HTML text and attribute values."""
    return html.escape(str(text), quote=True)


def render_report(reviews: List[Review], title: str = "Game review", trust: Optional[Tuple[str, str]] = None,
                  stockfish: Optional[str] = None) -> str:
    """The whole HTML page for ``reviews`` (``page_chunks`` joined)."""
    return "".join(page_chunks(reviews, title, trust, stockfish))


def page_chunks(reviews: List[Review], title: str = "Game review", trust: Optional[Tuple[str, str]] = None,
                stockfish: Optional[str] = None) -> Iterator[str]:
    """The HTML page for ``reviews`` (in order) in pieces to write one after the other: a long
    game's page is tens of megabytes (a diagram per mistake), held whole twice over while it
    was joined and encoded. ``trust``: how far to trust the
    judgements of this budget, a one-line summary and the whole note (``trust.trust_summary``,
    ``trust.trust_note``), ``stockfish``: a command that reviews with Stockfish
    (``trust.stockfish_command``). Both go under the title, folded to one line so that the
    board stays in a desktop's first screen."""
    games = sum(1 for review in reviews if isinstance(review, GameReview))
    positions = len(reviews) - games
    counted = [_count(number, noun) for number, noun in ((games, "game"), (positions, "position")) if number]
    limits = reviews[0].limits if reviews else "Pruner %s" % engine.__version__
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title>" % esc(_page_title(reviews, title)),
             "<style>%s%s</style>" % (STYLE, interactive.STYLE), "</head>", "<body>", "<main>",
             "<h1>%s</h1>" % esc(title),
             '<p class="sub">%s analysed by %s.</p>' % (" and ".join(counted) or "Nothing", esc(limits))]
    if trust or stockfish:
        summary, note = trust or ("", "")
        parts.append('<details class="trust"><summary>How far to trust the judgements%s</summary>'
                     % (": " + esc(summary) if summary else ""))
        if note:
            parts.append("<p>%s</p>" % esc(note))
        if stockfish:
            parts.append("<p>Stockfish is installed here: for judgements nearer a deep engine's, "
                         "review with it: <code>%s</code></p>" % esc(stockfish))
        parts.append("</details>")
    if len(reviews) > 1:
        parts.append(_contents(reviews))
    if any(_interactive(review) for review in reviews):
        parts.append(interactive.piece_defs())
    yield "\n".join(parts) + "\n"
    for review in reviews:
        if isinstance(review, GameReview):
            yield from _game_chunks(review)
        else:
            yield _position_section(review)
        yield "\n"
    parts = ["</main>"]
    if any(_interactive(review) for review in reviews):
        parts.append("<script>%s</script>" % interactive.SCRIPT)
    parts += ["</body>", "</html>", ""]
    yield "\n".join(parts)


def _count(number: int, noun: str) -> str:
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def _page_title(reviews: List[Review], title: str) -> str:
    if len(reviews) == 1:
        return "%s: %s" % (title, reviews[0].title)
    return title


def _contents(reviews: List[Review]) -> str:
    items = []
    for review in reviews:
        extra = ""
        if isinstance(review, GameReview):
            details = [review.headers.get("Result"), review.headers.get("Event"), review.headers.get("Date")]
            extra = ", ".join(esc(item) for item in details if item)
        items.append('<li><a href="#%s">%s</a>%s</li>' % (
            review.anchor, esc(review.title), " <small>(%s)</small>" % extra if extra else ""))
    return "<nav><h3>Contents</h3><ol>%s</ol></nav>" % "".join(items)


# --- one game ---------------------------------------------------------------------------------

def _interactive(review: Review) -> bool:
    """Whether the review gets the interactive board (an analysed game)."""
    return isinstance(review, GameReview) and not review.error


def _game_chunks(review: GameReview) -> Iterator[str]:
    """A game's section in pieces (each diagram one)."""
    parts = ['<section class="game" id="%s"%s>' % (review.anchor, " data-interactive" if _interactive(review) else ""),
             "<h2>%d. %s <small>%s</small></h2>" % (review.index, esc(review.title),
                                                    esc(review.headers.get("Result", "")))]
    if review.error:
        parts.append(_meta_table(review))
        parts.append('<p class="error">Not analysed: %s</p>' % esc(review.error))
        parts.append("</section>")
        yield "\n".join(parts)
        return
    parts.append('<div class="top">%s%s</div>' % (_meta_table(review), _stats_table(review)))
    parts.append('<div class="review">%s<div class="side">%s%s</div></div>' % (
        _viewer(review), _INFO, _move_list(review)))
    parts.append('<h3>Evaluation</h3><div class="chart">%s</div>' % eval_chart_svg(review))
    parts.append(_legend())
    yield "\n".join(parts)
    diagrams = [view for view in review.plies if view.judgement in DIAGRAM_JUDGEMENTS]
    if diagrams:
        yield '\n<h3>Mistakes and blunders on the board</h3>\n<div class="diagrams">'
        for view in diagrams:
            yield _diagram(review, view)
        yield "</div>"
    yield '\n<script type="application/json" class="review-data">%s</script>' % _json_text(game_data(review))
    yield "\n</section>"


def _meta_table(review: GameReview) -> str:
    headers = review.headers
    rows: List[Tuple[str, str]] = []
    for key in ("Event", "Site", "Date", "Round"):
        if key in headers:
            rows.append((key, esc(headers[key])))
    white, black = headers.get("White", "?"), headers.get("Black", "?")
    for colour, name, elo in (("White", white, headers.get("WhiteElo")), ("Black", black, headers.get("BlackElo"))):
        rows.append((colour, esc("%s (%s)" % (name, elo) if elo else name)))
    if "Result" in headers:
        result = headers["Result"]
        if "Termination" in headers:
            result += " (%s)" % headers["Termination"]
        rows.append(("Result", esc(result)))
    rows += _opening_rows(review)
    if review.start.fen() != chess.STARTING_FEN:
        rows.append(("Start", esc(review.start.fen(shredder=review.start.chess960))))
    analysed = len(review.records)
    rows.append(("Analysis", esc("%s; %d position%s, %s nodes" % (
        review.limits, analysed, "" if analysed == 1 else "s", "{:,}".format(review.nodes)))))
    rows.append(("Source", esc(review.source)))
    body = "".join("<tr><th>%s</th><td>%s</td></tr>" % (esc(key), value) for key, value in rows)
    return '<table class="meta">%s</table>' % body


def _opening_rows(review: GameReview) -> List[Tuple[str, str]]:
    """The opening as lichess's data set names it (with a link to its position on the board),
    and the PGN's own ``ECO``/``Opening``/``Variation`` tags when they say something else."""
    headers = review.headers
    tagged = " ".join(headers[key] for key in ("ECO", "Opening") if key in headers)
    if "Variation" in headers:
        tagged += (", " if tagged else "") + headers["Variation"]
    rows = []
    if review.opening is not None:
        ply, opening = review.opening
        link = ""
        if ply:
            view = review.plies[ply - 1]
            link = ' <a class="to-board" href="#%s" data-ply="%d">after %s</a>' % (
                _move_id(review, view), ply, esc(view.label))
        rows.append(("Opening", '<span class="opening" data-eco="%s">%s</span>%s' % (
            esc(opening.eco), esc(opening.text), link)))
    if tagged and (review.opening is None or tagged != review.opening[1].text):
        rows.append(("Opening" if review.opening is None else "PGN opening", esc(tagged)))
    return rows


def _legend() -> str:
    items = "".join('<i style="background:%s"></i>%s' % (JUDGEMENT_COLOURS[name], name) for name in JUDGEMENTS)
    return ('<p class="legend">White\'s score in pawns, capped at ±%d; mates on the edge.%s</p>'
            % (CP_CAP // 100, items))


def _stats_table(review: GameReview) -> str:
    stats = review.stats()
    white, black = stats[chess.WHITE], stats[chess.BLACK]
    rows = ["<tr><th></th><th>White<br><b>%s</b></th><th>Black<br><b>%s</b></th></tr>" % (
        esc(review.headers.get("White", "?")), esc(review.headers.get("Black", "?")))]

    def acpl(side) -> str:
        """One side's average centipawn loss for the table (a dash without judged moves)."""
        return "–" if side.acpl is None else "%.0f" % side.acpl

    def accuracy(side) -> str:
        return "–" if side.accuracy is None else "%.0f%%" % side.accuracy

    rows.append('<tr class="accuracy"><td>Accuracy</td><td data-accuracy="%s">%s</td><td data-accuracy="%s">%s</td></tr>'
                % (_number(white.accuracy), accuracy(white), _number(black.accuracy), accuracy(black)))
    rows.append("<tr><td>Average centipawn loss</td><td>%s</td><td>%s</td></tr>" % (acpl(white), acpl(black)))
    for name in JUDGEMENTS:
        rows.append('<tr><td class="%s">%s (%s)</td><td>%d</td><td>%d</td></tr>' % (
            name, PLURALS[name], NAG_SYMBOLS[name], white.counts[name], black.counts[name]))
    rows.append("<tr><td>Moves judged</td><td>%d</td><td>%d</td></tr>" % (white.moves, black.moves))
    return '<table class="stats">%s</table>' % "".join(rows)


def _number(value: Optional[float]) -> str:
    return "" if value is None else "%.4f" % value


def _move_list(review: GameReview) -> str:
    parts = ['<div class="moves">']
    need_number = True
    for view in review.plies:
        record = view.record
        judgement = view.judgement
        board = view.board
        if board.turn == chess.WHITE:
            number = '<span class="num">%d.</span> ' % board.fullmove_number
        elif need_number:
            number = '<span class="num">%d...</span> ' % board.fullmove_number
        else:
            number = ""
        text = esc(view.san) + (NAG_SYMBOLS[judgement] if judgement else "")
        move = "<b>%s</b>" % text if judgement else text
        score = ""
        if record is not None:
            score = format_score(record.get("after_white_cp"), record.get("after_white_mate"))
        target = ' id="%s" data-after="%d"' % (_move_id(review, view), view.ply + 1)
        classes = "mv" + (" " + judgement if judgement else "")
        parts.append('<span class="%s"%s>%s%s%s</span>' % (
            classes, target, number, move, " <small>%s</small>" % esc(score) if score else ""))
        need_number = False
        if judgement:
            parts.append(_note(review, view))
            need_number = True
    result = review.headers.get("Result")
    if result and result != "*":
        parts.append('<span class="mv"><b>%s</b></span>' % esc(result))
    parts.append("</div>")
    return "".join(parts)


def _viewer(review: GameReview) -> str:
    """The interactive board's place: the evaluation bar, an empty board and the buttons (the
    page's script draws them; ``interactive``)."""
    size = 8 * interactive.SQUARE
    buttons = "".join('<button type="button" data-go="%s" title="%s">%s</button>' % item for item in (
        ("first", "Start (Home)", "|&lt;"), ("previous", "Previous move (←)", "&lt;"),
        ("next", "Next move (→)", "&gt;"), ("last", "Last move (End)", "&gt;|"), ("flip", "Flip the board (f)", "flip")))
    return ('<div class="viewer" id="g%d-viewer" data-ply="" data-fen="">'
            '<div class="boardrow"><div class="evalbar" data-white="" role="img" aria-label="evaluation">'
            '<div class="fill"></div></div>'
            '<svg class="board" viewBox="0 0 %d %d" role="img" aria-label="board"></svg></div>'
            '<div class="controls">%s</div></div>' % (review.index, size, size, buttons))


_INFO = ('<div class="info"><p class="nojs">The board needs JavaScript; the diagrams below show the mistakes.</p>'
         '</div>')
"""What the script says of the selected position (beside the board on a wide page, under it
on a phone), above the move list."""


def game_data(review: GameReview) -> dict:
    """What the page's script shows of a game: for every position (plies played, 0 = the start)
    its FEN, the move that led to it (UCI, ``14... Nc3?``), White's score and share of the
    evaluation bar, the opening the data set names the position (if it does), the engine's
    best move and line from it (and every MultiPV line when there are several), the king in
    check, the end of the game, and the judgement of the move that led to it with the
    engine's better move and line."""
    positions = []
    board = review.start.copy()
    records = review.records
    shares = review.position_shares()
    for ply in range(len(review.plies) + 1):
        view = review.plies[ply - 1] if ply else None
        if view is not None:
            board.push(view.move)
        record = records.get(ply)
        previous = view.record if view is not None else None
        score = ""
        if record is not None:
            score = format_score(record.get("white_cp"), record.get("white_mate"))
        elif previous is not None:
            score = format_score(previous.get("after_white_cp"), previous.get("after_white_mate"))
        opening = opening_at(board)
        position = {"fen": board.fen(shredder=board.chess960), "uci": view.move.uci() if view else None,
                    "label": view.label + (NAG_SYMBOLS[view.judgement] if view.judgement else "") if view else None,
                    "score": score, "share": None if shares[ply] is None else round(shares[ply], 1),
                    "opening": opening.text if opening else None,
                    "check": chess.square_name(board.king(board.turn)) if board.is_check() else None,
                    "best": None, "bestSan": None, "line": None, "over": None}
        if record is not None:
            position["over"] = {"checkmate": "Checkmate.", "stalemate": "Stalemate."}.get(record.get("game_over") or "")
            if record.get("best_uci"):
                position.update(best=record["best_uci"], bestSan=record.get("best_san"),
                                line=numbered_line(board, record.get("pv_san") or []))
            lines = record.get("lines") or []
            if len(lines) > 1:
                position["lines"] = [{"uci": line["move_uci"], "san": line["move_san"],
                                      "score": format_score(line.get("white_cp"), line.get("white_mate")),
                                      "line": numbered_line(board, line.get("pv_san") or [])} for line in lines]
        if view is not None and view.judgement:
            position.update(judgement=view.judgement, text=view.judgement_text,
                            before=format_score(previous.get("white_cp"), previous.get("white_mate")),
                            after=format_score(previous.get("after_white_cp"), previous.get("after_white_mate")),
                            alt=previous.get("best_san"), altLine=numbered_line(view.board, previous.get("pv_san") or []))
        positions.append(position)
    return {"index": review.index, "positions": positions}


def _json_text(data: object) -> str:
    """JSON that is safe inside a ``<script>`` element (no ``<``, so no ``</script>``)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _move_id(review: GameReview, view: PlyView) -> str:
    return "g%d-m%d" % (review.index, view.ply)


def _diagram_id(review: GameReview, view: PlyView) -> str:
    return "g%d-d%d" % (review.index, view.ply)


def _note(review: GameReview, view: PlyView) -> str:
    record = view.record or {}
    judgement = view.judgement
    before = format_score(record.get("white_cp"), record.get("white_mate"))
    after = format_score(record.get("after_white_cp"), record.get("after_white_mate"))
    text = "%s (%s → %s). Best was %s" % (view.judgement_text, before, after, record.get("best_san"))
    line = numbered_line(view.board, record.get("pv_san") or [])
    # To the interactive board after the move (the page's script); without script, to the
    # move's diagram, or for an inaccuracy (no diagram) to the move itself.
    target = _diagram_id(review, view) if judgement in DIAGRAM_JUDGEMENTS else _move_id(review, view)
    link = ' <a class="to-board" href="#%s" data-ply="%d">board</a>' % (target, view.ply + 1)
    return '<div class="note %s"><b>%s%s</b> <span class="text">%s:</span> <span class="line">%s</span>%s</div>' % (
        judgement, esc(view.label), NAG_SYMBOLS[judgement], esc(text), esc(line), link)


def _diagram(review: GameReview, view: PlyView) -> str:
    record = view.record or {}
    board = view.board
    arrows = [chess.svg.Arrow(view.move.from_square, view.move.to_square, color="red")]
    best = record.get("best_uci")
    if best:
        best_move = chess.Move.from_uci(best)
        arrows.append(chess.svg.Arrow(best_move.from_square, best_move.to_square, color="green"))
    svg = board_svg(board, arrows, _diagram_id(review, view))
    caption = "%s%s: played %s (red), best %s (green), %s → %s" % (
        view.label, NAG_SYMBOLS[view.judgement], view.san, record.get("best_san"),
        format_score(record.get("white_cp"), record.get("white_mate")),
        format_score(record.get("after_white_cp"), record.get("after_white_mate")))
    return '<figure id="%s">%s<figcaption><a class="to-board" href="#%s" data-ply="%d">%s</a></figcaption></figure>' % (
        _diagram_id(review, view), svg, _move_id(review, view), view.ply + 1, esc(caption))


def board_svg(board: chess.Board, arrows: List[chess.svg.Arrow], prefix: str) -> str:
    """``chess.svg.board`` made fit for inlining many times in one HTML page: its ids (piece
    definitions, the check gradient) and the references to them get ``prefix`` so that no two
    diagrams share an id, and the XML namespace
    declarations (not needed inline in HTML) are dropped."""
    lastmove = board.move_stack[-1] if board.move_stack else None
    check = board.king(board.turn) if board.is_check() else None
    svg = chess.svg.board(board, arrows=arrows, lastmove=lastmove, check=check, size=BOARD_SIZE)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    svg = svg.replace(' id="', ' id="%s-' % prefix).replace('href="#', 'href="#%s-' % prefix)
    svg = svg.replace("url(#", "url(#%s-" % prefix)
    return svg


# --- the evaluation chart ------------------------------------------------------------------

def eval_chart_svg(review: GameReview) -> str:
    """White's score per ply as an inline SVG: a filled curve, the zero line, gridlines in
    pawns, full-move labels, and a dot per judged move (linked to its diagram)."""
    points = review.points()
    limit = chart_limit(points)
    left, right, top, bottom = CHART_MARGIN
    width, height = CHART_WIDTH - left - right, CHART_HEIGHT - top - bottom
    last_ply = max([len(review.plies)] + [ply for ply, _ in points])
    span = max(1, last_ply)

    def x(ply: int) -> float:
        return left + width * ply / span

    def y(score: float) -> float:
        return top + height * (limit - score) / (2.0 * limit)

    out = ['<svg class="eval-chart" viewBox="0 0 %d %d" role="img" aria-label="%s" data-left="%d" data-width="%d" '
           'data-span="%d">' % (CHART_WIDTH, CHART_HEIGHT, esc("Evaluation of %s" % review.title), left, width, span)]
    out.append('<rect x="%d" y="%d" width="%d" height="%.1f" fill="#ffffff"/>' % (left, top, width, height / 2.0))
    out.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#e9e9e6"/>' % (
        left, top + height / 2.0, width, height / 2.0))
    for fraction in (-1.0, -0.5, 0.0, 0.5, 1.0):
        value = fraction * limit
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="%s"/>' % (
            left, y(value), left + width, y(value), "#888" if fraction == 0 else "#d0d0d0",
            "1" if fraction == 0 else "0.6"))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end" fill="#666">%s</text>' % (
            left - 6, y(value) + 4, "%+g" % (value / 100.0) if value else "0"))
    for ply, move in move_ticks(review.start, last_ply):
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="#666">%d</text>' % (
            x(ply), top + height + 16, move))
    if points:
        coords = " ".join("%.1f,%.1f" % (x(ply), y(score)) for ply, score in points)
        area = "%.1f,%.1f %s %.1f,%.1f" % (x(points[0][0]), y(0), coords, x(points[-1][0]), y(0))
        out.append('<polygon points="%s" fill="#5b7fa6" fill-opacity="0.28" stroke="none"/>' % area)
        out.append('<polyline class="eval" points="%s" fill="none" stroke="#2d4f77" stroke-width="1.8" '
                   'stroke-linejoin="round" data-plies="%s" data-scores="%s"/>' % (
                       coords, " ".join(str(ply) for ply, _ in points),
                       " ".join(str(score) for _, score in points)))
    out.append('<line class="cursor" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#2a5db0" stroke-width="1.5" '
               'visibility="hidden" pointer-events="none"/>' % (left, top, left, top + height))
    for ply, score, view in review.marks():
        dot = '<circle class="mark %s" cx="%.1f" cy="%.1f" r="4.5" fill="%s" stroke="#fff" stroke-width="1.2" ' \
              'data-ply="%d" data-score="%d"><title>%s</title></circle>' % (
                  view.judgement, x(ply), y(score), JUDGEMENT_COLOURS[view.judgement], ply, score,
                  esc("%s%s (%s)" % (view.label, NAG_SYMBOLS[view.judgement], view.judgement)))
        target = _diagram_id(review, view) if view.judgement in DIAGRAM_JUDGEMENTS else _move_id(review, view)
        out.append('<a href="#%s">%s</a>' % (target, dot))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>' % (left, top, width, height))
    out.append("</svg>")
    return "".join(out)


# --- one position -------------------------------------------------------------------------

def _position_section(review: PositionReview) -> str:
    parts = ['<section class="game" id="%s">' % review.anchor,
             "<h2>%d. %s</h2>" % (review.index, esc(review.title))]
    rows = [("FEN", review.board.fen(shredder=review.board.chess960)), ("Analysis", review.limits),
            ("Source", review.source)]
    parts.append('<table class="meta">%s</table>' % "".join(
        "<tr><th>%s</th><td>%s</td></tr>" % (esc(key), esc(value)) for key, value in rows))
    record = review.record
    if review.error or record is None:
        parts.append('<p class="error">Not analysed: %s</p>' % esc(review.error or "no result"))
        parts.append("</section>")
        return "\n".join(parts)
    arrows = []
    if record.get("best_uci"):
        move = chess.Move.from_uci(record["best_uci"])
        arrows.append(chess.svg.Arrow(move.from_square, move.to_square, color="green"))
    caption = record.get("game_over") or "Best %s (%s): %s" % (
        record.get("best_san"), format_score(record.get("white_cp"), record.get("white_mate")),
        numbered_line(review.board, record.get("pv_san") or []))
    parts.append('<div class="diagrams"><figure>%s<figcaption>%s</figcaption></figure></div>' % (
        board_svg(review.board, arrows, "p%d" % review.index), esc(caption)))
    parts.append("</section>")
    return "\n".join(parts)
