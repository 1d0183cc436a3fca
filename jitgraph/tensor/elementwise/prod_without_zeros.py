"""``ProdWithoutZeros`` (Theano's ``theano.tensor.elemwise.ProdWithoutZeros``): the product of
the non-zero entries along some axes, a reduction with :class:`Prod`'s dtype rules."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.tensor.core.gradient import grad_not_implemented
from jitgraph.tensor.elementwise.reduction import _DtypeReduce

__all__ = ["ProdWithoutZeros"]


class ProdWithoutZeros(_DtypeReduce):
    """Product over ``axis`` of the non-zero entries; 0 where there are none (all zeros, or an
    empty axis), as Theano's op computes. Dtypes as :class:`Prod`.

    Theano used it inside ``Prod``'s gradient; it has no gradient of its own (asking for one
    gives Theano's ``NullTypeGradError``): ``prod(x, no_zeros_in_input=True)`` is
    differentiable when ``x`` has no zeros.
    """

    _scalar_name = "mul_without_zeros"

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x = self._prepare(node, inputs)
        axes = self.reduced_axes(x.ndim)
        acc = x.astype(self.acc_dtype_for(x.dtype.name), copy=False)
        if axes:
            nonzero = acc != 0
            product = np.prod(np.where(nonzero, acc, acc.dtype.type(1)), axis=axes)
            acc = np.where(np.any(nonzero, axis=axes), product, acc.dtype.type(0))
        output_storage[0][0] = np.asarray(acc).astype(node.outputs[0].dtype)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        return [grad_not_implemented(
            self, i, x, "the product ignoring zeros has no gradient; when the input has no "
            "zeros, use prod(x, no_zeros_in_input=True)") for i, x in enumerate(inputs)]
