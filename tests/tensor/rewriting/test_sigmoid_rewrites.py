"""The sigmoid-family stabilization: it fires, keeps values, and keeps gradients finite."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T

LEVELS = ["fast_compile", "fast_run", "stabilize"]


def compiled(inputs, outputs, level):
    return jitgraph.function(inputs, outputs, mode=jitgraph.Mode(linker="py", optimizer=level))


def scalar_names(fn):
    names = []
    for node in fn.maker.fgraph.toposort():
        sop = getattr(node.op, "scalar_op", None)
        if sop is not None:
            names.append(sop.name)
            names.extend(getattr(sop, "inner_ops", lambda: [])())
    return names


@pytest.mark.parametrize("level", LEVELS)
def test_inverse_one_plus_exp_becomes_sigmoid(level):
    x = T.dvector("x")
    f = compiled([x], 1 / (1 + T.exp(-x)), level)
    assert "sigmoid" in scalar_names(f)
    value = np.array([-800.0, -40.0, 0.0, 40.0, 800.0])
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(f(value), 1 / (1 + np.exp(-value)))


@pytest.mark.parametrize("level", LEVELS)
def test_log_one_minus_sigmoid_is_finite(level):
    x = T.dvector("x")
    p = 1 / (1 + T.exp(-x))
    f = compiled([x], [T.log(p), T.log(1 - p)], level)
    log_p, log_1mp = f(np.array([-50.0, 0.0, 50.0]))
    np.testing.assert_allclose(log_p, [-50.0, np.log(0.5), -np.exp(-50.0)], rtol=1e-12)
    np.testing.assert_allclose(log_1mp, [-np.exp(-50.0), np.log(0.5), -50.0], rtol=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_gradients_stay_finite_where_the_math_is(level):
    x = T.dvector("x")
    cost = T.log(T.sigmoid(x)).sum()
    g = compiled([x], T.grad(cost, x), level)
    got = g(np.array([-800.0, -30.0, 0.0, 30.0]))
    np.testing.assert_allclose(got, [1.0, 1 / (1 + np.exp(-30.0)), 0.5, 1 / (1 + np.exp(30.0))],
                               rtol=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_logistic_cross_entropy_gradient_is_finite_when_saturated(level):
    x, y = T.dvectors("x y")
    p = 1 / (1 + T.exp(-x))
    xent = (-y * T.log(p) - (1 - y) * T.log(1 - p)).sum()
    f = compiled([x, y], [xent, T.grad(xent, x)], level)
    z = np.array([-60.0, -60.0, 60.0, 60.0, 0.5])
    labels = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    value, grad = f(z, labels)
    assert np.isfinite(value) and np.all(np.isfinite(grad))
    sig = 1 / (1 + np.exp(-z))
    np.testing.assert_allclose(grad, sig - labels, rtol=1e-9, atol=1e-15)


def test_no_rewrite_without_optimizer():
    x = T.dvector("x")
    f = compiled([x], 1 / (1 + T.exp(-x)), "None")
    assert "sigmoid" not in scalar_names(f)


def test_float32_keeps_its_type():
    x = T.fvector("x")
    f = compiled([x], T.log(1 - 1 / (1 + T.exp(-x))), "fast_run")
    out = f(np.array([100.0, -1.0], dtype="float32"))
    assert out.dtype == np.float32 and np.all(np.isfinite(out))


def test_cancelled_division_keeps_the_shape():
    x = T.dvector("x")
    a = T.dscalar("a")
    out = (a / x) * x  # the result must keep x's length
    f = compiled([a, x], out, "fast_compile")
    np.testing.assert_allclose(f(2.0, np.array([1.0, 4.0, 0.0])), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("level", LEVELS)
def test_logistic_regression_gradient_finite_beyond_exp_overflow(level):
    x, y = T.dvectors("x y")
    p = 1 / (1 + T.exp(-x))
    xent = (-y * T.log(p) - (1 - y) * T.log(1 - p)).mean()
    f = compiled([x, y], T.grad(xent, x), level)
    z = np.array([-900.0, -900.0, 900.0, 900.0, 0.0])
    labels = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    with np.errstate(over="ignore"):
        expected = (1 / (1 + np.exp(-z)) - labels) / len(z)
    np.testing.assert_allclose(f(z, labels), expected, rtol=1e-12, atol=1e-300)


def test_exp_over_one_plus_exp():
    x = T.dvector("x")
    f = compiled([x], T.exp(x) / (1 + T.exp(x)), "fast_run")
    assert "sigmoid" in scalar_names(f)
    np.testing.assert_allclose(f(np.array([-800.0, 0.0, 800.0])), [0.0, 0.5, 1.0])
