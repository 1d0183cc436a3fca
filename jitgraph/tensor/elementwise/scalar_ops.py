"""Scalar operations: the per-element functions that Elemwise, reductions and fusion are built from.

This module is the scalar-op table: its basic rows (arithmetic, comparisons, the C99 math
functions, ``switch``, ``clip``...) and its API (:func:`op`, :func:`define_op`, ...). What a row
is (:class:`ScalarOp`), the registry and the dtype/gradient rules a row is written with live in
:mod:`jitgraph.tensor.elementwise.scalar_op_base`; this module re-exports them.

Each :class:`ScalarOp` is one row of the scalar-op table: its name, its arity, its NumPy
reference (``perform``), its output-dtype rule, its gradient (written with tensor ops) and its
*expression*: what it computes, in the neutral form of :mod:`jitgraph.scalar_expr.expr`, which
both compiled backends render (the CPU to Python for the direct compiler and Numba, the GPU to
CUDA C). Nothing else is written per op: no backend template, no code generator entry.

Adding an op is one :func:`define_op` call (in any module ``jitgraph.tensor`` imports; the
special functions' rows are in :mod:`jitgraph.tensor.elementwise.special_functions`). ``erfinv``'s
row::

    erfinv = elemwise_function(define_op(
        "erfinv", 1,
        reference(SM.erfinv),                   # NumPy reference: the helper per element
        float_out,                              # output dtype rule
        unary_grad(lambda x, out, gz:           # gradient, with tensor ops
                   gz * _T().const_like(0.5 * math.sqrt(math.pi), out)
                   * _T().exp(_T().sqr(out))),
        lambda x: E.call(SM.erfinv, x),         # computation, for both compiled backends
        theano_class="Erfinv", doc="inverse error function"))

(``SM`` is :mod:`jitgraph.scalar_expr.special_math`, ``E`` is :mod:`jitgraph.scalar_expr.expr`,
``_T()`` imports :mod:`jitgraph.tensor.elementwise.math` when the gradient is built.) Then list
``erfinv``
in the module's ``__all__``; that is all: ``T.erfinv``, ``theano.scalar.erfinv`` and
``theano.scalar.Erfinv`` exist, fusion, both backends and the graph cache take it as it is.

* ``impl`` gets the inputs already converted to the output dtype (see ``cast_inputs``) and
  returns an array; ``dtype(*input_dtypes)`` gives the output dtype (``float_out``,
  ``same_out``, ``upcast_out``, ``bool_out``, ... below).
* ``grad(inputs, output, gz)`` returns one gradient per input (None where there is none);
  ``unary_grad(fn)``/``binary_grad(fn)`` give none when the output is integer-valued (an integer
  input of a continuous output gets its derivative, as in Theano).
* ``expr(*xs)`` gets one :class:`~jitgraph.scalar_expr.expr.Expr` per input, already in the
  output dtype, and returns the output's: Python operators (``+ - * / // % ** & | ^ ~``,
  comparisons, ``abs``), ``E.where``, ``E.maximum``/``E.minimum``, ``E.cast``, the C99 math
  functions (``E.exp``, ``E.log1p``, ``E.lgamma``, ...) and ``E.call(helper, *xs)`` for a
  function of restricted Python (:mod:`jitgraph.scalar_expr.helpers`; computed in float64).
  An expression that cannot handle some dtype raises ``E.Unsupported`` (the node then runs
  ``impl``). The backends keep NumPy's semantics for every node (integer division by zero,
  wrapping, NaN propagation); see ``backend_cpu/codegen/scalar_templates.py`` and
  ``backend_gpu/scalar_templates.py``.
* ``complex_expr=True`` says the expression also computes complex64/complex128 values as
  NumPy does (``+ - * / **``, ``abs``, ``E.exp``/``log``/``sqrt``/``sin``/``cos``/``tanh``,
  ``E.real``/``E.imag``/``E.conj``/``E.make_complex``, ``==``/``!=``); without it a node with a
  complex input or output runs ``impl`` (a row written for real numbers may mean something
  else for complex ones: NumPy's ``reciprocal`` is not ``1 / x`` at ``0j``).
* ``theano_class`` is the class name Theano gives the op (``theano.scalar.Erfinv``; in-place
  ``Elemwise{Erfinv}[(0, 0)]``); the tensor function is ``elemwise_function(op)``.
"""

from __future__ import annotations

import math as _pymath
from typing import Callable

import numpy as np

