"""The few objects Theano defined in modules that are table rows here (not files): Theano's names
of existing jitgraph objects that need building, at the facade floor because they combine
``jitgraph.scalar`` (Theano's scalar package) with the tensor and compile layers below it.
Classes carry their Theano module path as ``__module__``, so that they pickle by that path."""

from __future__ import annotations

from jitgraph.scalar import add, mul, sub, true_div
from jitgraph.scalar import sigmoid as scalar_sigmoid
from jitgraph.scalar.composite import Composite
from jitgraph.scalar.custom import scalar_op_class
from jitgraph.scalar.type import get_scalar_type
from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.tensor.core.dtypes import all_dtypes
from jitgraph.tensor.elementwise.elemwise import Elemwise

# -- theano.tensor.basic ------------------------------------------------------------------------

#: ``_convert_to_int32``, ...: the elementwise cast to each dtype as an op (calling one always
#: adds a cast node, unlike ``cast``, which returns a variable of that dtype unchanged)
CONVERSIONS = {f"_convert_to_{dtype}": Elemwise(scalar_ops.Cast(dtype)) for dtype in all_dtypes}
globals().update(CONVERSIONS)

# -- theano.tensor.nnet.conv -------------------------------------------------------------------

#: whether ConvOp can compute: Theano's Python ConvOp needed scipy.signal (tests skip without
#: it); jitgraph's ConvOp has its own kernels and needs neither SciPy nor a C++ compiler
imported_scipy_signal = True

# -- theano.tensor.nnet.sigm and theano.tensor.nnet -------------------------------------------

scalar_softplus = scalar_ops.get_scalar_op(("softplus",))
ScalarSigmoid = scalar_op_class("ScalarSigmoid", "sigmoid")
ScalarSoftplus = scalar_op_class("ScalarSoftplus", "softplus")

#: ``sigmoid`` computed into its input's buffer (``destroy_map`` ``{0: [0]}``)
sigmoid_inplace = Elemwise(scalar_sigmoid, {0: 0}, name="sigmoid_inplace")

# -- theano.tensor.nnet.bn ----------------------------------------------------------------------


class BNComposite(Composite):
    """The scalar op ``(x - mean) / std * gamma + beta`` of dtype ``dtype`` (inputs x, mean,
    std, gamma, beta), to apply elementwise: ``Elemwise(BNComposite('float64'))``."""

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype
        x, mean, std, gamma, beta = (get_scalar_type(dtype)() for _ in range(5))
        super().__init__([x, mean, std, gamma, beta],
                         [add(mul(true_div(sub(x, mean), std), gamma), beta)])


BNComposite.__module__ = "jitgraph.tensor.nnet.bn"

__all__ = ["CONVERSIONS", *CONVERSIONS, "imported_scipy_signal", "scalar_softplus", "ScalarSigmoid", "ScalarSoftplus",
           "sigmoid_inplace", "BNComposite"]
