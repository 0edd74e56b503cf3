"""scripts/play_quality.py: centipawn-loss distributions, queen hangs and won endgames per player (issue 26)."""

import gzip
import json
import sys

import chess
import chess.pgn
import pytest

import play_quality

pytestmark = pytest.mark.one_interpreter

# White's queen on h5 can be taken by the knight on f6: the record of the position after
# White's move has Black's best reply Nxh5.
QUEEN_EN_PRISE = "rnbqkb1r/pppp1ppp/5n2/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 3 3"


def game_pgn(moves, white="A", black="B", result="*", white_elo=None, black_elo=None, fen=None):
    game = chess.pgn.Game()
    if fen:
        game.setup(fen)
    game.headers.update(White=white, Black=black, Result=result)
    if white_elo:
        game.headers["WhiteElo"] = str(white_elo)
    if black_elo:
        game.headers["BlackElo"] = str(black_elo)
    node = game
    for uci in moves:
        node = node.add_variation(chess.Move.from_uci(uci))
    return str(game) + "\n\n"


def rec(path, game, ply, fen, move=None, cp=0, cp_loss=None, best=None, judgement=None, mate=None):
    turn = fen.split()[1]
    return {"source": "%s:%d" % (path, 1 + 20 * (game - 1)), "game": game, "ply": ply, "fen": fen,
            "turn": turn, "move_uci": move, "best_uci": best, "cp": cp, "mate": mate, "cp_loss": cp_loss,
            "judgement": judgement}


