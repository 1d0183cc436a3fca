"""``theano.tensor.nnet.blocksparse``: products of chosen blocks of a block matrix.

A weight ``W`` of shape (iBlocks, oBlocks, iSize, oSize) is a grid of iSize x oSize blocks.
Each example ``b`` of a minibatch uses only ``iWin`` input blocks (numbers ``inputIdx[b]``,
values ``h[b]``) and asks for ``oWin`` output blocks (numbers ``outputIdx[b]``):

* :class:`SparseBlockGemv` -- ``o[b, j] + sum_i h[b, i] @ W[inputIdx[b, i], outputIdx[b, j]]``;
* :class:`SparseBlockOuter` -- ``o`` (a grid like ``W``) plus, for every ``b, i, j``,
  ``alpha * outer(x[b, i], y[b, j])`` added into block ``(xIdx[b, i], yIdx[b, j])`` (a block
  named twice receives both terms); the weight gradient of the product above.

:func:`sparse_block_dot` is the product plus a bias per output block. The ops compute with
NumPy (one ``einsum`` per example); ``inplace=True`` variants write into ``o`` and are put in
by the in-place rewrites below (``local_inplace_sparse_block_gemv`` / ``_outer``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.destroyhandler import get_destroy_handler
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_inplace
from jitgraph.tensor.core.conversion import as_tensor_variable, constant

__all__ = ["SparseBlockGemv", "SparseBlockOuter", "sparse_block_dot", "sparse_block_gemv",
           "sparse_block_gemv_inplace", "sparse_block_outer", "sparse_block_outer_inplace",
           "local_inplace_sparse_block_gemv", "local_inplace_sparse_block_outer"]


def _checked(value: Any, ndim: int, what: str, op: str, integer: bool = False) -> Variable:
    var = as_tensor_variable(value)
    if var.ndim != ndim:
        raise TypeError(f"{op}: {what} must be a {ndim}-d tensor, got {var.ndim} dimensions "
                        f"({var.type})")
    if integer and not (var.dtype.startswith("int") or var.dtype.startswith("uint")):
        raise TypeError(f"{op}: {what} holds block numbers and must have an integer dtype, "
                        f"got {var.dtype}")
    return var


class _BlockSparseOp(Op):
    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list:
        return [tuple(input_shapes[0])]

    def _start(self, o: np.ndarray) -> np.ndarray:
        # the in-place variant accumulates into o's own buffer
        return o if self.inplace else o.copy()


class SparseBlockGemv(_BlockSparseOp):
    """``out[b, j] = o[b, j] + sum_i h[b, i] @ W[inputIdx[b, i], outputIdx[b, j]]``.

    Inputs ``(o, W, h, inputIdx, outputIdx)`` of shapes (batch, oWin, oSize),
    (iBlocks, oBlocks, iSize, oSize), (batch, iWin, iSize), (batch, iWin), (batch, oWin);
    the result has ``o``'s type. ``inplace=True`` writes it into ``o``."""

    def make_node(self, o: Any, W: Any, h: Any, inputIdx: Any, outputIdx: Any) -> Apply:
        name = type(self).__name__
        o = _checked(o, 3, "the output o (batch, oWin, oSize)", name)
        W = _checked(W, 4, "the weights W (iBlocks, oBlocks, iSize, oSize)", name)
        h = _checked(h, 3, "the input h (batch, iWin, iSize)", name)
        inputIdx = _checked(inputIdx, 2, "inputIdx (batch, iWin)", name, integer=True)
        outputIdx = _checked(outputIdx, 2, "outputIdx (batch, oWin)", name, integer=True)
        return Apply(self, [o, W, h, inputIdx, outputIdx], [o.type()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        o, W, h, iIdx, oIdx = inputs
        out = self._start(o)
        for b in range(out.shape[0]):
            blocks = W[iIdx[b][:, None], oIdx[b][None, :]]  # (iWin, oWin, iSize, oSize)
            out[b] += np.einsum("ik,ijkl->jl", h[b], blocks).astype(out.dtype, copy=False)
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        o, W, h, inputIdx, outputIdx = inputs
        (go,) = output_grads
        # dW: each used block receives outer(h[b, i], go[b, j]);
        # dh[b, i] = sum_j W[inputIdx[b, i], outputIdx[b, j]] @ go[b, j], the same product
        # through the transposed grid with the roles of the index matrices swapped
        W_grad = sparse_block_outer(W.zeros_like(), h, go, inputIdx, outputIdx)
        h_grad = sparse_block_gemv(h.zeros_like(), W.dimshuffle(1, 0, 3, 2), go, outputIdx,
                                   inputIdx)
        return [go, W_grad, h_grad,
                grad_undefined(self, 3, inputIdx, "inputIdx holds block numbers"),
                grad_undefined(self, 4, outputIdx, "outputIdx holds block numbers")]


class SparseBlockOuter(_BlockSparseOp):
    """``out = o`` plus ``alpha * outer(x[b, i], y[b, j])`` added into block
    ``(xIdx[b, i], yIdx[b, j])`` for every ``b, i, j``.

    Inputs ``(o, x, y, xIdx, yIdx, alpha=1)`` of shapes (xBlocks, yBlocks, xSize, ySize),
    (batch, xWin, xSize), (batch, yWin, ySize), (batch, xWin), (batch, yWin), scalar; the
    result has ``o``'s type. (Theano 1.0.5's CPU ``perform`` ignored ``alpha``; its GPU
    kernels and its documentation scale by it, as done here.)"""

    def make_node(self, o: Any, x: Any, y: Any, xIdx: Any, yIdx: Any, alpha: Any = None
                  ) -> Apply:
        name = type(self).__name__
        o = _checked(o, 4, "the output o (xBlocks, yBlocks, xSize, ySize)", name)
        x = _checked(x, 3, "x (batch, xWin, xSize)", name)
        y = _checked(y, 3, "y (batch, yWin, ySize)", name)
        xIdx = _checked(xIdx, 2, "xIdx (batch, xWin)", name, integer=True)
        yIdx = _checked(yIdx, 2, "yIdx (batch, yWin)", name, integer=True)
        alpha = (constant(np.asarray(1.0, dtype="float32")) if alpha is None
                 else _checked(alpha, 0, "alpha (a scalar)", name))
        return Apply(self, [o, x, y, xIdx, yIdx, alpha], [o.type()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        o, x, y, xIdx, yIdx, alpha = inputs
        out = self._start(o)
        for b in range(x.shape[0]):
            terms = np.einsum("ik,jl->ijkl", x[b], y[b]) * alpha
            # add.at, not +=: a block named twice must receive both terms
            np.add.at(out, (xIdx[b][:, None], yIdx[b][None, :]), terms.astype(out.dtype))
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        o, x, y, xIdx, yIdx, alpha = inputs
        (g,) = output_grads
        # y_part[b, j] = sum_i x[b, i] @ g[xIdx[b, i], yIdx[b, j]]; x's gradient is the same
        # product through the transposed grid; alpha's is <y_part, y>
        y_part = sparse_block_gemv(y.zeros_like(), g, x, xIdx, yIdx)
        x_part = sparse_block_gemv(x.zeros_like(), g.dimshuffle(1, 0, 3, 2), y, yIdx, xIdx)
        alpha_grad = (y_part * y).sum().astype(alpha.dtype)
        return [g, x_part * alpha, y_part * alpha,
                grad_undefined(self, 3, xIdx, "xIdx holds block numbers"),
                grad_undefined(self, 4, yIdx, "yIdx holds block numbers"),
                alpha_grad]


sparse_block_gemv = SparseBlockGemv(False)
sparse_block_gemv_inplace = SparseBlockGemv(True)
sparse_block_outer = SparseBlockOuter(False)
sparse_block_outer_inplace = SparseBlockOuter(True)


def sparse_block_dot(W: Any, h: Any, inputIdx: Any, b: Any, outputIdx: Any) -> Variable:
    """``out[n, j] = b[outputIdx[n, j]] + sum_i h[n, i] @ W[inputIdx[n, i], outputIdx[n, j]]``.

    ``W`` (iBlocks, oBlocks, iSize, oSize), ``h`` (batch, iWin, iSize), ``inputIdx``
    (batch, iWin), ``b`` (oBlocks, oSize), ``outputIdx`` (batch, oWin); the result is
    (batch, oWin, oSize). ``h`` may also be one example (iWin, iSize) with 1-d index vectors;
    the result then keeps a batch axis of length 1, as Theano's did."""
    W, h, b = as_tensor_variable(W), as_tensor_variable(h), as_tensor_variable(b)
    inputIdx, outputIdx = as_tensor_variable(inputIdx), as_tensor_variable(outputIdx)
    if inputIdx.ndim != h.ndim - 1 or outputIdx.ndim != inputIdx.ndim:
        raise TypeError(f"sparse_block_dot: inputIdx and outputIdx must have one dimension less "
                        f"than h ({h.ndim}), got {inputIdx.ndim} and {outputIdx.ndim}")
    if h.ndim == 2:
        h = h.dimshuffle("x", 0, 1)
        inputIdx, outputIdx = inputIdx.dimshuffle("x", 0), outputIdx.dimshuffle("x", 0)
    return sparse_block_gemv(b.take(outputIdx, axis=0), W, h, inputIdx, outputIdx)


def _make_inplace(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    if node.op.inplace or isinstance(node.inputs[0], Constant):
        return None
    handler = get_destroy_handler(fgraph)
    if handler is not None and not handler.can_destroy(node.inputs[0]):
        return None
    new = type(node.op)(inplace=True)(*node.inputs)
    copy_stack_trace(node.outputs[0], new)
    return [new]


@node_rewriter([SparseBlockGemv], inplace=True)
def local_inplace_sparse_block_gemv(fgraph: FunctionGraph, node: Apply
                                    ) -> list[Variable] | None:
    """``SparseBlockGemv`` accumulating into its ``o`` input's buffer."""
    return _make_inplace(fgraph, node)


@node_rewriter([SparseBlockOuter], inplace=True)
def local_inplace_sparse_block_outer(fgraph: FunctionGraph, node: Apply
                                     ) -> list[Variable] | None:
    """``SparseBlockOuter`` accumulating into its ``o`` input's buffer."""
    return _make_inplace(fgraph, node)


register_inplace(local_inplace_sparse_block_gemv, name="local_inplace_sparse_block_gemv",
                 position=60)
register_inplace(local_inplace_sparse_block_outer, name="local_inplace_sparse_block_outer",
                 position=60)
