"""``theano.tensor.nnet`` names that are other names of jitgraph objects: the abstract
``conv2d`` under the name Theano also exported it as, the scalar sigmoid op, and the in-place
elementwise sigmoid (an op that overwrites its input: for graphs built by hand and rewrites)."""

from jitgraph.scalar import sigmoid as scalar_sigmoid
from jitgraph.tensor.elemwise import Elemwise
from jitgraph.tensor.nnet.abstract_conv import conv2d as abstract_conv2d

#: ``sigmoid`` computed into its input's buffer (``destroy_map`` ``{0: [0]}``)
sigmoid_inplace = Elemwise(scalar_sigmoid, {0: 0}, name="sigmoid_inplace")

__all__ = ["abstract_conv2d", "scalar_sigmoid", "sigmoid_inplace"]
