"""``theano.tensor.nnet.abstract_conv``: the abstract convolution ops, their functions and the
shape helpers (defined in :mod:`jitgraph.tensor.conv`, :mod:`jitgraph.tensor.conv_functions`
and :mod:`jitgraph.tensor.conv_shapes`)."""

from jitgraph.tensor.conv import (AbstractConv, AbstractConv2d, AbstractConv2d_gradInputs,
                                  AbstractConv2d_gradWeights, AbstractConv3d,
                                  AbstractConv3d_gradInputs, AbstractConv3d_gradWeights,
                                  AbstractConv_gradInputs, AbstractConv_gradWeights,
                                  BaseAbstractConv)
from jitgraph.tensor.conv_functions import (abstract_conv2d as conv2d, causal_conv1d, conv3d,
                                            conv2d_grad_wrt_inputs, conv2d_grad_wrt_weights,
                                            conv3d_grad_wrt_inputs, conv3d_grad_wrt_weights,
                                            separable_conv2d, separable_conv3d)
from jitgraph.tensor.upsampling import (bilinear_kernel_1D, bilinear_kernel_2D,
                                        bilinear_upsampling, frac_bilinear_upsampling)
from jitgraph.tensor.conv_shapes import (assert_conv_shape, assert_shape, border_mode_to_pad,
                                         check_conv_gradinputs_shape, get_conv_gradinputs_shape,
                                         get_conv_gradinputs_shape_1axis,
                                         get_conv_gradweights_shape,
                                         get_conv_gradweights_shape_1axis,
                                         get_conv_output_shape, get_conv_shape_1axis)

__all__ = [
    "AbstractConv", "AbstractConv2d", "AbstractConv2d_gradInputs", "AbstractConv2d_gradWeights",
    "AbstractConv3d", "AbstractConv3d_gradInputs", "AbstractConv3d_gradWeights",
    "AbstractConv_gradInputs", "AbstractConv_gradWeights", "BaseAbstractConv",
    "assert_conv_shape", "assert_shape", "bilinear_kernel_1D", "bilinear_kernel_2D", "bilinear_upsampling",
    "border_mode_to_pad", "frac_bilinear_upsampling", "causal_conv1d", "check_conv_gradinputs_shape",
    "conv2d", "conv2d_grad_wrt_inputs", "conv2d_grad_wrt_weights", "conv3d",
    "conv3d_grad_wrt_inputs", "conv3d_grad_wrt_weights", "get_conv_gradinputs_shape",
    "get_conv_gradinputs_shape_1axis", "get_conv_gradweights_shape",
    "get_conv_gradweights_shape_1axis", "get_conv_output_shape", "get_conv_shape_1axis",
    "separable_conv2d", "separable_conv3d",
]
