"""Bessel functions of the first kind, of real order and argument (``iv``, ``i0``, ``i1``,
``jv``, ``j0``, ``j1``), as float64 scalar helpers that every backend compiles.

Written by the rules of :mod:`jitgraph.scalar_expr.special_math` (a C-like subset of Python,
nothing may raise), whose gamma function and scaled powers they call. Algorithms: power series,
the large-argument asymptotic (Hankel) expansions and Miller's backward recurrence; special
values follow ``scipy.special``.
"""

import math

from jitgraph.scalar_expr.special_math import (BIG, MAX_TERMS, SMALL, exp_scaled, gamma,
                                               is_integer, is_odd_integer,
                                               scaled_half_x_power_over_gamma)

# Miller's recurrence for J_v(x) runs about |v| + x steps: the largest |v| + x it is used for.
MILLER_LIMIT = 20000.0


def bessel_i_series(v, x):
    """I_v(x) for x > 0 by its power series sum (x/2)^(2k+v) / (k! gamma(k+v+1)), summed
    relative to the first term with rescaling so that no partial sum overflows."""
    quarter_x2 = 0.25 * x * x
    term = 1.0
    total = 1.0
    rescalings = 0.0
    converged = 0.0
    k = 1.0
    while k < MAX_TERMS:
        term = term * quarter_x2 / (k * (k + v))
        total = total + term
        if math.fabs(total) > BIG:
            total = total * SMALL
            term = term * SMALL
            rescalings = rescalings + 1.0
        if k + v > 0.0:
            if math.fabs(term) < 1e-17 * math.fabs(total):
                converged = 1.0
                k = MAX_TERMS
        k = k + 1.0
    if converged == 0.0:
        return math.nan
    return scaled_half_x_power_over_gamma(total, v, x, rescalings)


def bessel_i_asymptotic(v, x):
    """I_v(x) for large x: e^x / sqrt(2 pi x) * sum (-1)^k a_k(v) / x^k."""
    mu = 4.0 * v * v
    term = 1.0
    total = 1.0
    k = 1.0
    while k < 100.0:
        previous = math.fabs(term)
        term = -term * (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * x)
        if math.fabs(term) > previous:
            k = 100.0
        else:
            total = total + term
            if math.fabs(term) < 1e-17 * math.fabs(total):
                k = 100.0
        k = k + 1.0
    return exp_scaled(total / math.sqrt(2.0 * math.pi * x), x)


def bessel_i_nonnegative_x(v, x):
    """I_v(x) for x >= 0 finite and any real v (negative non-integer orders included)."""
    if x == 0.0:
        if v == 0.0:
            return 1.0
        if v > 0.0:
            return 0.0
        if is_integer(v) == 1.0:
            return 0.0
        return math.inf
    if is_integer(v) == 1.0:
        v = math.fabs(v)  # I_-n = I_n
    if x > 30.0:
        if x > 0.5 * v * v:
            return bessel_i_asymptotic(v, x)
    return bessel_i_series(v, x)


def reflection_sign(v):
    """F_v(-x) = sign * F_v(x) for the Bessel functions of order v: 1 for even integer orders,
    -1 for odd ones, NaN for other orders (the function is complex there)."""
    if is_integer(v) == 0.0:
        return math.nan
    if is_odd_integer(v) == 1.0:
        return -1.0
    return 1.0


def iv(v, x):
    """Modified Bessel function of the first kind of real order (SciPy's ``iv``)."""
    if math.isnan(v):
        return v
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.nan
    if math.isinf(v):
        return 0.0
    if x < 0.0:
        return reflection_sign(v) * bessel_i_nonnegative_x(v, -x)
    return bessel_i_nonnegative_x(v, x)


def i0(x):
    """Modified Bessel function of order 0 (SciPy's ``i0``)."""
    return iv(0.0, x)


def i1(x):
    """Modified Bessel function of order 1 (SciPy's ``i1``)."""
    return iv(1.0, x)


def bessel_j_series(v, x):
    """J_v(x) for small x: sum (-1)^k (x/2)^(2k+v) / (k! gamma(k+v+1))."""
    quarter_x2 = 0.25 * x * x
    term = 1.0
    total = 1.0
    k = 1.0
    while k < 1000.0:
        term = -term * quarter_x2 / (k * (k + v))
        total = total + term
        if k + v > 0.0:
            if math.fabs(term) < 1e-17 * math.fabs(total):
                k = 1000.0
        k = k + 1.0
    return scaled_half_x_power_over_gamma(total, v, x, 0.0)


