"""Convolutions against Theano 1.0.5's recorded results (values, gradients, second
derivatives, R-operators) and against an independent SciPy reference (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conv_cases import CONV_CASES, conv_inputs, projection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitgraph
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.convolution import conv_functions as CF
from jitgraph.tensor.convolution import conv_shapes as CS
from jitgraph.tensor.convolution.conv import (AbstractConv2d, AbstractConv2d_gradInputs,
                                  AbstractConv2d_gradWeights)
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.core.type import TensorType

ORACLE = np.load(Path(__file__).parent / "data" / "conv_oracle.npz")


def tensor(nd: int, name: str | None = None, dtype: str = "float64"):
    return TensorType(dtype, (False,) * nd).make_variable(name)


def build_conv(case, x, w):
    _, ishp, _, bm, sub, flip, dil, groups, unshared = case
    if len(ishp) == 4:
        return CF.abstract_conv2d(x, w, border_mode=bm, subsample=sub, filter_flip=flip,
                                  filter_dilation=dil, num_groups=groups, unshared=unshared)
    return CF.conv3d(x, w, border_mode=bm, subsample=sub, filter_flip=flip,
                     filter_dilation=dil, num_groups=groups)


@pytest.mark.parametrize("seed", range(len(CONV_CASES)), ids=[c[0] for c in CONV_CASES])
def test_conv_matches_theano(seed):
    case = CONV_CASES[seed]
    name = case[0]
    xv, wv = conv_inputs(case, seed)
    x, w = tensor(xv.ndim, "x"), tensor(wv.ndim, "w")
    o = build_conv(case, x, w)
    p = tensor(xv.ndim, "p")
    pv = projection(ORACLE[f"conv_{name}_out"].shape, seed)
    gx, gw = grad((o * p).sum(), [x, w])
    ggx, ggw, ggp = grad((gx ** 2).sum() + (gw ** 2).sum(), [x, w, p])
    outputs = {"out": o, "gx": gx, "gw": gw, "ggx": ggx, "ggw": ggw, "ggp": ggp}
    fn = jitgraph.function([x, w, p], list(outputs.values()))
    for key, value in zip(outputs, fn(xv, wv, pv)):
        np.testing.assert_allclose(value, ORACLE[f"conv_{name}_{key}"], rtol=1e-10,
                                   atol=1e-12, err_msg=f"{name} {key}")
    reference = evaluate(list(outputs.values()), {x: xv, w: wv, p: pv})
    for key, value in zip(outputs, reference):
        np.testing.assert_allclose(value, ORACLE[f"conv_{name}_{key}"], rtol=1e-10,
                                   atol=1e-12, err_msg=f"perform: {name} {key}")
    # R-operator (Theano records it for shared, ungrouped convolutions; the others are
    # checked against finite differences below)
    rng = np.random.RandomState(seed + 500)
    exv, ewv = rng.uniform(-1, 1, xv.shape), rng.uniform(-1, 1, wv.shape)
    ex, ew = tensor(xv.ndim), tensor(wv.ndim)
    (rop,) = o.owner.op.R_op([x, w], [ex, ew])
    got = evaluate(rop, {x: xv, w: wv, ex: exv, ew: ewv})
    key = f"conv_{name}_rop"
    if key in ORACLE:
        np.testing.assert_allclose(got, ORACLE[key], rtol=1e-10, atol=1e-12)
    else:
        eps = 1e-6
        plus = evaluate(o, {x: xv + eps * exv, w: wv + eps * ewv})
        minus = evaluate(o, {x: xv - eps * exv, w: wv - eps * ewv})
        np.testing.assert_allclose(got, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_conv_float32_compiled_matches_reference():
    case = CONV_CASES[3]
    xv, wv = (a.astype("float32") for a in conv_inputs(case, 3))
    x, w = tensor(4, "x", "float32"), tensor(4, "w", "float32")
    o = build_conv(case, x, w)
    gx, gw = grad(o.sum(), [x, w])
    got = jitgraph.function([x, w], [o, gx, gw])(xv, wv)
    ref = evaluate([o, gx, gw], {x: xv, w: wv})
    for g, r in zip(got, ref):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Independent reference: SciPy's correlate, one image/kernel pair at a time

def scipy_conv(x, w, pads, stride, dilation, groups, flip):
    from scipy.signal import correlate

    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    cin, cout = x.shape[1] // groups, w.shape[0] // groups
    dk = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], dilation)]
    out = []
    for n in range(x.shape[0]):
        rows = []
        for m in range(w.shape[0]):
            g = m // cout
            acc = 0
            for c in range(cin):
                k = w[m, c][(slice(None, None, -1),) * nd] if flip else w[m, c]
                kd = np.zeros(dk)
                kd[tuple(slice(None, None, d) for d in dilation)] = k
                acc = acc + correlate(xp[n, g * cin + c], kd, mode="valid")
            rows.append(acc[tuple(slice(None, None, s) for s in stride)])
        out.append(rows)
    return np.array(out)


@st.composite
def conv_problem(draw):
    nd = draw(st.sampled_from([2, 2, 3]))
    groups = draw(st.integers(1, 2))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilation = [draw(st.integers(1, 2)) for _ in range(nd)]
    stride = [draw(st.integers(1, 3)) for _ in range(nd)]
    kind = draw(st.sampled_from(["valid", "full", "half", "int", "pairs"]))
    dks = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    if kind == "int":
        border = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    elif kind == "pairs":
        border = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(nd))
    else:
        border = kind
    pads = CS.border_mode_to_pad(border, nd, dks)
    image = [draw(st.integers(max(1, dk - lo - hi), dk - lo - hi + 4))
             for dk, (lo, hi) in zip(dks, pads)]
    return (nd, draw(st.integers(1, 2)), cin, cout, image, kernel, border, pads, stride,
            dilation, groups, draw(st.booleans()), draw(st.sampled_from(["float64", "float32"])))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_problem(), st.integers(0, 2**16))
def test_conv_matches_scipy(problem, seed):
    (nd, batch, cin, cout, image, kernel, border, pads, stride, dilation, groups, flip,
     dtype) = problem
    rng = np.random.default_rng(seed)
    xv = rng.uniform(-1, 1, (batch, cin, *image)).astype(dtype)
    wv = rng.uniform(-1, 1, (cout, cin // groups, *kernel)).astype(dtype)
    x, w = tensor(nd + 2, "x", dtype), tensor(nd + 2, "w", dtype)
    fn = CF.abstract_conv2d if nd == 2 else CF.conv3d
    o = fn(x, w, border_mode=border, subsample=stride, filter_flip=flip,
           filter_dilation=dilation, num_groups=groups)
    expected = scipy_conv(xv.astype("float64"), wv.astype("float64"), pads, stride, dilation,
                          groups, flip)
    tol = 1e-4 if dtype == "float32" else 1e-10
    got = jitgraph.function([x, w], o)(xv, wv)
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    np.testing.assert_allclose(evaluate(o, {x: xv, w: wv}), expected, rtol=tol, atol=tol)
    # the gradients are the adjoints of the convolution: <g, conv(x, w)> is linear in each
    gv = rng.uniform(-1, 1, expected.shape).astype(dtype)
    g = tensor(nd + 2, "g", dtype)
    gx, gw = grad((o * g).sum(), [x, w])
    gxv, gwv = jitgraph.function([x, w, g], [gx, gw])(xv, wv, gv)
    total = float((expected * gv).sum())
    np.testing.assert_allclose((gxv.astype("float64") * xv).sum(), total, rtol=tol * 10,
                               atol=tol * 10)
    np.testing.assert_allclose((gwv.astype("float64") * wv).sum(), total, rtol=tol * 10,
                               atol=tol * 10)


# ---------------------------------------------------------------------------------------------
# Gradients by finite differences, including those of the gradient ops

GRAD_PARAMS = [dict(border_mode="valid"), dict(border_mode="full", subsample=(2, 1)),
               dict(border_mode=((1, 0), (2, 1)), filter_dilation=(2, 1), filter_flip=False),
               dict(border_mode="half", num_groups=2, subsample=(1, 2))]


@pytest.mark.parametrize("params", GRAD_PARAMS)
def test_verify_grad_conv_and_gradient_ops(params):
    rng = np.random.default_rng(3)
    groups = params.get("num_groups", 1)
    xv, wv = rng.uniform(-1, 1, (2, 2, 5, 4)), rng.uniform(-1, 1, (2, 2 // groups, 2, 3))
    verify_grad(lambda a, b: CF.abstract_conv2d(a, b, **params), [xv, wv], rng=rng)
    x, w = tensor(4), tensor(4)
    topv = rng.uniform(-1, 1, evaluate(CF.abstract_conv2d(x, w, **params), {x: xv, w: wv})
                       .shape)
    verify_grad(lambda k, t: AbstractConv2d_gradInputs(**params)(k, t, [5, 4]), [wv, topv],
                rng=rng)
    verify_grad(lambda i, t: AbstractConv2d_gradWeights(**params)(i, t, [2, 3]), [xv, topv],
                rng=rng)


def test_verify_grad_unshared_and_3d():
    rng = np.random.default_rng(4)
    xv, wv = rng.uniform(-1, 1, (1, 2, 4, 4)), rng.uniform(-1, 1, (2, 3, 2, 2, 2, 3))
    verify_grad(lambda a, b: CF.abstract_conv2d(a, b, unshared=True, subsample=(1, 1)),
                [xv, wv], rng=rng)
    x3, w3 = rng.uniform(-1, 1, (1, 2, 3, 4, 3)), rng.uniform(-1, 1, (2, 2, 2, 1, 2))
    verify_grad(lambda a, b: CF.conv3d(a, b, border_mode="half", subsample=(1, 2, 1)),
                [x3, w3], rng=rng)


def test_infer_shape(infer_shape_ok):
    rng = np.random.default_rng(5)
    x, w, t = tensor(4), tensor(4), tensor(4)
    xv, wv = rng.uniform(size=(2, 4, 7, 6)), rng.uniform(size=(6, 2, 3, 2))
    for params in GRAD_PARAMS + [dict(border_mode="half", filter_dilation=(2, 2))]:
        params = {**params, "num_groups": 2}
        o = CF.abstract_conv2d(x, w, **params)
        topv = evaluate(o, {x: xv, w: wv})
        infer_shape_ok(o, {x: xv, w: wv})
        infer_shape_ok(AbstractConv2d_gradInputs(**params)(w, t, x.shape[2:]),
                       {w: wv, t: topv, x: xv})
        infer_shape_ok(AbstractConv2d_gradWeights(**params)(x, t, w.shape[2:]),
                       {x: xv, t: topv, w: wv})


# ---------------------------------------------------------------------------------------------
# The other interfaces against Theano

def test_transpose_separable_causal_legacy_signal_match_theano():
    rng = np.random.RandomState(99)
    tv, kv = rng.uniform(-1, 1, (2, 4, 5, 5)), rng.uniform(-1, 1, (4, 3, 3, 3))
    t, k = tensor(4), tensor(4)
    o = CF.conv2d_transpose(t, k, (2, 3, 9, 10), border_mode=1, input_dilation=(2, 2))
    np.testing.assert_allclose(jitgraph.function([t, k], o)(tv, kv),
                               ORACLE["transpose_out"], rtol=1e-10)
    iv = rng.uniform(-1, 1, (2, 2, 7, 6))
    dv, pv = rng.uniform(-1, 1, (4, 1, 3, 2)), rng.uniform(-1, 1, (5, 4, 1, 1))
    i, d, pw = tensor(4), tensor(4), tensor(4)
    o = CF.separable_conv2d(i, d, pw, 2, border_mode="half", subsample=(2, 1))
    np.testing.assert_allclose(jitgraph.function([i, d, pw], o)(iv, dv, pv),
                               ORACLE["separable_out"], rtol=1e-10)
    sv, fv = rng.uniform(-1, 1, (2, 2, 9)), rng.uniform(-1, 1, (3, 2, 3))
    s, f = tensor(3), tensor(3)
    o = CF.causal_conv1d(s, f, (3, 2, 3), filter_dilation=2)
    np.testing.assert_allclose(jitgraph.function([s, f], o)(sv, fv), ORACLE["causal_out"],
                               rtol=1e-10)
    from jitgraph.tensor.nnet import conv as legacy

    lx, lw = rng.uniform(-1, 1, (2, 3, 6, 7)), rng.uniform(-1, 1, (4, 3, 3, 2))
    x, w = tensor(4), tensor(4)
    lo = legacy.conv2d(x, w, image_shape=(2, 3, 6, 7), filter_shape=(4, 3, 3, 2),
                       border_mode="full", subsample=(2, 1))
    assert isinstance(lo.owner.op, legacy.ConvOp)
    lg = grad((lo ** 2).sum(), [x, w])
    for got, key in zip(jitgraph.function([x, w], [lo, *lg])(lx, lw), ("out", "gx", "gw")):
        np.testing.assert_allclose(got, ORACLE[f"legacy_{key}"], rtol=1e-10)
    from jitgraph.tensor.signal import conv as signal_conv

    a3, b3 = rng.uniform(-1, 1, (2, 5, 6)), rng.uniform(-1, 1, (4, 2, 3))
    a, b = tensor(3), tensor(3)
    o = signal_conv.conv2d(a, b, border_mode="full")
    assert o.ndim == 4
    np.testing.assert_allclose(jitgraph.function([a, b], o)(a3, b3), ORACLE["signal_out"],
                               rtol=1e-10)


def test_signal_conv_ranks():
    """2-d/3-d images and filters give the slices of the 3-d by 3-d (4-d) result."""
    from jitgraph.tensor.signal import conv as signal_conv

    rng = np.random.default_rng(0)
    a3, b3 = rng.uniform(size=(2, 5, 6)), rng.uniform(size=(4, 2, 3))
    a, b = tensor(3), tensor(3)
    full = evaluate(signal_conv.conv2d(a, b), {a: a3, b: b3})
    assert full.shape == (2, 4, 4, 4)
    for an, bn, expect in [(2, 2, full[0, 0]), (3, 2, full[:, 0]), (2, 3, full[0])]:
        a, b = tensor(an), tensor(bn)
        av, bv = (a3 if an == 3 else a3[0]), (b3 if bn == 3 else b3[0])
        np.testing.assert_allclose(evaluate(signal_conv.conv2d(a, b), {a: av, b: bv}), expect)


def test_errors_name_the_argument():
    x, w = tensor(4), tensor(4)
    with pytest.raises(ValueError, match="border_mode"):
        CF.conv2d(x, w, border_mode="same")
    with pytest.raises(ValueError, match="border_mode"):
        CF.conv2d(x, w, border_mode=(1,))
    with pytest.raises(ValueError, match="subsample"):
        CF.conv2d(x, w, subsample=(0, 1))
    with pytest.raises(ValueError, match="num_groups"):
        CF.conv2d(x, w, num_groups=0)
    with pytest.raises(TypeError, match="kern"):
        CF.conv2d(x, tensor(2))
    with pytest.raises(TypeError, match="img"):
        CF.conv3d(x, tensor(5))
    with pytest.raises(ValueError, match="imshp_logical"):
        CF.conv2d(x, w, imshp_logical=(1, 2))
    with pytest.warns(UserWarning, match="image_shape"):
        CF.conv2d(x, w, image_shape=(2, 3, 5, 5))
    with pytest.raises(ValueError, match="not both"), pytest.warns(UserWarning):
        CF.conv2d(x, w, image_shape=(2, 3, 5, 5), input_shape=(2, 3, 5, 5))
    fn = jitgraph.function([x, w], CF.conv2d(x, w))
    with pytest.raises(ValueError, match="input channels"):
        fn(np.zeros((1, 3, 5, 5)), np.zeros((2, 2, 3, 3)))
    with pytest.raises(ValueError, match="larger than the padded image"):
        fn(np.zeros((1, 2, 2, 5)), np.zeros((2, 2, 3, 3)))
    op = AbstractConv2d(num_groups=2)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        evaluate(op(x, w), {x: np.zeros((1, 3, 5, 5)), w: np.zeros((2, 1, 3, 3))})
    from jitgraph.tensor.nnet import conv as legacy

    with pytest.raises(ValueError, match="'valid' or 'full'"):
        legacy.conv2d(x, w, border_mode="half")


def test_shape_helpers():
    assert CS.get_conv_output_shape((2, 3, 10, 11), (4, 3, 3, 3), "half", (2, 2), (2, 1)) == \
        (2, 4, 5, 6)
    assert CS.get_conv_output_shape((None, 3, 10, 11), (4, 3, 3, 3), ((1, 0), (2, 3)), (2, 2),
                                    (2, 1)) == (None, 4, 4, 7)
    assert CS.get_conv_output_shape((2, 3, 10, 11), (4, 9, 10, 3, 3, 3), "valid", (1, 1)) == \
        (2, 4, 8, 9)
    assert CS.get_conv_gradweights_shape((2, 3, 10, 11), (2, 4, 8, 9), "valid", (1, 1)) == \
        (4, 3, 3, 3)
    assert CS.get_conv_gradweights_shape((2, 3, 10, 11), (2, 4, 4, 5), "valid", (2, 2)) == \
        (4, 3, None, None)
    assert CS.get_conv_gradinputs_shape((4, 3, 3, 3), (2, 4, 8, 9), "valid", (1, 1)) == \
        (2, 3, 10, 11)
    assert CS.get_conv_gradinputs_shape((4, 3, 3, 3), (2, 4, 12, 13), "full", (1, 1)) == \
        (2, 3, 10, 11)
    assert CS.border_mode_to_pad("full", 2, (3, 4)) == ((2, 2), (3, 3))
    assert CS.border_mode_to_pad(((1, 2), (3, 4)), 2, (3, 4)) == ((1, 2), (3, 4))
    assert CS.check_conv_gradinputs_shape((2, 3, 10, 11), (4, 3, 3, 3), (2, 4, 8, None),
                                          "valid", (1, 1))
    assert not CS.check_conv_gradinputs_shape((2, 3, 10, 11), (4, 3, 3, 3), (2, 4, 7, 9),
                                              "valid", (1, 1))
    with pytest.raises(ValueError, match="invalid entry"):
        CS.assert_conv_shape((2, 3, 0, 4))


def test_assert_conv_shape_checks_symbolic_entries_when_run():
    # Theano 1.0.5: f(1, 2, 3, 4) gives [1, 2, 3, 4]; (3, 3, 3, 0), (3, 3, -1, 3) and
    # (3, -1, 3, 3) raise AssertionError "The convolution would produce an invalid shape
    # (dim[3] <= 0)." (dim[2] <= 0, dim[1] < 0); a constant 0 spatial size is a ValueError now
    import jitgraph.tensor as T

    shape = tuple(T.iscalar() for _ in range(4))
    f = jitgraph.function(shape, CS.assert_conv_shape(shape))
    assert [int(v) for v in f(1, 2, 3, 4)] == [1, 2, 3, 4]
    assert [int(v) for v in f(0, 0, 1, 1)] == [0, 0, 1, 1]
    for args, what in [((3, 3, 3, 0), r"dim\[3\] <= 0"), ((3, 3, -1, 3), r"dim\[2\] <= 0"),
                       ((3, -1, 3, 3), r"dim\[1\] < 0")]:
        with pytest.raises(AssertionError, match=what):
            f(*args)
    with pytest.raises(ValueError, match="invalid entry"):
        CS.assert_conv_shape((2, 3, T.constant(0), 4))


def test_debugmode_nanguard_and_profile():
    """DebugMode (checks every node's perform, shapes and strides), NanGuardMode and the
    profiler on a graph with convolutions, pooling and their gradients."""
    import io

    from jitgraph.compile.nanguardmode import NanGuardMode
    from jitgraph.tensor.convolution import pool

    x, w = tensor(4, "x"), tensor(4, "w")
    o = pool.pool_2d(CF.conv2d(x, w, border_mode="half", subsample=(1, 2)), (2, 2),
                     ignore_border=True, mode="average_exc_pad")
    c = (o.max() + (o ** 2).sum())
    outs = [c, *grad(c, [x, w])]
    rng = np.random.default_rng(0)
    xv, wv = rng.uniform(size=(2, 3, 6, 7)), rng.uniform(size=(4, 3, 3, 2))
    expected = evaluate(outs, {x: xv, w: wv})
    for mode in ("DebugMode", NanGuardMode(nan_is_error=True, inf_is_error=True)):
        for got, exp in zip(jitgraph.function([x, w], outs, mode=mode)(xv, wv), expected):
            np.testing.assert_allclose(got, exp, rtol=1e-10)
    with pytest.raises(AssertionError, match="NaN"):
        jitgraph.function([x, w], outs, mode=NanGuardMode(nan_is_error=True))(xv * np.nan, wv)
    fn = jitgraph.function([x, w], outs, profile=True)
    fn(xv, wv)
    text = io.StringIO()
    fn.profile.summary(file=text)
    assert "CorrMM_gradWeights" in text.getvalue() and "AveragePoolGrad" in text.getvalue()


def test_a_symbolic_vector_is_no_shape_hint():
    # Theano 1.0.5 raises ValueError for imshp/kshp given as a symbolic vector (even a constant
    # one, or x.shape) and accepts a tuple or list of ints or constant scalars
    import jitgraph.tensor as T

    for op in (AbstractConv2d, AbstractConv2d_gradInputs):
        for hint in (T.lvector(), T.constant([3, 5, 7, 11]), T.zeros((3, 5, 7, 11)).shape):
            with pytest.raises(ValueError, match="no hint"):
                op(imshp=hint)
            with pytest.raises(ValueError, match="no hint"):
                op(kshp=hint)
        assert op(imshp=[T.constant(i, dtype="int64") for i in (3, 5, 7, 11)]).imshp == \
            (3, 5, 7, 11)


def test_theano_flag_imported_scipy_signal():
    # Theano's tests skip the grouped, unshared and padded convolutions when it is False;
    # jitgraph's kernels need no scipy.signal
    import importlib

    assert importlib.import_module("jitgraph.tensor.nnet.abstract_conv").imported_scipy_signal
