"""Scalar operations: the per-element functions that Elemwise, reductions and fusion are built from.

Each :class:`ScalarOp` is one table entry: a name, its arity, its NumPy reference, its output
dtype rule and its gradient (written with tensor ops). Backends register a code template per
``name`` (see ``backend_cpu``/``backend_gpu``), so adding an elementwise function means adding one
entry here and one template per backend.
"""

from __future__ import annotations

import math as _pymath
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.tensor import dtypes as dt

GradFn = Callable[[Sequence[Any], Any, Any], list]


# -- output dtype rules ------------------------------------------------------------------

def same_out(*dtypes: str) -> str:
    return dtypes[0]


def upcast_out(*dtypes: str) -> str:
    return dt.upcast(*dtypes)


def upcast_out_nobool(*dtypes: str) -> str:
    out = dt.upcast(*dtypes)
    return "int8" if out == "bool" else out


def float_out(*dtypes: str) -> str:
    return dt.upcast(*[dt.upgrade_to_float(d) for d in dtypes])


def bool_out(*dtypes: str) -> str:
    return "bool"


def discrete_or_bool_out(*dtypes: str) -> str:
    out = dt.upcast(*dtypes)
    if not dt.is_discrete(out):
        raise TypeError(f"bitwise operations need boolean or integer inputs, got {dtypes}")
    return out


def real_out(*dtypes: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(dtypes[0], dtypes[0])


class ScalarOp:
    """One elementwise function. Immutable; equal when ``key`` (name and parameters) is equal."""

    def __init__(self, name: str, nin: int, impl: Callable, out_dtype: Callable[..., str],
                 grad: GradFn | None = None, commutative: bool = False,
                 associative: bool = False, identity: Any = None, differentiable: bool = True,
                 doc: str = "", cast_inputs: Any = "all",
                 shape_only_inputs: tuple[int, ...] = ()) -> None:
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

    def __call__(self, *values: Any) -> Any:
        from jitgraph.graph.basic import Variable

        if any(isinstance(v, Variable) for v in values):  # theano.scalar.add(x, y): a graph
            from jitgraph.scalar.apply import apply_scalar_op

            return apply_scalar_op(self, *values)
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
                         cast_inputs="none")
        self.dtype = dtype

    def __reduce__(self) -> Any:
        return (Cast, (self.dtype,))


_REGISTRY: dict[tuple, ScalarOp] = {}


def register(op: ScalarOp) -> ScalarOp:
    if op.key in _REGISTRY:
        raise ValueError(f"scalar op {op.name} is registered twice")
    _REGISTRY[op.key] = op
    return op


def get_scalar_op(key: tuple) -> ScalarOp:
    return _REGISTRY[key]


def all_scalar_ops() -> list[ScalarOp]:
    return list(_REGISTRY.values())


# -- gradients (tensor level; imported lazily to keep this table free of graph imports) ---

def _T():
    from jitgraph.tensor import math

    return math


def _cast_grad(inputs, output, gz):
    (x,) = inputs
    if dt.is_discrete(x.dtype):
        return [None]
    return [_T().cast(gz, x.dtype)]


def _unary(fn: Callable[[Any, Any, Any], Any]) -> GradFn:
    """Gradient rule of a unary function: fn(x, out, gz) -> dx; None for integer inputs."""

    def grad(inputs, output, gz):
        (x,) = inputs
        if dt.is_discrete(x.dtype):
            return [None]
        return [fn(x, output, gz)]

    return grad


def _binary(fn: Callable[[Any, Any, Any, Any], tuple]) -> GradFn:
    def grad(inputs, output, gz):
        x, y = inputs
        gx, gy = fn(x, y, output, gz)
        return [None if dt.is_discrete(x.dtype) else gx, None if dt.is_discrete(y.dtype) else gy]

    return grad


def _add_grad(inputs, output, gz):
    return [None if dt.is_discrete(i.dtype) else gz for i in inputs]


def _mul_grad(inputs, output, gz):
    T = _T()
    grads = []
    for k, x in enumerate(inputs):
        if dt.is_discrete(x.dtype):
            grads.append(None)
            continue
        others = [inputs[j] for j in range(len(inputs)) if j != k]
        grads.append(T.mul(gz, *others) if others else gz)
    return grads


def _switch_grad(inputs, output, gz):
    T = _T()
    cond, a, b = inputs
    zero = T.zeros_like_scalar(gz)
    return [None,
            None if dt.is_discrete(a.dtype) else T.switch(cond, gz, zero),
            None if dt.is_discrete(b.dtype) else T.switch(cond, zero, gz)]


def _clip_grad(inputs, output, gz):
    T = _T()
    x, lo, hi = inputs
    zero = T.zeros_like_scalar(gz)
    inside = T.and_(T.ge(x, lo), T.le(x, hi))
    return [None if dt.is_discrete(x.dtype) else T.switch(inside, gz, zero),
            None if dt.is_discrete(lo.dtype) else T.switch(T.lt(x, lo), gz, zero),
            None if dt.is_discrete(hi.dtype) else T.switch(T.gt(x, hi), gz, zero)]


