"""Where a loop keeps its arrays: the array module a backend gives code that allocates and
copies arrays between the nodes of a program (the scan runner's buffers).

:class:`ArrayModule` is the host's (NumPy); a backend whose values live on a device gives its
own through :meth:`jitgraph.compile.backend.Backend.array_module` (the GPU one: CuPy arrays,
so that a loop's state and outputs stay on the device between steps).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class ArrayModule:
    """Arrays on the host: NumPy. A device's module overrides every method."""

    #: a short name for messages (``"host"``, ``"gpu"``)
    name = "host"

    def empty(self, shape: tuple, dtype: Any) -> Any:
        """An uninitialised array of this device."""
        return np.empty(shape, dtype=dtype)

    def is_array(self, value: Any) -> bool:
        """Whether ``value`` is an array of this device (else a value of another kind, a
        random state, ...)."""
        return isinstance(value, np.ndarray)

    def copy(self, value: Any) -> Any:
        """A copy of an array of this device."""
        return np.array(value, copy=True)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        """Whether two arrays of this device may overlap."""
        return np.may_share_memory(a, b)

    def same_entry(self, value: Any, buf: Any) -> bool:
        """Whether ``value`` is the first entry of ``buf`` (``buf[0]``, the same memory and
        layout): a step that updated its state in place returned it."""
        if not self.is_array(value) or value.shape != buf.shape[1:]:
            return False
        return (_address(value) == _address(buf) and value.strides == buf.strides[1:])

    def truth(self, value: Any) -> bool:
        """The truth of a one-element array (an ``until`` condition)."""
        arr = np.asarray(value)
        if arr.size != 1:
            raise ValueError(f"expected a scalar, got shape {arr.shape}")
        return bool(arr)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


#: the host's array module (the CPU backend's, and the default)
HOST_ARRAYS = ArrayModule()

__all__ = ["ArrayModule", "HOST_ARRAYS"]
