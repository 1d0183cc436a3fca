"""Complex scalar functions that generated CPU kernels import by name (complex128 in and out).

NumPy computes complex ``/`` and ``**`` with its own algorithms and the complex functions with
the C library's (``cexp``, ``clog``, ...), which follow C99's Annex G for infinities, NaNs and
signed zeros. Numba's own complex operators differ (its division raises on a zero divisor, its
``cmath.log`` loses the real part near ``|z| = 1``), so the kernels call these instead: the
same special values as NumPy, finite values within a few ulp of it (measured norm-wise, as
complex functions are). complex64 values are computed here in double precision and rounded.

This module imports Numba: only generated kernel modules (which import it anyway) import it.
"""

from __future__ import annotations

import math

import numba

_jit = numba.njit(nogil=True, error_model="numpy", cache=False)

#: ``exp(x)`` overflows above this; :func:`jgc_exp` and friends then scale by halves
_EXP_MAX = 709.0
_HUGE = 2.0 ** 1000
_TINY = 2.0 ** -1000


@_jit
def jgc_div(a, b):  # noqa: ANN001, ANN201 - Numba function
    """``a / b`` as NumPy's complex division (Smith's method; a zero divisor gives the
    quotients of the parts by zero)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    abr, abi = abs(br), abs(bi)
    if abr >= abi:
        if abr == 0.0 and abi == 0.0:
            return complex(ar / abr, ai / abr)
        rat = bi / br
        scl = 1.0 / (br + bi * rat)
        return complex((ar + ai * rat) * scl, (ai - ar * rat) * scl)
    rat = br / bi
    scl = 1.0 / (bi + br * rat)  # NaN parts land here too, as in NumPy
    return complex((ar * rat + ai) * scl, (ai * rat - ar) * scl)


@_jit
def jgc_exp(z):  # noqa: ANN001, ANN201 - Numba function
    """``cexp``: e^x (cos y + i sin y), with Annex G's special values."""
    x, y = z.real, z.imag
    if math.isfinite(x):
        if not math.isfinite(y):
            return complex(math.nan, math.nan)
        if y == 0.0:
            return complex(math.exp(x), y)
        c, s = math.cos(y), math.sin(y)
        if x > _EXP_MAX:  # e^x overflows where e^x cos y may not
            h = math.exp(0.5 * x)
            return complex(c * h * h, s * h * h)
        e = math.exp(x)
        return complex(e * c, e * s)
    if math.isnan(x):
        return complex(x, y) if y == 0.0 else complex(math.nan, math.nan)
    if math.isfinite(y):  # x is +-inf: +-0 or inf in the direction of y
        mag = math.inf if x > 0.0 else 0.0
        if y == 0.0:
            return complex(mag, y)
        return complex(math.copysign(mag, math.cos(y)), math.copysign(mag, math.sin(y)))
    if x < 0.0:
        return complex(0.0, math.copysign(0.0, y))
    return complex(math.inf, y - y)


@_jit
def jgc_log(z):  # noqa: ANN001, ANN201 - Numba function
    """``clog``: log|z| + i arg z; log1p of |z|^2 - 1 near the unit circle, where log|z|
    would lose the real part."""
    x, y = z.real, z.imag
    ax, ay = abs(x), abs(y)
    big, small = max(ax, ay), min(ax, ay)
    h = math.hypot(x, y)
    if 0.71 <= h <= 1.73:
        re = 0.5 * math.log1p((big - 1.0) * (big + 1.0) + small * small)
    elif math.isinf(h) and math.isfinite(big):  # |z| overflows, its logarithm does not
        re = math.log(math.hypot(0.5 * x, 0.5 * y)) + math.log(2.0)
    else:
        re = math.log(h)
    return complex(re, math.atan2(y, x))


