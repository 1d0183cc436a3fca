"""``Scan`` on the GPU: the loop runs on the host, its state and outputs stay on the device.

The outer node takes and gives device arrays (``n_steps`` stays a host integer). The inner
graph is given device-typed inputs and outputs (:func:`device_inner_graph`: each array input
read through a ``HostFromGpu``, each array output written through a ``GpuFromHost``), so that
once the mode compiling it has moved its nodes to the GPU (and the round trips cancel) the
inner program takes the device views the loop hands it and gives device arrays back. The loop
is :func:`jitgraph.scan.runner.run_scan` with the GPU's array module (the backend's
:meth:`~jitgraph.compile.backend.Backend.array_module`): its buffers are CuPy arrays, every
step reads its taps and writes its results on the device, and only an ``until`` condition is
read back (one scalar per step). A device shared state (an MRG draw's) is passed as it is; a
loop with a shared state that is not an array of a dtype CUDA handles (a NumPy random state)
stays on the CPU.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from jitgraph.graph.basic import Apply, clone_replace
from jitgraph.scan.inner import InnerGraph
from jitgraph.scan.op import Scan
from jitgraph.scan.runner import run_scan
from jitgraph.tensor.core.type import TensorType

from jitgraph.backend_gpu.backend import BACKEND
from jitgraph.backend_gpu.cuda_types import SUPPORTED_DTYPES, Unsupported
from jitgraph.backend_gpu.ops import gpu_from_host, host_from_gpu
from jitgraph.backend_gpu.registry import PY, Lowered, register
from jitgraph.backend_gpu.types import GpuArrayType


def _on_device(vtype: Any) -> bool:
    """Whether a value of type ``vtype`` lives on the device in a GPU loop (a device shared
    state, the MRG streams' for one, is already there)."""
    if isinstance(vtype, GpuArrayType):
        return True
    return isinstance(vtype, TensorType) and vtype.dtype in SUPPORTED_DTYPES


def scan_placement(node: Apply) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Every array on the device but ``n_steps`` (the host runs the loop)."""
    dev_in = (False,) + tuple(_on_device(v.type) for v in node.inputs[1:])
    return dev_in, tuple(_on_device(v.type) for v in node.outputs)


def check_scan(node: Apply) -> None:
    """A loop goes to the GPU when every value it carries can live there."""
    for var in list(node.inputs[1:]) + list(node.outputs):
        if not _on_device(var.type):
            raise Unsupported(f"scan carries {var.type}, which cannot live on the GPU")


_lock = threading.Lock()


def device_inner_graph(op: Scan) -> InnerGraph:
    """``op``'s inner graph with device-typed array inputs and outputs (the ``until``
    condition stays as it is); made once per op."""
    found = op.__dict__.get("_device_inner")
    if found is not None:
        return found
    with _lock:
        inputs, outputs = op.inner.clone()
        new_inputs, replace = [], {}
        for var in inputs:
            if _on_device(var.type):
                dev = GpuArrayType.like(var.type).make_variable(var.name)
                replace[var] = host_from_gpu(dev)
                new_inputs.append(dev)
            else:
                new_inputs.append(var)
        outs = clone_replace(outputs, replace)
        cond = len(outs) - 1 if op.info.as_while else None
        outs = [gpu_from_host(v) if k != cond and _on_device(v.type) else v
                for k, v in enumerate(outs)]
        found = op.__dict__["_device_inner"] = InnerGraph(new_inputs, outs)
    return found


class DeviceLoop:
    """A Scan's loop over device arrays: the inner program (the device version of the
    inner graph, compiled by the outer graph's mode) once per step."""

    def __init__(self, op: Scan, node: Apply) -> None:
        self.op = op
        self.node = node

    def __call__(self, inputs: list, output_storage: list) -> None:
        op, node = self.op, self.node
        mode = op.inner_mode(node)
        fn = device_inner_graph(op).compiled(op.mode if mode is None else mode,
                                             op.overwritable_taps())
        run_scan(op, inputs, output_storage, mode, op.inner_profile(node),
                 arrays=BACKEND.array_module(), fn=fn)


@register(Scan, placement=scan_placement, check=check_scan)
def lower_scan(op: Scan, node: Apply, ctx: Any) -> Lowered:
    loop = DeviceLoop(op, node)

    def make_thunk(in_cells: list, out_cells: list) -> Callable[[], None]:
        def thunk() -> None:
            loop([c[0] for c in in_cells], out_cells)

        return thunk

    lowered = Lowered(PY, make_thunk)
    lowered.notes["scan"] = "inner program per step, state on the device"
    return lowered


__all__ = ["device_inner_graph", "scan_placement", "check_scan", "DeviceLoop"]