def test_endgames_and_game_endings_by_the_rules():
    assert play_quality.is_endgame(chess.Board("4k3/pp3ppp/8/8/8/8/PP1R1PPP/2B1K3 w - - 0 1"))  # R+B
    assert not play_quality.is_endgame(chess.Board())
    assert play_quality.is_endgame(chess.Board("4k3/8/8/8/8/8/8/2RRK3 w - - 0 1"))  # two rooks: 10
    assert not play_quality.is_endgame(chess.Board("4k3/8/8/8/8/8/8/2RQK3 w - - 0 1"))  # queen and rook: 14
    board = chess.Board("7k/8/8/8/8/8/8/K7 w - - 0 1")
    assert play_quality.game_ending(board) == "insufficient material"
    board = chess.Board("7k/8/8/8/8/8/8/KR6 w - - 0 1")
    for uci in ["b1b2", "h8g8", "b2b1", "g8h8"] * 2:
        board.push_uci(uci)
    assert play_quality.game_ending(board) == "repetition"
    assert play_quality.game_ending(chess.Board("7k/8/8/8/8/8/8/KR6 w - - 100 80")) == "fifty moves"
    assert play_quality.game_ending(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == "stalemate"
    assert play_quality.game_ending(chess.Board()) == "other"


def test_loss_bins_and_percentiles():
    assert play_quality.bin_labels() == ["0-9", "10-24", "25-49", "50-99", "100-199", "200-399", "400+"]
    shares = play_quality.bin_shares([0, 9, 10, 50, 399, 400, 1000, 5])
    assert shares == [3 / 8, 1 / 8, 0, 1 / 8, 0, 1 / 8, 2 / 8]
    assert play_quality.percentile([5, 1, 3, 2, 4], 0.5) == 3
    assert play_quality.percentile(list(range(1, 101)), 0.9) == 90
    assert play_quality.percentile([], 0.5) == 0


def test_a_queen_hang_needs_the_loss_and_the_reply_taking_the_queen():
    move = rec("g", 1, 4, "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2 3", "d1h5", cp_loss=800)
    reply = rec("g", 1, 5, QUEEN_EN_PRISE, best="f6h5")
    assert play_quality.hangs_queen(move, reply)
    assert not play_quality.hangs_queen(dict(move, cp_loss=120), reply)  # a queen trade costs nothing
    assert not play_quality.hangs_queen(move, dict(reply, best_uci="f6e4"))  # the reply takes a pawn
    assert not play_quality.hangs_queen(move, None)  # the game ended


def test_collect_groups_moves_by_name_and_follows_won_endgames(tmp_path):
    path = str(tmp_path / "games.pgn")
    won = "6k1/5ppp/8/8/8/8/5PPP/2R3K1 w - - 0 1"  # a rook up
    with open(path, "w") as handle:
        handle.write(game_pgn(["c1c8"], white="Strong", black="Weak", result="1-0", fen=won))
        handle.write(game_pgn(["e2e4", "e7e5"], white="Weak", black="Strong", result="1/2-1/2"))
    games = play_quality.read_games([path])
    assert games[(path, 1)].ending == "checkmate" and games[(path, 2)].plies == 2
    start = chess.Board()
    after = chess.Board()
    after.push_uci("e2e4")
    records = [
        rec(path, 1, 0, won, "c1c8", mate=1, cp=None, cp_loss=0, best="c1c8"),
        rec(path, 2, 0, start.fen(), "e2e4", cp=30, cp_loss=5),
        rec(path, 2, 1, after.fen(), "e7e5", cp=-30, cp_loss=300, judgement="blunder"),
    ]
    groups = play_quality.collect(records, games)
    strong, weak = play_quality.summary(groups["Strong"]), play_quality.summary(groups["Weak"])
    assert (strong["games"], strong["moves"], strong["acpl"]) == (2, 2, 150)
    assert strong["blunders_per_100"] == 50.0
    assert strong["won_endgames"] == {"won": 1} and strong["median_plies_to_win"] == 1
    assert (weak["moves"], weak["acpl"], weak["won_endgames"]) == (1, 5, {})
    by_rating = play_quality.collect(records, games, by="rating")
    assert by_rating == {}  # no ratings in the headers: no group
    with pytest.raises(ValueError, match="not in the PGN"):
        play_quality.collect([rec(path, 3, 0, start.fen(), "e2e4", cp_loss=0)], games)


def test_rating_bands_group_by_the_movers_own_rating_in_a_compressed_file(tmp_path):
    path = str(tmp_path / "rated.pgn.gz")
    with gzip.open(path, "wt") as handle:
        handle.write(game_pgn(["e2e4", "e7e5"], result="*", white_elo=1450, black_elo=1210))
        handle.write(game_pgn(["d2d4"], result="*", white_elo=1450, black_elo=1210))
    games = play_quality.read_games([path])
    assert sorted(games) == [(path, 1), (path, 2)]
    assert sorted(play_quality.read_games([path], limit=1)) == [(path, 1)]
    after = chess.Board()
    after.push_uci("e2e4")
    records = [rec(path, 1, 0, chess.STARTING_FEN, "e2e4", cp_loss=10),
               rec(path, 1, 1, after.fen(), "e7e5", cp_loss=40)]
    groups = play_quality.collect(records, games, by="rating", band=200)
    assert sorted(groups) == ["1200-1399", "1400-1599"]
    assert groups["1400-1599"].losses == [10] and groups["1200-1399"].losses == [40]


def test_the_command_analyses_with_a_uci_engine_and_keeps_the_records(tmp_path, capsys):
    path = str(tmp_path / "games.pgn")
    with open(path, "w") as handle:
        handle.write(game_pgn(["f2f3", "e7e5", "g2g4", "d8h4"], white="Fool", black="Lucky", result="0-1"))
    records = str(tmp_path / "records.jsonl")
    out = str(tmp_path / "figures.json")
    engine = "%s -m pruner" % sys.executable
    assert play_quality.main([path, "--engine", engine, "--depth", "3", "--jobs", "1", "--records", records,
                              "--json", out]) == 0
    table = capsys.readouterr().out
    assert "Fool" in table and "Lucky" in table
    with open(out) as handle:
        figures = json.load(handle)
    assert figures["Fool"]["moves"] == 2 and figures["Lucky"]["moves"] == 2
    assert figures["Fool"]["blunders_per_100"] > 0  # 2.g4?? allows mate in one
    with open(records) as handle:
        assert len(handle.readlines()) == 5  # four moves and the final position
    # --games: the first N games of each file, in the analysis and in the table alike
    with open(path, "a") as handle:
        handle.write(game_pgn(["e2e4"], white="Other", black="Player", result="*"))
    limited = str(tmp_path / "limited.jsonl")
    assert play_quality.main([path, "--engine", engine, "--depth", "1", "--jobs", "1", "--games", "1",
                              "--records", limited]) == 0
    assert "Other" not in capsys.readouterr().out
    # the kept records are read again, not re-analysed (an engine that cannot start is not needed)
    assert play_quality.main([path, "--engine", "no-such-engine", "--records", records]) == 0
    assert "Fool" in capsys.readouterr().out
