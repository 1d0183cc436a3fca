"""User-defined scalar ops written against Theano's API: subclasses of ``ScalarOp``,
``UnaryScalarOp`` and ``BinaryScalarOp`` with ``impl`` and ``grad``, built with an output-type
rule (``MyOp(upgrade_to_float, name='my_op')``) and used through ``Elemwise(my_op)``.

Such an op is an entry of the same kind as the built-in scalar ops (so ``Elemwise``, fusion and
scalar graphs take it), with three adaptations:

* ``impl`` is Theano's per-number function; the op applies it elementwise to arrays (NumPy's
  ``frompyfunc``), so ``impl`` may use ``math.exp`` as in Theano;
* ``grad(inputs, output_gradients)`` receives the (tensor) inputs of the ``Elemwise`` node and
  builds its result with tensor or scalar operations; an op without ``grad`` raises
  ``MethodNotDefined`` when differentiated, as in Theano;
* no code is generated for it: nodes using it run its ``impl`` (the backends have no expression
  for a user op), and ``c_code`` methods are ignored.

Ops compare equal when they have the same class and output-type rule (the name is only for
display), as in Theano.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.graph.utils import MethodNotDefined
from jitgraph.scalar.apply import ScalarGraphOp
from jitgraph.scalar.type import get_scalar_type
from jitgraph.scalar.type_rules import specific_out
from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp as TableScalarOp


def _rule_key(rule: Any) -> Any:
    if rule is None:
        return None
    if isinstance(rule, specific_out):
        return ("specific_out", rule.spec)
    qualname = getattr(rule, "__qualname__", None)
    if qualname is not None and "<locals>" not in qualname:
        return (getattr(rule, "__module__", None), qualname)
    return id(rule)  # a closure: equal only to itself


def _taken_names() -> set[str]:
    """Names of the built-in table entries: rewrites and code templates match ops by name, so a
    user op must not carry one of them."""
    return {op.name for op in scalar_ops.all_scalar_ops()} | {"cast"}


class _ScalarOpFamily(type):
    """``isinstance(op, ScalarOp)`` holds for every scalar op, built-in or user-defined (and
    ``UnaryScalarOp``/``BinaryScalarOp`` for those of one/two inputs), as in Theano, where the
    built-in ops derive from these classes too."""

    def __instancecheck__(cls, obj: Any) -> bool:
        if type.__instancecheck__(cls, obj):
            return True
        if isinstance(obj, ScalarGraphOp):  # (a // b).owner.op of scalar variables a, b
            obj = obj.scalar_op
        arity = cls.__dict__.get("_family_arity")
        if arity is not None and isinstance(obj, TableScalarOp) and (arity == "any"
                                                                     or obj.nin == arity):
            return True
        names = cls.__dict__.get("_builtin_names")
        return names is not None and isinstance(obj, TableScalarOp) and obj.name in names

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # Theano's op classes (``Add(upcast_out, name='add')``) make the built-in table entry;
        # a user subclass of one of them is a user op.
        if cls.__dict__.get("_builtin_names"):
            return scalar_ops.op(cls.__dict__["_builtin_names"][0])
        return super().__call__(*args, **kwargs)


class ScalarOp(TableScalarOp, metaclass=_ScalarOpFamily):
    """Base class of scalar ops defined the Theano way (see the module docstring).

    ``output_types_preference`` maps the input scalar types to the output types (see
    :mod:`jitgraph.scalar.type_rules`); a subclass may instead override ``output_types``.
    """

    nin = -1
    nout = 1
    _family_arity: Any = "any"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_family_arity" not in cls.__dict__:
            cls._family_arity = None  # a user class: plain isinstance
        if "_builtin_names" not in cls.__dict__:
            cls._builtin_names = None
        # Theano's grad(inputs, output_gradients) becomes the table's grad(inputs, output, gz).
        if "grad" in cls.__dict__:
            cls._user_grad = cls.__dict__["grad"]
            cls.grad = ScalarOp._adapted_grad
        if "__init__" in cls.__dict__:
            cls.__init__ = _completing_init(cls.__dict__["__init__"])

    def __init__(self, output_types_preference: Callable | None = None,
                 name: str | None = None) -> None:
        self.output_types_preference = output_types_preference
        self._given_name = name
        display = name or type(self).__name__
        nin, nout = type(self).nin, type(self).nout
        internal = display if display not in _taken_names() else f"user_{display}"
        super().__init__(internal, nin, self._elementwise_impl(), self._first_output_dtype,
                         cast_inputs="none", doc=type(self).__doc__ or "")
        self.nout = nout
        self.display_name = display

    # -- identity -----------------------------------------------------------------------------
    @property
    def key(self) -> tuple:
        cls = type(self)
        return ("user_scalar_op", cls.__module__, cls.__qualname__,
                _rule_key(self.output_types_preference))

    def __str__(self) -> str:
        return self.display_name

    __repr__ = __str__

    def __reduce__(self) -> Any:
        return (type(self), (self.output_types_preference, self._given_name))

    # -- types ----------------------------------------------------------------------------------
    def output_types(self, types: Sequence[Any]) -> Sequence[Any]:
        if self.output_types_preference is None:
            raise NotImplementedError(f"cannot compute the output types of {self}: give an "
                                      "output_types_preference (e.g. upgrade_to_float) or "
                                      "override output_types")
        return self.output_types_preference(*types)

    def output_dtypes(self, *in_dtypes: str) -> list[str]:
        types = self.output_types([get_scalar_type(d) for d in in_dtypes])
        if len(types) != self.nout:
            raise TypeError(f"{self}: the output-type rule gave {len(types)} types for "
                            f"{self.nout} outputs")
        return [t.dtype for t in types]

    def _first_output_dtype(self, *in_dtypes: str) -> str:
        return self.output_dtypes(*in_dtypes)[0]

    # -- values ---------------------------------------------------------------------------------
    def _elementwise_impl(self) -> Callable:
        per_number = type(self).impl.__get__(self)
        nin_fixed = type(self).nin

        def impl(*values: Any) -> Any:
            if all(np.ndim(v) == 0 for v in values):
                return per_number(*values)
            nin = nin_fixed if nin_fixed > 0 else len(values)
            return np.frompyfunc(per_number, nin, type(self).nout)(*values)

        return impl

    def impl(self, *inputs: Any) -> Any:
        raise MethodNotDefined(f"{type(self).__name__} defines no impl")

    # -- gradient -------------------------------------------------------------------------------
    def _adapted_grad(self, inputs: Sequence[Any], output: Any, gz: Any) -> list:
        result = type(self)._user_grad(self, list(inputs), [gz])
        if result is NotImplemented:
            raise MethodNotDefined(f"{self} returned NotImplemented from grad")
        return list(result)

    def grad(self, inputs: Sequence[Any], output: Any, gz: Any) -> list:
        raise MethodNotDefined(f"grad is not defined by {type(self).__name__} ({self})")


def _completing_init(user_init: Callable) -> Callable:
    """``user_init`` followed by :meth:`ScalarOp.__init__` when it did not call it: Theano's
    ops could skip it and set ``output_types_preference`` themselves."""

    @functools.wraps(user_init)
    def __init__(self: ScalarOp, *args: Any, **kwargs: Any) -> None:
        user_init(self, *args, **kwargs)
        if "display_name" not in self.__dict__:
            ScalarOp.__init__(self, getattr(self, "output_types_preference", None))

    return __init__


class UnaryScalarOp(ScalarOp):
    """A user scalar op of one input."""

    nin = 1
    _family_arity = 1


class BinaryScalarOp(ScalarOp):
    """A user scalar op of two inputs."""

    nin = 2
    _family_arity = 2


# Theano's class of each built-in op: class name -> (table names, number of inputs). For a
# class, ``isinstance(op, cls)`` holds for those table entries and ``cls(...)`` gives the entry.
_BUILTIN_CLASSES = {
    "Add": (("add",), -1), "Mul": (("mul",), -1), "Sub": (("sub",), 2),
    "TrueDiv": (("true_div",), 2), "IntDiv": (("int_div",), 2), "Mod": (("mod",), 2),
    "Pow": (("pow",), 2), "Maximum": (("maximum",), 2), "Minimum": (("minimum",), 2),
    "ArcTan2": (("arctan2",), 2), "Second": (("second",), 2), "Switch": (("switch",), 3),
    "Clip": (("clip",), 3), "Neg": (("neg",), 1), "Abs": (("abs",), 1), "Sgn": (("sgn",), 1),
    "Identity": (("identity",), 1), "Inv": (("reciprocal",), 1), "Sqr": (("sqr",), 1),
    "Sqrt": (("sqrt",), 1), "Exp": (("exp",), 1), "Exp2": (("exp2",), 1),
    "Expm1": (("expm1",), 1), "Log": (("log",), 1), "Log2": (("log2",), 1),
    "Log10": (("log10",), 1), "Log1p": (("log1p",), 1), "Sin": (("sin",), 1),
    "Cos": (("cos",), 1), "Tan": (("tan",), 1), "ArcSin": (("arcsin",), 1),
    "ArcCos": (("arccos",), 1), "ArcTan": (("arctan",), 1), "Sinh": (("sinh",), 1),
    "Cosh": (("cosh",), 1), "Tanh": (("tanh",), 1), "ArcSinh": (("arcsinh",), 1),
    "ArcCosh": (("arccosh",), 1), "ArcTanh": (("arctanh",), 1), "Erf": (("erf",), 1),
    "Erfc": (("erfc",), 1), "Floor": (("floor",), 1), "Ceil": (("ceil",), 1),
    "Trunc": (("trunc",), 1), "RoundHalfToEven": (("round_half_to_even",), 1),
    "RoundHalfAwayFromZero": (("round_half_away_from_zero",), 1),
    "IsNan": (("isnan",), 1), "IsInf": (("isinf",), 1), "Invert": (("invert",), 1),
    "EQ": (("eq",), 2), "NEQ": (("neq",), 2), "LT": (("lt",), 2), "LE": (("le",), 2),
    "GT": (("gt",), 2), "GE": (("ge",), 2), "AND": (("and_",), 2), "OR": (("or_",), 2),
    "XOR": (("xor",), 2),
    # families
    "LogicalComparison": (("eq", "neq", "lt", "le", "gt", "ge"), 2),
    "FixedLogicalComparison": (("isnan", "isinf"), 1),
    "BinaryBitOp": (("and_", "or_", "xor"), 2), "UnaryBitOp": (("invert",), 1),
}


def _builtin_class(name: str, names: tuple[str, ...], nin: int) -> type:
    return _ScalarOpFamily(name, (ScalarOp,), {
        "_builtin_names": names, "nin": nin, "__module__": __name__,
        "__doc__": f"Theano's class of the built-in scalar op(s) {', '.join(names)}: "
                   f"isinstance checks and construction give the table entry."})


class _CastClass(type):
    """``Cast(o_type)`` (a scalar type or a dtype) gives the table's conversion op; every
    conversion op is an instance."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, scalar_ops.Cast)

    def __call__(cls, o_type: Any, name: str | None = None) -> Any:
        return scalar_ops.Cast(getattr(o_type, "dtype", o_type))


