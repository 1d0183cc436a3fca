"""``theano.scalar.basic_scipy``: where Theano 1.0 defined the SciPy-backed scalar ops (``Erfinv``,
``GammaLn``, ``Psi``, ``TriGamma``, ``Jv``, ... and their instances ``gammaln``, ``psi``, ...) --
the same objects as :mod:`jitgraph.scalar`, under the old path. PyMC3 builds its ``gammaln``
and ``psi`` from ``GammaLn(upgrade_to_float, name=...)`` imported from here."""

from jitgraph.lazy_exports import alias_module

__getattr__, __dir__ = alias_module(__name__, ["jitgraph.scalar"])
