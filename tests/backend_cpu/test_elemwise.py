"""Fused elementwise kernels against the NumPy reference: a few fixed expression structures
(one kernel each), hypothesis varying shapes, broadcasting, memory layouts and values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen.compose import fuse
from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.elementwise.elemwise import Elemwise

from cpu_testing import LAYOUTS, assert_same, compile_fn, reference, with_layout

SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e300, -800.0, 800.0, 1e-310]


def _values(draw, shape, dtype="float64", specials=True):
    size = int(np.prod(shape))
    elems = st.floats(-50, 50, allow_nan=False, width=32)
    if specials:
        elems = st.one_of(elems, st.sampled_from(SPECIAL))
    flat = draw(st.lists(elems, min_size=size, max_size=size))
    with np.errstate(all="ignore"):
        return np.asarray(flat, dtype="float64").astype(dtype).reshape(shape)


# -- structure 1: matrix, row, column and scalar; transcendental; partial broadcasting --------

_x, _r, _c = T.dmatrix("x"), T.drow("r"), T.dcol("c")
_s = T.dscalar("s")
(_E1,) = fuse([T.exp(-_x) * T.sin(_r) + _x * _r - 0.5 * T.sqrt(T.abs(_c)) + _s])
_F1 = {}


def _f1(openmp: bool):
    if openmp not in _F1:
        with jitgraph.config.change_flags(openmp=openmp, openmp_elemwise_minsize=0):
            _F1[openmp] = compile_fn([_x, _r, _c, _s], _E1)
    return _F1[openmp]


@settings(max_examples=30)
@given(data=st.data())
def test_broadcasting_layouts_and_values(data):
    m = data.draw(st.integers(0, 6))
    n = data.draw(st.integers(0, 7))
    xs = [_values(data.draw, (m, n)), _values(data.draw, (1, n)), _values(data.draw, (m, 1)),
          _values(data.draw, ())]
    layouts = [data.draw(st.sampled_from(LAYOUTS)) for _ in xs]
    args = [with_layout(v, lay) for v, lay in zip(xs, layouts)]
    ref = reference(_E1, dict(zip([_x, _r, _c, _s], xs)))
    openmp = data.draw(st.booleans())
    assert_same(_f1(openmp)(*args), ref, f"layouts {layouts} openmp={openmp}")


# -- structure 2: vectors, the sigmoid family, long enough for several blocks ---------------

_u, _v = T.fvectors("u", "v")
(_E2, _E2b) = fuse([T.nnet.sigmoid(_u) * T.nnet.softplus(_v) - T.log1p(T.abs(_u)),
                    T.cos(_u) + T.log(_v)])


@settings(max_examples=15)
@given(data=st.data(), n=st.sampled_from([0, 1, 7, 511, 512, 513, 1500]))
def test_float32_transcendentals_across_blocks(data, n):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    u = (rng.standard_normal(n) * 20).astype("float32")
    v = np.abs(rng.standard_normal(n) * 20).astype("float32")
    if n and data.draw(st.booleans()):  # a special value somewhere forces the exact path
        u[data.draw(st.integers(0, n - 1))] = data.draw(st.sampled_from(SPECIAL))
        v[data.draw(st.integers(0, n - 1))] = data.draw(st.sampled_from(SPECIAL))
    fn = compile_fn([_u, _v], [_E2, _E2b])
    layout = data.draw(st.sampled_from(LAYOUTS))
    got = fn(with_layout(u, layout), with_layout(v, layout))
    for g, r in zip(got, reference([_E2, _E2b], {_u: u, _v: v})):
        assert_same(g, r, layout, rtol=2e-5, atol=1e-5)


# -- structure 3: 3-d integer/bool/float mix with switch, clip, maximum, comparisons --------

_i = T.tensor3("i", dtype="int32")
_f = T.tensor3("f", dtype="float64")
_b = T.tensor3("b", dtype="bool")
(_E3, _E3b) = fuse([T.switch(_b, T.clip(_f, -1.0, 2.0), T.maximum(_f, _i)) + (_i // 3),
                    T.and_(T.lt(_f, _i), _b)])


@settings(max_examples=20)
@given(data=st.data(), shape=st.tuples(st.integers(0, 3), st.integers(1, 4), st.integers(0, 5)))
def test_mixed_dtypes_3d(data, shape):
    f = _values(data.draw, shape)
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    i = rng.integers(-5, 5, shape).astype("int32")
    b = rng.random(shape) > 0.5
    fn = compile_fn([_i, _f, _b], [_E3, _E3b])
    lays = [data.draw(st.sampled_from(LAYOUTS)) for _ in range(3)]
    got = fn(*[with_layout(a, lay) for a, lay in zip((i, f, b), lays)])
    for g, r in zip(got, reference([_E3, _E3b], {_i: i, _f: f, _b: b})):
        assert_same(g, r, str(lays))


def test_zero_dimensional():
    a, b = T.dscalars("a", "b")
    (out,) = fuse([T.exp(a) * b + 1])
    fn = compile_fn([a, b], out)
    for va, vb in [(0.5, 2.0), (np.inf, 0.0), (-np.inf, 3.0), (np.nan, 1.0)]:
        got = fn(np.float64(va), np.float64(vb))
        assert_same(got, reference(out, {a: np.asarray(va), b: np.asarray(vb)}))


def test_kernels_are_shared_between_graphs_and_constants_are_arguments():
    x = T.dvector("x")
    f1 = compile_fn([x], x * 2.5 + 1.0)
    n = len(COMPILE_LOG)
    f2 = compile_fn([x], x * 7.0 + 3.0)  # same structure, other constants: no new kernel
    assert len(COMPILE_LOG) == n
    v = np.arange(4.0)
    np.testing.assert_allclose(f1(v), v * 2.5 + 1)
    np.testing.assert_allclose(f2(v), v * 7 + 3)


def test_shape_mismatch_raises_value_error_naming_the_op_and_shapes():
    x, y = T.dvectors("x", "y")
    fn = compile_fn([x, y], x + y)
    with pytest.raises(ValueError) as info:
        fn(np.ones(3), np.ones(4))
    msg = str(info.value)
    assert "Elemwise" in msg and "(3,)" in msg and "(4,)" in msg


@pytest.mark.parametrize("layout", ["C", "negative"])
def test_inplace_output_overwrites_its_input(layout):
    from jitgraph.backend_cpu.runtime.driver import build_program

    x, y = T.dmatrices("x", "y")
    (plain,) = fuse([T.exp(x) * y + x])
    op = Elemwise(plain.owner.op.scalar_op, {0: 0})
    out = op(*plain.owner.inputs)
    fg = FunctionGraph([x, y], [out], clone=False)
    prog = build_program(fg, allow_gc=True)
    xv = with_layout(np.arange(12.0).reshape(3, 4) / 7, layout)
    yv = np.full((3, 4), 0.5)
    expected = np.exp(xv) * yv + xv
    prog.input_cells[0][0] = xv
    prog.input_cells[1][0] = yv
    prog.run()
    assert prog.output_cells[0][0] is xv
    np.testing.assert_allclose(xv, expected, rtol=1e-14)


def test_inplace_with_blocks_reads_intact_inputs():
    """An in-place kernel with several stages per block must not see its output early."""
    from jitgraph.backend_cpu.runtime.driver import build_program

    x = T.dvector("x")
    (plain,) = fuse([T.sin(x) + T.exp(T.cos(x)) * x])
    out = Elemwise(plain.owner.op.scalar_op, {0: 0})(x)
    prog = build_program(FunctionGraph([x], [out], clone=False), allow_gc=True)
    xv = np.linspace(-3, 3, 2000)
    expected = np.sin(xv) + np.exp(np.cos(xv)) * xv
    prog.input_cells[0][0] = xv
    prog.run()
    np.testing.assert_allclose(xv, expected, rtol=1e-13)


def test_read_only_and_zero_stride_inputs():
    x, y = T.dmatrices("x", "y")
    fn = compile_fn([x, y], [x * 2 + y, T.sum(x, axis=0)])
    ro = np.arange(6.0).reshape(2, 3)
    ro.setflags(write=False)
    bcast = np.broadcast_to(np.arange(3.0), (2, 3))  # read-only, stride 0 along axis 0
    got = fn(ro, bcast)
    np.testing.assert_allclose(got[0], ro * 2 + bcast)
    np.testing.assert_allclose(got[1], ro.sum(axis=0))


def test_float16_and_complex_without_code_path_fall_back_to_perform():
    # (complex values with a code path: test_complex_kernels.py)
    h = T.vector("h", dtype="float16")
    c = T.vector("c", dtype="complex128")
    fn = compile_fn([h, c], [h * 2, T.maximum(c, c)])
    assert set(fn._program.kinds) == {"Py"}  # (the literal 2 is padded by a DimShuffle)
    got = fn(np.ones(3, "float16"), np.full(3, 1j))
    np.testing.assert_array_equal(got[0], np.full(3, 2, "float16"))
    np.testing.assert_array_equal(got[1], np.full(3, 1j))