class Cast(metaclass=_CastClass):
    """Theano's ``Cast(o_type)``: the scalar op converting to ``o_type``."""


class _InRangeClass(type):
    """``InRange(openlow, openhi)`` gives the table's row for those bounds; the four rows are
    its instances."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return getattr(obj, "name", None) in scalar_ops.IN_RANGE_ROWS.values()

    def __call__(cls, openlow: bool, openhi: bool) -> Any:
        return scalar_ops.op(scalar_ops.IN_RANGE_ROWS[bool(openlow), bool(openhi)])


class InRange(metaclass=_InRangeClass):
    """Theano's ``InRange(openlow, openhi)``: whether ``low < x < high`` (``<=`` at a closed
    bound), elementwise; its gradient is zero for every input."""


BUILTIN_CLASSES = {name: _builtin_class(name, names, nin)
                   for name, (names, nin) in _BUILTIN_CLASSES.items()}
BUILTIN_CLASSES["Cast"] = Cast
BUILTIN_CLASSES["InRange"] = InRange


def row_class(name: str) -> type | None:
    """Theano's class of a table row that names it (``theano_class``; rows added after the
    classes above, such as ``Erfinv``), made when first asked for; None if no row does."""
    for op in scalar_ops.all_scalar_ops():
        if getattr(op, "theano_class", None) == name:
            cls = BUILTIN_CLASSES[name] = _builtin_class(name, (op.name,), op.nin)
            return cls
    return None


def scalar_op_class(class_name: str, row: str) -> type:
    """A Theano class name for the table row ``row`` that the row does not carry (Theano
    defined ``ScalarSigmoid`` in ``tensor.nnet.sigm``): ``isinstance(op, cls)`` holds for the
    row's op and ``cls(...)`` gives it."""
    op = scalar_ops.get_scalar_op((row,))
    return BUILTIN_CLASSES.setdefault(class_name, _builtin_class(class_name, (row,), op.nin))


__all__ = ["ScalarOp", "UnaryScalarOp", "BinaryScalarOp", "BUILTIN_CLASSES", "scalar_op_class"]
