"""``theano.compile.sharedvalue``: shared variables as the compile step sees them.

The classes and the constructor registry live below the compile layer
(:mod:`jitgraph.graph.shared`, :mod:`jitgraph.tensor.core.sharedvar`); this module adds the
constructor of arrays on a backend's device, which asks the registered backends. (The kinds of
value that belong to layers above this one, ``RandomState`` and SciPy sparse matrices, are
registered by :mod:`jitgraph.shared_kinds`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.compile.backend import backends
from jitgraph.graph.shared import SharedVariable, register_kind, shared, shared_constructor
from jitgraph.tensor.core.sharedvar import (ScalarSharedVariable, TensorSharedVariable,
                                       scalar_constructor, tensor_constructor)


@register_kind
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


__all__ = ["ScalarSharedVariable", "SharedVariable", "TensorSharedVariable", "device_constructor",
           "scalar_constructor", "shared", "shared_constructor", "tensor_constructor"]
