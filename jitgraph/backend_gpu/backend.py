"""The GPU backend as the compiler sees it (:class:`~jitgraph.compile.backend.Backend`).

Importing this module registers it (the top package lists it in ``BACKEND_MODULES``) and the
transfer passes that move graphs to the GPU (:mod:`.rewrites`). It imports neither CuPy nor
NVRTC: with ``device=cpu`` and no GPU initialised, every method answers from the flags alone.
"""

from __future__ import annotations

from typing import Any

from jitgraph.compile.array_module import ArrayModule
from jitgraph.compile.backend import Backend, register
from jitgraph.compile.linker import Linker, Program
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.shared import COMPUTATION_TARGET

import jitgraph.backend_gpu as package
from jitgraph.backend_gpu import device
from jitgraph.backend_gpu.arrays import DEVICE_ARRAYS
from jitgraph.backend_gpu import rewrites  # noqa: F401 - registers the transfer passes
from jitgraph.backend_gpu.linker import wrap
from jitgraph.backend_gpu.sharedvar import gpu_constructor
from jitgraph.config import config, parse_device


class GpuBackend(Backend):
    """CUDA kernels compiled by NVRTC, run through CuPy, for the graphs with GPU nodes."""

    name = "gpu"
    priority = 10  # asked before the CPU backend: it claims the graphs with GPU nodes

    def wrap_linker(self, name: str, linker: Linker) -> Linker:
        return wrap(name, linker)

    def checked_program(self, fgraph: FunctionGraph, order: list[Apply]) -> Program | None:
        if not package.is_active():  # (never initialises a GPU)
            return None
        return package.build_program(fgraph, False, order)

    def device_key(self) -> str | None:
        """Whether the GPU is usable and takes computations by default (None: no GPU
        requested or initialised): two processes with the same flags, one with a GPU and one
        without, rewrite a graph differently."""
        dev = device.active()
        if dev is not None:
            return f"gpu usable, moves_computation={dev.moves_computation}"
        flag, index, moves = device.requested()
        if flag is None:
            return None
        usable = not device.tried() and device.status(index)[0]
        return f"gpu {'usable' if usable else 'unusable'}, moves_computation={moves}"

    def array_module(self) -> ArrayModule:
        """CuPy arrays (a loop's buffers stay on the device)."""
        return DEVICE_ARRAYS

    def make_shared(self, value: Any, name: str | None = None, strict: bool = False,
                    allow_downcast: bool | None = None, borrow: bool = False,
                    broadcastable: Any = None, shape: Any = None, target: str | None = None
                    ) -> Any:
        """Arrays on the GPU (``device=cuda*``: float32 ones; ``target='cuda'``: any;
        ``target=COMPUTATION_TARGET``: any, when computations move to the GPU)."""
        if target == COMPUTATION_TARGET:
            if parse_device(str(config.device))[0] != "cuda" and device.active() is None:
                return None  # (device=cpu, nothing initialised: never import CuPy)
            if device.computation_device() is None:
                return None
            target = "cuda"
        if not _wanted(target):
            return None

        return gpu_constructor(value, name=name, strict=strict, allow_downcast=allow_downcast,
                               borrow=borrow, broadcastable=broadcastable, shape=shape,
                               target=target)


def _wanted(target: Any) -> bool:
    """Whether a shared array may go to the GPU; reads flags only (imports nothing)."""
    if isinstance(target, str):
        return target.startswith(("cuda", "gpu", "dev"))
    if target is not None:
        return False

    if parse_device(str(config.device))[0] == "cuda":
        return True
    return device.active() is not None


BACKEND = register(GpuBackend())
