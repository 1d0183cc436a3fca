"""The GPU lowering registry: CPU op class -> how the op runs on the device.

An entry (:class:`GpuImpl`) says

* ``placement(node)``: which inputs/outputs of a (CPU) node live on the device;
* ``check(node)``: raises :class:`~.cuda_types.Unsupported` when this node cannot run there
  (a dtype without a CUDA path, a scalar op without a template): it then stays on the CPU;
* ``lower(op, node, ctx)``: for the ``Gpu*`` node (``op`` is the CPU op), a :class:`Lowered`
  whose ``make_thunk(in_cells, out_cells)`` returns the callable running it.

Lookups follow the CPU class's MRO, so a subclass inherits its parent's entry. Adding an op:
write a ``lower_<family>.py`` with ``@register(MyOp, placement=..., check=...)`` and list it in
:func:`load_lowerings`. An op with no entry stays on the CPU (with explicit transfers and the
``assert_no_cpu_op`` report naming it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from jitgraph.backend_gpu.cuda_types import SUPPORTED_DTYPES, Unsupported

#: thunk kinds, as the profiler shows them
CUDA = "CUDA"   # a generated kernel, or cuBLAS
PY = "Py"       # host code: perform(), or CuPy array methods for shape/view/indexing ops


@dataclass
class Lowered:
    kind: str
    make_thunk: Callable[[list, list], Callable[[], None]]
    kernel_keys: tuple = ()
    notes: dict = field(default_factory=dict)


Placement = Callable[[Any], tuple[tuple[bool, ...], tuple[bool, ...]]]


def all_device(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Every tensor input and output on the device."""
    return (tuple(_is_array(v) for v in node.inputs), tuple(_is_array(v) for v in node.outputs))


def first_on_device(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """The first input (the array) on the device, the others (indices, shapes) on the host."""
    return ((True,) + (False,) * (len(node.inputs) - 1), (True,) * len(node.outputs))


def _is_array(var: Any) -> bool:
    return hasattr(var.type, "dtype") and hasattr(var.type, "broadcastable")


def check_dtypes_of(node: Any) -> None:
    for var in list(node.inputs) + list(node.outputs):
        dtype = getattr(var.type, "dtype", None)
        if dtype is not None and dtype not in SUPPORTED_DTYPES:
            raise Unsupported(f"dtype {dtype} has no CUDA code path")


@dataclass
class GpuImpl:
    lower: Callable[[Any, Any, Any], Lowered]
    placement: Placement = all_device
    check: Callable[[Any], None] = check_dtypes_of


_REGISTRY: dict[type, GpuImpl] = {}


def register(*op_types: type, placement: Placement = all_device,
             check: Callable[[Any], None] = check_dtypes_of) -> Callable:
    """Decorator registering ``lower(op, node, ctx) -> Lowered`` for ``op_types``."""

    def deco(fn: Callable) -> Callable:
        for cls in op_types:
            _REGISTRY[cls] = GpuImpl(fn, placement, check)
        return fn

    return deco


def impl_for(op: Any) -> GpuImpl | None:
    load_lowerings()
    for cls in type(op).__mro__:
        entry = _REGISTRY.get(cls)
        if entry is not None:
            return entry
    return None


def why_not(node: Any) -> str | None:
    """None when ``node`` (a CPU node) can run on the GPU, else the reason."""
    entry = impl_for(node.op)
    if entry is None:
        return "no GPU implementation is registered for this op"
    try:
        entry.check(node)
    except Unsupported as exc:
        return str(exc)
    return None


def registered_op_types() -> list[type]:
    load_lowerings()
    return list(_REGISTRY)


def cpu_op_class_named(name: str) -> type | None:
    for cls in registered_op_types():
        if cls.__name__ == name:
            return cls
    return None


_loaded = False


def load_lowerings() -> None:
    """Import every ``lower_*`` module once (each registers its entries)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from jitgraph.backend_gpu import (lower_blas, lower_conv, lower_elemwise,  # noqa: F401
                                      lower_nnet, lower_reduce, lower_shape)
    from jitgraph.backend_gpu import lower_random  # noqa: F401
    from jitgraph.backend_gpu import lower_scan  # noqa: F401
