"""A row of the scalar-op table (:mod:`jitgraph.tensor.elementwise.scalar_ops` explains how to add
one): the
:class:`ScalarOp` class, :class:`Cast`, the registry every row is kept in (:func:`define_op`,
:func:`get_scalar_op`, ...), the output-dtype rules and the gradient-rule builders a row is
written with."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from jitgraph import services
from jitgraph.config import config
from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt

GradFn = Callable[[Sequence[Any], Any, Any], list]


# -- output dtype rules ------------------------------------------------------------------

def same_out(*dtypes: str) -> str:
    return dtypes[0]


def upcast_out(*dtypes: str) -> str:
    return dt.upcast(*dtypes)


def upcast_out_min8(*dtypes: str) -> str:
    """The common dtype, bool promoted to int8 (``True ** True`` counts)."""
    out = dt.upcast(*dtypes)
    return "int8" if out == "bool" else out


def upcast_out_nobool(*dtypes: str) -> str:
    """The common dtype; a bool result is refused when the graph is built (Theano 1.0.5:
    ``TypeError: bool output not supported`` for the difference of two bools)."""
    out = dt.upcast(*dtypes)
    if out == "bool":
        raise TypeError("bool output not supported")
    return out


def same_out_nobool(*dtypes: str) -> str:
    """The input's dtype; a bool input is refused (``-b``: use ``~b``)."""
    if dtypes[0] == "bool":
        raise TypeError("bool input not supported")
    return dtypes[0]


def float_out(*dtypes: str) -> str:
    return dt.upcast(*[dt.upgrade_to_float(d) for d in dtypes])


def true_div_out(*dtypes: str) -> str:
    """Theano's rule for ``/``: integers divided by integers give ``floatX`` (int8 / int8 is
    float64 by default, float32 under floatX=float32); otherwise :func:`float_out`."""
    if all(dt.is_discrete(d) for d in dtypes):
        return str(config.floatX)
    return float_out(*dtypes)


def bool_out(*dtypes: str) -> str:
    return "bool"


def discrete_or_bool_out(*dtypes: str) -> str:
    out = dt.upcast(*dtypes)
    if not dt.is_discrete(out):
        raise TypeError(f"bitwise operations need boolean or integer inputs, got {dtypes}")
    return out


