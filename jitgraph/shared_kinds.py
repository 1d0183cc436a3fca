"""Every kind of value ``shared()`` takes, registered before the first shared variable is made.

:func:`jitgraph.graph.shared.shared` asks the registered constructors, most recent first; each
kind registers its own where its type lives. This module, at the top of the package, makes sure
all of them are registered whatever the user imported first (``graph.shared`` loads it through
the ``shared_kinds`` service on first use): arrays and scalars (:mod:`jitgraph.tensor.core.sharedvar`),
arrays on a backend's device (:mod:`jitgraph.compile.sharedvalue`), and two kinds whose modules
are imported only for such a value -- a ``numpy.random.RandomState`` (:mod:`jitgraph.random`)
and a SciPy sparse matrix (:mod:`jitgraph.sparse`, which needs SciPy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.compile import sharedvalue  # noqa: F401  (registers the tensor and device kinds)
from jitgraph.graph.shared import SharedVariable, register_kind


@register_kind
def random_state_constructor(value: Any, **kwargs: Any) -> SharedVariable | None:
    """A ``numpy.random.RandomState``, through :mod:`jitgraph.random.random_state` (imported
    only for such a value), as ``theano.shared`` takes one right after ``import theano``."""
    if not isinstance(value, np.random.RandomState):
        return None
    # imported here: jitgraph.random (and its rewrites) costs ~20 ms, and a cold compile of a
    # graph without random ops must not register its rewrites
    from jitgraph.random.random_state import randomstate_constructor

    return randomstate_constructor(value, **kwargs)


@register_kind
def sparse_matrix_constructor(value: Any, name: str | None = None, strict: bool = False,
                              allow_downcast: bool | None = None, borrow: bool = False,
                              **kwargs: Any) -> SharedVariable | None:
    """A scipy.sparse matrix, through :mod:`jitgraph.sparse` (imported only for such a value:
    a value of a SciPy class means SciPy is loaded already)."""
    if not type(value).__module__.startswith("scipy.sparse"):
        return None
    # imported here: jitgraph.sparse (and its rewrites) costs ~25 ms, see above
    from jitgraph.sparse.sharedvar import sparse_constructor

    return sparse_constructor(value, name=name, strict=strict, allow_downcast=allow_downcast,
                              borrow=borrow, **kwargs)


__all__ = ["random_state_constructor", "sparse_matrix_constructor"]
