"""GPU backend: graphs lowered to CUDA kernels compiled by NVRTC and run through CuPy.

No nvcc and no C compiler: generated CUDA C is compiled in-process by NVRTC to a cubin for the
device's architecture and cached in the compiledir. Pipeline (one module per step):

* :mod:`.device` -- the ``device``/``force_device``/``init_gpu_device``/``print_active_device``/
  ``gpuarray.*`` flags, CuPy import (its cache dir inside the compiledir), :func:`use`.
* :mod:`.nvrtc` -- ``nvcc.fastmath``/``nvcc.flags`` as NVRTC options; compiling to a cubin.
* :mod:`.types`, :mod:`.ops`, :mod:`.sharedvar` -- ``GpuArrayType``, the transfers
  ``GpuFromHost``/``HostFromGpu``, the ``Gpu*`` ops, device shared variables.
* :mod:`.transfer` -- the rewrite moving nodes to the GPU (registered by :mod:`.rewrites` late
  in ``optdb``; it only fires when a GPU is in use).
* :mod:`.registry` and ``lower_*`` -- how each op runs there: :mod:`.scalar_templates` (scalar-op
  expressions written in CUDA C), :mod:`.elemwise_codegen`, :mod:`.reduce_codegen`,
  :mod:`.nnet_codegen` generate the kernels; BLAS goes to cuBLAS through ``cupy.dot``; shape and
  indexing ops use CuPy array methods.
* :mod:`.kernels` -- compile/cache/load of generated modules; :mod:`.program` -- the thunk
  program of a graph; :mod:`.linker` -- the linkers building it; :mod:`.backend` -- the backend
  as the compiler sees it (registered when imported).

Importing this package imports neither CuPy nor NVRTC.
"""

from __future__ import annotations

from typing import Any

from jitgraph.config import config, parse_device

__all__ = ["build_program", "use", "status", "is_active", "compile_stats"]


def requested() -> tuple[str | None, int | None, bool]:
    """(flag value, device index, moves computation) from ``device``/``init_gpu_device``;
    (None, None, False) when neither asks for a GPU. Imports nothing (the linker
    asks it at every start, so it lives here, not in :mod:`.device`)."""
    dev = str(config.device)
    kind, index = parse_device(dev)
    if kind != "cpu":
        return f"device={dev}", index, True
    init = str(config.init_gpu_device or "")
    if init:
        _, index = parse_device(init)
        return f"init_gpu_device={init}", index, False
    return None, None, False


def build_program(fgraph: Any, allow_gc: bool = True, order: Any = None) -> Any:
    """The GPU program of ``fgraph`` (``.thunks``, ``.kinds`` with ``'CUDA'``, ``.storage``);
    None when no GPU is in use or the graph has no GPU node (DebugMode then uses the CPU)."""
    from jitgraph.backend_gpu.device import init

    if init() is None:
        return None
    from jitgraph.backend_gpu.program import build_program as _build

    return _build(fgraph, allow_gc, order)


def use(device: str = "cuda", force: bool = True, move_computation: bool = False,
        move_shared: bool = False, preallocate: float | None = None) -> Any:
    """Initialise a GPU from code (Theano's ``theano.gpuarray.use``).

    ``move_computation=False`` (the default) is ``init_gpu_device``: graphs go to the GPU only
    when compiled with ``mode.including('gpuarray')``. Returns the :class:`~.device.Device`.
    """
    from jitgraph.backend_gpu import device as _device
    from jitgraph.backend_gpu.linker import wrap_linkers

    dev = _device.use(device, force, move_computation, move_shared, preallocate)
    if dev is not None:
        wrap_linkers()
    return dev


def status(index: int | None = None) -> tuple[bool, str]:
    """Whether a GPU can be used, and why not (imports CuPy)."""
    from jitgraph.backend_gpu.device import status as _status

    return _status(index)


def is_active() -> bool:
    """Whether a GPU is initialised in this process (never initialises one)."""
    from jitgraph.backend_gpu.device import active

    return active() is not None


def compile_stats() -> dict:
    from jitgraph.backend_gpu.kernels import compile_stats as _stats

    return _stats()
