"""The im2col/col2im + BLAS lowering of the correlation ops against their ``perform``: layouts,
chunking of the batch, threads, groups, 3-d, borders that follow the kernel size; and the
``conv_gemm`` rewrite that chooses it."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.runtime import conv_gemm
from jitgraph.tensor.convolution import corr as K
from jitgraph.tensor.convolution.conv_functions import abstract_conv2d, conv3d
from jitgraph.tensor.core.type import TensorType

from cpu_testing import assert_same, compile_fn, reference, with_layout


def tensor(nd, dtype="float64"):
    return TensorType(dtype, (False,) * nd).make_variable()


CASES = [  # (image, kernel, op parameters)
    ((3, 4, 7, 6), (6, 2, 3, 2), dict(border_mode="valid", num_groups=2)),
    ((2, 3, 6, 7), (4, 3, 3, 3), dict(border_mode="full", subsample=(2, 1))),
    ((2, 2, 7, 8), (3, 2, 2, 3), dict(border_mode="half", filter_dilation=(2, 1))),
    ((2, 2, 5, 6), (2, 2, 3, 3), dict(border_mode=((2, 0), (1, 3)), subsample=(1, 3))),
    ((2, 2, 5, 4, 6), (3, 2, 2, 3, 2), dict(border_mode=(1, 0, 2), subsample=(1, 2, 1))),
    ((1, 3, 4, 4), (2, 3, 4, 4), dict(border_mode="valid")),  # 1x1 output
    ((0, 3, 4, 4), (2, 3, 2, 2), dict(border_mode="valid")),  # empty batch
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES)
def test_corr_ops_match_perform(case, dtype, monkeypatch):
    ishape, kshape, params = case
    nd = len(ishape) - 2
    classes = (K.CorrMM, K.CorrMM_gradWeights, K.CorrMM_gradInputs) if nd == 2 else \
        (K.Corr3dMM, K.Corr3dMM_gradWeights, K.Corr3dMM_gradInputs)
    fwd, gw_op, gx_op = (cls(**params) for cls in classes)
    rng = np.random.default_rng(1)
    xv = rng.uniform(-1, 1, ishape).astype(dtype)
    wv = rng.uniform(-1, 1, kshape).astype(dtype)
    x, w, top = tensor(nd + 2, dtype), tensor(nd + 2, dtype), tensor(nd + 2, dtype)
    out = fwd(x, w)
    topv = rng.uniform(-1, 1, reference(out, {x: xv, w: wv}).shape).astype(dtype)
    outs = [out, gw_op(x, top, kshape[2:]), gx_op(w, top, ishape[2:])]
    givens = {x: xv, w: wv, top: topv}
    expected = reference(outs, givens)
    # a small column budget: several chunks per batch, the last one partial
    monkeypatch.setattr(conv_gemm, "COLUMN_BYTES", 700)
    for openmp in (False, True):
        with jitgraph.config.change_flags(openmp=openmp, openmp_elemwise_minsize=0):
            fn = compile_fn([x, w, top], outs, linker="c")
        for layout in ("C", "negative", "strided"):
            got = fn(*(with_layout(v, layout) for v in (xv, wv, topv)))
            for g, e, name in zip(got, expected, ("forward", "weights", "inputs")):
                assert_same(g, e, f"{name} {layout} openmp={openmp}",
                            rtol=1e-4 if dtype == "float32" else 1e-12,
                            atol=1e-5 if dtype == "float32" else 1e-12)


def test_shape_errors_name_the_shapes():
    x, w, top = tensor(4), tensor(4), tensor(4)
    fn = compile_fn([x, w, top], [K.CorrMM()(x, w), K.CorrMM_gradInputs()(w, top, [5, 5])],
                    linker="c")
    with pytest.raises(ValueError, match="input channels"):
        fn(np.zeros((1, 3, 5, 5)), np.zeros((2, 2, 3, 3)), np.zeros((1, 2, 3, 3)))
    with pytest.raises(ValueError, match="spatial shape"):
        fn(np.zeros((1, 2, 5, 5)), np.zeros((2, 2, 3, 3)), np.zeros((1, 2, 4, 3)))


def test_rewrite_chooses_gemm_and_keeps_values():
    rng = np.random.default_rng(2)
    for build, ishape, kshape in [(abstract_conv2d, (2, 3, 6, 5), (4, 3, 3, 2)),
                                  (conv3d, (1, 2, 4, 5, 3), (2, 2, 2, 2, 2))]:
        nd = len(ishape)
        x, w = tensor(nd), tensor(nd)
        o = build(x, w, border_mode="half")
        gx, gw = jitgraph.grad((o ** 2).sum(), [x, w])
        fn = jitgraph.function([x, w], [o, gx, gw])
        kinds = {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes}
        assert {"CorrMM", "CorrMM_gradWeights", "CorrMM_gradInputs"} <= kinds or \
            {"Corr3dMM", "Corr3dMM_gradWeights", "Corr3dMM_gradInputs"} <= kinds, kinds
        assert not any(k.startswith("AbstractConv") for k in kinds)
        xv, wv = rng.uniform(size=ishape), rng.uniform(size=kshape)
        for got, exp in zip(fn(xv, wv), reference([o, gx, gw], {x: xv, w: wv})):
            assert_same(got, exp, rtol=1e-11, atol=1e-12)
    # mixed dtypes and unshared kernels keep the abstract op (its perform)
    x, w = tensor(4, "float32"), tensor(4)
    fn = jitgraph.function([x, w], abstract_conv2d(x, w))
    assert any(type(n.op).__name__ == "AbstractConv2d" for n in fn.maker.fgraph.apply_nodes)
    u = tensor(6, "float32")
    fn = jitgraph.function([x, u], abstract_conv2d(x, u, unshared=True))
    assert any(type(n.op).__name__ == "AbstractConv2d" for n in fn.maker.fgraph.apply_nodes)
    excluded = jitgraph.function([x, w], abstract_conv2d(x, T.cast(w, "float32")),
                                 mode=jitgraph.Mode(optimizer="fast_run").excluding("conv_gemm"))
    assert any(type(n.op).__name__ == "AbstractConv2d"
               for n in excluded.maker.fgraph.apply_nodes)
