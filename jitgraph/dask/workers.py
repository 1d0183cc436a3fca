"""What runs inside the Dask workers: compiled functions shipped once and kept per process,
their first-call times, and block runs whose failures name the worker and the chunk.

A function travels as a :class:`ShippedFunction`: its pickle (made once, on the client) and a
token, the hash of that pickle, and the device it was compiled for. A worker unpickles it at
its first use, which compiles it (kernels come from the compiledir when another process already
built them, else they are built there under the compiledir's locks), and keeps it by token for
every later task: a training loop that passes the same shipped function at every step compiles
once per worker. A worker computing on another device than the client's (its own GPU, see
:mod:`jitgraph.dask.devices`) rebuilds the function from its original graph with its own
rewrites instead of linking the client's rewritten graph.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import socket
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

from jitgraph.cache import store
from jitgraph.compile.function_call import Function
from jitgraph.config import config
from jitgraph.dask.devices import compute_device

__all__ = ["BlockError", "ShippedFunction", "ship", "function_on_worker", "run_block",
           "worker_name", "worker_timings", "first_call_times", "compile_on_workers"]

# Functions kept per worker process (token -> Function), the most recently used last; a few
# are enough: a program usually runs one or two functions on its cluster at a time.
_FUNCTIONS: "OrderedDict[str, Any]" = OrderedDict()
_MAX_FUNCTIONS = 16
# token -> what the first use of that function cost in this process (see worker_timings)
_TIMINGS: dict[str, dict[str, Any]] = {}


class BlockError(RuntimeError):
    """A compiled function failed on one block; the message names the function, the block,
    its rows along the chunked axis and the worker, then the original error."""

    def __init__(self, message: str, worker: str | None = None, block: int | None = None
                 ) -> None:
        super().__init__(message)
        self.worker = worker
        self.block = block

    def __reduce__(self) -> Any:  # keeps worker and block when Dask sends it to the client
        return (BlockError, (self.args[0], self.worker, self.block))


@dataclass(frozen=True)
class ShippedFunction:
    """A compiled function as the workers receive it: its pickle, the pickle's hash and the
    device it was compiled for (``"cpu"``, ``"cuda0"``...)."""

    token: str
    payload: bytes
    name: str
    device: str = "cpu"

    def __repr__(self) -> str:
        return (f"<ShippedFunction {self.name} {self.token} ({len(self.payload)} bytes, "
                f"{self.device})>")


def ship(function: Any) -> ShippedFunction:
    """Pickle ``function`` (a ``jitgraph.function`` result) once for the workers. The pickle
    holds the values its shared variables have now."""
    if not isinstance(function, Function):
        raise TypeError(f"expected a compiled jitgraph function (jitgraph.function(...)), got "
                        f"{type(function).__name__}")
    payload = pickle.dumps(function, protocol=pickle.HIGHEST_PROTOCOL)
    token = hashlib.sha256(payload).hexdigest()[:24]
    return ShippedFunction(token, payload, str(function.name), compute_device())


def worker_name() -> str:
    """This process as a person would look for it: the Dask worker's address, else the host
    and process id."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()} pid {os.getpid()} (not a Dask worker)"


def function_on_worker(shipped: ShippedFunction) -> Any:
    """The compiled function of ``shipped`` in this process, unpickled (compiled) at its first
    use here and kept for the later ones."""
    fn = _FUNCTIONS.get(shipped.token)
    if fn is not None:
        _FUNCTIONS.move_to_end(shipped.token)
        return fn

    before = (store.STATS.misses, store.STATS.hits)
    t0 = time.perf_counter()
    here = compute_device()
    # The pickled graph was rewritten for the client's device: elsewhere it would run there
    # (a CPU graph on a GPU worker, or GPU nodes on a worker without one).
    with config.change_flags(reoptimize_unpickled_function=(
            config.reoptimize_unpickled_function or here != shipped.device)):
        fn = pickle.loads(shipped.payload)
    if fn is None:
        raise RuntimeError(f"worker {worker_name()} did not unpickle function {shipped.name}: "
                           "the unpickle_function flag is False in that process")
    _TIMINGS[shipped.token] = {
        "function": shipped.name, "compile_s": time.perf_counter() - t0, "first_call_s": None,
        "pid": os.getpid(), "device": here, "_cache_before": before}
    _FUNCTIONS[shipped.token] = fn
    while len(_FUNCTIONS) > _MAX_FUNCTIONS:
        _FUNCTIONS.popitem(last=False)
    return fn


