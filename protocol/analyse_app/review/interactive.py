"""What makes the review page interactive: its script, the script's style, and the piece
drawings the script's board uses (python-chess's ``chess.svg`` pieces, defined once per page).

The page stays one self-contained file: the script is inline, reads each game's data from an
inline ``<script type="application/json">`` block (``html.game_data``), and draws with inline
SVG; it fetches nothing. Per game it draws the board after the selected move (the move
played highlighted, the engine's best move in that position as an arrow) with an evaluation
bar beside it (White's share, as lichess's gauge), and shows the score, the opening when the
data set names the position, the judgement of the move with the engine's better move and
line, and the engine's line from the position (every line of a ``--multipv`` run). A move is
selected by clicking it in the move list, clicking the evaluation chart (or a judged move's
dot on it), a link to a move (the opening's, a note's "board", a diagram's caption: the
board comes into view), the buttons under the board, or the keys ←/→ (Home/End: start/end,
``f``: flip the board) for the game last clicked. A page address ending in ``#g1-ply-37``
opens game 1 after ply 37, as does a link to it (the address follows the selection).

The board scales with the page (a phone gets a board as wide as its screen), and hover
styles apply only where the pointer can hover (``@media (hover: hover)``), so a tapped move
does not stay highlighted on a touch screen.

For tests and tools the viewer exposes what it shows: ``data-ply`` (plies played) and
``data-fen`` on the viewer, ``data-square``/``data-piece`` on every piece, ``data-uci`` on
the best-move arrow and on each engine line, ``data-white`` (White's share 0..100, empty when
not analysed) on the evaluation bar, and ``class="sel"`` on the selected move of the list.
"""

import re

import chess.svg

PIECE_PREFIX = "rv-"
"""Prefix of the page-wide piece drawing ids (``rv-white-pawn``...)."""

SQUARE = chess.svg.SQUARE_SIZE
"""Square size in the board's SVG units (45, as chess.svg draws its pieces)."""


def piece_defs() -> str:
    """One hidden SVG holding the twelve piece drawings that every interactive board uses."""
    pieces = "".join(re.sub(r'id="', 'id="%s' % PIECE_PREFIX, svg, count=1) for svg in chess.svg.PIECES.values())
    return ('<svg class="piece-defs" width="0" height="0" aria-hidden="true" focusable="false">'
            "<defs>%s</defs></svg>" % pieces)


STYLE = """
.piece-defs { position: absolute; width: 0; height: 0; overflow: hidden; }
.review { display: flex; flex-wrap: wrap; gap: 12px 22px; margin: 14px 0 4px; }
.viewer { flex: 0 1 424px; max-width: 100%; min-width: 0; outline: none; scroll-margin-top: 8px; }
.boardrow { display: flex; gap: 6px; }
.viewer svg.board { flex: 1 1 auto; min-width: 0; width: 100%; height: auto; aspect-ratio: 1 / 1; display: block;
                    border-radius: 3px; box-shadow: 0 1px 4px rgba(0,0,0,.25); user-select: none; }
.evalbar { flex: none; width: 18px; position: relative; overflow: hidden; border-radius: 3px; background: #403d39;
           box-shadow: 0 1px 4px rgba(0,0,0,.25); }
.evalbar .fill { position: absolute; left: 0; right: 0; bottom: 0; height: 50%; background: #f6f6f4; }
.viewer.flipped .evalbar .fill { top: 0; bottom: auto; }
.evalbar::after { content: ""; position: absolute; left: 0; right: 0; top: 50%; border-top: 2px solid #d64545;
                  opacity: .55; margin-top: -1px; }
.evalbar.unknown .fill { opacity: .35; }
.info .nojs { color: #666; }
.controls { display: flex; gap: 6px; margin: 8px 0 6px; }
.controls button { flex: 1; font: inherit; font-size: 0.95em; padding: 3px 0; border: 1px solid #ccc;
                   border-radius: 4px; background: #fafafa; color: #222; cursor: pointer; min-width: 0; }
.side { flex: 1 1 300px; min-width: 0; display: flex; flex-direction: column; gap: 8px; }
.info { font-size: 0.93em; min-height: 6.5em; overflow-wrap: anywhere; }
.info .now { font-weight: 600; }
.info .now small { font-weight: normal; color: #666; margin-left: 6px; }
.info .opening { color: #555; font-size: 0.95em; }
.info .note { margin: 5px 0; }
.info .engine { color: #444; margin-top: 4px; }
.info ol.lines { margin: 2px 0 0; padding: 0; list-style: none; }
.info ol.lines li { padding: 1px 0; border-top: 1px solid #eee; }
.info ol.lines .score { display: inline-block; min-width: 3.4em; }
/* Beside the board the move list takes the height the position's text leaves (at least 10em);
   the board's column sets the row's height unless the text alone is taller. */
.review .moves { flex: 1 1 0; min-height: 10em; overflow-y: auto; position: relative;
                 border: 1px solid #e4e4e4; border-radius: 6px; padding: 6px 10px; background: #fcfcfb; }
.mv[data-after] { cursor: pointer; border-radius: 3px; padding: 0 2px; }
/* Hover only where a pointer hovers: on a touch screen the hover state sticks to the last
   tapped move after the selection has moved on. */
@media (hover: hover) {
  .mv[data-after]:not(.sel):hover { background: #e8eef8; }
  .controls button:hover { background: #eef3fa; }
}
/* The selected move outranks every other move style (judgement colours, hover). */
.moves .mv.sel[data-after] { background: #2a5db0; color: #fff; }
.moves .mv.sel[data-after] small, .moves .mv.sel[data-after] .num, .moves .mv.sel[data-after] b { color: #fff; }
.chart svg.eval-chart { cursor: pointer; }
@media (max-width: 600px) {
  .evalbar { width: 12px; }
  .boardrow { gap: 4px; }
  .review .moves { flex: none; max-height: 60vh; }
}
"""

