"""Whole programs, small: an MLP, LeNet (conv2d + pool), an Elman RNN and an LSTM (scan),
trained a few steps by gradient descent with the default mode, so that ``device=cuda0``
(``THEANO_FLAGS``) decides where they run, as it would for a user.

``python whole_programs.py OUT.npz`` runs them all and saves every program's training costs
and final parameters, plus (``OUT.json``) what the device did per program: kernel launches
(the emulated device's counters; -1 without it) and the ``Gpu*`` nodes that ran their
``perform`` instead of a lowering (a NumPy round trip: none expected).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.convolution.conv_functions import conv2d
from jitgraph.tensor.convolution.pool import pool_2d

F = "float32"
STEPS = 3


def _shared(rng: np.random.Generator, shape: tuple, name: str, scale: float = 0.3) -> Any:
    return jitgraph.shared((rng.standard_normal(shape) * scale).astype(F), name=name)


def _train(inputs: list, cost: Any, params: list, values: list, lr: float = 0.1) -> dict:
    grads = jitgraph.grad(cost, params)
    updates = [(p, p - np.float32(lr) * g) for p, g in zip(params, grads)]
    fn = jitgraph.function(inputs, cost, updates=updates)
    costs = [float(fn(*values)) for _ in range(STEPS)]
    out = {"costs": np.array(costs)}
    out.update({p.name: p.get_value() for p in params})
    return out


def mlp() -> dict:
    rng = np.random.default_rng(0)
    x, y = T.fmatrix("x"), T.lvector("y")
    w1, b1 = _shared(rng, (12, 16), "w1"), _shared(rng, (16,), "b1")
    w2, b2 = _shared(rng, (16, 4), "w2"), _shared(rng, (4,), "b2")
    h = T.tanh(T.dot(x, w1) + b1)
    probs = T.nnet.softmax(T.dot(h, w2) + b2)
    cost = T.nnet.categorical_crossentropy(probs, y).mean()
    values = [rng.standard_normal((20, 12)).astype(F), rng.integers(0, 4, 20)]
    return _train([x, y], cost, [w1, b1, w2, b2], values)


def lenet() -> dict:
    rng = np.random.default_rng(1)
    x, y = T.ftensor4("x"), T.lvector("y")
    f1, c1 = _shared(rng, (4, 1, 3, 3), "f1"), _shared(rng, (4,), "c1")
    w, b = _shared(rng, (4 * 3 * 3, 3), "w"), _shared(rng, (3,), "b")
    conv = T.tanh(conv2d(x, f1) + c1.dimshuffle("x", 0, "x", "x"))  # 8x8 -> 6x6
    pooled = pool_2d(conv, ws=(2, 2), ignore_border=True)  # -> 3x3
    probs = T.nnet.softmax(T.dot(pooled.flatten(2), w) + b)
    cost = T.nnet.categorical_crossentropy(probs, y).mean()
    values = [rng.standard_normal((6, 1, 8, 8)).astype(F), rng.integers(0, 3, 6)]
    return _train([x, y], cost, [f1, c1, w, b], values, lr=0.05)


def elman() -> dict:
    rng = np.random.default_rng(2)
    x, target = T.ftensor3("x"), T.fmatrix("target")
    w_in, w_rec = _shared(rng, (3, 5), "w_in"), _shared(rng, (5, 5), "w_rec")
    w_out = _shared(rng, (5, 2), "w_out")
    h0 = T.zeros((x.shape[1], 5), dtype=F)
    hs, _ = jitgraph.scan(lambda xt, h: T.tanh(T.dot(xt, w_in) + T.dot(h, w_rec)),
                          sequences=x, outputs_info=h0)
    cost = ((T.dot(hs[-1], w_out) - target) ** 2).mean()
    values = [rng.standard_normal((5, 4, 3)).astype(F), rng.standard_normal((4, 2)).astype(F)]
    return _train([x, target], cost, [w_in, w_rec, w_out], values)


def lstm() -> dict:
    rng = np.random.default_rng(3)
    n_in, n_h = 3, 4
    x, target = T.ftensor3("x"), T.fmatrix("target")
    w = _shared(rng, (n_in, 4 * n_h), "w")
    u = _shared(rng, (n_h, 4 * n_h), "u")
    b = _shared(rng, (4 * n_h,), "b", 0.1)

    def step(xt, h, c):
        z = T.dot(xt, w) + T.dot(h, u) + b
        i = T.nnet.sigmoid(z[:, :n_h])
        f = T.nnet.sigmoid(z[:, n_h:2 * n_h])
        o = T.nnet.sigmoid(z[:, 2 * n_h:3 * n_h])
        g = T.tanh(z[:, 3 * n_h:])
        c_new = f * c + i * g
        return o * T.tanh(c_new), c_new

    zeros = T.zeros((x.shape[1], n_h), dtype=F)
    (hs, _), _ = jitgraph.scan(step, sequences=x, outputs_info=[zeros, zeros])
    cost = ((hs[-1] - target) ** 2).mean()
    values = [rng.standard_normal((4, 2, n_in)).astype(F),
              rng.standard_normal((2, n_h)).astype(F)]
    return _train([x, target], cost, [w, u, b], values)


PROGRAMS: dict[str, Callable[[], dict]] = {"mlp": mlp, "lenet": lenet, "elman": elman,
                                           "lstm": lstm}


def record_fallbacks() -> list[str]:
    """Collect the ``Gpu*`` nodes for which a GPU program builds a ``perform`` thunk."""
    from jitgraph.backend_gpu import program
    from jitgraph.backend_gpu.ops import GpuOp

    found: list[str] = []
    original = program.perform_thunk

    def watched(node: Any, storage: Any) -> Any:
        if isinstance(node.op, GpuOp):
            found.append(str(node.op))
        return original(node, storage)

    program.perform_thunk = watched
    return found


def launches() -> int:
    """Kernel launches so far on the emulated device (-1 on a real one)."""
    emulator = sys.modules.get("emulated_cuda")
    return emulator.STATS.kernel_launches if emulator is not None else -1


def main(out: str, names: list[str]) -> None:
    if "cuda" in str(jitgraph.config.device):
        import cupy  # noqa: F401 - (the emulated device's counters exist from now on)
    fallbacks = record_fallbacks()
    arrays, report = {}, {}
    for name in names:
        before, n_fallbacks = launches(), len(fallbacks)
        result = PROGRAMS[name]()
        arrays.update({f"{name}/{k}": v for k, v in result.items()})
        report[name] = {"launches": launches() - before if before >= 0 else -1,
                        "fallbacks": fallbacks[n_fallbacks:],
                        "device": str(jitgraph.config.device)}
    np.savez(out, **arrays)
    with open(out.replace(".npz", ".json"), "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or list(PROGRAMS))
