"""The correlation ops (``CorrMM`` and friends, 2-d and 3-d) as generated im2col/col2im kernels
around NumPy's BLAS, run by :class:`.conv_gemm.CorrRunner` from the driver.

The abstract convolution ops have no lowering of their own: the ``conv_gemm`` rewrite
(:mod:`jitgraph.tensor.rewriting.conv`) turns those it can into correlations, and the rest run their
``perform``. A node whose arrays are not all of one float dtype also runs its ``perform``.
"""

from __future__ import annotations

from typing import Any

from jitgraph.tensor.convolution import corr as K
from jitgraph.tensor.indexing.index_encoding import index_vars
from jitgraph.tensor.indexing.subtensor_ops import Subtensor

from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.codegen.conv import conv_kernels_source
from jitgraph.backend_cpu.runtime.conv_gemm import CorrRunner
from jitgraph.backend_cpu.codegen.kernels import kernel_module
from jitgraph.backend_cpu.lowering.registry import BLAS, Lowered, register_lowering

_DTYPES = ("float32", "float64")

_METHOD = {K.CorrMM: "forward", K.Corr3dMM: "forward", K.CorrMM_gradWeights: "grad_weights",
           K.Corr3dMM_gradWeights: "grad_weights", K.CorrMM_gradInputs: "grad_inputs",
           K.Corr3dMM_gradInputs: "grad_inputs"}

_ENTRY = {"forward": "im2col_c", "grad_weights": "im2col_c", "grad_inputs": "col2im"}


def _read_reversed(node: Any, ctx: Any) -> bool:
    """Whether every use of a kernel gradient reverses its spatial axes (the kernel gradient
    of a convolution that flips its kernel, :mod:`jitgraph.tensor.rewriting.conv`). The runner then
    lays it out so that the reversed view is the C-contiguous one: what reads it (an SGD
    update) runs its contiguous kernel instead of compiling the strided one."""
    if not isinstance(node.op, (K.CorrMM_gradWeights, K.Corr3dMM_gradWeights)):
        return False
    out = node.outputs[0]
    clients = ctx.fgraph.clients.get(out, [])
    first = out.ndim - node.op.convdim
    for client, _ in clients:
        if not isinstance(getattr(client, "op", None), Subtensor):
            return False
        entries = index_vars(client.op.idx_list, client.inputs[1:])
        if len(entries) != out.ndim:
            return False
        for axis, entry in enumerate(entries):
            if not isinstance(entry, tuple) or entry[0] is not None or entry[1] is not None:
                return False
            step = None if entry[2] is None else ctx.known_value(entry[2])
            if entry[2] is not None and step is None:
                return False
            if (-1 if axis >= first else 1) != (1 if step is None else int(step)):
                return False
    return bool(clients)


@register_lowering(*_METHOD)
def lower_corr(op: Any, node: Any, ctx: Any) -> Lowered | None:
    arrays = [v for v in node.inputs if v.ndim > 1] + list(node.outputs)
    dtypes = {v.dtype for v in arrays}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _DTYPES:
        return None
    dtype = next(iter(dtypes))
    ks = conv_kernels_source(op.convdim, dtype, ctx.options)
    runner = CorrRunner(ks, op, dtype, ctx.openmp, ctx.minsize,
                        flipped_output=_read_reversed(node, ctx))
    method = getattr(runner, _METHOD[type(op)])
    fn = ctx.new_global(method, "corr")
    # compiled with the program's other kernels (the strided im2col only if ever needed)
    compile_ahead.want(kernel_module(ks), _ENTRY[_METHOD[type(op)]])

    def emit(nc: Any) -> list[str]:
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [nc.set_out(0, f"{fn}({args})")]

    return Lowered(BLAS, emit, kernel_keys=(ks.key,))
