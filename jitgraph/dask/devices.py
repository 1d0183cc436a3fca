"""Which device each Dask worker computes on: one GPU per worker.

A worker computes where its own process's flags say, as any jitgraph program does: started
with ``THEANO_FLAGS=device=cuda1`` (or given a GPU from code by :func:`gpu_per_worker`), it
runs the functions shipped to it on that GPU. A function is compiled on the client for the
client's device; a worker computing on another device rebuilds it from its original graph
with its own rewrites (see :func:`jitgraph.dask.workers.function_on_worker`), so a client
without a GPU can drive workers that each have one.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.backend_gpu import device as gpu_device
from jitgraph.backend_gpu import use as use_gpu
from jitgraph.config import config

__all__ = ["compute_device", "gpu_per_worker"]


def compute_device() -> str:
    """Where graphs compiled in this process run: ``"cuda<N>"`` when a GPU is in use for the
    computation (``device=cuda*``, or :func:`jitgraph.gpuarray.use` with
    ``move_computation=True``), else ``"cpu"`` (no GPU asked for, or the documented fallback:
    ``device=cuda`` with no usable GPU and ``force_device=False`` warns and uses the CPU; with
    ``force_device=True`` this raises, naming why)."""
    dev = gpu_device.computation_device()
    return dev.label if dev is not None else "cpu"


def _use_here(device: str) -> str:
    """On a worker: compute on ``device`` from now on; where it computes."""
    if device != "cpu":
        use_gpu(device, force=bool(config.force_device), move_computation=True)
    return compute_device()


def gpu_per_worker(client: Any, devices: Sequence[str] = ("cuda0",)) -> dict[str, str]:
    """Give each worker of ``client`` a GPU of its own: the workers, in address order, take
    ``devices`` in turn (``("cuda0", "cuda1")`` on a machine with two GPUs and two workers).
    A worker whose GPU cannot be used warns and computes on the CPU (with the worker's
    ``force_device=True``, this raises :class:`~jitgraph.backend_gpu.device.GpuUnavailable`
    instead, naming why). Call it before the worker's first jitgraph function; the functions shipped to the
    workers afterwards are compiled there for their GPU. Returns worker -> device it computes
    on (``"cpu"`` for a fallback)."""
    if not devices:
        raise ValueError("gpu_per_worker needs at least one device name (e.g. ('cuda0',))")
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise RuntimeError("the Dask cluster has no workers yet (client.wait_for_workers(n))")
    result = {}
    for k, worker in enumerate(workers):
        device = devices[k % len(devices)]
        result.update(client.run(_use_here, device, workers=[worker]))
    return result
