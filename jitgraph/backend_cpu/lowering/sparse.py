"""Lowering of the sparse ops.

The array-level ops of :mod:`jitgraph.sparse.csx_ops` (what the sparse rewrites produce) and
the structured-dot gradients run generated loops over the compressed storage
(:mod:`.sparse_kernels`), called from the driver with the node's arrays. Float operands of one
dtype only (the kernels compute in the output dtype); other dtypes run ``perform``.

The other sparse ops work on scipy.sparse matrices (building them, converting, indexing):
they are driver lines calling their ``perform`` (SciPy's own compiled routines), registered so
that the strict ``c`` linker accepts sparse graphs.
"""

from __future__ import annotations

from typing import Any

from jitgraph.backend_cpu.lowering.registry import NUMBA, PY, Lowered, register_lowering
from jitgraph.backend_cpu.codegen.sparse_kernels import DTYPES, SparseKernels, sparse_kernels_source
from jitgraph.sparse import arithmetic, basic, compare, indexing, products, reductions, stacking
from jitgraph.sparse import csx_ops as C
from jitgraph.backend_cpu.options import num_threads

_GATHER = {C.MulSDCSx: "mulsd", C.MulSVCSx: "mulsv", C.StructuredAddSVCSx: "addsv"}


def _kernels(ctx: Any) -> SparseKernels:
    nthreads = num_threads() if ctx.openmp else 1
    return SparseKernels.of(ctx.options, nthreads, ctx.minsize)


def _float_output(node: Any) -> str | None:
    dtype = node.outputs[0].dtype
    return dtype if dtype in DTYPES else None


def _call(method: str, leading: tuple, ctx: Any, node: Any) -> Lowered:
    """Driver lines: ``out0 = kernels.method(*leading, *inputs)``."""
    runner = ctx.ref(getattr(_kernels(ctx), method), f"sparse_{method}")
    head = "".join(f"{arg!r}, " for arg in leading)

    def emit(nc: Any) -> list[str]:
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [nc.set_out(0, f"{runner}({head}{args})")]

    return Lowered(NUMBA, emit, kernel_keys=(sparse_kernels_source(ctx.options).key,))


@register_lowering(C.StructuredDotCSx)
def lower_structured_dot_csx(op: Any, node: Any, ctx: Any) -> Lowered | None:
    dtype = _float_output(node)
    if dtype is None:
        return None
    return _call("spmm", (op.format, dtype), ctx, node)


@register_lowering(products.StructuredDotGradCSC, products.StructuredDotGradCSR)
def lower_structured_dot_grad(op: Any, node: Any, ctx: Any) -> Lowered | None:
    dtype = _float_output(node)
    if dtype is None:
        return None
    return _call("sdgrad", (op.format, dtype), ctx, node)


@register_lowering(*_GATHER)
def lower_gather(op: Any, node: Any, ctx: Any) -> Lowered | None:
    dtype = _float_output(node)
    if dtype is None:
        return None
    kernel = next(name for cls, name in _GATHER.items() if isinstance(op, cls))
    return _call("gather", (kernel, op.format, dtype), ctx, node)


@register_lowering(C.SamplingDotCSx)
def lower_sampling_dot(op: Any, node: Any, ctx: Any) -> Lowered | None:
    dtype = _float_output(node)
    if dtype is None:
        return None
    return _call("sampling", (op.format, dtype), ctx, node)


@register_lowering(C.AddSDCSx)
def lower_add_s_d(op: Any, node: Any, ctx: Any) -> Lowered | None:
    dtype = _float_output(node)
    if dtype is None:
        return None
    return _call("addsd", (op.format, dtype), ctx, node)


_SCIPY_OPS = (
    basic.CSMProperties, basic.CSM, basic.CSMGrad, basic.DenseFromSparse,
    basic.SparseFromDense, basic.Transpose, basic.Neg, basic.Cast, basic.EnsureSortedIndices,
    basic.Remove0, arithmetic.AddSS, arithmetic.AddSSData, arithmetic.AddSD,
    arithmetic.StructuredAddSV, arithmetic.MulSS, arithmetic.MulSD, arithmetic.MulSV,
    compare._CompareSS, compare._CompareSD, products.StructuredDot, products.TrueDot, products.Dot,
    products.SamplingDot, products.Usmm, indexing.GetItemList, indexing.GetItemListGrad,
    indexing.GetItem2Lists, indexing.GetItem2ListsGrad, indexing.GetItem2d,
    indexing.GetItemScalar, indexing.ConstructSparseFromList, reductions.SpSum,
    reductions.Diag, reductions.SquareDiagonal, reductions._ScaleCSC, stacking.HStack,
)


@register_lowering(*_SCIPY_OPS)
def lower_scipy_op(op: Any, node: Any, ctx: Any) -> Lowered:
    def emit(nc: Any) -> list[str]:
        perform = nc.b.ref(node.op.perform, "perform")
        target = nc.b.new_global(node, "node")
        outs = nc.b.new_global([nc.b.storage[o] for o in node.outputs], "outcells")
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [f"{perform}({target}, [{args}], {outs})"]

    return Lowered(PY, emit)


