"""Training the learned evaluation (``pruner.engine.nnue``'s 768->N->1 perspective net) with numpy.

Positions come from data runs (``pruner.lab.nnuelib.datagen``), deduplicated (first occurrence kept),
turned into feature indices once and cached (``prepare``). The label of a position, from the
side to move, blends the teacher's score and the game's result:

    target = lam * sigmoid(teacher_cp / K) + (1 - lam) * result

and the loss is the mean squared error of ``sigmoid(prediction_cp / K)``, where the prediction
is the net's output, plus the classical evaluation when the net is a residual. Games, not
positions, are held out (``holdout`` of them by a hash of their number), since positions of
one game are alike. Adam, full float32 forward and backward with dense one-hot inputs (a
batch's 768 columns are a matrix product, faster than scattering in numpy); after each step
the weights are clipped to what the integer net can hold. The same seed, data and settings
give the same net bit for bit on the same machine (one BLAS thread: ``scripts/nnue.py`` sets
it before numpy is imported).
"""

import time
import zlib
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import numpy as np

import chess

from pruner.engine import nnue
from pruner.engine.evaluate import classical as classical_eval
from pruner.lab.nnuelib import dataset

PAD = nnue.FEATURES
"""Feature index of an empty slot (a zero row)."""
SLOTS = nnue.MAX_PIECES


@dataclass
class Prepared:
    """Positions as arrays: feature indices of each perspective, labels, classical scores."""

    white: np.ndarray
    """(P, 32) int16 feature indices as White sees the board (``PAD`` fills)."""
    black: np.ndarray
    stm_white: np.ndarray
    """(P,) bool: White to move."""
    teacher: np.ndarray
    """(P,) float32 teacher score, side to move's view, centipawns."""
    result: np.ndarray
    """(P,) float32 game result, side to move's view (1, 0.5, 0)."""
    classical: np.ndarray
    """(P,) float32 the engine's classical evaluation, side to move's view."""
    game: np.ndarray
    """(P,) int64 a game identifier (run index << 32 | game number)."""

    def __len__(self) -> int:
        return len(self.stm_white)

    def subset(self, mask: np.ndarray) -> "Prepared":
        return Prepared(self.white[mask], self.black[mask], self.stm_white[mask], self.teacher[mask],
                        self.result[mask], self.classical[mask], self.game[mask])

    def save(self, path: str) -> None:
        np.savez(path, white=self.white, black=self.black, stm_white=self.stm_white, teacher=self.teacher,
                 result=self.result, classical=self.classical, game=self.game)

    @classmethod
    def load(cls, path: str) -> "Prepared":
        data = np.load(path)
        return cls(data["white"], data["black"], data["stm_white"], data["teacher"], data["result"],
                   data["classical"], data["game"])


def board_features(board: chess.Board):
    """(White's feature indices, Black's) of a board, each padded to 32 slots."""
    white: List[int] = []
    black: List[int] = []
    for square, piece in board.piece_map().items():
        color = int(piece.color)
        white.append(nnue.feature(1, piece.piece_type, color, square))
        black.append(nnue.feature(0, piece.piece_type, color, square))
    pad = [PAD] * (SLOTS - len(white))
    return white + pad, black + pad


def _tactical(board: chess.Board, move_uci: str) -> bool:
    """Whether the teacher's best move captures or promotes: the position's score then rests on
    a tactic the static evaluation is not meant to see (Stockfish's data filters these out too)."""
    move = chess.Move.from_uci(move_uci)
    return bool(move.promotion) or board.is_capture(move)


