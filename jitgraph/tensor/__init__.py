"""``jitgraph.tensor`` (Theano's ``theano.tensor``, usually imported as ``T``): tensor types,
variable constructors, and the ops of the tensor library."""

from jitgraph.tensor import nnet
from jitgraph.tensor.constructors import *  # noqa: F401,F403  (scalar, dmatrix, fvectors, ...)
from jitgraph.tensor.constructors import __all__ as _constructor_names
from jitgraph.tensor.conversion import as_tensor_variable, constant
from jitgraph.tensor.elemwise import DimShuffle, Elemwise, dimshuffle, transpose
from jitgraph.tensor.gradient import grad, verify_grad
from jitgraph.tensor.math import (IntegerDivisionError, abs, abs_, add, and_, arccos, arccosh,
                                  arcsin, arcsinh, arctan, arctan2, arctanh, cast, ceil, clip,
                                  cos, cosh, div_proxy, eq, erf, erfc, exp, exp2, expm1, fill,
                                  floor, ge, gt, identity, int_div, inv, invert, isinf, isnan, le,
                                  log, log1p, log2, log10, lt, maximum, minimum, mod, mul, neg, neq,
                                  or_, pow, reciprocal, round, round_half_away_from_zero,
                                  round_half_to_even, second, sgn, sigmoid, sin, sinh, softplus,
                                  sqr, sqrt, sub, switch, tan, tanh, true_div, trunc, where, xor)
from jitgraph.tensor.type import TensorType
from jitgraph.tensor.var import TensorConstant, TensorVariable
from jitgraph.tensor.reduction import *  # noqa: F401,F403  (filled in below once listed)
from jitgraph.tensor.blas import *  # noqa: F401,F403
from jitgraph.tensor.shape import *  # noqa: F401,F403
from jitgraph.tensor.basic import *  # noqa: F401,F403
from jitgraph.tensor.extra_ops import *  # noqa: F401,F403
from jitgraph.tensor.subtensor import *  # noqa: F401,F403

# Theano spellings
true_divide = true_div
floor_div = int_div
