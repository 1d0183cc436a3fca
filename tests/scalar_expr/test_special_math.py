"""jitgraph.scalar_expr's special functions (special_math, bessel, incomplete_gamma) against SciPy:
wide ranges, special values, and the same functions compiled by Numba (the CPU backend compiles
these modules as they are)."""

import inspect
import math
import types

import numpy as np
import pytest

from jitgraph.scalar_expr import bessel, incomplete_gamma, special_math

#: the helper modules of the special functions (the last two call the first's functions)
MODULES = (special_math, bessel, incomplete_gamma)
#: their public names in one namespace
sm = types.SimpleNamespace(**{name: value for module in MODULES
                              for name, value in vars(module).items()
                              if not name.startswith("_")})

sp = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(20261125)


def _vectorized(fn):
    return np.vectorize(fn, otypes=[np.float64])


def _assert_close(got, want, rtol, atol=0.0, where=None):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"NaN at {where}")
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want), err_msg=f"inf at {where}")
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol)


def _wide(negative=True):
    """Magnitudes from 1e-300 to 1e300, uniform draws, and small values near 0."""
    parts = [np.geomspace(1e-300, 1e300, 1500), RNG.uniform(0, 30, 1500), RNG.uniform(0, 3, 500)]
    if negative:
        parts += [-p for p in parts]
    return np.concatenate(parts)


# -- unary functions: wide ranges -------------------------------------------------------------

def test_gamma_matches_scipy():
    x = _wide()
    x = x[np.abs(x) < 1e15]  # scipy's gamma is slow there; all are integers (NaN) anyway
    _assert_close(_vectorized(sm.gamma)(x), sp.gamma(x), rtol=4e-15)


def test_gammaln_matches_scipy():
    # SciPy's own error near the zeros at 1 and 2 is ~1e-13 relative (ours matches mpmath)
    x = _wide()
    _assert_close(_vectorized(sm.gammaln)(x), sp.gammaln(x), rtol=2e-14, atol=1e-15)


def test_gammaln_near_its_zeros_is_relatively_accurate():
    # lgamma(1 + z) = -Euler z + zeta(2)/2 z^2 + O(z^3): checks relative accuracy at tiny z
    for z in (1e-10, -1e-12, 3e-9):
        expected = -sm.EULER * z + (math.pi ** 2 / 12) * z * z
        assert sm.gammaln(1.0 + z) == pytest.approx(expected, rel=1e-6)
        assert sm.gammaln(2.0 + z) == pytest.approx((1 - sm.EULER) * z, rel=1e-6)
    assert sm.gammaln(1.0) == 0.0
    assert sm.gammaln(2.0) == 0.0


def test_psi_matches_scipy():
    x = _wide()
    positive = x[x > 0]
    _assert_close(_vectorized(sm.digamma)(positive), sp.psi(positive), rtol=4e-15)
    # negative arguments: relative near most points, absolute near the negative zeros
    negative = x[(x < 0) & (x > -1e15)]
    # (SciPy's error reaches 4e-14 near poles, where ours matches mpmath: recorded values below)
    _assert_close(_vectorized(sm.digamma)(negative), sp.psi(negative), rtol=3e-13, atol=3e-15)


def test_psi_near_its_positive_zero():
    root = sm.DIGAMMA_ROOT_HI
    for h in (1e-9, -1e-12, 0.2, -0.24):
        # psi(x0 + h) = psi'(x0) h + O(h^2), psi'(x0) = 0.96767...
        value = sm.digamma(root + h)
        assert value == pytest.approx(sp.psi(root + h), rel=1e-12, abs=1e-30)
    assert abs(sm.digamma(root)) < 2e-16


def test_tri_gamma_matches_scipy():
    x = _wide()
    x = x[x > -1e6]  # scipy's polygamma is very slow for huge negative arguments
    _assert_close(_vectorized(sm.trigamma)(x), sp.polygamma(1, x), rtol=4e-15)


def test_erfcx_matches_scipy():
    x = _wide()
    # negative x: exp(x^2) amplifies x^2's rounding in SciPy (ours compensates it): 6e-14
    _assert_close(_vectorized(sm.erfcx)(x), sp.erfcx(x), rtol=2e-13)
    positive = x[x > 0]
    _assert_close(_vectorized(sm.erfcx)(positive), sp.erfcx(positive), rtol=4e-15)