def prepare(directories: Sequence[str], mirror: bool = True,
            progress: Optional[Callable[[str], None]] = None) -> Prepared:
    """Every distinct position of the runs in ``directories`` as arrays (first occurrence kept),
    but those the teacher solves by a capture or a promotion (when the run says its move);
    ``mirror``: a position without castling rights also comes mirrored left to right (files a
    and h swapped), with the same labels: chess is the same game there, so the data doubles
    where it can."""
    seen = set()
    white, black, stm, teacher, result, classical, game_ids = [], [], [], [], [], [], []
    start = time.monotonic()
    for run_index, directory in enumerate(directories):
        for number, rows in dataset.games(directory):
            for record in rows:
                key = dataset.position_key(record.fen)
                if key in seen:
                    continue
                seen.add(key)
                board = chess.Board(record.fen)
                if record.teacher_move and _tactical(board, record.teacher_move):
                    continue
                result_white, teacher_white = record.result, record.teacher
                boards = [board]
                if mirror and not board.castling_rights:
                    twin = board.transform(chess.flip_horizontal)
                    twin_key = dataset.position_key(twin.fen())
                    if twin_key not in seen:
                        seen.add(twin_key)
                        boards.append(twin)
                for one in boards:
                    w, b = board_features(one)
                    white.append(w)
                    black.append(b)
                    turn = one.turn
                    stm.append(turn)
                    teacher.append(teacher_white if turn else -teacher_white)
                    result.append(result_white if turn else 1.0 - result_white)
                    classical.append(classical_eval(one))
                    game_ids.append(run_index << 32 | number)
                if progress is not None and len(stm) % 100000 == 0:
                    progress("%d positions in %.0f s" % (len(stm), time.monotonic() - start))
    return Prepared(np.array(white, dtype=np.int16).reshape(-1, SLOTS),
                    np.array(black, dtype=np.int16).reshape(-1, SLOTS),
                    np.array(stm, dtype=bool), np.array(teacher, dtype=np.float32),
                    np.array(result, dtype=np.float32), np.array(classical, dtype=np.float32),
                    np.array(game_ids, dtype=np.int64))


@dataclass
class TrainSettings:
    """What decides a net (with the data): the file's header records the shape and scale."""

    hidden: int = 64
    epochs: int = 16
    batch: int = 8192
    lr: float = 2e-3
    lr_drop: float = 0.7
    """The learning rate is multiplied by this after every epoch from the third."""
    lam: float = 1.0
    """The teacher's share of the label (the game result has the rest)."""
    k: float = 400.0
    """Centipawns of one unit before the sigmoid (the score-to-expectation scale)."""
    teacher_scale: float = 1.0
    """The teacher's centipawns are divided by this first: another engine's scale is not the
    classical evaluation's (Stockfish's scores run about 1.2 times larger on this data), and a
    net that learnt the difference would inflate every score the search's margins compare."""
    residual: bool = True
    """The net corrects the classical evaluation (else it replaces it)."""
    weight_decay: float = 3.0
    """Decoupled weight decay (AdamW) of W1 and W2 per step, times the learning rate: with a
    few hundred thousand positions a net fits noise in single piece-squares, which moves the
    evaluation between sibling positions without ranking them better."""
    holdout: int = 50
    """One game in this many is held out for the reported loss."""
    seed: int = 1
    qa: int = 255
    qb: int = 64
    scale: int = 400
    """Centipawns of a net output of 1.0."""


