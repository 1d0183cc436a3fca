"""``jitgraph.tensor`` (Theano's ``theano.tensor``, usually imported as ``T``): tensor types,
variable constructors, and the ops of the tensor library."""

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.c_code import ParamsType, inc_code
from jitgraph.graph.op import Op
from jitgraph.graph.type import GenericType as Generic
from jitgraph.graph.type import Type
from jitgraph.graph.utils import MethodNotDefined, hashtype, key_to_cmp
from jitgraph.tensor import nnet
from jitgraph.tensor.core.constructors import *  # noqa: F401,F403  (scalar, dmatrix, fvectors, ...)
from jitgraph.tensor.core.constructors import __all__ as _constructor_names
from jitgraph.tensor.core.conversion import AsTensorError, as_tensor, as_tensor_variable, constant
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle, transpose
from jitgraph.tensor.core.grad_check import verify_grad
from jitgraph.tensor.core.gradient import grad
from jitgraph.tensor.elementwise.math import (IntegerDivisionError, abs, abs_, add, and_, arccos,
                                              arccosh, arcsin, arcsinh, arctan, arctan2, arctanh,
                                              cast, ceil, clip, cos, cosh, div_proxy, eq, erf, erfc,
                                              exp, exp2, expm1, fill, floor, ge, gt, identity,
                                              int_div, inv, invert, le, log, log1p,
                                              log2, log10, lt, maximum, minimum, mod, mul, neg, neq,
                                              or_, pow, reciprocal, round,
                                              round_half_away_from_zero, round_half_to_even, second,
                                              sgn, sigmoid, sin, sinh, softplus, sqr, sqrt, sub,
                                              switch, tan, tanh, true_div, trunc, where, xor)
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.sharedvar import tensor_constructor as _shared  # noqa: F401  (Theano's T._shared)
from jitgraph.tensor.core.var import TensorConstant, TensorConstantSignature, TensorVariable
from jitgraph.tensor.elementwise.reduction import *  # noqa: F401,F403  (filled in below once listed)
from jitgraph.tensor.linalg.blas import *  # noqa: F401,F403
from jitgraph.tensor.linalg.dot_functions import *  # noqa: F401,F403  (dot, tensordot, matmul, ...)
from jitgraph.tensor.shaping.shape import *  # noqa: F401,F403
from jitgraph.tensor.core.basic import *  # noqa: F401,F403
from jitgraph.tensor.extras.extra_ops import *  # noqa: F401,F403
from jitgraph.tensor.indexing.subtensor import *  # noqa: F401,F403
from jitgraph.tensor.extras.sort import *  # noqa: F401,F403  (T.sort is the function, as in Theano)
from jitgraph.tensor.core.default import Default, default, setdefault
from jitgraph.tensor.shape_index_names import *  # noqa: F401,F403  (eye, nonzero, split, ...)
from jitgraph.tensor.core.helpers import *  # noqa: F401,F403  (axes, numpy_scalar, transfer, ...)
from jitgraph.tensor.core.io import *  # noqa: F401,F403  (load, and the MPI names that raise)
from jitgraph.tensor.elementwise.special_functions import *  # noqa: F401,F403  (erfinv, ...)
from jitgraph.tensor.elementwise.math_extra import *  # noqa: F401,F403  (complex, isclose, divmod, ...)
from jitgraph.tensor.core.type_other import (MakeSlice, NoneConst, NoneTypeT, SliceConstant,
                                        SliceType, as_int_none_variable, make_slice,
                                        none_type_t, slicetype)
from jitgraph.tensor.core import io, type_other  # noqa: F401
from jitgraph.tensor.elementwise import xlogx  # noqa: F401

# Theano spellings
true_divide = true_div
floor_div = int_div
Tensor = TensorType

# Theano's lists of dtype names (``dtype in T.float_dtypes``): lists, as Theano's, so that
# ``T.float_dtypes + [...]`` works; copies, so that a caller's change stays its own.
from jitgraph.tensor.core import dtypes as _dtypes  # noqa: F401

all_dtypes, complex_dtypes, continuous_dtypes, discrete_dtypes, float_dtypes, int_dtypes, \
    integer_dtypes, uint_dtypes = (list(getattr(_dtypes, f"{kind}_dtypes")) for kind in (
        "all", "complex", "continuous", "discrete", "float", "int", "integer", "uint"))

# Names imported on first use (PEP 562). Theano's names of objects in the layers above this one
# (``T.int32``, ``T.Rop``, ...) and its submodule attributes come from jitgraph._facade.
from jitgraph.lazy_exports import lazy_exports as _lazy_exports  # noqa: E402

__getattr__, __dir__ = _lazy_exports(__name__,
                                     {"Rebroadcast": "jitgraph.tensor.shaping.rebroadcast"})
