"""Theano's older convolution interfaces: ``theano.tensor.nnet.conv.conv2d`` (the ``ConvOp``)
and ``theano.tensor.signal.conv.conv2d`` (2-d or 3-d images and filters).

Both compute what :func:`jitgraph.tensor.convolution.conv_functions.conv2d` computes (a true convolution,
'valid' or 'full' borders, strides); :class:`ConvOp` keeps the old constructor and parameter
names, and the rewrites turn it into the abstract convolution before choosing an
implementation. The old "logical shape" upsampling options are not available.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.convolution.conv import AbstractConv, BaseAbstractConv
from jitgraph.tensor.convolution.conv_shapes import get_conv_shape_1axis
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import specify_shape

__all__ = ["ConvOp", "conv2d", "signal_conv2d"]


def _opt_tuple(value: Any) -> tuple | None:
    return None if value is None else tuple(value)


class ConvOp(AbstractConv):
    """Theano's legacy 2-d convolution op: ``imshp`` ``(channels, rows, cols)`` (or ``(rows,
    cols)``), ``kshp`` ``(rows, cols)``, ``nkern`` output channels, ``bsize`` batch size (all
    optional hints), strides ``dx``/``dy`` and ``output_mode`` 'valid' or 'full'. The
    ``unroll_*``, ``verbose``, ``version``, ``direction_hint`` and ``openmp`` arguments tuned
    Theano's C code and are accepted and ignored."""

    __props__ = ("legacy_imshp", "legacy_kshp", "nkern", "bsize", "dx", "dy", "out_mode")

    def __init__(self, imshp: Any = None, kshp: Any = None, nkern: int | None = None,
                 bsize: int | None = None, dx: int = 1, dy: int = 1, output_mode: str = "valid",
                 unroll_batch: Any = None, unroll_kern: Any = None, unroll_patch: Any = None,
                 imshp_logical: Any = None, kshp_logical: Any = None,
                 kshp_logical_top_aligned: bool = True, verbose: int = 0, version: int = -1,
                 direction_hint: str = "forward", openmp: Any = None) -> None:
        if output_mode not in ("valid", "full"):
            raise ValueError(f"ConvOp: output_mode must be 'valid' or 'full', got "
                             f"{output_mode!r}")
        for name, logical, physical in (("imshp_logical", imshp_logical, imshp),
                                        ("kshp_logical", kshp_logical, kshp)):
            if logical is not None and _opt_tuple(logical) != _opt_tuple(physical):
                raise NotImplementedError(
                    f"ConvOp: {name} different from the physical shape (implicit upsampling) "
                    "is not supported; use conv2d_transpose or bilinear_upsampling")
        imshp = _opt_tuple(imshp)
        if imshp is not None and len(imshp) == 2:
            imshp = (1,) + imshp
        self.legacy_imshp = imshp
        self.legacy_kshp = _opt_tuple(kshp)
        self.nkern, self.bsize = nkern, bsize
        self.dx, self.dy = int(dx), int(dy)
        self.out_mode = output_mode
        full_imshp = None if imshp is None else (bsize,) + imshp
        full_kshp = None
        if self.legacy_kshp is not None:
            full_kshp = (nkern, None if imshp is None else imshp[0]) + self.legacy_kshp
        BaseAbstractConv.__init__(self, 2, full_imshp, full_kshp, output_mode, (dx, dy), True,
                                  (1, 1), 1, False)

    @staticmethod
    def getOutputShape(inshp: Any, kshp: Any, stride: Any = (1, 1), mode: str = "valid"
                       ) -> tuple:
        """Spatial output shape for spatial input ``inshp`` and kernel ``kshp``."""
        return tuple(get_conv_shape_1axis(i, k, mode, s) for i, k, s in zip(inshp, kshp, stride))