def real_out(*dtypes: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(dtypes[0], dtypes[0])


class _OutputTypesPreference:
    """``op.output_types_preference``: Theano's output-type rule of a scalar op, a callable
    from input scalar types to output scalar types. The scalar types live in
    ``jitgraph.scalar``, a higher layer, which provides the rule (service
    ``scalar_type_rule``). A non-data descriptor: Theano-style ops (``jitgraph.scalar``'s
    ``ScalarOp`` subclasses) that are given a rule keep it as an instance attribute."""

    def __get__(self, op: Any, owner: type) -> Any:
        if op is None:
            return self
        return services.get("scalar_type_rule")(op)


def real_only(rule: Callable[..., str]) -> Callable[..., str]:
    """``rule`` for a row defined on real numbers only (rounding, sign, clip...): a complex
    input is refused when the graph is built, as Theano refuses it."""

    def checked(*dtypes: str) -> str:
        for d in dtypes:
            if dt.is_complex(d):
                raise TypeError(f"complex inputs are not supported here, got {d}")
        return rule(*dtypes)

    checked.__name__ = checked.__qualname__ = f"real_only({rule.__name__})"
    return checked


class ScalarOp:
    """One elementwise function. Immutable; equal when ``key`` (name and parameters) is equal."""

    output_types_preference = _OutputTypesPreference()

    def __init__(self, name: str, nin: int, impl: Callable, out_dtype: Callable[..., str],
                 grad: GradFn | None = None, commutative: bool = False,
                 associative: bool = False, identity: Any = None, differentiable: bool = True,
                 doc: str = "", cast_inputs: Any = "all",
                 shape_only_inputs: tuple[int, ...] = (), expr: Callable | None = None,
                 theano_class: str | None = None, complex_expr: bool = False) -> None:
        self.name = name
        self.nin = nin  # -1: any number of inputs (add, mul)
        self.impl = impl
        self.out_dtype = out_dtype
        self._grad = grad
        self.commutative = commutative
        self.associative = associative
        self.identity = identity
        self.differentiable = differentiable
        # Which inputs are converted to the output dtype before ``impl`` runs: "all", "none", or
        # a tuple of booleans. Computing in the output dtype is what makes bool+bool -> int8 give
        # 2 and exp(int8) -> float32 avoid NumPy's float16 intermediate.
        self.cast_inputs = cast_inputs
        # Inputs that give the output only its shape (``second``'s first): no gradient path
        # leads through them, so ``grad`` reports them disconnected (as Theano does).
        self.shape_only_inputs = tuple(shape_only_inputs)
        # The computation for the compiled backends (:mod:`jitgraph.scalar_expr`): called with
        # one expression per input, returns the output's expression. None: ``perform`` only.
        self.expr = expr
        # whether ``expr`` also computes complex values as NumPy does (see the module doc)
        self.complex_expr = complex_expr
        self.theano_class = theano_class  # Theano's class name, for rows outside its tables
        self.nout = 1
        self.__doc__ = doc

    @property
    def key(self) -> tuple:
        return (self.name,)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ScalarOp) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__

    def __reduce__(self) -> Any:
        return (get_scalar_op, (self.key,))

    def output_dtype(self, *in_dtypes: str) -> str:
        return self.out_dtype(*in_dtypes)

    def output_dtypes(self, *in_dtypes: str) -> list[str]:
        """One dtype per output (multi-output ops such as fused composites override this)."""
        return [self.out_dtype(*in_dtypes)]

    def grad(self, inputs: Sequence[Any], output: Any, gz: Any) -> list:
        """Gradients of the inputs (None where disconnected), given ``gz`` = d cost / d output."""
        if self._grad is None:
            if not self.differentiable:
                return [None] * len(inputs)
            raise NotImplementedError(f"no gradient for elementwise {self.name}")
        return self._grad(inputs, output, gz)

    def make_node(self, *inputs: Any) -> Any:
        """The node of this op applied to scalar variables (Theano's ``ScalarOp.make_node``)."""
        out = services.get("apply_scalar_op")(self, *inputs)
        return (out[0] if isinstance(out, (list, tuple)) else out).owner

    def __call__(self, *values: Any) -> Any:
        if any(isinstance(v, Variable) for v in values):  # theano.scalar.add(x, y): a graph
            return services.get("apply_scalar_op")(self, *values)
        return self.impl(*values)

    def prepare_inputs(self, values: Sequence[Any], out_dtype: str) -> list:
        """``values`` converted as ``cast_inputs`` says, ready for ``impl``."""
        policy = self.cast_inputs
        if policy == "none":
            return list(values)
        flags = [True] * len(values) if policy == "all" else policy
        return [np.asarray(v, dtype=out_dtype) if f and np.asarray(v).dtype.name != out_dtype
                else v for v, f in zip(values, flags)]

    def compute(self, values: Sequence[Any], out_dtype: str) -> np.ndarray:
        """``impl`` applied in the output dtype, as an ndarray of that dtype."""
        result = np.asarray(self.impl(*self.prepare_inputs(values, out_dtype)))
        return result if result.dtype.name == out_dtype else result.astype(out_dtype)


class Cast(ScalarOp):
    """Conversion to a given dtype."""

    def __init__(self, dtype: str) -> None:
        dtype = dt.normalize_dtype(dtype)
        super().__init__(f"convert_to_{dtype}", 1, lambda x: np.asarray(x).astype(dtype),
                         lambda *_: dtype, _cast_grad, doc=f"Cast to {dtype}.",
                         cast_inputs="none", expr=unchanged, complex_expr=True)
        self.dtype = dtype

    def __reduce__(self) -> Any:
        return (Cast, (self.dtype,))


