"""The CUDA convolution and pooling kernels: NVRTC compiles them cleanly (sm_80, sm_90), and,
run on the CPU (``cpu_emulation``), im2col + a matrix product, col2im and the pooling kernels
give the NumPy references' values (index arithmetic, padding, strides, dilation, layouts)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from jitgraph.tensor.convolution import conv_reference as CR
from jitgraph.tensor.convolution import pool_reference as PR

import cpu_emulation as E
from gpu_testing import ARCHS, compile_clean, needs_nvrtc


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sources_compile(nd, dtype):
    needs_nvrtc()
    from jitgraph.backend_gpu.conv_codegen import conv_source, pool_source

    for src in (conv_source(nd, dtype), pool_source(nd, dtype)):
        for arch in ARCHS:
            compile_clean(src.source, src.file_name(), arch)


def _emulation() -> None:
    ok, why = E.available()
    if not ok:
        pytest.skip(why)


CONV_CASES = [((2, 3, 6, 7), (4, 3, 3, 2), ((1, 1), (0, 2)), (2, 1), (1, 2)),
              ((1, 2, 5, 4, 6), (3, 2, 2, 3, 2), ((1, 0), (0, 0), (2, 1)), (1, 2, 1), (2, 1, 1)),
              ((2, 2, 9), (3, 2, 3), ((2, 0),), (2,), (1,))]


@pytest.mark.parametrize("case", CONV_CASES)
def test_im2col_gemm_and_col2im_match_the_reference(case):
    _emulation()
    from jitgraph.backend_gpu.conv_codegen import conv_source

    ishape, kshape, pads, stride, dilation = case
    nd = len(ishape) - 2
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, ishape)[(Ellipsis, *[slice(None, None, -1)] * nd)]
    w = rng.uniform(-1, 1, kshape)
    kernel = kshape[2:]
    out_sp = tuple((i + lo + hi - (k - 1) * d - 1) // s + 1
                   for i, k, (lo, hi), s, d in zip(ishape[2:], kernel, pads, stride, dilation))
    n, c, m = ishape[0], ishape[1], kshape[0]
    rows, npix = c * int(np.prod(kernel)), int(np.prod(out_sp))
    geo = [np.int64(v) for v in (c, *ishape[2:], *kernel, *stride, *dilation,
                                 *(lo for lo, _ in pads), *out_sp)]
    src = conv_source(nd, "float64").source
    # x is a view with negative strides: the kernel reads it through its element strides from
    # the address of its first element (what the emulation passes for an array)
    view = x
    strides = [np.int64(s // 8) for s in view.strides]
    col = np.empty((rows, n * npix))
    E.launch(src, "jg_im2col", [view, col, np.int64(0), np.int64(n), *geo, *strides])
    out = (w.reshape(m, rows) @ col).reshape(m, n, npix).transpose(1, 0, 2)
    np.testing.assert_allclose(out.reshape(n, m, *out_sp),
                               CR.correlate(view, w, pads, stride, dilation), rtol=1e-12)
    top = rng.uniform(-1, 1, (n, m, *out_sp))
    cols = w.reshape(m, rows).T @ top.reshape(n, m, npix).transpose(1, 0, 2).reshape(m, -1)
    gx = np.empty(ishape)
    E.launch(src, "jg_col2im", [np.ascontiguousarray(cols), gx, np.int64(0), np.int64(n), *geo])
    np.testing.assert_allclose(gx, CR.correlate_grad_inputs(w, top, ishape[2:], pads, stride,
                                                            dilation), rtol=1e-12, atol=1e-12)


POOL_CASES = [((2, 3, 7, 6), (3, 2), (2, 1), (1, 1), True),
              ((3, 7, 8), (3, 3), (2, 3), (0, 0), False),
              ((2, 9), (4,), (3,), (0,), False),
              ((1, 2, 5, 4, 6), (2, 3, 2), (1, 2, 2), (1, 0, 1), True)]


@pytest.mark.parametrize("case", POOL_CASES)
def test_pooling_kernels_match_the_reference(case):
    _emulation()
    from jitgraph.backend_gpu.conv_codegen import pool_source

    shape, ws, stride, pad, ib = case
    nd = len(ws)
    src = pool_source(nd, "float64").source
    rng = np.random.default_rng(1)
    x = np.round(rng.uniform(-2, 2, shape) * 2) / 2  # ties
    g = PR.Geometry(shape, ws, stride, pad, ib)
    batch = int(np.prod(g.lead))
    geo = [np.int64(v) for v in (batch, *g.size, *g.ws, *g.stride, *g.pad, *g.out)]
    maxout = PR.pool(x, ws, stride, pad, ib, "max")
    out = np.empty(g.out_shape)
    E.launch(src, "jg_pool_max", [x, out, *geo])
    np.testing.assert_array_equal(out, maxout)
    for kind, mode in enumerate(("sum", "average_inc_pad", "average_exc_pad")):
        E.launch(src, "jg_pool_avg", [x, out, np.int32(kind), *geo])
        np.testing.assert_allclose(out, PR.pool(x, ws, stride, pad, ib, mode), rtol=1e-12)
        gz = rng.uniform(-1, 1, g.out_shape)
        gx = np.empty(shape)
        E.launch(src, "jg_pool_grad_avg", [gz, gx, np.int32(kind), *geo])
        np.testing.assert_allclose(gx, PR.average_pool_grad(shape, gz, ws, stride, pad, ib, mode,
                                                            "float64"), rtol=1e-12, atol=1e-14)
    gz = rng.uniform(-1, 1, g.out_shape)
    gx = np.empty(shape)
    E.launch(src, "jg_pool_grad_max", [x, maxout, gz, gx, *geo])
    np.testing.assert_allclose(gx, PR.max_pool_grad(x, maxout, gz, ws, stride, pad, ib),
                               rtol=1e-12, atol=1e-14)
    ggx = rng.uniform(-1, 1, shape)
    E.launch(src, "jg_pool_grad_grad", [x, maxout, ggx, out, *geo])
    np.testing.assert_allclose(out, PR.max_pool_grad_grad(x, maxout, ggx, ws, stride, pad, ib),
                               rtol=1e-12, atol=1e-14)


def test_ops_are_registered_for_the_gpu():
    from jitgraph.backend_gpu.registry import registered_op_types
    from jitgraph.tensor.convolution import corr as K
    from jitgraph.tensor.convolution import pool as P

    names = {cls for cls in registered_op_types()}
    for cls in itertools.chain((K.CorrMM, K.CorrMM_gradWeights, K.CorrMM_gradInputs,
                                K.Corr3dMM), (P.Pool, P.MaxPoolGrad, P.AveragePoolGrad,
                                              P.DownsampleFactorMaxGradGrad)):
        assert cls in names, cls
