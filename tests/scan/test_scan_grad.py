"""Gradients through scan: back-propagation through time (taps, truncation, do-while loops),
verify_grad on loop graphs, and the Jacobian/Hessian recipes of Theano's tutorial. Recorded
values come from Theano 1.0.5 (ORACLE_PY=1)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.scan import scan, until
from jitgraph.tensor.core.gradient import verify_grad

f64 = np.float64


def rnn(xt, h, W):
    return T.tanh(T.dot(W, h) + xt)


# Theano 1.0.5, RandomState(0): X = randn(4, 2), h0 = randn(2), W = randn(2, 2)
RECORDED_BPTT = {
    -1: ([[0.073004, 1.064253], [0.347238, 0.019508], [0.010805, 0.80716],
          [0.709578, 0.762202]], [0.820452, 0.235661], [[1.051559, 0.058026],
                                                        [1.41824, 1.133357]]),
    2: ([[0.0, 0.0], [0.0, 0.0], [0.010805, 0.80716], [0.709578, 0.762202]], [0.0, 0.0],
        [[0.718162, -0.095343], [1.508937, 0.689444]]),
}


@pytest.mark.parametrize("truncate", [-1, 2])
def test_bptt_matches_theano(truncate):
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(rnn, sequences=X, outputs_info=h0, non_sequences=W,
                 truncate_gradient=truncate)
    grads = T.grad((hs ** 2).sum(), [X, h0, W])
    f = jitgraph.function([X, h0, W], grads)
    rng = np.random.RandomState(0)
    xv, hv, wv = rng.randn(4, 2), rng.randn(2), rng.randn(2, 2)
    for got, want in zip(f(xv, hv, wv), RECORDED_BPTT[truncate]):
        np.testing.assert_allclose(got, want, atol=1e-6)


def test_grad_of_until_loop_matches_theano():
    def power_of_2(previous, limit):
        return previous * 2, until(previous * 2 > limit)

    init, limit = T.dscalar(), T.dscalar()
    values, _ = scan(power_of_2, outputs_info=init, non_sequences=limit, n_steps=1024)
    g = jitgraph.function([init, limit], T.grad(values.sum(), init))
    assert g(1., 45.) == 126.0


def test_grad_through_taps_matches_theano():
    x = T.dvector("x")
    out, _ = scan(lambda a, b: a * b + 1, outputs_info=dict(initial=x, taps=[-2, -1]),
                  n_steps=4)
    g = jitgraph.function([x], T.grad(out.sum(), x))
    np.testing.assert_allclose(g(np.array([0.5, 0.7])), [8.9243525, 17.9865625])
    out, _ = scan(lambda a, b, h: h * a + b, sequences=dict(input=x, taps=[-2, 0]),
                  outputs_info=T.constant(f64(1)))
    g = jitgraph.function([x], T.grad(out.sum(), x))
    np.testing.assert_allclose(g(np.arange(1., 6.)), [9, 16, 21, 4, 1])


def test_jacobian_and_hessian_recipes_match_theano():
    x = T.dvector("x")
    y = x ** 2
    J, _ = scan(lambda i, y, x: T.grad(y[i], x), sequences=T.arange(y.shape[0]),
                non_sequences=[y, x])
    np.testing.assert_allclose(jitgraph.function([x], J)(np.array([4., 4.])), [[8, 0], [0, 8]])
    gy = T.grad((x ** 2).sum(), x)
    H, _ = scan(lambda i, gy, x: T.grad(gy[i], x), sequences=T.arange(gy.shape[0]),
                non_sequences=[gy, x])
    np.testing.assert_allclose(jitgraph.function([x], H)(np.array([4., 4.])), [[2, 0], [0, 2]])


def test_tutorial_jacobian_of_tanh():
    v, A = T.dvector(), T.dmatrix()
    y = T.tanh(T.dot(v, A))
    results, _ = scan(lambda i: T.grad(y[i], v), sequences=[T.arange(y.shape[0])])
    f = jitgraph.function([A, v], results)
    xv = np.eye(5)[0]
    wv = np.eye(5, 3)
    wv[2] = 1
    np.testing.assert_allclose(f(wv, xv), ((1 - np.tanh(xv.dot(wv)) ** 2) * wv).T)


RNG = np.random.default_rng(42)


def test_verify_grad_elman_step():
    def cost(x, h0, W, U):
        hs, _ = scan(lambda xt, h, W, U: T.tanh(T.dot(xt, U) + T.dot(h, W)), sequences=x,
                     outputs_info=h0, non_sequences=[W, U])
        return hs

    pt = [RNG.normal(size=(5, 3)), RNG.normal(size=2), RNG.normal(size=(2, 2)) * 0.5,
          RNG.normal(size=(3, 2))]
    verify_grad(cost, pt, rng=np.random.default_rng(0), mode="FAST_RUN")


def test_verify_grad_taps_and_two_outputs():
    def cost(x, h0, w):
        def step(x_tm1, x_t, h_tm2, h_tm1, w):
            h = T.sin(h_tm2) * w + h_tm1 * x_t + x_tm1
            return h, h * x_t

        (hs, ys), _ = scan(step, sequences=dict(input=x, taps=[-1, 0]),
                           outputs_info=[dict(initial=h0, taps=[-2, -1]), None],
                           non_sequences=w)
        return hs.sum() + (ys ** 2).sum()

    pt = [RNG.normal(size=6), RNG.normal(size=2), RNG.normal(size=())]
    verify_grad(cost, pt, rng=np.random.default_rng(1), mode="FAST_RUN")


def test_verify_grad_backwards_and_closure():
    def cost(x, w):
        out, _ = scan(lambda v, h: h * w + T.exp(v), sequences=x, outputs_info=x[0],
                      go_backwards=True)
        return out

    verify_grad(cost, [RNG.normal(size=4), RNG.normal(size=())], rng=np.random.default_rng(2),
                mode="FAST_RUN")


def test_verify_grad_until_loop():
    def cost(x0, w):
        vals, _ = scan(lambda h, w: (h * w + 0.1, until(T.gt(h, 5.0))), outputs_info=x0,
                       non_sequences=w, n_steps=20)
        return vals

    verify_grad(cost, [np.array(0.5), np.array(1.3)], rng=np.random.default_rng(3),
                mode="FAST_RUN")


def test_second_derivative_through_scan():
    x = T.dscalar("x")
    out, _ = scan(lambda h: T.sin(h) * h, outputs_info=x, n_steps=3)
    g = T.grad(out[-1], x)
    h = T.grad(g, x)
    f = jitgraph.function([x], [out[-1], g, h])

    def value(v):
        for _ in range(3):
            v = np.sin(v) * v
        return v

    eps, x0 = 1e-4, 0.7
    val, g1, g2 = f(x0)
    assert np.isclose(val, value(x0))
    assert np.isclose(g1, (value(x0 + eps) - value(x0 - eps)) / (2 * eps), rtol=1e-5)
    assert np.isclose(g2, (value(x0 + eps) - 2 * value(x0) + value(x0 - eps)) / eps ** 2,
                      rtol=1e-3)


def test_unused_output_and_integer_state_have_no_gradient():
    x = T.dvector("x")

    def step(v, count, acc):
        return count + 1, acc + v * v

    (counts, accs), _ = scan(step, sequences=x,
                             outputs_info=[T.constant(np.int64(0)), T.constant(f64(0))])
    g = jitgraph.function([x], T.grad(accs[-1], x))
    np.testing.assert_allclose(g(np.arange(3.)), [0, 2, 4])


def _finite_difference(f, args, direction, k, eps=1e-6):
    plus = list(args)
    minus = list(args)
    plus[k] = args[k] + eps * direction
    minus[k] = args[k] - eps * direction
    return (f(*plus) - f(*minus)) / (2 * eps)


def test_rop_through_scan_matches_finite_differences():
    from jitgraph.gradient import Rop

    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x), sequences=X, outputs_info=h0,
                 non_sequences=W)
    V = T.dmatrix("V")
    f = jitgraph.function([X, W, h0], hs)
    jv = jitgraph.function([X, W, h0, V], Rop(hs, W, V))
    xv, wv, hv = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=3)
    vv = RNG.normal(size=(3, 3))
    np.testing.assert_allclose(jv(xv, wv, hv, vv), _finite_difference(f, [xv, wv, hv], vv, 1),
                               atol=1e-7)


def test_rop_with_taps_and_outputs_not_fed_back():
    from jitgraph.gradient import Rop

    x, h0 = T.dvector("x"), T.dvector("h0")

    def step(a, b, h2, h1):
        h = T.sin(h2) * a + h1 * b
        return h, h * a

    (hs, ys), _ = scan(step, sequences=dict(input=x, taps=[-1, 0]),
                       outputs_info=[dict(initial=h0, taps=[-2, -1]), None])
    vx, vh = T.dvector("vx"), T.dvector("vh")
    f = jitgraph.function([x, h0], [hs, ys])
    jv = jitgraph.function([x, h0, vx, vh], Rop([hs, ys], [x, h0], [vx, vh]))
    xv, hv = RNG.normal(size=6), RNG.normal(size=2)
    dx, dh = RNG.normal(size=6), RNG.normal(size=2)
    eps = 1e-6
    plus, minus = f(xv + eps * dx, hv + eps * dh), f(xv - eps * dx, hv - eps * dh)
    for got, p, m in zip(jv(xv, hv, dx, dh), plus, minus):
        np.testing.assert_allclose(got, (p - m) / (2 * eps), atol=1e-7)


def test_lop_through_scan_is_the_gradient():
    from jitgraph.gradient import Lop

    X, h0 = T.dmatrix("X"), T.dvector("h0")
    hs, _ = scan(lambda x, h: T.tanh(x + h), sequences=X, outputs_info=h0)
    U = T.dmatrix("U")
    f = jitgraph.function([X, h0, U], [Lop(hs, X, U), T.grad((hs * U).sum(), X)])
    a, b = f(RNG.normal(size=(4, 2)), RNG.normal(size=2), RNG.normal(size=(4, 2)))
    np.testing.assert_allclose(a, b)


def test_scan_under_compute_test_value_raise():
    # Theano 1.0.5 (oracle) tags the loop's outputs, its gradient and its R-op with test
    # values; before, the step's placeholders had none and 'raise' stopped scan itself.
    with jitgraph.config.change_flags(compute_test_value="raise"):
        x = T.vector("x")
        x.tag.test_value = np.array([1.0, 2.0, 3.0])
        w = T.scalar("w")
        w.tag.test_value = np.float64(0.5)
        y = jitgraph.shared(np.arange(3.0), name="y")
        z, _ = jitgraph.scan(lambda u, v, h, w: h * w + u * v, sequences=[x, y],
                             outputs_info=T.constant(np.float64(1.0)), non_sequences=[w])
        np.testing.assert_allclose(z.tag.test_value, [0.5, 2.25, 7.125])
        gx, gw = T.grad(z.sum(), [x, w])
        np.testing.assert_allclose(gx.tag.test_value, [0.0, 1.5, 2.0])
        np.testing.assert_allclose(gw.tag.test_value, 4.75)
        r = T.Rop(z, x, T.ones_like(x))
        np.testing.assert_allclose(r.tag.test_value, [0.0, 1.0, 2.5])


def test_rop_through_a_loop_drawing_random_numbers():
    # The R-op loop carries the random stream as the forward loop does, from the same start,
    # so it sees the same draws. Last rows recorded from Theano 1.0.5 (oracle, same program);
    # before, R_op refused loops with shared states.
    rng = np.random.RandomState(3)
    v_u, v_W, v_h0 = (rng.uniform(size=(3, 5)) - .5, rng.uniform(size=(5, 5)) - .5,
                      rng.uniform(size=(5,)) - .5)
    v_eu, v_eW, v_eh0 = (rng.uniform(size=(3, 5)) - .5, rng.uniform(size=(5, 5)) - .5,
                         rng.uniform(size=(5,)) - .5)

    def rnn(u_t, y, W):
        srng = T.shared_randomstreams.RandomStreams(7)
        tmp = u_t + y + srng.uniform(size=(5,)) * 0.5
        return T.tanh(T.dot(W, tmp)), tmp

    u, h0, W = T.matrix("U"), T.vector("h0"), T.matrix("W")
    (o, _), _ = scan(rnn, sequences=u, outputs_info=[h0, None], non_sequences=W)
    eu, eh0, eW = T.matrix("eu"), T.vector("eh0"), T.matrix("eW")
    r = [T.Rop(o, u, eu), T.Rop(o, h0, eh0), T.Rop(o, W, eW)]
    f = jitgraph.function([u, h0, W, eu, eh0, eW], r + [o], on_unused_input="ignore")
    got = [a[-1] for a in f(v_u, v_h0, v_W, v_eu, v_eh0, v_eW)]
    want = [[-0.15447, 0.060352, 0.063642, 0.11087, -0.063024],
            [-0.007996, 0.017343, 0.102818, -0.07479, -0.047896],
            [0.157907, -0.334989, 0.050728, -0.308839, 0.105251],
            [-0.20927, 0.112613, -0.170346, 0.119375, 0.117959]]
    np.testing.assert_allclose(got, want, atol=2e-6)
