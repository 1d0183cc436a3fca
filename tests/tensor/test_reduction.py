"""Reductions against NumPy: values, dtypes, axes, keepdims, layouts, 0-size, gradients, shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.conversion import constant
from jitgraph.tensor.elementwise import reduction as R
from jitgraph.tensor.elementwise import statistics as S
from jitgraph.tensor.elementwise.composite import Composite
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp, float_out
from jitgraph.tensor.elementwise.scalar_ops import op as sop
from jitgraph.tensor.core.gradient import verify_grad
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.type_other import NoneConst

DTYPES = ["bool", "int8", "int32", "uint8", "float32", "float64"]
SHAPES = [(), (0,), (4,), (2, 3), (2, 0, 3), (3, 1, 2)]
def _function(name):
    """The public reduction ``name`` (mean/var/std live in tensor.statistics)."""
    return getattr(S if name in ("mean", "var", "std") else R, name)


NP_FUNCS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "all": np.all,
            "any": np.any}
EXPECTED_DTYPE = {
    "sum": {"bool": "int64", "int8": "int64", "int32": "int64", "uint8": "uint64"},
    "prod": {"bool": "int64", "int8": "int64", "int32": "int64", "uint8": "uint64"},
    "all": {d: "bool" for d in DTYPES}, "any": {d: "bool" for d in DTYPES},
}


def var_like(value: np.ndarray, name: str = "x"):
    return TensorType(value.dtype.name, [False] * value.ndim).make_variable(name)


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("uint"):
        return rng.integers(0, 4, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(dtype)
    return rng.uniform(-2, 2, shape).astype(dtype)


def layouts(value: np.ndarray):
    """The same kind of value as contiguous, reversed (negative strides) and transposed arrays."""
    yield value
    if value.ndim:
        yield value[::-1]
        yield value.T


def axis_choices(ndim):
    yield None
    for a in range(-ndim, ndim):
        yield a
    if ndim >= 2:
        yield (0, ndim - 1)
        yield (-1, 0)


def check_close(got, expected, dtype):
    assert got.shape == np.shape(expected)
    rtol = 1e-4 if dtype in ("float16", "float32") else 1e-10
    np.testing.assert_allclose(got.astype("float64"), np.asarray(expected, dtype="float64"),
                               rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("name", sorted(NP_FUNCS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_match_numpy(name, dtype):
    fn, ref = _function(name), NP_FUNCS[name]
    for shape in SHAPES:
        for value in layouts(sample(shape, dtype)):
            x = var_like(value)
            for axis in axis_choices(value.ndim):
                for keepdims in (False, True):
                    out = fn(x, axis=axis, keepdims=keepdims)
                    try:
                        expected = ref(value, axis=axis, keepdims=keepdims)
                    except ValueError:
                        with pytest.raises(ValueError, match="zero-size"):
                            evaluate(out, {x: value})
                        continue
                    got = evaluate(out, {x: value})
                    assert got.dtype.name == out.dtype
                    assert out.dtype == EXPECTED_DTYPE.get(name, {}).get(dtype, dtype)
                    check_close(got, expected, dtype)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "float32", "float64"])
def test_arg_reductions_match_numpy(name, dtype):
    fn, ref = _function(name), getattr(np, name)
    for shape in [(), (4,), (2, 3), (3, 1, 2)]:
        for value in layouts(sample(shape, dtype, seed=3)):
            x = var_like(value)
            for axis in [None] + list(range(-value.ndim, value.ndim)):
                for keepdims in (False, True):
                    out = fn(x, axis=axis, keepdims=keepdims)
                    got = evaluate(out, {x: value})
                    assert out.dtype == got.dtype.name == "int64"
                    np.testing.assert_array_equal(got, ref(value, axis=axis, keepdims=keepdims))


def test_argmax_several_axes_index_the_flattened_block():
    value = sample((2, 3, 4), "float64", seed=4)
    x = var_like(value)
    got = evaluate(R.argmax(x, axis=(0, 2)), {x: value})
    expected = np.argmax(np.transpose(value, (1, 0, 2)).reshape(3, -1), axis=1)
    np.testing.assert_array_equal(got, expected)


def test_arg_reductions_of_empty_raise():
    x = TensorType("float64", (False, False)).make_variable()
    with pytest.raises(ValueError, match="Argmax.*zero-size"):
        evaluate(R.argmax(x, axis=1), {x: np.zeros((2, 0))})
    # Reducing a non-empty axis of a 0-size array is fine, as in NumPy.
    assert evaluate(R.argmin(x, axis=0), {x: np.zeros((2, 0))}).shape == (0,)


def test_empty_reduction_identities():
    x = TensorType("float64", (False, False)).make_variable()
    empty = np.zeros((0, 3))
    np.testing.assert_array_equal(evaluate(R.sum(x), {x: empty}), 0.0)
    np.testing.assert_array_equal(evaluate(R.prod(x), {x: empty}), 1.0)
    np.testing.assert_array_equal(evaluate(R.sum(x, axis=0), {x: empty}), np.zeros(3))
    assert evaluate(R.all(x), {x: empty}) and not evaluate(R.any(x), {x: empty})
    with pytest.raises(ValueError, match=r"Reduce{maximum}.*shape \(0, 3\)"):
        evaluate(R.max(x, axis=0), {x: empty})
    assert evaluate(R.max(x, axis=1), {x: empty}).shape == (0,)


# ---------------------------------------------------------------------------------------------
# dtype rules

def test_sum_prod_dtype_parameters():
    x = TensorType("float32", (False,)).make_variable()
    assert R.sum(x).dtype == "float32"
    assert R.sum(x).owner.op.acc_dtype_for("float32") == "float64"  # Theano's accumulator
    assert R.sum(x, dtype="float64").dtype == "float64"
    assert R.sum(x, dtype="float64").owner.op.acc_dtype_for("float32") == "float64"
    assert R.sum(x, acc_dtype="float64").dtype == "float32"
    with pytest.raises(TypeError, match="acc_dtype=float16 would lose precision"):
        R.sum(x, acc_dtype="float16")
    h = TensorType("float16", (False,)).make_variable()
    assert R.sum(h).dtype == "float16" and R.sum(h).owner.op.acc_dtype_for("float16") == "float32"
    big = np.full(5000, 1.0, dtype="float16")  # 5000 is beyond float16's exact integers in a
    np.testing.assert_allclose(evaluate(R.sum(h), {h: big}), 5000, rtol=1e-3)  # float16 loop
    i = TensorType("int8", (False,)).make_variable()
    assert R.sum(i, acc_dtype="float64").dtype == "int64"  # a float accumulator for ints is fine
    got = evaluate(R.sum(i), {i: np.full(100, 100, dtype="int8")})
    assert got == 10000 and got.dtype == np.int64  # no int8 overflow
    assert R.prod(i, dtype="int16").dtype == "int16"


def test_mean_dtypes_and_values():
    for dtype, expected in [("float32", "float32"), ("float64", "float64"), ("int8", "float64"),
                            ("int64", "float64"), ("bool", "float64"), ("float16", "float16"),
                            ("uint8", "float64")]:
        value = sample((3, 4), dtype, seed=5)
        x = var_like(value)
        for axis in (None, 0, -1, (0, 1)):
            for keepdims in (False, True):
                out = S.mean(x, axis=axis, keepdims=keepdims)
                assert out.dtype == expected, (dtype, out.dtype)
                got = evaluate(out, {x: value})
                assert got.dtype.name == expected
                ref = np.mean(value.astype("float64"), axis=axis, keepdims=keepdims)
                np.testing.assert_allclose(got, ref, rtol=1e-3 if dtype == "float16" else 1e-6)
    x = TensorType("float32", (False,)).make_variable()
    assert S.mean(x, dtype="float64").dtype == "float64"
    with np.errstate(invalid="ignore"):
        assert np.isnan(evaluate(S.mean(x), {x: np.zeros(0, "float32")}))


@pytest.mark.parametrize("ddof", [0, 1])
def test_var_std(ddof):
    value = sample((3, 4, 2), "float64", seed=6)
    x = var_like(value)
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            np.testing.assert_allclose(
                evaluate(S.var(x, axis=axis, ddof=ddof, keepdims=keepdims), {x: value}),
                np.var(value, axis=axis, ddof=ddof, keepdims=keepdims), rtol=1e-10)
            np.testing.assert_allclose(
                evaluate(S.std(x, axis=axis, ddof=ddof, keepdims=keepdims), {x: value}),
                np.std(value, axis=axis, ddof=ddof, keepdims=keepdims), rtol=1e-10)
    f = TensorType("float32", (False,)).make_variable()
    assert S.var(f).dtype == "float32" and S.std(f).dtype == "float32"


# ---------------------------------------------------------------------------------------------
# ops, axes, errors

def test_axis_normalisation_and_op_identity():
    x = TensorType("float64", (False, False, False)).make_variable()
    assert R.sum(x, axis=(0, 1, 2)).owner.op == R.sum(x).owner.op  # all axes: one spelling
    # applied, the op carries the axes and dtypes it resolved (as Theano's does)
    assert R.sum(x, axis=(-1, 0)).owner.op == R.Sum((0, 2), dtype="float64", acc_dtype="float64")
    assert R.Sum((-1, 0))(x).owner.op == R.sum(x, axis=(0, 2)).owner.op
    assert hash(R.Sum((0, 2))) == hash(R.Sum([0, 2]))
    assert R.Sum((0,)) != R.Prod((0,)) and R.Max(0) != R.Min(0)
    with pytest.raises(ValueError, match="out of bounds"):
        R.sum(x, axis=3)
    # an axis named twice counts once (Theano 1.0.5: max over (1, -2) of a (2, 3, 4) array
    # has shape (2, 4)); a constant None is all axes
    assert R.max(x, axis=(1, -2)).owner.op == R.max(x, axis=1).owner.op
    assert R.argmax(x, axis=[0, 0]).owner.op == R.argmax(x, axis=0).owner.op
    assert R.max(x, axis=NoneConst).owner.op == R.max(x).owner.op
    # Theano's op takes unsorted or negative axes and resolves them for the input's rank
    assert R.Sum((2, 0))(x).owner.op.axis == (0, 2)
    with pytest.raises(ValueError, match="out of bounds"):
        R.Sum((-4,))(x)
    with pytest.raises(ValueError, match="distinct"):
        R.Sum((1, 1))
    with pytest.raises(AttributeError):
        R.Sum((0,)).axis = (1,)
    assert str(R.Sum((0, 2))) == "Sum{axis=[0, 2]}"


def test_axis_given_as_constant_and_numpy_int():
    from jitgraph.tensor.core.conversion import constant

    value = sample((2, 3), "float64")
    x = var_like(value)
    for axis in (np.int64(1), constant(1), [1], np.array([1])):
        np.testing.assert_allclose(evaluate(R.sum(x, axis=axis), {x: value}), value.sum(1))


def test_keepdims_output_is_broadcastable():
    x = TensorType("float64", (False, False, False)).make_variable()
    assert R.max(x, axis=1, keepdims=True).broadcastable == (False, True, False)
    assert R.sum(x, keepdims=True).broadcastable == (True, True, True)
    col = TensorType("float64", (False, True)).make_variable()
    assert R.sum(col, axis=0).broadcastable == (True,)


def test_generic_careduce_and_loop():
    value = sample((3, 4), "float64", seed=7)
    x = var_like(value)
    out = R.CAReduce(sop("maximum"), (1,))(x)
    assert out.dtype == "float64"
    np.testing.assert_allclose(evaluate(out, {x: value}), value.max(1))
    logaddexp = ScalarOp("test_logaddexp", 2, np.logaddexp, float_out,
                                commutative=True, associative=True, identity=-np.inf)
    for axis in [(0,), (1,), None]:
        got = evaluate(R.CAReduce(logaddexp, axis)(x), {x: value})
        ref = np.logaddexp.reduce(value.ravel() if axis is None else value, axis=(
            0 if axis is None else axis[0]))
        np.testing.assert_allclose(got, ref)
    assert evaluate(R.CAReduce(logaddexp, (0,))(x), {x: np.zeros((0, 2))}).tolist() == [-np.inf,
                                                                                      -np.inf]
    with pytest.raises(ValueError, match="commutative"):
        R.CAReduce(sop("sub"))
    for name in ("add", "mul", "maximum", "minimum"):
        verify_grad(lambda v: R.CAReduce(sop(name), (1,))(v), [value], rng=0)


def test_fused_pre_op():
    """The fusion rewrite's hook: a reduction of an elementwise expression of several inputs."""
    a = sample((3, 4), "float64", seed=8)
    b = sample((4,), "float64", seed=9)
    x, y = var_like(a, "x"), var_like(b, "y")
    pre = Composite(["float64", "float64"],
                    [(sop("mul"), (0, 1), "float64"), (sop("exp"), (2,), "float64")],
                    [3])
    op = R.Sum((1,)).clone_with(pre_op=pre)
    out = op(x, y)
    assert out.broadcastable == (False,) and op.pre_op is pre and op != R.Sum((1,))
    np.testing.assert_allclose(evaluate(out, {x: a, y: b}), np.exp(a * b).sum(1))
    assert op.infer_shape(None, out.owner, [a.shape, (1, 4)]) == [(3,)]
    verify_grad(lambda u, v: R.Sum((1,), pre_op=pre)(u, v), [a, b], rng=0)
    verify_grad(lambda u, v: R.Max((0,), pre_op=pre)(u, v), [a, b], rng=0)