from jitgraph.scalar_expr import expr as E
from jitgraph.tensor.core import dtypes as dt
# The table's API, under the name importers (and pickles: ``get_scalar_op``, ``Cast``) use.
from jitgraph.tensor.elementwise.scalar_op_base import (Cast, GradFn, ScalarOp, all_scalar_ops,
                                            always_complex, binary_grad, bool_out,
                                            compiled_scalar_ops, define_op,
                                            discrete_or_bool_out, elemwise_function, float_out,
                                            get_scalar_op, has_gradient, real_only, real_out,
                                            register,
                                            same_out, same_out_nobool, true_div_out, unary_grad,
                                            unchanged, upcast_out, upcast_out_min8,
                                            upcast_out_nobool)

__all__ = ["ScalarOp", "Cast", "GradFn", "define_op", "register", "elemwise_function",
           "get_scalar_op", "all_scalar_ops", "always_complex", "compiled_scalar_ops", "op",
           "same_out", "upcast_out", "upcast_out_min8", "upcast_out_nobool", "same_out_nobool",
           "float_out", "true_div_out", "bool_out", "discrete_or_bool_out", "real_out",
           "unary_grad", "binary_grad"]


# -- the basic rows ------------------------------------------------------------------------
# Gradients are written with tensor ops, imported when a gradient is built (the table itself
# imports no graph module).

def _T():
    from jitgraph.tensor.elementwise import math

    return math


def _add_grad(inputs, output, gz):
    return [gz if has_gradient(output) else None for _ in inputs]


def _mul_grad(inputs, output, gz):
    T = _T()
    if not has_gradient(output):
        return [None] * len(inputs)
    grads = []
    for k, x in enumerate(inputs):
        others = [inputs[j] for j in range(len(inputs)) if j != k]
        if any(dt.is_complex(o.dtype) for o in others + [gz]):
            grads.append(_complex_mul_grad(x, others, gz))
        else:
            grads.append(T.mul(gz, *others) if others else gz)
    return grads


def _complex_mul_grad(x, others, gz):
    # dC/dx = dC/dRe + i dC/dIm is gz times the conjugate of the other factors; a real ``x``
    # keeps the real part (the derivative along the real axis).
    from jitgraph.tensor.elementwise.complex_math import conj, real

    g = _T().mul(gz, conj(_T().mul(*others))) if others else gz
    return g if dt.is_complex(x.dtype) or not dt.is_complex(g.dtype) else real(g)


def _mul_without_zeros(x, y):
    return np.where(x == 0, y, np.where(y == 0, x, x * y))


def _in_range(open_low: bool, open_high: bool) -> Callable:
    def impl(x, low, high):
        above = x > low if open_low else x >= low
        below = x < high if open_high else x <= high
        return np.logical_and(above, below)
    return impl


def _in_range_expr(open_low: bool, open_high: bool) -> Callable:
    def expr(x, low, high):
        return ((x > low) if open_low else (x >= low)) & ((x < high) if open_high
                                                           else (x <= high))
    return expr


def _in_range_grad(inputs, output, gz):
    # Theano's choice: zero everywhere, the bounds included (where the step is not smooth),
    # in floatX for integer inputs
    from jitgraph.config import config

    T = _T()
    return [T.second(v, T.constant(np.zeros((), config.floatX if dt.is_discrete(v.dtype)
                                            else v.dtype))) for v in inputs]


# Theano's InRange(open_low, open_high): whether low < x < high, each bound open or closed
IN_RANGE_ROWS = {(True, True): "inopenrange", (False, False): "inclosedrange",
                 (True, False): "inrange_open_low", (False, True): "inrange_open_high"}


def _switch_grad(inputs, output, gz):
    T = _T()
    cond, a, b = inputs
    if not has_gradient(output):
        return [None] * 3
    zero = T.zeros_like_scalar(gz)
    return [None, T.switch(cond, gz, zero), T.switch(cond, zero, gz)]


def _clip(x, lo, hi):
    # Theano's order of the two tests: below lo gives lo, else at most hi (lo > hi gives lo
    # below lo and hi elsewhere, where numpy.clip gives hi everywhere)
    return np.where(x < lo, lo, np.minimum(x, hi))


def _clip_grad(inputs, output, gz):
    T = _T()
    x, lo, hi = inputs
    if not has_gradient(output):
        return [None] * 3
    zero = T.zeros_like_scalar(gz)
    inside = T.and_(T.ge(x, lo), T.le(x, hi))
    return [T.switch(inside, gz, zero), T.switch(T.lt(x, lo), gz, zero),
            T.switch(T.gt(x, hi), gz, zero)]


