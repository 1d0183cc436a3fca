"""Data-parallel synchronous SGD on a Dask cluster.

The loop of the Theano tutorials (``train = function([x, y], cost, updates=[(w, w - lr * gw)])``
called on batch after batch), distributed: the data are Dask arrays split along their rows;
each block becomes a *shard* kept in one worker's memory (blocks spread evenly over the
workers, in order). At every step:

1. the client scatters the current parameter values to every worker (once per step);
2. each worker runs the same compiled gradient function on the step's rows of each of its
   shards and sends back the gradients summed over them (weighted by rows);
3. the client averages the gradients (or sums them: ``combine="sum"`` for costs that are sums
   over rows) and updates the shared variables with a compiled update function.

The gradient function is pickled once and scattered once; each worker compiles it at its
first step (or loads it from the compiledir). Batch ``s`` of an epoch is made of the rows
``s * batch_size:(s + 1) * batch_size`` of every block, block after block
(:func:`global_batches` lists them): running a single-process loop over the same batches gives
the same parameters, to rounding.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.compile.function import function
from jitgraph.dask.workers import (BlockError, ShippedFunction, call, first_call_times, ship,
                                   worker_name)
from jitgraph.gradient import grad
from jitgraph.graph.shared import SharedVariable

#: seconds ``fit`` waits for a worker when the cluster has none
WORKER_WAIT = 10.0

__all__ = ["DataParallelSGD", "global_batches"]


def global_batches(rows: Sequence[int], batch_size: int | None) -> list[np.ndarray]:
    """The row indices of each step of one epoch for blocks of ``rows`` rows each: step ``s``
    takes rows ``s * batch_size:(s + 1) * batch_size`` of every block, in block order (the whole
    of every block when ``batch_size`` is None)."""
    offsets = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)
    n_steps = _steps_per_epoch(rows, batch_size)
    size = batch_size or max(rows)
    steps = []
    for s in range(n_steps):
        parts = [np.arange(offsets[i] + min(s * size, n), offsets[i] + min((s + 1) * size, n))
                 for i, n in enumerate(rows)]
        steps.append(np.concatenate(parts))
    return steps


def _steps_per_epoch(rows: Sequence[int], batch_size: int | None) -> int:
    if batch_size is None:
        return 1
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive number of rows per block, got "
                         f"{batch_size}")
    return math.ceil(max(rows) / batch_size)


class DataParallelSGD:
    """Synchronous data-parallel training of ``params`` (shared variables) to minimise ``cost``.

    ``inputs`` are the symbolic data variables (``x``, ``y``), fed with Dask arrays in
    :meth:`fit`. ``update_rule(params, grads)`` returns the ``(shared variable, new value)``
    updates applied on the client (default: ``p - learning_rate * g``; it may use shared
    variables of its own, e.g. momentum). ``combine``: ``"mean"`` when ``cost`` is a mean over
    the rows (the shards' gradients are averaged weighted by their rows), ``"sum"`` when it is
    a sum. ``mode`` compiles both functions (e.g. ``NanGuardMode``).
    """

    def __init__(self, client: Any, inputs: Sequence[Any], cost: Any, params: Sequence[Any],
                 learning_rate: float = 0.01,
                 update_rule: Callable[[list, list], Any] | None = None,
                 combine: str = "mean", mode: Any = None, name: str = "gradients") -> None:
        if combine not in ("mean", "sum"):
            raise ValueError(f"combine must be 'mean' (cost averaged over rows) or 'sum', got "
                             f"{combine!r}")
        self.params = list(params)
        for p in self.params:
            if not isinstance(p, SharedVariable):
                raise TypeError(f"params must be shared variables (jitgraph.shared), got {p}")
        self.client, self.combine, self.inputs = client, combine, list(inputs)
        # The parameters become inputs of the gradient function: the workers receive their
        # values as arguments at every step instead of holding copies of the shared variables.
        values = [p.type() for p in self.params]
        for p, v in zip(self.params, values):
            v.name = p.name
        grads = grad(cost, self.params)
        self.gradient_function = function(
            self.inputs + values, [cost] + list(grads), givens=list(zip(self.params, values)),
            mode=mode, name=name)
        step_grads = [p.type() for p in self.params]
        updates = (update_rule(self.params, step_grads) if update_rule is not None else
                   [(p, p - learning_rate * g) for p, g in zip(self.params, step_grads)])
        self.update_function = function(step_grads, [], updates=updates, mode=mode,
                                                 name=f"{name} update")
        self.shipped: ShippedFunction = ship(self.gradient_function)
        self._remote_function = client.scatter(self.shipped, broadcast=True)
        self.shards: dict[str, list[int]] = {}
        self._shard_futures: dict[str, list[Any]] = {}
        self.rows: tuple[int, ...] = ()
        #: seconds the workers spent in the gradient function, summed over workers and steps
        #: (the rest of a step's time is Dask's communication and the client's update)
        self.worker_seconds = 0.0

    # -- data ---------------------------------------------------------------------------------
    def distribute(self, *arrays: Any) -> None:
        """Split the data (Dask arrays with the same number of rows, one per input) into
        shards kept on the workers: blocks of the first array's row chunks, block ``i`` on
        worker ``i * n_workers // n_blocks``."""
        import dask.array as da
        from distributed import futures_of, wait

        if len(arrays) != len(self.inputs):
            raise TypeError(f"fit/distribute needs one Dask array per input ({len(self.inputs)}:"
                            f" {[str(i) for i in self.inputs]}), got {len(arrays)}")
        for k, a in enumerate(arrays):
            if not isinstance(a, da.Array):
                raise TypeError(f"data argument {k} ({self.inputs[k]}) must be a Dask array, got "
                                f"{type(a).__name__}")
            if a.shape[0] != arrays[0].shape[0]:
                raise ValueError(f"data argument {k} has {a.shape[0]} rows, argument 0 has "
                                 f"{arrays[0].shape[0]}")
        rows = arrays[0].chunks[0]
        arrays = tuple(a.rechunk({0: rows, **{d: -1 for d in range(1, a.ndim)}}) for a in arrays)
        persisted = self.client.persist(list(arrays))
        workers = self._workers()
        by_key = {f.key: f for a in persisted for f in futures_of(a)}
        self.shards, self._shard_futures, self.rows = {}, {}, tuple(rows)
        for i in range(len(rows)):
            worker = workers[i * len(workers) // len(rows)]
            blocks = [by_key[(a.name, i, *([0] * (a.ndim - 1)))] for a in persisted]
            shard = self.client.submit(_pack_shard, *blocks, workers=[worker],
                                       allow_other_workers=False, pure=False)
            self.shards.setdefault(worker, []).append(i)
            self._shard_futures.setdefault(worker, []).append(shard)
        # The shards are in the workers' memory before the first step (the persisted blocks are
        # released once the shards hold them).
        wait([f for futures in self._shard_futures.values() for f in futures])

    # -- training -------------------------------------------------------------------------------
    def fit(self, *arrays: Any, epochs: int = 1, batch_size: int | None = None) -> list[float]:
        """Train for ``epochs`` epochs over the data (Dask arrays, one per input; omit them to
        reuse the shards of the last call). ``batch_size``: rows per block per step (None:
        whole blocks, one step per epoch). Returns the cost of every step (as ``combine``
        makes it from the shards' costs)."""
        if arrays:
            self.distribute(*arrays)
        if not self.shards:
            raise ValueError("no data: pass the Dask arrays to fit() or distribute() first")
        history = []
        steps = _steps_per_epoch(self.rows, batch_size)
        size = batch_size or max(self.rows)
        for _ in range(epochs):
            for s in range(steps):
                history.append(self.step(s * size, (s + 1) * size))
        return history

    def step(self, start: int, stop: int) -> float:
        """One synchronous step on rows ``start:stop`` of every shard; returns the cost."""
        values = [p.get_value(borrow=True) for p in self.params]
        remote_values = self.client.scatter(values, broadcast=True, hash=False)
        futures = [self.client.submit(_shard_gradients, self._remote_function, remote_values,
                                      start, stop, self.combine == "mean", self.shards[w],
                                      *self._shard_futures[w],
                                      workers=[w], allow_other_workers=False, pure=False)
                   for w in self._shard_futures]
        cost, grads, rows = 0.0, None, 0
        for w_cost, w_grads, w_rows, w_seconds in self.client.gather(futures):
            self.worker_seconds += w_seconds
            if w_rows == 0:
                continue
            cost += w_cost
            grads = list(w_grads) if grads is None else [a + b for a, b in zip(grads, w_grads)]
            rows += w_rows
        if grads is None:
            raise ValueError(f"rows {start}:{stop} are past the end of every shard")
        if self.combine == "mean":
            cost, grads = cost / rows, [g / rows for g in grads]
        self.update_function(*[np.asarray(g, dtype=p.dtype) for g, p in
                               zip(grads, self.params)])
        return float(cost)

    def _workers(self) -> list[str]:
        """The cluster's workers, waiting up to :data:`WORKER_WAIT` s for one when there is
        none yet (a cluster starting, or a nanny restarting its worker)."""
        workers = sorted(self.client.scheduler_info()["workers"])
        if not workers:
            try:
                self.client.wait_for_workers(1, timeout=WORKER_WAIT)
            except Exception:  # noqa: BLE001 - distributed's TimeoutError: reported below
                pass
            workers = sorted(self.client.scheduler_info()["workers"])
        if not workers:
            raise RuntimeError(f"the Dask cluster has no workers to hold the shards (none "
                               f"joined within {WORKER_WAIT:g} s; start some, or wait for them: "
                               "client.wait_for_workers(n))")
        return workers

    def first_call_times(self, detail: bool = False) -> dict[str, Any]:
        """worker -> seconds its first gradient call took (compiling included); see
        :func:`jitgraph.dask.first_call_times`."""
        return first_call_times(self.client, self.shipped, detail=detail)


def _pack_shard(*blocks: np.ndarray) -> tuple:
    return tuple(np.ascontiguousarray(b) for b in blocks)


def _shard_gradients(shipped: ShippedFunction, params: list, start: int, stop: int,
                     weighted: bool, block_ids: list[int], *shards: tuple) -> tuple:
    """On a worker: cost and gradients on rows ``start:stop`` of each shard, summed weighted
    by their rows when ``weighted`` (costs that are means), else plainly; with the number of
    rows used."""
    t0 = time.perf_counter()
    cost, grads, used = 0.0, None, 0
    for block, shard in zip(block_ids, shards):
        batch = [a[start:stop] for a in shard]
        n = len(batch[0])
        if n == 0:
            continue
        try:
            out = call(shipped, batch + list(params))
        except Exception as exc:
            where = worker_name()
            raise BlockError(
                f"jitgraph function {shipped.name} failed on shard {block} (rows {start}:"
                f"{start + n} of that block) on worker {where}. {type(exc).__name__}: {exc}",
                worker=where, block=block) from exc
        weight = n if weighted else 1
        cost += weight * float(out[0])
        if grads is None:  # the first block's gradients, scaled, become the accumulators
            # (np.array: a 0-d gradient times a number would be a NumPy scalar, which += does
            # not update in place)
            grads = [np.array(np.multiply(g, weight, dtype=np.result_type(g, np.float64)))
                     for g in out[1:]]
        else:
            for acc, g in zip(grads, out[1:]):
                acc += np.multiply(g, weight, dtype=acc.dtype)
        used += n
    return cost, grads, used, time.perf_counter() - t0

