"""Every elementwise op against NumPy: values, dtypes, broadcasting, layouts, gradients."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.elementwise import scalar_ops as scalar
from jitgraph.tensor.core.gradient import verify_grad

UNARY_DOMAINS = {
    # name: (numpy reference, low, high) for float inputs
    "neg": (np.negative, -3, 3), "abs": (np.abs, -3, 3), "sgn": (np.sign, -3, 3),
    "exp": (np.exp, -3, 3), "exp2": (np.exp2, -3, 3), "expm1": (np.expm1, -3, 3),
    "log": (np.log, 0.1, 3), "log2": (np.log2, 0.1, 3), "log10": (np.log10, 0.1, 3),
    "log1p": (np.log1p, -0.5, 3), "sqrt": (np.sqrt, 0.1, 3), "sqr": (np.square, -3, 3),
    "reciprocal": (np.reciprocal, 0.2, 3), "sin": (np.sin, -3, 3), "cos": (np.cos, -3, 3),
    "tan": (np.tan, -1, 1), "arcsin": (np.arcsin, -0.9, 0.9), "arccos": (np.arccos, -0.9, 0.9),
    "arctan": (np.arctan, -3, 3), "sinh": (np.sinh, -3, 3), "cosh": (np.cosh, -3, 3),
    "tanh": (np.tanh, -3, 3), "arcsinh": (np.arcsinh, -3, 3), "arccosh": (np.arccosh, 1.1, 3),
    "arctanh": (np.arctanh, -0.9, 0.9), "floor": (np.floor, -3, 3), "ceil": (np.ceil, -3, 3),
    "trunc": (np.trunc, -3, 3),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), -5, 5),
    "softplus": (lambda x: np.log1p(np.exp(x)), -5, 5),
    "erf": (np.vectorize(__import__("math").erf), -2, 2),
    "erfc": (np.vectorize(__import__("math").erfc), -2, 2),
}
SMOOTH = [n for n in UNARY_DOMAINS if n not in ("sgn", "floor", "ceil", "trunc")]


def run(out, givens):
    return evaluate(out, givens)


@pytest.mark.parametrize("name", sorted(UNARY_DOMAINS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_matches_numpy(name, dtype):
    ref, lo, hi = UNARY_DOMAINS[name]
    rng = np.random.default_rng(0)
    value = rng.uniform(lo, hi, (3, 4)).astype(dtype)
    x = T.matrix("x", dtype=dtype)
    out = getattr(T, name)(x)
    got = run(out, {x: value})
    expected = ref(value)
    assert got.dtype == out.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-12,
                               atol=1e-6)


@pytest.mark.parametrize("name", SMOOTH)
def test_unary_gradient(name):
    _, lo, hi = UNARY_DOMAINS[name]
    value = np.random.default_rng(1).uniform(lo, hi, (2, 3))
    verify_grad(getattr(T, name), [value], rng=0)


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "true_div": np.true_divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum, "arctan2": np.arctan2,
    "mod": np.mod, "int_div": np.floor_divide,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting_matches_numpy(name):
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 2.0, (3, 1, 4))
    b = rng.uniform(0.5, 2.0, (5, 1))
    x = T.tensor3("x", dtype="float64")
    x = T.TensorType("float64", (False, True, False))("x")
    y = T.TensorType("float64", (False, True))("y")
    got = run(getattr(T, name)(x, y), {x: a, y: b})
    np.testing.assert_allclose(got, BINARY[name](a, b), rtol=1e-12)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "true_div", "pow", "maximum",
                                  "minimum", "arctan2"])
def test_binary_gradient_with_broadcasting(name):
    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 2.0, (3, 4))
    b = rng.uniform(0.6, 2.1, (1, 4))
    verify_grad(getattr(T, name), [a, b], rng=0)


def test_comparisons_and_logic():
    x, y = T.dvectors("x y")
    a = np.array([1.0, 2.0, 3.0, np.nan])
    b = np.array([3.0, 2.0, 1.0, 0.0])
    for name, ref in [("eq", np.equal), ("neq", np.not_equal), ("lt", np.less),
                      ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)]:
        got = run(getattr(T, name)(x, y), {x: a, y: b})
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, ref(a, b))
    p, q = T.bvectors("p q")
    u, v = np.array([1, 6, -3], "int8"), np.array([3, 5, 7], "int8")
    np.testing.assert_array_equal(run(T.and_(p, q), {p: u, q: v}), u & v)
    np.testing.assert_array_equal(run(p | q, {p: u, q: v}), u | v)
    np.testing.assert_array_equal(run(p ^ q, {p: u, q: v}), u ^ v)
    np.testing.assert_array_equal(run(~p, {p: u}), ~u)
    np.testing.assert_array_equal(run(T.isnan(x), {x: a}), np.isnan(a))
    np.testing.assert_array_equal(run(T.isinf(x / 0), {x: a}), np.isinf(a / 0))


def test_switch_clip_and_gradients():
    c = T.bvector("c")
    x, y = T.dvectors("x y")
    cv = np.array([1, 0, 1], "int8")
    xv, yv = np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0, -3.0])
    np.testing.assert_array_equal(run(T.switch(c, x, y), {c: cv, x: xv, y: yv}),
                                  np.where(cv, xv, yv))
    np.testing.assert_array_equal(run(T.clip(x, 1.5, 2.5), {x: xv}), np.clip(xv, 1.5, 2.5))
    verify_grad(lambda a, b: T.switch(T.gt(a, 0.5), a * 2, b * 3),
                [np.array([0.1, 0.9, 0.7]), np.array([1.0, 2.0, 3.0])], rng=0)
    verify_grad(lambda a: T.clip(a, 0.3, 0.6), [np.array([0.1, 0.45, 0.9])], rng=0)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_clip_with_lo_above_hi_follows_theano(mode):
    # Theano 1.0.5: x below lo gives lo, else min(x, hi); numpy.clip would give hi everywhere
    x, lo, hi = T.dvector("x"), T.dscalar("lo"), T.dscalar("hi")
    f = jitgraph.function([x, lo, hi], T.clip(x, lo, hi), mode=mode)
    xv = np.array([-3.0, -1.0, 0.0, 0.5, 1.0, 2.5, np.nan])
    np.testing.assert_array_equal(f(xv, 1.0, -1.0), [1.0, 1.0, 1.0, 1.0, -1.0, -1.0, np.nan])
    np.testing.assert_array_equal(f(xv, -1.0, 1.0), [-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, np.nan])
    np.testing.assert_array_equal(f(xv, np.nan, 1.0), [-3.0, -1.0, 0.0, 0.5, 1.0, 1.0, np.nan])
    i = T.lvector("i")
    clipped = jitgraph.function([i], T.clip(i, 5, 2), mode=mode)(np.array([0, 3, 9]))
    assert clipped.tolist() == [5, 5, 2] and clipped.dtype == "int64"  # Theano 1.0.5's


def test_round_modes_and_cast():
    x = T.dvector("x")
    v = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    np.testing.assert_array_equal(run(T.round(x), {x: v}), np.round(v))
    np.testing.assert_array_equal(run(T.round(x, "half_away_from_zero"), {x: v}),
                                  [-3, -2, -1, 1, 2, 3])
    out = T.cast(x, "int32")
    assert out.dtype == "int32"
    np.testing.assert_array_equal(run(out, {x: v}), v.astype("int32"))
    assert T.cast(x, "float64") is x


# -- dtype rules ------------------------------------------------------------------------------

def test_python_constants_follow_custom_cast_policy():
    assert (T.fvector() * 0.5).dtype == "float32"   # exact in float32
    assert (T.fvector() * 0.1).dtype == "float64"   # needs float64 when floatX=float64
    assert (T.ivector() * 2).dtype == "int32"
    assert (T.bvector() * 300).dtype == "int16"
    assert (T.fvector() + T.lvector()).dtype == "float64"
    assert T.exp(T.ivector()).dtype == "float64"
    assert T.exp(T.bvector()).dtype == "float32"
    assert (T.lvector() > 0).dtype == "bool"


def test_floatx_float32_keeps_float32_literals():
    # Theano 1.0.5 under floatX=float32: Python float literals become float32 constants, but
    # an int64 (or int32) tensor with a float32 one upcasts to float64, as NumPy does
    with jitgraph.config.change_flags(floatX="float32"):
        assert (T.fvector() * 0.1).dtype == "float32"
        assert (T.fvector() + T.lvector()).dtype == "float64"
        assert (T.fvector() + T.bvector()).dtype == "float32"
        assert T.vector().dtype == "float32"


@pytest.mark.parametrize("policy,expected", [("int", "int64"), ("floatX", "float64")])
def test_int_division_policy(policy, expected):
    # Theano 1.0.5 (Python 3): the flag governs T.div_proxy (and scalar /) ...
    with jitgraph.config.change_flags(int_division=policy):
        with pytest.warns(DeprecationWarning) if policy == "int" else _nullcontext():
            out = T.div_proxy(T.lvector(), T.lvector())
        assert out.dtype == expected


@pytest.mark.parametrize("policy", ["int", "floatX", "raise"])
def test_tensor_slash_is_true_division_under_every_policy(policy):
    # ... while ``/`` on tensors is true division: int32 / int32 -> float64, as Theano 1.0.5
    with jitgraph.config.change_flags(int_division=policy):
        i, j = T.ivector("i"), T.ivector("j")
        assert (i / j).dtype == (i / 2).dtype == (7 / i).dtype == "float64"
        f = jitgraph.function([i], [i / 2, T.sum(T.eq(i, 1)) / i.shape[0]])
        half, share = f(np.array([1, 3], dtype="int32"))
        np.testing.assert_array_equal(half, [0.5, 1.5])
        assert share == 0.5


def test_int_division_raise():
    with jitgraph.config.change_flags(int_division="raise"):
        with pytest.raises(TypeError, match="int_division"):
            T.div_proxy(T.lvector(), T.lvector())


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_non_broadcastable_dims_must_match():
    x, y = T.dvectors("x y")
    with pytest.raises(ValueError, match="dimension mismatch"):
        run(x + y, {x: np.ones(3), y: np.ones(1)})


def test_bitwise_ops_reject_floats():
    with pytest.raises(TypeError, match="bitwise"):
        T.dvector() & T.dvector()


def test_every_scalar_op_has_a_public_function_or_is_internal():
    public = set(dir(T)) | set(T.xlogx.__all__)  # xlogx, xlogy0: T.xlogx.* as in Theano
    internal = {"round_half_to_even", "round_half_away_from_zero", "identity", "second",
                # Theano has no tensor function for these either: ProdWithoutZeros's fold and
                # the four rows scalar.basic.InRange(openlow, openhi) gives
                "mul_without_zeros", "inopenrange", "inclosedrange", "inrange_open_low",
                "inrange_open_high"}
    for sop in scalar.all_scalar_ops():
        assert sop.name in public or sop.name in internal, sop.name


# -- property-based: random broadcasting, dtypes and memory layouts --------------------------

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "bool"]


@st.composite
def broadcast_pair(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    other = tuple(1 if draw(st.booleans()) else s for s in shape)
    return shape, other


@given(pair=broadcast_pair(), dtype_a=st.sampled_from(DTYPES), dtype_b=st.sampled_from(DTYPES),
       name=st.sampled_from(["add", "sub", "mul", "maximum", "minimum"]),
       flip=st.booleans(), transpose=st.booleans())
def test_random_binary_graphs_match_numpy(pair, dtype_a, dtype_b, name, flip, transpose):
    shape_a, shape_b = pair
    if name == "sub" and "bool" in (dtype_a, dtype_b):
        return  # NumPy refuses bool subtraction; our rule upcasts to int8 instead
    rng = np.random.default_rng(0)
    a = (rng.uniform(-5, 5, shape_a) * 3).astype(dtype_a)
    b = (rng.uniform(-5, 5, shape_b) * 3).astype(dtype_b)
    if flip and a.ndim:
        a = np.flip(a, axis=0)
    if transpose and a.ndim >= 2:
        a = a.swapaxes(0, 1)
        b = b.swapaxes(0, 1) if b.ndim >= 2 else b
    x = T.TensorType(dtype_a, [s == 1 for s in a.shape])("x")
    y = T.TensorType(dtype_b, [s == 1 for s in b.shape])("y")
    out = getattr(T, name)(x, y)
    got = run(out, {x: a, y: b})
    with np.errstate(all="ignore"):
        expected = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply",
                                "maximum": "maximum", "minimum": "minimum"}[name])(
            a.astype(out.dtype), b.astype(out.dtype))
    assert got.dtype == out.dtype
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@given(values=hnp.arrays("float64", hnp.array_shapes(min_dims=0, max_dims=2, max_side=4),
                         elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])))
def test_special_values_follow_numpy(values):
    x = T.TensorType("float64", [s == 1 for s in values.shape])("x")
    out = T.exp(x) * T.abs(x) - T.sqr(x)
    with np.errstate(all="ignore"):
        expected = np.exp(values) * np.abs(values) - np.square(values)
    np.testing.assert_array_equal(run(out, {x: values}), expected)


def test_output_dtypes_of_division_and_rounding_follow_theano():
    # Theano 1.0.5: integer / integer -> floatX; floor/ceil/trunc of integers -> a float type
    for floatx in ("float64", "float32"):
        with jitgraph.config.change_flags(floatX=floatx):
            for dtype in ("bool", "int8", "int32", "uint64"):
                x = T.vector("x", dtype=dtype)
                assert (x / x).dtype == floatx
                assert T.true_div(x, 1).dtype == floatx
    for dtype, expected in (("int8", "float32"), ("bool", "float32"), ("int32", "float64"),
                            ("int64", "float64")):
        x = T.vector("x", dtype=dtype)
        assert T.floor(x).dtype == T.ceil(x).dtype == T.trunc(x).dtype == expected
    b = T.bvector("b")
    np.testing.assert_array_equal(jitgraph.function([b], T.ceil(b))(np.array([3, -2], "int8")),
                                  np.array([3.0, -2.0], "float32"))
