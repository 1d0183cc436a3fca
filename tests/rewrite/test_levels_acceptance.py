"""Acceptance: every optimizer level computes what ``optimizer=None`` computes.

* the seed's logistic regression and a small MLP, trained for a few dozen steps, end with the
  same parameters and outputs under every level (float64, rtol 1e-10);
* random elementwise/reduction graphs (hypothesis) give the same values under every level with
  the NumPy (``py``) linker.

Everything runs on the ``py`` linker so that the comparison is about the rewrites only (the
compiled linkers have their own cross-checks).
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.mode import Mode

LEVELS = [None, "merge", "fast_compile", "o1", "o2", "o3", "fast_run", "o4", "unsafe",
          "stabilize"]
OPTIMIZED = LEVELS[1:]

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def assert_same(actual, expected) -> None:
    # Stabilized forms (sigmoid, softplus, BLAS) round differently in the last bits; atol covers
    # values that are ~0 in one form and a few ulps in the other.
    np.testing.assert_allclose(np.asarray(actual, dtype="float64"),
                               np.asarray(expected, dtype="float64"),
                               rtol=1e-10, atol=1e-13, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# Logistic regression (the seed's graph, smaller data so that optimizer=None stays finite)

def train_logistic_regression(level, steps: int = 50) -> dict:
    """The graph of examples/logistic_regression.py, on a seeded problem scaled so that the
    unstabilized graph (level None) stays finite: ``1 - p`` never rounds to 0."""
    rng = np.random.RandomState(1234)
    n, feats = 100, 20
    data = (rng.randn(n, feats) * 0.5, rng.randint(size=n, low=0, high=2).astype("float64"))
    x = T.matrix("x")
    y = T.vector("y")
    w = jitgraph.shared(rng.randn(feats) * 0.3, name="w")
    b = jitgraph.shared(np.asarray(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    mode = Mode("py", level)
    train = jitgraph.function([x, y], [prediction, xent],
                              updates=[(w, w - 0.01 * gw), (b, b - 0.01 * gb)], mode=mode)
    predict = jitgraph.function([x], prediction, mode=mode)
    x_before = data[0].copy()
    for _ in range(steps):
        pred, err = train(*data)
    np.testing.assert_array_equal(data[0], x_before)  # inputs are never overwritten
    return {"w": w.get_value(), "b": b.get_value(), "pred": pred, "xent": err,
            "predict": predict(data[0]), "nodes": len(train.maker.fgraph.apply_nodes)}


@pytest.fixture(scope="module")
def lr_reference() -> dict:
    return train_logistic_regression(None)


@pytest.mark.parametrize("level", OPTIMIZED)
def test_logistic_regression_same_values_every_level(level, lr_reference) -> None:
    got = train_logistic_regression(level)
    assert np.all(np.isfinite(lr_reference["w"]))
    for key in ("w", "b", "xent"):
        assert_same(got[key], lr_reference[key])
    np.testing.assert_array_equal(got["pred"], lr_reference["pred"])
    np.testing.assert_array_equal(got["predict"], lr_reference["predict"])
    if level in ("o2", "o3", "fast_run", "o4", "unsafe"):
        assert got["nodes"] < lr_reference["nodes"] // 2  # fused


# ---------------------------------------------------------------------------------------------
# MLP (examples/mlp.py)

def _mlp_module():
    spec = importlib.util.spec_from_file_location("_example_mlp", EXAMPLES / "mlp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MLP_SIZES = [20, 16, 12, 4]


def train_mlp(level, steps: int = 20) -> dict:
    mlp = _mlp_module()
    features, labels = mlp.make_data(64, MLP_SIZES[0], MLP_SIZES[-1], seed=3)
    features = features.astype("float64")
    with jitgraph.config.change_flags(floatX="float64"):
        train, predict, params = mlp.build_training(MLP_SIZES, 0.1, mode=Mode("py", level))
    costs = [float(train(features, labels)) for _ in range(steps)]
    return {"costs": np.array(costs), "params": [p.get_value() for p in params],
            "predict": predict(features)}


@pytest.fixture(scope="module")
def mlp_reference() -> dict:
    return train_mlp(None)


@pytest.mark.parametrize("level", OPTIMIZED)
def test_mlp_same_values_every_level(level, mlp_reference) -> None:
    got = train_mlp(level)
    assert np.all(np.isfinite(mlp_reference["costs"]))
    assert mlp_reference["costs"][-1] < mlp_reference["costs"][0]  # it trains
    assert_same(got["costs"], mlp_reference["costs"])
    for p, p_ref in zip(got["params"], mlp_reference["params"]):
        assert_same(p, p_ref)
    np.testing.assert_array_equal(got["predict"], mlp_reference["predict"])


# ---------------------------------------------------------------------------------------------
# Random elementwise / reduction graphs

UNARY = {
    "neg": lambda a: -a,
    "exp": lambda a: T.exp(T.clip(a, -5, 5)),  # clipped so that chains stay finite
    "log_abs1": lambda a: T.log(abs(a) + 1),
    "sqr": lambda a: T.sqr(T.clip(a, -4, 4)),
    "tanh": T.tanh,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "maximum": T.maximum,
}


@st.composite
def random_graphs(draw):
    """A recipe: base shape, a list of operations over a growing pool of values, and outputs."""
    n = draw(st.integers(1, 3))
    shape = (n, n)  # square, so that transposed values combine with the others
    n_ops = draw(st.integers(2, 9))
    ops = []
    pool = 3  # x (matrix), v (vector over the last axis), s (0-d scalar)
    for _ in range(n_ops):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "broadcast"]))
        a = draw(st.integers(0, pool - 1))
        if kind == "unary":
            ops.append(("unary", draw(st.sampled_from(sorted(UNARY))), a))
        elif kind == "binary":
            b = draw(st.integers(0, pool - 1))
            ops.append(("binary", draw(st.sampled_from(sorted(BINARY))), a, b))
        elif kind == "reduce":
            ops.append(("reduce", draw(st.sampled_from(["sum", "max"])),
                        a, draw(st.sampled_from([None, 0, -1]))))
        else:
            ops.append(("broadcast", a))
        pool += 1
    # The last value (the deepest graph) and up to two others, so that some intermediate
    # values are also outputs (fused nodes with several outputs).
    others = draw(st.lists(st.integers(3, pool - 2), max_size=2, unique=True)) if pool > 4 else []
    return shape, ops, [pool - 1, *others]


def build_graph(recipe):
    shape, ops, outputs = recipe
    x, v, s = T.matrix("x"), T.vector("v"), T.scalar("s")
    pool = [x, v, s]
    for op in ops:
        if op[0] == "unary":
            pool.append(UNARY[op[1]](pool[op[2]]))
        elif op[0] == "binary":
            pool.append(BINARY[op[1]](pool[op[2]], pool[op[3]]))
        elif op[0] == "reduce":
            a = pool[op[2]]
            axis = op[3] if a.ndim else None
            fn = T.sum if op[1] == "sum" else T.max
            pool.append(fn(a, axis=axis))
        else:  # leading broadcastable axes up to a matrix (a row or a 1x1 value), or x.T
            a = pool[op[1]]
            pool.append(a.dimshuffle(*(["x"] * (2 - a.ndim) + list(range(a.ndim))))
                        if a.ndim < 2 else a.dimshuffle(1, 0))
    return [x, v, s], [pool[k] for k in outputs]


@settings(max_examples=150, deadline=None)
@given(recipe=random_graphs(), seed=st.integers(0, 2 ** 16))
def test_random_elemwise_reduction_graphs_every_level(recipe, seed) -> None:
    shape = recipe[0]
    rng = np.random.default_rng(seed)
    values = [rng.normal(size=shape), rng.normal(size=shape[1:]), rng.normal(size=())]
    inputs, outputs = build_graph(recipe)
    kept = [v.copy() for v in values]
    expected = jitgraph.function(inputs, outputs, mode=Mode("py", None),
                                 on_unused_input="ignore")(*values)
    for level in OPTIMIZED:
        got = jitgraph.function(inputs, outputs, mode=Mode("py", level),
                                on_unused_input="ignore")(*values)
        for g, e in zip(got, expected):
            assert np.shape(g) == np.shape(e), level
            # Reassociated sums (canonicalize) round differently; the error scales with the
            # magnitudes involved, which the clips above keep moderate.
            scale = 1.0 + float(np.max(np.abs(e), initial=0.0, where=np.isfinite(e)))
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-9 * scale, equal_nan=True,
                                       err_msg=f"level {level}")
    for before, after in zip(kept, values):
        np.testing.assert_array_equal(before, after)
