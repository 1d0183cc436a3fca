"""GPU ops: the transfers (``GpuFromHost``, ``HostFromGpu``) and ``Gpu*`` ops wrapping CPU ops.

A GPU op is the CPU op it replaces plus a placement: which inputs and outputs live on the device
(``dev_in``/``dev_out``; index inputs of subtensors and shape vectors stay on the host, ``Shape``
returns a host vector). Its class is named after the CPU op (``GpuElemwise``, ``GpuGemv``,
``GpuGemm``, ``GpuDot22``, ``GpuSoftmax``, ``GpuReshape``, ...; every reduction is a
``GpuCAReduce``), so printing a graph, or the seeds' test ``op.__class__.__name__ in ('GpuGemm',
'GpuGemv')``, shows where it runs. ``destroy_map``/``view_map`` are the CPU op's.

``perform`` is the NumPy reference on host copies of the inputs (outputs uploaded again): what
DebugMode compares the CUDA kernels with, and what runs if a GPU op ever reaches the Python VM.
The compiled GPU program (``program.py``) runs the CUDA lowerings instead.
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable

from jitgraph.backend_gpu.types import GpuArrayType, is_device_array, to_device, to_host
from jitgraph.backend_gpu.registry import cpu_op_class_named
from jitgraph.tensor import nnet
from jitgraph.tensor.elementwise import elemwise, reduction
from jitgraph.tensor.linalg import blas


class GpuFromHost(Op):
    """Copy a host array to the GPU."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        if isinstance(getattr(x, "type", None), GpuArrayType):
            raise TypeError(f"GpuFromHost expects a host tensor, got {x.type}")
        x = as_tensor_variable(x)
        return Apply(self, [x], [GpuArrayType.like(x.type).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        if is_device_array(x):
            x = x.copy()
        output_storage[0][0] = to_device(x)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        (gz,) = output_grads
        return [host_from_gpu(gz) if isinstance(gz.type, GpuArrayType) else gz]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    def __str__(self) -> str:
        return "GpuFromHost"


class HostFromGpu(Op):
    """Copy a GPU array to the host (a NumPy array)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        if not isinstance(getattr(x, "type", None), GpuArrayType):
            raise TypeError(f"HostFromGpu expects a GPU variable, got {x}")
        return Apply(self, [x], [x.type.host_type().make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = to_host(inputs[0])

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        (gz,) = output_grads
        gz = as_tensor_variable(gz)
        return [gpu_from_host(gz)]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    def __str__(self) -> str:
        return "HostFromGpu"


_gpu_from_host = GpuFromHost()
_host_from_gpu = HostFromGpu()


def gpu_from_host(x: Any) -> Variable:
    """``x`` on the device (cancels a ``HostFromGpu``)."""
    if isinstance(getattr(x, "type", None), GpuArrayType):
        return x
    x = as_tensor_variable(x)
    if x.owner is not None and isinstance(x.owner.op, HostFromGpu):
        return x.owner.inputs[0]
    return _gpu_from_host(x)


def host_from_gpu(x: Any) -> Variable:
    """``x`` on the host (cancels a ``GpuFromHost``)."""
    if not isinstance(getattr(x, "type", None), GpuArrayType):
        return as_tensor_variable(x)
    if x.owner is not None and isinstance(x.owner.op, GpuFromHost):
        return x.owner.inputs[0]
    return _host_from_gpu(x)


def is_transfer(op: Any) -> bool:
    return isinstance(op, (GpuFromHost, HostFromGpu))


# ---------------------------------------------------------------------------------------------
# CPU ops on the device

class GpuOp(Op):
    """``cpu_op`` run on the GPU; ``dev_in[i]``/``dev_out[k]`` tell where each value lives."""

    __props__ = ("cpu_op", "dev_in", "dev_out")

    def __init__(self, cpu_op: Op, dev_in: Sequence[bool], dev_out: Sequence[bool]) -> None:
        self.cpu_op = cpu_op
        self.dev_in = tuple(bool(b) for b in dev_in)
        self.dev_out = tuple(bool(b) for b in dev_out)
        self.destroy_map = dict(cpu_op.destroy_map)
        self.view_map = dict(cpu_op.view_map)
        self.default_output = cpu_op.default_output

    def __str__(self) -> str:
        inner = str(self.cpu_op)
        base = type(self).__name__[3:]
        if inner.startswith("Inplace" + base):  # InplaceDimShuffle{x} -> GpuDimShuffle{x}
            inner = inner[len("Inplace"):]
        if inner.lower() == base.lower():  # dot -> GpuDot
            inner = base
        if inner.startswith(base):
            return "Gpu" + inner
        return f"{type(self).__name__}{{{inner}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.dev_in):
            raise TypeError(f"{self} takes {len(self.dev_in)} inputs, got {len(inputs)}")
        placed = [gpu_from_host(x) if dev else host_from_gpu(x)
                  for x, dev in zip(inputs, self.dev_in)]
        cpu_node = self._cpu_node_for(placed)
        if len(cpu_node.outputs) != len(self.dev_out):
            raise TypeError(f"{self}: {len(cpu_node.outputs)} outputs, placement for "
                            f"{len(self.dev_out)}")
        outs = [GpuArrayType.like(o.type).make_variable() if dev else o.type.make_variable()
                for o, dev in zip(cpu_node.outputs, self.dev_out)]
        node = Apply(self, placed, outs)
        node.tag.cpu_node = cpu_node
        return node

    def _cpu_node_for(self, inputs: Sequence[Variable]) -> Apply:
        stand_ins = [v.type.host_type().make_variable() if dev else v
                     for v, dev in zip(inputs, self.dev_in)]
        cpu_node = self.cpu_op.make_node(*stand_ins)
        if any(a is not b for a, b in zip(cpu_node.inputs, stand_ins)):
            raise TypeError(f"{self}: the CPU op changed its inputs while building the node "
                            "(pad or cast them before moving it to the GPU)")
        return cpu_node

    def cpu_node(self, node: Apply) -> Apply:
        """A node of the CPU op over host stand-ins of ``node``'s inputs (for ``perform``)."""
        cached = getattr(node.tag, "cpu_node", None)
        if cached is None:
            cached = node.tag.cpu_node = self._cpu_node_for(node.inputs)
        return cached

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        host = [to_host(v) if dev else v for v, dev in zip(inputs, self.dev_in)]
        cells: list[list] = [[None] for _ in node.outputs]
        self.cpu_op.perform(self.cpu_node(node), host, cells)
        for k, (cell, dev) in enumerate(zip(cells, self.dev_out)):
            value = cell[0]
            if k in self.destroy_map and dev:
                target = inputs[self.destroy_map[k][0]]
                target[...] = to_device(np.asarray(value))
                value = target
            elif dev and k in self.view_map:
                j = self.view_map[k][0]
                value = device_view(inputs[j], host[j], value)
            elif dev:
                value = to_device(value)
            output_storage[k][0] = value

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return self.cpu_op.infer_shape(fgraph, node, input_shapes)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return self.cpu_op.connection_pattern(self.cpu_node(node))

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    # -- ops with an inner graph (scan): the outer mode and the profiler reach it --------
    @property
    def compiles_inner_graph(self) -> bool:
        return getattr(self.cpu_op, "compiles_inner_graph", False)

    def attach_inner_profile(self, node: Apply, parent: Any) -> None:
        attach = getattr(self.cpu_op, "attach_inner_profile", None)
        if attach is not None:
            attach(node, parent)


def device_view(device_in: Any, host_in: Any, host_out: Any) -> Any:
    """``host_out``, a view ``perform`` made of ``host_in`` (the host copy of ``device_in``),
    as the same view of ``device_in`` (so that DebugMode sees the declared view); a copy when
    it is not a view of it or ``device_in`` is not C-contiguous like its host copy."""
    host_out = np.asarray(host_out)
    if not (is_device_array(device_in) and isinstance(host_in, np.ndarray)
            and device_in.flags.c_contiguous and host_in.flags.c_contiguous
            and host_out.size and np.shares_memory(host_out, host_in)):
        return to_device(host_out)
    offset = host_out.ctypes.data - host_in.ctypes.data
    cupy = sys.modules["cupy"]
    return cupy.ndarray(host_out.shape, host_out.dtype, memptr=device_in.data + offset,
                        strides=host_out.strides)


#: CPU op families whose GPU class has a family name rather than ``Gpu<CPU class name>``
FAMILY_NAMES = {"CAReduce": "GpuCAReduce"}
_CLASSES: dict[str, type] = {}


def gpu_op_class(cpu_cls: type) -> type:
    """The ``GpuOp`` subclass for CPU op class ``cpu_cls`` (created once, importable here)."""
    name = next((FAMILY_NAMES[k.__name__] for k in cpu_cls.__mro__ if k.__name__ in FAMILY_NAMES),
                f"Gpu{cpu_cls.__name__}")
    cls = _CLASSES.get(name)
    if cls is None:
        cls = type(name, (GpuOp,), {"__module__": __name__,
                                    "__doc__": f"{cpu_cls.__name__} on the GPU."})
        _CLASSES[name] = cls
        setattr(sys.modules[__name__], name, cls)
    return cls


def make_gpu_op(cpu_op: Op, dev_in: Sequence[bool], dev_out: Sequence[bool]) -> GpuOp:
    return gpu_op_class(type(cpu_op))(cpu_op, dev_in, dev_out)


def _predeclare() -> None:
    """Create the common classes at import (so pickles naming them always find them)."""
    for cls in (elemwise.Elemwise, elemwise.DimShuffle, reduction.CAReduce, blas.Gemm,
                blas.Gemv, blas.Ger, blas.Dot22, blas.Dot, nnet.Softmax, nnet.LogSoftmax):
        gpu_op_class(cls)


_predeclare()


def __getattr__(name: str) -> Any:
    """``Gpu<Name>`` classes are created on demand (for unpickling graphs)."""
    if name.startswith("Gpu") and name not in _CLASSES:
        cpu_cls = cpu_op_class_named(name[3:])
        if cpu_cls is not None:
            return gpu_op_class(cpu_cls)
    raise AttributeError(name)


__all__ = ["GpuFromHost", "HostFromGpu", "GpuOp", "gpu_from_host", "host_from_gpu",
           "gpu_op_class", "make_gpu_op", "is_transfer"]