SCRIPT = r"""
(function () {
  "use strict";
  var SQ = %(square)d, FILES = "abcdefgh", PREFIX = "%(prefix)s";
  var PIECES = {P: "white-pawn", N: "white-knight", B: "white-bishop", R: "white-rook", Q: "white-queen",
                K: "white-king", p: "black-pawn", n: "black-knight", b: "black-bishop", r: "black-rook",
                q: "black-queen", k: "black-king"};
  var games = [], active = null;

  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function corner(square, flipped) {  // top-left corner of a square in board units
    var file = FILES.indexOf(square.charAt(0)), rank = Number(square.charAt(1)) - 1;
    return flipped ? [(7 - file) * SQ, rank * SQ] : [file * SQ, (7 - rank) * SQ];
  }

  function arrow(uci, flipped) {  // the shape of chess.svg's arrows
    var a = corner(uci.slice(0, 2), flipped), b = corner(uci.slice(2, 4), flipped);
    var x1 = a[0] + SQ / 2, y1 = a[1] + SQ / 2, x2 = b[0] + SQ / 2, y2 = b[1] + SQ / 2;
    var dx = x2 - x1, dy = y2 - y1, length = Math.sqrt(dx * dx + dy * dy);
    var size = 0.75 * SQ, margin = 0.1 * SQ;
    var sx = x2 - dx * (size + margin) / length, sy = y2 - dy * (size + margin) / length;
    var tx = x2 - dx * margin / length, ty = y2 - dy * margin / length;
    var points = [tx, ty, sx + dy * 0.5 * size / length, sy - dx * 0.5 * size / length,
                  sx - dy * 0.5 * size / length, sy + dx * 0.5 * size / length];
    return '<g class="best-arrow" data-uci="' + esc(uci) + '" opacity="0.75">' +
      '<line x1="' + x1 + '" y1="' + y1 + '" x2="' + sx + '" y2="' + sy + '" stroke="#15781b" stroke-width="' +
      (0.2 * SQ) + '" stroke-linecap="butt"/><polygon fill="#15781b" points="' + points.join(" ") + '"/></g>';
  }

  function drawBoard(game, position) {
    var out = [], last = {}, rows = position.fen.split(" ")[0].split("/"), flipped = game.flipped;
    if (position.uci) {
      last[position.uci.slice(0, 2)] = true;
      last[position.uci.slice(2, 4)] = true;
    }
    for (var rank = 0; rank < 8; rank++) {
      for (var file = 0; file < 8; file++) {
        var square = FILES.charAt(file) + (8 - rank), xy = corner(square, flipped), light = (file + rank) %% 2 === 0;
        var fill = last[square] ? (light ? "#cdd16a" : "#aaa23b") : (light ? "#f0d9b5" : "#b58863");
        out.push('<rect x="' + xy[0] + '" y="' + xy[1] + '" width="' + SQ + '" height="' + SQ + '" fill="' + fill + '"/>');
      }
    }
    for (var i = 0; i < 8; i++) {  // coordinates inside the edge squares, as lichess draws them
      var edgeFile = flipped ? FILES.charAt(7 - i) : FILES.charAt(i), edgeRank = flipped ? i + 1 : 8 - i;
      out.push('<text x="' + (i * SQ + SQ - 3) + '" y="' + (8 * SQ - 3) + '" font-size="9" text-anchor="end" fill="' +
               (i %% 2 === 0 ? "#f0d9b5" : "#b58863") + '">' + edgeFile + '</text>');
      out.push('<text x="2" y="' + (i * SQ + 10) + '" font-size="9" fill="' + (i %% 2 === 0 ? "#b58863" : "#f0d9b5") +
               '">' + edgeRank + '</text>');
    }
    if (position.check) {
      var king = corner(position.check, flipped);
      out.push('<circle cx="' + (king[0] + SQ / 2) + '" cy="' + (king[1] + SQ / 2) + '" r="' + (SQ / 2) +
               '" fill="#e00" fill-opacity="0.55"/>');
    }
    rows.forEach(function (row, rank) {
      var file = 0;
      for (var c = 0; c < row.length; c++) {
        var symbol = row.charAt(c);
        if (symbol >= "1" && symbol <= "8") {
          file += Number(symbol);
          continue;
        }
        var square = FILES.charAt(file) + (8 - rank), at = corner(square, flipped);
        out.push('<use href="#' + PREFIX + PIECES[symbol] + '" class="piece" data-square="' + square +
                 '" data-piece="' + symbol + '" transform="translate(' + at[0] + "," + at[1] + ')"/>');
        file += 1;
      }
    });
    if (position.best) {
      out.push(arrow(position.best, flipped));
    }
    game.board.innerHTML = out.join("");
  }

  function infoHtml(position, ply) {
    var parts = [];
    var now = ply === 0 ? "Start position" : "After " + esc(position.label);
    parts.push('<div class="now">' + now + (position.score ? " <small>" + esc(position.score) + "</small>" : "") +
               "</div>");
    if (position.opening) {
      parts.push('<div class="opening">' + esc(position.opening) + "</div>");
    }
    if (position.judgement) {
      parts.push('<div class="note ' + esc(position.judgement) + '"><b>' + esc(position.text) + "</b> (" +
                 esc(position.before) + " → " + esc(position.after) + "). Best was <b>" + esc(position.alt) +
                 '</b>: <span class="line">' + esc(position.altLine) + "</span></div>");
    }
    if (position.over) {
      parts.push('<div class="engine">' + esc(position.over) + "</div>");
    } else if (position.lines) {
      parts.push('<div class="engine">Engine: <b>' + esc(position.bestSan) + "</b>, best " + position.lines.length +
                 ' lines</div><ol class="lines">' + position.lines.map(function (line) {
                   return '<li data-uci="' + esc(line.uci) + '"><b class="score">' + esc(line.score) + "</b> " +
                          '<span class="line">' + esc(line.line) + "</span></li>";
                 }).join("") + "</ol>");
    } else if (position.best) {
      parts.push('<div class="engine">Engine: <b>' + esc(position.bestSan) + "</b> " +
                 '<span class="line">' + esc(position.line) + "</span></div>");
    } else {
      parts.push('<div class="engine">Not analysed.</div>');
    }
    return parts.join("");
  }

  function drawBar(game, position) {  // White's share from the bottom (the top when flipped)
    var known = position.share !== null && position.share !== undefined;
    game.bar.setAttribute("data-white", known ? String(position.share) : "");
    game.bar.classList.toggle("unknown", !known);
    game.bar.title = known ? "White " + position.share.toFixed(0) + "%% (" + position.score + ")" : "not analysed";
    game.barFill.style.height = (known ? position.share : 50) + "%%";
  }

  function select(game, ply) {
    var last = game.positions.length - 1;
    ply = Math.max(0, Math.min(last, ply));
    game.ply = ply;
    var position = game.positions[ply];
    drawBoard(game, position);
    drawBar(game, position);
    game.viewer.classList.toggle("flipped", game.flipped);
    game.viewer.setAttribute("data-ply", String(ply));
    game.viewer.setAttribute("data-fen", position.fen);
    game.info.innerHTML = infoHtml(position, ply);
    var previous = game.moves.querySelector(".mv.sel");
    if (previous) {
      previous.classList.remove("sel");
    }
    var move = game.moves.querySelector('.mv[data-after="' + ply + '"]');
    if (move) {
      move.classList.add("sel");
      var box = game.moves, top = move.offsetTop, bottom = top + move.offsetHeight;
      if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
        box.scrollTop = top - box.clientHeight / 3;  // out of sight: a third of the way down, its note below it
      }
    } else {
      game.moves.scrollTop = 0;
    }
    if (game.cursor) {
      var x = game.chartLeft + game.chartWidth * ply / game.chartSpan;
      game.cursor.setAttribute("x1", x);
      game.cursor.setAttribute("x2", x);
      game.cursor.setAttribute("visibility", "visible");
    }
  }

  function reveal(game) {  // the board and its buttons into view, unless they are in it already
    var top = game.viewer.getBoundingClientRect().top;
    var bottom = game.viewer.querySelector(".controls").getBoundingClientRect().bottom;
    if (top < 0 || bottom > window.innerHeight) {
      game.viewer.scrollIntoView({block: "start"});
    }
  }

  function choose(game, ply) {  // a user's choice: also the game that the keys move
    active = game;
    select(game, ply);
    try {
      history.replaceState(null, "", "#g" + game.index + "-ply-" + game.ply);
    } catch (error) { /* a browser that refuses it for local files: the address just stays */ }
  }

  function chartPly(game, event) {
    var svg = game.chart, point = svg.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    var local = point.matrixTransform(svg.getScreenCTM().inverse());
    return Math.round((local.x - game.chartLeft) / game.chartWidth * game.chartSpan);
  }

  function setUp(section) {
    var data = JSON.parse(section.querySelector("script.review-data").textContent);
    var game = {index: data.index, positions: data.positions, ply: 0, flipped: false, section: section,
                viewer: section.querySelector(".viewer"), board: section.querySelector(".viewer svg.board"),
                info: section.querySelector(".review .info"), moves: section.querySelector(".review .moves"),
                bar: section.querySelector(".viewer .evalbar"), barFill: section.querySelector(".viewer .evalbar .fill"),
                chart: section.querySelector("svg.eval-chart")};
    if (game.chart) {
      game.cursor = game.chart.querySelector("line.cursor");
      game.chartLeft = Number(game.chart.getAttribute("data-left"));
      game.chartWidth = Number(game.chart.getAttribute("data-width"));
      game.chartSpan = Number(game.chart.getAttribute("data-span"));
      game.chart.addEventListener("click", function (event) {
        event.preventDefault();  // a judged move's dot links to its diagram for readers without script
        var mark = event.target.closest ? event.target.closest("circle.mark") : null;
        choose(game, mark ? Number(mark.getAttribute("data-ply")) : chartPly(game, event));
      });
    }
    game.moves.addEventListener("click", function (event) {
      var move = event.target.closest(".mv[data-after]");
      if (move) {
        event.preventDefault();
        choose(game, Number(move.getAttribute("data-after")));
      }
    });
    section.querySelector(".controls").addEventListener("click", function (event) {
      var button = event.target.closest("button[data-go]");
      if (!button) {
        return;
      }
      var go = button.getAttribute("data-go"), last = game.positions.length - 1;
      if (go === "flip") {
        game.flipped = !game.flipped;
        choose(game, game.ply);
      } else {
        choose(game, {first: 0, previous: game.ply - 1, next: game.ply + 1, last: last}[go]);
      }
    });
    // The links to a move on the board (the opening, the notes' "board", the diagrams'
    // captions) select it here; without script they lead to the move or its diagram.
    var links = section.querySelectorAll("a[data-ply]");
    for (var i = 0; i < links.length; i++) {
      links[i].setAttribute("href", "#g" + game.index + "-ply-" + links[i].getAttribute("data-ply"));
    }
    section.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a[data-ply]") : null;
      if (link) {
        event.preventDefault();
        choose(game, Number(link.getAttribute("data-ply")));
        reveal(game);
      }
    });
    section.addEventListener("mousedown", function () { active = game; });
    var nojs = section.querySelector(".review .nojs");
    if (nojs) {
      nojs.parentNode.removeChild(nojs);
    }
    select(game, 0);
    return game;
  }

  document.addEventListener("keydown", function (event) {
    if (!active || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      return;
    }
    var last = active.positions.length - 1;
    var to = {ArrowLeft: active.ply - 1, ArrowRight: active.ply + 1, Home: 0, End: last}[event.key];
    if (event.key === "f") {
      active.flipped = !active.flipped;
      to = active.ply;
    }
    if (to === undefined) {
      return;
    }
    event.preventDefault();
    choose(active, to);
  });

  var sections = document.querySelectorAll("section.game[data-interactive]");
  for (var i = 0; i < sections.length; i++) {
    games.push(setUp(sections[i]));
  }
  active = games.length ? games[0] : null;

  function fromAddress() {  // #g1-ply-37: game 1 after 37 plies
    var wanted = /^#g(\d+)-ply-(\d+)$/.exec(window.location.hash);
    if (wanted) {
      games.forEach(function (game) {
        if (String(game.index) === wanted[1]) {
          choose(game, Number(wanted[2]));
          reveal(game);
        }
      });
    }
  }
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
  document.documentElement.setAttribute("data-review-ready", "1");
})();
""" % {"square": SQUARE, "prefix": PIECE_PREFIX}
