"""``theano.sandbox.fourier``: Fourier transforms of the rows or columns of a matrix
(``fft``, ``ifft``, ``half_fft``, ``half_ifft``, computed by NumPy in Python), and
``dct_matrix``. The transforms have no gradient (``grad_todo``, as in Theano); for
differentiable transforms use :mod:`jitgraph.tensor.linalg.fft` or :mod:`jitgraph.tensor.linalg.fourier`."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.gradient import grad_undefined
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.graph.type import generic
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


class GradTodo(Op):
    """Stands for a gradient nobody has written: building it works, running it raises."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        raise NotImplementedError("this gradient (of jitgraph.sandbox.fourier's FFT) is not "
                                  "implemented; use jitgraph.tensor.linalg.fft for differentiable "
                                  "transforms")

    def do_constant_folding(self, node: Apply) -> bool:
        return False


grad_todo = GradTodo()


class FFT(Op):
    """``FFT(half, inverse)(frames, n, axis)``: the ``n``-point (inverse) transform of a matrix
    along ``axis`` (0 or 1), a complex128 matrix; with ``half``, only the first ``n // 2``
    points (of a real input of even length). The second output is an unused placeholder, as in
    Theano."""

    __props__ = ("half", "inverse")

    def __init__(self, half: bool = False, inverse: bool = False) -> None:
        self.half = bool(half)
        self.inverse = bool(inverse)

    def __str__(self) -> str:
        return f"FFT{{half={self.half}, inverse={self.inverse}}}"

    def make_node(self, frames: Any, n: Any, axis: Any) -> Apply:
        frames = as_tensor_variable(frames, ndim=2)
        n = as_tensor_variable(n, ndim=0)
        axis = as_tensor_variable(axis, ndim=0)
        if self.half and frames.dtype.startswith("complex"):
            raise TypeError(f"half_fft: the input must be real, got {frames.type}")
        return Apply(self, [frames, n, axis],
                     [TensorType("complex128", (False, False))(), generic()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        frames, n, axis = inputs
        axis = int(axis)
        transform = np.fft.ifft if self.inverse else np.fft.fft
        out = transform(frames, int(n), axis)
        if self.half:
            if axis not in (0, 1):
                raise ValueError(f"half_fft: axis must be 0 or 1, got {axis}")
            length = out.shape[axis]
            if length % 2:
                raise ValueError(f"half_fft: the transform length must be even, got {length}")
            out = out[: length // 2] if axis == 0 else out[:, : length // 2]
        output_storage[0][0] = np.ascontiguousarray(out)
        output_storage[1][0] = None

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        frames, n, axis = inputs
        return [grad_todo(frames), grad_undefined(self, 1, n), grad_undefined(self, 2, axis)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, False], [False, False], [False, False]]


fft = FFT(half=False, inverse=False)
half_fft = FFT(half=True, inverse=False)
ifft = FFT(half=False, inverse=True)
half_ifft = FFT(half=True, inverse=True)


def dct_matrix(rows: int, cols: int, unitary: bool = True) -> np.ndarray:
    """The ``rows x cols`` matrix of the type-II discrete cosine transform: entry ``(i, j)`` is
    ``cos(pi * i * (j + 1/2) / cols)``; with ``unitary``, the first row is scaled by
    ``sqrt(1/cols)`` and the others by ``sqrt(2/cols)`` (orthonormal rows when square)."""
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    out = np.cos(np.pi * i * (j + 0.5) / cols)
    if unitary:
        out[0] *= np.sqrt(1.0 / cols)
        out[1:] *= np.sqrt(2.0 / cols)
    return out


__all__ = ["FFT", "fft", "ifft", "half_fft", "half_ifft", "dct_matrix", "GradTodo",
           "grad_todo"]
