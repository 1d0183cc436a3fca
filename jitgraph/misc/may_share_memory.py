"""``may_share_memory(a, b)``: whether two values may use the same memory (Theano's
``theano.misc.may_share_memory``).

NumPy arrays are compared with :func:`numpy.may_share_memory`; a scipy.sparse matrix is compared
through the arrays it stores (``data``, ``indices``, ``indptr``, ``row``/``col``, ...), and CuPy
arrays with :func:`cupy.may_share_memory`. Neither SciPy nor CuPy is imported here: a value
is recognised by its class, and a value of those libraries means the library is loaded already.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__all__ = ["may_share_memory"]

#: attributes that hold a sparse matrix's storage, over every scipy.sparse format
_SPARSE_STORAGE = ("data", "indices", "indptr", "row", "col", "offsets", "rows")


def _is_sparse(value: Any) -> bool:
    scipy_sparse = sys.modules.get("scipy.sparse")
    return scipy_sparse is not None and scipy_sparse.issparse(value)


def _is_device_array(value: Any) -> bool:
    return type(value).__module__.startswith("cupy") and hasattr(value, "__cuda_array_interface__")


def _sparse_arrays(value: Any) -> list[np.ndarray]:
    """The NumPy arrays a scipy.sparse matrix stores its entries in (a lil matrix's ``data`` and
    ``rows`` are object arrays of lists: those lists are compared as well)."""
    arrays = []
    for attr in _SPARSE_STORAGE:
        stored = getattr(value, attr, None)
        if isinstance(stored, np.ndarray):
            arrays.append(stored)
    coords = getattr(value, "coords", None)  # SciPy >= 1.13 stores a coo matrix's row/col here
    if isinstance(coords, tuple):
        arrays.extend(c for c in coords if isinstance(c, np.ndarray))
    return arrays


def _object_lists(arrays: list[np.ndarray]) -> set[int]:
    return {id(item) for arr in arrays if arr.dtype == object for item in arr.flat}


def _sparse_may_share(a: Any, b: Any) -> bool:
    if a is b:  # a dok matrix stores no arrays, yet shares memory with itself
        return True
    a_arrays = _sparse_arrays(a) if _is_sparse(a) else [a]
    b_arrays = _sparse_arrays(b) if _is_sparse(b) else [b]
    if any(np.may_share_memory(x, y) for x in a_arrays for y in b_arrays):
        return True
    # lil matrices keep a Python list per row: two matrices share a row when they hold the same list
    return bool(_object_lists(a_arrays) & _object_lists(b_arrays))


def may_share_memory(a: Any, b: Any, raise_other_type: bool = True) -> bool:
    """True when ``a`` and ``b`` may share memory: writing to one could change the other.

    ``a`` and ``b`` are NumPy arrays (subclasses included), scipy.sparse matrices or CuPy arrays.
    For any other value this raises TypeError, or returns False when ``raise_other_type`` is
    False. A host value never shares memory with a device value.
    """
    a_ndarray, b_ndarray = isinstance(a, np.ndarray), isinstance(b, np.ndarray)
    if a_ndarray and b_ndarray:
        return bool(np.may_share_memory(a, b))
    a_sparse, b_sparse = _is_sparse(a), _is_sparse(b)
    a_device, b_device = _is_device_array(a), _is_device_array(b)
    unsupported = [name for name, value, known in
                   (("a", a, a_ndarray or a_sparse or a_device),
                    ("b", b, b_ndarray or b_sparse or b_device)) if not known]
    if unsupported:
        if raise_other_type:
            got = ", ".join(f"{name} is a {type(v).__module__}.{type(v).__qualname__}"
                            for name, v in (("a", a), ("b", b)) if name in unsupported)
            raise TypeError("may_share_memory supports NumPy ndarrays, scipy.sparse matrices "
                            f"and CuPy arrays only; {got} (pass raise_other_type=False to get "
                            "False for other values)")
        return False
    if a_device and b_device:
        cupy = sys.modules["cupy"]
        return bool(cupy.may_share_memory(a, b))
    if a_device or b_device:
        return False
    return _sparse_may_share(a, b)
