"""Special functions of one or two float64 scalars, written so that every backend can compile them.

The scalar-op table calls these helpers from its rows (gamma, psi, erfcx, inverse error
functions; the Bessel functions are in :mod:`.bessel`, the incomplete gamma functions in
:mod:`.incomplete_gamma`, written by the same rules and calling the functions here). The CPU backend compiles this module as it is (Numba / the direct
compiler); the GPU backend translates it line by line to CUDA C ``__device__`` functions. So the
code keeps to a C-like subset of Python:

- float arguments, float locals and float returns (loop counters are floats too);
- arithmetic, comparisons, ``if``/``elif``/``else``, ``while``, ``return``, float literals;
- ``math.<fn>`` for exp, log, log1p, expm1, sqrt, sin, cos, tan, floor, ceil, fabs, erf, erfc,
  lgamma, gamma, isnan, isinf, isfinite, copysign, pow, atan2, sinh, cosh, tanh, and ``math.inf``,
  ``math.nan``, ``math.pi``;
- calls to other functions of this module (or of the other helper modules), never recursive;
- no boolean operators (``and``/``or``/``not``): nested ``if`` statements instead;
- module-level float constants only.

Plain Python runs the same code (the NumPy reference of the ops vectorizes it), so nothing here
may raise: every ``math`` call is guarded so that its argument is inside the domain where Python's
``math`` returns a value (C would return inf or NaN silently), and no division is by zero.

Special values follow SciPy (``scipy.special``), which Theano 1.0 called; SciPy is needed only by
the tests. The algorithms are the textbook ones: power series, asymptotic expansions, continued
fractions (modified Lentz), Miller's backward recurrence, Newton's method; Taylor coefficients
at the zeros of lgamma and digamma were computed with mpmath (formulas beside them).
"""

import math

EULER = 0.5772156649015329
SQRT_PI = 1.7724538509055160
TWO_OVER_SQRT_PI = 1.1283791670955126
HALF_LOG_2PI = 0.9189385332046728
# Largest finite double's logarithm; exp of more overflows.
LOG_MAX = 709.782712893384
# Beyond 2**52 every double is an integer.
TWO_POW_52 = 4503599627370496.0
# Positive zero of digamma, as a double plus the rounding remainder.
DIGAMMA_ROOT_HI = 1.4616321449683622
DIGAMMA_ROOT_LO = 9.549995429965697e-17
# Rescaling factors (2^600, 2^-600: exact) for recurrences and sums that could overflow.
BIG = 4.149515568880993e+180
SMALL = 2.409919865102884e-181
LOG_BIG = 415.88830833596717
# Iteration limit of the series and continued fractions; reaching it gives NaN.
MAX_TERMS = 100000.0


# -- small tools ----------------------------------------------------------------------------

def is_integer(x):
    """1.0 when the finite double ``x`` is a whole number, else 0.0."""
    if math.fabs(x) >= TWO_POW_52:
        return 1.0
    if math.floor(x) == x:
        return 1.0
    return 0.0


def is_odd_integer(x):
    """1.0 when ``x`` is an odd whole number, else 0.0."""
    if math.fabs(x) >= TWO_POW_52:
        return 0.0
    if is_integer(x) == 0.0:
        return 0.0
    if is_integer(x * 0.5) == 1.0:
        return 0.0
    return 1.0


def sin_pi(x):
    """sin(pi * x) for finite ``x``, exact at whole and half-whole numbers."""
    if math.fabs(x) >= TWO_POW_52:
        return 0.0
    n = math.floor(x + 0.5)
    r = x - n  # in [-0.5, 0.5], exact
    if r == 0.0:
        return 0.0
    if is_odd_integer(n) == 1.0:
        return -math.sin(math.pi * r)
    return math.sin(math.pi * r)


def exp_scaled(scale, log_factor):
    """``scale * exp(log_factor)`` without overflowing or underflowing in the middle."""
    if scale == 0.0:
        return 0.0
    if log_factor > 2.0 * LOG_MAX:
        return math.copysign(math.inf, scale)
    if log_factor > LOG_MAX:
        half = math.exp(log_factor * 0.5)
        return scale * half * half
    if log_factor < -LOG_MAX:
        if log_factor < -2.0 * LOG_MAX - 100.0:
            return 0.0 * scale
        half = math.exp(log_factor * 0.5)
        return scale * half * half
    return scale * math.exp(log_factor)


def gamma_sign(z):
    """The sign of gamma(z) (+1 for z > 0; alternating between the negative poles)."""
    if z > 0.0:
        return 1.0
    if is_odd_integer(math.floor(z)) == 1.0:
        return -1.0
    return 1.0


