"""The GPU transfer passes: move a rewritten graph to the GPU when one is in use.

=========================  ========  =============  ===============================================
name                       position  tags           fires when
=========================  ========  =============  ===============================================
``gpu_transfer``           97        fast_run, gpu  ``device=cuda*`` selected a usable GPU
``gpu_transfer_requested`` 97.5      gpuarray       a GPU is initialised (``device``,
                                                    ``init_gpu_device`` or
                                                    ``jitgraph.backend_gpu.use``) and the mode
                                                    includes ``gpuarray`` (Theano's recipe:
                                                    ``mode.including('gpuarray')``)
=========================  ========  =============  ===============================================

Both run after fusion and the in-place passes and before the final constant folding and merge, so
they change only where nodes run (see :mod:`.transfer`). The GPU backend (:mod:`.backend`)
imports this module, so the passes are registered with the backend. On a machine without a
GPU, or with ``device=cpu``, they do nothing and import nothing from the GPU backend but its
device flags (CuPy is imported only when a GPU device is requested). ``optimizer_excluding=gpu``
keeps a ``device=cuda`` graph on the CPU.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import RewriteContext
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.rewrite.phases import optdb

from jitgraph.backend_gpu import device
from jitgraph.backend_gpu.transfer import move_to_gpu

GPU_TRANSFER_POSITION = 97.0


class GpuTransfer(GraphRewriter):
    """Moves nodes to the GPU; ``requested``: fire whenever a GPU is initialised."""

    def __init__(self, name: str, requested: bool) -> None:
        super().__init__(name)
        self.requested = requested

    def _device(self) -> Any:
        if device.requested()[0] is None and device.active() is None:
            return None  # device=cpu, nothing initialised: never import CuPy
        if self.requested:
            return device.active() or device.init()
        return device.computation_device()

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        if self._device() is None:
            return

        move_to_gpu(fgraph, ctx, self)


gpu_transfer = GpuTransfer("gpu_transfer", requested=False)
gpu_transfer_requested = GpuTransfer("gpu_transfer_requested", requested=True)

optdb.register("gpu_transfer", gpu_transfer, "fast_run", "gpu",
               position=GPU_TRANSFER_POSITION)
optdb.register("gpu_transfer_requested", gpu_transfer_requested, "gpuarray",
               position=GPU_TRANSFER_POSITION + 0.5)

__all__ = ["GpuTransfer", "gpu_transfer", "gpu_transfer_requested", "GPU_TRANSFER_POSITION"]
