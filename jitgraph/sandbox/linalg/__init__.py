"""``theano.sandbox.linalg``: the linear-algebra functions (from :mod:`jitgraph.tensor.linalg.nlinalg`
and :mod:`jitgraph.tensor.linalg.slinalg`) and the hints of :mod:`jitgraph.sandbox.linalg.ops`
(``psd``, ``spectral_radius_bound``)."""

from jitgraph.sandbox.linalg.ops import psd, spectral_radius_bound
from jitgraph.tensor.linalg.nlinalg import (alloc_diag, det, diag, eig, eigh, extract_diag,
                                     matrix_inverse, trace)
from jitgraph.tensor.linalg.slinalg import cholesky, eigvalsh, solve

__all__ = ["cholesky", "det", "diag", "eig", "eigh", "eigvalsh", "matrix_inverse", "solve",
           "trace", "alloc_diag", "extract_diag", "psd", "spectral_radius_bound"]
