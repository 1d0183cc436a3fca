"""SciPy, the optional dependency of sparse matrices: imported on first use, with a message
naming the ``jitgraph[sparse]`` extra when it is missing.

``import jitgraph.sparse`` works without SciPy (so that the names can be listed and documented);
building a sparse variable, constant or graph needs it.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

_EXTRA_HINT = ("jitgraph's sparse matrices are scipy.sparse matrices: install SciPy with "
               "`pip install jitgraph[sparse]` (or `pip install scipy`)")


#: whether sparse matrices can be used: SciPy is installed (Theano's
#: ``theano.sparse.enable_sparse``; found without importing SciPy)
enable_sparse: bool = importlib.util.find_spec("scipy") is not None


class SparseNeedsScipyError(ImportError):
    """SciPy is not installed, and a sparse variable or value was asked for."""


def scipy_sparse() -> ModuleType:
    """The ``scipy.sparse`` module, or :class:`SparseNeedsScipyError` naming the extra."""
    try:
        import scipy.sparse as sp
    except ImportError as exc:
        raise SparseNeedsScipyError(f"{_EXTRA_HINT} ({exc})") from None
    return sp


def is_sparse_value(value: Any) -> bool:
    """Whether ``value`` is a scipy.sparse matrix or array (checked without importing SciPy:
    a value of a SciPy class means SciPy is loaded already)."""
    module = type(value).__module__
    if not module.startswith("scipy.sparse"):
        return False
    return bool(scipy_sparse().issparse(value))


def format_class(fmt: str) -> type:
    """The scipy.sparse matrix class of format ``fmt`` ('csc', 'csr' or 'bsr')."""
    sp = scipy_sparse()
    return {"csc": sp.csc_matrix, "csr": sp.csr_matrix, "bsr": sp.bsr_matrix}[fmt]
