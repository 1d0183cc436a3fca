"""The native loop (the whole scan as one kernel) against the step-by-step loop and NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.lowering import scan as lower_scan
from jitgraph.scan import Scan, scan, until

RNG = np.random.default_rng(7)


def compiled(inputs, outputs, native=True):
    """Compiled with or without native loops (not from the compiledir's graph cache, which
    would give back whichever program was linked first)."""
    import os

    old, old_env = lower_scan.NATIVE, os.environ.get("JITGRAPH_GRAPH_CACHE")
    lower_scan.NATIVE = native
    os.environ["JITGRAPH_GRAPH_CACHE"] = "0"
    try:
        return jitgraph.function(inputs, outputs, mode=jitgraph.Mode(linker="cvm"))
    finally:
        lower_scan.NATIVE = old
        if old_env is None:
            del os.environ["JITGRAPH_GRAPH_CACHE"]
        else:
            os.environ["JITGRAPH_GRAPH_CACHE"] = old_env


def loop_kinds(fn):
    prog = fn._program
    return [(lw.kind, lw.notes.get("scan")) for node, lw in zip(prog.order, prog.lowered)
            if isinstance(node.op, Scan)]


def check_same(inputs, outputs, *args):
    native = compiled(inputs, outputs, True)
    step = compiled(inputs, outputs, False)
    assert all(kind == "Numba" for kind, _ in loop_kinds(native)), loop_kinds(native)
    assert all(kind == "Py" for kind, _ in loop_kinds(step))
    got, want = native(*args), step(*args)
    for a, b in zip(got if isinstance(got, list) else [got],
                    want if isinstance(want, list) else [want]):
        # float32 sums may round differently in the loop than in the step program (an ulp)
        tol = 1e-6 if np.asarray(a).dtype == np.float32 else 1e-12
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    return got


def test_elman_step_with_matrix_vector_products():
    X, W, U, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dmatrix("U"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W, U: T.nnet.sigmoid(T.dot(x, U) + T.dot(h, W)), sequences=X,
                 outputs_info=h0, non_sequences=[W, U])
    got = check_same([X, W, U, h0], [hs, hs[-1]], RNG.normal(size=(6, 3)),
                     RNG.normal(size=(4, 4)), RNG.normal(size=(3, 4)), RNG.normal(size=4))
    assert got[0].shape == (6, 4)


def test_batched_state_taps_and_outputs_not_fed_back():
    X, h0 = T.dtensor3("X"), T.dtensor3("h0")
    W = T.dmatrix("W")

    def step(x, h2, h1, W):
        h = T.tanh(T.dot(h1, W) + x) - 0.5 * h2
        return h, (h ** 2).sum(axis=1), T.nnet.softmax(h)

    (hs, norms, probs), _ = scan(step, sequences=X,
                                 outputs_info=[dict(initial=h0, taps=[-2, -1]), None, None],
                                 non_sequences=W)
    check_same([X, h0, W], [hs, norms, probs], RNG.normal(size=(5, 3, 4)),
               RNG.normal(size=(2, 3, 4)), RNG.normal(size=(4, 4)))


def test_ring_buffer_and_do_while():
    x0, limit = T.dscalar("x0"), T.dscalar("limit")

    def grow(h, lim):
        new = h * 1.5 + 0.1
        return new, until(T.gt(new, lim))

    vals, _ = scan(grow, outputs_info=x0, non_sequences=limit, n_steps=100)
    got = check_same([x0, limit], [vals, vals[-1]], 0.2, 30.0)
    assert got[0][-2] <= 30.0 < got[0][-1]


def test_indexing_and_increments_in_the_step():
    x = T.dvector("x")
    yy = x ** 2
    J, _ = scan(lambda i, yy, x: T.grad(yy[i], x), sequences=T.arange(yy.shape[0]),
                non_sequences=[yy, x])
    got = check_same([x], J, np.array([4., 3., 1.]))
    np.testing.assert_allclose(got, np.diag([8., 6., 2.]))


def test_gradient_loops_run_natively():
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x), sequences=X, outputs_info=h0,
                 non_sequences=W)
    cost = (hs ** 2).sum()
    check_same([X, W, h0], [cost] + T.grad(cost, [X, W, h0]), RNG.normal(size=(7, 3)),
               RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=3))


def test_large_products_run_step_by_step(monkeypatch):
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x), sequences=X, outputs_info=h0,
                 non_sequences=W)
    f = compiled([X, W, h0], hs)
    calls = []
    import jitgraph.scan.runner as runner

    real = runner.run_scan
    monkeypatch.setattr(runner, "run_scan", lambda *a: calls.append(1) or real(*a))
    args = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=3)
    want = f(*args)
    assert not calls
    monkeypatch.setattr(lower_scan, "BLAS_WORK", 0)
    np.testing.assert_allclose(f(*args), want)
    assert calls


def test_errors_in_a_native_loop_name_the_step():
    x = T.dmatrix("x")
    idx = T.ivector("idx")
    out, _ = scan(lambda i, x: x[i] * 2, sequences=idx, non_sequences=x)
    f = compiled([idx, x], out)
    assert loop_kinds(f)[0][0] == "Numba"
    np.testing.assert_allclose(f(np.array([1, -1], dtype="int32"), np.eye(2)),
                               [[0, 2], [0, 2]])
    with pytest.raises(IndexError, match="in step 1 of scan"):
        f(np.array([0, 5], dtype="int32"), np.ones((2, 2)))


UNARY = [T.tanh, T.sin, T.cos, lambda v: v * v, lambda v: -v, T.nnet.sigmoid]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, T.maximum]


@settings(max_examples=15)
@given(st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1)),
                min_size=1, max_size=4),
       st.lists(st.integers(-3, -1), min_size=1, max_size=2, unique=True),
       st.integers(1, 6), st.booleans())
def test_random_step_graphs_native_matches_step_by_step(program, taps, length, backwards):
    x = T.dmatrix("x")
    h0 = T.dmatrix("h0")

    def step(xt, *hs):
        v = xt
        for u, b in program:
            v = BINARY[b](UNARY[u](v), hs[(u + b) % len(hs)])
        return 0.5 * v

    out, _ = scan(step, sequences=x, outputs_info=dict(initial=h0, taps=taps),
                  go_backwards=backwards)
    n_init = -min(taps)
    check_same([x, h0], out, RNG.normal(size=(length, 3)), RNG.normal(size=(n_init, 3)))


def _native_loops(fn):
    """The native loops a compiled function calls (globals of its driver)."""
    return [v for v in fn._program.run.__globals__.values()
            if isinstance(v, lower_scan.NativeLoop)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_transcendentals_run_through_the_vecmath_blocks(dtype):
    """Several primitives in one fused step (exp feeding tanh, log1p, sin), a matrix state
    and a scalar one: the loop calls the block functions the step-by-step kernels call."""
    x = T.matrix("x", dtype=dtype)
    h0 = T.vector("h0", dtype=dtype)
    c0 = T.scalar("c0", dtype=dtype)

    def step(xt, h, c):
        new = T.tanh(T.exp(-h * h) * xt) + T.log1p(h * h) * T.sin(xt) - c / 10
        return new.astype(dtype), (T.cos(c) + new.sum()).astype(dtype)

    (hs, cs), _ = scan(step, sequences=x, outputs_info=[h0, c0])
    args = (RNG.normal(size=(6, 5)).astype(dtype), RNG.normal(size=5).astype(dtype),
            np.asarray(0.3, dtype=dtype))
    got = check_same([x, h0, c0], [hs, cs], *args)
    f = compiled([x, h0, c0], [hs, cs])
    f(*args)
    (loop,) = _native_loops(f)
    for name in ("exp", "tanh", "log1p", "sin", "cos"):
        assert f'block_call("{name}"' in loop.ks.source
    # NumPy's own functions agree to rounding
    h, c = args[1].astype("float64"), float(args[2])
    for t in range(6):
        xt = args[0][t].astype("float64")
        h = np.tanh(np.exp(-h * h) * xt) + np.log1p(h * h) * np.sin(xt) - c / 10
        c = np.cos(c) + h.sum()
        np.testing.assert_allclose(got[0][t], h, rtol=1e-4 if dtype == "float32" else 1e-12)


def test_contiguous_and_strided_arrays_pick_their_entry():
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x), sequences=X, outputs_info=h0,
                 non_sequences=W)
    f = compiled([X, W, h0], hs)
    (loop,) = _native_loops(f)
    # tanh reads the product's array and writes its own output array: no copies around it
    assert re.search(r'block_call\("tanh", w\d+, w\d+,', loop.ks.source), loop.ks.source
    Xv, Wv, hv = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=3)
    a = f(Xv, Wv, hv)
    assert set(loop._kernels) == {"loop_c"}
    b = f(Xv[::-1].copy()[::-1], Wv.T.copy().T, hv)  # same values, reversed / transposed
    assert set(loop._kernels) == {"loop_c", "loop"}
    np.testing.assert_array_equal(a, b)


def test_the_step_program_is_linked_only_when_a_call_runs_step_by_step(monkeypatch):
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x) * 0.75, sequences=X,
                 outputs_info=h0, non_sequences=W)
    f = compiled([X, W, h0], hs)
    (loop,) = _native_loops(f)
    assert not loop.op.inner.__dict__.get("_compiled")  # only rewritten so far
    args = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=3)
    want = f(*args)
    assert not loop.op.inner.__dict__.get("_compiled")
    monkeypatch.setattr(lower_scan, "BLAS_WORK", 0)  # now the products are "large"
    np.testing.assert_allclose(f(*args), want, rtol=1e-12)
    assert loop.op.inner.__dict__.get("_compiled")


def test_a_block_result_written_to_a_matrix_output_and_read_again_compiles():
    """tanh(h W + x) of a matrix state is a loop output written by the block function and
    read again in the same node (``t * x``): the read used the flat block index on the 2-d
    output array, Numba refused the loop and every call ran step by step (found with
    theanets' MUT1 layer)."""
    X, W, h0 = T.dtensor3("X"), T.dmatrix("W"), T.dmatrix("h0")

    def step(x, h, W):
        t = T.tanh(T.dot(h, W) + x)
        return t, 0.5 * h + t * x

    (ts, hs), _ = scan(step, sequences=X, outputs_info=[None, h0], non_sequences=W)
    args = RNG.normal(size=(4, 2, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=(2, 3))
    check_same([X, W, h0], [ts, hs], *args)
    f = compiled([X, W, h0], [ts, hs])
    f(*args)
    (loop,) = _native_loops(f)
    assert loop._kernels["loop_c"] is not False, loop.ks.source