class Model:
    """The float net: W1 (769 x N, the pad row stays 0), b1, W2 (2N), b2."""

    def __init__(self, settings: TrainSettings, rng: np.random.Generator) -> None:
        n = settings.hidden
        self.settings = settings
        self.w1 = (rng.standard_normal((PAD + 1, n)) * 0.05).astype(np.float32)
        self.w1[PAD] = 0
        self.b1 = np.full(n, 0.25, dtype=np.float32)
        self.w2 = (rng.standard_normal(2 * n) * (0.01 if settings.residual else 0.1)).astype(np.float32)
        self.b2 = np.zeros(1, dtype=np.float32)
        # What the integer net can hold: a lane stays within 16 bits with 32 pieces on the
        # board (pruner.engine.nnue.check_bounds), an output weight within int16.
        lane_room = (nnue.LANE_OFFSET - 512) / settings.qa
        self.w1_bound = lane_room / (nnue.MAX_PIECES + 1)
        self.b1_bound = self.w1_bound
        self.w2_bound = 32000 / settings.qb

    def params(self):
        return [self.w1, self.b1, self.w2, self.b2]

    def load_net(self, net: nnue.Net) -> None:
        """Start from ``net``'s weights (the integer net divided by its scales): a warm start,
        so a net trained on data since lost keeps what it learnt while new data is added.
        The net's kind must be this model's; a net with fewer hidden units than the model is
        widened: its units are the model's first ones and the others keep their random input
        weights with output weights of 0, so the widened model computes the same function as
        the net (and training grows the new units from there)."""
        s = self.settings
        if net.residual != s.residual or net.hidden > s.hidden:
            raise ValueError("the starting net has %d hidden units%s; the settings ask for %d%s (a net can be widened, not narrowed)"
                             % (net.hidden, "" if net.residual else " and replaces the classical evaluation",
                                s.hidden, "" if s.residual else " and a net that replaces it"))
        if (net.qa, net.qb, net.scale) != (s.qa, s.qb, s.scale):
            raise ValueError("the starting net's scales (qa %d, qb %d, scale %d) are not the trainer's (%d, %d, %d)"
                             % (net.qa, net.qb, net.scale, s.qa, s.qb, s.scale))
        n = net.hidden
        self.w1[:PAD, :n] = np.asarray(net.w1, dtype=np.float32).reshape(PAD, n) / s.qa
        self.w1[PAD] = 0
        self.b1[:n] = np.asarray(net.b1, dtype=np.float32) / s.qa
        w2 = np.asarray(net.w2, dtype=np.float32) / s.qb
        self.w2[:] = 0  # the side to move's units, then the other side's: the new ones silent
        self.w2[:n] = w2[:n]
        self.w2[s.hidden:s.hidden + n] = w2[n:]
        self.b2[0] = net.b2 / (s.qa * s.qb)

    def clip(self) -> None:
        np.clip(self.w1, -self.w1_bound, self.w1_bound, out=self.w1)
        self.w1[PAD] = 0
        np.clip(self.b1, -self.b1_bound, self.b1_bound, out=self.b1)
        np.clip(self.w2, -self.w2_bound, self.w2_bound, out=self.w2)

    def forward(self, xw: np.ndarray, xb: np.ndarray, stm_white: np.ndarray):
        """Net output in centipawns and what the backward pass needs; ``xw``/``xb`` one-hot (B, 769)."""
        acc_w = xw @ self.w1 + self.b1
        acc_b = xb @ self.w1 + self.b1
        side = stm_white[:, None]
        acc_stm = np.where(side, acc_w, acc_b)
        acc_other = np.where(side, acc_b, acc_w)
        hidden = np.concatenate([np.clip(acc_stm, 0.0, 1.0), np.clip(acc_other, 0.0, 1.0)], axis=1)
        out = (hidden @ self.w2 + self.b2[0]) * self.settings.scale
        return out, (acc_stm, acc_other, hidden, side)

    def backward(self, xw, xb, cache, grad_out: np.ndarray):
        """Gradients of the parameters given d loss / d output (centipawns)."""
        acc_stm, acc_other, hidden, side = cache
        n = self.settings.hidden
        g = grad_out * self.settings.scale
        g_w2 = hidden.T @ g
        g_b2 = np.array([g.sum()], dtype=np.float32)
        g_hidden = g[:, None] * self.w2[None, :]
        g_stm = g_hidden[:, :n] * ((acc_stm > 0) & (acc_stm < 1))
        g_other = g_hidden[:, n:] * ((acc_other > 0) & (acc_other < 1))
        g_w = np.where(side, g_stm, g_other)
        g_b = np.where(side, g_other, g_stm)
        g_w1 = xw.T @ g_w + xb.T @ g_b
        g_b1 = g_w.sum(axis=0) + g_b.sum(axis=0)
        return [g_w1, g_b1, g_w2, g_b2]

    def to_net(self) -> nnue.Net:
        """The integer net (``pruner.engine.nnue``): weights rounded to the file's scales."""
        s = self.settings
        w1 = np.rint(self.w1[:PAD] * s.qa).astype(np.int64).ravel().tolist()
        b1 = np.rint(self.b1 * s.qa).astype(np.int64).tolist()
        w2 = np.rint(self.w2 * s.qb).astype(np.int64).tolist()
        b2 = int(np.rint(self.b2[0] * s.qa * s.qb))
        return nnue.Net(s.hidden, s.qa, s.qb, s.scale, s.residual, w1, b1, w2, b2)


