"""Shared variables on the GPU.

With ``device=cuda*`` (and a usable GPU) every float32 array given to ``jitgraph.shared`` lives
on the device, as in Theano; ``shared(value, target='cuda')`` (or ``'gpu'``, ``'cudaN'``) puts
any supported dtype there once a GPU is initialised (``init_gpu_device`` or
:func:`jitgraph.backend_gpu.use`). Updates computed on the device stay there between calls.

``get_value()`` returns a NumPy array (``return_internal_type=True``: the CuPy array itself);
``set_value`` accepts NumPy or CuPy arrays. Pickling stores a NumPy array.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from jitgraph.compile.sharedvalue import SharedVariable
from jitgraph.backend_gpu.types import GpuArrayType, _GpuOperators, is_device_array, to_host
from jitgraph.backend_gpu import device
from jitgraph.backend_gpu.cuda_types import SUPPORTED_DTYPES


class GpuArraySharedVariable(_GpuOperators, SharedVariable):
    """A shared array whose value is a CuPy array."""

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        if return_internal_type:
            return self._value if borrow else self._value.copy()
        return to_host(self._value)

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        if isinstance(new_value, np.ndarray) and new_value.dtype.name != self.type.dtype \
                and not self.strict:
            raise TypeError(f"shared variable {self.name or self}: new value has dtype "
                            f"{new_value.dtype}, the variable is {self.type}; cast it first")
        value = self.type.filter(new_value, strict=False, allow_downcast=self.allow_downcast)
        if value is new_value and not borrow:
            value = value.copy()
        self._value = value

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state["_value"] = to_host(state["_value"])
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._value = self.type.filter(state["_value"])

    def __deepcopy__(self, memo: dict) -> "GpuArraySharedVariable":
        new = copy.copy(self)
        new._value = self._value.copy()
        return new


_TARGETS_GPU = ("cuda", "gpu", "dev")


def _is_gpu_target(target: Any) -> bool:
    return isinstance(target, str) and target.startswith(_TARGETS_GPU)


def gpu_constructor(value: Any, name: str | None = None, strict: bool = False,
                    allow_downcast: bool | None = None, borrow: bool = False,
                    broadcastable: Any = None, shape: Any = None, target: Any = None
                    ) -> GpuArraySharedVariable | None:
    """The device shared variable for ``value``, or None to let the CPU constructor have it."""
    if target == "cpu":
        return None
    if not (is_device_array(value) or isinstance(value, np.ndarray)):
        return None
    explicit = _is_gpu_target(target)
    if target is not None and not explicit:
        return None
    dev = device.init() if not explicit else (device.active() or device.init())
    if dev is None:
        if explicit:
            raise ValueError(f"shared(target={target!r}): no GPU is initialised; set "
                             "device=cuda or init_gpu_device=cuda0, or call "
                             "jitgraph.backend_gpu.use()")
        return None
    if not explicit and not (dev.moves_shared and value.dtype.name == "float32"):
        return None
    if value.dtype.name not in SUPPORTED_DTYPES:
        return None
    if broadcastable is None:
        broadcastable = [False] * value.ndim if shape is None else [s == 1 for s in shape]
    gtype = GpuArrayType(value.dtype.name, broadcastable)
    var = GpuArraySharedVariable.__new__(GpuArraySharedVariable)
    SharedVariable.__init__(var, gtype, value if borrow or is_device_array(value) else
                            np.array(value, copy=True), name, strict, allow_downcast, True)
    if not borrow and is_device_array(value) and var._value is value:
        var._value = value.copy()
    return var
