"""scripts/accumulator_bench.py: a table of each accumulator representation's cost a move and
an evaluation, on the interpreter that runs it."""

import pytest

import accumulator_bench


def test_it_prints_a_row_per_representation_with_its_costs(capsys):
    assert accumulator_bench.main(["--depth", "2", "--rounds", "1", "--positions", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "2-ply walks from 2 bench positions" in lines[0]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert sorted(rows) == ["lists", "none", "packed"]
    assert len(rows["none"]) == 1 and len(rows["packed"]) == len(rows["lists"]) == 2  # no net: no evaluation
    assert all(float(value) >= 0 for values in rows.values() for value in values)


def test_the_walk_makes_every_move_of_the_tree():
    import chess
    from pruner.engine.board import Position
    from pruner.engine.evaluate import Evaluator
    pos = Position(chess.Board(), Evaluator(net=None))
    node = accumulator_bench.tree(pos, 2)
    assert accumulator_bench.walk(pos, node, accumulator_bench.do_move, None) == 20 + 400  # perft 1 + perft 2
    assert accumulator_bench._leaves(node) == 400 and pos.stack == []


def test_refused_arguments_say_why(capsys):
    with pytest.raises(SystemExit):
        accumulator_bench.main(["--positions", "0"])
    assert "--positions 1-" in capsys.readouterr().err