def _abs_grad(x, out, gz):
    T = _T()
    if not dt.is_complex(x.dtype):
        return gz * T.sgn(x)
    # d|z| = Re(conj(z/|z|) dz): the gradient is z/|z| (0 at z = 0, where |z| has none)
    return gz * x / T.switch(T.eq(x, 0), T.ones_like_scalar(out), out)


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
    if x.dtype.kind == "c":  # erf is entire: SciPy's complex erf, as Theano's
        from scipy import special

        return special.erf(x).astype(x.dtype)
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


def _rounded(fn: Callable) -> Callable:
    """A rounding function's expression: ``fn`` of floats; integers are already whole."""
    return lambda x: fn(x) if E.is_float(x.dtype) else x


def _sign_expr(x):
    if x.dtype == "bool":
        raise E.Unsupported("sign of booleans (NumPy refuses it)")
    if E.is_float(x.dtype):
        return E.where(x > 0, 1, E.where(x < 0, -1, x))
    if E.is_unsigned(x.dtype):
        return E.cast(x > 0, x.dtype)
    return E.cast(x > 0, x.dtype) - E.cast(x < 0, x.dtype)


def _round_away_expr(x):
    # The reference formula, in the output precision: sign(x) * floor(|x| + 0.5).
    return _sign_expr(x) * E.floor(abs(x) + 0.5) if E.is_float(x.dtype) else x


def _sigmoid_expr(x):
    e = E.exp(-abs(x))  # exp(-|x|) never overflows
    return E.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus_expr(x):
    return E.where(x > 0, x, 0) + E.log1p(E.exp(-abs(x)))