def one_hot(indices: np.ndarray) -> np.ndarray:
    """(B, 32) feature indices as a (B, 769) 0/1 matrix."""
    dense = np.zeros((len(indices), PAD + 1), dtype=np.float32)
    np.put_along_axis(dense, indices.astype(np.int64), 1.0, axis=1)
    return dense


def targets(data: Prepared, settings: TrainSettings) -> np.ndarray:
    """The blended label of each position (side to move's view)."""
    teacher = 1.0 / (1.0 + np.exp(-np.clip(data.teacher / settings.teacher_scale, -4000, 4000) / settings.k))
    return (settings.lam * teacher + (1.0 - settings.lam) * data.result).astype(np.float32)


def held_out_mask(data: Prepared, holdout: int) -> np.ndarray:
    """Positions of the held-out games (a fixed hash of the game identifier)."""
    with np.errstate(over="ignore"):  # a multiplicative hash: wrapping is the point
        mixed = (data.game.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (mixed % np.uint64(holdout)) == 0


def _loss_and_grad(model: Model, data: Prepared, index: np.ndarray, target: np.ndarray, k: float, want_grad: bool):
    xw = one_hot(data.white[index])
    xb = one_hot(data.black[index])
    out, cache = model.forward(xw, xb, data.stm_white[index])
    prediction = out + (data.classical[index] if model.settings.residual else 0.0)
    p = 1.0 / (1.0 + np.exp(-prediction / k))
    error = p - target[index]
    loss = float(np.mean(error * error))
    if not want_grad:
        return loss, None
    grad_out = (2.0 * error * p * (1.0 - p) / k / len(index)).astype(np.float32)
    return loss, model.backward(xw, xb, cache, grad_out)


def evaluate_loss(model: Model, data: Prepared, target: np.ndarray, k: float, batch: int = 32768) -> float:
    """Mean loss over all of ``data``."""
    total = 0.0
    for start in range(0, len(data), batch):
        index = np.arange(start, min(start + batch, len(data)))
        loss, _ = _loss_and_grad(model, data, index, target, k, False)
        total += loss * len(index)
    return total / max(1, len(data))


def train(data: Prepared, settings: TrainSettings, report: Callable[[str], None] = print,
          start: Optional[nnue.Net] = None) -> Model:
    """Train a net on ``data`` (held-out games set aside); reports a line per epoch. ``start``:
    a net to begin from (``Model.load_net``) instead of random weights."""
    rng = np.random.default_rng(settings.seed)
    model = Model(settings, rng)
    if start is not None:
        model.load_net(start)
    held = held_out_mask(data, settings.holdout)
    train_set, valid_set = data.subset(~held), data.subset(held)
    train_target, valid_target = targets(train_set, settings), targets(valid_set, settings)
    report("positions: %d training, %d held out (%d games)" % (len(train_set), len(valid_set),
                                                             len(np.unique(valid_set.game))))
    teacher_target = targets(valid_set, TrainSettings(lam=1.0, k=settings.k, teacher_scale=settings.teacher_scale))
    report("held-out loss of the classical evaluation alone: %.6f (teacher alone %.6f)"
           % (evaluate_loss_classical(valid_set, valid_target, settings.k),
              evaluate_loss_classical(valid_set, teacher_target, settings.k)))
    if start is not None:
        report("held-out loss of the starting net: %.6f (teacher alone %.6f)"
               % (evaluate_loss(model, valid_set, valid_target, settings.k),
                  evaluate_loss(model, valid_set, teacher_target, settings.k)))
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in model.params()]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    lr = settings.lr
    for epoch in range(1, settings.epochs + 1):
        start = time.monotonic()
        order = rng.permutation(len(train_set))
        total = 0.0
        for first in range(0, len(order), settings.batch):
            index = np.sort(order[first:first + settings.batch])
            loss, grads = _loss_and_grad(model, train_set, index, train_target, settings.k, True)
            total += loss * len(index)
            step += 1
            for param, grad, (m, v) in zip(model.params(), grads, moments):
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                m_hat = m / (1 - beta1 ** step)
                v_hat = v / (1 - beta2 ** step)
                param -= (lr * m_hat / (np.sqrt(v_hat) + eps)).astype(np.float32)
            if settings.weight_decay:
                shrink = np.float32(1.0 - lr * settings.weight_decay)
                model.w1 *= shrink
                model.w2 *= shrink
            model.clip()
        valid = evaluate_loss(model, valid_set, valid_target, settings.k)
        teacher_only = evaluate_loss(model, valid_set, teacher_target, settings.k)
        report("epoch %d: training loss %.6f, held-out loss %.6f (teacher alone %.6f), lr %.2g, %.0f s"
               % (epoch, total / len(order), valid, teacher_only, lr, time.monotonic() - start))
        if epoch >= 2:
            lr *= settings.lr_drop
    return model


