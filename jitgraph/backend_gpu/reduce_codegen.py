"""CUDA source for reductions (``CAReduce`` with an optional fused elementwise ``pre_op``).

The host (``lower_reduce``) reduces the problem to ``nk`` outputs (the kept axes, C order) of
``nr`` reduced elements each, over the broadcast input shape, and coalesces axes: kept axes that
are contiguous for every input merge, and so do reduced axes. A module is compiled per structure
and per coalesced ranks ``(kr, rr)`` (kept, reduced), so the common cases (a whole contiguous
array; a matrix over one axis) index with multiplications only, no division.

Entries, all computing ``acc = combine(acc, cast(pre_op(inputs at (k, r))))``:

* ``jg_rthread``: one thread per output (few reduced elements each);
* ``jg_rblock``: one block per output, a tree reduction in shared memory;
* ``jg_rsplit`` + ``jg_rfinish``: few outputs of many elements: ``g`` blocks per output write
  partial results (accumulator dtype) that a second launch combines.

Arguments: the input pointers (bytes), the output (or partials) pointer, ``nk``, ``nr``, the
kept axis lengths 1..kr-1 and reduced axis lengths 1..rr-1, then per non-scalar input its byte
strides over the kept and the reduced axes (0 along broadcast axes); ``jg_rsplit`` also takes the
number of blocks per output ``g``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jitgraph.backend_gpu.cuda_types import (C_TYPES, ULL, Unsupported, check_dtypes, cv,
                                             is_float, lit, type_max, type_min)
from jitgraph.backend_gpu.elemwise_codegen import emit_scalar_program
from jitgraph.backend_gpu.helpers_cuda import helper_sources
from jitgraph.backend_gpu.scalar_templates import Body

ENTRIES = ("jg_rthread", "jg_rblock", "jg_rsplit", "jg_rfinish")
COMBINED = ("add", "mul", "maximum", "minimum", "and_", "or_", "xor")


@dataclass(frozen=True)
class ReduceStructure:
    scalar_op: Any = field(compare=False, hash=False)
    pre_op: Any = field(compare=False, hash=False)
    op_name: str
    pre_key: Any
    in_dtypes: tuple[str, ...]
    patterns: tuple[tuple[bool, ...], ...]
    x_dtype: str
    acc_dtype: str
    out_dtype: str
    test_nonzero: bool

    def is_scalar_like(self, j: int) -> bool:
        return all(self.patterns[j])

    def key(self) -> tuple:
        return ("cuda-reduce", self.op_name, self.pre_key, self.in_dtypes, self.patterns,
                self.x_dtype, self.acc_dtype, self.out_dtype, self.test_nonzero)

    def describe(self) -> str:
        pre = "" if self.pre_op is None else f" of {self.pre_op}"
        return (f"reduce {self.op_name}{pre} {self.in_dtypes}->{self.out_dtype} "
                f"(acc {self.acc_dtype})")


def identity_literal(name: str, dtype: str) -> str:
    if name == "add" or name in ("or_", "xor"):
        return lit(0, dtype) if dtype != "bool" else "false"
    if name == "mul":
        return lit(1, dtype) if dtype != "bool" else "true"
    if name == "and_":
        return "true" if dtype == "bool" else lit(-1 if dtype.startswith("int") else
                                                  2 ** int(dtype.lstrip("uint")) - 1, dtype)
    if name == "maximum":
        return type_min(dtype)
    if name == "minimum":
        return type_max(dtype)
    raise Unsupported(f"reduction with {name}")


def combine(name: str, a: str, b: str, dtype: str) -> str:
    """``a`` and ``b`` (accumulator dtype) combined by the reduction's scalar op."""
    t = C_TYPES[dtype]
    if name in ("add", "mul"):
        op = "+" if name == "add" else "*"
        if is_float(dtype):
            return f"({a} {op} {b})"
        if dtype == "bool":
            return f"({a} {'||' if name == 'add' else '&&'} {b})"
        return f"(({t})(({ULL}){a} {op} ({ULL}){b}))"
    if name in ("maximum", "minimum"):
        cmp = ">=" if name == "maximum" else "<="
        if dtype == "bool":
            return f"({a} {'||' if name == 'maximum' else '&&'} {b})"
        if is_float(dtype):
            return f"(((({a}) {cmp} ({b})) || (({a}) != ({a}))) ? ({a}) : ({b}))"
        return f"((({a}) {cmp[0]} ({b})) ? ({a}) : ({b}))"
    if name in ("and_", "or_", "xor"):
        op = {"and_": "&", "or_": "|", "xor": "^"}[name]
        if dtype == "bool":
            return f"({a} {'&&' if name == 'and_' else '||' if name == 'or_' else '!='} {b})"
        return f"(({t})({a} {op} {b}))"
    raise Unsupported(f"reduction with {name}")


