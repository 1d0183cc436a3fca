"""``theano.tensor.nnet.conv``: the legacy ``ConvOp`` and its ``conv2d`` (defined in
:mod:`jitgraph.tensor.conv_legacy`)."""

from jitgraph.tensor.conv_legacy import ConvOp, conv2d
from jitgraph.tensor.conv_shapes import get_conv_output_shape, get_conv_shape_1axis

__all__ = ["ConvOp", "conv2d", "get_conv_output_shape", "get_conv_shape_1axis"]