def scaled_half_x_power_over_gamma(scale, v, x, rescalings):
    """scale * (x/2)^v / gamma(v + 1) * BIG^rescalings. Computed with pow and gamma when they
    stay finite (exp of a large logarithm would amplify its rounding error), else through
    logarithms."""
    log_power = v * math.log(0.5 * x)
    log_first = log_power - gammaln(v + 1.0)
    if math.fabs(log_power) < 700.0:
        if math.fabs(v) < 170.0:
            result = scale * (math.pow(0.5 * x, v) / gamma(v + 1.0))
            count = 0.0
            while count < rescalings:
                result = result * BIG
                count = count + 1.0
            return result
    return exp_scaled(gamma_sign(v + 1.0) * scale, log_first + rescalings * LOG_BIG)


def stirling_correction(x):
    """lgamma(x) - ((x - 0.5) log x - x + log(2 pi) / 2) for x >= 10 (Stirling's series)."""
    r = 1.0 / x
    r2 = r * r
    return r * (0.08333333333333333 + r2 * (-0.002777777777777778 + r2 * (
        0.0007936507936507937 + r2 * (-0.0005952380952380953 + r2 * (
            0.0008417508417508417 + r2 * (-0.0019175269175269176 + r2 * (
                0.00641025641025641 + r2 * -0.029550653594771242)))))))


def log1pmx(d):
    """log(1 + d) - d, accurate for small ``d`` (d > -1)."""
    if math.fabs(d) < 0.3:
        # -d^2/2 + d^3/3 - d^4/4 + ...
        term = -d * d
        total = 0.0
        k = 2.0
        while k < 200.0:
            step = term / k
            total = total + step
            if math.fabs(step) < 1e-17 * math.fabs(total):
                return total
            term = -term * d
            k = k + 1.0
        return total
    return math.log1p(d) - d


# -- gamma, log-gamma, digamma, trigamma ----------------------------------------------------

def gamma(x):
    """Gamma function (SciPy's ``gamma``: NaN at negative integers, +-inf at +-0)."""
    if math.isnan(x):
        return x
    if x == 0.0:
        return math.copysign(math.inf, x)
    if x < 0.0:
        if x == -math.inf:
            return math.nan
        if is_integer(x) == 1.0:
            return math.nan
        if x > -5.6e-309:
            return -math.inf
        if x < -190.0:  # |gamma| < 1e-350: underflows, with the sign of the interval
            if is_odd_integer(math.floor(x)) == 1.0:
                return -0.0
            return 0.0
        return math.gamma(x)
    if x > 171.6243769563027:
        return math.inf
    if x < 5.6e-309:  # 1 / x overflows
        return math.inf
    return math.gamma(x)


def lgamma_near_two(z):
    """lgamma(2 + z) for |z| <= 0.5: its Taylor series, sum of (-1)^k (zeta(k) - 1) / k z^k
    for k >= 2 plus (1 - Euler's constant) z; exact zero at z = 0."""
    s = -6.4229645638381e-11
    s = s * z + 1.330476437424449e-10
    s = s * z - 2.7595228851242334e-10
    s = s * z + 5.731367241678862e-10
    s = s * z - 1.1921401405860912e-09
    s = s * z + 2.4836745438024785e-09
    s = s * z - 5.183475041970047e-09
    s = s * z + 1.0838659214896955e-08
    s = s * z - 2.2711094608943164e-08
    s = s * z + 4.7698101693639804e-08
    s = s * z - 1.0043224823968099e-07
    s = s * z + 2.1207184805554665e-07
    s = s * z - 4.492469198764566e-07
    s = s * z + 9.55141213040742e-07
    s = s * z - 2.039215753801366e-06
    s = s * z + 4.374866789907488e-06
    s = s * z - 9.439488275268397e-06
    s = s * z + 2.050721277567069e-05
    s = s * z - 4.492623673813314e-05
    s = s * z + 9.945751278180853e-05
    s = s * z - 0.00022315475845357939
    s = s * z + 0.0005096695247430425
    s = s * z - 0.001192753911703261
    s = s * z + 0.0028905103307415234
    s = s * z - 0.007385551028673986
    s = s * z + 0.020580808427784546
    s = s * z - 0.0673523010531981
    s = s * z + 0.3224670334241132
    s = s * z + 0.42278433509846713
    return s * z


def lgamma_positive(x):
    """log(gamma(x)) for finite x > 0."""
    if x < 1e-8:
        return -math.log(x) - EULER * x
    if x < 0.5:
        # lgamma(x) = lgamma(2 + x) - log1p(x) - log(x)
        return lgamma_near_two(x) - math.log1p(x) - math.log(x)
    if x < 1.5:
        z = x - 1.0
        return lgamma_near_two(z) - math.log1p(z)
    if x <= 2.5:
        return lgamma_near_two(x - 2.0)
    if x < 12.0:
        # down to [1.5, 2.5): lgamma(x) = log((x-1)(x-2)...(x-n)) + lgamma(x-n)
        product = 1.0
        y = x
        while y > 2.5:
            y = y - 1.0
            product = product * y
        return math.log(product) + lgamma_near_two(y - 2.0)
    if x > 2.5563480000000002e305:
        return math.inf
    return (x - 0.5) * math.log(x) - x + HALF_LOG_2PI + stirling_correction(x)


