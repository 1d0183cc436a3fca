"""The correlation ops (``CorrMM`` and friends, 2-d and 3-d) as generated im2col/col2im kernels
around NumPy's BLAS, run by :class:`.conv_gemm.CorrRunner` from the driver.

The abstract convolution ops have no lowering of their own: the ``conv_gemm`` rewrite
(:mod:`jitgraph.rewrite.conv`) turns those it can into correlations, and the rest run their
``perform``. A node whose arrays are not all of one float dtype also runs its ``perform``.
"""

from __future__ import annotations

from typing import Any

from jitgraph.tensor import corr as K

from jitgraph.backend_cpu.conv_codegen import conv_kernels_source
from jitgraph.backend_cpu.conv_gemm import CorrRunner
from jitgraph.backend_cpu.registry import BLAS, Lowered, register_lowering

_DTYPES = ("float32", "float64")

_METHOD = {K.CorrMM: "forward", K.Corr3dMM: "forward", K.CorrMM_gradWeights: "grad_weights",
           K.Corr3dMM_gradWeights: "grad_weights", K.CorrMM_gradInputs: "grad_inputs",
           K.Corr3dMM_gradInputs: "grad_inputs"}


@register_lowering(*_METHOD)
def lower_corr(op: Any, node: Any, ctx: Any) -> Lowered | None:
    arrays = [v for v in node.inputs if v.ndim > 1] + list(node.outputs)
    dtypes = {v.dtype for v in arrays}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _DTYPES:
        return None
    dtype = next(iter(dtypes))
    ks = conv_kernels_source(op.convdim, dtype, ctx.options)
    runner = CorrRunner(ks, op, dtype, ctx.openmp, ctx.minsize)
    method = getattr(runner, _METHOD[type(op)])
    fn = ctx.new_global(method, "corr")

    def emit(nc: Any) -> list[str]:
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [nc.set_out(0, f"{fn}({args})")]

    return Lowered(BLAS, emit, kernel_keys=(ks.key,))
