"""``theano.scalar.sharedvar``: shared variables of the scalar type (``jitgraph.scalar``'s
``ScalarType``, not 0-d tensors), for graphs built from scalar ops. ``theano.shared(0.1)``
makes a 0-d *tensor* shared variable (:class:`jitgraph.compile.sharedvalue.ScalarSharedVariable`);
this module's ``shared`` makes a scalar-typed one."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.shared import SharedVariable
from jitgraph.scalar.type import ScalarType
from jitgraph.scalar.var import _ScalarOperators

Scalar = ScalarType


class ScalarSharedVariable(_ScalarOperators, SharedVariable):
    """A shared variable of a :class:`~jitgraph.scalar.type.ScalarType`, with the scalar
    arithmetic operators."""


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None) -> ScalarSharedVariable:
    """A scalar-typed shared variable holding ``value``, a Python or NumPy number (int64 for a
    Python int, float64 for a float, complex128 for a complex; a NumPy number keeps its
    dtype)."""
    if isinstance(value, bool) or not isinstance(value, (np.number, int, float, complex)):
        raise TypeError(f"jitgraph.scalar.sharedvar.shared takes a Python or NumPy number, got "
                        f"{value!r} ({type(value).__name__})")
    dtype = str(getattr(value, "dtype", np.asarray(value).dtype))
    return ScalarSharedVariable(type=ScalarType(dtype), value=getattr(np, dtype)(value),
                                name=name, strict=strict, allow_downcast=allow_downcast)


__all__ = ["ScalarSharedVariable", "shared", "Scalar", "SharedVariable"]
