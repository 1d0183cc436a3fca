"""``theano.tensor.nnet.sigm``: where Theano 1.0 defined sigmoid, softplus, hard_sigmoid and
ultra_fast_sigmoid -- the same objects as :mod:`jitgraph.tensor.nnet`, under their old import
path, with Theano's names of the scalar ops (``scalar_sigmoid``/``ScalarSigmoid``,
``scalar_softplus``/``ScalarSoftplus``)."""

from jitgraph.lazy_exports import alias_module
from jitgraph.scalar.custom import scalar_op_class
from jitgraph.tensor import scalar_ops as _rows

scalar_softplus = _rows.get_scalar_op(("softplus",))
ScalarSigmoid = scalar_op_class("ScalarSigmoid", "sigmoid")
ScalarSoftplus = scalar_op_class("ScalarSoftplus", "softplus")

__getattr__, __dir__ = alias_module(__name__, ["jitgraph.tensor.nnet", "jitgraph.tensor"])
