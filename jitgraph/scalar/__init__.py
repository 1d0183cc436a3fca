"""``jitgraph.scalar`` (Theano's ``theano.scalar``): scalar types, variables and the scalar ops.

* types: ``Scalar`` (:class:`ScalarType`) and its instances ``float64``, ``int32``, ``bool``,
  ...; calling one makes a variable (``x = float64('x')``); ``upcast(*dtypes)``;
* variables: ``ScalarVariable``, ``ScalarConstant``, ``as_scalar``, ``constant``;
* the scalar ops by name (``add``, ``mul``, ``exp``, ``switch``, ``convert_to_int32``, ...):
  the entries of the scalar-op table (:mod:`jitgraph.tensor.elementwise.scalar_ops`), so ``Elemwise(add)``
  is the same op as ``T.add``'s; applied to scalar variables they build scalar graphs, which
  ``jitgraph.function`` compiles like any graph (results are NumPy scalars);
* ``Composite(inputs, outputs)``: a scalar graph as one scalar op;
* user-defined ops the Theano way: subclasses of ``ScalarOp``/``UnaryScalarOp``/
  ``BinaryScalarOp`` with ``impl`` and ``grad``, and the output-type rules
  (``upgrade_to_float``, ``same_out``, ``upcast_out``, ...).
"""

from __future__ import annotations

from typing import Any

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.graph.type import Type
from jitgraph.scalar.apply import ScalarGraphOp, apply_scalar_op
from jitgraph.scalar.bridge import (ScalarFromTensor, TensorFromScalar, scalar_from_tensor,
                                    tensor_from_scalar)
from jitgraph.scalar.composite import Composite
from jitgraph.scalar.custom import (BUILTIN_CLASSES, BinaryScalarOp, ScalarOp, UnaryScalarOp,
                                    row_class)
from jitgraph.scalar_expr.errors import ComplexError
from jitgraph.scalar.type import (ScalarType, all_types, bool_, complex64, complex128,
                                  complex_types, complexs, complexs64, complexs128,
                                  continuous_types, discrete_types, float16, float32, float64,
                                  float_types, floats, get_scalar_type, int8, int16, int32,
                                  int64, int_types, ints, uint8, uint16, uint32, uint64,
                                  uint_types, upcast)
from jitgraph.scalar.type_rules import *  # noqa: F401,F403  (upgrade_to_float, same_out, ...)
from jitgraph.scalar.var import (ScalarConstant, ScalarVariable, _div, as_common_dtype,
                                 as_scalar, cast, constant, int_or_true_div, mod_check)
from jitgraph.tensor.core.dtypes import autocast_float, autocast_float_as  # noqa: F401
from jitgraph.tensor.elementwise.math import IntegerDivisionError
from jitgraph.tensor.elementwise.scalar_ops import Cast as _TableCast
from jitgraph.tensor.elementwise import scalar_ops

Scalar = ScalarType  # Theano's name for the class
globals()["bool"] = bool_  # theano.scalar.bool (not shadowing the builtin in this module)
globals().update(BUILTIN_CLASSES)  # Add, Exp, LogicalComparison, ... (Theano's op classes)
div_proxy = _div

# Theano's other names of table entries
_ALIASES = {"abs_": "abs", "inv": "reciprocal", "floor_div": "int_div"}

# (Theano's names of gradient and printing objects here come from jitgraph._facade.paths.)


def _scalar_op(name: str) -> Any:
    if name.startswith("convert_to_"):
        return _TableCast(name[len("convert_to_"):])
    if name[:1].isupper():  # Theano's class of a row (Erfinv, ...)
        cls = row_class(name)
        if cls is not None:
            return cls
    try:
        return scalar_ops.op(_ALIASES.get(name, name))
    except KeyError:
        raise AttributeError(f"module 'jitgraph.scalar' has no attribute {name!r}") from None


def __getattr__(name: str) -> Any:
    """The scalar ops, looked up in the table when first used (the table also holds ops that
    modules loaded later register, such as ``xlogx``)."""
    if name.startswith("__"):
        raise AttributeError(name)
    value = _scalar_op(name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    names = {op.name for op in scalar_ops.all_scalar_ops()} | set(_ALIASES)
    names |= {f"convert_to_{d.dtype}" for d in all_types}
    return sorted(set(globals()) | names)