def test_erfinv_and_erfcinv_match_scipy():
    u = np.concatenate([RNG.uniform(-1, 1, 3000), 1 - np.geomspace(1e-16, 0.5, 500),
                        -1 + np.geomspace(1e-16, 0.5, 500), np.geomspace(1e-300, 0.5, 500)])
    _assert_close(_vectorized(sm.erfinv)(u), sp.erfinv(u), rtol=2e-15)
    y = np.concatenate([RNG.uniform(0, 2, 3000), np.geomspace(1e-300, 1, 1000),
                        2 - np.geomspace(1e-16, 1, 500)])
    _assert_close(_vectorized(sm.erfcinv)(y), sp.erfcinv(y), rtol=2e-15)
    # round trips deep in the tail (SciPy returns inf for subnormal arguments)
    for w in (20.0, 25.0, 26.4):
        assert sm.erfcinv(math.erfc(w)) == pytest.approx(w, rel=1e-14)


@pytest.mark.parametrize("name", ["i0", "i1"])
def test_modified_bessel_01_match_scipy(name):
    # (SciPy overflows from 709 on, before the function does at 713.9)
    x = np.concatenate([RNG.uniform(-50, 50, 2000), np.geomspace(1e-300, 709, 1000),
                        -np.geomspace(1e-300, 709, 300)])
    _assert_close(_vectorized(getattr(sm, name))(x), getattr(sp, name)(x), rtol=4e-15)


@pytest.mark.parametrize("name", ["j0", "j1"])
def test_bessel_01_match_scipy(name):
    # J oscillates: accuracy is absolute (relative to the envelope sqrt(2 / (pi x))); SciPy
    # reduces x - pi/4 in double precision, an error of ulp(x) * envelope for large x
    x = np.concatenate([RNG.uniform(-60, 60, 2000), np.geomspace(1e-300, 1e6, 1000)])
    got, want = _vectorized(getattr(sm, name))(x), getattr(sp, name)(x)
    envelope = np.minimum(1.0, np.sqrt(2 / (np.pi * np.abs(x))))
    assert np.all(np.abs(got - want) <= (3e-15 + 4e-16 * np.abs(x)) * envelope)
    small = np.abs(x) < 1e-3
    np.testing.assert_allclose(got[small], want[small], rtol=5e-16)


# -- recorded high-precision values (mpmath, 40 digits) where SciPy itself is less accurate ---