def conv2d(input: Any, filters: Any, image_shape: Any = None, filter_shape: Any = None,
           border_mode: str = "valid", subsample: Any = (1, 1), **kargs: Any) -> Variable:
    """``theano.tensor.nnet.conv.conv2d``: 4-d ``input`` ``(batch, channels, rows, cols)``
    convolved with 4-d ``filters`` ``(nkern, channels, rows, cols)``; ``border_mode`` 'valid'
    or 'full'; ``image_shape``/``filter_shape`` are optional full-shape hints. Other keywords
    (``unroll_batch``, ...) go to :class:`ConvOp`."""
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    if border_mode not in ("valid", "full"):
        raise ValueError(f"nnet.conv.conv2d: border_mode must be 'valid' or 'full', got "
                         f"{border_mode!r} (nnet.conv2d supports 'half' and paddings)")
    if input.ndim != 4 or filters.ndim != 4:
        raise TypeError(f"nnet.conv.conv2d needs a 4-d input and 4-d filters, got "
                        f"{input.type} and {filters.type}")
    imshp = bsize = kshp = nkern = None
    if image_shape is not None:
        bsize, imshp = image_shape[0], tuple(image_shape[1:])
    if filter_shape is not None:
        nkern, kshp = filter_shape[0], tuple(filter_shape[2:])
        if image_shape is not None and None not in (image_shape[1], filter_shape[1]) \
                and image_shape[1] != filter_shape[1]:
            raise ValueError(f"nnet.conv.conv2d: image_shape {tuple(image_shape)} has "
                             f"{image_shape[1]} channels but filter_shape "
                             f"{tuple(filter_shape)} expects {filter_shape[1]}")
    kargs.pop("imshp_logical", None)
    kargs.pop("kshp_logical", None)
    # Theano's ConvOp compiled the given shapes in and refused other ones at run time
    if image_shape is not None:
        input = _hardcoded(input, image_shape)
    if filter_shape is not None:
        filters = _hardcoded(filters, filter_shape)
    op = ConvOp(imshp=imshp, kshp=kshp, nkern=nkern, bsize=bsize, dx=subsample[0],
                dy=subsample[1], output_mode=border_mode, **kargs)
    return op(input, filters)


def _hardcoded(x: Variable, shape: Any) -> Variable:
    """``x`` checked at run time against the constant entries of the hint ``shape``."""
    entries = [s if isinstance(s, (int, np.integer)) else None for s in tuple(shape)]
    if len(entries) != x.ndim or all(e is None for e in entries):
        return x
    return specify_shape(x, entries)


def signal_conv2d(input: Any, filters: Any, image_shape: Any = None, filter_shape: Any = None,
                  border_mode: str = "valid", subsample: Any = (1, 1), **kargs: Any
                  ) -> Variable:
    """``theano.tensor.signal.conv.conv2d``: a 2-d image ``(rows, cols)`` or a stack of them
    ``(batch, rows, cols)`` convolved with one filter ``(rows, cols)`` or a stack ``(nkern,
    rows, cols)``. The result drops the axes the arguments did not have: 2-d by 2-d gives
    ``(rows', cols')``, 3-d by 2-d ``(batch, ...)``, 2-d by 3-d ``(nkern, ...)`` and 3-d by
    3-d ``(batch, nkern, ...)``."""
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    if input.ndim not in (2, 3) or filters.ndim not in (2, 3):
        raise TypeError(f"signal.conv.conv2d needs 2-d or 3-d input and filters, got "
                        f"{input.type} and {filters.type}")
    img4 = input.dimshuffle(0, "x", 1, 2) if input.ndim == 3 else \
        input.dimshuffle("x", "x", 0, 1)
    kern4 = filters.dimshuffle(0, "x", 1, 2) if filters.ndim == 3 else \
        filters.dimshuffle("x", "x", 0, 1)
    shape4 = None
    if image_shape is not None:
        image_shape = tuple(image_shape)
        shape4 = ((image_shape[0] if input.ndim == 3 else 1), 1) + image_shape[-2:]
    kshape4 = None
    if filter_shape is not None:
        filter_shape = tuple(filter_shape)
        kshape4 = ((filter_shape[0] if filters.ndim == 3 else 1), 1) + filter_shape[-2:]
    out = conv2d(img4, kern4, shape4, kshape4, border_mode, subsample, **kargs)
    keep = ([0] if input.ndim == 3 else []) + ([1] if filters.ndim == 3 else []) + [2, 3]
    return out.dimshuffle(*keep) if len(keep) < 4 else out
