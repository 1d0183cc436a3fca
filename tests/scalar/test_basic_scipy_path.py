"""``theano.scalar.basic_scipy`` (PyMC3 3.x imports ``GammaLn`` and ``Psi`` from it and builds
its ``gammaln``/``psi`` Elemwise ops with them): the same classes and ops as ``jitgraph.scalar``;
values as Theano 1.0.5 gives them (its digamma is accurate to about 1e-10 only: jitgraph's
agrees with SciPy to rounding)."""

import numpy as np

import jitgraph as theano
import jitgraph.tensor as tt
from jitgraph import scalar


def test_pymc3_special_functions_from_the_old_path():
    from jitgraph.scalar.basic_scipy import GammaLn, Psi, TriGamma, gammaln

    assert GammaLn is scalar.GammaLn and gammaln is scalar.gammaln
    assert TriGamma is scalar.TriGamma
    pm_gammaln = tt.Elemwise(GammaLn(scalar.upgrade_to_float, name="scalar_gammaln"),
                             name="gammaln")
    pm_psi = tt.Elemwise(Psi(scalar.upgrade_to_float, name="scalar_psi"), name="psi")
    x, i = tt.dvector("x"), tt.ivector("i")
    f = theano.function([x, i], [pm_gammaln(x), pm_psi(x), theano.grad(pm_gammaln(x).sum(), x),
                                 pm_gammaln(i), pm_psi(i)])
    got = f(np.array([0.5, 3.0, 7.25]), np.array([1, 2, 5], dtype="int32"))
    assert all(g.dtype == np.float64 for g in got)  # upgrade_to_float: int32 -> float64
    np.testing.assert_allclose(got[0], [0.572364942925, 0.69314718056, 7.052185450739],
                               rtol=1e-11)
    np.testing.assert_allclose(got[1], [-1.963510026021, 0.922784335098, 1.910453526884],
                               rtol=1e-11)
    np.testing.assert_allclose(got[1], got[2], rtol=1e-15)  # d/dx gammaln = psi
    np.testing.assert_allclose(got[3], [0.0, 0.0, 3.178053830348], atol=1e-12)
    np.testing.assert_allclose(got[4], [-0.577215664902, 0.422784335098, 1.506117668432],
                               rtol=1e-11)
