"""The GPU's array module (:class:`~jitgraph.compile.array_module.ArrayModule` over CuPy):
what a loop on the device (a scan's buffers) allocates and copies its arrays with, so that its
state never leaves the device between steps."""

from __future__ import annotations

from typing import Any

from jitgraph.compile.array_module import ArrayModule

from jitgraph.backend_gpu.device import import_cupy
from jitgraph.backend_gpu.types import is_device_array


class DeviceArrays(ArrayModule):
    """CuPy arrays on the current device."""

    name = "gpu"

    def empty(self, shape: tuple, dtype: Any) -> Any:
        return import_cupy().empty(shape, dtype=dtype)

    def is_array(self, value: Any) -> bool:
        return is_device_array(value)

    def copy(self, value: Any) -> Any:
        return value.copy()

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return bool(import_cupy().may_share_memory(a, b))

    def same_entry(self, value: Any, buf: Any) -> bool:
        if not is_device_array(value) or value.shape != buf.shape[1:]:
            return False
        return value.data.ptr == buf.data.ptr and value.strides == buf.strides[1:]

    def truth(self, value: Any) -> bool:
        """The condition's one element, read back (one scalar per step: where the loop
        stops is the host's decision)."""
        if not is_device_array(value):
            return super().truth(value)
        if value.size != 1:
            raise ValueError(f"expected a scalar, got shape {value.shape}")
        return bool(value.item())


DEVICE_ARRAYS = DeviceArrays()

__all__ = ["DeviceArrays", "DEVICE_ARRAYS"]
