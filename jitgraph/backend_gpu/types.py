"""GpuArrayType: an array on the GPU (a ``cupy.ndarray``), and its variables.

The type has a dtype and a broadcastable pattern like :class:`~jitgraph.tensor.core.type.TensorType`
but is a different type: a device value never flows into a CPU op without an explicit
``HostFromGpu`` node (and the other way with ``GpuFromHost``). A GPU variable behaves like a
tensor in user code: an operator or a tensor function applied to it works on
``host_from_gpu(var)`` (``as_tensor()``), and the GPU rewrite later moves the computation to the
device and cancels the transfer pair.
"""

from __future__ import annotations

import inspect
from typing import Any, Sequence

import numpy as np

from jitgraph.backend_gpu.device import import_cupy, on_device
from jitgraph.graph.basic import Constant, Variable
from jitgraph.graph.type import Type
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.type import ArrayTypeIdentity, TensorType
from jitgraph.tensor.core.var import _TensorOperators


def is_device_array(value: Any) -> bool:
    """A CuPy array (without importing CuPy)."""
    return type(value).__module__.startswith("cupy") and hasattr(value, "__cuda_array_interface__")


def to_host(value: Any) -> np.ndarray:
    return value.get() if is_device_array(value) else np.asarray(value)


def to_device(value: Any) -> Any:
    """``value`` on the initialised GPU (whichever device this thread has made current)."""
    with on_device():
        return import_cupy().asarray(value)


class GpuArrayType(ArrayTypeIdentity, Type):
    """``GpuArrayType(dtype, broadcastable)``: the type of GPU arrays."""

    def __init__(self, dtype: str, broadcastable: Sequence[bool], name: str | None = None
                 ) -> None:
        self.dtype = dt.normalize_dtype(dtype)
        self.broadcastable = tuple(bool(b) for b in broadcastable)
        self.name = name

    @classmethod
    def like(cls, ttype: Any) -> "GpuArrayType":
        return cls(ttype.dtype, ttype.broadcastable)

    def host_type(self) -> TensorType:
        return TensorType(self.dtype, self.broadcastable)

    def __str__(self) -> str:
        if self.name:
            return self.name
        return "Gpu" + str(self.host_type())

    __repr__ = __str__

    def clone(self, dtype: str | None = None, broadcastable: Sequence[bool] | None = None
              ) -> "GpuArrayType":
        return GpuArrayType(dtype or self.dtype,
                            self.broadcastable if broadcastable is None else broadcastable)

    # -- values ---------------------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """``data`` as a CuPy array of this type (host data is uploaded)."""
        if is_device_array(data):
            if data.dtype.name != self.dtype:
                if strict:
                    raise TypeError(f"expected a GPU array of dtype {self.dtype}, got "
                                    f"{data.dtype}")
                host = self.host_type().filter(data.get(), False, allow_downcast)
                data = to_device(host)
        else:
            if strict:
                raise TypeError(f"expected a GPU array (cupy.ndarray), got {type(data).__name__}")
            data = to_device(self.host_type().filter(data, False, allow_downcast))
        self._check_shape(data)
        return data

    def _check_shape(self, arr: Any) -> None:
        if arr.ndim != self.ndim:
            raise TypeError(f"wrong number of dimensions: expected {self.ndim} ({self}), got "
                            f"{arr.ndim} (shape {arr.shape})")
        for axis, (b, n) in enumerate(zip(self.broadcastable, arr.shape)):
            if b and n != 1:
                raise TypeError(f"dimension {axis} of {self} is broadcastable (length 1), but "
                                f"the value has shape {arr.shape}")

    def is_valid_value(self, data: Any) -> bool:
        return (is_device_array(data) and data.dtype.name == self.dtype
                and data.ndim == self.ndim
                and all(n == 1 for b, n in zip(self.broadcastable, data.shape) if b))

    def values_eq(self, a: Any, b: Any) -> bool:
        return self.host_type().values_eq(to_host(a), to_host(b))

    def values_eq_approx(self, a: Any, b: Any, **kwargs: Any) -> bool:
        return self.host_type().values_eq_approx(to_host(a), to_host(b), **kwargs)

    def value_signature(self, data: Any) -> tuple:
        return ("gpu",) + self.host_type().value_signature(to_host(data))

    def short_value_repr(self, data: Any) -> str:
        return self.host_type().short_value_repr(to_host(data))

    def get_shape_info(self, value: Any) -> tuple[int, ...]:
        return tuple(value.shape)

    def get_size(self, shape_info: tuple[int, ...]) -> int:
        return int(np.prod(shape_info, dtype=np.int64)) * np.dtype(self.dtype).itemsize

    # -- variables ------------------------------------------------------------------------
    def make_variable(self, name: str | None = None) -> "GpuArrayVariable":
        return GpuArrayVariable(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None) -> "GpuArrayConstant":
        return GpuArrayConstant(self, value, name)

    def convert_variable(self, var: Any) -> Any:
        """``var`` usable where this type is expected: a host tensor is transferred."""
        other = var.type
        if other == self:
            return var
        if isinstance(other, TensorType):
            host = self.host_type().convert_variable(var)
            if host is None:
                return None
            from jitgraph.backend_gpu.ops import gpu_from_host

            return gpu_from_host(host)
        if (isinstance(other, GpuArrayType) and other.dtype == self.dtype
                and other.ndim == self.ndim
                and all(o or not s for s, o in zip(self.broadcastable, other.broadcastable))):
            from jitgraph.backend_gpu.ops import gpu_from_host, host_from_gpu

            return gpu_from_host(self.host_type().convert_variable(host_from_gpu(var)))
        return None


class _GpuOperators:
    """Tensor methods and operators of GPU variables: each works on ``self.as_tensor()``."""

    __array_priority__ = 1000

    def as_tensor(self) -> Variable:
        from jitgraph.backend_gpu.ops import host_from_gpu

        return host_from_gpu(self)

    @property
    def ndim(self) -> int:
        return self.type.ndim  # type: ignore[attr-defined]

    @property
    def dtype(self) -> str:
        return self.type.dtype  # type: ignore[attr-defined]

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable  # type: ignore[attr-defined]

    def transfer(self, target: str) -> Variable:
        """``'cpu'``: this value on the host; a GPU target: itself."""
        return self.as_tensor() if target == "cpu" else self  # type: ignore[return-value]


def _delegate_tensor_api() -> None:
    """Give :class:`_GpuOperators` every operator and method of tensor variables."""
    skip = {"ndim", "dtype", "broadcastable", "__str__", "__array_priority__"}
    for name, attr in _TensorOperators.__dict__.items():
        if name in skip or name in ("__module__", "__doc__", "__dict__", "__weakref__"):
            continue
        if isinstance(attr, property):
            setattr(_GpuOperators, name, property(
                lambda self, _n=name: getattr(self.as_tensor(), _n)))
        elif inspect.isfunction(attr):
            def method(self: Any, *args: Any, _n: str = name, **kwargs: Any) -> Any:
                return getattr(self.as_tensor(), _n)(*args, **kwargs)

            method.__name__ = name
            setattr(_GpuOperators, name, method)


_delegate_tensor_api()


class GpuArrayVariable(_GpuOperators, Variable):
    """A symbolic GPU array."""


class GpuArrayConstant(_GpuOperators, Constant):
    """A constant GPU array (its value is a CuPy array)."""