def gammaln(x):
    """log|gamma(x)| (SciPy's ``gammaln``): +inf at the poles, -inf at -inf."""
    if math.isnan(x):
        return x
    if x == math.inf:
        return x
    if x == -math.inf:
        return x
    if x <= 0.0:
        if is_integer(x) == 1.0:
            return math.inf
        # reflection: gamma(x) gamma(1 - x) = pi / sin(pi x)
        s = math.fabs(sin_pi(x))
        return math.log(math.pi / s) - lgamma_positive(1.0 - x)
    return lgamma_positive(x)


def digamma_near_root(h):
    """digamma(x0 + h) for |h| <= 0.25 around its positive zero x0: the Taylor series with
    coefficients polygamma(k, x0) / k!."""
    s = -3.5430070947659604e-05
    s = s * h + 5.178575795222081e-05
    s = s * h - 7.569179582195066e-05
    s = s * h + 0.0001106337276874741
    s = s * h - 0.00016170622091974803
    s = s * h + 0.00023635601564027053
    s = s * h - 0.0003454680251063077
    s = s * h + 0.000504953265834602
    s = s * h - 0.0007380709389960052
    s = s * h + 0.0010788252019162967
    s = s * h - 0.0015769367714301972
    s = s * h + 0.002305126326734928
    s = s * h - 0.003369801655439328
    s = s * h + 0.004926781395729853
    s = s * h - 0.007204534386356869
    s = s * h + 0.010538791616612175
    s = s * h - 0.01542476590494896
    s = s * h + 0.022597648232218104
    s = s * h - 0.03316112647484736
    s = s * h + 0.04880428816414311
    s = s * h - 0.07219956125645471
    s = s * h + 0.10782405069126237
    s = s * h - 0.16394270544240652
    s = s * h + 0.258499760955651
    s = s * h - 0.4427631689835921
    s = s * h + 0.9676722454476212
    return s * h


def digamma_positive(x):
    """digamma(x) for finite x > 0."""
    h = (x - DIGAMMA_ROOT_HI) - DIGAMMA_ROOT_LO
    if math.fabs(h) <= 0.25:
        return digamma_near_root(h)
    shift = 0.0
    while x < 10.0:
        shift = shift + 1.0 / x
        x = x + 1.0
    r = 1.0 / x
    r2 = r * r
    # log x - 1/(2x) - sum B_2k / (2k x^2k)
    tail = r2 * (0.08333333333333333 + r2 * (-0.008333333333333333 + r2 * (
        0.003968253968253968 + r2 * (-0.004166666666666667 + r2 * (
            0.007575757575757576 + r2 * (-0.021092796092796094 + r2 * (
                0.08333333333333333 + r2 * -0.4432598039215686)))))))
    return math.log(x) - 0.5 * r - tail - shift


def digamma(x):
    """The digamma function psi = gamma'/gamma (SciPy's ``psi``)."""
    if math.isnan(x):
        return x
    if x == math.inf:
        return x
    if x == -math.inf:
        return math.nan
    if x == 0.0:
        return -math.copysign(math.inf, x)
    if x < 0.0:
        if is_integer(x) == 1.0:
            return math.nan
        # reflection: psi(1 - x) - psi(x) = pi cot(pi x); cot from the reduced argument
        r = x - math.floor(x + 0.5)  # tan has period 1; r in [-0.5, 0.5], exact
        if math.fabs(r) == 0.5:
            return digamma_positive(1.0 - x)
        return digamma_positive(1.0 - x) - math.pi / math.tan(math.pi * r)
    return digamma_positive(x)


def trigamma_positive(x):
    """trigamma(x) = psi'(x) for finite x > 0."""
    shift = 0.0
    while x < 10.0:
        shift = shift + 1.0 / (x * x)
        x = x + 1.0
    r = 1.0 / x
    r2 = r * r
    # 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
    series = r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r2 * (
        -0.03333333333333333 + r2 * (0.023809523809523808 + r2 * (
            -0.03333333333333333 + r2 * (0.07575757575757576 + r2 * (
                -0.2531135531135531 + r2 * (1.1666666666666667 + r2 * -7.092156862745098)))))))))
    return series + shift


