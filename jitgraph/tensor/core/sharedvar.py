"""Shared arrays (``theano.tensor.sharedvar``): :class:`TensorSharedVariable`, the 0-d
:class:`ScalarSharedVariable`, and their constructors, registered with
:func:`jitgraph.graph.shared.shared` when this module is imported."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.shared import (COMPUTATION_TARGET, SharedVariable, register_kind,
                                   shared_constructor)
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.var import _TensorOperators


class TensorSharedVariable(_TensorOperators, SharedVariable):
    """A shared ndarray. Its broadcastable pattern is all False unless given, so that
    ``set_value`` may later change any dimension. A new value of another dtype is kept when
    the variable's dtype holds it without loss (an int8 array in a float32 variable), as
    Theano's does; otherwise ``set_value`` raises."""


@register_kind
def tensor_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       broadcastable: Any = None, shape: Any = None, target: str | None = None
                       ) -> TensorSharedVariable | None:
    if target not in (None, "cpu", COMPUTATION_TARGET):
        return None  # (a device's target: its backend's constructor decides)
    if isinstance(value, (bool, int, float, complex, np.generic)):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        return None
    if broadcastable is None:
        broadcastable = [False] * value.ndim if shape is None else [s == 1 for s in shape]
    ttype = TensorType(value.dtype.name, broadcastable)
    return TensorSharedVariable(ttype, value, name, strict, allow_downcast, borrow)


class ScalarSharedVariable(TensorSharedVariable):
    """A shared 0-d tensor made from a Python or NumPy scalar (``shared(0.1)``), Theano's class
    for them; it behaves as any :class:`TensorSharedVariable`."""


@register_kind
def scalar_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       target: str | None = None, **tensor_options: Any
                       ) -> ScalarSharedVariable | None:
    """A :class:`ScalarSharedVariable` for a Python or NumPy scalar (None for anything else,
    for a device target -- the device constructor decides those -- and when tensor options
    such as ``broadcastable`` are given: :func:`tensor_constructor` takes them)."""
    if tensor_options or target not in (None, "cpu", COMPUTATION_TARGET) or \
            not isinstance(value, (bool, int, float, complex, np.generic)):
        return None
    value = np.asarray(value)
    return ScalarSharedVariable(TensorType(value.dtype.name, []), value, name, strict,
                                allow_downcast, borrow)


def load_shared_variable(val: Any) -> TensorSharedVariable:
    """A shared variable holding the array ``val`` (used when unpickling Theano's old shared
    variables)."""
    return tensor_constructor(val)


__all__ = ["ScalarSharedVariable", "SharedVariable", "TensorSharedVariable", "TensorType",
           "load_shared_variable", "scalar_constructor", "shared_constructor",
           "tensor_constructor"]
