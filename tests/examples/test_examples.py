"""The programs in examples/ run, train, and agree with hand-written NumPy."""

from __future__ import annotations

import contextlib
import io
import pathlib
import runpy
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run_seed_logistic_regression(steps: int, seed: int = 1234) -> dict:
    """Run examples/logistic_regression.py (the seed's program text) with fewer steps."""
    source = (EXAMPLES / "logistic_regression.py").read_text()
    assert source.count("training_steps = 10000") == 1
    source = source.replace("training_steps = 10000", f"training_steps = {steps}")
    np.random.seed(seed)
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "logistic_regression.py", "exec"), namespace)
    namespace["printed"] = out.getvalue()
    return namespace


def numpy_logistic_regression(steps: int, seed: int = 1234):
    """The same training, written by hand with the stable closed-form gradient."""
    rng = np.random
    rng.seed(seed)
    n, feats = 400, 784
    x = rng.randn(n, feats)
    y = rng.randint(size=n, low=0, high=2).astype("float64")
    w = rng.randn(feats)
    b = 0.0
    for _ in range(steps):
        z = x @ w + b
        p = np.where(z >= 0, 1 / (1 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1 + np.exp(-np.abs(z))))
        gw = x.T @ (p - y) / n + 0.02 * w
        gb = np.mean(p - y)
        w, b = w - 0.01 * gw, b - 0.01 * gb
    return x, y, w, b


@pytest.mark.slow
def test_seed_logistic_regression_matches_numpy_and_fits():
    steps = 10000  # the program exactly as the seed wrote it
    ns = run_seed_logistic_regression(steps)
    x, y, w_ref, b_ref = numpy_logistic_regression(steps)
    w, b = ns["w"].get_value(), ns["b"].get_value()
    assert np.all(np.isfinite(w)) and np.isfinite(b)
    np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=0)
    np.testing.assert_allclose(b, b_ref, rtol=1e-10, atol=0)
    accuracy = np.mean(ns["predict"](ns["D"][0]) == (ns["D"][1] > 0.5))
    assert accuracy == 1.0
    assert "Used the cpu" in ns["printed"]


def test_seed_logistic_regression_short_run_is_exact():
    ns = run_seed_logistic_regression(20)
    _, _, w_ref, b_ref = numpy_logistic_regression(20)
    np.testing.assert_allclose(ns["w"].get_value(), w_ref, rtol=1e-10, atol=0)
    np.testing.assert_allclose(ns["b"].get_value(), b_ref, rtol=1e-10, atol=0)
    pred, err = ns["pred"], ns["err"]
    assert pred.shape == (400,) and np.all(np.isfinite(err))


def test_mlp_trains_on_synthetic_data():
    sys.path.insert(0, str(EXAMPLES))
    try:
        mlp = runpy.run_path(str(EXAMPLES / "mlp.py"), run_name="mlp_example")
    finally:
        sys.path.remove(str(EXAMPLES))
    features, labels = mlp["make_data"](300, 20, 4)
    train, predict, params = mlp["build_training"]([20, 32, 16, 4], learning_rate=0.5)
    first = float(train(features, labels))
    for _ in range(60):
        last = float(train(features, labels))
    assert last < first * 0.5
    assert np.mean(predict(features) == labels) > 0.9