def call(shipped: ShippedFunction, args: Sequence[Any]) -> list[Any]:
    """Call the shipped function on ``args`` in this process; the outputs as a list. The first
    call's time (unpickling and compiling included) is recorded."""
    fn = function_on_worker(shipped)
    timing = _TIMINGS.get(shipped.token)
    t0 = time.perf_counter()
    outputs = fn(*args)
    if timing is not None and timing["first_call_s"] is None:
        timing["first_call_s"] = timing["compile_s"] + time.perf_counter() - t0
        _count_kernels(timing)
    return list(outputs) if not fn.maker.unpack_single else [outputs]


def _count_kernels(timing: dict[str, Any]) -> None:
    """Kernels compiled and kernels loaded from the compiledir by the unpickling and the first
    call (kernels are compiled lazily, at their first call): a warm compiledir compiles none."""
    misses, hits = timing.pop("_cache_before")
    timing["kernels_compiled"] = store.STATS.misses - misses
    timing["kernels_loaded"] = store.STATS.hits - hits


def describe_arguments(fn_inputs: Sequence[Any], args: Sequence[Any]) -> str:
    parts = []
    for inp, value in zip(fn_inputs, args):
        shape = getattr(value, "shape", None)
        dtype = getattr(value, "dtype", type(value).__name__)
        parts.append(f"{inp.name or inp.variable}: {dtype} {tuple(shape) if shape is not None else ''}"
                     .rstrip())
    return ", ".join(parts)


def run_block(shipped: ShippedFunction, block: int, start: int, stop: int, *args: Any
              ) -> tuple:
    """One block of :func:`jitgraph.dask.map_blocks`: the function's outputs on the rows
    ``start:stop`` of the chunked inputs (and the whole of the others)."""
    try:
        return tuple(call(shipped, args))
    except Exception as exc:
        fn = _FUNCTIONS.get(shipped.token)
        given = describe_arguments(fn.maker.inputs, args) if fn is not None else ""
        where = worker_name()
        raise BlockError(
            f"jitgraph function {shipped.name} failed on block {block} (rows {start}:{stop} of "
            f"the chunked axis) on worker {where}; the block's arguments: {given}. "
            f"{type(exc).__name__}: {exc}", worker=where, block=block) from exc


def worker_timings(token: str | None = None) -> dict[str, dict[str, Any]]:
    """This process's first-use records (token -> compile_s, first_call_s, kernels_compiled,
    kernels_loaded, pid, device it computes on), of one function or all."""
    if token is None:
        return {k: dict(v) for k, v in _TIMINGS.items()}
    return {token: dict(_TIMINGS[token])} if token in _TIMINGS else {}


def _token_of(function: Any) -> str:
    if isinstance(function, ShippedFunction):
        return function.token
    if isinstance(function, str):
        return function
    return ship(function).token


def first_call_times(client: Any, function: Any, detail: bool = False) -> dict[str, Any]:
    """Each worker's first-call time of ``function`` (a compiled function, a
    :class:`ShippedFunction` or its token), in seconds: unpickling (compiling, or loading the
    kernels from the compiledir) plus the first call. Workers that have not run it are left
    out. ``detail=True`` gives each worker's whole record instead (compile_s, first_call_s,
    kernels_compiled and kernels_loaded from the compiledir, pid, device)."""
    token = _token_of(function)
    records = client.run(worker_timings, token)
    result = {}
    for worker, found in records.items():
        if token in found:
            result[worker] = found[token] if detail else found[token]["first_call_s"]
    return result


def _compile_here(shipped: ShippedFunction) -> float:
    t0 = time.perf_counter()
    function_on_worker(shipped)
    return time.perf_counter() - t0


def compile_on_workers(client: Any, function: Any) -> dict[str, float]:
    """Unpickle (compile) ``function`` on every worker of ``client`` now, one task per worker;
    returns worker -> seconds it took there (0 where it was already there). Optional: workers
    otherwise compile at first use."""
    shipped = function if isinstance(function, ShippedFunction) else ship(function)
    [remote] = client.scatter([shipped], broadcast=True)
    workers = list(client.scheduler_info()["workers"])
    futures = {w: client.submit(_compile_here, remote, workers=[w], allow_other_workers=False,
                                pure=False) for w in workers}
    return dict(zip(futures, client.gather(list(futures.values()))))
