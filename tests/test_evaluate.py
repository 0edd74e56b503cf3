"""Evaluation terms beyond material and piece-square tables: each one moves the score the
way it should, on positions that differ only in what the term measures."""

import chess

import engine.evaluate as evaluate_module
from engine.evaluate import SHIELD, _MOB_EG, _MOB_MG, evaluate, pawn_structure, positional


def _mg(fen: str) -> int:
    return positional(chess.Board(fen))[0]


def _eg(fen: str) -> int:
    return positional(chess.Board(fen))[1]


def test_mobility_counts_free_squares():
    # A knight on d4 reaches 8 squares, on a1 only 2; everything else is the same.
    centre = _eg("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1")
    corner = _eg("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    assert centre - corner == _MOB_EG[chess.KNIGHT][8] - _MOB_EG[chess.KNIGHT][2]


def test_mobility_ignores_squares_attacked_by_enemy_pawns():
    # Black pawns on c6 and e6 guard b5, d5 and f5: the knight on d4 keeps b3 c2 e2 f3 and
    # the captures c6 e6, and loses b5 and f5. (Kings away from the pawns: no shield term.)
    free = "7k/8/8/8/3N4/8/8/4K3 w - - 0 1"
    guarded = "7k/8/2p1p3/8/3N4/8/8/4K3 w - - 0 1"
    # The white-positive mg difference is the knight's lost mobility (pawn terms aside).
    board = chess.Board(guarded)
    white = board.pawns & board.occupied_co[chess.WHITE]
    black = board.pawns & board.occupied_co[chess.BLACK]
    pawns_mg = pawn_structure(white, black)[0]
    assert _mg(free) - (_mg(guarded) - pawns_mg) == _MOB_MG[chess.KNIGHT][8] - _MOB_MG[chess.KNIGHT][6]


def test_rook_mobility_is_blocked_by_pieces():
    open_rook = _eg("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")        # a1 rook: a2-a8, b1-d1 = 10 squares
    boxed_rook = _eg("4k3/8/8/8/8/8/N7/RN2K3 w - - 0 1")     # own knights on a2 and b1: 0 squares
    knights = _eg("4k3/8/8/8/8/8/N7/1N2K3 w - - 0 1")        # the same knights, no rook
    assert open_rook == _MOB_EG[chess.ROOK][10] + 10            # + rook on an open file
    assert boxed_rook - knights == _MOB_EG[chess.ROOK][0] + 10


def _attack_term(monkeypatch, fen: str) -> int:
    """The king-attack share of the white-positive middlegame score."""
    with_term = _mg(fen)
    monkeypatch.setattr(evaluate_module, "KING_ATTACK_SCALE", (0,) * 8)
    without = _mg(fen)
    monkeypatch.undo()
    return with_term - without


def test_king_attack_needs_two_attackers_and_a_queen(monkeypatch):
    # Black king g8: the queen on h5 hits f7 and h7, the rook on g1 hits g2-g7.
    assert _attack_term(monkeypatch, "6k1/5ppp/8/7Q/8/8/8/6RK w - - 0 1") > 0
    assert _attack_term(monkeypatch, "6k1/5ppp/8/7Q/8/8/8/7K w - - 0 1") == 0     # queen alone
    assert _attack_term(monkeypatch, "6k1/5ppp/8/8/8/8/8/5RRK w - - 0 1") == 0     # no queen
    # From Black's side the same attack is a negative white-positive term.
    assert _attack_term(monkeypatch, "6rk/8/8/8/7q/8/5PPP/6K1 w - - 0 1") < 0


def test_pawn_shield_rewards_pawns_in_front_of_the_king(monkeypatch):
    fen = "4k3/8/8/8/8/7P/5PP1/6K1 w - - 0 1"     # f2 g2 one rank ahead, h3 two ranks ahead
    with_term = _mg(fen)
    monkeypatch.setattr(evaluate_module, "SHIELD", (0, 0))
    assert with_term - _mg(fen) == 2 * SHIELD[0] + SHIELD[1]


def test_a_walking_king_has_no_shield(monkeypatch):
    fen = "4k3/8/8/8/5PPP/6K1/8/8 w - - 0 1"      # king on the third rank, pawns in front
    with_term = _mg(fen)
    monkeypatch.setattr(evaluate_module, "SHIELD", (0, 0))
    assert with_term == _mg(fen)


def test_shield_is_symmetric_and_total_evaluation_mirrors():
    for fen in ("r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
                "6k1/5ppp/8/7Q/8/8/8/6RK b - - 0 1",
                "2kr3r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/2KR3R w - - 0 1"):
        board = chess.Board(fen)
        assert evaluate(board) == evaluate(board.mirror()), fen
