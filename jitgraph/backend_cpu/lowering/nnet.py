"""Softmax, LogSoftmax and the one-hot categorical cross-entropy (and its gradient) as Numba
kernels.

Softmax runs three passes over each row (along ``axis``) in one kernel: the maximum, the
exponentials of the shifted row (the fast :mod:`.vecmath` exp, with the whole row redone with
libm if an argument falls outside its range, e.g. a NaN or ``-inf`` row) and their sum, then the
normalisation; LogSoftmax stores ``x - max - log(sum)``. ``axis=None`` normalises over all
elements (the driver passes a flattened copy/view and reshapes the result).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jitgraph.tensor import nnet as N

from jitgraph.backend_cpu.codegen.elemwise import _Writer
from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, kernel_module,
                                                  numba_array_type, signature_text)
from jitgraph.backend_cpu.lowering.elemwise import entry_name
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.lowering.registry import NUMBA, Lowered, register_lowering
from jitgraph.backend_cpu.codegen.scalar_templates import check_dtypes, cv


@dataclass(frozen=True)
class RowwiseStructure:
    log: bool
    in_dtype: str
    out_dtype: str
    ndim: int
    axis: int

    def key(self, options: CodegenOptions) -> tuple:
        return ("softmax", self.log, self.in_dtype, self.out_dtype, self.ndim, self.axis,
                options.key())


def _rowwise_lines(st: RowwiseStructure, name: str, vecmath: bool) -> list[str]:
    nd, ax, wd = st.ndim, st.axis, st.out_dtype
    w = _Writer()
    w(0, f"def {name}(x, out):")
    depth = 1
    for d in range(nd):
        if d != ax:
            w(depth, f"for n{d} in range(x.shape[{d}]):")
            depth += 1
    idx = ", ".join("k" if d == ax else f"n{d}" for d in range(nd))
    load = cv(f"x[{idx}]", st.in_dtype, wd)
    w(depth, f"m = np.{wd}(-np.inf)")
    w(depth, f"for k in range(x.shape[{ax}]):")
    w(depth + 1, f"v = {load}")
    w(depth + 1, "m = v if (v > m) | (v != v) else m")

    def exp_pass(d: int, fast: bool) -> None:
        w(d, f"s = np.{wd}(0)")
        w(d, f"for k in range(x.shape[{ax}]):")
        w(d + 1, f"t = np.{wd}({load} - m)")
        if fast:
            w(d + 1, "ok &= t >= -708.0")
            e = "fexp(np.float64(t))"
        else:
            e = "math.exp(t)"
        w(d + 1, f"e = np.{wd}({e})")
        if not st.log:
            w(d + 1, f"out[{idx}] = e")
        w(d + 1, f"s = np.{wd}(s + e)")

    if vecmath:
        w(depth, "ok = True")
        exp_pass(depth, True)
        w(depth, "if not ok:")
        exp_pass(depth + 1, False)
    else:
        exp_pass(depth, False)
    w(depth, f"for k in range(x.shape[{ax}]):")
    if st.log:
        w(depth + 1, f"out[{idx}] = np.{wd}(np.{wd}({load} - m) - np.{wd}(math.log(s)))")
    else:
        w(depth + 1, f"out[{idx}] = np.{wd}(out[{idx}] / s)")
    return w.lines


def rowwise_source(st: RowwiseStructure, options: CodegenOptions) -> KernelSource:
    sigs = {lay: signature_text([numba_array_type(st.in_dtype, st.ndim, lay, readonly=True),
                                 numba_array_type(st.out_dtype, st.ndim, "C")])
            for lay in ("C", "A")}
    text = "\n".join([HEADER, f"SIG_kernel_c = {sigs['C']}", f"SIG_kernel_a = {sigs['A']}",
                      "", "", *_rowwise_lines(st, "kernel_c", options.vecmath), "", "",
                      *_rowwise_lines(st, "kernel_a", options.vecmath), ""])
    kind = "log_softmax" if st.log else "softmax"
    return KernelSource(st.key(options), text, ("kernel_c", "kernel_a"), options,
                        f"{kind} {st.in_dtype}->{st.out_dtype} ndim={st.ndim} axis={st.axis}")


@register_lowering(N.Softmax, N.LogSoftmax)
def lower_softmax(op: Any, node: Any, ctx: Any) -> Lowered | None:
    (x_t,) = node.inputs
    out_dtype = node.outputs[0].dtype
    check_dtypes(x_t.dtype, out_dtype)
    flat = op.axis is None
    ndim = 1 if flat else x_t.ndim
    axis = 0 if flat else op.axis % x_t.ndim
    st = RowwiseStructure(isinstance(op, N.LogSoftmax), x_t.dtype, out_dtype, ndim, axis)
    module = kernel_module(rowwise_source(st, ctx.options))
    fn_c = entry_name(ctx, module, "kernel_c", "sc", now=True)
    fn_a = entry_name(ctx, module, "kernel_a", "sa")

    def emit(nc: Any) -> list[str]:
        x = nc.local("x")
        lines = [f"{x} = {nc.inp(0)}"]
        src = x
        if flat:
            src = nc.local("flat")
            lines.append(f"{src} = {x}.reshape(-1)")
        alloc, out = nc.alloc(0, f"{src}.shape", out_dtype)
        lines += alloc
        lines.append(f"({fn_c} if {src}.flags.c_contiguous else {fn_a})({src}, {out})")
        result = f"{out}.reshape({x}.shape)" if flat else out
        lines.append(nc.set_out(0, result))
        return lines

    return Lowered(NUMBA, emit, kernel_keys=(st.key(ctx.options),))


def _xent_source(coding: str, labels: str, grad: bool, options: CodegenOptions) -> KernelSource:
    w = _Writer()
    args = "g, c, y, out" if grad else "c, y, out"
    w(0, f"def kernel({args}):")
    w(1, "if c.shape[0] != y.shape[0]:")
    w(2, 'raise ValueError("crossentropy: rows and labels differ")')
    if grad:
        w(1, "if g.shape[0] != y.shape[0]:")
        w(2, 'raise ValueError("crossentropy grad: rows and gradients differ")')
    w(1, "for i in range(c.shape[0]):")
    w(2, "lab = y[i]")
    w(2, "if lab < 0 or lab >= c.shape[1]:")
    w(3, 'raise ValueError("crossentropy: label out of range")')
    if grad:
        w(2, "for j in range(c.shape[1]):")
        w(3, f"out[i, j] = np.{coding}(0)")
        w(2, f"out[i, lab] = np.{coding}(-g[i] / c[i, lab])")
    else:
        w(2, f"out[i] = -np.{coding}(math.log(c[i, lab]))")
    arrays = ([numba_array_type(coding, 1, "A", True)] if grad else []) + [
        numba_array_type(coding, 2, "A", True), numba_array_type(labels, 1, "A", True),
        numba_array_type(coding, 2 if grad else 1, "C")]
    text = "\n".join([HEADER, f"SIG_kernel = {signature_text(arrays)}", "", "", *w.lines, ""])
    key = ("xent1hot", grad, coding, labels, options.key())
    return KernelSource(key, text, ("kernel",), options, f"crossentropy grad={grad} {coding}")


@register_lowering(N.CrossentropyCategorical1Hot, N.CrossentropyCategorical1HotGrad)
def lower_xent(op: Any, node: Any, ctx: Any) -> Lowered | None:
    grad = isinstance(op, N.CrossentropyCategorical1HotGrad)
    coding_t = node.inputs[1 if grad else 0]
    labels_t = node.inputs[-1]
    if grad and node.inputs[0].dtype != coding_t.dtype:
        return None
    check_dtypes(coding_t.dtype, labels_t.dtype)
    if coding_t.dtype not in ("float32", "float64"):
        return None
    ks = _xent_source(coding_t.dtype, labels_t.dtype, grad, ctx.options)
    fn = ctx.ref(kernel_module(ks).get("kernel"), "xent")

    def emit(nc: Any) -> list[str]:
        ins = [nc.local("a") for _ in node.inputs]
        lines = [f"{a} = {nc.inp(j)}" for j, a in enumerate(ins)]
        c = ins[1] if grad else ins[0]
        shape = f"{c}.shape" if grad else f"({c}.shape[0],)"
        alloc, out = nc.alloc(0, shape, coding_t.dtype)
        lines += alloc
        lines.append(f"{fn}({', '.join(ins)}, {out})")
        lines.append(nc.set_out(0, out))
        return lines

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))
