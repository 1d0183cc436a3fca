"""Reductions (CAReduce family, with and without a fused pre-op) and Argmax/Argmin."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen.compose import fuse
from jitgraph.tensor.elementwise import reduction as R

from cpu_testing import assert_same, compile_fn, reference, with_layout

# None: every axis folded locally; 2: trailing axis folded locally with kept axes before;
# 1 and (0, 2): a reduced axis before a kept one (accumulator array updated in the inner loop).
AXES = [None, 2, 1, (0, 2)]
OPS = {"sum": T.sum, "prod": T.prod, "max": T.max, "min": T.min, "all": T.all, "any": T.any,
       "argmax": T.argmax, "argmin": T.argmin}
CASES = ([(name, "float64") for name in sorted(OPS)]
         + [(name, "int32") for name in ("sum", "prod", "max")]
         + [(name, "bool") for name in ("all", "any", "argmax")])


def _data(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(1)
    if dtype == "bool":
        return rng.random((3, 4, 5)) > 0.4
    if dtype.startswith("int"):
        return rng.integers(-3, 4, (3, 4, 5)).astype(dtype)
    v = rng.standard_normal((3, 4, 5)).astype(dtype)
    v[1, 2, 3] = np.nan
    v[0, 1, :] = [np.inf, -np.inf, 0.0, -0.0, 2.0]
    return v


@pytest.mark.parametrize("name,dtype", CASES)
def test_reductions_over_axes_and_layouts(name, dtype):
    x = T.tensor3("x", dtype=dtype)
    outs = [OPS[name](x, axis=a) for a in AXES]
    fn = compile_fn([x], outs)
    value = _data(dtype)
    ref = reference(outs, {x: value})
    for axis, g, r in zip(AXES, fn(value), ref):
        assert_same(g, r, f"{name} axis={axis}", rtol=1e-12)
    if dtype == "float64":  # strided variant of one of them
        strided = compile_fn([x], outs[1])
        assert_same(strided(with_layout(value, "negative")), ref[1], f"{name} strided")


def test_sum_of_square_fused_in_one_pass():
    x = T.dmatrix("x")
    (sq,) = fuse([T.sqr(x)])
    op = R.Sum(axis=(1,), pre_op=sq.owner.op.scalar_op)
    out = op(*sq.owner.inputs)
    fn = compile_fn([x], out)
    assert fn._program.kinds == ["Numba"]
    v = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(fn(v), (v ** 2).sum(axis=1))
    np.testing.assert_allclose(fn(np.asfortranarray(v)), (v ** 2).sum(axis=1))


def test_fused_pre_op_with_broadcasting_and_several_inputs():
    x, r = T.dmatrix("x"), T.drow("r")
    (d,) = fuse([T.exp(x - r)])
    out = R.Sum(axis=(0,), pre_op=d.owner.op.scalar_op)(*d.owner.inputs)
    fn = compile_fn([x, r], out)
    xv, rv = np.random.rand(5, 3), np.random.rand(1, 3)
    np.testing.assert_allclose(fn(xv, rv), np.exp(xv - rv).sum(axis=0), rtol=1e-13)


def test_float32_sum_accumulates_in_float32_like_the_reference():
    x = T.fvector("x")
    fn = compile_fn([x], T.sum(x))
    v = np.random.default_rng(0).random(10000).astype("float32")
    got = fn(v)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, v.astype("float64").sum(), rtol=1e-5)


def test_empty_reductions():
    x = T.dmatrix("x")
    fn = compile_fn([x], [T.sum(x, axis=1), T.prod(x, axis=1), T.all(x, axis=1)])
    got = fn(np.zeros((3, 0)))
    np.testing.assert_array_equal(got[0], [0, 0, 0])
    np.testing.assert_array_equal(got[1], [1, 1, 1])
    np.testing.assert_array_equal(got[2], [True] * 3)
    for op in (T.max, T.argmax):
        fn = compile_fn([x], op(x, axis=1))
        with pytest.raises(ValueError, match="zero-size"):
            fn(np.zeros((3, 0)))


def test_argmax_returns_the_first_nan_or_maximum():
    x = T.dmatrix("x")
    fn = compile_fn([x], [T.argmax(x, axis=1), T.argmin(x, axis=1)])
    v = np.array([[1.0, 3.0, 3.0, 0.0], [np.nan, 1.0, np.nan, 5.0], [2.0, np.nan, 9.0, -1.0]])
    amax, amin = fn(v)
    np.testing.assert_array_equal(amax, np.argmax(v, axis=1))
    np.testing.assert_array_equal(amin, np.argmin(v, axis=1))


def _sequential_sum(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """float32 ``x`` summed over ``axes`` in float64, term after term in C order (np.cumsum
    adds in order; np.sum adds pairwise), rounded to float32 once."""
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x.astype("float64"), kept + list(axes))
    flat = moved.reshape(moved.shape[:len(kept)] + (int(np.prod([x.shape[d] for d in axes])),))
    if flat.shape[-1] == 0:
        return np.zeros(flat.shape[:-1], "float32")
    return np.cumsum(flat, axis=-1)[..., -1].astype("float32")


@pytest.mark.parametrize("shape, axes", [((7, 1300), (0,)), ((3, 600, 5), (0, 2)),
                                         ((4, 9, 513), (1,)), ((0, 40), (0,)),
                                         ((6, 0), (0,))])
@pytest.mark.parametrize("layout", ["C", "A"])
def test_float32_sums_accumulated_in_float64_over_leading_axes(shape, axes, layout):
    # The float64 partial sums of a float32 reduction over a leading axis live on the stack
    # in blocks of ACC_BLOCK outputs (shapes cross the block size); each output still adds
    # its terms in C order, in float64, and rounds once.
    x = T.ftensor3("x") if len(shape) == 3 else T.fmatrix("x")
    fn = compile_fn([x], T.sum(x, axis=axes))
    value = np.random.default_rng(len(shape)).random(shape).astype("float32") * 1e4
    if layout == "A":  # a strided view of the same values
        value = np.repeat(value, 2, axis=-1)[..., ::2]
    got = fn(value)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, _sequential_sum(value, axes))


def test_reductions_accumulating_in_another_dtype_allocate_nothing():
    # np.empty needed Numba's runtime: the kernel was left to Numba (its import and compile,
    # ~0.9 s of a cold float32 MLP compile) and could not be stored as a native object.
    from jitgraph.backend_cpu.codegen.reduce import ReduceStructure, reduce_source
    from jitgraph.backend_cpu.native import direct
    from jitgraph.backend_cpu.options import CodegenOptions
    from jitgraph.scalar import add

    st = ReduceStructure(scalar_op=add, pre_op=None, op_name="add", pre_key=None,
                         in_dtypes=("float32",), patterns=((False, False),), x_dtype="float32",
                         acc_dtype="float64", out_dtype="float32", axes=(0,),
                         test_nonzero=False, no_identity=False)
    ks = reduce_source(st, CodegenOptions())
    assert "np.empty" not in ks.source
    for entry in ("kernel_c", "kernel_a"):
        obj, why = direct.build(ks.source, entry, f"jg_test_reduce_acc_{entry}", "python",
                                CodegenOptions())
        assert obj is not None, why
        assert not any(name.startswith("NRT_") for name in obj.imports)
    # ... and the contiguous kernel's inner loop is vectorized with plain vector loads (with a
    # signed block offset as index, LLVM wrapped it like a negative index and gathered: 3x
    # slower than the np.empty kernel Numba compiled)
    from jitgraph.backend_cpu.native import objects
    from jitgraph.backend_cpu.native.direct_lower import lower_entry

    llvm, tm = objects._llvm(), objects._target_machine("")
    module = direct._parse(llvm, lower_entry(ks.source, "kernel_c", "k", "")[0], tm)
    direct._optimize(llvm, module, tm, CodegenOptions().opt_level)
    ir = str(module)
    assert re.search(r"fpext <\d+ x float>", ir) and "gather" not in ir
