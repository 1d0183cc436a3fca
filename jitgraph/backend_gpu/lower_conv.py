"""Convolutions and pooling on the GPU: the correlation ops (``CorrMM`` family, chosen by the
``conv_gemm`` rewrite) as the generated im2col/col2im kernels of :mod:`.conv_codegen` around
cuBLAS (CuPy's ``matmul``), and the pooling ops as generated kernels. Shapes are checked with
the CPU runner's rules and errors; shape/window inputs stay on the host."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor.convolution import corr as K
from jitgraph.tensor.convolution import pool as P
from jitgraph.tensor.convolution.pool_reference import Geometry

from jitgraph.backend_gpu.conv_codegen import conv_source, pool_source
from jitgraph.backend_gpu.cuda_types import Unsupported
from jitgraph.backend_gpu.kernels import launch_config, load
from jitgraph.backend_gpu.registry import CUDA, Lowered, check_dtypes_of, register
from jitgraph.backend_gpu.device import import_cupy

#: Target size of one chunk's column matrix on the device (bytes).
COLUMN_BYTES = 1 << 28


def _float_arrays(node: Any, n_arrays: int) -> None:
    check_dtypes_of(node)
    dtypes = {v.type.dtype for v in list(node.inputs[:n_arrays]) + list(node.outputs)}
    if len(dtypes) != 1 or next(iter(dtypes)) not in ("float32", "float64"):
        raise Unsupported(f"{node.op} needs its arrays in one float dtype, got {sorted(dtypes)}")


def _check_corr(node: Any) -> None:
    _float_arrays(node, 2)


def _check_pool(node: Any) -> None:
    _float_arrays(node, len(node.inputs) - 3)


def _arrays_on_device(n_arrays: int) -> Any:
    def placement(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
        flags = tuple(k < n_arrays for k in range(len(node.inputs)))
        return flags, (True,) * len(node.outputs)

    return placement


class GpuCorr:
    """One correlation node on the device (same shape rules and errors as the CPU runner)."""

    def __init__(self, op: Any, dtype: str) -> None:
        self.cp = import_cupy()
        self.op = op
        module = load(conv_source(op.convdim, dtype))
        self.im2col, self.col2im = module.get("jg_im2col"), module.get("jg_col2im")
        self.groups, self.dtype = op.num_groups, np.dtype(dtype)

    def _geo(self, channels: int, image: tuple, kernel: tuple, pads: tuple, out: tuple) -> list:
        i64 = np.int64
        return [i64(v) for v in (channels, *image, *kernel, *self.op.subsample,
                                 *self.op.filter_dilation, *(lo for lo, _ in pads), *out)]

    def _chunk(self, rows: int, npix: int, n: int) -> int:
        return max(1, min(n, COLUMN_BYTES // max(1, rows * npix * self.dtype.itemsize)))

    def _columns(self, x: Any, n0: int, b: int, geo: list, rows: int, npix: int) -> Any:
        col = self.cp.empty((rows, b * npix), dtype=self.dtype)
        isz = self.dtype.itemsize
        strides = [np.int64(s // isz) for s in x.strides]
        grid, block = launch_config(int(col.size))
        self.im2col(grid, block, (x, col, np.int64(n0), np.int64(b), *geo, *strides))
        return col

    def forward(self, x: Any, w: Any) -> Any:
        cp = self.cp
        n, c = x.shape[:2]
        m, kernel = w.shape[0], tuple(w.shape[2:])
        cg, mg = c // self.groups, m // self.groups
        if c % self.groups or m % self.groups or w.shape[1] != cg:
            raise ValueError(f"CorrMM: the kernel (shape {w.shape}) does not fit an image of "
                             f"shape {x.shape} with num_groups={self.groups}")
        pads, out_sp = self.op.checked_out_size(x.shape[2:], kernel, "CorrMM")
        out = cp.empty((n, m, *out_sp), dtype=self.dtype)
        npix, kg = int(np.prod(out_sp)), cg * int(np.prod(kernel))
        if out.size == 0:
            return out
        if kg == 0:
            out.fill(0)
            return out
        wmat = cp.ascontiguousarray(w).reshape(m, kg)
        out3 = out.reshape(n, m, npix)
        geo = self._geo(c, x.shape[2:], kernel, pads, out_sp)
        nb = self._chunk(kg * self.groups, npix, n)
        for n0 in range(0, n, nb):
            b = min(nb, n - n0)
            col = self._columns(x, n0, b, geo, kg * self.groups, npix)
            for g in range(self.groups):
                prod = cp.matmul(wmat[g * mg:(g + 1) * mg], col[g * kg:(g + 1) * kg])
                out3[n0:n0 + b, g * mg:(g + 1) * mg] = prod.reshape(mg, b, npix).transpose(1, 0,
                                                                                           2)
        return out

    def grad_weights(self, x: Any, top: Any, shape: Any) -> Any:
        cp = self.cp
        kernel = tuple(int(k) for k in np.asarray(shape).ravel())
        n, c = x.shape[:2]
        m = top.shape[1]
        cg, mg = c // self.groups, m // self.groups
        pads, out_sp = self.op.checked_out_size(x.shape[2:], kernel, "CorrMM_gradWeights")
        if tuple(top.shape) != (n, m, *out_sp):
            raise ValueError(f"CorrMM_gradWeights: the output gradient has shape {top.shape}, "
                             f"expected {(n, m, *out_sp)}")
        npix, kg = int(np.prod(out_sp)), cg * int(np.prod(kernel))
        gw = cp.zeros((m, kg), dtype=self.dtype)
        if n and npix and kg:
            top3 = cp.ascontiguousarray(top).reshape(n, m, npix)
            geo = self._geo(c, x.shape[2:], kernel, pads, out_sp)
            nb = self._chunk(kg * self.groups, npix, n)
            for n0 in range(0, n, nb):
                b = min(nb, n - n0)
                col = self._columns(x, n0, b, geo, kg * self.groups, npix)
                for g in range(self.groups):
                    t = top3[n0:n0 + b, g * mg:(g + 1) * mg].transpose(1, 0, 2).reshape(
                        mg, b * npix)
                    gw[g * mg:(g + 1) * mg] += cp.matmul(t, col[g * kg:(g + 1) * kg].T)
        return gw.reshape(m, cg, *kernel)

    def grad_inputs(self, w: Any, top: Any, shape: Any) -> Any:
        cp = self.cp
        image = tuple(int(i) for i in np.asarray(shape).ravel())
        n, m = top.shape[:2]
        cg, kernel = w.shape[1], tuple(w.shape[2:])
        c, mg = cg * self.groups, m // self.groups
        pads, out_sp = self.op.checked_out_size(image, kernel, "CorrMM_gradInputs")
        if tuple(top.shape[2:]) != out_sp or w.shape[0] != m:
            raise ValueError(f"CorrMM_gradInputs: the output gradient has shape {top.shape}, "
                             f"expected spatial shape {out_sp} and {w.shape[0]} channels")
        npix, kg = int(np.prod(out_sp)), cg * int(np.prod(kernel))
        gx = cp.zeros((n, c, *image), dtype=self.dtype)
        if not (n and npix and kg):
            return gx
        wmat = cp.ascontiguousarray(w).reshape(m, kg)
        top3 = cp.ascontiguousarray(top).reshape(n, m, npix)
        geo = self._geo(c, image, kernel, pads, out_sp)
        nb = self._chunk(kg * self.groups, npix, n)
        for n0 in range(0, n, nb):
            b = min(nb, n - n0)
            col = cp.empty((kg * self.groups, b * npix), dtype=self.dtype)
            for g in range(self.groups):
                t = top3[n0:n0 + b, g * mg:(g + 1) * mg].transpose(1, 0, 2).reshape(mg, b * npix)
                col[g * kg:(g + 1) * kg] = cp.matmul(wmat[g * mg:(g + 1) * mg].T, t)
            grid, block = launch_config(int(b * c * int(np.prod(image))))
            self.col2im(grid, block, (col, gx, np.int64(n0), np.int64(b), *geo))
        return gx


_CORR_METHOD = {K.CorrMM: "forward", K.Corr3dMM: "forward",
                K.CorrMM_gradWeights: "grad_weights", K.Corr3dMM_gradWeights: "grad_weights",
                K.CorrMM_gradInputs: "grad_inputs", K.Corr3dMM_gradInputs: "grad_inputs"}


def _thunk_factory(fn: Any) -> Any:
    def make(in_cells: list, out_cells: list) -> Any:
        (out_cell,) = out_cells

        def thunk() -> None:
            out_cell[0] = fn(*[c[0] for c in in_cells])

        return thunk

    return make


@register(K.CorrMM, K.Corr3dMM, check=_check_corr)
def lower_corr(op: Any, node: Any, ctx: Any) -> Lowered:
    runner = GpuCorr(op, node.outputs[0].type.dtype)
    src = conv_source(op.convdim, node.outputs[0].type.dtype)
    return Lowered(CUDA, _thunk_factory(runner.forward), kernel_keys=(src.key,))


@register(K.CorrMM_gradWeights, K.Corr3dMM_gradWeights, K.CorrMM_gradInputs,
          K.Corr3dMM_gradInputs, check=_check_corr, placement=_arrays_on_device(2))
def lower_corr_grad(op: Any, node: Any, ctx: Any) -> Lowered:
    runner = GpuCorr(op, node.outputs[0].type.dtype)
    src = conv_source(op.convdim, node.outputs[0].type.dtype)
    return Lowered(CUDA, _thunk_factory(getattr(runner, _CORR_METHOD[type(op)])),
                   kernel_keys=(src.key,))


# -- pooling ----------------------------------------------------------------------------------

_DIVISOR = {"sum": 0, "average_inc_pad": 1, "average_exc_pad": 2}


class GpuPool:
    """One pooling node on the device (geometry and errors of the NumPy reference)."""

    def __init__(self, op: Any, dtype: str) -> None:
        self.cp = import_cupy()
        self.module = load(pool_source(op.ndim, dtype))
        self.op, self.dtype = op, np.dtype(dtype)
        self.kind = np.int32(_DIVISOR.get(op.mode, 0))

    def _geometry(self, shape: tuple, ws: Any, stride: Any, pad: Any) -> tuple:
        params = [np.asarray(v).ravel().tolist() for v in (ws, stride, pad)]
        for name, v in zip(("ws", "stride", "pad"), params):
            if len(v) != self.op.ndim:
                raise ValueError(f"{type(self.op).__name__}: {name} must have {self.op.ndim} "
                                 f"entries, got {v}")
        g = Geometry(shape, *params, self.op.ignore_border, type(self.op).__name__)
        batch = int(np.prod(g.lead, dtype=np.int64))
        geo = [np.int64(v) for v in (batch, *g.size, *g.ws, *g.stride, *g.pad, *g.out)]
        return g, geo

    def _flat(self, v: Any) -> Any:
        return self.cp.ascontiguousarray(v)

    def _launch(self, entry: str, n: int, args: tuple) -> None:
        grid, block = launch_config(n)
        self.module.get(entry)(grid, block, args)

    def pool(self, x: Any, ws: Any, stride: Any, pad: Any) -> Any:
        g, geo = self._geometry(x.shape, ws, stride, pad)
        out = self.cp.empty(g.out_shape, dtype=self.dtype)
        if out.size:
            if self.op.mode == "max":
                self._launch("jg_pool_max", out.size, (self._flat(x), out, *geo))
            else:
                self._launch("jg_pool_avg", out.size, (self._flat(x), out, self.kind, *geo))
        return out

    def max_grad(self, x: Any, maxout: Any, gz: Any, ws: Any, stride: Any, pad: Any) -> Any:
        g, geo = self._geometry(x.shape, ws, stride, pad)
        _same(maxout, g.out_shape, "maxout")
        _same(gz, g.out_shape, "gz")
        gx = self.cp.zeros(x.shape, dtype=self.dtype)
        if gx.size and all(g.out):
            self._launch("jg_pool_grad_max", gx.size, (self._flat(x), self._flat(maxout),
                                                       self._flat(gz), gx, *geo))
        return gx

    def avg_grad(self, x: Any, gz: Any, ws: Any, stride: Any, pad: Any) -> Any:
        g, geo = self._geometry(x.shape, ws, stride, pad)
        _same(gz, g.out_shape, "gz")
        gx = self.cp.zeros(x.shape, dtype=self.dtype)
        if gx.size and all(g.out):
            self._launch("jg_pool_grad_avg", gx.size, (self._flat(gz), gx, self.kind, *geo))
        return gx

    def grad_grad(self, x: Any, maxout: Any, ggx: Any, ws: Any, stride: Any, pad: Any) -> Any:
        g, geo = self._geometry(x.shape, ws, stride, pad)
        _same(maxout, g.out_shape, "maxout")
        _same(ggx, x.shape, "ggx")
        out = self.cp.empty(g.out_shape, dtype=self.dtype)
        if out.size:
            self._launch("jg_pool_grad_grad", out.size, (self._flat(x), self._flat(maxout),
                                                         self._flat(ggx), out, *geo))
        return out


def _same(value: Any, shape: tuple, name: str) -> None:
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"pool gradient: {name} has shape {tuple(value.shape)}, expected "
                         f"{tuple(shape)}")


_POOL_METHOD = {P.Pool: "pool", P.MaxPoolGrad: "max_grad", P.AveragePoolGrad: "avg_grad",
                P.DownsampleFactorMaxGradGrad: "grad_grad"}


def _pool_placement(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    return _arrays_on_device(len(node.inputs) - 3)(node)


@register(*_POOL_METHOD, check=_check_pool, placement=_pool_placement)
def lower_pool(op: Any, node: Any, ctx: Any) -> Lowered:
    dtype = node.outputs[0].type.dtype
    runner = GpuPool(op, dtype)
    return Lowered(CUDA, _thunk_factory(getattr(runner, _POOL_METHOD[type(op)])),
                   kernel_keys=(pool_source(op.ndim, dtype).key,))