def trigamma(x):
    """The trigamma function psi'(x) (SciPy's ``polygamma(1, x)``): +inf at the poles."""
    if math.isnan(x):
        return x
    if x == math.inf:
        return 0.0
    if x == -math.inf:
        return math.inf
    if math.fabs(x) < 1e-154:  # 1 / x^2 overflows
        return math.inf
    if x <= 0.0:
        if is_integer(x) == 1.0:
            return math.inf
        # reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
        s = sin_pi(x)
        return (math.pi * math.pi) / (s * s) - trigamma_positive(1.0 - x)
    return trigamma_positive(x)


# -- error functions ------------------------------------------------------------------------

def exp_of_square(x):
    """exp(x * x) for |x| < 26.7, with the rounding error of x * x compensated (Dekker's
    exact product), which exp would otherwise amplify x^2 times."""
    c = 134217729.0 * x
    high = c - (c - x)
    low = x - high
    square = x * x
    error = ((high * high - square) + 2.0 * high * low) + low * low
    return math.exp(square) * (1.0 + error)


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x) (SciPy's ``erfcx``)."""
    if math.isnan(x):
        return x
    if x < 0.0:
        if x < -26.64:
            return math.inf
        return 2.0 * exp_of_square(x) - erfcx_positive(-x)
    return erfcx_positive(x)


def erfcx_positive(x):
    """erfcx(x) for x >= 0."""
    if x < 0.5:
        return math.exp(x * x) * math.erfc(x)
    if x < 26.0:
        return exp_of_square(x) * math.erfc(x)
    if x > 1e150:
        return (1.0 / SQRT_PI) / x
    # asymptotic series 1/(sqrt(pi) x) * sum (-1)^k (2k-1)!! / (2x^2)^k
    r = 1.0 / (2.0 * x * x)
    term = 1.0
    total = 1.0
    k = 1.0
    while k < 12.0:
        term = -term * (2.0 * k - 1.0) * r
        total = total + term
        k = k + 1.0
    return total / (SQRT_PI * x)


def erfinv_initial(x, log_one_minus_x2):
    """A first guess for erfinv (Winitzki's closed form, relative error about 2e-3), given
    x and log(1 - x^2) computed accurately by the caller."""
    a = 0.147
    b = 2.0 / (math.pi * a) + 0.5 * log_one_minus_x2
    w = math.sqrt(math.sqrt(b * b - log_one_minus_x2 / a) - b)
    return math.copysign(w, x)


def erfcinv_tail(y):
    """erfcinv(y) for 0 < y <= 0.5 (w >= 0.47): Newton's method on
    log(erfcx(w)) - w^2 = log(y), well conditioned down to the smallest subnormal."""
    target = math.log(y)
    w = erfinv_initial(1.0, math.log(y * (2.0 - y)))
    step = 1.0
    count = 0.0
    while count < 30.0:
        scaled = erfcx_positive(w)
        residual = math.log(scaled) - w * w - target
        # d/dw [log erfcx(w) - w^2] = 2 w - 2/sqrt(pi)/erfcx(w) - 2 w
        step = residual * scaled / TWO_OVER_SQRT_PI
        w = w + step
        if math.fabs(step) <= 1e-16 * w:
            return w
        count = count + 1.0
    return w


def erfinv_central(x):
    """erfinv(x) for |x| <= 0.5: Newton's method on erf(w) = x."""
    if x == 0.0:
        return x
    w = erfinv_initial(x, math.log1p(-x * x))
    count = 0.0
    while count < 30.0:
        derivative = TWO_OVER_SQRT_PI * math.exp(-w * w)
        step = (math.erf(w) - x) / derivative
        w = w - step
        if math.fabs(step) <= 1e-16 * math.fabs(w):
            return w
        count = count + 1.0
    return w


def erfinv(x):
    """Inverse error function on [-1, 1] (SciPy's ``erfinv``): +-inf at +-1, NaN outside."""
    if math.isnan(x):
        return x
    if math.fabs(x) > 1.0:
        return math.nan
    if x == 1.0:
        return math.inf
    if x == -1.0:
        return -math.inf
    if x == 0.0:
        return 0.0  # SciPy's sign for -0.0
    if math.fabs(x) <= 0.5:
        return erfinv_central(x)
    if x > 0.0:
        return erfcinv_tail(1.0 - x)
    return -erfcinv_tail(1.0 + x)


def erfcinv(y):
    """Inverse complementary error function on [0, 2] (SciPy's ``erfcinv``)."""
    if math.isnan(y):
        return y
    if y < 0.0:
        return math.nan
    if y > 2.0:
        return math.nan
    if y == 0.0:
        return math.inf
    if y == 2.0:
        return -math.inf
    if y == 1.0:
        return -0.0  # SciPy's sign
    if y <= 0.5:
        return erfcinv_tail(y)
    if y < 1.5:
        return erfinv_central(1.0 - y)
    return -erfcinv_tail(2.0 - y)