# ---------------------------------------------------------------------------------------------
# gradients

GRAD_AXES = [None, 0, -1, (0, 2)]


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "var", "std"])
@pytest.mark.parametrize("axis", GRAD_AXES)
def test_gradients(name, axis):
    value = np.random.default_rng(10).uniform(0.5, 2, (2, 3, 2))
    if name in ("max", "min"):
        value = np.random.default_rng(11).permutation(12).reshape(2, 3, 2) / 3.0  # no ties
    fn = _function(name)
    verify_grad(lambda v: fn(v, axis=axis), [value], rng=0)
    verify_grad(lambda v: fn(v, axis=axis, keepdims=True), [value[::-1]], rng=1)


@pytest.mark.parametrize("zeros", [0, 1, 2])
@pytest.mark.parametrize("no_zeros_flag", [False, True])
def test_prod_gradient_with_zeros(zeros, no_zeros_flag):
    if no_zeros_flag and zeros:
        return
    value = np.random.default_rng(12).uniform(0.5, 2, (3, 4))
    value[0, :zeros] = 0.0
    value[2, 1:1 + zeros] = 0.0
    for axis in (None, 1, 0):
        verify_grad(lambda v: R.prod(v, axis=axis, no_zeros_in_input=no_zeros_flag), [value],
                    rng=0)


