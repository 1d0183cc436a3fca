"""Small Numba helpers that generated kernels import by name (so their source stays cacheable)."""

from __future__ import annotations

import numba


@numba.njit(nogil=True, error_model="numpy", cache=False)
def ipow(x, y):  # noqa: ANN001, ANN201 - Numba function
    """``x ** y`` for 64-bit integers with wrapping overflow, as NumPy's integer power."""
    if y < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    result = x - x + 1
    base = x
    while y:
        if y & 1:
            result = result * base
        base = base * base
        y = y >> 1
    return result
