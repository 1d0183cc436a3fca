"""Bilinear upsampling of images (``theano.tensor.nnet.abstract_conv.bilinear_upsampling`` and
its kernels).

Upsampling an axis of ``n`` pixels by a ratio ``num / den`` gives ``ceil(n * num / den)``
pixels; output pixel ``j`` is the linear interpolation of the input at position
``(j * den - (num - 1) // 2) / num``, clamped to ``[0, n - 1]`` (Theano's placement: for an
integer ratio ``r``, every ``r``-th output pixel is an input pixel, from ``(r - 1) // 2`` on,
and the borders repeat the edge pixels). Each axis is a product with an interpolation matrix
(:class:`InterpolationMatrix`, built from the axis' size at run time), so gradients come from
the matrix products.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import concatenate
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.extras.extra_ops import arange
from jitgraph.tensor.linalg.dot_functions import tensordot
from jitgraph.tensor.shaping.dims import _add, _dim, _floordiv, _mul, _sub

__all__ = ["InterpolationMatrix", "bilinear_upsampling", "frac_bilinear_upsampling",
           "bilinear_kernel_1D", "bilinear_kernel_2D"]


def interpolation_matrix(n: int, num: int, den: int) -> np.ndarray:
    """The ``(ceil(n * num / den), n)`` matrix of linear-interpolation weights."""
    out = -(-n * num // den)
    position = (np.arange(out) * den - (num - 1) // 2) / num
    position = np.clip(position, 0, max(n - 1, 0))
    lo = np.floor(position).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    frac = position - lo
    mat = np.zeros((out, n))
    rows = np.arange(out)
    np.add.at(mat, (rows, lo), 1 - frac)
    np.add.at(mat, (rows, hi), frac)
    return mat


class InterpolationMatrix(Op):
    """Input: the size ``n`` of an axis (int scalar); output: :func:`interpolation_matrix`
    for the ratio ``num / den`` (float64)."""

    __props__ = ("num", "den")

    def __init__(self, num: int, den: int = 1) -> None:
        if num < 1 or den < 1:
            raise ValueError(f"bilinear_upsampling: the ratio must be positive, got "
                             f"{num}/{den}")
        self.num, self.den = int(num), int(den)

    def make_node(self, n: Any) -> Apply:
        n = as_tensor_variable(n)
        if n.ndim != 0:
            raise TypeError(f"InterpolationMatrix needs a scalar size, got {n.type}")
        return Apply(self, [n], [TensorType("float64", (False, False)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = interpolation_matrix(int(inputs[0]), self.num, self.den)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        n = _dim(node.inputs[0])
        out = _sub(0, _floordiv(_sub(0, _mul(n, self.num)), self.den))  # ceil
        return [(_add(out, 0), n)]


def _fraction(value: Any) -> tuple[int, int]:
    if isinstance(value, (int, np.integer)):
        return int(value), 1
    num, den = value
    return int(num), int(den)


def bilinear_upsampling(input: Any, ratio: Any = None, frac_ratio: Any = None,
                        batch_size: Any = None, num_input_channels: Any = None,
                        use_1D_kernel: bool = True) -> Variable:
    """Upsample the last two axes of a 4-d ``input`` by ``ratio`` (an int) or ``frac_ratio``
    (a fraction ``(num, den)`` for both axes, or one per axis), interpolating bilinearly.
    ``batch_size`` and ``num_input_channels`` are accepted for Theano's signature (the shapes
    are read at run time); ``use_1D_kernel`` chose Theano's implementation and must be False
    with ``frac_ratio``."""
    if (ratio is None) == (frac_ratio is None):
        raise ValueError("bilinear_upsampling: give exactly one of ratio and frac_ratio")
    if frac_ratio is not None and use_1D_kernel:
        raise ValueError("bilinear_upsampling: fractional ratios need use_1D_kernel=False "
                         "(as in Theano)")
    x = as_tensor_variable(input)
    if x.ndim != 4:
        raise TypeError(f"bilinear_upsampling needs a 4-d input, got {x.type}")
    if ratio is not None:
        rows = cols = _fraction(int(ratio))
    elif isinstance(frac_ratio[0], (tuple, list)):
        rows, cols = _fraction(frac_ratio[0]), _fraction(frac_ratio[1])
    else:
        rows = cols = _fraction(frac_ratio)
    a_rows = cast(InterpolationMatrix(*rows)(x.shape[2]), x.dtype)
    a_cols = cast(InterpolationMatrix(*cols)(x.shape[3]), x.dtype)
    wide = tensordot(x, a_cols, axes=[[3], [1]])              # (b, c, h, W)
    return tensordot(wide, a_rows, axes=[[2], [1]]).dimshuffle(0, 1, 3, 2)


def frac_bilinear_upsampling(input: Any, frac_ratio: Any) -> Variable:
    """:func:`bilinear_upsampling` by a fractional ratio (Theano's older name)."""
    return bilinear_upsampling(input, frac_ratio=frac_ratio, use_1D_kernel=False)


def _kernel_1d(ratio: int, normalize: bool) -> np.ndarray:
    ramp = np.concatenate([np.arange(1, ratio + 1), np.arange(ratio - 1, 0, -1)]).astype(float)
    return ramp / ratio if normalize else ramp


def bilinear_kernel_1D(ratio: Any, normalize: bool = True) -> Variable:
    """The 1-d kernel of bilinear upsampling by ``ratio``: ``[1, 2, ..., ratio, ..., 2, 1]``
    (divided by ``ratio`` when ``normalize``). A symbolic integer ``ratio`` gives a kernel
    computed at run time."""
    if isinstance(ratio, (int, np.integer)):
        return constant(_kernel_1d(int(ratio), normalize).astype(dt.floatx()))
    ratio = as_tensor_variable(ratio)
    if ratio.ndim != 0 or not dt.is_discrete(ratio.dtype):
        raise TypeError(f"bilinear_kernel_1D: ratio must be an integer scalar, got {ratio} "
                        f"({ratio.type})")
    ramp = arange(1, ratio + 1, dtype=dt.floatx())
    kernel = concatenate([ramp, ramp[-2::-1]])
    return kernel / cast(ratio, dt.floatx()) if normalize else kernel


def bilinear_kernel_2D(ratio: Any, normalize: bool = True) -> Variable:
    """The 2-d kernel of bilinear upsampling: the outer product of the 1-d kernels."""
    if isinstance(ratio, (int, np.integer)):
        k = _kernel_1d(int(ratio), normalize)
        return constant(np.outer(k, k).astype(dt.floatx()))
    k = bilinear_kernel_1D(ratio, normalize)
    return k.dimshuffle(0, "x") * k.dimshuffle("x", 0)