def _value_body(st: ReduceStructure) -> tuple[Body, str]:
    """Statements computing one element's contribution (accumulator dtype) from x0..x{n-1}."""
    check_dtypes(*st.in_dtypes, st.x_dtype, st.acc_dtype, st.out_dtype)
    identity_literal(st.op_name, st.acc_dtype)
    body = Body(prefix="v")
    names = [f"x{j}" for j in range(len(st.in_dtypes))]
    if st.pre_op is None:
        x = cv(names[0], st.in_dtypes[0], st.x_dtype)
    else:
        (x,) = emit_scalar_program(body, st.pre_op, names, st.in_dtypes, [st.x_dtype])
    value = f"({x} != 0)" if st.test_nonzero and st.x_dtype != "bool" else \
        cv(x, st.x_dtype, st.acc_dtype)
    body.lines, refs = body.live([value])
    body.used = {j for j in range(len(names)) if f"x{j}" in refs}  # type: ignore[attr-defined]
    return body, value


def check_program(st: ReduceStructure) -> None:
    _value_body(st)


def _decompose(lines: list[str], var: str, prefix: str, rank: int, dims: str) -> None:
    """``c{prefix}{a}`` coordinates of the flat index ``var`` over ``rank`` axes (C order)."""
    if rank == 0:
        return
    lines.append(f"        long long rem{prefix} = {var};")
    for a in range(rank - 1, 0, -1):
        lines.append(f"        const long long c{prefix}{a} = rem{prefix} % {dims}{a}; "
                     f"rem{prefix} /= {dims}{a};")
    lines.append(f"        const long long c{prefix}0 = rem{prefix};")