@_jit
def jgc_sqrt(z):  # noqa: ANN001, ANN201 - Numba function
    """``csqrt``: the root with a non-negative real part, Annex G's special values."""
    x, y = z.real, z.imag
    if math.isinf(y):
        return complex(math.inf, y)
    if math.isnan(x):
        return complex(x, x + y)
    if math.isinf(x):
        if x > 0.0:
            return complex(x, math.copysign(0.0, y) if y == y else y)
        return complex(abs(y - y), math.copysign(math.inf, y))
    if math.isnan(y):
        return complex(y, y)
    if x == 0.0 and y == 0.0:
        return complex(0.0, y)
    ax, ay = abs(x), abs(y)
    scale = 1.0
    if ax > _HUGE or ay > _HUGE:  # |x| + |z| would overflow
        x, y, ax, ay, scale = 0.25 * x, 0.25 * y, 0.25 * ax, 0.25 * ay, 2.0
    elif ax < _TINY and ay < _TINY:  # and here lose bits to subnormals
        k = 2.0 ** 600
        x, y, ax, ay, scale = k * x, k * y, k * ax, k * ay, 2.0 ** -300
    t = math.sqrt(0.5 * (ax + math.hypot(ax, ay)))
    if x >= 0.0:
        return complex(scale * t, scale * (y / (2.0 * t)))
    return complex(scale * (ay / (2.0 * t)), scale * math.copysign(t, y))


@_jit
def _sinh_cosh(x):  # noqa: ANN001, ANN201 - Numba function
    """(sinh x, cosh x, scale): both times ``scale`` (1, or e^-(|x|/2) where they overflow)."""
    if abs(x) > _EXP_MAX:
        h = math.exp(0.5 * abs(x))  # sinh, cosh ~ e^|x| / 2 = (h/2) h
        return math.copysign(0.5 * h, x), 0.5 * h, h
    return math.sinh(x), math.cosh(x), 1.0


@_jit
def _csinh(x, y):  # noqa: ANN001, ANN201 - Numba function
    """sinh(x + iy) = sinh x cos y + i cosh x sin y, Annex G's special values."""
    if math.isfinite(x) and math.isfinite(y):
        if y == 0.0:
            return complex(math.sinh(x), y)
        if x == 0.0:
            return complex(x * math.cos(y), math.sin(y))
        sh, ch, h = _sinh_cosh(x)
        return complex(sh * math.cos(y) * h, ch * math.sin(y) * h)
    if x == 0.0:  # y is inf or NaN
        return complex(x, y - y)
    if math.isinf(x):
        if y == 0.0:
            return complex(x, y)
        if math.isfinite(y):
            return complex(x * math.cos(y), math.inf * math.sin(y))
        return complex(x, y - y)
    if y == 0.0:  # x is NaN
        return complex(x, y)
    return complex(math.nan, math.nan)


@_jit
def _ccosh(x, y):  # noqa: ANN001, ANN201 - Numba function
    """cosh(x + iy) = cosh x cos y + i sinh x sin y, Annex G's special values."""
    if math.isfinite(x) and math.isfinite(y):
        if y == 0.0:
            return complex(math.cosh(x), y * math.copysign(1.0, x))
        if x == 0.0:
            return complex(math.cos(y), x * math.sin(y))
        sh, ch, h = _sinh_cosh(x)
        return complex(ch * math.cos(y) * h, sh * math.sin(y) * h)
    if x == 0.0:  # y is inf or NaN
        return complex(y - y, 0.0)
    if math.isinf(x):
        if y == 0.0:
            return complex(math.inf, y * math.copysign(1.0, x))
        if math.isfinite(y):
            return complex(math.inf * math.cos(y), x * math.sin(y))
        return complex(math.inf, y - y)
    if y == 0.0:  # x is NaN
        return complex(x, y)
    return complex(math.nan, math.nan)


@_jit
def jgc_sin(z):  # noqa: ANN001, ANN201 - Numba function
    """``csin``: sin z = -i sinh(iz)."""
    if math.isinf(z.imag) and not math.isfinite(z.real):
        return complex(math.nan, math.inf)  # the sign of the infinity is not defined: NumPy's
    w = _csinh(-z.imag, z.real)
    return complex(w.imag, -w.real)


@_jit
def jgc_cos(z):  # noqa: ANN001, ANN201 - Numba function
    """``ccos``: cos z = cosh(iz)."""
    return _ccosh(-z.imag, z.real)


