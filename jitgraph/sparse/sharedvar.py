"""Shared variables holding a ``scipy.sparse`` matrix (``jitgraph.shared(matrix)`` and
``theano.sparse.shared``)."""

from __future__ import annotations

import copy
from typing import Any

from jitgraph.graph.shared import SharedVariable
from jitgraph.sparse.scipy_support import is_sparse_value
from jitgraph.sparse.type import SparseType, format_of
from jitgraph.sparse.variable import _SparseOperators


class SparseSharedVariable(_SparseOperators, SharedVariable):
    """A shared scipy.sparse matrix (its format and dtype are fixed by its first value)."""


def sparse_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       format: str | None = None, **_: Any) -> SparseSharedVariable | None:
    """The shared variable of a scipy.sparse matrix (tried by ``jitgraph.shared``); None for
    any other value. ``format`` converts the value first."""
    if not is_sparse_value(value):
        return None
    fmt = format or format_of(value)
    if value.format != fmt:
        value = value.asformat(fmt)
        borrow = True  # already a new matrix
    stype = SparseType(fmt, str(value.dtype))
    if not borrow:
        value = copy.deepcopy(value)
    return SparseSharedVariable(stype, value, name, strict, allow_downcast, borrow=True)


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None, borrow: bool = False,
           format: str | None = None) -> SparseSharedVariable:
    """``theano.sparse.shared``: a shared variable holding the scipy.sparse matrix ``value``."""
    var = sparse_constructor(value, name, strict, allow_downcast, borrow, format)
    if var is None:
        raise TypeError(f"sparse.shared needs a scipy.sparse matrix, got {type(value).__name__}"
                        "; use jitgraph.shared for arrays")
    return var


#: Theano's name for the class
SparseTensorSharedVariable = SparseSharedVariable