def reduce_source(st: ReduceStructure, kr: int, rr: int) -> str:
    """The module for ``kr`` kept and ``rr`` reduced (coalesced) axes."""
    body, value = _value_body(st)
    acc_t, out_t = C_TYPES[st.acc_dtype], C_TYPES[st.out_dtype]
    ident = identity_literal(st.op_name, st.acc_dtype)
    arrays = [j for j in range(len(st.in_dtypes)) if not st.is_scalar_like(j)]
    live = [j for j in arrays if j in body.used]
    common = [f"const char* i{j}" for j in range(len(st.in_dtypes))]
    dims = [f"long long dk{a}" for a in range(1, kr)] + [f"long long dr{a}" for a in range(1, rr)]
    strides = [f"long long sk{j}_{a}" for j in arrays for a in range(kr)]
    strides += [f"long long sr{j}_{a}" for j in arrays for a in range(rr)]
    err = ["int* jg_err"] if body.needs_error else []

    def params(out: str, extra: list[str]) -> str:
        return ", ".join(common + [out, "long long nk", "long long nr"] + dims + strides
                         + extra + err)

    def preamble(lines: list[str]) -> None:
        for j in sorted(body.used):
            if st.is_scalar_like(j):
                t = C_TYPES[st.in_dtypes[j]]
                lines.append(f"    const {t} x{j} = *(const {t}*)i{j};")

    def kept_offsets(lines: list[str]) -> None:
        _decompose(lines, "k", "k", kr, "dk")
        for j in live:
            off = " + ".join(f"ck{a} * sk{j}_{a}" for a in range(kr)) or "0"
            lines.append(f"        const char* p{j} = i{j} + ({off});")

    def element(lines: list[str], indent: str) -> None:
        inner: list[str] = []
        _decompose(inner, "r", "r", rr, "dr")
        lines.extend(indent + line[8:] for line in inner)
        for j in live:
            t = C_TYPES[st.in_dtypes[j]]
            off = " + ".join(f"cr{a} * sr{j}_{a}" for a in range(rr)) or "0"
            lines.append(f"{indent}const {t} x{j} = *(const {t}*)(p{j} + ({off}));")
        lines.extend(indent + line for line in body.lines)
        lines.append(f"{indent}acc = {combine(st.op_name, 'acc', value, st.acc_dtype)};")

    def block_reduce(lines: list[str]) -> None:
        lines += [
            f"        {acc_t}* sh = ({acc_t}*)jg_smem;",
            "        sh[threadIdx.x] = acc;",
            "        __syncthreads();",
            "        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {",
            "            if (threadIdx.x < s) {",
            f"                sh[threadIdx.x] = "
            f"{combine(st.op_name, 'sh[threadIdx.x]', 'sh[threadIdx.x + s]', st.acc_dtype)};",
            "            }",
            "            __syncthreads();",
            "        }",
        ]

    helpers = helper_sources(body.helpers).rstrip("\n")
    lines = [f"// jitgraph CUDA reduction kernel: {st.describe()}; kept rank {kr}, "
             f"reduced rank {rr}"] + ([helpers] if helpers else []) + \
        ["extern __shared__ double jg_smem[];"]
    # one thread per output
    lines.append(f'extern "C" __global__ void jg_rthread({params(f"{out_t}* out", [])}) {{')
    preamble(lines)
    lines.append("    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
                 "k < nk; k += (long long)blockDim.x * gridDim.x) {")
    kept_offsets(lines)
    lines.append(f"        {acc_t} acc = {ident};")
    lines.append("        for (long long r = 0; r < nr; ++r) {")
    element(lines, "            ")
    lines += ["        }", f"        out[k] = {cv('acc', st.acc_dtype, st.out_dtype)};",
              "    }", "}"]
    # one block per output (blockDim a power of two)
    lines.append(f'extern "C" __global__ void jg_rblock({params(f"{out_t}* out", [])}) {{')
    preamble(lines)
    lines.append("    for (long long k = blockIdx.x; k < nk; k += gridDim.x) {")
    kept_offsets(lines)
    lines.append(f"        {acc_t} acc = {ident};")
    lines.append("        for (long long r = threadIdx.x; r < nr; r += blockDim.x) {")
    element(lines, "            ")
    lines.append("        }")
    block_reduce(lines)
    lines += [f"        if (threadIdx.x == 0) out[k] = "
              f"{cv('sh[0]', st.acc_dtype, st.out_dtype)};",
              "        __syncthreads();", "    }", "}"]
    # g blocks per output write partials
    lines.append(f'extern "C" __global__ void jg_rsplit('
                 f'{params(f"{acc_t}* part", ["long long g"])}) {{')
    preamble(lines)
    lines.append("    const long long chunk = (nr + g - 1) / g;")
    lines.append("    for (long long b = blockIdx.x; b < nk * g; b += gridDim.x) {")
    lines.append("        const long long k = b / g;")
    lines.append("        (void)k;")
    lines.append("        const long long lo = (b % g) * chunk;")
    lines.append("        const long long hi = (lo + chunk < nr) ? lo + chunk : nr;")
    kept_offsets(lines)
    lines.append(f"        {acc_t} acc = {ident};")
    lines.append("        for (long long r = lo + threadIdx.x; r < hi; r += blockDim.x) {")
    element(lines, "            ")
    lines.append("        }")
    block_reduce(lines)
    lines += ["        if (threadIdx.x == 0) part[b] = sh[0];", "        __syncthreads();",
              "    }", "}"]
    # partials -> outputs
    lines.append(f'extern "C" __global__ void jg_rfinish(const {acc_t}* part, {out_t}* out, '
                 "long long nk, long long g) {")
    lines.append("    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
                 "k < nk; k += (long long)blockDim.x * gridDim.x) {")
    lines.append(f"        {acc_t} acc = {ident};")
    lines.append("        for (long long q = 0; q < g; ++q) {")
    lines.append(f"            acc = {combine(st.op_name, 'acc', 'part[k * g + q]', st.acc_dtype)};")
    lines += ["        }", f"        out[k] = {cv('acc', st.acc_dtype, st.out_dtype)};",
              "    }", "}"]
    return "\n".join(lines) + "\n"


# -- the iteration space ----------------------------------------------------------------------

def coalesce_axes(shape: list[int], strides: list[list[int]], axes: list[int]
                  ) -> tuple[list[int], list[list[int]]]:
    """Merge adjacent axes of ``axes`` (all kept or all reduced) contiguous for every input."""
    dims: list[int] = []
    strs: list[list[int]] = [[] for _ in strides]
    for d in axes:
        n = shape[d]
        if n == 1:
            continue
        if dims and all(s[-1] == src[d] * n for s, src in zip(strs, strides)):
            dims[-1] *= n
            for s, src in zip(strs, strides):
                s[-1] = src[d]
        else:
            dims.append(n)
            for s, src in zip(strs, strides):
                s.append(src[d])
    return dims, strs
