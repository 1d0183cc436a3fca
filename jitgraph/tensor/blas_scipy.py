"""``theano.tensor.blas_scipy``: Theano's ``Ger`` calling SciPy's BLAS. jitgraph has one
``Ger`` (:mod:`jitgraph.tensor.blas`): ``ScipyGer`` is it."""

from jitgraph.tensor.blas import Ger, ger, ger_destructive

ScipyGer = Ger
scipy_ger_no_inplace = ger
scipy_ger_inplace = ger_destructive

__all__ = ["ScipyGer", "scipy_ger_inplace", "scipy_ger_no_inplace", "Ger"]
