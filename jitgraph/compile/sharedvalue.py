"""``theano.compile.sharedvalue``: shared variables as the compile step sees them.

The classes and the constructor registry live below the compile layer
(:mod:`jitgraph.graph.shared`, :mod:`jitgraph.tensor.sharedvar`); this module adds the
constructors that hand a value to another part of jitgraph only when the value needs it (an
array for a backend's device, a ``RandomState``, a SciPy sparse matrix), so ``shared()`` takes each of them right after
``import jitgraph`` without importing those parts before they are used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.compile.backend import backends
from jitgraph.graph.shared import SharedVariable, shared, shared_constructor
from jitgraph.tensor.sharedvar import (ScalarSharedVariable, TensorSharedVariable,
                                       scalar_constructor, tensor_constructor)


@shared_constructor
def device_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       broadcastable: Any = None, shape: Any = None, target: str | None = None
                       ) -> SharedVariable | None:
    """Arrays on a backend's device (the GPU's: ``device=cuda*``: float32 ones;
    ``target='cuda'``: any), made by the backend (:meth:`~.backend.Backend.make_shared`)."""
    for backend in backends():
        var = backend.make_shared(value, name=name, strict=strict,
                                  allow_downcast=allow_downcast, borrow=borrow,
                                  broadcastable=broadcastable, shape=shape, target=target)
        if var is not None:
            return var
    return None


@shared_constructor
def random_state_constructor(value: Any, **kwargs: Any) -> SharedVariable | None:
    """A ``numpy.random.RandomState``, through :mod:`jitgraph.random.random_state` (imported
    only for such a value), as ``theano.shared`` takes one right after ``import theano``."""
    if not isinstance(value, np.random.RandomState):
        return None
    from jitgraph.random.random_state import randomstate_constructor

    return randomstate_constructor(value, **kwargs)


@shared_constructor
def sparse_matrix_constructor(value: Any, name: str | None = None, strict: bool = False,
                              allow_downcast: bool | None = None, borrow: bool = False,
                              **kwargs: Any) -> SharedVariable | None:
    """A scipy.sparse matrix, through :mod:`jitgraph.sparse` (imported only for such a value:
    a value of a SciPy class means SciPy is loaded already)."""
    if not type(value).__module__.startswith("scipy.sparse"):
        return None
    from jitgraph.sparse.sharedvar import sparse_constructor

    return sparse_constructor(value, name=name, strict=strict, allow_downcast=allow_downcast,
                              borrow=borrow, **kwargs)


__all__ = ["ScalarSharedVariable", "SharedVariable", "TensorSharedVariable", "device_constructor",
           "random_state_constructor", "scalar_constructor", "shared", "shared_constructor",
           "sparse_matrix_constructor", "tensor_constructor"]
