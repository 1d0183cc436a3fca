"""The special functions of ``theano.tensor`` (``erfinv``, ...): one row of the scalar-op table
each (:mod:`jitgraph.tensor.elementwise.scalar_ops` explains a row) and its tensor function.

Their computations are helper functions of restricted Python in
:mod:`jitgraph.scalar_expr.special_math` (Bessel functions: :mod:`~jitgraph.scalar_expr.bessel`,
incomplete gamma: :mod:`~jitgraph.scalar_expr.incomplete_gamma`), which the NumPy references
call per element and both compiled backends render (:mod:`jitgraph.scalar_expr`).
"""

from __future__ import annotations

import math

import numpy as np

from jitgraph.scalar_expr import bessel as BES
from jitgraph.scalar_expr import expr as E
from jitgraph.scalar_expr import incomplete_gamma as IG
from jitgraph.scalar_expr import special_math as SM
from jitgraph.tensor.core.gradient import grad_not_implemented
from jitgraph.tensor.elementwise import math as tensor_math
from jitgraph.tensor.elementwise.scalar_ops import (define_op, float_out, real_only,
                                                    unary_grad)


def _T():
    return tensor_math


def reference(helper):
    """The NumPy reference of a row computing ``helper`` per element (in float64)."""
    return np.vectorize(helper, otypes=[np.float64])


erfinv = tensor_math.elemwise_of(define_op(
    "erfinv", 1, reference(SM.erfinv), float_out,
    unary_grad(lambda x, out, gz: gz * _T().const_like(0.5 * math.sqrt(math.pi), out)
               * _T().exp(_T().sqr(out))),
    lambda x: E.call(SM.erfinv, x),
    theano_class="Erfinv", doc="inverse error function (erf(erfinv(x)) = x on [-1, 1])"))

# -- rows of the Theano special functions beyond erfinv (helpers in special_math) ----------

#: float_out, refusing complex inputs (these functions are real-valued here)
_real_float_out = real_only(float_out)


def _float64_out(*dtypes: str) -> str:
    _real_float_out(*dtypes)
    return "float64"


def _special(name, nin, helper, grad, theano_class, doc, dtype=_real_float_out):
    """The row of a special function computing ``helper`` per element (no ``cast_inputs``
    surprise: inputs arrive in the output dtype, the helper computes in float64)."""
    return tensor_math.elemwise_of(define_op(
        name, nin, reference(helper), dtype, grad, lambda *xs: E.call(helper, *xs),
        theano_class=theano_class, doc=doc))


def _order_not_implemented(what):
    def grad(inputs, output, gz):
        v, x = inputs
        gx = None if x.dtype.startswith(("int", "uint", "bool")) else what(v, x, gz)
        return [grad_not_implemented(what.__name__, 0, v, "(the derivative with respect to "
                                     "the order)"), gx]

    return grad


def _jv_x(v, x, gz):
    return gz * (jv(v - 1, x) - jv(v + 1, x)) * _T().const_like(0.5, gz)


def _iv_x(v, x, gz):
    return gz * (iv(v - 1, x) + iv(v + 1, x)) * _T().const_like(0.5, gz)


_jv_x.__name__, _iv_x.__name__ = "jv", "iv"

gamma = _special("gamma", 1, SM.gamma, unary_grad(lambda x, out, gz: gz * out * psi(x)),
                 "Gamma", "gamma function")
gammaln = _special("gammaln", 1, SM.gammaln, unary_grad(lambda x, out, gz: gz * psi(x)),
                   "GammaLn", "log |gamma(x)|")
psi = _special("psi", 1, SM.digamma, unary_grad(lambda x, out, gz: gz * tri_gamma(x)),
               "Psi", "digamma function, the derivative of gammaln")
tri_gamma = _special("tri_gamma", 1, SM.trigamma, None, "TriGamma",
                     "trigamma function, the derivative of psi (Theano has no gradient)")
erfcinv = _special("erfcinv", 1, SM.erfcinv, unary_grad(
    lambda x, out, gz: -gz * _T().const_like(0.5 * math.sqrt(math.pi), out)
    * _T().exp(_T().sqr(out))), "Erfcinv", "inverse complementary error function on [0, 2]")
erfcx = _special("erfcx", 1, SM.erfcx, unary_grad(
    lambda x, out, gz: gz * (2 * x * out - _T().const_like(2 / math.sqrt(math.pi), out))),
    "Erfcx", "scaled complementary error function exp(x**2) * erfc(x)")
i0 = _special("i0", 1, BES.i0, unary_grad(lambda x, out, gz: gz * i1(x)), "I0",
              "modified Bessel function of the first kind of order 0")
i1 = _special("i1", 1, BES.i1, unary_grad(
    lambda x, out, gz: gz * (i0(x) + iv(2, x)) * _T().const_like(0.5, out)), "I1",
    "modified Bessel function of the first kind of order 1")
j0 = _special("j0", 1, BES.j0, unary_grad(lambda x, out, gz: -gz * j1(x)), "J0",
              "Bessel function of the first kind of order 0")
j1 = _special("j1", 1, BES.j1, unary_grad(
    lambda x, out, gz: gz * (j0(x) - jv(2, x)) * _T().const_like(0.5, out)), "J1",
    "Bessel function of the first kind of order 1")
jv = _special("jv", 2, BES.jv, _order_not_implemented(_jv_x), "Jv",
              "jv(v, x): Bessel function of the first kind of real order v")
iv = _special("iv", 2, BES.iv, _order_not_implemented(_iv_x), "Iv",
              "iv(v, x): modified Bessel function of the first kind of real order v")
gammainc = _special("gammainc", 2, IG.gammainc, None, "GammaInc",
                    "gammainc(k, x): regularized lower incomplete gamma function P(k, x)")
gammaincc = _special("gammaincc", 2, IG.gammaincc, None, "GammaIncC",
                     "gammaincc(k, x): regularized upper incomplete gamma function Q(k, x)")
gammau = _special("gammau", 2, IG.gammau, None, "GammaU",
                  "gammau(k, x): upper incomplete gamma function gamma(k) * Q(k, x)")
gammal = _special("gammal", 2, IG.gammal, None, "GammaL",
                  "gammal(k, x): lower incomplete gamma function gamma(k) * P(k, x)")
chi2sf = _special("chi2sf", 2, IG.chi2sf, None, "Chi2SF",
                  "chi2sf(x, k): survival function of the chi-squared distribution with k "
                  "degrees of freedom (float64 output, as Theano)", dtype=_float64_out)

__all__ = ["erfinv", "gamma", "gammaln", "psi", "tri_gamma", "erfcinv", "erfcx", "i0", "i1",
           "j0", "j1", "jv", "iv", "gammainc", "gammaincc", "gammau", "gammal", "chi2sf"]
