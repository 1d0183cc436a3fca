"""``theano.tensor.fourier``: ``fft(a, n, axis)``, NumPy's discrete Fourier transform as an op
(complex output, computed in Python), with its gradient."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
import jitgraph.tensor as T
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.tensor.core.type import TensorType


class Fourier(Op):
    """``Fourier()(a, n, axis)``: ``numpy.fft.fft(a, n, axis)``. ``n`` (the number of points:
    ``a`` is cut or zero-padded to it along ``axis``; ``a``'s length there by default) and
    ``axis`` (-1 by default) are integer scalars."""

    __props__ = ()

    def __str__(self) -> str:
        return type(self).__name__

    def make_node(self, a: Any, n: Any = None, axis: Any = -1) -> Apply:
        a = as_tensor_variable(a)
        if a.ndim < 1:
            raise TypeError(f"fft: the input must have at least one dimension, got {a.type}")
        if isinstance(axis, (int, np.integer)) and axis < 0:
            axis += a.ndim
        if n is None:  # jitgraph's default; Theano required n and axis
            n = a.shape[int(axis)]
        n = as_tensor_variable(n)
        axis = as_tensor_variable(axis)
        for what, v in (("n", n), ("axis", axis)):
            if v.ndim != 0 or not v.dtype.startswith(("int", "uint")):
                raise TypeError(f"fft: {what} must be an integer scalar, got {v.type}")
        out_dtype = "complex64" if a.dtype in ("float32", "complex64") else "complex128"
        return Apply(self, [a, n, axis], [TensorType(out_dtype, a.broadcastable)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, n, axis = inputs
        out = np.fft.fft(a, int(n), int(axis))
        output_storage[0][0] = out.astype(node.outputs[0].type.dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # d fft(a)_k / d a_j = exp(-2 pi i j k / n): the gradient is the conjugate transform of
        # the output gradient, cut or padded back to a's length along the axis.

        a, n, axis = inputs
        (gout,) = output_grads
        if not (isinstance(axis, Variable) and hasattr(axis, "data")):
            return [grad_undefined(self, 0, a, "fft: the axis must be a constant for the "
                                   "gradient"), grad_undefined(self, 1, n),
                    grad_undefined(self, 2, axis)]
        ax = int(axis.data) % a.ndim
        j = T.arange(a.shape[ax])
        k = T.arange(n)
        basis = T.exp(2j * np.pi * T.outer(j, k) / n)  # (len_a, n)
        moved = T.tensordot(gout, basis, axes=[[ax], [1]])  # axis moved to the end
        order = list(range(a.ndim - 1))
        order.insert(ax, a.ndim - 1)
        ga = moved.dimshuffle(order)
        if not a.dtype.startswith("complex"):
            ga = T.real(ga)
        return [ga, grad_undefined(self, 1, n), grad_undefined(self, 2, axis)]


#: Theano's name for the op: ``fft(a, n, axis)``
fft = Fourier()

__all__ = ["Fourier", "fft"]
