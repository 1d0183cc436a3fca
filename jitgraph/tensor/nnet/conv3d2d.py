"""``theano.tensor.nnet.conv3d2d.conv3d``: Theano's convolution of movies laid out
(batch, time, channel, row, column), written there as 2-d convolutions summed along the time
diagonals. Here it is the 3-d convolution of :func:`jitgraph.tensor.nnet.conv3d` on the axes
moved to (batch, channel, time, row, column) and back, which computes the same numbers (the
filters flipped along all three axes, as Theano's) with one compiled kernel and its gradients."""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.tensor.core.conversion import as_tensor_variable

_BORDER_MODES = ("valid", "full", "half")
_TO_CHANNEL_FIRST = (0, 2, 1, 3, 4)  # (N, T, C, H, W) <-> (N, C, T, H, W): its own inverse


def _channel_first(shape: Sequence[Any] | None) -> tuple | None:
    if shape is None:
        return None
    shape = tuple(shape)
    if len(shape) != 5:
        raise ValueError(f"conv3d2d.conv3d: a shape must have 5 entries (batch, time, channel, "
                         f"row, column), got {shape}")
    return tuple(shape[k] for k in _TO_CHANNEL_FIRST)


def conv3d(signals: Any, filters: Any, signals_shape: Sequence[Any] | None = None,
           filters_shape: Sequence[Any] | None = None, border_mode: str = "valid") -> Any:
    """Convolve ``filters`` (out channel, time, in channel, row, column) with ``signals``
    (batch, time, in channel, row, column), flipping the filters; the result is
    (batch, time, out channel, row, column). ``border_mode``: 'valid', 'full' or 'half'."""
    from jitgraph.tensor.nnet import conv3d as conv3d_nchw

    if border_mode not in _BORDER_MODES:
        raise ValueError(f"conv3d2d.conv3d: border_mode must be one of {_BORDER_MODES}, got "
                         f"{border_mode!r}")
    signals, filters = as_tensor_variable(signals), as_tensor_variable(filters)
    for name, var in (("signals", signals), ("filters", filters)):
        if var.ndim != 5:
            raise TypeError(f"conv3d2d.conv3d: {name} must be a 5-d tensor (batch/out channel, "
                            f"time, channel, row, column), got {var.ndim} dimensions ({var.type})")
    out = conv3d_nchw(signals.dimshuffle(*_TO_CHANNEL_FIRST),
                      filters.dimshuffle(*_TO_CHANNEL_FIRST),
                      input_shape=_channel_first(signals_shape),
                      filter_shape=_channel_first(filters_shape),
                      border_mode=border_mode, filter_flip=True)
    return out.dimshuffle(*_TO_CHANNEL_FIRST)


__all__ = ["conv3d"]