_REGISTRY: dict[tuple, ScalarOp] = {}


def register(op: ScalarOp) -> ScalarOp:
    if op.key in _REGISTRY:
        raise ValueError(f"scalar op {op.name} is registered twice")
    _REGISTRY[op.key] = op
    return op


def define_op(name: str, nin: int, impl: Callable, dtype: Callable[..., str],
              grad: GradFn | None, expr: Callable | None, **extra: Any) -> ScalarOp:
    """Register one row of the table (see the module docstring) and return its op. ``extra``:
    the other :class:`ScalarOp` parameters (``cast_inputs``, ``differentiable``, ``doc``,
    ``theano_class``, ``commutative``, ...)."""
    return register(ScalarOp(name, nin, impl, dtype, grad, expr=expr, **extra))


def elemwise_function(op: ScalarOp, name: str | None = None) -> Callable[..., Any]:
    """The tensor function of a row: its shared ``Elemwise`` applied to the arguments."""

    def function(*args: Any) -> Any:
        from jitgraph.tensor.elementwise.math import elemwise_op

        return elemwise_op(op.name)(*args)

    function.__name__ = function.__qualname__ = name or op.name
    function.__doc__ = op.__doc__
    return function


def get_scalar_op(key: tuple) -> ScalarOp:
    return _REGISTRY[key]


def all_scalar_ops() -> list[ScalarOp]:
    return list(_REGISTRY.values())


def always_complex(op: ScalarOp) -> bool:
    """Whether ``op`` gives a complex output even from real inputs (``complex``,
    ``complex_from_polar``): only the CPU's elementwise kernels compute complex values, so
    such rows are left out of the sweeps over real dtypes that every backend compiles."""
    if op.nin < 0:
        return False
    try:
        return dt.is_complex(op.output_dtype(*["float64"] * op.nin))
    except TypeError:
        return False


def compiled_scalar_ops() -> list[ScalarOp]:
    """The rows every compiled backend renders for real dtypes: every row but the
    :func:`always_complex` ones."""
    return [op for op in _REGISTRY.values() if not always_complex(op)]


# -- gradients (tensor level; imported lazily to keep this table free of graph imports) ---

def _T():
    from jitgraph.tensor.elementwise import math

    return math


def has_gradient(output: Any) -> bool:
    """Whether gradients flow through ``output``: not through an integer or boolean one.

    As in Theano, the rules below ask the output, not the inputs: an integer input of an op
    with a continuous output gets the derivative (``grad(dot(X, W).sum(), X)`` for an integer
    ``X`` is the float gradient), and an integer output gives its inputs none.
    """
    return not dt.is_discrete(output.dtype)


def _cast_grad(inputs, output, gz):
    (x,) = inputs
    if not has_gradient(output):
        return [None]
    # a gradient is never integer-valued: an integer input gets it in the output's dtype
    return [gz if dt.is_discrete(x.dtype) else _T().cast(gz, x.dtype)]


def unary_grad(fn: Callable[[Any, Any, Any], Any]) -> GradFn:
    """Gradient rule of a unary function: fn(x, out, gz) -> dx; None for an integer output."""

    def grad(inputs, output, gz):
        (x,) = inputs
        if not has_gradient(output):
            return [None]
        return [fn(x, output, gz)]

    return grad


def binary_grad(fn: Callable[[Any, Any, Any, Any], tuple]) -> GradFn:
    """Gradient rule of a binary function: fn(x, y, out, gz) -> (dx, dy); None for an integer
    output."""

    def grad(inputs, output, gz):
        x, y = inputs
        if not has_gradient(output):
            return [None, None]
        return list(fn(x, y, output, gz))

    return grad


def unchanged(x: Any) -> Any:
    """The expression of a row whose output is its input (``identity``, a cast's)."""
    return x