MPMATH_VALUES = {
    "gammaln": [(1.9994130454159027, -0.00024804409499796023), (0.9999, 5.7729791561193866e-05), (2.45779812642931, 0.2554479948019324), (-2.45779812642931, -0.001169244580988957), (1e-05, 11.512919692895826), (3.5, 1.2009736023470743), (10000000000.0, 220258509288.81058), (-0.5, 1.2655121234846454)],
    "digamma": [(-100770.99738692192, -371.1612330747567), (-9.99771511099303, -435.29896843406004), (-0.5040830082644554, 7.289763902976895e-17), (1.4616321449683622, -9.241265521729427e-17), (1.2, -0.2890398965921884), (1e-08, -100000000.57721564), (50.5, 3.912039670928392), (1000000000000000.0, 34.538776394910684)],
    "trigamma": [(-0.3322021658535874, 12.116937307796332), (0.5, 4.934802200544679), (1e-07, 100000000000001.66), (7.25, 0.14787923315893217), (-999999.5, 9.869603401089359), (123456.7, 8.100038718140785e-06)],
    "erfcx": [(-24.435271468597154, 4.080011630971174e+259), (-5.5, 27443409954929.71), (-0.3, 1.4537492328427655), (0.3, 0.7345993345676551), (3.0, 0.17900115118138996), (25.9, 0.021767181150738214), (30.0, 0.01879588886141675), (100000.0, 5.6418958351954685e-06)],
    "erfinv": [(1e-10, 8.862269254527581e-11), (0.3, 0.2724627147267543), (-0.7, -0.7328690779592167), (0.999999, 3.458910737275499), (0.9999999999999998, 5.805018683193453), (-0.5, -0.4769362762044699)],
    "erfcinv": [(1e-300, 26.209469960516124), (1e-20, 6.601580622355143), (0.3, 0.7328690779592169), (1.2, -0.17914345462129164), (1.9999999, -3.7665625814958155), (1e-100, 15.065574702592645)],
    "i0": [(0.001, 1.0000002500000156), (1.0, 1.2660658777520084), (7.5, 268.16131151518937), (29.9, 708478330489.0145), (30.1, 862432920031.7792), (713.0, 6.705128263670996e+307), (-200.5, 3.358674638000832e+85)],
    "i1": [(1e-300, 5e-301), (0.001, 0.0005000000625000026), (-7.5, -249.58436542268814), (29.9, 696528308361.0927), (30.1, 847983630191.5414), (500.0, 2.5023034121761e+215)],
    "j0": [(2.404825557695773, -6.10876525973673e-17), (8.0, 0.1716508071375539), (24.9, 0.0832459683530155), (25.1, 0.10827567149994945), (987654.321, 0.000750585741377184), (1000000.123, 0.0004176111121008135)],
    "j1": [(3.8317059702075125, -6.149807356994906e-17), (0.5, 0.2422684576748739), (24.9, -0.13485569953140886), (25.1, -0.11463478413442257), (31415.9, -0.0032663991117737852), (1e-05, 4.9999999999375e-06)],
    "jv": [(0.5, 3.0, 0.06500818287737578), (-7.3, 10.0, -0.03546005635944065), (2.5, 30.0, 0.14120285879928213), (10.2, 12.0, 0.30087040362876544), (50.0, 40.0, 0.0006818524353176831), (100.3, 90.0, 0.0022436988161658577), (-0.5, 0.1, 2.5105273689585093), (3.0, -4.5, -0.4247039729774556), (7.0, 1000.0, -0.005321783076443615)],
    "iv": [(0.3, 15.0, 338595.3785962502), (10.2, 12.0, 267.07854292578827), (100.3, 90.0, 1749148722906456.2), (-7.3, 10.0, 193.5271417276739), (-2.5, 0.3, 47.8459773792745), (2.0, -3.0, 2.245212440929951), (0.5, 600.0, 6.145023988316931e+258)],
    "gammainc": [(38.56620421163472, 0.0001632476442773985, 2.1173407130014873e-192), (0.5, 2.0, 0.9544997361036416), (20.0, 19.0, 0.4393926106084916), (100.0, 95.0, 0.3173568111698), (0.001, 0.8, 0.9996891369289659), (5.0, 40.0, 0.999999999999498)],
    "gammaincc": [(0.001, 0.8086998166120285, 0.00030602240497206985), (1082.636733874054, 1725.0249497486507, 2.2591236701417172e-62), (3.0, 0.5, 0.9856123220330293), (100.0, 105.0, 0.29975465760884373), (0.5, 30.0, 9.485737571073848e-15), (0.2, 1.9, 0.014804625505936983)],
}


@pytest.mark.parametrize("name", sorted(MPMATH_VALUES))
def test_matches_recorded_high_precision_values(name):
    fn = getattr(sm, name)
    for *args, want in MPMATH_VALUES[name]:
        got = fn(*args)
        # relative 4e-15; values that are zeros of the function to double precision: 2e-16
        assert abs(got - want) <= 4e-15 * abs(want) + 2e-16, (name, args, got, want)


# -- binary functions ------------------------------------------------------------------------

def _grid(first, second):
    a, b = np.meshgrid(first, second, indexing="ij")
    return a.ravel(), b.ravel()


def test_iv_matches_scipy():
    v, x = _grid(np.concatenate([np.arange(-5, 6), RNG.uniform(-10, 10, 12), [0.5, 20.5, 60]]),
                 np.concatenate([RNG.uniform(0, 40, 30), np.geomspace(1e-5, 700, 30)]))
    want = sp.iv(v, x)
    keep = np.abs(want) > 1e-290  # SciPy flushes some tiny values to 0
    _assert_close(_vectorized(sm.iv)(v[keep], x[keep]), want[keep], rtol=1e-13)
    # integer orders at negative x: (-1)^n I_n(|x|); other orders: NaN
    _assert_close(_vectorized(sm.iv)(v, -x), sp.iv(v, -x), rtol=1e-13, atol=1e-300)


def test_jv_matches_scipy():
    v, x = _grid(np.concatenate([np.arange(-5, 6), RNG.uniform(-10, 10, 12), [0.5, 20.5, 60]]),
                 np.concatenate([RNG.uniform(0, 40, 30), np.geomspace(1e-5, 1000, 30)]))
    got, want = _vectorized(sm.jv)(v, x), sp.jv(v, x)
    # SciPy's own error reaches ~1e-13 near zeros: absolute comparison against the envelope
    envelope = np.maximum(np.abs(want), np.minimum(1.0, np.sqrt(2 / (np.pi * x))))
    assert np.all(np.abs(got - want) <= 5e-13 * envelope + 1e-290)
    away_from_zeros = (np.abs(want) > 1e-3) & (x < 50)
    _assert_close(got[away_from_zeros], want[away_from_zeros], rtol=5e-13)
    near = x < 50  # (SciPy's error grows with x)
    _assert_close(_vectorized(sm.jv)(v[near], -x[near]), sp.jv(v[near], -x[near]), rtol=5e-13,
                  atol=1e-15)


