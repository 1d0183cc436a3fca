"""The convolution functions users call (``theano.tensor.nnet.conv2d`` and the functions of
``theano.tensor.nnet.abstract_conv``), built from the ops of :mod:`jitgraph.tensor.convolution.conv`.

Shapes: images ``(batch, channels, rows, cols[, depth])``; kernels ``(out_channels,
in_channels // num_groups, krows, kcols[, kdepth])``, or for ``unshared=True``
``(out_channels, out_rows, out_cols, in_channels // num_groups, krows, kcols)``.
``input_shape``/``filter_shape`` are optional hints (ints or None per entry).
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from jitgraph.graph.basic import Variable
from jitgraph.tensor.convolution.conv import (AbstractConv2d, AbstractConv2d_gradInputs,
                                  AbstractConv2d_gradWeights, AbstractConv3d,
                                  AbstractConv3d_gradInputs, AbstractConv3d_gradWeights)
from jitgraph.tensor.convolution.conv_shapes import BorderMode
from jitgraph.tensor.core.conversion import as_tensor_variable

__all__ = [
    "conv2d", "abstract_conv2d", "conv3d", "conv2d_grad_wrt_inputs", "conv2d_grad_wrt_weights",
    "conv3d_grad_wrt_inputs", "conv3d_grad_wrt_weights", "conv2d_transpose",
    "separable_conv2d", "separable_conv3d", "causal_conv1d",
]


def abstract_conv2d(input: Any, filters: Any, input_shape: Any = None, filter_shape: Any = None,
                    border_mode: BorderMode = "valid", subsample: Any = (1, 1),
                    filter_flip: bool = True, filter_dilation: Any = (1, 1),
                    num_groups: int = 1, unshared: bool = False) -> Variable:
    """2-d convolution of a 4-d ``input`` by 4-d ``filters`` (6-d when ``unshared``).

    ``border_mode``: 'valid' (no padding), 'full' (pad by the dilated kernel size - 1), 'half'
    (pad by half the dilated kernel size), an int or a pair of ints (symmetric padding per
    axis), or a pair of ``(lo, hi)`` pairs. ``subsample``: strides. ``filter_flip=False``
    computes a cross-correlation. ``num_groups`` splits channels into independent groups.
    """
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    op = AbstractConv2d(imshp=input_shape, kshp=filter_shape, border_mode=border_mode,
                        subsample=subsample, filter_flip=filter_flip,
                        filter_dilation=filter_dilation, num_groups=num_groups,
                        unshared=unshared)
    return op(input, filters)


def conv2d(input: Any, filters: Any, input_shape: Any = None, filter_shape: Any = None,
           border_mode: BorderMode = "valid", subsample: Any = (1, 1), filter_flip: bool = True,
           image_shape: Any = None, filter_dilation: Any = (1, 1), num_groups: int = 1,
           unshared: bool = False, **kwargs: Any) -> Variable:
    """``theano.tensor.nnet.conv2d``: :func:`abstract_conv2d` plus the old keyword names
    (``image_shape`` for ``input_shape``; other old keywords are ignored with a warning)."""
    if "imshp_logical" in kwargs or "kshp_logical" in kwargs:
        raise ValueError("conv2d: the keywords 'imshp_logical' and 'kshp_logical' are no longer "
                         "supported (they were an unreliable way to upsample); use "
                         "conv2d_transpose or bilinear_upsampling instead")
    if kwargs:
        warnings.warn(f"conv2d ignores the obsolete keyword arguments {sorted(kwargs)}",
                      stacklevel=2)
    if image_shape is not None:
        warnings.warn("conv2d: the keyword 'image_shape' is deprecated, use 'input_shape'",
                      stacklevel=2)
        if input_shape is not None:
            raise ValueError("conv2d: give input_shape or image_shape, not both")
        input_shape = image_shape
    return abstract_conv2d(input, filters, input_shape, filter_shape, border_mode, subsample,
                           filter_flip, filter_dilation, num_groups, unshared)


def conv3d(input: Any, filters: Any, input_shape: Any = None, filter_shape: Any = None,
           border_mode: BorderMode = "valid", subsample: Any = (1, 1, 1),
           filter_flip: bool = True, filter_dilation: Any = (1, 1, 1),
           num_groups: int = 1) -> Variable:
    """3-d convolution of a 5-d ``input`` ``(batch, channels, d0, d1, d2)`` by 5-d ``filters``
    (border modes, strides, dilation and groups as in :func:`conv2d`)."""
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    op = AbstractConv3d(imshp=input_shape, kshp=filter_shape, border_mode=border_mode,
                        subsample=subsample, filter_flip=filter_flip,
                        filter_dilation=filter_dilation, num_groups=num_groups)
    return op(input, filters)


def _spatial(shape: Any, convdim: int, name: str) -> list[Any]:
    """The last ``convdim`` entries of a full shape (a tuple/list, or a symbolic vector)."""
    if isinstance(shape, (list, tuple)):
        if len(shape) < convdim:
            raise ValueError(f"{name} must hold the full shape (at least {convdim} entries), "
                             f"got {shape!r}")
        return list(shape[-convdim:])
    vec = as_tensor_variable(shape)
    if vec.ndim != 1:
        raise TypeError(f"{name} must be a tuple of sizes or an integer vector, got {vec.type}")
    return [vec[i] for i in range(-convdim, 0)]


def _hint(shape: Any) -> Any:
    """A full shape as an op hint (symbolic vectors give no hint)."""
    return tuple(shape) if isinstance(shape, (list, tuple)) else None


def conv2d_grad_wrt_inputs(output_grad: Any, filters: Any, input_shape: Any,
                           filter_shape: Any = None, border_mode: BorderMode = "valid",
                           subsample: Any = (1, 1), filter_flip: bool = True,
                           filter_dilation: Any = (1, 1), num_groups: int = 1,
                           unshared: bool = False) -> Variable:
    """Gradient of :func:`conv2d` with respect to its input, for the gradient ``output_grad``
    of its output. ``input_shape`` (the full 4-d shape, entries ints or symbolic) is required:
    with strides the input's size cannot be recovered from the output's."""
    output_grad, filters = as_tensor_variable(output_grad), as_tensor_variable(filters)
    op = AbstractConv2d_gradInputs(imshp=_hint(input_shape), kshp=filter_shape,
                                   border_mode=border_mode, subsample=subsample,
                                   filter_flip=filter_flip, filter_dilation=filter_dilation,
                                   num_groups=num_groups, unshared=unshared)
    return op(filters, output_grad, _spatial(input_shape, 2, "input_shape"))


def conv2d_grad_wrt_weights(input: Any, output_grad: Any, filter_shape: Any,
                            input_shape: Any = None, border_mode: BorderMode = "valid",
                            subsample: Any = (1, 1), filter_flip: bool = True,
                            filter_dilation: Any = (1, 1), num_groups: int = 1,
                            unshared: bool = False) -> Variable:
    """Gradient of :func:`conv2d` with respect to its filters, for the gradient
    ``output_grad`` of its output. ``filter_shape`` (the full shape) is required."""
    input, output_grad = as_tensor_variable(input), as_tensor_variable(output_grad)
    op = AbstractConv2d_gradWeights(imshp=input_shape, kshp=_hint(filter_shape),
                                    border_mode=border_mode, subsample=subsample,
                                    filter_flip=filter_flip, filter_dilation=filter_dilation,
                                    num_groups=num_groups, unshared=unshared)
    return op(input, output_grad, _spatial(filter_shape, 2, "filter_shape"))


def conv3d_grad_wrt_inputs(output_grad: Any, filters: Any, input_shape: Any,
                           filter_shape: Any = None, border_mode: BorderMode = "valid",
                           subsample: Any = (1, 1, 1), filter_flip: bool = True,
                           filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> Variable:
    """Gradient of :func:`conv3d` with respect to its input (see
    :func:`conv2d_grad_wrt_inputs`)."""
    output_grad, filters = as_tensor_variable(output_grad), as_tensor_variable(filters)
    op = AbstractConv3d_gradInputs(imshp=_hint(input_shape), kshp=filter_shape,
                                   border_mode=border_mode, subsample=subsample,
                                   filter_flip=filter_flip, filter_dilation=filter_dilation,
                                   num_groups=num_groups)
    return op(filters, output_grad, _spatial(input_shape, 3, "input_shape"))


def conv3d_grad_wrt_weights(input: Any, output_grad: Any, filter_shape: Any,
                            input_shape: Any = None, border_mode: BorderMode = "valid",
                            subsample: Any = (1, 1, 1), filter_flip: bool = True,
                            filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> Variable:
    """Gradient of :func:`conv3d` with respect to its filters (see
    :func:`conv2d_grad_wrt_weights`)."""
    input, output_grad = as_tensor_variable(input), as_tensor_variable(output_grad)
    op = AbstractConv3d_gradWeights(imshp=input_shape, kshp=_hint(filter_shape),
                                    border_mode=border_mode, subsample=subsample,
                                    filter_flip=filter_flip, filter_dilation=filter_dilation,
                                    num_groups=num_groups)
    return op(input, output_grad, _spatial(filter_shape, 3, "filter_shape"))


def conv2d_transpose(input: Any, filters: Any, output_shape: Any, filter_shape: Any = None,
                     border_mode: BorderMode = "valid", input_dilation: Any = (1, 1),
                     filter_flip: bool = True, filter_dilation: Any = (1, 1),
                     num_groups: int = 1, unshared: bool = False) -> Variable:
    """Transposed convolution (a "deconvolution"): the gradient of a :func:`conv2d` whose
    output is ``input`` and whose input has ``output_shape``; ``input_dilation`` is that
    convolution's stride. ``filters`` are ``(input channels, output channels, kr, kc)``."""
    return conv2d_grad_wrt_inputs(input, filters, output_shape, filter_shape, border_mode,
                                  input_dilation, filter_flip, filter_dilation, num_groups,
                                  unshared)


