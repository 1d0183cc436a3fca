"""Every scalar op's Numba template against the NumPy reference, over dtypes and special values.

To bound compile time, the ops of one dtype are fused into a few multi-output Composites (one
kernel each) instead of one kernel per op.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen.compose import fuse
from jitgraph.backend_cpu.codegen.elemwise import check_program
from jitgraph.backend_cpu.lowering.elemwise import structure_of
from jitgraph.backend_cpu.codegen.scalar_templates import (SUPPORTED_DTYPES, Body, Unsupported,
                                                   get_template)
from jitgraph.tensor.elementwise import scalar_ops as S
from jitgraph.tensor.elementwise.elemwise import Elemwise

from cpu_testing import assert_same, compile_fn, float_specials, int_specials, reference, \
    with_layout

CHUNK = 12
#: float-valued ops also run on integer/bool groups (they cast their inputs first)
INT_TO_FLOAT_SAMPLE = {"exp", "true_div", "sigmoid", "sqrt", "arctan2"}


def test_every_table_op_has_an_expression():
    missing = sorted(op.name for op in S.compiled_scalar_ops()
                     if op.expr is None and not op.name.startswith("user_"))
    assert not missing, f"scalar ops without an expression: {missing}"
    for dtype in SUPPORTED_DTYPES:
        get_template(f"convert_to_{dtype}")(Body(fast=False), ["a"], ["float64"], dtype)


def test_unsupported_dtypes_are_refused():
    with pytest.raises(Unsupported):
        get_template("add")(Body(fast=False), ["a", "b"], ["float16", "float16"], "float16")
    with pytest.raises(Unsupported):
        get_template("exp")(Body(fast=False), ["a"], ["complex128"], "complex128")


def _values(dtype: str) -> list[np.ndarray]:
    if dtype.startswith("float"):
        a = float_specials(dtype)
    elif dtype == "bool":
        a = np.array([True, False, True, True, False, False, True, False] * 5)
    else:
        a = int_specials(dtype)
    b = np.roll(a, 5)
    c = np.roll(a, 11)
    e = (np.arange(a.size) % 7).astype(dtype) if dtype != "bool" else a  # small exponents
    return [a, b, c, e]


def _op_outputs(dtype: str):
    a, b, c, e = (T.vector(n, dtype=dtype) for n in "abce")
    outs = []
    for op in S.compiled_scalar_ops():
        n = {-1: 3}.get(op.nin, op.nin)
        args = [a, e] if op.name == "pow" and dtype not in ("float32", "float64") else [a, b, c][:n]
        try:
            out = Elemwise(op)(*args)
            body = check_program(structure_of(out.owner))
        except (TypeError, Unsupported):
            continue
        if body.helpers:
            # rows computed by a helper function (special functions) are compiled and checked
            # one by one (tests/tensor, tests/scalar_expr): fused twelve at a time they would
            # cost many seconds of compilation here
            continue
        if (not dtype.startswith("float") and out.dtype.startswith("float")
                and op.name not in INT_TO_FLOAT_SAMPLE):
            continue  # computed in float after a cast: the float groups cover the op itself
        outs.append((op.name, out))
    for target in SUPPORTED_DTYPES:
        if target != dtype and not (dtype.startswith("float") and target != "bool"
                                    and not target.startswith("float")):
            outs.append((f"cast->{target}", T.cast(a, target)))
    return [a, b, c, e], outs


# float -> int casts of out-of-range values are undefined (NumPy warns): tested separately.
GROUPS = ["float64", "float32", "int8", "int64", "uint8", "uint64", "bool"]
FAST = {"float64", "int8", "bool"}


@pytest.mark.parametrize("dtype", [pytest.param(d, marks=[] if d in FAST else pytest.mark.slow)
                                   for d in GROUPS])
def test_scalar_ops_match_numpy(dtype):
    inputs, outs = _op_outputs(dtype)
    values = _values(dtype)
    givens = dict(zip(inputs, values))
    for i in range(0, len(outs), CHUNK):
        names = [n for n, _ in outs[i:i + CHUNK]]
        fused = fuse([o for _, o in outs[i:i + CHUNK]])
        fn = compile_fn(inputs, fused)
        got = fn(*values)
        ref = reference(fused, givens)
        for name, g, r in zip(names, got, ref):
            assert_same(g, r, f"{name} on {dtype}")
        if dtype == "float64" and i == 0:  # the strided variant of one kernel
            got = fn(*[with_layout(v, "negative") for v in values])
            for name, g, r in zip(names, got, ref):
                assert_same(g, r, f"{name} on {dtype} (negative strides)")


def test_float_to_int_casts_in_range():
    x = T.dvector("x")
    targets = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]
    values = np.array([0.0, -0.0, 0.4, 0.6, 1.5, -1.5, 2.7, -2.7, 100.9, 127.0, -128.0, 255.0])
    values = np.abs(values)  # valid for every target
    outs = fuse([T.cast(x, t) for t in targets])
    got = compile_fn([x], outs)(values)
    ref = reference(outs, {x: values})
    for t, g, r in zip(targets, got, ref):
        assert_same(g, r, f"cast to {t}")


def test_integer_power_with_negative_exponent_raises_like_numpy():
    a, b = T.lvectors("a", "b")
    fn = compile_fn([a, b], a ** b)
    np.testing.assert_array_equal(fn(np.array([2, 3]), np.array([3, 0])), [8, 1])
    with pytest.raises(ValueError, match="negative integer powers"):
        fn(np.array([2, 3]), np.array([1, -1]))


def test_integer_division_edge_cases():
    a, b = T.lvectors("a", "b")
    imin = np.iinfo(np.int64).min
    x = np.array([7, -7, 7, -7, 0, imin, imin, 5])
    y = np.array([2, 2, -2, -2, 0, -1, 1, 0])
    outs = fuse([a // b, a % b])
    got = compile_fn([a, b], outs)(x, y)
    ref = reference(outs, {a: x, b: y})
    for g, r in zip(got, ref):
        assert_same(g, r)


def test_only_complex_valued_rows_are_left_out_of_the_real_sweeps():
    # they compile for the CPU (tests/backend_cpu/test_complex_kernels.py), not for the GPU
    always = [op for op in S.all_scalar_ops() if S.always_complex(op)]
    assert {op.name for op in always} == {"complex", "complex_from_polar"}
    assert all(op.expr is not None and op.complex_expr for op in always)