def test_max_gradient_goes_to_the_maximum():
    from jitgraph.tensor.core.gradient import grad

    value = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]])
    x = var_like(value)
    g = evaluate(grad(R.max(x, axis=1).sum(), x), {x: value})
    np.testing.assert_array_equal(g, [[0, 1, 0], [1, 0, 1]])  # ties share (as in Theano)


def test_integer_inputs_have_no_gradient():
    x = TensorType("int32", (False,)).make_variable()
    for fn in (R.sum, R.prod, R.min, R.argmax, R.all):
        out = fn(x)
        assert out.owner.op.L_op([x], [out], [out]) == [None]


def test_max_passes_a_float_gradient_to_an_integer_input():
    # Theano 1.0.5's max applies its rule whatever the dtype (grad_through_integer_outputs)
    x = TensorType("int32", (False,)).make_variable()
    out = R.max(x)
    (g,) = out.owner.op.L_op([x], [out], [constant(np.float64(1.5))])
    assert g.dtype == "float64"
    np.testing.assert_array_equal(evaluate(g, {x: np.array([1, 3, 2], "int32")}), [0, 1.5, 0])


# ---------------------------------------------------------------------------------------------
# infer_shape

@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "all", "any", "argmax", "argmin"])
def test_infer_shape(name):
    value = sample((3, 1, 2, 4), "float64")
    x = var_like(value)
    for axis in (None, 0, 1, (0, 3), -2):
        out = _function(name)(x, axis=axis)
        node = out.owner
        # keepdims=False: the reduction node is the output's owner
        (shp,) = node.op.infer_shape(None, node, [value.shape])
        assert tuple(shp) == evaluate(out, {x: value}).shape


