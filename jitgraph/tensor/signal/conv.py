"""``theano.tensor.signal.conv``: ``conv2d`` of 2-d/3-d images and filters (defined in
:mod:`jitgraph.tensor.conv_legacy`)."""

from jitgraph.tensor.conv_legacy import signal_conv2d as conv2d

__all__ = ["conv2d"]
