"""Lowerings of the extra array ops (``tensor.cumulative``, ``tensor.sort`` and the op modules
``tensor.extra_ops`` re-exports).

* ``CumOp`` (running sum/product) and ``DiffOp``: generated kernels. The runner folds the input
  (made C-contiguous) into ``(outer, n)`` lines or ``(outer, n, inner)`` planes around the axis,
  so one compiled entry per (operation, dtype) serves every rank and axis; the planes variant
  runs its innermost loop over contiguous memory. Values are computed in the input's dtype in
  NumPy's order (bit-identical to ``numpy.cumsum(x, dtype=x.dtype)`` and ``numpy.diff``).
* ``SortOp``/``ArgSortOp`` with a constant axis: a driver line calling ``numpy.sort``/
  ``numpy.argsort`` (NumPy 2's sorts are vectorised; a generated quicksort would be slower).
* The others (searchsorted, unique, index ravelling, diagonal fills, top-k, the bincount
  check) run their ``perform``, registered so that the ``c`` linker accepts them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from jitgraph.backend_cpu.codegen.elemwise import _Writer
from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, kernel_module,
                                                  numba_array_type, signature_text)
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.lowering.registry import NUMBA, PY, Lowered, register_lowering
from jitgraph.tensor.extras import binning, cumulative, unique
from jitgraph.tensor.indexing import index_ravel
from jitgraph.tensor.shaping import diagonal_fill
from jitgraph.backend_cpu.runtime.driver import _perform_lowering

# the module (jitgraph.tensor.extras.sort, read as an attribute, is the sort function, as in Theano)
_sort = importlib.import_module("jitgraph.tensor.extras.sort")

#: Bumped when the generated kernels change.
EXTRA_OPS_CODEGEN_VERSION = 1

_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64", "complex64", "complex128")
#: dtypes whose arithmetic Numba already does in the dtype itself (no wrapping cast needed)
_NATIVE = ("int64", "uint64", "float64", "complex128")


def _combine(kind: str, dtype: str, a: str, b: str) -> str:
    """Source of one step: ``add``/``mul`` (running) or ``sub`` (``b - a``, a difference)."""
    if dtype == "bool":
        return {"add": f"({a} | {b})", "mul": f"({a} & {b})", "sub": f"({b} != {a})"}[kind]
    expr = {"add": f"{a} + {b}", "mul": f"{a} * {b}", "sub": f"{b} - {a}"}[kind]
    return f"({expr})" if dtype in _NATIVE else f"np.{dtype}({expr})"


@dataclass(frozen=True)
class LineStructure:
    """One running or difference kernel module: ``kind`` ('add', 'mul', 'sub') and dtype."""

    kind: str
    dtype: str

    def key(self, options: CodegenOptions) -> tuple:
        return ("extra_ops_lines", EXTRA_OPS_CODEGEN_VERSION, self.kind, self.dtype,
                options.key())


def _running_lines(st: LineStructure) -> list[str]:
    w = _Writer()
    step = _combine(st.kind, st.dtype, "acc", "x[o, i]")
    w(0, "def lines(x, out):")
    w(1, "for o in range(x.shape[0]):")
    w(2, "if x.shape[1] > 0:")
    w(3, "acc = x[o, 0]")
    w(3, "out[o, 0] = acc")
    w(3, "for i in range(1, x.shape[1]):")
    w(4, f"acc = {step}")
    w(4, "out[o, i] = acc")
    w(0, "")
    w(0, "")
    step = _combine(st.kind, st.dtype, "out[o, i - 1, j]", "x[o, i, j]")
    w(0, "def planes(x, out):")
    w(1, "for o in range(x.shape[0]):")
    w(2, "if x.shape[1] > 0:")
    w(3, "for j in range(x.shape[2]):")
    w(4, "out[o, 0, j] = x[o, 0, j]")
    w(3, "for i in range(1, x.shape[1]):")
    w(4, "for j in range(x.shape[2]):")
    w(5, f"out[o, i, j] = {step}")
    return w.lines


def _difference_lines(st: LineStructure) -> list[str]:
    w = _Writer()
    w(0, "def lines(x, out):")
    w(1, "for o in range(x.shape[0]):")
    w(2, "for i in range(x.shape[1] - 1):")
    w(3, f"out[o, i] = {_combine('sub', st.dtype, 'x[o, i]', 'x[o, i + 1]')}")
    w(0, "")
    w(0, "")
    w(0, "def planes(x, out):")
    w(1, "for o in range(x.shape[0]):")
    w(2, "for i in range(x.shape[1] - 1):")
    w(3, "for j in range(x.shape[2]):")
    w(4, f"out[o, i, j] = {_combine('sub', st.dtype, 'x[o, i, j]', 'x[o, i + 1, j]')}")
    return w.lines


def line_kernels_source(st: LineStructure, options: CodegenOptions) -> KernelSource:
    sigs = {name: signature_text([numba_array_type(st.dtype, nd, "C", readonly=True),
                                  numba_array_type(st.dtype, nd, "C")])
            for name, nd in (("lines", 2), ("planes", 3))}
    body = _difference_lines(st) if st.kind == "sub" else _running_lines(st)
    text = "\n".join([HEADER, f"SIG_lines = {sigs['lines']}", f"SIG_planes = {sigs['planes']}",
                      "", "", *body, ""])
    return KernelSource(st.key(options), text, ("lines", "planes"), options,
                        f"{'diff' if st.kind == 'sub' else 'cum' + st.kind} {st.dtype}")


class LineRunner:
    """Runs a line kernel module on a whole array along one axis (kernels resolved on first
    use and not pickled)."""

    def __init__(self, source: KernelSource) -> None:
        self.source = source
        self._fns: dict[str, Any] = {}

    def __getstate__(self) -> dict:
        return {"source": self.source, "_fns": {}}

    def _fn(self, entry: str) -> Any:
        fn = self._fns.get(entry)
        if fn is None:
            fn = self._fns[entry] = kernel_module(self.source).get(entry)
        return fn

    def _apply(self, x: np.ndarray, axis: int, out_len: int) -> np.ndarray:
        """The kernel over ``x`` folded around ``axis``; the output's axis has ``out_len``."""
        outer = int(np.prod(x.shape[:axis], dtype=np.int64))
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        n = x.shape[axis]
        out_shape = x.shape[:axis] + (out_len,) + x.shape[axis + 1:]
        out = np.empty(out_shape, dtype=x.dtype)
        if out.size == 0:
            return out
        if inner == 1:
            self._fn("lines")(x.reshape(outer, n), out.reshape(outer, out_len))
        else:
            self._fn("planes")(x.reshape(outer, n, inner), out.reshape(outer, out_len, inner))
        return out

    def running(self, x: Any, axis: int | None) -> np.ndarray:
        x = np.ascontiguousarray(x)
        if axis is None:
            x = x.reshape(-1)
            axis = 0
        elif x.ndim == 0:
            return x.copy()
        axis %= x.ndim
        return self._apply(x, axis, x.shape[axis])

    def difference(self, x: Any, n: int, axis: int) -> np.ndarray:
        x = np.ascontiguousarray(x)
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"diff: axis {axis} is out of bounds for an input of rank {x.ndim}")
        axis %= x.ndim
        if n == 0:
            return x.copy()
        for _ in range(n):  # repeated first differences, as numpy.diff
            x = self._apply(x, axis, max(0, x.shape[axis] - 1))
        return x


