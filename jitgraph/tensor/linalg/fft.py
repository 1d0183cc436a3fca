"""``theano.tensor.fft``: real-input FFTs over all axes but the first (the batch axis).

Theano's layout: complex values are stored as real arrays whose last axis (of length 2) holds
the real and imaginary parts. ``rfft`` of an input of shape ``(batch, n1, ..., nk)`` has shape
``(batch, n1, ..., nk // 2 + 1, 2)``; ``irfft`` inverts it (``is_odd`` says whether ``nk`` was
odd). The ops compute unnormalised transforms; ``norm`` (None: the inverse is divided by the
number of points, 'ortho': both by its square root, 'no_norm': neither) is applied in the graph.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import DisconnectedType
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import concatenate
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.elementwise.reduction import prod
from jitgraph.tensor.extras.extra_ops import arange

__all__ = ["DisconnectedType", "IRFFTOp", "RFFTOp", "irfft", "irfft_op", "rfft", "rfft_op"]

_NORMS = (None, "ortho", "no_norm")


def _real_input(a: Any, op: Op, min_ndim: int, what: str) -> Variable:
    a = as_tensor_variable(a)
    if a.ndim < min_ndim:
        raise TypeError(f"{op}: the input must have {min_ndim} or more dimensions ({what}), "
                        f"got {a} ({a.type})")
    if dt.is_complex(a.dtype):
        raise TypeError(f"{op}: the input must be real (complex values are stored as a last axis "
                        f"of real/imaginary pairs), got {a} ({a.type})")
    return a


def _shape_input(s: Any, op: Op, n_axes: int) -> Variable:
    s = as_tensor_variable(s)
    if s.ndim != 1 or not dt.is_discrete(s.dtype):
        raise TypeError(f"{op}: s must be an integer vector (the transform's shape), got {s} "
                        f"({s.type})")
    return s


def _bin_weights(s: Variable, n_bins: Any, mid: float) -> Variable:
    """A column (bins x 1) of weights: 1 for the bins without a mirror image (the zero
    frequency, and the Nyquist frequency when the last axis ``s[-1]`` is even), ``mid`` for the
    others (each stands for itself and its complex conjugate)."""
    k = arange(n_bins)
    unpaired = math.or_(math.eq(k, 0), math.eq(2 * k, s[-1]))
    weights = math.switch(unpaired, np.float64(1.0), np.float64(mid))
    return weights.dimshuffle(0, "x")


class RFFTOp(Op):
    """Unnormalised ``numpy.fft.rfftn`` over axes ``1..ndim-1`` with transform shape ``s``,
    output as real/imaginary pairs on a new last axis."""

    __props__ = ()

    def make_node(self, a: Any, s: Any = None) -> Apply:
        a = _real_input(a, self, 2, "a batch axis first")
        s = _shape_input(a.shape[1:] if s is None else s, self, a.ndim - 1)
        out = TensorType(dt.upgrade_to_float(a.dtype), (False,) * (a.ndim + 1)).make_variable()
        return Apply(self, [a, s], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, s = inputs
        spectrum = np.fft.rfftn(a, tuple(int(n) for n in s), axes=tuple(range(1, a.ndim)))
        out = np.stack([spectrum.real, spectrum.imag], axis=-1)
        output_storage[0][0] = out.astype(node.outputs[0].dtype, copy=False)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # The adjoint of the half spectrum: the unnormalised inverse with the paired bins halved
        # (the inverse counts each of them twice).
        (_, s), (gz,) = inputs, output_grads
        weighted = gz * _bin_weights(s, gz.shape[-2], 0.5)
        return [irfft_op(weighted, s), DisconnectedType()()]


rfft_op = RFFTOp()


class IRFFTOp(Op):
    """Unnormalised ``numpy.fft.irfftn`` (times the number of points) over axes
    ``1..ndim-2`` of an input of real/imaginary pairs, with output shape ``s``."""

    __props__ = ()

    def make_node(self, a: Any, s: Any = None) -> Apply:
        a = _real_input(a, self, 3, "a batch axis first, real/imaginary pairs last")
        if s is None:
            last = 2 * (a.shape[-2] - 1)
            s = concatenate([a.shape[1:-2], as_tensor_variable([last])])
        s = _shape_input(s, self, a.ndim - 2)
        out = TensorType(dt.upgrade_to_float(a.dtype), (False,) * (a.ndim - 1)).make_variable()
        return Apply(self, [a, s], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, s = inputs
        if a.shape[-1] != 2:
            raise ValueError(f"{self}: the last axis of the input must hold real/imaginary pairs "
                             f"(length 2), got shape {a.shape}")
        shape = tuple(int(n) for n in s)
        spectrum = a[..., 0] + 1j * a[..., 1]
        out = np.fft.irfftn(spectrum, shape, axes=tuple(range(1, spectrum.ndim)))
        out *= np.prod(shape)
        output_storage[0][0] = out.astype(node.outputs[0].dtype, copy=False)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # The adjoint of the inverse: the forward transform with the paired bins doubled.
        (a, s), (gz,) = inputs, output_grads
        spectrum = rfft_op(gz, s)
        return [spectrum * _bin_weights(s, a.shape[-2], 2.0), DisconnectedType()()]


irfft_op = IRFFTOp()


def _check_norm(norm: Any) -> None:
    if norm not in _NORMS:
        raise ValueError(f"invalid value {norm!r} for norm: expected None, 'ortho' or 'no_norm'")


def _n_points(s: Variable) -> Variable:
    return prod(s)


def rfft(inp: Any, norm: str | None = None) -> Variable:
    """The FFT of the real ``inp`` over all axes but the first (batch) axis: shape
    ``(batch, n1, ..., nk // 2 + 1, 2)`` (real/imaginary pairs last)."""
    _check_norm(norm)
    inp = as_tensor_variable(inp)
    s = inp.shape[1:]
    out = rfft_op(inp, s)
    if norm == "ortho":
        out = out / math.sqrt(math.cast(_n_points(s), out.dtype))
    return out


def irfft(inp: Any, norm: str | None = None, is_odd: bool = False) -> Variable:
    """The inverse of :func:`rfft`: ``inp`` holds real/imaginary pairs on its last axis; the
    transformed last axis has ``2 * (m - 1) + is_odd`` points for ``m`` frequency bins."""
    _check_norm(norm)
    if is_odd not in (True, False):
        raise ValueError(f"irfft: is_odd must be True or False, got {is_odd!r}")
    inp = as_tensor_variable(inp)
    if inp.ndim < 3:
        raise TypeError(f"irfft: the input must have 3 or more dimensions (a batch axis first, "
                        f"real/imaginary pairs last), got {inp} ({inp.type})")
    last = 2 * (inp.shape[-2] - 1) + int(is_odd)
    s = concatenate([inp.shape[1:-2], as_tensor_variable([last])])
    out = irfft_op(inp, s)
    if norm is None:
        out = out / math.cast(_n_points(s), out.dtype)
    elif norm == "ortho":
        out = out / math.sqrt(math.cast(_n_points(s), out.dtype))
    return out
