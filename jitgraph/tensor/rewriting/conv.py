"""Choosing how convolutions run: abstract convolutions become im2col + gemm correlations.

``local_abstractconv_gemm`` (specialize phase, tags ``fast_run`` and ``conv_gemm``) replaces
:class:`~jitgraph.tensor.convolution.conv.AbstractConv` and its two gradient ops (and the legacy
``ConvOp``) by the :mod:`~jitgraph.tensor.convolution.corr` op of the same role when the CPU
backend has a
fast kernel for it: 2-d or 3-d, shared kernels, every array in one float dtype (float32 or
float64). A convolution that flips its kernel reads the kernel through a reversed view, and a
flipped weight gradient is returned through one. What is left (unshared kernels, 1-d, integer
or mixed dtypes) keeps its abstract op, whose ``perform`` runs it. Exclude the tag
(``optimizer_excluding=conv_gemm``) to run every convolution through ``perform``.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_specialize
from jitgraph.tensor.rewriting.utils import broadcast_like
from jitgraph.tensor.convolution.conv import (AbstractConv, AbstractConv_gradInputs,
                                  AbstractConv_gradWeights)
from jitgraph.tensor.convolution.corr import (Corr3dMM, Corr3dMM_gradInputs, Corr3dMM_gradWeights,
                                              CorrMM, CorrMM_gradInputs, CorrMM_gradWeights,
                                              corr_op_for)

__all__: list[str] = []

_GEMM_DTYPES = ("float32", "float64")
_CORR_TYPES = (CorrMM, CorrMM_gradWeights, CorrMM_gradInputs, Corr3dMM, Corr3dMM_gradWeights,
               Corr3dMM_gradInputs)


def _flipped(v: Variable, convdim: int) -> Variable:
    """``v`` reversed along its last ``convdim`` axes (a view)."""
    index = (slice(None),) * (v.ndim - convdim) + (slice(None, None, -1),) * convdim
    return v[index]


def _gemm_dtype(node: Apply) -> str | None:
    """The one float dtype of the node's arrays (not its shape vector), else None."""
    arrays = [v for v in node.inputs if v.ndim > 1] + list(node.outputs)
    dtypes = {v.dtype for v in arrays}
    if len(dtypes) != 1:
        return None
    (dtype,) = dtypes
    return dtype if dtype in _GEMM_DTYPES else None


@register_specialize("conv_gemm")
@node_rewriter([AbstractConv, AbstractConv_gradWeights, AbstractConv_gradInputs])
def local_abstractconv_gemm(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Abstract convolution (or gradient) -> im2col + gemm correlation (see module doc)."""
    op: Any = node.op
    if isinstance(op, _CORR_TYPES) or _gemm_dtype(node) is None:
        return None
    corr = corr_op_for(op)
    if corr is None:
        return None
    nd = op.convdim
    if isinstance(op, AbstractConv_gradWeights):
        img, top, shape = node.inputs
        out = corr(img, top, shape)
        if op.filter_flip:
            out = _flipped(out, nd)
    elif isinstance(op, AbstractConv_gradInputs):
        kern, top, shape = node.inputs
        out = corr(_flipped(kern, nd) if op.filter_flip else kern, top, shape)
    else:
        img, kern = node.inputs
        out = corr(img, _flipped(kern, nd) if op.filter_flip else kern)
    out = broadcast_like(out, node.outputs[0], fgraph)
    copy_stack_trace(node.outputs[0], out)
    return [out]
