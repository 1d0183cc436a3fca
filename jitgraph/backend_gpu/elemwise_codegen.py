"""CUDA source for elementwise kernels: one ``Elemwise`` / fused ``Composite`` per kernel.

Two module kinds per kernel structure (:class:`ElemwiseStructure`):

* the **contiguous** module (entries ``jg_c`` with 32-bit and ``jg_c64`` with 64-bit indices):
  every array is C-contiguous with the output's shape, or a scalar-like input (broadcast along
  every axis, read once per thread). A flat grid-stride loop; built at link time.
* the **strided** module for rank ``r`` (entries ``jg_s``/``jg_s64``): any byte strides
  (negative, Fortran order, views, partially broadcast inputs with stride 0). The host first
  coalesces the iteration space (drops length-1 axes, merges axes that are contiguous for every
  array), so a C-contiguous matrix plus a broadcast row runs at rank 2 and a transposed pair at
  rank 2 or less. Built the first time a call needs that rank.

Arguments: the input pointers, the output pointers (an in-place output is the destroyed input
passed again, hence no ``__restrict__`` then), the element count ``n``; the strided entries add
the output shape (axes 1..r-1) and each non-scalar array's byte strides; a kernel whose body
contains an integer power also gets ``int* jg_err`` (the host raises ``ValueError`` when set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from jitgraph.backend_gpu.cuda_types import C_TYPES, check_dtypes
from jitgraph.backend_gpu.helpers_cuda import helper_sources
from jitgraph.backend_gpu.scalar_templates import Body
from jitgraph.codegen.elemwise_structure import ElemwiseStructure as SharedStructure
from jitgraph.codegen.render import emit_scalar_program

__all__ = ["KERNEL_C", "KERNEL_S", "ElemwiseStructure", "check_program", "coalesce",
           "contiguous_source", "emit_scalar_program", "needs_error_flag", "scalar_body",
           "strided_source"]

KERNEL_C = ("jg_c", "jg_c64")
KERNEL_S = ("jg_s", "jg_s64")


@dataclass(frozen=True)
class ElemwiseStructure(SharedStructure):
    """What a CUDA elementwise kernel depends on; ``key()`` is its identity."""

    @property
    def has_contiguous_form(self) -> bool:
        return not any(self.is_partial(j) for j in range(self.nin))

    def key(self) -> tuple:
        return ("cuda-elemwise", self.op_key, self.in_dtypes, self.out_dtypes, self.patterns,
                self.out_pattern, self.inplace)


def scalar_body(st: ElemwiseStructure) -> tuple[Body, list[str]]:
    """The body computing every output from ``x0..x{nin-1}`` (raises ``Unsupported``); its
    ``lines`` are the live statements only and ``used`` the inputs they read."""
    check_dtypes(*st.in_dtypes, *st.out_dtypes)
    body = Body()
    outs = emit_scalar_program(body, st.scalar_op, [f"x{j}" for j in range(st.nin)],
                               st.in_dtypes, st.out_dtypes)
    body.lines, names = body.live(outs)
    body.used = {j for j in range(st.nin) if f"x{j}" in names}  # type: ignore[attr-defined]
    return body, outs


def check_program(st: ElemwiseStructure) -> None:
    """Raise ``Unsupported`` if a step has no CUDA code path for its dtypes (no compilation)."""
    scalar_body(st)


def needs_error_flag(st: ElemwiseStructure) -> bool:
    return scalar_body(st)[0].needs_error


# -- sources ----------------------------------------------------------------------------------

def _header(st: ElemwiseStructure, body: Body, what: str) -> list[str]:
    helpers = helper_sources(body.helpers).rstrip("\n")
    return [f"// jitgraph CUDA {what} kernel: {st.describe()}"] + ([helpers] if helpers else [])


def _params(st: ElemwiseStructure, typed: bool, idx: str, extra: Sequence[str], err: bool
            ) -> str:
    destroyed = {i for _, i in st.inplace}
    restrict = "" if st.inplace else " __restrict__"
    args = []
    for j, d in enumerate(st.in_dtypes):
        base = C_TYPES[d] if typed else "char"
        r = "" if j in destroyed else restrict
        args.append(f"const {base}*{r} i{j}")
    for o, d in enumerate(st.out_dtypes):
        base = C_TYPES[d] if typed else "char"
        args.append(f"{base}*{restrict} o{o}")
    args.append(f"{idx} n")
    args.extend(extra)
    if err:
        args.append("int* jg_err")
    return ", ".join(args)


def _loop(idx: str) -> str:
    return (f"for ({idx} k = ({idx})blockIdx.x * ({idx})blockDim.x + ({idx})threadIdx.x; "
            f"k < n; k += ({idx})blockDim.x * ({idx})gridDim.x) {{")


def contiguous_source(st: ElemwiseStructure) -> str:
    """The contiguous module (``jg_c``, ``jg_c64``); requires ``st.has_contiguous_form``."""
    body, outs = scalar_body(st)
    lines = _header(st, body, "elementwise (contiguous)")
    for name, idx in zip(KERNEL_C, ("int", "long long")):
        lines.append(f'extern "C" __global__ void {name}('
                     f"{_params(st, True, idx, (), body.needs_error)}) {{")
        for j in sorted(body.used):
            if st.is_scalar_like(j):
                lines.append(f"    const {C_TYPES[st.in_dtypes[j]]} x{j} = i{j}[0];")
        lines.append("    " + _loop(idx))
        for j in sorted(body.used):
            if not st.is_scalar_like(j):
                lines.append(f"        const {C_TYPES[st.in_dtypes[j]]} x{j} = i{j}[k];")
        lines.extend(f"        {line}" for line in body.lines)
        lines.extend(f"        o{o}[k] = {val};" for o, val in enumerate(outs))
        lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def strided_source(st: ElemwiseStructure, rank: int) -> str:
    """The strided module for an iteration space of ``rank`` (>= 1) axes."""
    body, outs = scalar_body(st)
    lines = _header(st, body, f"elementwise (strided, rank {rank})")
    strided = [f"i{j}" for j in range(st.nin) if not st.is_scalar_like(j)] + \
        [f"o{o}" for o in range(st.nout)]
    arrays = [a for a in strided if a[0] == "o" or int(a[1:]) in body.used]
    for name, idx in zip(KERNEL_S, ("int", "long long")):
        extra = [f"{idx} d{a}" for a in range(1, rank)]
        extra += [f"{idx} s{arr}_{a}" for arr in strided for a in range(rank)]
        lines.append(f'extern "C" __global__ void {name}('
                     f"{_params(st, False, idx, extra, body.needs_error)}) {{")
        for j in sorted(body.used):
            if st.is_scalar_like(j):
                t = C_TYPES[st.in_dtypes[j]]
                lines.append(f"    const {t} x{j} = *(const {t}*)i{j};")
        lines.append("    " + _loop(idx))
        lines.append(f"        {idx} rem = k;")
        for a in range(rank - 1, 0, -1):
            lines.append(f"        const {idx} c{a} = rem % d{a}; rem /= d{a};")
        lines.append(f"        const {idx} c0 = rem;")
        for arr in arrays:
            off = " + ".join(f"c{a} * s{arr}_{a}" for a in range(rank))
            lines.append(f"        const {idx} f{arr} = {off};")
        for j in sorted(body.used):
            if not st.is_scalar_like(j):
                t = C_TYPES[st.in_dtypes[j]]
                lines.append(f"        const {t} x{j} = *(const {t}*)(i{j} + fi{j});")
        lines.extend(f"        {line}" for line in body.lines)
        for o, (val, d) in enumerate(zip(outs, st.out_dtypes)):
            lines.append(f"        *({C_TYPES[d]}*)(o{o} + fo{o}) = {val};")
        lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


# -- the iteration space ----------------------------------------------------------------------

def coalesce(shape: Sequence[int], strides: Sequence[Sequence[int]]
             ) -> tuple[list[int], list[list[int]]]:
    """Drop length-1 axes and merge adjacent axes that are contiguous for every array.

    ``strides[a]`` are the byte strides of array ``a`` over ``shape`` (0 along broadcast axes).
    Returns the reduced shape (at least one axis) and the matching strides.
    """
    keep = [d for d, n in enumerate(shape) if n != 1]
    dims = [int(shape[d]) for d in keep]
    strs = [[int(s[d]) for d in keep] for s in strides]
    if not dims:
        return [1], [[0] for _ in strides]
    out_dims = [dims[0]]
    out_strs = [[s[0]] for s in strs]
    for d in range(1, len(dims)):
        n = dims[d]
        if all(s[-1] == src[d] * n for s, src in zip(out_strs, strs)):
            out_dims[-1] *= n
            for s, src in zip(out_strs, strs):
                s[-1] = src[d]
        else:
            out_dims.append(n)
            for s, src in zip(out_strs, strs):
                s.append(src[d])
    return out_dims, out_strs