def _line_lowering(kind: str, node: Any, ctx: Any, call: Any) -> Lowered | None:
    (x,) = node.inputs
    if x.dtype not in _DTYPES:
        return None
    st = LineStructure(kind, x.dtype)
    runner = LineRunner(line_kernels_source(st, ctx.options))

    def emit(nc: Any) -> list[str]:
        return [nc.set_out(0, call(nc, nc.b.ref(runner, "lines_runner")))]

    return Lowered(NUMBA, emit, kernel_keys=(st.key(ctx.options),))


@register_lowering(cumulative.CumOp)
def lower_cumop(op: Any, node: Any, ctx: Any) -> Lowered | None:
    return _line_lowering(op.mode, node, ctx,
                          lambda nc, r: f"{r}.running({nc.inp(0)}, {op.axis!r})")


@register_lowering(cumulative.DiffOp)
def lower_diff(op: Any, node: Any, ctx: Any) -> Lowered | None:
    return _line_lowering("sub", node, ctx,
                          lambda nc, r: f"{r}.difference({nc.inp(0)}, {op.n}, {op.axis})")


@register_lowering(_sort.SortOp, _sort.ArgSortOp)
def lower_sort(op: Any, node: Any, ctx: Any) -> Lowered:
    axis = ctx.known_value(node.inputs[1])
    if axis is None:
        return _perform(op, node, ctx)
    fn = np.sort if isinstance(op, _sort.SortOp) else np.argsort
    name = ctx.ref(fn, "np_" + fn.__name__)
    return Lowered(PY, lambda nc: [
        nc.set_out(0, f"{name}({nc.inp(0)}, axis={int(axis)}, kind={op.kind!r})")])


def _perform(op: Any, node: Any, ctx: Any) -> Lowered:
    return _perform_lowering(node, registered=True)


for _cls in (binning.NonNegativeCheck, binning.SearchsortedOp, diagonal_fill.FillDiagonal,
             diagonal_fill.FillDiagonalOffset, index_ravel.RavelMultiIndex,
             index_ravel.UnravelIndex, unique.Unique, _sort.TopKOp):
    register_lowering(_cls)(_perform)