# ---------------------------------------------------------------------------------------------
# hypothesis

@st.composite
def reduction_case(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(["bool", "int16", "uint8", "float32", "float64"]))
    if ndim and draw(st.booleans()):
        axes = draw(st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim,
                             max_size=ndim))
        axis = axes[0] if len(axes) == 1 and draw(st.booleans()) else tuple(axes)
    else:
        axis = None
    keepdims = draw(st.booleans())
    name = draw(st.sampled_from(["sum", "prod", "max", "min", "all", "any", "mean"]))
    seed = draw(st.integers(0, 2**16))
    reverse = draw(st.booleans())
    return name, sample(shape, dtype, seed), axis, keepdims, reverse


@given(reduction_case())
def test_hypothesis_reductions_match_numpy(case):
    name, value, axis, keepdims, reverse = case
    if reverse and value.ndim:
        value = value[::-1]
    x = var_like(value)
    out = _function(name)(x, axis=axis, keepdims=keepdims)
    ref = getattr(np, name)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "mean of empty slice"
            expected = ref(value, axis=axis, keepdims=keepdims)
    except ValueError:
        with pytest.raises(ValueError):
            evaluate(out, {x: value})
        return
    with np.errstate(all="ignore"):
        got = evaluate(out, {x: value})
    assert got.dtype.name == out.dtype
    assert got.shape == np.shape(expected)
    if name == "prod" and value.dtype.kind in "iub":
        np.testing.assert_array_equal(got, expected)  # exact (wraps the same way as NumPy)
    else:
        rtol = 1e-4 if value.dtype == np.float32 or name == "mean" else 1e-10
        np.testing.assert_allclose(got.astype("float64"), np.asarray(expected, "float64"),
                                   rtol=rtol, atol=1e-5)
    if out.owner is not None and out.owner.op.__class__.__name__ != "DimShuffle":
        (shp,) = out.owner.op.infer_shape(None, out.owner, [value.shape]) \
            if name != "mean" else [got.shape]
        assert tuple(shp) == got.shape


