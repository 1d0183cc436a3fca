"""The generated CUDA kernels, run on the CPU through g++ (see ``cpu_emulation``), against the
NumPy reference: every scalar op and dtype family, strides and broadcasting, reductions with
every entry point, softmax. Skipped without g++ (jitgraph itself never needs a C compiler)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.elementwise import reduction as R
from jitgraph.tensor.elementwise import scalar_ops as S

import cpu_emulation as E
from gpu_testing import FAMILIES, fused, scalar_op_outputs


@pytest.fixture(autouse=True)
def _gxx():
    ok, why = E.available()
    if not ok:
        pytest.skip(why)


def reference(inputs, outputs, values):
    fn = jitgraph.function(list(inputs), outputs, mode=jitgraph.Mode("py", "None"),
                           on_unused_input="ignore")
    with np.errstate(all="ignore"):
        return fn(*values)


def assert_same(got, ref, what=""):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape, (what, got.dtype, ref.dtype)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
    else:
        tol = 3e-6 if got.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def node_inputs(inputs, node, values):
    """The values of ``node``'s inputs given the graph inputs' (constants, views evaluated)."""
    return [np.asarray(v) for v in reference(inputs, list(node.inputs), values)]


def run_elemwise(node, values, layout="C"):
    """Launch the elementwise kernels of ``node`` like ``ElemwiseRunner`` (host logic
    included: output shape, contiguous or coalesced strided entry)."""
    from jitgraph.backend_gpu.elemwise_codegen import coalesce, needs_error_flag
    from jitgraph.backend_gpu.lower_elemwise import (contiguous_module_source,
                                                     strided_module_source, structure_of)

    st = structure_of(node)
    shape = tuple(1 if b else next((v.shape[d] for v, p in zip(values, st.patterns) if not p[d]),
                                   1) for d, b in enumerate(st.out_pattern))
    outs = [np.empty(shape, d) for d in st.out_dtypes]
    n = int(np.prod(shape, dtype=np.int64))
    err = [np.zeros(1, np.int32)] if needs_error_flag(st) else []
    full = [v for j, v in enumerate(values) if not st.is_scalar_like(j)]
    if layout == "C" and st.has_contiguous_form and all(v.flags.c_contiguous for v in full):
        src = contiguous_module_source(st).source
        E.launch(src, "jg_c", list(values) + outs + [np.int32(n)] + err)
    else:
        arrays = [(v, st.patterns[j]) for j, v in enumerate(values) if not st.is_scalar_like(j)]
        arrays += [(o, (False,) * st.ndim) for o in outs]
        strides = [[0 if p[d] else a.strides[d] for d in range(st.ndim)] for a, p in arrays]
        dims, strs = coalesce(shape, strides)
        src = strided_module_source(st, len(dims)).source
        tail = [np.int64(d) for d in dims[1:]] + [np.int64(s) for ss in strs for s in ss]
        E.launch(src, "jg_s64", list(values) + outs + [np.int64(n)] + tail + err)
    if err and err[0][0]:
        raise ValueError("Integers to negative integer powers are not allowed.")
    return outs


def _values(dtype, n=64):
    rng = np.random.default_rng(11)
    if dtype == "bool":
        a = rng.random(n) > 0.5
        return [a, np.roll(a, 3), np.roll(a, 7), a]
    if dtype.startswith("float"):
        a = np.concatenate([[0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 1e-30, np.inf, -np.inf,
                             np.nan, 7.25, -7.25, 3.0], rng.standard_normal(n - 14) * 4])
        a = a.astype(dtype)
        return [a, np.roll(a, 5), np.roll(a, 11), a]
    info = np.iinfo(dtype)
    edge = [info.min, info.max, 0, 1, 2, 7] + ([-1, -7, -2] if info.min else [3, 9, 4])
    rest = rng.integers(max(info.min, -50), min(info.max, 50), n - 9).astype(dtype)
    a = np.concatenate([np.array(edge, dtype=dtype), rest])
    b = np.roll(a, 5)
    e = (np.arange(n) % 5).astype(dtype)
    return [a, b, np.roll(a, 11), e]


@pytest.mark.parametrize("dtype", FAMILIES + ("int16", "uint16", "uint32"))
def test_every_scalar_op_matches_numpy(dtype):
    inputs, outs = scalar_op_outputs(dtype)
    # float -> int casts of NaN/inf/out-of-range values are undefined (NumPy warns)
    outs = [(n, o) for n, o in outs if not (n.startswith("cast->") and dtype.startswith("float")
                                            and not n.endswith(("float32", "float64", "bool")))]
    values = _values(dtype)
    for i in range(0, len(outs), 24):
        group = outs[i:i + 24]
        graph = fused([o for _, o in group])
        node = graph[0].owner
        got = run_elemwise(node, node_inputs(inputs, node, values))
        ref = reference(inputs, graph, values)
        for (name, _), g, r in zip(group, got, ref):
            assert_same(g, r, f"{name} on {dtype}")


def test_integer_edge_cases_and_negative_powers():
    a, b = T.lvectors("a", "b")
    imin = np.iinfo(np.int64).min
    x = np.array([7, -7, 7, -7, 0, imin, imin, 5, 3])
    y = np.array([2, 2, -2, -2, 0, -1, 1, 0, 5])
    graph = fused([a // b, a % b, -a, abs(a)])
    node = graph[0].owner
    got = run_elemwise(node, node_inputs([a, b], node, [x, y]))
    for g, r in zip(got, reference([a, b], graph, [x, y])):
        assert_same(g, r)
    node = fused([a ** b])[0].owner
    assert_same(run_elemwise(node, [np.array([2, 3]), np.array([3, 0])])[0], [8, 1])
    with pytest.raises(ValueError, match="negative integer powers"):
        run_elemwise(node, [np.array([2, 3]), np.array([1, -1])])


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative", "transposed"])
def test_strides_and_broadcasting(layout):
    m = T.dmatrix("m")
    row = T.drow("row")
    col = T.dcol("col")
    s = T.dscalar("s")
    graph = fused([T.exp(m) * row + col * s, T.maximum(m, row) - col])
    rng = np.random.default_rng(0)
    base = rng.standard_normal((9, 13))
    value = {"C": base, "F": np.asfortranarray(base), "strided": np.repeat(base, 2, 1)[:, ::2],
             "negative": base[::-1, ::-1], "transposed": np.ascontiguousarray(base.T).T}[layout]
    vals = [value, rng.standard_normal((1, 13)), rng.standard_normal((9, 1)), np.float64(0.5)]
    node = graph[0].owner
    ins = node_inputs([m, row, col, s], node, vals)
    ins = [value if i is m else v for i, v in zip(node.inputs, ins)]  # keep the layout
    got = run_elemwise(node, ins, layout)
    for g, r in zip(got, reference([m, row, col, s], graph, vals)):
        assert_same(g, r, layout)


def run_reduce(node, values, entry):
    """Launch a reduction like ``ReduceRunner`` with the given entry point."""
    from jitgraph.backend_gpu.lower_reduce import module_source, structure_of
    from jitgraph.backend_gpu.reduce_codegen import coalesce_axes

    st = structure_of(node)
    op = node.op
    ndim = node.inputs[0].ndim
    axes = tuple(op.reduced_axes(ndim))
    kept = [d for d in range(ndim) if d not in axes]
    shape = [next((v.shape[d] for v, p in zip(values, st.patterns) if not p[d]), 1)
             for d in range(ndim)]
    out = np.empty(tuple(shape[d] for d in kept), st.out_dtype)
    nk = int(np.prod([shape[d] for d in kept], dtype=np.int64))
    nr = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    arrays = [(v, p) for j, (v, p) in enumerate(zip(values, st.patterns))
              if not st.is_scalar_like(j)]
    strides = [[0 if p[d] else v.strides[d] for d in range(ndim)] for v, p in arrays]
    kdims, kstrs = coalesce_axes(shape, strides, kept)
    rdims, rstrs = coalesce_axes(shape, strides, list(axes))
    src = module_source(st, len(kdims), len(rdims)).source
    i64 = np.int64
    tail = [i64(d) for d in kdims[1:]] + [i64(d) for d in rdims[1:]]
    tail += [i64(s) for ss in kstrs for s in ss] + [i64(s) for ss in rstrs for s in ss]
    err = [np.zeros(1, np.int32)] if "jg_err" in src else []
    if entry == "jg_rsplit":
        g = 3
        part = np.empty(nk * g, st.acc_dtype)
        E.launch(src, "jg_rsplit", list(values) + [part, i64(nk), i64(nr)] + tail + [i64(g)]
                 + err)
        E.launch(src, "jg_rfinish", [part, out, i64(nk), i64(g)])
    else:
        E.launch(src, entry, list(values) + [out, i64(nk), i64(nr)] + tail + err)
    return out


@pytest.mark.parametrize("entry", ["jg_rthread", "jg_rblock", "jg_rsplit"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
def test_reductions_match_numpy(entry, dtype):
    x = T.tensor(dtype, (False, False, False), name="x")
    rng = np.random.default_rng(3)
    value = (rng.standard_normal((4, 5, 6)) * 3).astype(dtype)
    if dtype.startswith("float"):
        value[1, 2, 3] = np.nan
    for axis in [None, (1,), (0, 2), (2,)]:
        for fn in (R.sum, R.prod, R.max, R.min, R.all, R.any):
            out = fn(x, axis=axis)
            node = out.owner
            while not isinstance(node.op, R.CAReduce):
                node = node.inputs[0].owner
            for layout in (value, value.transpose(2, 0, 1).copy().transpose(1, 2, 0)):
                got = run_reduce(node, [layout], entry)
                ref = reference([x], node.outputs[0], [layout])
                assert_same(got, ref, f"{fn.__name__} {axis} {dtype} {entry}")


def test_fused_reduction_with_broadcast_inputs():
    from jitgraph.tensor.elementwise.composite import Composite

    x = T.dtensor3("x")
    y = T.drow("y")
    pre = Composite(["float64", "float64"], [(S.op("sub"), (0, 1), "float64"),
                                             (S.op("sqr"), (2,), "float64")], [3])
    yy = y.dimshuffle("x", 0, 1)
    out = R.Sum(axis=(0, 2), pre_op=pre)(x, yy)
    rng = np.random.default_rng(5)
    vals = [rng.standard_normal((3, 4, 5)), rng.standard_normal((1, 5))]
    for entry in ("jg_rthread", "jg_rblock", "jg_rsplit"):
        node = out.owner
        yv = vals[1][None]
        got = run_reduce(node, [vals[0], yv], entry)
        assert_same(got, ((vals[0] - yv) ** 2).sum(axis=(0, 2)), entry)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows(log):
    from jitgraph.backend_gpu.lower_nnet import module_source
    from jitgraph.backend_gpu.nnet_codegen import RowwiseStructure

    src = module_source(RowwiseStructure(log, "float64", "float64")).source
    x = np.random.default_rng(7).standard_normal((6, 33)) * 10
    out = np.empty_like(x)
    E.launch(src, "jg_softmax", [x, out, np.int64(6), np.int64(33)])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    assert_same(out, np.log(ref) if log else ref)


def test_blas_epilogue():
    from jitgraph.backend_gpu.lower_blas import axpby_source

    src = axpby_source("float64").source
    p = np.arange(12.0).reshape(3, 4)
    z = np.ones((4, 3)).T  # a transposed (strided) Z
    out = np.empty((3, 4))
    args = [p, z, out, np.int64(3), np.int64(4), np.int64(z.strides[0]), np.int64(z.strides[1]),
            np.int64(out.strides[0]), np.int64(out.strides[1]), np.float64(2.0),
            np.float64(0.5)]
    E.launch(src, "jg_axpby", args)
    assert_same(out, 2 * p + 0.5)
    z[...] = np.nan
    args[-1] = np.float64(0.0)
    E.launch(src, "jg_axpby", args)
    assert_same(out, 2 * p)  # beta == 0 ignores Z, as BLAS does
