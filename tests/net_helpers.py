"""Nets for the tests: the shipped net damaged the ways issue 51 found it (truncated, zeroed,
random bytes, unreadable, missing), in copies in a temporary folder (the tests point
``PRUNER_SHIPPED_NET`` or ``EvalFile`` at a copy, never touching engine/pruner.nnue), and nets
of random weights (``random_net``)."""

import random

from pruner.engine import nnue


def shipped_bytes() -> bytes:
    """The shipped net's file, read."""
    with open(nnue.DEFAULT_NET, "rb") as handle:
        return handle.read()


def damaged_copies(folder):
    """{kind: (path, what its refusal says)} of damaged stand-ins for the shipped net under
    ``folder`` (a ``pathlib.Path``). Root, who runs the tests, reads a file of mode 000, so the
    unreadable ones are a folder in the file's place and a path through a file (``os.stat``
    fails with ENOTDIR, an ``OSError`` as a refused ``open`` would raise)."""
    good = shipped_bytes()
    copies = {"truncated": (good[:len(good) // 2], "payload of"),
              "zeroed": (bytes(len(good)), "not a Pruner net"),
              "random": (random.Random(51).randbytes(len(good)), "not a Pruner net")}
    out = {}
    for kind, (data, reason) in copies.items():
        path = folder / ("%s.nnue" % kind)
        path.write_bytes(data)
        out[kind] = (str(path), reason)
    (folder / "folder.nnue").mkdir()
    out["a folder in its place"] = (str(folder / "folder.nnue"), "not a regular file")
    out["unreadable"] = (str(folder / "truncated.nnue" / "pruner.nnue"), "Not a directory")
    out["missing"] = (str(folder / "missing.nnue"), "No such file or directory")
    return out


def random_net(seed, hidden=8, extreme=False, residual=True, representation=None):
    """A net of random weights within the lane bounds (``extreme``: at the bounds, so a wrong
    carry between lanes would show), its accumulators in ``representation`` (None: the
    interpreter's, ``pruner.engine.nnue.REPRESENTATION``)."""
    rng = random.Random(seed)
    limit = (nnue.LANE_OFFSET - 257) // (nnue.MAX_PIECES + 1)
    pick = (lambda: rng.choice((-limit, limit))) if extreme else (lambda: rng.randint(-300, 300))
    w1 = [pick() for _ in range(nnue.FEATURES * hidden)]
    b1 = [rng.randint(-limit, limit) if extreme else rng.randint(-100, 300) for _ in range(hidden)]
    w2 = [rng.randint(-500, 500) for _ in range(2 * hidden)]
    return nnue.Net(hidden, 255, 64, 400, residual, w1, b1, w2, rng.randint(-2000, 2000), name="random",
                    representation=representation)