def test_incomplete_gamma_matches_scipy():
    a, x = _grid(np.concatenate([RNG.uniform(0, 20, 25), np.geomspace(1e-3, 300, 20)]),
                 np.concatenate([RNG.uniform(0, 40, 25), np.geomspace(1e-4, 1e3, 25)]))
    for mine, theirs in ((sm.gammainc, sp.gammainc), (sm.gammaincc, sp.gammaincc)):
        want = theirs(a, x)
        keep = want > 1e-290
        # deep tails (values ~1e-200 at large a) are exp of a ~500 logarithm: ~1e-13 here
        # and in SciPy
        _assert_close(_vectorized(mine)(a[keep], x[keep]), want[keep], rtol=4e-13)
    # gamma(a) overflows from 171 on; SciPy flushes some tails to 0
    finite = (a < 170) & (sp.gammainc(a, x) > 1e-290) & (sp.gammaincc(a, x) > 1e-290)
    a_f, x_f = a[finite], x[finite]
    _assert_close(_vectorized(sm.gammal)(a_f, x_f), sp.gammainc(a_f, x_f) * sp.gamma(a_f),
                  rtol=4e-13, atol=1e-290)
    _assert_close(_vectorized(sm.gammau)(a_f, x_f), sp.gammaincc(a_f, x_f) * sp.gamma(a_f),
                  rtol=4e-13, atol=1e-290)
    k = 2 * a
    want = stats.chi2.sf(x, k)
    keep = want > 1e-290
    _assert_close(_vectorized(sm.chi2sf)(x[keep], k[keep]), want[keep], rtol=4e-13)


def test_small_a_upper_gamma_has_no_cancellation():
    # Q(a, x) for tiny a is a E1(x) + O(a^2): 1 - P(a, x) would lose four digits here
    assert sm.gammaincc(1e-3, 0.8086998166120285) == pytest.approx(0.00030602240497206985,
                                                                    rel=1e-14)


# -- special values --------------------------------------------------------------------------

INF, NAN = math.inf, math.nan

UNARY_SPECIALS = {
    "gamma": (sp.gamma, [0.0, -0.0, -1.0, -2.0, INF, -INF, NAN, 171.7, -200.5, -201.5, 1e-320]),
    "gammaln": (sp.gammaln, [0.0, -0.0, -1.0, INF, -INF, NAN, 1.0, 2.0, 3e305, 1e-300]),
    "digamma": (sp.psi, [0.0, -0.0, -1.0, -3.0, INF, -INF, NAN, 1e-320, -0.5, 1e300]),
    "trigamma": (lambda x: sp.polygamma(1, x), [0.0, -1.0, INF, -INF, NAN, 1e-160, -2.5]),
    "erfcx": (sp.erfcx, [0.0, -0.0, INF, -INF, NAN, -27.0, 1e200, -26.6]),
    "erfinv": (sp.erfinv, [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, INF, NAN, 1e-310]),
    "erfcinv": (sp.erfcinv, [0.0, 1.0, 2.0, -0.5, 2.5, INF, NAN]),
    "i0": (sp.i0, [0.0, -0.0, INF, -INF, NAN, 714.0, 1e300]),
    "i1": (sp.i1, [0.0, -0.0, INF, -INF, NAN, -714.0, 1e20]),
    "j0": (sp.j0, [0.0, INF, -INF, NAN, 1e300]),
    "j1": (sp.j1, [0.0, INF, -INF, NAN, 1e-310]),
}


@pytest.mark.parametrize("name", sorted(UNARY_SPECIALS))
def test_unary_special_values_follow_scipy(name):
    reference, values = UNARY_SPECIALS[name]
    fn = getattr(sm, name)
    for x in values:
        got, want = fn(x), float(reference(x))
        if math.isnan(want):
            assert math.isnan(got), (name, x, got)
        elif want == 0.0 or math.isinf(want):
            assert got == want and math.copysign(1, got) == math.copysign(1, want), (name, x, got)
        else:
            assert got == pytest.approx(want, rel=1e-13), (name, x)