def bessel_j_hankel(v, x):
    """J_v(x) for large x: sqrt(2/(pi x)) (P cos chi - Q sin chi), chi = x - (v/2 + 1/4) pi,
    with Hankel's asymptotic series P and Q."""
    mu = 4.0 * v * v
    term = 1.0
    p = 1.0
    q = 0.0
    k = 1.0
    while k < 200.0:
        previous = math.fabs(term)
        term = term * (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * x)
        if math.fabs(term) > previous:
            k = 200.0
        else:
            if is_odd_integer(k) == 1.0:
                if is_odd_integer((k - 1.0) * 0.5) == 1.0:
                    q = q - term
                else:
                    q = q + term
            else:
                if is_odd_integer(k * 0.5) == 1.0:
                    p = p - term
                else:
                    p = p + term
            if math.fabs(term) < 1e-17 * (math.fabs(p) + math.fabs(q)):
                k = 200.0
        k = k + 1.0
    # phase (v/2 + 1/4) pi reduced modulo 2 pi before taking its sine and cosine
    turns = 0.5 * v + 0.25
    turns = turns - 2.0 * math.floor(turns * 0.5)
    cos_phase = math.cos(math.pi * turns)
    sin_phase = math.sin(math.pi * turns)
    cos_chi = math.cos(x) * cos_phase + math.sin(x) * sin_phase
    sin_chi = math.sin(x) * cos_phase - math.cos(x) * sin_phase
    return math.sqrt(2.0 / (math.pi * x)) * (p * cos_chi - q * sin_chi)


def bessel_j_miller(v, x):
    """J_v(x) by Miller's backward recurrence J_(n-1) = (2n/x) J_n - J_(n+1) over the orders
    mu + k (mu = v - floor(v)), normalized with Neumann's sum
    (x/2)^mu / gamma(mu+1) = sum_m (mu + 2m) gamma(mu + m) / (m! gamma(mu + 1)) J_(mu+2m)(x)."""
    mu = v - math.floor(v)
    target = v - mu  # whole number, may be negative
    top = math.floor(math.fabs(v) + x) + 30.0 + math.floor(math.sqrt(60.0 * (math.fabs(v) + x)))
    if is_odd_integer(top) == 1.0:
        top = top + 1.0
    # weight of J_(mu+2m): (mu + 2m) g_m with g_m = gamma(mu + m) / (m! gamma(mu + 1)); g_1 = 1
    g = 1.0
    m = 1.0
    while m < top * 0.5:
        g = g * (mu + m) / (m + 1.0)
        m = m + 1.0
    above = 0.0
    current = 1e-280
    total = 0.0
    recorded = 0.0
    lowest = target
    if lowest > 0.0:
        lowest = 0.0
    k = top
    while k >= lowest:
        if k == target:
            recorded = current
        if k >= 0.0:
            if is_odd_integer(k) == 0.0:
                if k == 0.0:
                    total = total + current
                else:
                    total = total + (mu + k) * g * current
                    m = k * 0.5
                    if m > 1.0:
                        g = g * m / (mu + m - 1.0)
        below = 2.0 * (mu + k) / x * current - above
        above = current
        current = below
        if math.fabs(current) > BIG:
            current = current * SMALL
            above = above * SMALL
            total = total * SMALL
            recorded = recorded * SMALL
        k = k - 1.0
    if mu == 0.0:
        return recorded / total
    return recorded / total * (math.pow(0.5 * x, mu) / gamma(mu + 1.0))


def bessel_j_nonnegative_x(v, x):
    """J_v(x) for x >= 0 finite and any real v."""
    if x == 0.0:
        if v == 0.0:
            return 1.0
        if v > 0.0:
            return 0.0
        if is_integer(v) == 1.0:
            return 0.0
        return math.inf
    negative_integer_order = 0.0
    if v < 0.0:
        if is_integer(v) == 1.0:
            negative_integer_order = 1.0
    if negative_integer_order == 1.0:
        if is_odd_integer(v) == 1.0:
            return -bessel_j_nonnegative_x_order(-v, x)
        return bessel_j_nonnegative_x_order(-v, x)
    return bessel_j_nonnegative_x_order(v, x)


def bessel_j_nonnegative_x_order(v, x):
    """J_v(x) for x > 0 finite, v >= 0 or v negative non-integer: picks the method."""
    if x > 25.0:
        if x > 1.5 * v * v:
            return bessel_j_hankel(v, x)
    if v > -1.0:
        if 0.25 * x * x < 0.3 * (v + 1.0):
            return bessel_j_series(v, x)
    if v < 0.0:
        if 0.25 * x * x < 0.3:
            return bessel_j_series(v, x)
    if math.fabs(v) + x > MILLER_LIMIT:
        # large orders between the series and Hankel's regions need the uniform (Debye)
        # expansions, which are not implemented: NaN rather than an inaccurate value
        return math.nan
    return bessel_j_miller(v, x)


def jv(v, x):
    """Bessel function of the first kind of real order (SciPy's ``jv``)."""
    if math.isnan(v):
        return v
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.nan
    if math.isinf(v):
        if x < 0.0:
            return math.nan
        return 0.0
    if x < 0.0:
        return reflection_sign(v) * bessel_j_nonnegative_x(v, -x)
    return bessel_j_nonnegative_x(v, x)


def j0(x):
    """Bessel function of the first kind of order 0 (SciPy's ``j0``)."""
    return jv(0.0, x)


def j1(x):
    """Bessel function of the first kind of order 1 (SciPy's ``j1``)."""
    return jv(1.0, x)
