"""Source generation for reductions: ``CAReduce`` (with a fused elementwise ``pre_op``) and
``Argmax``/``Argmin``.

A ``CAReduce`` kernel walks the (broadcast) iteration space of its inputs once in C order,
computes the pre-op per element (the same scalar templates as elementwise kernels, so
``sum(x**2, axis=1)`` or a fused ``sum(exp(a - b))`` never materialises the elementwise result)
and folds the value into the accumulator of its output position. When every reduced axis comes
after every kept axis (``axis=-1``, ``axis=None``), each output element is folded in a local
variable over the contiguous inner loops and written once; otherwise the accumulator array is
initialised with the identity and updated in the innermost loop (which then runs over a kept
axis and vectorizes). The accumulator has ``acc_dtype`` and is cast to the output dtype at the
end, as ``perform`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jitgraph.backend_cpu.codegen.elemwise import _Writer, emit_scalar_program
from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, numba_array_type,
                                          signature_text)
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.codegen.scalar_templates import Body, Unsupported, cv, get_template


def identity_literal(name: str, dtype: str) -> str:
    """Source text of the identity of reduction ``name`` in ``dtype``."""
    if dtype == "bool":
        return {"add": "False", "mul": "True", "maximum": "False", "minimum": "True",
                "and_": "True", "or_": "False", "xor": "False"}[name]
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        value = {"add": 0, "mul": 1, "maximum": info.min, "minimum": info.max, "and_": -1,
                 "or_": 0, "xor": 0}[name]
        if dtype.startswith("uint") and value == -1:
            value = info.max
        return f"np.{dtype}({value})"
    value = {"add": 0.0, "mul": 1.0, "maximum": -np.inf, "minimum": np.inf}.get(name)
    if value is None:
        raise Unsupported(f"reduction {name} of {dtype}")
    text = {np.inf: "np.inf", -np.inf: "-np.inf"}.get(value, repr(value))
    return f"np.{dtype}({text})"


@dataclass(frozen=True)
class ReduceStructure:
    scalar_op: Any = field(compare=False, hash=False)
    pre_op: Any = field(compare=False, hash=False)
    op_name: str
    pre_key: tuple | None
    in_dtypes: tuple[str, ...]
    patterns: tuple[tuple[bool, ...], ...]
    x_dtype: str          # dtype of the reduced (pre-op) values
    acc_dtype: str
    out_dtype: str
    axes: tuple[int, ...]
    test_nonzero: bool    # All/Any: non-bool values are tested against zero first
    no_identity: bool     # Max/Min: a zero-size reduction is an error

    @property
    def ndim(self) -> int:
        return len(self.patterns[0])

    def key(self, options: CodegenOptions) -> tuple:
        return ("reduce", self.op_name, self.pre_key, self.in_dtypes, self.patterns,
                self.x_dtype, self.acc_dtype, self.out_dtype, self.axes, self.test_nonzero,
                self.no_identity, options.key())


def _value_lines(st: ReduceStructure, b: Body) -> str:
    """Statements computing the reduced value at the loop indices ``n0..``; returns its name."""
    loads = []
    for j, pattern in enumerate(st.patterns):
        idx = ", ".join("0" if bb else f"n{d}" for d, bb in enumerate(pattern))
        loads.append(b.tmp(f"i{j}[{idx}]" if st.ndim else f"i{j}[()]", st.in_dtypes[j]))
    if st.pre_op is None:
        (x,) = loads
    else:
        (x,) = emit_scalar_program(b, st.pre_op, loads, st.in_dtypes, [st.x_dtype])
    if st.test_nonzero and st.x_dtype != "bool":
        return b.tmp(f"({x} != 0)", "bool")
    return x


def _combine(b: Body, st: ReduceStructure, acc: str, value: str) -> str:
    src = "bool" if st.test_nonzero else st.x_dtype
    v = cv(value, src, st.acc_dtype)
    return get_template(st.op_name)(b, [acc, v], [st.acc_dtype, st.acc_dtype], st.acc_dtype)


def reduce_kernel_lines(st: ReduceStructure, name: str) -> list[str]:
    nd = st.ndim
    axes = set(st.axes)
    kept = [d for d in range(nd) if d not in axes]
    w = _Writer()
    args = [f"i{j}" for j in range(len(st.in_dtypes))]
    w(0, f"def {name}({', '.join(args)}, out):")
    for d in range(nd):
        src = next((j for j, p in enumerate(st.patterns) if not p[d]), None)
        w(1, f"s{d} = {'1' if src is None else f'i{src}.shape[{d}]'}")
        for j, p in enumerate(st.patterns):
            if not p[d] and j != src:
                w(1, f"if i{j}.shape[{d}] != s{d}:")
                w(2, 'raise ValueError("reduction: input shapes do not match")')
    if st.no_identity and st.axes:
        size = " * ".join(f"s{d}" for d in st.axes)
        w(1, f"if {size} == 0:")
        w(2, 'raise ValueError("reduction: zero-size array and no identity")')
    same = st.acc_dtype == st.out_dtype
    ident = identity_literal(st.op_name, st.acc_dtype)
    out_idx = ", ".join(f"n{d}" for d in kept) if kept else "()"
    # trailing run of reduced axes folded in a local accumulator
    trailing = []
    for d in range(nd - 1, -1, -1):
        if d not in axes:
            break
        trailing.insert(0, d)
    local = bool(trailing) and all(d in trailing for d in st.axes)
    if not same and not local:  # partial results in memory, in another dtype than out's
        _blocked_accumulator(w, st, kept, ident)
        return w.lines
    w(1, "acc = out")
    if not local:
        w(1, "accf = flat_view(acc)")
        w(1, "for q in range(acc.size):")
        w(2, f"accf[q] = {ident}")
    depth = 1
    for d in range(nd):
        if local and d == trailing[0]:
            w(depth, f"r = {ident}")
        w(depth, f"for n{d} in range(s{d}):")
        depth += 1
    body = Body(fast=False)
    value = _value_lines(st, body)
    if local:
        res = _combine(body, st, "r", value)
        body.lines.append(f"r = {res}")
    else:
        res = _combine(body, st, f"acc[{out_idx}]", value)
        body.lines.append(f"acc[{out_idx}] = {res}")
    w.extend(depth, body.lines)
    if local:
        w(1 + trailing[0], f"out[{out_idx}] = {cv('r', st.acc_dtype, st.out_dtype)}")
    return w.lines


#: output elements whose partial results :func:`_blocked_accumulator` keeps at a time
ACC_BLOCK = 512


def _blocked_accumulator(w: _Writer, st: ReduceStructure, kept: list[int], ident: str) -> None:
    """The loops of a reduction whose partial results have another dtype than the output (a
    float32 sum accumulates in float64) and are not all folded in a local variable (a reduced
    axis comes before a kept one: ``sum(x, axis=0)``). They live in a stack array of
    :data:`ACC_BLOCK` elements, for as many positions of the last kept axis at a time: the
    kernel allocates nothing (``np.empty`` needs Numba's runtime, so such a kernel could be
    neither compiled nor loaded without Numba). Every output element still receives its terms
    in C order, as with one accumulator array."""
    if not kept:  # a 0-d input, nothing reduced: a cast
        body = Body(fast=False)
        res = _combine(body, st, ident, _value_lines(st, body))
        w.extend(1, body.lines)
        w(1, f"out[()] = {cv(res, st.acc_dtype, st.out_dtype)}")
        return
    last = kept[-1]
    w(1, f"acc = stack_empty({ACC_BLOCK}, np.{st.acc_dtype})")
    depth = 1
    for d in kept[:-1]:
        w(depth, f"for n{d} in range(s{d}):")
        depth += 1
    w(depth, f"for b{last} in range(0, s{last}, {ACC_BLOCK}):")
    depth += 1
    w(depth, f"bn = s{last} - b{last}")
    w(depth, f"if bn > {ACC_BLOCK}:")
    w(depth + 1, f"bn = {ACC_BLOCK}")
    w(depth, "for j in range(bn):")
    w(depth + 1, f"acc[j] = {ident}")
    inner = depth
    for d in sorted({*st.axes, last}):
        if d == last:
            w(inner, "for j in range(bn):")
            # unsigned: an index LLVM cannot prove non-negative (a sum of two loop counters)
            # would be wrapped like a negative Python index, and the loop not vectorized
            w(inner + 1, f"n{last} = np.uint64(b{last} + j)")
        else:
            w(inner, f"for n{d} in range(s{d}):")
        inner += 1
    body = Body(fast=False)
    res = _combine(body, st, "acc[j]", _value_lines(st, body))
    body.lines.append(f"acc[j] = {res}")
    w.extend(inner, body.lines)
    w(depth, "for j in range(bn):")
    w(depth + 1, f"n{last} = np.uint64(b{last} + j)")
    out_idx = ", ".join(f"n{d}" for d in kept)
    w(depth + 1, f"out[{out_idx}] = {cv('acc[j]', st.acc_dtype, st.out_dtype)}")


def reduce_source(st: ReduceStructure, options: CodegenOptions) -> KernelSource:
    out_nd = st.ndim - len(st.axes)
    sigs = {}
    for layout in ("C", "A"):
        args = [numba_array_type(d, st.ndim, "C" if all(p) else layout, readonly=True)
                for d, p in zip(st.in_dtypes, st.patterns)]
        args.append(numba_array_type(st.out_dtype, out_nd, "C"))
        sigs[layout] = signature_text(args)
    text = "\n".join([HEADER, f"SIG_kernel_c = {sigs['C']}", f"SIG_kernel_a = {sigs['A']}",
                      "", "", *reduce_kernel_lines(st, "kernel_c"), "", "",
                      *reduce_kernel_lines(st, "kernel_a"), ""])
    desc = f"reduce {st.op_name} pre={st.pre_op} {st.in_dtypes} axes={st.axes}"
    return KernelSource(st.key(options), text, ("kernel_c", "kernel_a"), options, desc)


# -- argmax / argmin --------------------------------------------------------------------------

@dataclass(frozen=True)
class ArgStructure:
    kind: str  # "argmax" or "argmin"
    dtype: str
    ndim: int
    axes: tuple[int, ...]

    def key(self, options: CodegenOptions) -> tuple:
        return ("argreduce", self.kind, self.dtype, self.ndim, self.axes, options.key())


def arg_source(st: ArgStructure, options: CodegenOptions) -> KernelSource:
    nd = st.ndim
    kept = [d for d in range(nd) if d not in st.axes]
    better = ">" if st.kind == "argmax" else "<"
    w = _Writer()
    w(0, "def kernel(x, out):")
    size = " * ".join(f"x.shape[{d}]" for d in st.axes) or "1"
    w(1, f"if {size} == 0:")
    w(2, 'raise ValueError("arg-reduction of a zero-size array")')
    depth = 1
    for d in kept:
        w(depth, f"for n{d} in range(x.shape[{d}]):")
        depth += 1
    w(depth, "k = 0")
    w(depth, "at = 0")
    w(depth, f"best = x[{', '.join('0' if d in st.axes else f'n{d}' for d in range(nd)) or '()'}]")
    inner = depth
    for d in st.axes:
        w(inner, f"for n{d} in range(x.shape[{d}]):")
        inner += 1
    w(inner, f"v = x[{', '.join(f'n{d}' for d in range(nd)) or '()'}]")
    w(inner, f"if (best == best) & ((v {better} best) | (v != v)):")
    w(inner + 1, "best = v")
    w(inner + 1, "at = k")
    w(inner, "k += 1")
    w(depth, f"out[{', '.join(f'n{d}' for d in kept) or '()'}] = at")
    sig = signature_text([numba_array_type(st.dtype, nd, "A", readonly=True),
                          numba_array_type("int64", len(kept), "C")])
    text = "\n".join([HEADER, f"SIG_kernel = {sig}", "", "", *w.lines, ""])
    return KernelSource(st.key(options), text, ("kernel",), options,
                        f"{st.kind} {st.dtype} ndim={nd} axes={st.axes}")