@_jit
def jgc_tanh(z):  # noqa: ANN001, ANN201 - Numba function
    """``ctanh``: (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y), Annex G's special
    values; for large |x| the real part is +-1 and the imaginary one 4 sin y cos y e^-2|x|."""
    x, y = z.real, z.imag
    if math.isfinite(x) and math.isfinite(y):
        if y == 0.0:
            return complex(math.tanh(x), y)
        s, c = math.sin(y), math.cos(y)
        if abs(x) > 22.0:  # tanh x is +-1 to double precision; e^-2|x| may underflow
            e = math.exp(-abs(x))
            return complex(math.copysign(1.0, x), 4.0 * s * c * e * e)
        sh, ch = math.sinh(x), math.cosh(x)
        den = sh * sh + c * c
        return complex(sh * ch / den, s * c / den)
    if math.isinf(x):
        if math.isfinite(y):
            return complex(math.copysign(1.0, x), math.copysign(0.0, math.sin(2.0 * y)))
        return complex(math.copysign(1.0, x), math.copysign(0.0, y))
    if x == 0.0:  # y is inf or NaN
        return complex(x, y - y)
    if y == 0.0:  # x is NaN
        return complex(x, y)
    return complex(math.nan, math.nan)


@_jit
def _cmul(a, b):  # noqa: ANN001, ANN201 - Numba function
    return complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


@_jit
def _cmul_c99(a, b):  # noqa: ANN001, ANN201 - Numba function
    """``a * b`` as C99 multiplies complex numbers (Annex G): an infinite factor gives an
    infinite product even where the plain formula gives NaN + NaN i (``inf * 0``)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    ac, bd, ad, bc = ar * br, ai * bi, ar * bi, ai * br
    re, im = ac - bd, ad + bc
    if not (math.isnan(re) and math.isnan(im)):
        return complex(re, im)
    again = False
    if math.isinf(ar) or math.isinf(ai):
        ar = math.copysign(1.0 if math.isinf(ar) else 0.0, ar)
        ai = math.copysign(1.0 if math.isinf(ai) else 0.0, ai)
        br = math.copysign(0.0, br) if math.isnan(br) else br
        bi = math.copysign(0.0, bi) if math.isnan(bi) else bi
        again = True
    if math.isinf(br) or math.isinf(bi):
        br = math.copysign(1.0 if math.isinf(br) else 0.0, br)
        bi = math.copysign(1.0 if math.isinf(bi) else 0.0, bi)
        ar = math.copysign(0.0, ar) if math.isnan(ar) else ar
        ai = math.copysign(0.0, ai) if math.isnan(ai) else ai
        again = True
    if not again and (math.isinf(ac) or math.isinf(bd) or math.isinf(ad) or math.isinf(bc)):
        ar = math.copysign(0.0, ar) if math.isnan(ar) else ar  # an overflow, not a NaN input
        ai = math.copysign(0.0, ai) if math.isnan(ai) else ai
        br = math.copysign(0.0, br) if math.isnan(br) else br
        bi = math.copysign(0.0, bi) if math.isnan(bi) else bi
        again = True
    if again:
        return complex(math.inf * (ar * br - ai * bi), math.inf * (ar * bi + ai * br))
    return complex(re, im)


@_jit
def jgc_pow(a, b):  # noqa: ANN001, ANN201 - Numba function
    """``a ** b`` as NumPy's complex power: 1 for a zero exponent, 0 or NaN for a zero base,
    repeated multiplication for whole exponents below 100 in magnitude, else
    exp(b log a)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    if br == 0.0 and bi == 0.0:
        return complex(1.0, 0.0)
    if ar == 0.0 and ai == 0.0:
        if br > 0.0:
            return complex(0.0, 0.0)
        return complex(math.nan, math.nan)
    if bi == 0.0 and -100.0 < br < 100.0 and br == math.floor(br):
        n = int(br)
        if n == 1:
            return a
        if n == 2:
            return _cmul(a, a)
        if n == 3:
            return _cmul(a, _cmul(a, a))
        m = -n if n < 0 else n
        acc = complex(1.0, 0.0)
        p = a
        while True:
            if m & 1:
                acc = _cmul(acc, p)
            m >>= 1
            if m == 0:
                break
            p = _cmul(p, p)
        return jgc_div(complex(1.0, 0.0), acc) if n < 0 else acc
    return jgc_exp(_cmul_c99(b, jgc_log(a)))