def fit_teacher_scale(data: Prepared, k: float) -> float:
    """The factor by which the teacher's scores exceed the classical evaluation's: the scale
    that brings the classical evaluation closest to the teacher (loss over a grid)."""
    best = (float("inf"), 1.0)
    for scale in np.arange(0.5, 2.51, 0.05):
        p = 1.0 / (1.0 + np.exp(-data.classical / k))
        t = 1.0 / (1.0 + np.exp(-np.clip(data.teacher / scale, -4000, 4000) / k))
        best = min(best, (float(np.mean((p - t) ** 2)), float(round(scale, 2))))
    return best[1]


def evaluate_loss_classical(data: Prepared, target: np.ndarray, k: float) -> float:
    """The loss of the classical evaluation alone (what a net must beat)."""
    p = 1.0 / (1.0 + np.exp(-data.classical / k))
    return float(np.mean((p - target) ** 2))


def quantisation_error(model: Model, net: nnue.Net, data: Prepared, sample: int = 2000) -> float:
    """Mean absolute difference (centipawns) between the float net and the integer one on the
    first ``sample`` positions."""
    count = min(sample, len(data))
    index = np.arange(count)
    out, _ = model.forward(one_hot(data.white[index]), one_hot(data.black[index]), data.stm_white[index])
    total = 0.0
    for i in range(count):
        pieces = [_piece_of(f) for f in data.white[i] if f != PAD]
        acc = net.accumulator(pieces)
        total += abs(net.evaluate(acc, 1 if data.stm_white[i] else 0) - float(out[i]))
    return total / max(1, count)


def _piece_of(white_feature: int):
    """(piece type, colour, square) of a feature index as White sees it."""
    plane, square = divmod(int(white_feature), 64)
    color = 1 if plane < 6 else 0
    return plane % 6 + 1, color, square


def checksum(path: str) -> str:
    """CRC-32 of a file (what reports print to tell nets apart)."""
    with open(path, "rb") as handle:
        return "%08x" % zlib.crc32(handle.read())


def describe_settings(settings: TrainSettings) -> str:
    return ", ".join("%s=%s" % (name, getattr(settings, name)) for name in settings.__dataclass_fields__)

