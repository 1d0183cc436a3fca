"""The regularized incomplete gamma functions (``gammainc``, ``gammaincc``), Theano's
``gammal``/``gammau`` and the chi-squared survival function, as float64 scalar helpers that
every backend compiles.

Written by the rules of :mod:`jitgraph.scalar_expr.special_math` (a C-like subset of Python,
nothing may raise), whose gamma and log-gamma pieces they call. Algorithms: the power series
below ``x < a + 1``, the continued fraction (modified Lentz) above it, and a series in ``a`` for
small ``a``; special values follow ``scipy.special``.
"""

import math

from jitgraph.scalar_expr.special_math import (MAX_TERMS, exp_scaled, gamma, gammaln,
                                               lgamma_near_two, log1pmx, stirling_correction)


def igamma_prefactor(scale, a, x):
    """scale * x^a e^-x / gamma(a) for a > 0, x > 0. For large a its logarithm is written as
    a (log1p(d) - d) + log(a / (2 pi)) / 2 - stirling_correction(a), d = (x - a) / a, which
    keeps its accuracy where x^a and gamma(a) nearly cancel; for small a and moderate x it is
    computed directly (exp of a large logarithm would amplify its rounding error)."""
    if a >= 10.0:
        d = (x - a) / a
        ratio = x / a
        log_ratio = math.log(x) - math.log(a)
        if ratio > 1e-300:
            if ratio < 1e300:
                log_ratio = math.log(ratio)  # log1p(d) from x / a, which rounds less
        log_ratio_minus_d = log_ratio - d
        if math.fabs(d) < 0.3:
            log_ratio_minus_d = log1pmx(d)
        log_value = a * log_ratio_minus_d + 0.5 * math.log(a / (2.0 * math.pi)) \
            - stirling_correction(a)
        return exp_scaled(scale, log_value)
    log_value = a * math.log(x) - x - gammaln(a)
    if x < 600.0:
        if math.fabs(a * math.log(x)) < 600.0:
            # 1 / gamma(a) = a / gamma(1 + a) stays finite for tiny a
            return scale * math.pow(x, a) * math.exp(-x) * (a / gamma(a + 1.0))
    return exp_scaled(scale, log_value)


def igamma_series(a, x):
    """P(a, x) by its series x^a e^-x / gamma(a + 1) * sum x^n / ((a+1)...(a+n))."""
    term = 1.0
    total = 1.0
    converged = 0.0
    n = 1.0
    while n < MAX_TERMS:
        term = term * x / (a + n)
        total = total + term
        if term < 1e-17 * total:
            converged = 1.0
            n = MAX_TERMS
        n = n + 1.0
    if converged == 0.0:
        return math.nan
    return igamma_prefactor(total, a, x) / a


def igammac_fraction(a, x):
    """Q(a, x) by its continued fraction x^a e^-x / gamma(a) * 1/(x+1-a- 1(1-a)/(x+3-a- ...)),
    evaluated with the modified Lentz method."""
    tiny = 1e-300
    b = x + 1.0 - a
    if b == 0.0:  # x + 1 rounded to a
        b = tiny
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    converged = 0.0
    i = 1.0
    while i < MAX_TERMS:
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        if math.fabs(d) < tiny:
            d = tiny
        c = b + an / c
        if math.fabs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if math.fabs(delta - 1.0) < 1e-16:
            converged = 1.0
            i = MAX_TERMS
        i = i + 1.0
    if converged == 0.0:
        return math.nan
    return igamma_prefactor(h, a, x)


def gamma_1p_minus_1(a):
    """gamma(1 + a) - 1 for 0 <= a < 1, without cancellation near a = 0."""
    if a <= 0.5:
        return math.expm1(lgamma_near_two(a) - math.log1p(a))
    return math.expm1(lgamma_near_two(a - 1.0))


def igammac_small_a(a, x):
    """Q(a, x) for 0 < a < 1 and 0 < x < 2, where 1 - P(a, x) would cancel: with
    Gamma(a, x) = (gamma(1+a) - x^a) / a - x^a sum_(n>=1) (-x)^n / (n! (a + n)),
    Q = (gamma(1+a) - 1 - expm1(a log x) - a x^a sum) / gamma(1+a)."""
    term = 1.0
    total = 0.0
    n = 1.0
    while n < 200.0:
        term = -term * x / n
        step = term / (a + n)
        total = total + step
        if math.fabs(step) < 1e-17 * math.fabs(total):
            n = 200.0
        n = n + 1.0
    log_x = math.log(x)
    gm1 = gamma_1p_minus_1(a)
    return ((gm1 - math.expm1(a * log_x)) - a * math.exp(a * log_x) * total) / (1.0 + gm1)


def incomplete_gamma_edges(a, x):
    """P(a, x) where an argument is NaN, infinite, zero or negative; -1.0 elsewhere (P and
    Q = 1 - P then need a series or a continued fraction)."""
    if math.isnan(a):
        return a
    if math.isnan(x):
        return x
    if a < 0.0:
        return math.nan
    if x < 0.0:
        return math.nan
    if a == 0.0:
        if x > 0.0:
            return 1.0
        return math.nan
    if x == 0.0:
        return 0.0
    if math.isinf(a):
        if math.isinf(x):
            return math.nan
        return 0.0
    if math.isinf(x):
        return 1.0
    return -1.0


def gammainc(a, x):
    """Regularized lower incomplete gamma P(a, x) (SciPy's ``gammainc``)."""
    edge = incomplete_gamma_edges(a, x)
    if edge != -1.0:
        return edge
    if x < a + 1.0:
        return igamma_series(a, x)
    return 1.0 - igammac_fraction(a, x)


def gammaincc(a, x):
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x) (SciPy's ``gammaincc``)."""
    edge = incomplete_gamma_edges(a, x)
    if edge != -1.0:
        return 1.0 - edge
    if x < a + 1.0:
        if a < 1.0:
            return igammac_small_a(a, x)
        return 1.0 - igamma_series(a, x)
    return igammac_fraction(a, x)


def gammal(a, x):
    """Lower incomplete gamma gamma(a) P(a, x) (Theano's ``gammal``)."""
    return gamma(a) * gammainc(a, x)


def gammau(a, x):
    """Upper incomplete gamma gamma(a) Q(a, x) (Theano's ``gammau``)."""
    return gamma(a) * gammaincc(a, x)


def chi2sf(x, k):
    """Survival function of the chi-squared distribution with ``k`` degrees of freedom
    (SciPy's ``stats.chi2.sf``): Q(k/2, x/2); 1 for x < 0, NaN for k <= 0."""
    if math.isnan(x):
        return x
    if math.isnan(k):
        return k
    if k <= 0.0:
        return math.nan
    if x < 0.0:
        return 1.0
    return gammaincc(0.5 * k, 0.5 * x)