def _build_table() -> None:
    T = _T  # gradient bodies call T() lazily
    u = unary_grad
    entries = [
        # name, nin, NumPy reference, dtype rule, gradient, expression, extra
        ("identity", 1, _identity, same_out, u(lambda x, o, g: g), unchanged, {}),
        ("neg", 1, np.negative, same_out_nobool, u(lambda x, o, g: -g), lambda x: -x, {}),
        ("abs", 1, np.abs, real_out, u(_abs_grad), abs,
         {"cast_inputs": "none"}),
        ("sgn", 1, _sgn, real_only(same_out_nobool), None, _sign_expr, {"differentiable": False}),
        ("exp", 1, np.exp, float_out, u(lambda x, o, g: g * o), E.exp, {}),
        ("exp2", 1, np.exp2, float_out,
         u(lambda x, o, g: g * o * T().const_like(np.log(2.0), o)), E.exp2, {}),
        ("expm1", 1, np.expm1, float_out, u(lambda x, o, g: g * (o + 1)), E.expm1, {}),
        ("log", 1, np.log, float_out, u(lambda x, o, g: g / x), E.log, {}),
        ("log2", 1, np.log2, float_out,
         u(lambda x, o, g: g / (x * T().const_like(np.log(2.0), o))), E.log2, {}),
        ("log10", 1, np.log10, float_out,
         u(lambda x, o, g: g / (x * T().const_like(np.log(10.0), o))), E.log10, {}),
        ("log1p", 1, np.log1p, float_out, u(lambda x, o, g: g / (1 + x)), E.log1p, {}),
        ("sqrt", 1, np.sqrt, float_out, u(lambda x, o, g: g / (2 * o)), E.sqrt, {}),
        ("sqr", 1, _square, upcast_out, u(lambda x, o, g: g * 2 * x),
         lambda x: x * x, {}),
        ("reciprocal", 1, np.reciprocal, float_out, u(lambda x, o, g: -g * o * o),
         lambda x: 1 / x, {}),
        ("sin", 1, np.sin, float_out, u(lambda x, o, g: g * T().cos(x)), E.sin, {}),
        ("cos", 1, np.cos, float_out, u(lambda x, o, g: -g * T().sin(x)), E.cos, {}),
        ("tan", 1, np.tan, float_out, u(lambda x, o, g: g * (1 + o * o)), E.tan, {}),
        ("arcsin", 1, np.arcsin, float_out,
         u(lambda x, o, g: g / T().sqrt(1 - T().sqr(x))), E.asin, {}),
        ("arccos", 1, np.arccos, float_out,
         u(lambda x, o, g: -g / T().sqrt(1 - T().sqr(x))), E.acos, {}),
        ("arctan", 1, np.arctan, float_out, u(lambda x, o, g: g / (1 + T().sqr(x))), E.atan,
         {}),
        ("sinh", 1, np.sinh, float_out, u(lambda x, o, g: g * T().cosh(x)), E.sinh, {}),
        ("cosh", 1, np.cosh, float_out, u(lambda x, o, g: g * T().sinh(x)), E.cosh, {}),
        ("tanh", 1, np.tanh, float_out, u(lambda x, o, g: g * (1 - o * o)), E.tanh, {}),
        ("arcsinh", 1, np.arcsinh, float_out,
         u(lambda x, o, g: g / T().sqrt(T().sqr(x) + 1)), E.asinh, {}),
        ("arccosh", 1, np.arccosh, float_out,
         u(lambda x, o, g: g / T().sqrt(T().sqr(x) - 1)), E.acosh, {}),
        ("arctanh", 1, np.arctanh, float_out, u(lambda x, o, g: g / (1 - T().sqr(x))),
         E.atanh, {}),
        ("floor", 1, np.floor, real_only(float_out), _zero_grad, _rounded(E.floor), {}),
        ("ceil", 1, np.ceil, real_only(float_out), _zero_grad, _rounded(E.ceil), {}),
        ("round_half_to_even", 1, _round_half_even, real_only(same_out), _zero_grad,
         _rounded(E.rint), {}),
        ("round_half_away_from_zero", 1, _round_half_away, real_only(same_out), _zero_grad,
         _round_away_expr, {}),
        ("trunc", 1, np.trunc, real_only(float_out), _zero_grad, _rounded(E.trunc), {}),
        ("erf", 1, _erf_impl, float_out,
         u(lambda x, o, g: g * T().const_like(2.0 / _SQRT_PI, o) * T().exp(-T().sqr(x))),
         E.erf, {}),
        ("erfc", 1, _erfc_impl, real_only(float_out),
         u(lambda x, o, g: -g * T().const_like(2.0 / _SQRT_PI, o) * T().exp(-T().sqr(x))),
         E.erfc, {}),
        ("sigmoid", 1, _sigmoid_impl, float_out, u(lambda x, o, g: g * o * (1 - o)),
         _sigmoid_expr, {}),
        ("softplus", 1, _softplus_impl, float_out, u(lambda x, o, g: g * T().sigmoid(x)),
         _softplus_expr, {}),
        ("isnan", 1, np.isnan, bool_out, None, E.isnan,
         {"differentiable": False, "cast_inputs": "none"}),
        ("isinf", 1, np.isinf, bool_out, None, E.isinf,
         {"differentiable": False, "cast_inputs": "none"}),
        ("invert", 1, np.invert, discrete_or_bool_out, None, lambda x: ~x,
         {"differentiable": False}),
        # binary and n-ary
        ("add", -1, _nary_add, upcast_out, _add_grad, E.add,
         {"commutative": True, "associative": True, "identity": 0}),
        ("mul", -1, _nary_mul, upcast_out, _mul_grad, E.mul,
         {"commutative": True, "associative": True, "identity": 1}),
        # Theano's fold for ProdWithoutZeros: a zero factor is skipped (its output is the
        # other factor), so a product over values with some zeros multiplies the others
        ("mul_without_zeros", 2, _mul_without_zeros, upcast_out, None,
         lambda x, y: E.where(x == 0, y, E.where(y == 0, x, x * y)),
         {"commutative": True, "associative": True}),
        ("sub", 2, np.subtract, upcast_out_nobool, binary_grad(lambda x, y, o, g: (g, -g)),
         lambda x, y: x - y, {}),
        ("true_div", 2, np.true_divide, true_div_out,
         binary_grad(lambda x, y, o, g: (g / y, -g * o / y)), lambda x, y: x / y, {}),
        ("int_div", 2, _int_div_impl, upcast_out, _zero_grad, lambda x, y: x // y, {}),
        ("mod", 2, np.mod, upcast_out,
         binary_grad(lambda x, y, o, g: (g, -g * T().int_div(x, y))), lambda x, y: x % y, {}),
        ("pow", 2, np.power, upcast_out_min8, binary_grad(_pow_grad), lambda x, y: x ** y, {}),
        ("maximum", 2, np.maximum, upcast_out, binary_grad(_maxmin_grad), E.maximum,
         {"commutative": True, "associative": True, "identity": -np.inf}),
        ("minimum", 2, np.minimum, upcast_out, binary_grad(_maxmin_grad), E.minimum,
         {"commutative": True, "associative": True, "identity": np.inf}),
        ("arctan2", 2, np.arctan2, float_out,
         binary_grad(lambda y, x, o, g: (g * x / (T().sqr(x) + T().sqr(y)),
                                     -g * y / (T().sqr(x) + T().sqr(y)))), E.atan2, {}),
        ("eq", 2, np.equal, bool_out, None, lambda x, y: x == y,
         {"cast_inputs": "none", "differentiable": False, "commutative": True}),
        ("neq", 2, np.not_equal, bool_out, None, lambda x, y: x != y,
         {"cast_inputs": "none", "differentiable": False, "commutative": True}),
        ("lt", 2, np.less, bool_out, None, lambda x, y: x < y,
         {"cast_inputs": "none", "differentiable": False}),
        ("le", 2, np.less_equal, bool_out, None, lambda x, y: x <= y,
         {"cast_inputs": "none", "differentiable": False}),
        ("gt", 2, np.greater, bool_out, None, lambda x, y: x > y,
         {"cast_inputs": "none", "differentiable": False}),
        ("ge", 2, np.greater_equal, bool_out, None, lambda x, y: x >= y,
         {"cast_inputs": "none", "differentiable": False}),
        *[(name, 3, _in_range(*bounds), bool_out, _in_range_grad, _in_range_expr(*bounds),
           {"cast_inputs": "none"}) for bounds, name in IN_RANGE_ROWS.items()],
        ("and_", 2, np.bitwise_and, discrete_or_bool_out, None, lambda x, y: x & y,
         {"differentiable": False, "commutative": True, "associative": True, "identity": True}),
        ("or_", 2, np.bitwise_or, discrete_or_bool_out, None, lambda x, y: x | y,
         {"differentiable": False, "commutative": True, "associative": True, "identity": False}),
        ("xor", 2, np.bitwise_xor, discrete_or_bool_out, None, lambda x, y: x ^ y,
         {"differentiable": False, "commutative": True, "associative": True}),
        ("second", 2, _second, lambda a, b: b, lambda i, o, g: [None, g], lambda a, b: b,
         {"cast_inputs": (False, True), "shape_only_inputs": (0,)}),
        ("switch", 3, np.where, lambda c, a, b: dt.upcast(a, b), _switch_grad, E.where,
         {"cast_inputs": (False, True, True)}),
        ("clip", 3, _clip, real_only(upcast_out), _clip_grad,
         lambda x, lo, hi: E.where(x < lo, lo, E.minimum(x, hi)), {}),
    ]
    for name, nin, impl, rule, grad, expr, extra in entries:
        if name in _HOLOMORPHIC:
            grad = _holomorphic(grad)
        define_op(name, nin, impl, rule, grad, expr, complex_expr=name in _COMPLEX_ROWS,
                  **extra)


def _holomorphic(grad: GradFn) -> GradFn:
    """``grad`` (written for real numbers) made right for complex inputs too. For a function
    with real Taylor coefficients (exp, log, ...), the gradient of a real cost C is
    dC/dz = dC/dRe + i dC/dIm = gz conj(f'(z)) = gz f'(conj z): the rule applied to the
    conjugated inputs and output. A real input keeps the real part of its gradient."""

    def rule(inputs, output, gz):
        if not any(dt.is_complex(i.dtype) for i in inputs):
            return grad(inputs, output, gz)
        from jitgraph.tensor.elementwise.complex_math import conj, real

        grads = grad([conj(i) if dt.is_complex(i.dtype) else i for i in inputs], conj(output),
                     gz)
        return [g if g is None or dt.is_complex(i.dtype) or not dt.is_complex(g.dtype)
                else real(g) for i, g in zip(inputs, grads)]

    return rule


#: the rows above whose gradient rule is :func:`_holomorphic`
_HOLOMORPHIC = frozenset({"exp", "log", "sqrt", "sqr", "sin", "cos", "tanh", "true_div", "pow",
                          "erf"})


#: the rows above whose expression computes complex values as NumPy does (``complex_expr``)
_COMPLEX_ROWS = frozenset({
    "identity", "neg", "abs", "exp", "log", "sqrt", "sqr", "sin", "cos", "tanh", "isnan",
    "isinf", "add", "mul", "sub", "true_div", "pow", "eq", "neq", "second", "switch"})


def _nary_add(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = np.add(out, x)
    return out


def _square(x):
    # NumPy squares bools into int8; Theano's sqr of a bool is the bool itself
    return x.copy() if getattr(x, "dtype", None) == np.bool_ else np.square(x)


def _nary_mul(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = np.multiply(out, x)
    return out


_build_table()


def op(name: str) -> ScalarOp:
    """The registered scalar op called ``name``."""
    return get_scalar_op((name,))
