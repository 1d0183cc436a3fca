"""Complex numbers in ``theano.tensor``: ``complex``, ``complex_from_polar``, ``real``, ``imag``,
``angle``, ``conj`` -- rows of the scalar-op table (:mod:`jitgraph.tensor.elementwise.scalar_ops`).

Every row has an expression for real and complex inputs (``complex_expr``): the CPU's elementwise
kernels compute complex64/complex128 values; the GPU ones compute the rows on real inputs and leave
complex nodes on the CPU. ``complex`` and ``complex_from_polar`` build their result part by part
(``complex(x, inf)`` has real part ``x``, where ``x + 1j * inf`` would give NaN), as Theano's
``numpy.complex(x, y)`` did. Output dtypes are Theano's: ``real``/``imag`` give the component's
float type, ``angle`` float64 always, ``conj`` of a boolean int8, ``complex(x, y)`` complex64 from
float32 parts and complex128 otherwise.

Gradients follow the convention for a real cost C of a complex value z: d C / d z is the complex
number dC/dRe(z) + i dC/dIm(z). (Theano 1.0 defines these gradients but its gradient checks
reject them, so no Theano program computes one; here they work.)
"""

from __future__ import annotations

import numpy as np

from jitgraph.scalar_expr import expr as E
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise import math as tensor_math
from jitgraph.tensor.elementwise.scalar_ops import define_op, float_out


def _T():
    return tensor_math


# -- output dtypes ---------------------------------------------------------------------------

def _component_out(dtype: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def _conj_out(dtype: str) -> str:
    return "int8" if dtype == "bool" else dtype


def _angle_out(dtype: str) -> str:
    return "float64"


def _complex_out(*dtypes: str) -> str:
    for d in dtypes:
        if dt.is_complex(d):
            raise TypeError(f"complex parts must be real, got a {d} input")
    return "complex64" if float_out(*dtypes) in ("float16", "float32") else "complex128"


# -- expressions -----------------------------------------------------------------------------

def _angle_expr(x: E.Expr) -> E.Expr:
    # atan2(imag, real) in double precision; of a real number atan2(0, x) (pi for negative
    # numbers and -0.0)
    if E.is_complex(x.dtype):
        z = E.cast(x, "complex128")
        return E.atan2(E.imag(z), E.real(z))
    return E.atan2(E.const(0.0, "float64"), E.cast(x, "float64"))


def _conj_expr(x: E.Expr) -> E.Expr:
    return E.cast(x, "int8") if x.dtype == "bool" else E.conj(x)


def _complex_expr(x: E.Expr, y: E.Expr) -> E.Expr:
    # the inputs arrive converted to the complex output dtype (exactly): their real parts are
    # the original values
    return E.make_complex(E.real(x), E.real(y))


def _polar_expr(r: E.Expr, theta: E.Expr) -> E.Expr:
    r, theta = E.real(r), E.real(theta)
    return E.make_complex(r * E.cos(theta), r * E.sin(theta))


# -- gradients -------------------------------------------------------------------------------

def _zero_grad_like(x, gz):
    return None if dt.is_discrete(x.dtype) else gz * 0


def _real_grad(inputs, output, gz):
    (z,) = inputs
    if dt.is_complex(z.dtype):
        return [complex(gz, gz * 0)]
    return [None if dt.is_discrete(z.dtype) else gz]


def _imag_grad(inputs, output, gz):
    (z,) = inputs
    if dt.is_complex(z.dtype):
        return [complex(gz * 0, gz)]
    return [_zero_grad_like(z, gz)]


def _conj_grad(inputs, output, gz):
    (z,) = inputs
    if dt.is_complex(z.dtype):
        return [conj(gz)]
    return [None if dt.is_discrete(z.dtype) else gz]


def _angle_grad(inputs, output, gz):
    (z,) = inputs
    if not dt.is_complex(z.dtype):
        return [_zero_grad_like(z, gz)]
    re, im = real(z), imag(z)
    scale = gz / (re * re + im * im)
    return [complex(-im * scale, re * scale)]


def _complex_grad(inputs, output, gz):
    x, y = inputs
    return [None if dt.is_discrete(x.dtype) else real(gz),
            None if dt.is_discrete(y.dtype) else imag(gz)]


def _polar_grad(inputs, output, gz):
    r, theta = inputs
    T = _T()
    c, s = T.cos(theta), T.sin(theta)
    g_re, g_im = real(gz), imag(gz)
    return [None if dt.is_discrete(r.dtype) else g_re * c + g_im * s,
            None if dt.is_discrete(theta.dtype) else r * (g_im * c - g_re * s)]


# -- NumPy references ------------------------------------------------------------------------

def _from_parts(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    re, im = np.broadcast_arrays(np.asarray(re), np.asarray(im))
    out = np.empty(re.shape, dtype=np.result_type(re.dtype, im.dtype, np.complex64))
    out.real = re
    out.imag = im
    return out


def _complex_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # the inputs arrive converted to the complex output dtype; part by part, not x + 1j * y
    return _from_parts(np.real(x), np.real(y))


def _polar_impl(r: np.ndarray, theta: np.ndarray) -> np.ndarray:
    r, theta = np.real(r), np.real(theta)
    return _from_parts(r * np.cos(theta), r * np.sin(theta))


def _angle_impl(z: np.ndarray) -> np.ndarray:
    # computed in double precision whatever the input (numpy.angle of float32 is float32)
    z = np.asarray(z)
    return np.angle(z.astype(np.complex128 if dt.is_complex(z.dtype.name) else np.float64))


def _copy_of(fn):
    return lambda x: np.array(fn(x), copy=True)


# -- the rows --------------------------------------------------------------------------------

real = tensor_math.elemwise_of(define_op(
    "real", 1, _copy_of(np.real), _component_out, _real_grad, E.real, cast_inputs="none",
    complex_expr=True, theano_class="Real", doc="real part (the input itself for real tensors)"))
imag = tensor_math.elemwise_of(define_op(
    "imag", 1, _copy_of(np.imag), _component_out, _imag_grad, E.imag, cast_inputs="none",
    complex_expr=True, theano_class="Imag", doc="imaginary part (zeros for real tensors)"))
angle = tensor_math.elemwise_of(define_op(
    "angle", 1, _angle_impl, _angle_out, _angle_grad, _angle_expr, cast_inputs="none",
    complex_expr=True, theano_class="Angle",
    doc="argument of a complex number in (-pi, pi], as float64"))
conj = tensor_math.elemwise_of(define_op(
    "conj", 1, np.conj, _conj_out, _conj_grad, _conj_expr, cast_inputs="none",
    complex_expr=True, theano_class="Conj",
    doc="complex conjugate (the input itself for real tensors)"))
complex = tensor_math.elemwise_of(define_op(  # noqa: A001 - Theano's name
    "complex", 2, _complex_impl, _complex_out, _complex_grad, _complex_expr,
    complex_expr=True, theano_class="Complex", doc="complex(x, y) = x + i y from real tensors"))
complex_from_polar = tensor_math.elemwise_of(define_op(
    "complex_from_polar", 2, _polar_impl, _complex_out, _polar_grad, _polar_expr,
    complex_expr=True, theano_class="ComplexFromPolar",
    doc="complex_from_polar(r, theta) = r (cos theta + i sin theta)"))

__all__ = ["complex", "complex_from_polar", "real", "imag", "angle", "conj"]
