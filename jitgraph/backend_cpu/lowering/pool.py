"""Pooling and its gradients (``Pool``, ``MaxPoolGrad``, ``AveragePoolGrad``,
``DownsampleFactorMaxGradGrad``) as generated kernels (:mod:`.pool_codegen`), run by
:class:`PoolRunner` from the driver.

The window, stride and padding are inputs of the ops (possibly symbolic), so the runner reads
them at each call, checks them and the shapes with the NumPy reference's geometry
(:class:`~jitgraph.tensor.convolution.pool_reference.Geometry`, same errors), folds the leading
axes into one
batch axis and calls the kernel over it, on all threads under ``openmp`` once the input has
``openmp_elemwise_minsize`` elements. Integer pooling (and ``MaxPoolRop``) runs its ``perform``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor.convolution import pool as P
from jitgraph.tensor.convolution.pool_reference import Geometry

from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.codegen.kernels import kernel_module
from jitgraph.backend_cpu.codegen.pool import EXCLUDE_PAD, INCLUDE_PAD, SUM, pool_kernels_source
from jitgraph.backend_cpu.lowering.registry import NUMBA, Lowered, register_lowering
from jitgraph.backend_cpu.runtime.parallel import run_chunks

_DTYPES = ("float32", "float64")
_DIVISOR = {"sum": SUM, "average_inc_pad": INCLUDE_PAD, "average_exc_pad": EXCLUDE_PAD}


class PoolRunner:
    """One pooling node: its kernels (resolved on first use, not pickled) and parameters."""

    def __init__(self, kernels_source: Any, op: Any, dtype: str, parallel: bool,
                 minsize: int) -> None:
        self.kernels_source = kernels_source
        self.nd, self.ignore_border = op.ndim, op.ignore_border
        self.max = op.mode == "max"
        self.divisor = _DIVISOR.get(op.mode, SUM)
        self.dtype = np.dtype(dtype)
        self.parallel, self.minsize = parallel, minsize
        self.who = type(op).__name__
        self._fns: dict[str, Any] = {}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_fns"] = {}
        return state

    def _run(self, entry: str, args: tuple, batch: int, work: int) -> None:
        fn = self._fns.get(entry)
        if fn is None:
            fn = self._fns[entry] = kernel_module(self.kernels_source).get(entry)
        if self.parallel and batch > 1 and work >= self.minsize:
            run_chunks(fn, args, batch)
        else:
            fn(*args, 0, batch)

    def _geometry(self, shape: tuple, ws: Any, stride: Any, pad: Any) -> tuple:
        params = [np.asarray(v).ravel().tolist() for v in (ws, stride, pad)]
        for name, v in zip(("ws", "stride", "pad"), params):
            if len(v) != self.nd:
                raise ValueError(f"{self.who}: {name} must have {self.nd} entries, got {v}")
        g = Geometry(shape, *params, self.ignore_border, self.who)
        geo = np.array([*g.size, *g.ws, *g.stride, *g.pad, *g.out], dtype=np.int64)
        batch = int(np.prod(g.lead, dtype=np.int64))
        return g, geo, batch

    def _batched(self, value: Any, spatial: tuple, batch: int, name: str,
                 expected: tuple) -> np.ndarray:
        value = np.asarray(value)
        if value.shape != expected:
            raise ValueError(f"{self.who}: {name} has shape {value.shape}, expected "
                             f"{expected}")
        if value.dtype != self.dtype:
            value = value.astype(self.dtype)
        return value.reshape((batch,) + spatial)

    def pool(self, x: Any, ws: Any, stride: Any, pad: Any) -> np.ndarray:
        x = np.asarray(x)
        g, geo, batch = self._geometry(x.shape, ws, stride, pad)
        out = np.empty(g.out_shape, dtype=self.dtype)
        if out.size == 0:
            return out
        xb = self._batched(x, g.size, batch, "the input", x.shape)
        args = (xb, out.reshape((batch,) + g.out), geo)
        if self.max:
            self._run("pool_max", args, batch, x.size)
        else:
            self._run("pool_avg", args[:2] + (self.divisor, geo), batch, x.size)
        return out

    def max_grad(self, x: Any, maxout: Any, gz: Any, ws: Any, stride: Any, pad: Any
                 ) -> np.ndarray:
        x = np.asarray(x)
        g, geo, batch = self._geometry(x.shape, ws, stride, pad)
        if x.size == 0 or not all(g.out):
            return np.zeros(x.shape, dtype=self.dtype)
        gx = np.empty(x.shape, dtype=self.dtype)  # the kernel zeroes it
        args = (self._batched(x, g.size, batch, "the input", x.shape),
                self._batched(maxout, g.out, batch, "maxout", g.out_shape),
                self._batched(gz, g.out, batch, "gz", g.out_shape),
                gx.reshape((batch,) + g.size), geo)
        self._run("grad_max", args, batch, x.size)
        return gx

    def avg_grad(self, x: Any, gz: Any, ws: Any, stride: Any, pad: Any) -> np.ndarray:
        shape = np.shape(x)
        g, geo, batch = self._geometry(shape, ws, stride, pad)
        if not all(shape) or not all(g.out):
            return np.zeros(shape, dtype=self.dtype)
        gx = np.empty(shape, dtype=self.dtype)  # the kernel zeroes it
        args = (self._batched(gz, g.out, batch, "gz", g.out_shape),
                gx.reshape((batch,) + g.size), self.divisor, geo)
        self._run("grad_avg", args, batch, gx.size)
        return gx

    def grad_grad(self, x: Any, maxout: Any, ggx: Any, ws: Any, stride: Any, pad: Any
                  ) -> np.ndarray:
        x = np.asarray(x)
        g, geo, batch = self._geometry(x.shape, ws, stride, pad)
        out = np.empty(g.out_shape, dtype=self.dtype)
        if out.size == 0:
            return out
        args = (self._batched(x, g.size, batch, "the input", x.shape),
                self._batched(maxout, g.out, batch, "maxout", g.out_shape),
                self._batched(ggx, g.size, batch, "ggx", x.shape),
                out.reshape((batch,) + g.out), geo)
        self._run("grad_grad", args, batch, x.size)
        return out


_METHOD = {P.Pool: "pool", P.MaxPoolGrad: "max_grad", P.AveragePoolGrad: "avg_grad",
           P.DownsampleFactorMaxGradGrad: "grad_grad"}


def _fixed_windows(op: Any, node: Any, ctx: Any) -> tuple | None:
    """``(ws, stride)`` when the window, stride and padding are constants, the padding is 0
    and only whole windows are pooled: the kernels then have them as literals."""
    values = [ctx.known_value(v) for v in node.inputs[-3:]]
    if not op.ignore_border or any(v is None for v in values):
        return None
    ws, stride, pad = (tuple(int(i) for i in np.asarray(v).ravel()) for v in values)
    if any(pad) or len(ws) != op.ndim or len(stride) != op.ndim:
        return None
    return ws, stride


def _entry(op: Any) -> str:
    """The kernel entry that runs ``op``."""
    if isinstance(op, P.Pool):
        return "pool_max" if op.mode == "max" else "pool_avg"
    if isinstance(op, P.MaxPoolGrad):
        return "grad_max"
    return "grad_avg" if isinstance(op, P.AveragePoolGrad) else "grad_grad"


@register_lowering(*_METHOD)
def lower_pool(op: Any, node: Any, ctx: Any) -> Lowered | None:
    arrays = node.inputs[:-3]  # then ws, stride, pad
    dtypes = {v.dtype for v in arrays + list(node.outputs)}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _DTYPES:
        return None
    dtype = next(iter(dtypes))
    ks = pool_kernels_source(op.ndim, dtype, ctx.options, _fixed_windows(op, node, ctx))
    runner = PoolRunner(ks, op, dtype, ctx.openmp, ctx.minsize)
    fn = ctx.new_global(getattr(runner, _METHOD[type(op)]), "pool")
    compile_ahead.want(kernel_module(ks), _entry(op))  # with the program's other kernels

    def emit(nc: Any) -> list[str]:
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [nc.set_out(0, f"{fn}({args})")]

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))
