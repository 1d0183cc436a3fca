"""``theano.tensor.nnet.opt``: the names of Theano 1.0's rewrites of the ``nnet`` ops.

How they map onto jitgraph:

* ``local_inplace_sparse_block_gemv`` / ``_outer`` -- the same rewrites
  (:mod:`jitgraph.tensor.nnet.blocksparse`, in-place phase).
* ``local_abstractconv_gemm`` and its five siblings (``local_abstractconv3d_gemm``,
  ``local_abstractconv[3d]_gradweight_gemm``, ``local_abstractconv[3d]_gradinputs_gemm``) --
  all one rewrite here, :func:`jitgraph.tensor.rewriting.conv.local_abstractconv_gemm`, which lowers
  2-d and 3-d abstract convolutions and both their gradients to the im2col + gemm ``CorrMM``
  ops (tag ``conv_gemm``, as in Theano: ``optimizer_excluding=conv_gemm`` still works).
* ``local_conv2d_cpu``, ``local_conv2d_gradweight_cpu``, ``local_conv2d_gradinputs_cpu`` (to
  the legacy ``ConvOp``) and ``local_abstractconv_check`` (an error when no lowering applied)
  -- no equivalent: an abstract convolution that is not lowered runs through its own
  ``perform``, so jitgraph neither needs the fallback nor fails. These names are placeholders
  whose use raises :class:`NotImplementedError` saying so.
* ``conv_groupopt`` -- a group of node rewrites in the specialize phase (tags ``fast_run``,
  ``fast_compile``), empty at first: rewrites that users register into it run there, next to
  ``local_abstractconv_gemm`` (which is not in the group: a rewrite meant to replace the gemm
  lowering sees the abstract ops when compiling with ``optimizer_excluding=conv_gemm``).
"""

from __future__ import annotations

from typing import Any, NoReturn

from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.tensor.rewriting.conv import local_abstractconv_gemm
from jitgraph.rewrite.db import LocalGroupDB
from jitgraph.rewrite.theano_api import local_optimizer, register_specialize_device
from jitgraph.tensor.convolution.conv import (AbstractConv2d, AbstractConv2d_gradInputs,
                                  AbstractConv2d_gradWeights, AbstractConv3d,
                                  AbstractConv3d_gradInputs, AbstractConv3d_gradWeights)
from jitgraph.tensor.convolution.conv_legacy import ConvOp, conv2d
from jitgraph.tensor.convolution.conv_shapes import get_conv_output_shape
from jitgraph.tensor.convolution.corr import (Corr3dMM, Corr3dMM_gradInputs, Corr3dMM_gradWeights,
                                              CorrMM, CorrMM_gradInputs, CorrMM_gradWeights)
from jitgraph.tensor.nnet.blocksparse import (SparseBlockGemv, SparseBlockOuter,
                                              local_inplace_sparse_block_gemv,
                                              local_inplace_sparse_block_outer,
                                              sparse_block_gemv_inplace,
                                              sparse_block_outer_inplace)
from jitgraph.tensor.core.type import TensorType

# Theano had one rewrite per convolution op; jitgraph's one rewrite tracks all six ops
local_abstractconv3d_gemm = local_abstractconv_gemm
local_abstractconv_gradweight_gemm = local_abstractconv_gemm
local_abstractconv3d_gradweight_gemm = local_abstractconv_gemm
local_abstractconv_gradinputs_gemm = local_abstractconv_gemm
local_abstractconv3d_gradinputs_gemm = local_abstractconv_gemm


class NotApplicableRewrite:
    """A Theano rewrite name with no counterpart in jitgraph; using it (calling it, asking for
    its ``transform``) raises :class:`NotImplementedError` with ``reason``."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = self.__name__ = name
        self.reason = reason
        self.__doc__ = f"Theano's ``{name}``: not applicable to jitgraph. {reason}"

    def _refuse(self) -> NoReturn:
        raise NotImplementedError(f"theano.tensor.nnet.opt.{self.name} does not apply to "
                                  f"jitgraph: {self.reason}")

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def transform(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def __repr__(self) -> str:
        return f"<{self.name}: not applicable to jitgraph>"


_NO_LEGACY = ("Theano lowered an abstract convolution that the gemm rewrite could not take to "
              "the legacy ConvOp; jitgraph runs such a convolution through the abstract op's own "
              "perform, so no fallback rewrite exists (local_abstractconv_gemm is the lowering "
              "jitgraph has).")
local_conv2d_cpu = NotApplicableRewrite("local_conv2d_cpu", _NO_LEGACY)
local_conv2d_gradweight_cpu = NotApplicableRewrite("local_conv2d_gradweight_cpu", _NO_LEGACY)
local_conv2d_gradinputs_cpu = NotApplicableRewrite("local_conv2d_gradinputs_cpu", _NO_LEGACY)
local_abstractconv_check = NotApplicableRewrite(
    "local_abstractconv_check",
    "Theano failed compilation when an abstract convolution was left unlowered; in jitgraph "
    "every abstract convolution can run as it is (its perform), so there is nothing to check.")

#: node rewrites for convolutions registered by users (specialize phase)
conv_groupopt = LocalGroupDB("conv_opts")
register_specialize_device(conv_groupopt, "fast_compile", "fast_run", name="conv_opts")

__all__ = [
    "conv_groupopt", "local_abstractconv_check", "local_abstractconv_gemm",
    "local_abstractconv3d_gemm", "local_abstractconv_gradweight_gemm",
    "local_abstractconv3d_gradweight_gemm", "local_abstractconv_gradinputs_gemm",
    "local_abstractconv3d_gradinputs_gemm", "local_conv2d_cpu", "local_conv2d_gradweight_cpu",
    "local_conv2d_gradinputs_cpu", "local_inplace_sparse_block_gemv",
    "local_inplace_sparse_block_outer", "NotApplicableRewrite",
    # Theano's module imported these for its own use; scripts reach them through it
    "AbstractConv2d", "AbstractConv2d_gradInputs", "AbstractConv2d_gradWeights",
    "AbstractConv3d", "AbstractConv3d_gradInputs", "AbstractConv3d_gradWeights", "ConvOp",
    "Corr3dMM", "Corr3dMM_gradInputs", "Corr3dMM_gradWeights", "CorrMM", "CorrMM_gradInputs",
    "CorrMM_gradWeights", "SparseBlockGemv", "SparseBlockOuter", "TensorType", "conv2d",
    "copy_stack_trace", "get_conv_output_shape", "local_optimizer",
    "register_specialize_device", "sparse_block_gemv_inplace", "sparse_block_outer_inplace",
]