BINARY_SPECIALS = [(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.5, 0.0), (-0.5, 0.0), (0.5, -1.0),
                   (2.0, -2.0), (-1.0, -1.0), (NAN, 1.0), (1.0, NAN), (2.0, INF), (0.0, INF),
                   (INF, 1.0), (-2.0, 1.0), (3.0, -0.5)]


@pytest.mark.parametrize("name, reference", [
    ("jv", sp.jv), ("iv", sp.iv), ("gammainc", sp.gammainc), ("gammaincc", sp.gammaincc),
    ("chi2sf", lambda x, k: stats.chi2.sf(x, k))])
def test_binary_special_values_follow_scipy(name, reference):
    fn = getattr(sm, name)
    for a, b in BINARY_SPECIALS:
        got, want = fn(a, b), float(reference(a, b))
        if math.isnan(want):
            assert math.isnan(got), (name, a, b, got)
        else:
            assert got == pytest.approx(want, rel=1e-14, abs=0.0), (name, a, b, got, want)


# -- the module compiles as it is ------------------------------------------------------------

def _numba_namespace():
    """Every function of the modules compiled by numba.njit, calling each other."""
    import ast

    numba = pytest.importorskip("numba")
    namespace = {"__name__": "special_math_numba"}
    for module in MODULES:
        tree = ast.parse(inspect.getsource(module))
        # the modules' imports of each other's names: those are defined in the namespace
        tree.body = [node for node in tree.body if not isinstance(node, ast.ImportFrom)]
        exec(compile(tree, module.__file__, "exec"), namespace)
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType):
            namespace[name] = numba.njit(value)
    return namespace


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_module_keeps_to_the_translatable_subset(module):
    import ast

    tree = ast.parse(inspect.getsource(module))
    allowed_math = {"exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "floor",
                    "ceil", "fabs", "erf", "erfc", "lgamma", "gamma", "isnan", "isinf",
                    "isfinite", "copysign", "pow", "atan2", "sinh", "cosh", "tanh", "inf",
                    "nan", "pi", "e"}
    functions = {node.name for m in MODULES for node in ast.parse(inspect.getsource(m)).body
                 if isinstance(node, ast.FunctionDef)}
    for node in tree.body:  # imports: math, and each other's names
        if isinstance(node, ast.ImportFrom):
            assert node.module.startswith("jitgraph.scalar_expr."), node.module
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.BoolOp, ast.List, ast.Tuple, ast.Dict, ast.Lambda,
                                     ast.Try, ast.Raise, ast.Global, ast.ListComp)), \
            ast.dump(node)[:80]
        if isinstance(node, ast.Attribute):
            assert node.value.id == "math" and node.attr in allowed_math, node.attr
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id in functions, node.func.id
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            calls = {c.func.id for c in ast.walk(node)
                     if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            assert node.name not in calls, f"{node.name} is recursive"
        elif isinstance(node, ast.Assign):
            assert isinstance(node.value, ast.Constant) and isinstance(node.value.value, float)


@pytest.mark.slow
def test_numba_compiled_functions_agree_with_python():
    compiled = _numba_namespace()
    x = np.concatenate([RNG.uniform(-30, 30, 60), np.geomspace(1e-300, 1e300, 40),
                        [0.0, -0.0, INF, -INF, NAN, 1.0, 2.0, -1.0, 0.5]])
    for name in ("gamma", "gammaln", "digamma", "trigamma", "erfcx", "i0", "i1", "j0", "j1"):
        _assert_close([compiled[name](v) for v in x], [getattr(sm, name)(v) for v in x],
                      rtol=4e-15, where=name)
    u = np.concatenate([RNG.uniform(-1, 1, 50), [0.0, 1.0, -1.0, 1e-300, 2.0]])
    for name in ("erfinv", "erfcinv"):
        _assert_close([compiled[name](v) for v in u + (name == "erfcinv")],
                      [getattr(sm, name)(v) for v in u + (name == "erfcinv")], rtol=4e-15)
    a = np.concatenate([RNG.uniform(-5, 30, 40), [0.0, 1.0, 0.5, NAN, INF]])
    b = np.concatenate([RNG.uniform(-5, 40, 40), [0.0, 2.0, INF, 1.0, NAN]])
    for name in ("jv", "iv", "gammainc", "gammaincc", "gammal", "gammau", "chi2sf"):
        _assert_close([compiled[name](p, q) for p, q in zip(a, b)],
                      [getattr(sm, name)(p, q) for p, q in zip(a, b)], rtol=4e-15, atol=1e-300,
                      where=name)
