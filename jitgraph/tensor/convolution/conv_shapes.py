"""Shapes of convolutions: border modes, paddings and the output/gradient shape rules.

A convolution over ``convdim`` spatial axes takes, per axis, an image of size ``i``, a kernel of
size ``k`` dilated by ``d`` (so it spans ``dk = (k - 1) * d + 1`` pixels), a padding ``lo`` before
and ``hi`` after the image and a stride ``s``; its output has ``(i + lo + hi - dk) // s + 1``
pixels. The border modes name paddings: ``'valid'`` none, ``'full'`` ``dk - 1`` on each side,
``'half'`` ``dk // 2`` on each side, an int (or one int per axis) that many on each side, and a
pair per axis ``(lo, hi)`` different amounts before and after.

Every function accepts ``None`` for an unknown size and then answers ``None`` for what depends
on it (the static shapes of ``input_shape``/``filter_shape`` hints are partial).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.config import config
from jitgraph.tensor.core.assertion import Assert
from jitgraph.tensor.elementwise.math import ge
from jitgraph.tensor.shaping.dims import _const_int
from jitgraph.tensor.shaping.shape import specify_shape

BorderMode = Any  # 'valid' | 'full' | 'half' | tuple of ints | tuple of (lo, hi) pairs

__all__ = [
    "normalize_border_mode", "border_mode_to_pad", "dilated_size", "get_conv_shape_1axis",
    "get_conv_output_shape", "get_conv_gradweights_shape_1axis", "get_conv_gradweights_shape",
    "get_conv_gradinputs_shape_1axis", "get_conv_gradinputs_shape",
    "check_conv_gradinputs_shape", "assert_conv_shape", "assert_shape", "normalize_ints",
]


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def normalize_ints(value: Any, convdim: int, name: str, minimum: int = 1) -> tuple[int, ...]:
    """``value`` (an int or ``convdim`` ints) as a tuple of ``convdim`` Python ints.

    Raises ValueError naming ``name`` when a value is below ``minimum`` or the length is wrong."""
    if _is_int(value):
        value = (value,) * convdim
    try:
        values = tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be an int or a tuple of {convdim} ints, got {value!r}") \
            from None
    if len(values) != convdim or not all(_is_int(v) for v in values):
        raise ValueError(f"{name} must be a tuple of {convdim} ints, got {value!r}")
    if any(v < minimum for v in values):
        raise ValueError(f"{name} must hold values >= {minimum}, got {value!r}")
    return tuple(int(v) for v in values)


def normalize_border_mode(border_mode: BorderMode, convdim: int) -> BorderMode:
    """The canonical form of a border mode: one of the mode names, a tuple of ``convdim`` ints,
    or a tuple of ``convdim`` ``(lo, hi)`` pairs (all non-negative)."""
    if isinstance(border_mode, str):
        if border_mode in ("valid", "full", "half"):
            return border_mode
        raise ValueError(f"invalid border_mode {border_mode!r}: expected 'valid', 'full', "
                         f"'half', an int or a tuple of {convdim} ints or (lo, hi) pairs")
    if _is_int(border_mode):
        border_mode = (border_mode,) * convdim
    if isinstance(border_mode, list):
        border_mode = tuple(border_mode)
    if not isinstance(border_mode, tuple) or len(border_mode) != convdim:
        raise ValueError(f"invalid border_mode {border_mode!r}, which must be 'valid', 'full', "
                         f"'half', an int or a tuple of length {convdim}")
    if all(_is_int(b) for b in border_mode):
        if any(b < 0 for b in border_mode):
            raise ValueError(f"invalid border_mode {border_mode!r}: paddings must be >= 0")
        return tuple(int(b) for b in border_mode)
    pairs = []
    for b in border_mode:
        if _is_int(b):
            b = (b, b)
        if (not isinstance(b, (tuple, list)) or len(b) != 2 or not all(_is_int(p) for p in b)
                or min(b) < 0):
            raise ValueError(f"invalid border_mode {border_mode!r}: each axis needs an int or a "
                             "pair (lo, hi) of non-negative ints")
        pairs.append((int(b[0]), int(b[1])))
    return tuple(pairs)


def dilated_size(k: int | None, dilation: int) -> int | None:
    """Pixels spanned by a kernel of size ``k`` dilated by ``dilation``."""
    return None if k is None else (k - 1) * dilation + 1


def _pad_1axis(border_mode: BorderMode, axis: int, dk: int | None
               ) -> tuple[int, int] | None:
    if border_mode == "valid":
        return (0, 0)
    if border_mode == "full":
        return None if dk is None else (dk - 1, dk - 1)
    if border_mode == "half":
        return None if dk is None else (dk // 2, dk // 2)
    b = border_mode[axis]
    return (b, b) if _is_int(b) else tuple(b)


def border_mode_to_pad(border_mode: BorderMode, convdim: int, kshp: Sequence[int]
                       ) -> tuple[tuple[int, int], ...]:
    """The ``(lo, hi)`` padding of each axis for a kernel spanning ``kshp`` (dilated) pixels."""
    mode = normalize_border_mode(border_mode, convdim)
    return tuple(_pad_1axis(mode, a, kshp[a]) for a in range(convdim))


def get_conv_shape_1axis(image_shape: int | None, kernel_shape: int | None,
                         border_mode: BorderMode, subsample: int, dilation: int = 1
                         ) -> int | None:
    """Output size along one axis (``border_mode`` an axis' mode: a name, an int or a pair)."""
    if image_shape is None or kernel_shape is None:
        return None
    dk = dilated_size(kernel_shape, dilation)
    lo, hi = _pad_1axis(border_mode if isinstance(border_mode, str) else (border_mode,), 0, dk)
    return (image_shape + lo + hi - dk) // subsample + 1


def get_conv_output_shape(image_shape: Sequence[Any], kernel_shape: Sequence[Any],
                          border_mode: BorderMode, subsample: Sequence[int],
                          filter_dilation: Sequence[int] | None = None) -> tuple:
    """Output shape ``(batch, channels, *spatial)`` of a convolution.

    ``kernel_shape`` is ``(out_channels, in_channels, *k)`` or, for an unshared kernel,
    ``(out_channels, *out_spatial, in_channels, *k)``."""
    convdim = len(image_shape) - 2
    if filter_dilation is None:
        filter_dilation = (1,) * convdim
    mode = normalize_border_mode(border_mode, convdim)
    ks = kernel_shape[-convdim:]
    spatial = tuple(get_conv_shape_1axis(image_shape[2 + a], ks[a],
                                         mode if isinstance(mode, str) else mode[a],
                                         subsample[a], filter_dilation[a])
                    for a in range(convdim))
    return (image_shape[0], kernel_shape[0]) + spatial


def get_conv_gradweights_shape_1axis(image_shape: int | None, top_shape: int | None,
                                     border_mode: BorderMode, subsample: int, dilation: int
                                     ) -> int | None:
    """Kernel size along one axis from the image and output sizes; None when ambiguous (a
    stride above 1 loses the remainder; 'half' and 'full' pad by the unknown kernel)."""
    if image_shape is None or top_shape is None or subsample != 1:
        return None
    if border_mode == "half":  # o = i + 2 * (dk // 2) - dk + 1 does not tell dk
        return None
    if border_mode == "full":  # o = i + dk - 1
        dk = top_shape - image_shape + 1
    else:
        lo, hi = _pad_1axis(border_mode if isinstance(border_mode, str) else (border_mode,),
                            0, None)
        dk = image_shape + lo + hi - top_shape + 1
    if (dk - 1) % dilation:
        return None
    return (dk - 1) // dilation + 1


def get_conv_gradweights_shape(image_shape: Sequence[Any], top_shape: Sequence[Any],
                               border_mode: BorderMode, subsample: Sequence[int],
                               filter_dilation: Sequence[int] | None = None,
                               num_groups: int = 1, unshared: bool = False) -> tuple:
    """Kernel shape implied by the image and output shapes (entries None where ambiguous)."""
    convdim = len(image_shape) - 2
    if filter_dilation is None:
        filter_dilation = (1,) * convdim
    mode = normalize_border_mode(border_mode, convdim)
    nchan = image_shape[1]
    if nchan is not None:
        nchan //= num_groups
    spatial = tuple(get_conv_gradweights_shape_1axis(
        image_shape[2 + a], top_shape[2 + a], mode if isinstance(mode, str) else mode[a],
        subsample[a], filter_dilation[a]) for a in range(convdim))
    if unshared:
        return (top_shape[1],) + tuple(top_shape[2:]) + (nchan,) + spatial
    return (top_shape[1], nchan) + spatial


def get_conv_gradinputs_shape_1axis(kernel_shape: int | None, top_shape: int | None,
                                    border_mode: BorderMode, subsample: int, dilation: int
                                    ) -> int | None:
    """Image size along one axis from the kernel and output sizes; None when ambiguous (a
    stride above 1 loses the remainder of the division)."""
    if kernel_shape is None or top_shape is None or subsample != 1:
        return None
    dk = dilated_size(kernel_shape, dilation)
    lo, hi = _pad_1axis(border_mode if isinstance(border_mode, str) else (border_mode,), 0, dk)
    return top_shape - 1 + dk - lo - hi


def get_conv_gradinputs_shape(kernel_shape: Sequence[Any], top_shape: Sequence[Any],
                              border_mode: BorderMode, subsample: Sequence[int],
                              filter_dilation: Sequence[int] | None = None,
                              num_groups: int = 1) -> tuple:
    """Image shape implied by the kernel and output shapes (entries None where ambiguous)."""
    convdim = len(top_shape) - 2
    if filter_dilation is None:
        filter_dilation = (1,) * convdim
    mode = normalize_border_mode(border_mode, convdim)
    ks = kernel_shape[-convdim:]
    nchan = kernel_shape[-convdim - 1]
    if nchan is not None:
        nchan *= num_groups
    spatial = tuple(get_conv_gradinputs_shape_1axis(
        ks[a], top_shape[2 + a], mode if isinstance(mode, str) else mode[a], subsample[a],
        filter_dilation[a]) for a in range(convdim))
    return (top_shape[0], nchan) + spatial


def check_conv_gradinputs_shape(image_shape: Sequence[Any], kernel_shape: Sequence[Any],
                                output_shape: Sequence[Any], border_mode: BorderMode,
                                subsample: Sequence[int],
                                filter_dilation: Sequence[int] | None = None) -> bool:
    """Whether a convolution of ``image_shape`` by ``kernel_shape`` gives ``output_shape``
    (unknown entries, None, match anything)."""
    computed = get_conv_output_shape(image_shape, kernel_shape, border_mode, subsample,
                                     filter_dilation)
    return all(c is None or o is None or c == o for c, o in zip(computed, output_shape))


def assert_conv_shape(shape: Sequence[Any]) -> tuple:
    """``shape`` checked: a batch or channel count must be at least 0 and a spatial size at
    least 1 (what a convolution can produce). A known entry is checked now (``ValueError``);
    a symbolic one is returned wrapped in an ``Assert`` that checks it at run time
    (``AssertionError``), as Theano's."""
    checked = []
    for i, s in enumerate(shape):
        least = 0 if i < 2 else 1
        value = _const_int(s)
        if value is None:
            what = "< 0" if i < 2 else "<= 0"
            check = Assert(f"The convolution would produce an invalid shape (dim[{i}] {what}).")
            checked.append(check(s, ge(s, least)))
            continue
        if value < least:
            raise ValueError(f"the convolution's shape {tuple(shape)} has an invalid entry "
                             f"{value} at position {i}: check the border mode, the strides and "
                             "the image and kernel sizes")
        checked.append(s)
    return tuple(checked)


def assert_shape(x: Any, expected_shape: Sequence[Any] | None, msg: str = "Unexpected shape."
                 ) -> Any:
    """``x``, checked at run time to have ``expected_shape`` (``None`` entries unchecked) when
    the flag ``conv.assert_shape`` is on (Theano's default is off: then ``x`` itself). A
    mismatch raises an ``AssertionError`` (also a ``ValueError``) naming the dimension; ``msg``
    (Theano's assertion message) is accepted for compatibility."""
    if expected_shape is None or not config.conv__assert_shape:
        return x
    if all(e is None for e in expected_shape):
        return x
    return specify_shape(x, list(expected_shape))
