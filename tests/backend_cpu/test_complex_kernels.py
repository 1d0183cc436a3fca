"""complex64/complex128 elementwise kernels against NumPy: every op with a complex code path on
special values (inf, NaN, signed zeros), the casts, fused graphs, hypothesis over shapes and
layouts, gradients; ops without a complex code path still run ``perform``; the GPU refuses.

``linker="c"`` makes every node compile (a node left to ``perform`` is an error), so these
tests fail if a complex node falls back. To bound compile time the ops of one dtype are fused
into one multi-output kernel.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen.compose import fuse
from jitgraph.backend_cpu.codegen.elemwise import check_program
from jitgraph.backend_cpu.lowering.elemwise import structure_of
from jitgraph.scalar_expr.expr import Unsupported
from jitgraph.tensor.elementwise import scalar_ops as S
from jitgraph.tensor import verify_grad
from jitgraph.tensor.elementwise.elemwise import Elemwise

from cpu_testing import LAYOUTS, assert_same, compile_fn, reference, with_layout

COMPLEX = ("complex64", "complex128")
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-5, 30.0, 1e300, np.inf, -np.inf, np.nan]
#: norm-wise relative tolerance of each complex dtype's results (a few ulp)
RTOL = {"complex64": 5e-7, "complex128": 4e-15, "float32": 5e-7, "float64": 4e-15}


def _grid(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of complex numbers whose parts are :data:`PARTS` (plus random values)."""
    zs = [complex(a, b) for a in PARTS for b in PARTS]
    rng = np.random.default_rng(5)
    zs += list(rng.standard_normal(24) * 3 + 1j * rng.standard_normal(24) * 3)
    z = np.asarray(zs)
    with np.errstate(all="ignore"):
        return np.repeat(z, z.size).astype(dtype), np.tile(z, z.size).astype(dtype)


def _parts(a: np.ndarray) -> list[np.ndarray]:
    return [np.real(a), np.imag(a)] if np.iscomplexobj(a) else [a]


