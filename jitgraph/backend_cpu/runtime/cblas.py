"""``C = alpha * A @ B + beta * C`` in place, through the BLAS NumPy itself links.

``numpy.dot`` cannot accumulate: ``gW += h.T @ dz`` (the weight gradient of back-propagation
through time, a Gemm with ``beta = 1``) is a product into a temporary and a pass adding it to
``gW``, which for a 256x256 matrix moves 1.5 MB per step. BLAS's ``gemm`` does it in one call.
NumPy's wheels bundle OpenBLAS built with 64-bit integers and suffixed symbol names
(``scipy_cblas_dgemm64_``); this module finds that library next to NumPy and calls its CBLAS
``gemm`` through ctypes. Nothing here is required: :func:`gemm` returns False (and does
nothing) when the library or the symbol is not there, for other dtypes, layouts it does not
describe to BLAS (negative or irregular strides), empty matrices, or an output overlapping an
input; the caller then computes the product with ``numpy.dot``.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
#: dtype char ('d', 'f') -> the ctypes function, or None when there is none
_FUNCTIONS: dict[str, Any] = {}


def _library_paths() -> list[str]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    found: list[str] = []
    for folder in ("numpy.libs", os.path.join("numpy", ".dylibs")):
        # os.listdir, not glob: importing glob (and compiling its patterns) cost a warm
        # compile milliseconds; hidden files are skipped as glob's "*" does
        try:
            names = os.listdir(os.path.join(root, folder))
        except OSError:
            continue
        found += sorted(os.path.join(root, folder, name) for name in names
                        if "openblas" in name and not name.startswith("."))
    return found


def _function(char: str) -> Any:
    """The CBLAS ``dgemm``/``sgemm`` of NumPy's bundled OpenBLAS (64-bit integers), or None."""
    if char in _FUNCTIONS:
        return _FUNCTIONS[char]
    fn = None
    real = ctypes.c_double if char == "d" else ctypes.c_float
    prefix = "d" if char == "d" else "s"
    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in (f"scipy_cblas_{prefix}gemm64_", f"cblas_{prefix}gemm64_"):
            fn = getattr(lib, name, None)
            if fn is not None:
                i32, i64, ptr = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
                fn.argtypes = [i32, i32, i32, i64, i64, i64, real, ptr, i64, ptr, i64, real,
                               ptr, i64]
                fn.restype = None
                break
        if fn is not None:
            break
    _FUNCTIONS[char] = fn
    return fn


def _layout(x: np.ndarray, item: int) -> tuple[int, int] | None:
    """``(transpose flag, leading dimension)`` describing ``x`` to row-major BLAS, or None."""
    rows, cols = x.shape
    s0, s1 = x.strides
    if s1 == item and s0 % item == 0 and s0 >= cols * item:
        return _NO_TRANS, s0 // item
    if s0 == item and s1 % item == 0 and s1 >= rows * item:  # a transposed row-major matrix
        return _TRANS, s1 // item
    return None


def gemm(alpha: float, a: np.ndarray, b: np.ndarray, beta: float, c: np.ndarray) -> bool:
    """``c[...] = alpha * a @ b + beta * c`` for 2-d float64/float32 arrays; False (``c``
    untouched) when BLAS cannot be called this way (see the module docstring)."""
    dtype = c.dtype
    char = dtype.char
    if char not in "df" or a.dtype != dtype or b.dtype != dtype \
            or a.ndim != 2 or b.ndim != 2 or c.ndim != 2:
        return False
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or c.shape != (m, n) or m == 0 or n == 0 or k == 0:
        return False
    item = dtype.itemsize
    if c.strides[1] != item or c.strides[0] < n * item or c.strides[0] % item \
            or not c.flags.writeable:
        return False
    la, lb = _layout(a, item), _layout(b, item)
    if la is None or lb is None or np.may_share_memory(c, a) or np.may_share_memory(c, b):
        return False
    fn = _function(char)
    if fn is None:
        return False
    from jitgraph.backend_cpu.runtime.blas_threads import call

    # on all BLAS threads or on one, whichever is currently faster for this shape
    call(("gemm", m, n, k, char, la, lb), m * n * k, fn, _ROW_MAJOR, la[0], lb[0], m, n, k,
         alpha, a.ctypes.data, la[1], b.ctypes.data, lb[1], beta, c.ctypes.data,
         c.strides[0] // item)
    return True
