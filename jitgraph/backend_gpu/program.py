"""The program of a graph with GPU nodes: one thunk per node over storage cells.

* ``Gpu*`` nodes run their registered lowering (generated CUDA kernels, cuBLAS, or CuPy array
  methods); CPU nodes left in the graph run their ``perform``.
* ``GpuFromHost`` of a constant is uploaded once, when the program is built. A device array
  passed where a host input is expected goes to the device without a round trip (it is copied
  on the device only if a later node overwrites it).
* A ``HostFromGpu`` whose only reader is a graph output is deferred: the output cell keeps the
  device array, and the :class:`~jitgraph.compile.function_call.Function` returns it as a NumPy
  array, or as is when the output was asked for with ``Out(..., borrow=True)``
  (:attr:`GpuProgram.device_outputs`).
* ``gpuarray.sync`` synchronises the device after every GPU node (so that errors and profiles
  point at the right node).

Kernels are compiled (or loaded from the compiledir) while the program is built.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jitgraph.compile.linker import Program, _gc_plan, perform_thunk
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph

from jitgraph.backend_gpu.ops import GpuFromHost, GpuOp, HostFromGpu
from jitgraph.backend_gpu.registry import CUDA, PY, Lowered, impl_for
from jitgraph.backend_gpu.types import GpuArrayType, is_device_array
from jitgraph.backend_gpu import device
from jitgraph.backend_gpu.device import import_cupy, synchronize
from jitgraph.backend_gpu.kernels import COMPILE_LOG


def has_gpu_nodes(fgraph: FunctionGraph) -> bool:
    """True when some variable of ``fgraph`` lives on the GPU (type check only)."""
    return any(isinstance(v.type, GpuArrayType) for v in fgraph.variables)


class GpuProgram(Program):
    def __init__(self, fgraph: FunctionGraph, order: list[Apply], thunks: list[Callable],
                 storage: dict, free_after: list, kinds: list[str], lowered: list) -> None:
        super().__init__(fgraph, order, thunks, storage, free_after, kinds)
        self.lowered = lowered
        #: indices of graph outputs whose cells hold device arrays (deferred HostFromGpu)
        self.device_outputs: set[int] = set()
        #: indices of graph inputs that may receive a device array directly
        self.device_inputs: set[int] = set()
        self.needs_errstate = any(k == PY for k in kinds)
        self.compiled_while_linking: dict = {"compiled": 0, "compile_seconds": 0.0}

    def run(self) -> None:
        with device.on_device():
            super().run()

    def run_nodes(self, times: list[float] | None = None,
                  sync: Callable[[], None] | None = None) -> None:
        with device.on_device():
            super().run_nodes(times, sync)

    def kernel_keys(self) -> list:
        return [k for lw in self.lowered if lw is not None for k in lw.kernel_keys]

    def compile_report(self) -> dict:
        return dict(self.compiled_while_linking)


def _destroyed(fgraph: FunctionGraph, var: Variable) -> bool:
    """Whether some node overwrites ``var``."""
    for node, i in fgraph.clients.get(var, []):
        if node != "output" and any(i in ins for ins in node.op.destroy_map.values()):
            return True
    return False


def _upload_thunk(node: Apply, storage: dict, copy: bool) -> Callable[[], None]:
    cp = import_cupy()
    (in_cell,), (out_cell,) = [storage[node.inputs[0]]], [storage[node.outputs[0]]]

    def thunk() -> None:
        x = in_cell[0]
        if is_device_array(x):
            out_cell[0] = x.copy() if copy else x
        else:
            out_cell[0] = cp.asarray(x)

    return thunk


def _download_thunk(node: Apply, storage: dict, deferred: bool) -> Callable[[], None]:
    in_cell, out_cell = storage[node.inputs[0]], storage[node.outputs[0]]
    if deferred:
        def thunk() -> None:
            out_cell[0] = in_cell[0]
    else:
        def thunk() -> None:
            out_cell[0] = in_cell[0].get()
    return thunk


def _reupload_when_freed(upload: Callable[[], None], cell: list) -> Callable[[], None]:
    """The thunk of a constant uploaded while linking: nothing, unless ``Function.free()``
    emptied its cell since (then it uploads it again)."""

    def thunk() -> None:
        if cell[0] is None:
            upload()

    return thunk


def _synced(thunk: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        thunk()
        synchronize()

    return run


def build_program(fgraph: FunctionGraph, allow_gc: bool, order: Sequence[Apply] | None = None
                  ) -> GpuProgram | None:
    """The program of ``fgraph``; None when no GPU is initialised or the graph has no GPU node.

    Built with the initialised GPU as this thread's current device: the constants uploaded
    and the modules loaded while linking belong to it (a function unpickled in a Dask
    worker's task thread, on device 0 by default, was linked for device 0 and then run on
    ``cuda1``)."""
    if device.active() is None or not has_gpu_nodes(fgraph):
        return None
    with device.on_device():
        return _build(fgraph, allow_gc, order)


def _build(fgraph: FunctionGraph, allow_gc: bool, order: Sequence[Apply] | None
           ) -> GpuProgram:
    n_log = len(COMPILE_LOG)
    order = list(order if order is not None else fgraph.toposort())
    storage: dict[Variable, list] = {}
    for var in fgraph.variables:
        storage[var] = [var.data] if isinstance(var, Constant) else [None]
    for var in fgraph.inputs:
        storage.setdefault(var, [None])
    outputs = list(fgraph.outputs)
    sync = device.sync_enabled()
    thunks, kinds, lowered = [], [], []
    deferred_vars: set[Variable] = set()
    precomputed: set[Variable] = set()
    for node in order:
        op = node.op
        lw: Lowered | None = None
        if isinstance(op, GpuFromHost):
            src = node.inputs[0]
            thunk = _upload_thunk(node, storage, copy=_destroyed(fgraph, node.outputs[0]))
            kind = CUDA
            if isinstance(src, Constant) and node.outputs[0] not in outputs:
                thunk()  # a constant is uploaded once
                precomputed.add(node.outputs[0])
                thunk, kind = _reupload_when_freed(thunk, storage[node.outputs[0]]), PY
        elif isinstance(op, HostFromGpu):
            out = node.outputs[0]
            deferred = out in outputs and all(c == "output" for c, _ in fgraph.clients[out])
            if deferred:
                deferred_vars.add(out)
            thunk, kind = _download_thunk(node, storage, deferred), CUDA
        elif isinstance(op, GpuOp):
            impl = impl_for(op.cpu_op)
            if impl is None:
                thunk, kind = perform_thunk(node, storage)
            else:
                lw = impl.lower(op.cpu_op, node, None)
                thunk = lw.make_thunk([storage[i] for i in node.inputs],
                                      [storage[o] for o in node.outputs])
                kind = lw.kind
        else:
            thunk, kind = perform_thunk(node, storage)
        if sync and kind == CUDA:
            thunk = _synced(thunk)
        thunks.append(thunk)
        kinds.append(kind)
        lowered.append(lw)
    free_after = _gc_plan(fgraph, order, storage) if allow_gc else [[] for _ in order]
    if precomputed:
        free_after = [[c for c in cells if not any(c is storage[v] for v in precomputed)]
                      for cells in free_after]
    program = GpuProgram(fgraph, order, thunks, storage, free_after, kinds, lowered)
    program.device_outputs = {k for k, v in enumerate(outputs) if v in deferred_vars}
    program.device_inputs = {k for k, v in enumerate(fgraph.inputs)
                             if fgraph.clients.get(v)
                             and all(c != "output" and isinstance(c.op, GpuFromHost)
                                     for c, _ in fgraph.clients[v])}
    built = [r for r in COMPILE_LOG[n_log:] if not r.cached]
    program.compiled_while_linking = {"compiled": len(built),
                                      "compile_seconds": sum(r.seconds for r in built)}
    return program