def assert_complex_close(got, ref, what: str = "", tol=None, atol: float = 0.0) -> None:
    """Same dtype and shape; NaN, inf and signed-zero parts where NumPy has them; finite
    values within ``tol`` (default :data:`RTOL`, an array for per-element tolerances) of
    NumPy's, relative to the modulus of NumPy's value, plus ``atol``."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    tol = RTOL[got.dtype.name] if tol is None else tol
    with np.errstate(all="ignore"):
        scale = np.abs(ref.astype(np.complex128 if np.iscomplexobj(ref) else np.float64))
    for g, r in zip(_parts(got), _parts(ref)):
        bad = np.isnan(g) != np.isnan(r)
        special = ~np.isfinite(r) | ~np.isfinite(g)
        bad |= special & ~np.isnan(r) & (g != r)
        zeros = (g == 0) & (r == 0)
        bad |= zeros & (np.signbit(g) != np.signbit(r))
        finite = np.isfinite(r) & np.isfinite(g) & np.isfinite(scale)
        with np.errstate(all="ignore"):
            err = np.abs(g.astype(np.float64) - r.astype(np.float64))
        bad |= finite & (err > tol * scale + max(atol, 1e-300))
        if bad.any():
            i = np.flatnonzero(bad.ravel())[:5]
            raise AssertionError(f"{what}: {bad.sum()} values differ, e.g. at {i}: got "
                                 f"{got.ravel()[i]}, NumPy {ref.ravel()[i]}")


def _check(inputs, outs, values, names, tol=None, refs=None):
    fused = fuse(outs)
    got = compile_fn(inputs, fused, linker="c")(*values)
    ref = reference(fused, dict(zip(inputs, values)))
    for name, g, r in zip(names, got, ref):
        r = (refs or {}).get(name, r)
        t = tol(name) if callable(tol) else tol
        assert_complex_close(g, r, name, t)


# -- every op, every special value -------------------------------------------------------------

def _convert(dtype, x):
    return Elemwise(S.Cast(dtype))(x)


def _op_outputs(a, b, dtype):
    other = "complex128" if dtype == "complex64" else "complex64"
    outs = {
        "add": a + b, "sub": a - b, "mul": a * b, "true_div": a / b, "pow": a ** b,
        "neg": -a, "abs": abs(a), "exp": T.exp(a), "log": T.log(a), "sqrt": T.sqrt(a),
        "sin": T.sin(a), "cos": T.cos(a), "tanh": T.tanh(a), "sqr": T.sqr(a),
        "real": T.real(a), "imag": T.imag(a), "conj": T.conj(a), "angle": T.angle(a),
        "eq": T.eq(a, b), "neq": T.neq(a, b), "isnan": T.isnan(a), "isinf": T.isinf(a),
        "switch": T.switch(T.eq(b, 1), a, b), "add3": a + b + a * 0.5,
        # the conversion ops themselves: cast() refuses complex -> real (Theano's TypeError)
        "cast->float32": _convert("float32", a), "cast->float64": _convert("float64", a),
        "cast->bool": _convert("bool", a), f"cast->{other}": T.cast(a, other),
    }
    return list(outs), list(outs.values())


def _pow_tolerance(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    # a ** b = exp(b log a): an error of one ulp in log a is |b log a| ulp in the result
    with np.errstate(all="ignore"):
        cond = 1 + np.abs(b.astype(complex)) * (np.abs(np.log(np.abs(a.astype(complex))))
                                                + math.pi)
    return RTOL[dtype] * np.where(np.isfinite(cond), cond, 1.0)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_every_complex_op_matches_numpy_on_special_values(dtype):
    a, b = T.vector("a", dtype=dtype), T.vector("b", dtype=dtype)
    names, outs = _op_outputs(a, b, dtype)
    x, y = _grid(dtype)
    pow_tol = _pow_tolerance(x, y, dtype)
    # NumPy's SIMD loop fuses multiply-adds ((1e300+1j) * (1e300+inf j) is -inf+inf j there);
    # its scalar code, like the kernels, rounds each product (nan+inf j)
    with np.errstate(all="ignore"):
        refs = {"mul": (x.real * y.real - x.imag * y.imag).astype(dtype),
                "sqr": (x.real * x.real - x.imag * x.imag).astype(dtype)}
        refs["mul"].imag = x.real * y.imag + x.imag * y.real
        refs["sqr"].imag = x.real * x.imag + x.imag * x.real
    if dtype == "complex64":
        # complex64 powers are computed in double precision and rounded: NumPy's float32
        # products overflow or lose bits to subnormals first ((30+1j) ** 30 is nan+inf j there)
        with np.errstate(all="ignore"):
            refs["pow"] = np.power(x.astype("complex128"), y.astype("complex128")).astype(dtype)
    _check([a, b], outs, [x, y], names, tol=lambda n: pow_tol if n == "pow" else None,
           refs=refs)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_to_integer_casts_in_range(dtype):
    a = T.vector("a", dtype=dtype)
    # the real part truncated (out-of-range values are undefined, as for float -> int)
    values = np.array([0, -0.0, 0.4 + 3j, 2.7 - 1j, 100.9 + 5j, complex(127, np.inf), 1j],
                      dtype=dtype)
    targets = ["int8", "int32", "int64", "uint8"]
    _check([a], [_convert(t, a) for t in targets], [values], targets)


@pytest.mark.parametrize("real_dtype", ["float32", "float64", "int32", "uint8", "bool"])
def test_real_to_complex_casts(real_dtype):
    r = T.vector("r", dtype=real_dtype)
    if real_dtype.startswith("float"):
        values = np.array(PARTS, dtype=real_dtype)
    elif real_dtype == "bool":
        values = np.array([True, False, True])
    else:
        info = np.iinfo(real_dtype)
        values = np.array([0, 1, info.max, info.min, 7], dtype=real_dtype)
    _check([r], [T.cast(r, c) for c in COMPLEX], [values], list(COMPLEX))


@pytest.mark.parametrize("part_dtype", ["float32", "float64"])
def test_complex_and_complex_from_polar_from_special_parts(part_dtype):
    x, y = T.vector("x", dtype=part_dtype), T.vector("y", dtype=part_dtype)
    p = np.asarray(PARTS, dtype="float64")
    with np.errstate(all="ignore"):
        xv = np.repeat(p, p.size).astype(part_dtype)
        yv = np.tile(p, p.size).astype(part_dtype)
    z = T.complex(x, y)
    outs = [z, T.complex_from_polar(x, y), abs(z), T.angle(z), T.real(z) + T.imag(z)]
    names = ["complex", "complex_from_polar", "abs(complex)", "angle(complex)", "re+im"]
    _check([x, y], outs, [xv, yv], names)
    # part by part: complex(x, inf) keeps x (x + 1j * inf would make it NaN)
    got = compile_fn([x, y], z, linker="c")(xv, yv)
    np.testing.assert_array_equal(got.real, xv)
    np.testing.assert_array_equal(got.imag, yv)


def test_mixed_real_and_complex_operands():
    z = T.vector("z", dtype="complex64")
    f, d = T.fvector("f"), T.dvector("d")
    i = T.ivector("i")
    outs = [z + f, z * d, z / i, f - z, z ** 2, z * 0.5 + 1, T.exp(z) + d]
    names = ["c64+f32", "c64*f64", "c64/i32", "f32-c64", "c64**2", "c64*0.5+1", "exp+f64"]
    zv = np.array([1 + 2j, -3 + 0.5j, 0j, np.inf + 1j, 2 - 2j], dtype="complex64")
    fv = np.array([0.5, -1, 2, 3, np.nan], dtype="float32")
    dv = np.array([1e300, -2, 0.25, 0, 1], dtype="float64")
    iv = np.array([1, -2, 0, 3, 7], dtype="int32")
    _check([z, f, d, i], outs, [zv, fv, dv, iv], names, tol=RTOL["complex64"])


# -- fused graphs, layouts ----------------------------------------------------------------------

def test_fused_graph_compiles_to_one_kernel():
    z, w = T.zvectors("z", "w")
    x = T.dvector("x")
    out = abs(T.exp(z) * T.conj(w) + T.sqrt(z) / (w - 1)) + T.angle(z * x) + T.real(T.log(w))
    fn = jitgraph.function([z, w, x], out, mode=jitgraph.Mode(linker="c"))
    elemwise = [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, Elemwise)]
    assert len(elemwise) == 1, [str(n.op) for n in elemwise]
    rng = np.random.default_rng(1)
    zv = rng.standard_normal(100) + 1j * rng.standard_normal(100)
    wv = rng.standard_normal(100) + 1j * rng.standard_normal(100)
    xv = rng.standard_normal(100)
    assert_complex_close(fn(zv, wv, xv), reference(out, {z: zv, w: wv, x: xv}), "fused",
                         1e-13)


_m = T.matrix("m", dtype="complex128")
_row = T.row("row", dtype="complex64")
_col = T.dcol("col")
_sc = T.scalar("sc", dtype="complex128")
# the complex64 row meets complex128 values before any rounding operation: complex128 results
(_E,) = fuse([T.exp(_m) * _row - _col / (_m + _sc) + T.conj(_row) * _m ** 2])
_FN: dict = {}


def _complex_values(draw, shape, dtype):
    part = st.one_of(st.floats(-20, 20, allow_nan=False, width=32),
                     st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan]))
    size = int(np.prod(shape))
    re = draw(st.lists(part, min_size=size, max_size=size))
    im = draw(st.lists(part, min_size=size, max_size=size))
    value = np.asarray(re) + 0j
    value.imag = im
    return value.astype(dtype).reshape(shape)


@settings(max_examples=25)
@given(data=st.data())
def test_broadcasting_layouts_and_values(data):
    m, n = data.draw(st.integers(0, 5)), data.draw(st.integers(0, 6))
    xs = [_complex_values(data.draw, (m, n), "complex128"),
          _complex_values(data.draw, (1, n), "complex64"),
          np.real(_complex_values(data.draw, (m, 1), "complex128")),
          _complex_values(data.draw, (), "complex128")]
    layouts = [data.draw(st.sampled_from(LAYOUTS)) for _ in xs]
    if "fn" not in _FN:
        _FN["fn"] = compile_fn([_m, _row, _col, _sc], _E, linker="c")
    got = _FN["fn"](*[with_layout(v, lay) for v, lay in zip(xs, layouts)])
    ref = reference(_E, dict(zip([_m, _row, _col, _sc], xs)))
    assert_complex_close(got, ref, f"layouts {layouts}", 1e-13)


def test_zero_dimensional_and_long_vectors():
    a, b = T.scalar("a", dtype="complex64"), T.vector("b", dtype="complex64")
    (out,) = fuse([T.tanh(a) * T.exp(b) - T.cos(b)])
    fn = compile_fn([a, b], out, linker="c")
    rng = np.random.default_rng(2)
    for n in (0, 1, 513, 3000):
        av = np.complex64(0.5 - 0.25j)
        bv = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype("complex64")
        assert_complex_close(fn(av, bv), reference(out, {a: np.asarray(av), b: bv}), str(n),
                             atol=1e-5)  # float32 sums: the terms' rounding, not the result's


# -- what stays on perform, what the GPU refuses -------------------------------------------------

@pytest.mark.parametrize("name", ["reciprocal", "exp2", "log1p", "arctan", "maximum", "sgn",
                                  "lt"])
def test_ops_without_complex_code_path_run_perform(name):
    op = S.op(name)
    z = [T.vector(n, dtype="complex128") for n in "ab"][:op.nin]
    try:
        out = Elemwise(op)(*z)
    except TypeError:
        pytest.skip(f"{name} refuses complex inputs when the graph is built")
    with pytest.raises(Unsupported):
        check_program(structure_of(out.owner))
    values = [np.array([1 + 2j, 0j, -3 + 0.5j])] * op.nin
    with np.errstate(all="ignore"):
        got = compile_fn(z, out)(*values)
        assert_same(got, reference(out, dict(zip(z, values))), name)


def test_rows_refuse_complex_unless_marked():
    from jitgraph.backend_cpu.codegen.scalar_templates import Body
    from jitgraph.codegen.render import render_op

    marked = {op.name for op in S.all_scalar_ops() if op.complex_expr}
    assert {"add", "sub", "mul", "true_div", "neg", "abs", "exp", "log", "sqrt", "sin",
            "cos", "tanh", "pow", "sqr", "real", "imag", "conj", "angle", "complex",
            "complex_from_polar", "eq", "neq"} <= marked
    assert "reciprocal" not in marked and "maximum" not in marked
    with pytest.raises(Unsupported):  # bodies of other code generators: real dtypes only
        render_op(Body(fast=False), S.op("add"), ["a", "b"], list(COMPLEX), "complex128")


def test_gpu_renderer_refuses_complex():
    from jitgraph.backend_gpu.scalar_templates import Body
    from jitgraph.codegen.render import emit_scalar_program, render_op

    for name, n in (("exp", 1), ("add", 2), ("real", 1)):
        with pytest.raises(Unsupported):
            render_op(Body(), S.op(name), ["a"] * n, ["complex64"] * n,
                      "float32" if name == "real" else "complex64")
    x, y = T.dvectors("x", "y")
    (out,) = fuse([abs(T.complex(x, y)) + x])  # real in and out, complex inside
    with pytest.raises(Unsupported):
        emit_scalar_program(Body(), out.owner.op.scalar_op, ["a", "b"], ["float64"] * 2,
                            ["float64"])


# -- gradients ------------------------------------------------------------------------------------

def test_verify_grad_through_compiled_complex_kernels():
    rng = np.random.RandomState(3)
    xs, ys = rng.uniform(0.5, 2, (4,)), rng.uniform(0.5, 2, (4,))
    mode = jitgraph.Mode(linker="cvm")  # the gradient's sums of complex values run perform

    def cost(x, y):
        z = T.complex(x, y)
        return abs(T.exp(z) / (z + 1)) + T.angle(T.sqrt(z) * T.conj(z))

    verify_grad(cost, [xs, ys], rng=rng, mode=mode)
    # holomorphic rows: gz conj(f'(z))
    for f in (T.exp, T.log, T.sqrt, T.sin, T.cos, T.tanh, T.sqr, lambda z: z ** 3,
              lambda z: 1 / (z + 1), lambda z: z ** (z * 0.5)):
        verify_grad(lambda x, y: T.real(f(T.complex(x, y))) + 2 * T.imag(f(T.complex(y, x))),
                    [xs, ys], rng=rng, mode=mode)