def _separable(convdim: int, input: Any, depthwise_filters: Any, pointwise_filters: Any,
               num_channels: int, input_shape: Any, depthwise_filter_shape: Any,
               pointwise_filter_shape: Any, border_mode: BorderMode, subsample: Any,
               filter_flip: bool, filter_dilation: Any) -> Variable:
    if not isinstance(num_channels, int) or num_channels < 1:
        raise ValueError(f"separable_conv{convdim}d: num_channels must be a positive int (the "
                         f"input's channel count), got {num_channels!r}")
    cls = AbstractConv2d if convdim == 2 else AbstractConv3d
    depthwise = cls(imshp=input_shape, kshp=depthwise_filter_shape, border_mode=border_mode,
                    subsample=subsample, filter_flip=filter_flip,
                    filter_dilation=filter_dilation, num_groups=num_channels)
    pointwise = cls(kshp=pointwise_filter_shape, filter_flip=filter_flip)
    inner = depthwise(as_tensor_variable(input), as_tensor_variable(depthwise_filters))
    return pointwise(inner, as_tensor_variable(pointwise_filters))


def separable_conv2d(input: Any, depthwise_filters: Any, pointwise_filters: Any,
                     num_channels: int, input_shape: Any = None,
                     depthwise_filter_shape: Any = None, pointwise_filter_shape: Any = None,
                     border_mode: BorderMode = "valid", subsample: Any = (1, 1),
                     filter_flip: bool = True, filter_dilation: Any = (1, 1)) -> Variable:
    """Depthwise convolution of each of the ``num_channels`` input channels by its own filters
    (``depthwise_filters``: ``(num_channels * depth_multiplier, 1, kr, kc)``; border mode,
    strides and dilation apply here), then a 1x1 convolution mixing channels
    (``pointwise_filters``: ``(out_channels, num_channels * depth_multiplier, 1, 1)``)."""
    return _separable(2, input, depthwise_filters, pointwise_filters, num_channels,
                      input_shape, depthwise_filter_shape, pointwise_filter_shape, border_mode,
                      subsample, filter_flip, filter_dilation)