def test_theano_op_spellings_resolve_when_applied():
    # Recorded from Theano 1.0.5: CAReduce(scalar.add, axis=...) on a tensor4, the op's
    # resolved axis and output type; the dtypes a Sum/Prod node's op carries.
    from jitgraph import scalar

    x4 = TensorType("float64", (False,) * 4).make_variable()
    for axis, resolved, out_ndim in [((-1,), (3,), 3), ((-2, -3), (1, 2), 2),
                                     ((3, 1), (1, 3), 2)]:
        out = R.CAReduce(scalar.add, axis=axis)(x4)
        assert (out.owner.op.axis, out.ndim) == (resolved, out_ndim)
    assert str(R.CAReduce(scalar.add, axis=(-2, -3))(x4).owner.op) == "Reduce{add}{1, 2}"
    op = R.sum(TensorType("bool", (False, False)).make_variable()).owner.op
    assert (op.acc_dtype, op.dtype, str(op)) == ("int64", "int64", "Sum{acc_dtype=int64}")
    c = TensorType("complex64", (False, False)).make_variable()  # Theano: complex128, complex64
    assert (R.sum(c).owner.op.acc_dtype, R.sum(c).dtype) == ("complex128", "complex64")
    value = (np.arange(1, 7).reshape(2, 3) * (1 + 1e-3j) / 7).astype("complex64")
    out = evaluate(R.prod(c, axis=0), {c: value})
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, [0.08163258 + 0.00016327j, 0.20408145 + 0.00040816j,
                                     0.36734658 + 0.00073469j], rtol=1e-6)
    op = R.prod(TensorType("float32", (False, False)).make_variable(), axis=-1).owner.op
    assert (op.acc_dtype, op.dtype, op.axis) == ("float64", "float32", (1,))
    assert str(op) == "Prod{axis=(1,), dtype='float32', acc_dtype='float64'}"
    np.testing.assert_array_equal(evaluate(R.CAReduce(scalar.add, axis=(-1,))(x4),
                                           {x4: np.ones((2, 3, 4, 5))}), np.full((2, 3, 4), 5.0))


def test_axis_entries_may_be_0d_integer_arrays():
    # Theano 1.0.5 accepts x.sum(np.array(1)) and x.sum([np.array(0), np.array(1)])
    x = TensorType("float64", (False, False)).make_variable()
    for fn in (R.sum, R.max, R.min, R.argmax, S.mean, S.var):
        assert fn(x, np.array(1)).ndim == 1
        assert fn(x, [np.array(0), np.array(1)]).ndim == 0