def _pow_grad(x, y, out, gz):
    T = _T()
    gx = gz * y * T.pow(x, y - 1)
    # d/dy x**y = x**y log x; defined as 0 where x == 0 so that 0**y stays differentiable in y.
    safe_log = T.log(T.switch(T.eq(x, 0), T.ones_like_scalar(x), x))
    gy = gz * out * safe_log
    return gx, gy


def _maxmin_grad(x, y, out, gz):
    T = _T()
    zero = T.zeros_like_scalar(gz)
    on_x = T.eq(out, x)
    return T.switch(on_x, gz, zero), T.switch(on_x, zero, gz)


def _erf_impl(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    out_dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return np.vectorize(_pymath.erf, otypes=[out_dtype])(x)


def _erfc_impl(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    out_dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return np.vectorize(_pymath.erfc, otypes=[out_dtype])(x)


def _sigmoid_impl(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    # 1/(1+exp(-x)) overflows exp for very negative x; exp(x)/(1+exp(x)) is exact there.
    with np.errstate(over="ignore", invalid="ignore"):  # inf/inf in the unused branch
        pos = 1.0 / (1.0 + np.exp(-x))
        e = np.exp(x)
        neg = e / (1.0 + e)
    return np.where(x >= 0, pos, neg)


def _softplus_impl(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, x)


def _round_half_even(x: np.ndarray) -> np.ndarray:
    return np.round(x)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5) if x.dtype.kind == "f" else x.copy()


def _int_div_impl(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor_divide(x, y)


def _sgn(x):
    return np.sign(x)


def _identity(x):
    return np.array(x, copy=True)


def _second(a, b):
    return np.broadcast_to(b, np.broadcast_shapes(np.shape(a), np.shape(b))).copy()


def _zero_grad(inputs, output, gz):
    return [None for _ in inputs]


_SQRT_PI = _pymath.sqrt(_pymath.pi)


def _build_table() -> None:
    T = _T  # gradient bodies call T() lazily
    u = _unary
    entries = [
        # name, nin, impl, dtype rule, grad, extra
        ("identity", 1, _identity, same_out, u(lambda x, o, g: g), {}),
        ("neg", 1, np.negative, same_out, u(lambda x, o, g: -g), {}),
        ("abs", 1, np.abs, real_out, u(lambda x, o, g: g * T().sgn(x)), {"cast_inputs": "none"}),
        ("sgn", 1, _sgn, same_out, None, {"differentiable": False}),
        ("exp", 1, np.exp, float_out, u(lambda x, o, g: g * o), {}),
        ("exp2", 1, np.exp2, float_out, u(lambda x, o, g: g * o * T().const_like(np.log(2.0), o)), {}),
        ("expm1", 1, np.expm1, float_out, u(lambda x, o, g: g * (o + 1)), {}),
        ("log", 1, np.log, float_out, u(lambda x, o, g: g / x), {}),
        ("log2", 1, np.log2, float_out,
         u(lambda x, o, g: g / (x * T().const_like(np.log(2.0), o))), {}),
        ("log10", 1, np.log10, float_out,
         u(lambda x, o, g: g / (x * T().const_like(np.log(10.0), o))), {}),
        ("log1p", 1, np.log1p, float_out, u(lambda x, o, g: g / (1 + x)), {}),
        ("sqrt", 1, np.sqrt, float_out, u(lambda x, o, g: g / (2 * o)), {}),
        ("sqr", 1, np.square, upcast_out_nobool, u(lambda x, o, g: g * 2 * x), {}),
        ("reciprocal", 1, np.reciprocal, float_out, u(lambda x, o, g: -g * o * o), {}),
        ("sin", 1, np.sin, float_out, u(lambda x, o, g: g * T().cos(x)), {}),
        ("cos", 1, np.cos, float_out, u(lambda x, o, g: -g * T().sin(x)), {}),
        ("tan", 1, np.tan, float_out, u(lambda x, o, g: g * (1 + o * o)), {}),
        ("arcsin", 1, np.arcsin, float_out,
         u(lambda x, o, g: g / T().sqrt(1 - T().sqr(x))), {}),
        ("arccos", 1, np.arccos, float_out,
         u(lambda x, o, g: -g / T().sqrt(1 - T().sqr(x))), {}),
        ("arctan", 1, np.arctan, float_out, u(lambda x, o, g: g / (1 + T().sqr(x))), {}),
        ("sinh", 1, np.sinh, float_out, u(lambda x, o, g: g * T().cosh(x)), {}),
        ("cosh", 1, np.cosh, float_out, u(lambda x, o, g: g * T().sinh(x)), {}),
        ("tanh", 1, np.tanh, float_out, u(lambda x, o, g: g * (1 - o * o)), {}),
        ("arcsinh", 1, np.arcsinh, float_out,
         u(lambda x, o, g: g / T().sqrt(T().sqr(x) + 1)), {}),
        ("arccosh", 1, np.arccosh, float_out,
         u(lambda x, o, g: g / T().sqrt(T().sqr(x) - 1)), {}),
        ("arctanh", 1, np.arctanh, float_out, u(lambda x, o, g: g / (1 - T().sqr(x))), {}),
        ("floor", 1, np.floor, same_out, _zero_grad, {}),
        ("ceil", 1, np.ceil, same_out, _zero_grad, {}),
        ("round_half_to_even", 1, _round_half_even, same_out, _zero_grad, {}),
        ("round_half_away_from_zero", 1, _round_half_away, same_out, _zero_grad, {}),
        ("trunc", 1, np.trunc, same_out, _zero_grad, {}),
        ("erf", 1, _erf_impl, float_out,
         u(lambda x, o, g: g * T().const_like(2.0 / _SQRT_PI, o) * T().exp(-T().sqr(x))), {}),
        ("erfc", 1, _erfc_impl, float_out,
         u(lambda x, o, g: -g * T().const_like(2.0 / _SQRT_PI, o) * T().exp(-T().sqr(x))), {}),
        ("sigmoid", 1, _sigmoid_impl, float_out, u(lambda x, o, g: g * o * (1 - o)), {}),
        ("softplus", 1, _softplus_impl, float_out, u(lambda x, o, g: g * T().sigmoid(x)), {}),
        ("isnan", 1, np.isnan, bool_out, None, {"differentiable": False, "cast_inputs": "none"}),
        ("isinf", 1, np.isinf, bool_out, None, {"differentiable": False, "cast_inputs": "none"}),
        ("invert", 1, np.invert, discrete_or_bool_out, None, {"differentiable": False}),
        # binary and n-ary
        ("add", -1, None, upcast_out_nobool, _add_grad,
         {"commutative": True, "associative": True, "identity": 0}),
        ("mul", -1, None, upcast_out_nobool, _mul_grad,
         {"commutative": True, "associative": True, "identity": 1}),
        ("sub", 2, np.subtract, upcast_out_nobool, _binary(lambda x, y, o, g: (g, -g)), {}),
        ("true_div", 2, np.true_divide, float_out,
         _binary(lambda x, y, o, g: (g / y, -g * o / y)), {}),
        ("int_div", 2, _int_div_impl, upcast_out_nobool, _zero_grad, {}),
        ("mod", 2, np.mod, upcast_out_nobool,
         _binary(lambda x, y, o, g: (g, -g * T().int_div(x, y))), {}),
        ("pow", 2, np.power, upcast_out_nobool, _binary(_pow_grad), {}),
        ("maximum", 2, np.maximum, upcast_out, _binary(_maxmin_grad),
         {"commutative": True, "associative": True, "identity": -np.inf}),
        ("minimum", 2, np.minimum, upcast_out, _binary(_maxmin_grad),
         {"commutative": True, "associative": True, "identity": np.inf}),
        ("arctan2", 2, np.arctan2, float_out,
         _binary(lambda y, x, o, g: (g * x / (T().sqr(x) + T().sqr(y)),
                                     -g * y / (T().sqr(x) + T().sqr(y)))), {}),
        ("eq", 2, np.equal, bool_out, None, {"cast_inputs": "none", "differentiable": False, "commutative": True}),
        ("neq", 2, np.not_equal, bool_out, None, {"cast_inputs": "none", "differentiable": False, "commutative": True}),
        ("lt", 2, np.less, bool_out, None, {"cast_inputs": "none", "differentiable": False}),
        ("le", 2, np.less_equal, bool_out, None, {"cast_inputs": "none", "differentiable": False}),
        ("gt", 2, np.greater, bool_out, None, {"cast_inputs": "none", "differentiable": False}),
        ("ge", 2, np.greater_equal, bool_out, None, {"cast_inputs": "none", "differentiable": False}),
        ("and_", 2, np.bitwise_and, discrete_or_bool_out, None,
         {"differentiable": False, "commutative": True, "associative": True, "identity": True}),
        ("or_", 2, np.bitwise_or, discrete_or_bool_out, None,
         {"differentiable": False, "commutative": True, "associative": True, "identity": False}),
        ("xor", 2, np.bitwise_xor, discrete_or_bool_out, None,
         {"differentiable": False, "commutative": True, "associative": True}),
        ("second", 2, _second, lambda a, b: b, lambda i, o, g: [None, g],
         {"cast_inputs": (False, True), "shape_only_inputs": (0,)}),
        ("switch", 3, np.where, lambda c, a, b: dt.upcast(a, b), _switch_grad,
         {"cast_inputs": (False, True, True)}),
        ("clip", 3, np.clip, lambda x, lo, hi: dt.upcast(x, lo, hi), _clip_grad, {}),
    ]
    for name, nin, impl, rule, grad, extra in entries:
        if impl is None:
            impl = _NARY[name]
        register(ScalarOp(name, nin, impl, rule, grad, **extra))


def _nary_add(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = np.add(out, x)
    return out


def _nary_mul(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = np.multiply(out, x)
    return out


_NARY = {"add": _nary_add, "mul": _nary_mul}

_build_table()


def op(name: str) -> ScalarOp:
    """The registered scalar op called ``name``."""
    return _REGISTRY[(name,)]
