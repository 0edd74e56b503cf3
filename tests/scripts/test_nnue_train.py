"""scripts/nnue.py prepare/train (issue 47): the trainer reproduces its net bit for bit from a
seed, reports the held-out loss per epoch, learns (the loss falls), and its integer net
evaluates as the float one did, within rounding."""

import os

import chess
import pytest

import nnue as nnue_script  # scripts/nnue.py (imports numpy when it trains)
from pruner.engine import nnue
from pruner.lab.nnuelib import datagen
from tests.paths import ROOT

pytest.importorskip("numpy")  # the trainer's extra (.[nnue]); CI installs it on CPython

pytestmark = pytest.mark.one_interpreter

BOOK = os.path.join(ROOT, "scripts", "books", "noob_3moves_5000.epd")


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    directory = tmp_path_factory.mktemp("run")
    settings = datagen.Settings(seed=5, nodes=80, teacher="pruner:2", jobs=1, book="noob_3moves_5000.epd")
    datagen.prepare_run(str(directory), settings)
    datagen.run_worker(str(directory), settings, 0, BOOK, "stockfish", 12)
    path = str(tmp_path_factory.mktemp("data") / "data.npz")
    assert nnue_script.main(["prepare", str(directory), "-o", path]) == 0
    return path


def _train(prepared, tmp_path, name, *extra):
    out = str(tmp_path / name)
    assert nnue_script.main(["train", prepared, "-o", out, "--epochs", "3", "--batch", "256", "--hidden", "8"]
                            + list(extra)) == 0
    with open(out, "rb") as handle:
        return handle.read()


def test_the_same_seed_gives_the_same_net_bit_for_bit(prepared, tmp_path):
    first = _train(prepared, tmp_path, "a.nnue")
    assert _train(prepared, tmp_path, "b.nnue") == first
    assert _train(prepared, tmp_path, "c.nnue", "--seed", "2") != first
    net = nnue.from_bytes(first)
    assert net.hidden == 8 and net.residual


def test_training_reports_the_held_out_loss_and_learns(prepared):
    from pruner.lab.nnuelib import train  # numpy's: imported past the skip above
    data = train.Prepared.load(prepared)
    lines = []
    settings = train.TrainSettings(hidden=8, epochs=4, batch=128, holdout=4, residual=False, lr=5e-3)
    model = train.train(data, settings, report=lines.append)
    epochs = [line for line in lines if line.startswith("epoch")]
    assert len(epochs) == 4
    losses = [float(line.split("training loss ")[1].split(",")[0]) for line in epochs]
    assert losses[-1] < losses[0]
    assert all("held-out loss" in line for line in epochs)
    net = model.to_net()
    assert train.quantisation_error(model, net, data, sample=200) < 5.0


def test_features_name_the_pieces_as_the_engine_does():
    from pruner.lab.nnuelib import train  # numpy's: imported past the skip above
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K2R w K - 0 1")
    white, black = train.board_features(board)
    assert sorted(f for f in white if f != train.PAD) == sorted(
        nnue.feature(1, p.piece_type, int(p.color), sq) for sq, p in board.piece_map().items())
    assert white.count(train.PAD) == 32 - 4 and black.count(train.PAD) == 28


def test_a_warm_start_begins_from_the_given_net(prepared, tmp_path):
    import numpy as np
    from pruner.lab.nnuelib import train  # numpy's: imported past the skip above
    first = tmp_path / "first.nnue"
    first.write_bytes(_train(prepared, tmp_path, "first.nnue"))
    start = nnue.load(str(first))
    data = train.Prepared.load(prepared)
    model = train.Model(train.TrainSettings(hidden=8), np.random.default_rng(3))
    model.load_net(start)
    # Loaded, the model is the file's net again: rounding it back gives the same integers.
    again = model.to_net()
    assert (again.w1, again.b1, again.w2, again.b2) == (start.w1, start.b1, start.w2, start.b2)
    lines = []
    train.train(data, train.TrainSettings(hidden=8, epochs=1, batch=256), report=lines.append, start=start)
    assert any(line.startswith("held-out loss of the starting net") for line in lines)
    # From the command line: the same data and seed, started elsewhere, end elsewhere.
    warm = _train(prepared, tmp_path, "warm.nnue", "--init", str(first))
    assert warm != _train(prepared, tmp_path, "cold.nnue") and nnue.from_bytes(warm).hidden == 8


def test_a_warm_start_widens_a_smaller_net_into_the_same_function(prepared, tmp_path):
    import numpy as np
    from pruner.lab.nnuelib import train  # numpy's: imported past the skip above
    small = tmp_path / "small.nnue"
    small.write_bytes(_train(prepared, tmp_path, "small.nnue"))  # 8 hidden units
    start = nnue.load(str(small))
    data = train.Prepared.load(prepared)
    narrow = train.Model(train.TrainSettings(hidden=8), np.random.default_rng(3))
    narrow.load_net(start)
    wide = train.Model(train.TrainSettings(hidden=16), np.random.default_rng(3))
    wide.load_net(start)
    batch = data.subset(slice(0, 300))
    xw, xb = train.one_hot(batch.white), train.one_hot(batch.black)
    out_narrow = narrow.forward(xw, xb, batch.stm_white)[0]
    out_wide = wide.forward(xw, xb, batch.stm_white)[0]
    assert np.allclose(out_narrow, out_wide, atol=1e-3)
    net = wide.to_net()
    assert net.hidden == 16 and net.w2[8:16] == [0] * 8 and net.w2[24:] == [0] * 8
    assert net.w2[:8] == start.w2[:8] and net.w2[16:24] == start.w2[8:]
    # From the command line: 8 units widened to 16 and trained.
    assert nnue.from_bytes(_train(prepared, tmp_path, "wide.nnue", "--hidden", "16", "--init", str(small))).hidden == 16


def test_a_warm_start_refuses_a_net_of_another_shape_or_no_net(prepared, tmp_path, capsys):
    other = tmp_path / "other.nnue"
    other.write_bytes(_train(prepared, tmp_path, "other.nnue"))  # 8 hidden units
    out = str(tmp_path / "out.nnue")
    base = ["train", prepared, "-o", out, "--epochs", "1", "--batch", "256"]
    assert nnue_script.main(base + ["--hidden", "4", "--init", str(other)]) == 2
    assert "has 8 hidden units; the settings ask for 4" in capsys.readouterr().err
    assert nnue_script.main(base + ["--hidden", "8", "--replace", "--init", str(other)]) == 2
    assert "the settings ask for 8 and a net that replaces it" in capsys.readouterr().err
    assert nnue_script.main(base + ["--hidden", "8", "--init", str(tmp_path / "missing.nnue")]) == 2
    assert "missing.nnue: No such file or directory" in capsys.readouterr().err
    assert not os.path.exists(out)
