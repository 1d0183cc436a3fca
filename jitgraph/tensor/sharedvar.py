"""``theano.tensor.sharedvar``: the shared-variable classes and constructors of tensors, which
live in :mod:`jitgraph.compile.sharedvalue`, under Theano's import path."""

from __future__ import annotations

from typing import Any

from jitgraph.compile.sharedvalue import (ScalarSharedVariable, SharedVariable,
                                          TensorSharedVariable, scalar_constructor,
                                          shared_constructor, tensor_constructor)
from jitgraph.tensor.type import TensorType


def load_shared_variable(val: Any) -> TensorSharedVariable:
    """A shared variable holding the array ``val`` (used when unpickling Theano's old shared
    variables)."""
    return tensor_constructor(val)


__all__ = ["ScalarSharedVariable", "SharedVariable", "TensorSharedVariable", "TensorType",
           "load_shared_variable", "scalar_constructor", "shared_constructor",
           "tensor_constructor"]
