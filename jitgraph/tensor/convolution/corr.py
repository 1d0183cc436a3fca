"""Correlation ops computed as im2col + matrix product (Theano's ``CorrMM`` family,
``theano.tensor.nnet.corr``/``corr3d``).

They compute what the abstract convolution ops compute with ``filter_flip=False``: the rewrites
of :mod:`jitgraph.tensor.rewriting.conv` replace an abstract convolution by one of these (flipping the
kernel in the graph when the convolution flips it), and the CPU backend runs them as
generated im2col/col2im kernels around one BLAS ``gemm`` per chunk of images
(:mod:`jitgraph.backend_cpu.lowering.conv`). Their ``perform`` is the NumPy reference, so a graph
that holds them runs anywhere; their gradients are the abstract ops'.
"""

from __future__ import annotations

from typing import Any

from jitgraph.tensor.convolution.conv import (AbstractConv, AbstractConv_gradInputs,
                                  AbstractConv_gradWeights, BaseAbstractConv)
from jitgraph.tensor.convolution.conv_shapes import BorderMode

__all__ = ["CorrMM", "CorrMM_gradWeights", "CorrMM_gradInputs", "Corr3dMM",
           "Corr3dMM_gradWeights", "Corr3dMM_gradInputs", "corr_op_for"]


class _CorrParams:
    """A correlation's parameters: border mode, strides, dilation, groups (no flip, shared
    kernels, no shape hints)."""

    __props__ = ("convdim", "border_mode", "subsample", "filter_dilation", "num_groups")
    _convdim = 2

    def __init__(self, border_mode: BorderMode = "valid", subsample: Any = None,
                 filter_dilation: Any = None, num_groups: int = 1) -> None:
        BaseAbstractConv.__init__(self, self._convdim, None, None, border_mode, subsample,
                                  False, filter_dilation, num_groups, False)


class CorrMM(_CorrParams, AbstractConv):
    """2-d correlation ``(img, kern)`` by im2col + gemm."""


class CorrMM_gradWeights(_CorrParams, AbstractConv_gradWeights):
    """Kernel gradient of :class:`CorrMM`: ``(img, topgrad, kernel spatial shape)``."""


class CorrMM_gradInputs(_CorrParams, AbstractConv_gradInputs):
    """Image gradient of :class:`CorrMM`: ``(kern, topgrad, image spatial shape)``."""


class Corr3dMM(_CorrParams, AbstractConv):
    """3-d correlation ``(img, kern)`` by im2col + gemm."""

    _convdim = 3


class Corr3dMM_gradWeights(_CorrParams, AbstractConv_gradWeights):
    """Kernel gradient of :class:`Corr3dMM`."""

    _convdim = 3


class Corr3dMM_gradInputs(_CorrParams, AbstractConv_gradInputs):
    """Image gradient of :class:`Corr3dMM`."""

    _convdim = 3


_BY_ROLE = {(AbstractConv, 2): CorrMM, (AbstractConv_gradWeights, 2): CorrMM_gradWeights,
            (AbstractConv_gradInputs, 2): CorrMM_gradInputs, (AbstractConv, 3): Corr3dMM,
            (AbstractConv_gradWeights, 3): Corr3dMM_gradWeights,
            (AbstractConv_gradInputs, 3): Corr3dMM_gradInputs}


def corr_op_for(op: BaseAbstractConv) -> BaseAbstractConv | None:
    """The correlation op computing ``op`` (flip aside), or None when there is none (unshared
    kernels, 1-d)."""
    if op.unshared:
        return None
    for (role, convdim), cls in _BY_ROLE.items():
        if isinstance(op, role) and op.convdim == convdim:
            return cls(op.border_mode, op.subsample, op.filter_dilation, op.num_groups)
    return None
