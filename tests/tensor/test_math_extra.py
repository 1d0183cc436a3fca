"""The elementwise functions of issue 18 at the tensor level: special functions
(``special_functions``), complex numbers (``complex_math``) and Theano's smaller names
(``math_extra``): compiled kernels vs SciPy/NumPy and vs ``perform``, output dtypes and
gradients as Theano 1.0.5 gives them (recorded below), verify_grad."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor import verify_grad

sp = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

COMPILED = jitgraph.Mode(linker="c")  # every node must compile (no perform fallback)
PERFORM = jitgraph.Mode(linker="py", optimizer=None)
RNG = np.random.default_rng(18)

UNARY = {  # name -> (SciPy/NumPy reference, argument sampler)
    "gamma": (sp.gamma, lambda n: RNG.uniform(-20, 30, n)),
    "gammaln": (sp.gammaln, lambda n: RNG.uniform(-20, 300, n)),
    "psi": (sp.psi, lambda n: RNG.uniform(-20, 300, n)),
    "tri_gamma": (lambda x: sp.polygamma(1, x), lambda n: RNG.uniform(-20, 300, n)),
    "erfinv": (sp.erfinv, lambda n: RNG.uniform(-1, 1, n)),
    "erfcinv": (sp.erfcinv, lambda n: RNG.uniform(0, 2, n)),
    "erfcx": (sp.erfcx, lambda n: RNG.uniform(-5, 50, n)),
    "i0": (sp.i0, lambda n: RNG.uniform(-50, 50, n)),
    "i1": (sp.i1, lambda n: RNG.uniform(-50, 50, n)),
    "j0": (sp.j0, lambda n: RNG.uniform(-50, 50, n)),
    "j1": (sp.j1, lambda n: RNG.uniform(-50, 50, n)),
    "deg2rad": (np.deg2rad, lambda n: RNG.uniform(-720, 720, n)),
    "rad2deg": (np.rad2deg, lambda n: RNG.uniform(-7, 7, n)),
}
BINARY = {  # name -> (reference, first-argument sampler, second-argument sampler)
    "jv": (sp.jv, lambda n: RNG.uniform(-5, 10, n), lambda n: RNG.uniform(0, 40, n)),
    "iv": (sp.iv, lambda n: RNG.uniform(-5, 10, n), lambda n: RNG.uniform(0, 40, n)),
    "gammainc": (sp.gammainc, lambda n: RNG.uniform(0, 20, n), lambda n: RNG.uniform(0, 30, n)),
    "gammaincc": (sp.gammaincc, lambda n: RNG.uniform(0, 20, n),
                  lambda n: RNG.uniform(0, 30, n)),
    "gammau": (lambda k, x: sp.gammaincc(k, x) * sp.gamma(k), lambda n: RNG.uniform(0, 20, n),
               lambda n: RNG.uniform(0, 30, n)),
    "gammal": (lambda k, x: sp.gammainc(k, x) * sp.gamma(k), lambda n: RNG.uniform(0, 20, n),
               lambda n: RNG.uniform(0, 30, n)),
    "chi2sf": (lambda x, k: stats.chi2.sf(x, k), lambda n: RNG.uniform(-1, 40, n),
               lambda n: RNG.uniform(0.1, 30, n)),
}


def _close(got, want, dtype):
    assert got.dtype == dtype
    if dtype == "float32":
        # computed in float64, rounded once: the float32 of the float64 reference
        want = np.asarray(want, np.float64).astype(np.float32)
        np.testing.assert_allclose(got, want, rtol=2e-7, atol=1e-37)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_compiled_kernels_match_scipy(dtype):
    x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
    names = sorted(UNARY) + sorted(BINARY)
    outs = [getattr(T, n)(x) for n in sorted(UNARY)] + [getattr(T, n)(x, y)
                                                         for n in sorted(BINARY)]
    f = jitgraph.function([x, y], outs, mode=COMPILED)  # raises if any node cannot compile
    n = 300
    for name in sorted(UNARY):
        reference, sample = UNARY[name]
        xs = sample(n).astype(dtype)
        got = f(xs, xs)[names.index(name)]
        _close(got, reference(xs.astype(np.float64)), dtype)
    for name in sorted(BINARY):
        reference, first, second = BINARY[name]
        a, b = first(n).astype(dtype), second(n).astype(dtype)
        got = f(a, b)[names.index(name)]
        # chi2sf is float64 whatever its inputs (Theano's rule)
        _close(got, reference(a.astype(np.float64), b.astype(np.float64)),
               "float64" if name == "chi2sf" else dtype)


def test_output_dtypes_follow_theano():
    # recorded with Theano 1.0.5: float_out (int8 -> float32, int32 -> float64); chi2sf float64
    for name in ("gamma", "psi", "tri_gamma", "erfcx", "i0", "j1", "deg2rad"):
        fn = getattr(T, name)
        assert [fn(T.vector(dtype=d)).dtype for d in ("bool", "int8", "int32", "float32")] \
            == ["float32", "float32", "float64", "float32"], name
    assert T.jv(T.ivector(), T.fvector()).dtype == "float64"
    assert T.gammainc(T.bvector(), T.fvector()).dtype == "float32"
    assert T.chi2sf(T.fvector(), T.fvector()).dtype == "float64"
    assert T.real(T.cvector()).dtype == "float32" and T.imag(T.zvector()).dtype == "float64"
    assert T.angle(T.cvector()).dtype == "float64" and T.angle(T.ivector()).dtype == "float64"
    assert T.conj(T.vector(dtype="bool")).dtype == "int8"
    assert T.complex(T.fvector(), T.fvector()).dtype == "complex64"
    assert T.complex(T.ivector(), T.fvector()).dtype == "complex128"
    assert T.complex_from_polar(T.bvector(), T.bvector()).dtype == "complex64"
    assert T.iround(T.fvector()).dtype == "int64"
    assert [v.dtype for v in T.divmod(T.bvector(), T.bvector())] == ["int8", "int8"]
    assert T.power(T.vector(dtype="bool"), T.vector(dtype="bool")).dtype == "int8"
    assert T.isclose(T.ivector(), T.fvector()).dtype == "bool"
    assert T.allclose(T.fvector(), T.fvector()).ndim == 0


def test_refusals_name_the_problem():
    with pytest.raises(TypeError, match="complex"):
        T.gamma(T.zvector())
    with pytest.raises(TypeError, match="real"):
        T.complex(T.cvector(), T.fvector())
    with pytest.raises(TypeError, match="float"):
        T.iround(T.ivector())
    with pytest.raises(TypeError, match="bool"):
        T.isclose(T.vector(dtype="bool"), T.vector(dtype="bool"))
    with pytest.raises(TypeError, match="complex"):
        T.divmod(T.zvector(), T.dvector())


def test_theano_aliases_are_the_same_functions():
    assert T.bitwise_and is T.and_ and T.bitwise_or is T.or_ and T.bitwise_xor is T.xor
    assert T.bitwise_not is T.invert and T.square is T.sqr
    # isinf/isnan skip the op for integer inputs (as Theano's); isinf_/isnan_ are the ops
    assert T.isinf_ is not T.isinf and T.isnan_ is not T.isnan
    i, j = T.ivector(), T.ivector()
    f = jitgraph.function([i, j], [T.bitwise_and(i, j), T.bitwise_not(i), T.power(i, j),
                                   T.isinf_(i)], mode=COMPILED)
    a, b = np.array([5, -6, 12], "int32"), np.array([3, 2, 1], "int32")
    for got, want in zip(f(a, b), [a & b, ~a, a ** b, np.zeros(3, bool)]):
        np.testing.assert_array_equal(got, want)


# -- values recorded with Theano 1.0.5 -------------------------------------------------------

THEANO_GRADS = {  # d/dx sum(f(x)) at x = [0.3, 1.7]
    "gamma": [-10.47804284, 0.18949468], "gammaln": [-3.50252422, 0.20854787],
    "psi": [12.24536455, 0.79323283], "erfcinv": [-1.51636322, -1.51636322],
    "erfcx": [-0.68761957, -0.13672396], "i0": [0.15169384, 1.19634657],
    "i1": [0.51698075, 1.16023169], "j0": [-0.14831882, -0.57776523],
    "j1": [0.48323019, 0.05812296], "deg2rad": [0.01745329, 0.01745329],
    "rad2deg": [57.29577951, 57.29577951],
}


def test_gradients_match_theano():
    x = T.dvector("x")
    xs = np.array([0.3, 1.7])
    for name, want in THEANO_GRADS.items():
        g = jitgraph.function([x], T.grad(getattr(T, name)(x).sum(), x))
        np.testing.assert_allclose(g(xs), want, rtol=1e-7, atol=1e-8, err_msg=name)
    v = T.dvector("v")
    vs, at = np.array([0.3, 1.7]), np.array([1.2, 2.5])
    g = jitgraph.function([v, x], [T.grad(T.jv(v, x).sum(), x), T.grad(T.iv(v, x).sum(), x)])
    jv_grad, iv_grad = g(vs, at)
    np.testing.assert_allclose(jv_grad, [-0.19800669, 0.06037343], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(iv_grad, [0.82466129, 1.76018893], rtol=1e-7, atol=1e-8)


def test_missing_gradients_fail_as_in_theano():
    x, v = T.dvector(), T.dvector()
    with pytest.raises(NotImplementedError):
        T.grad(T.tri_gamma(x).sum(), x)
    for fn in (T.gammainc, T.gammaincc, T.gammau, T.gammal, T.chi2sf):
        with pytest.raises(NotImplementedError):
            T.grad(fn(v, x).sum(), x)
    from jitgraph.tensor.core.gradient import NullTypeGradError

    with pytest.raises(NullTypeGradError, match="order"):
        T.grad(T.jv(v, x).sum(), v)


def test_theano_values_of_the_small_functions():
    x, y = T.dvector("x"), T.dvector("y")
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e10, 1e-9, 0.0, np.inf, 2.0])
    b = np.array([1.0 + 1e-6, np.nan, np.inf, np.inf, 1.00001e10, 0.0, 1e-9, 1.0, np.nan])
    f = jitgraph.function([x, y], [T.isclose(x, y), T.isclose(x, y, equal_nan=True),
                                   T.isclose(x, y, rtol=0, atol=0.5), T.allclose(x, y),
                                   T.allclose(x[:1], y[:1])], mode=COMPILED)
    got = f(a, b)
    t, F = True, False
    np.testing.assert_array_equal(got[0], [t, F, t, F, t, t, t, F, F])
    np.testing.assert_array_equal(got[1], [t, t, t, F, t, t, t, F, F])
    np.testing.assert_array_equal(got[2], [t, F, t, F, F, t, t, F, F])
    assert got[3] == np.array(False) and got[4] == np.array(True)
    f = jitgraph.function([x, y], list(T.divmod(x, y)) + [T.power(x, y), T.iround(x),
                                                           T.iround(x, "half_away_from_zero")],
                          mode=COMPILED)
    q, r, p, even, away = f(np.array([5.5, -5.5, 7.0, 2.5]), np.array([3.0, 2.0, -2.0, 1.0]))
    np.testing.assert_array_equal(q, [1.0, -3.0, -4.0, 2.0])
    np.testing.assert_array_equal(r, [2.5, 0.5, -1.0, 0.5])
    np.testing.assert_allclose(p, [166.375, 30.25, 1 / 49.0, 2.5])
    np.testing.assert_array_equal(even, [6, -6, 7, 2])
    np.testing.assert_array_equal(away, [6, -6, 7, 3])


def test_complex_values_match_theano():
    z, x, y = T.zvector("z"), T.dvector("x"), T.dvector("y")
    f = jitgraph.function([z, x, y], [T.real(z), T.imag(z), T.angle(z), T.conj(z),
                                      T.complex(x, y), T.complex_from_polar(x, y), abs(z),
                                      T.angle(x), T.conj(x), T.real(x), T.imag(x), z * z])
    xs, ys = np.array([0.3, 1.7]), np.array([1.2, 2.5])
    got = f(xs + 1j * ys, xs, ys)
    want = [xs, ys, [1.32581766, 0.97361967], xs - 1j * ys, xs + 1j * ys,
            [0.10870733 + 0.27961173j, -1.36194415 + 1.01740264j], [1.23693169, 3.02324329],
            [0.0, 0.0], xs, xs, [0.0, 0.0], [-1.35 + 0.72j, -3.36 + 8.5j]]
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-8, err_msg=str(k))  # 8 digits recorded
    c = T.cvector("c")
    g = jitgraph.function([c], [T.real(c), T.conj(c)])(np.array([1 + 2j], "complex64"))
    assert g[0].dtype == np.float32 and g[1].dtype == np.complex64


def test_real_input_complex_functions_compile():
    x = T.vector("x", dtype="float32")
    i = T.TensorType("bool", (False,))("i")
    f = jitgraph.function([x, i], [T.real(x), T.imag(x), T.angle(x), T.conj(x), T.conj(i),
                                   T.angle(i)], mode=COMPILED)
    xs = np.array([-1.5, -0.0, 0.0, 2.0, np.nan], "float32")
    bs = np.array([True, False, True, False, True])
    re, im, ang, cj, cb, ab = f(xs, bs)
    np.testing.assert_equal(re, xs)
    np.testing.assert_equal(im, np.zeros(5, "float32"))
    np.testing.assert_equal(ang, np.angle(xs.astype(np.float64)))
    np.testing.assert_equal(cj, xs)
    assert cb.dtype == np.int8 and ab.dtype == np.float64
    np.testing.assert_equal(cb, bs.astype(np.int8))


# -- compiled vs perform under hypothesis ----------------------------------------------------

_FUNCTIONS = {}


def _pair(name, dtype, ndim):
    key = (name, dtype, ndim)
    if key not in _FUNCTIONS:
        x = T.TensorType(dtype, (False,) * ndim)("x")
        y = T.TensorType(dtype, (False,) * ndim)("y")
        out = (getattr(T, name)(x, y) if name in ("jv", "gammainc", "isclose")
               else getattr(T, name)(x))
        _FUNCTIONS[key] = (jitgraph.function([x, y], out, mode=COMPILED,
                                             on_unused_input="ignore"),
                           jitgraph.function([x, y], out, mode=PERFORM,
                                             on_unused_input="ignore"))
    return _FUNCTIONS[key]


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["gammaln", "erfcx", "deg2rad", "angle", "imag", "jv", "gammainc",
                             "isclose"]),
       dtype=st.sampled_from(["float32", "float64"]),
       shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
       seed=st.integers(0, 2 ** 16))
def test_compiled_matches_perform(name, dtype, shape, seed):
    rng = np.random.default_rng(seed)
    compiled, reference = _pair(name, dtype, len(shape))
    x = (rng.uniform(-3, 30, shape)).astype(dtype)
    y = (rng.uniform(0, 30, shape)).astype(dtype)
    if name == "isclose":
        y = np.where(rng.random(shape) < 0.5, x, y).astype(dtype)
    got, want = compiled(x, y), reference(x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    rtol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300)


# -- verify_grad ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, low, high", [
    ("gamma", 0.5, 4.0), ("gammaln", 0.5, 10.0), ("psi", 0.5, 10.0), ("erfcinv", 0.2, 1.8),
    ("erfcx", -1.0, 5.0), ("i0", -3.0, 3.0), ("i1", -3.0, 3.0), ("j0", 0.5, 10.0),
    ("j1", 0.5, 10.0), ("erfinv", -0.8, 0.8), ("deg2rad", -3.0, 3.0), ("rad2deg", -3.0, 3.0)])
def test_verify_grad_unary(name, low, high):
    verify_grad(getattr(T, name), [RNG.uniform(low, high, (3,))], rng=np.random.RandomState(1))


def test_verify_grad_bessel_in_x():
    order = np.array([0.5, 1.0, 2.3])
    verify_grad(lambda x: T.jv(order, x), [RNG.uniform(0.5, 10, (3,))],
                rng=np.random.RandomState(2))
    verify_grad(lambda x: T.iv(order, x), [RNG.uniform(0.5, 5, (3,))],
                rng=np.random.RandomState(3))


def test_verify_grad_through_complex_values():
    r = np.random.RandomState(4)
    xs, ys = RNG.uniform(0.5, 2, (3,)), RNG.uniform(-2, 2, (3,))
    verify_grad(lambda x, y: abs(T.complex(x, y)), [xs, ys], rng=r)
    verify_grad(lambda x, y: T.angle(T.complex(x, y)), [xs, ys], rng=r)
    verify_grad(lambda x, y: T.real(T.complex(x, y) * T.complex(y, x)), [xs, ys], rng=r)
    verify_grad(lambda x, y: T.imag(T.conj(T.complex(x, y) * T.complex(x, y))), [xs, ys], rng=r)
    verify_grad(lambda r_, t: T.real(T.complex_from_polar(r_, t))
                + 2 * T.imag(T.complex_from_polar(r_, t)), [xs, ys], rng=r)
    verify_grad(lambda x: T.real(x) + T.imag(x) + T.angle(x) + T.conj(x), [xs], rng=r)


def test_special_values_propagate_through_graphs():
    x = T.dvector("x")
    f = jitgraph.function([x], [T.gamma(x), T.psi(x), T.erfcinv(x), T.i0(x)], mode=COMPILED)
    xs = np.array([0.0, -1.0, np.inf, np.nan, 2.0])
    g, p, e, i = f(xs)
    np.testing.assert_equal(g, [math.inf, math.nan, math.inf, math.nan, 1.0])
    np.testing.assert_equal(p[[0, 1, 3]], [-math.inf, math.nan, math.nan])
    np.testing.assert_equal(e, [math.inf, math.nan, math.nan, math.nan, -math.inf])
    np.testing.assert_equal(i[[0, 2, 3]], [1.0, math.nan, math.nan])


def test_incomplete_gamma_special_values_match_scipy():
    import itertools

    values = [np.nan, np.inf, -1.0, 0.0, 0.3, 1.0, 2.5, 40.0]
    pairs = np.array(list(itertools.product(values, values)))
    a, x = T.dvectors("a", "x")
    f = jitgraph.function([a, x], [T.gammainc(a, x), T.gammaincc(a, x)], mode=COMPILED)
    p, q = f(pairs[:, 0].copy(), pairs[:, 1].copy())
    np.testing.assert_allclose(p, sp.gammainc(pairs[:, 0], pairs[:, 1]), rtol=1e-13,
                               equal_nan=True)
    np.testing.assert_allclose(q, sp.gammaincc(pairs[:, 0], pairs[:, 1]), rtol=1e-13,
                               equal_nan=True)