def separable_conv3d(input: Any, depthwise_filters: Any, pointwise_filters: Any,
                     num_channels: int, input_shape: Any = None,
                     depthwise_filter_shape: Any = None, pointwise_filter_shape: Any = None,
                     border_mode: BorderMode = "valid", subsample: Any = (1, 1, 1),
                     filter_flip: bool = True, filter_dilation: Any = (1, 1, 1)) -> Variable:
    """3-d :func:`separable_conv2d`."""
    return _separable(3, input, depthwise_filters, pointwise_filters, num_channels,
                      input_shape, depthwise_filter_shape, pointwise_filter_shape, border_mode,
                      subsample, filter_flip, filter_dilation)


def causal_conv1d(input: Any, filters: Any, filter_shape: Sequence[int], input_shape: Any = None,
                  subsample: int = 1, filter_flip: bool = True, filter_dilation: int = 1,
                  num_groups: int = 1, unshared: bool = False) -> Variable:
    """1-d convolution of ``input`` ``(batch, channels, length)`` by ``filters`` ``(out,
    channels, k)`` where output ``t`` sees only inputs up to ``t``: the sequence is padded on
    the left by ``(k - 1) * filter_dilation`` zeros (``filter_shape`` gives ``k``)."""
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    if unshared:
        raise NotImplementedError("causal_conv1d: unshared filters are not supported; use "
                                  "conv2d(..., unshared=True) on a trailing axis of size 1")
    if input.ndim != 3 or filters.ndim != 3:
        raise TypeError(f"causal_conv1d needs a 3-d input and 3-d filters, got {input.type} "
                        f"and {filters.type}")
    left = (filter_shape[-1] - 1) * filter_dilation
    op = AbstractConv2d(imshp=None if input_shape is None else tuple(input_shape) + (1,),
                        kshp=tuple(filter_shape) + (1,), border_mode=((left, 0), (0, 0)),
                        subsample=(subsample, 1), filter_flip=filter_flip,
                        filter_dilation=(filter_dilation, 1), num_groups=num_groups,
                        unshared=unshared)
    out = op(input.dimshuffle(0, 1, 2, "x"), filters.dimshuffle(0, 1, 2, "x"))
    return out[:, :, :, 0]
