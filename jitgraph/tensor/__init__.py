"""``jitgraph.tensor`` (Theano's ``theano.tensor``, usually imported as ``T``): tensor types,
variable constructors, and the ops of the tensor library."""

from typing import Any as _Any

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
# Theano's module theano.tensor.inc_code is loaded first, so that the function below keeps the
# package's name (importing the module later would otherwise rebind it to the module)
from jitgraph.tensor import inc_code as _inc_code_module  # noqa: F401
from jitgraph.graph.c_code import ParamsType, inc_code  # noqa: E402
from jitgraph.graph.op import Op
from jitgraph.graph.type import GenericType as Generic
from jitgraph.graph.type import Type
from jitgraph.graph.utils import MethodNotDefined, hashtype, key_to_cmp
from jitgraph.tensor import nnet
from jitgraph.tensor.constructors import *  # noqa: F401,F403  (scalar, dmatrix, fvectors, ...)
from jitgraph.tensor.constructors import __all__ as _constructor_names
from jitgraph.tensor.conversion import AsTensorError, as_tensor, as_tensor_variable, constant
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
from jitgraph.tensor.var import TensorConstant, TensorConstantSignature, TensorVariable
from jitgraph.tensor.reduction import *  # noqa: F401,F403  (filled in below once listed)
from jitgraph.tensor.blas import *  # noqa: F401,F403
from jitgraph.tensor.dot_functions import *  # noqa: F401,F403  (dot, tensordot, matmul, ...)
from jitgraph.tensor.shape import *  # noqa: F401,F403
from jitgraph.tensor.basic import *  # noqa: F401,F403
from jitgraph.tensor.extra_ops import *  # noqa: F401,F403
from jitgraph.tensor.subtensor import *  # noqa: F401,F403
from jitgraph.tensor.sort import *  # noqa: F401,F403  (T.sort is the function, as in Theano)
from jitgraph.tensor.default import Default, default, setdefault
from jitgraph.tensor.shape_index_names import *  # noqa: F401,F403  (eye, nonzero, split, ...)
from jitgraph.tensor.helpers import *  # noqa: F401,F403  (axes, numpy_scalar, transfer, ...)
from jitgraph.tensor.io import *  # noqa: F401,F403  (load, and the MPI names that raise)
from jitgraph.tensor.special_functions import *  # noqa: F401,F403  (erfinv, ...)
from jitgraph.tensor.math_extra import *  # noqa: F401,F403  (complex, isclose, divmod, ...)
from jitgraph.tensor.type_other import (MakeSlice, NoneConst, NoneTypeT, SliceConstant,
                                        SliceType, as_int_none_variable, make_slice,
                                        none_type_t, slicetype)
from jitgraph.tensor import io, type_other, xlogx  # noqa: F401  (Theano's submodule paths)

# Theano spellings
true_divide = true_div
floor_div = int_div
Tensor = TensorType

# Theano's lists of dtype names (``dtype in T.float_dtypes``): lists, as Theano's, so that
# ``T.float_dtypes + [...]`` works; copies, so that a caller's change stays its own.
from jitgraph.tensor import dtypes as _dtypes  # noqa: E402

all_dtypes, complex_dtypes, continuous_dtypes, discrete_dtypes, float_dtypes, int_dtypes, \
    integer_dtypes, uint_dtypes = (list(getattr(_dtypes, f"{kind}_dtypes")) for kind in (
        "all", "complex", "continuous", "discrete", "float", "int", "integer", "uint"))

# Names provided by packages that import this one (``module``, ``attribute``): resolved on first
# use. A name whose provider does not define it (yet) is absent, never a placeholder.
_LAZY = {
    "int32": ("jitgraph.scalar", "int32"),
    "int32_t": ("jitgraph.scalar", "int32"),
    "TensorFromScalar": ("jitgraph.scalar.bridge", "TensorFromScalar"),
    "ScalarFromTensor": ("jitgraph.scalar.bridge", "ScalarFromTensor"),
    "tensor_from_scalar": ("jitgraph.scalar.bridge", "tensor_from_scalar"),
    "scalar_from_tensor": ("jitgraph.scalar.bridge", "scalar_from_tensor"),
    "Rebroadcast": ("jitgraph.tensor.rebroadcast", "Rebroadcast"),
    "Lop": ("jitgraph.gradient", "Lop"),
    "Rop": ("jitgraph.gradient", "Rop"),
    "consider_constant": ("jitgraph.gradient", "consider_constant"),
    "grad_not_implemented": ("jitgraph.gradient", "grad_not_implemented"),
    "grad_undefined": ("jitgraph.gradient", "grad_undefined"),
    "hessian": ("jitgraph.gradient", "hessian"),
    "jacobian": ("jitgraph.gradient", "jacobian"),
    "numeric_grad": ("jitgraph.gradient", "numeric_grad"),
    "DisconnectedType": ("jitgraph.gradient", "DisconnectedType"),
    "pprint": ("jitgraph.printing", "pprint"),
    "min_informative_str": ("jitgraph.printing", "min_informative_str"),
}


def _lazy_value(name: str) -> _Any:
    import importlib

    module, attr = _LAZY[name]
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        raise AttributeError(f"module 'jitgraph.tensor' has no attribute {name!r} "
                             f"({module} does not provide it)") from None


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        value = _lazy_value(name)
        globals()[name] = value
        return value
    if name in _THEANO_SUBMODULES:  # Theano's tensor/__init__ imports these eagerly
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'jitgraph.tensor' has no attribute {name!r}")


_THEANO_SUBMODULES = frozenset({"shared_randomstreams", "raw_random", "nnet", "signal", "opt",
                                "inplace", "sharedvar",
                                "xlogx", "nlinalg", "slinalg", "fft", "utils"})


def __dir__() -> list:
    available = [n for n in _LAZY if n in globals() or _provided(n)]
    return sorted(set(globals()) | set(available))


def _provided(name: str) -> bool:
    try:
        _lazy_value(name)
        return True
    except (AttributeError, ImportError):
        return False
