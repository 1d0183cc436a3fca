"""The Dask data-parallel logistic regression (examples/dask_logistic_regression.py, in
float32) with a GPU per worker, run in a fresh interpreter by test_gpu_workers.py.

``python gpu_workers.py OUT.json HOW``: two worker processes, each with a GPU of its own,
``cuda0`` and ``cuda1`` (the client itself computes on the CPU), train a few steps with
:class:`jitgraph.dask.DataParallelSGD`; then the same steps run on the client's CPU, in one
process, over the same batches. HOW is ``gpu_per_worker`` (a LocalCluster, the GPUs given by
:func:`jitgraph.dask.gpu_per_worker`) or ``worker_flags`` (each worker process started with
its own ``THEANO_FLAGS=device=cudaN``, as ``dask-worker`` processes would be). OUT.json holds
both runs' costs and parameters and, per worker, its device, its kernel launches (the emulated
device's counters; -1 on a real GPU) and the kind of program its gradient function runs.
"""

from __future__ import annotations

import json
import sys

import numpy as np

F = "float32"
LEARNING_RATE = 0.5
BATCH = 20  # rows per block per step: 3 steps over blocks of 50 rows


def _report_here() -> dict:
    from jitgraph.backend_gpu import device
    from jitgraph.dask import workers

    emulator = sys.modules.get("emulated_cuda")
    active = device.active()
    return {"launches": emulator.STATS.kernel_launches if emulator is not None else -1,
            "device": active.label if active is not None else "cpu",
            "programs": [type(f._program).__name__ for f in workers._FUNCTIONS.values()]}


def _cluster(how: str):
    """Two single-threaded worker processes, cuda0's and cuda1's."""
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster

    if how == "gpu_per_worker":
        return LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                            host="127.0.0.1", dashboard_address=":0")
    flags = "device=cuda{},floatX=float32"
    return SpecCluster(
        scheduler={"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": ":0"}},
        workers={f"gpu{i}": {"cls": Nanny, "options": {
            "host": "127.0.0.1", "nthreads": 1, "env": {"THEANO_FLAGS": flags.format(i)}}}
            for i in range(2)})


def main(out: str, how: str) -> None:
    import dask.array as da
    from distributed import Client

    import jitgraph
    import jitgraph.dask
    import jitgraph.tensor as T
    from jitgraph.dask.training import global_batches

    rng = np.random.default_rng(0)
    n, feats = 200, 10
    data = rng.normal(size=(n, feats)).astype(F)
    labels = (data @ rng.normal(size=feats) > 0).astype(F)

    x, t = T.fmatrix("x"), T.fvector("t")
    w = jitgraph.shared(np.zeros(feats, F), name="w")
    b = jitgraph.shared(np.float32(0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    cost = (-t * T.log(p_1) - (1 - t) * T.log(1 - p_1)).mean() + np.float32(0.001) * (w ** 2).sum()

    with _cluster(how) as cluster, Client(cluster) as client:
        client.wait_for_workers(2)
        devices = (jitgraph.dask.gpu_per_worker(client, ("cuda0", "cuda1"))
                   if how == "gpu_per_worker" else {})
        trainer = jitgraph.dask.DataParallelSGD(client, [x, t], cost, [w, b],
                                                learning_rate=LEARNING_RATE)
        costs = trainer.fit(da.from_array(data, chunks=(50, feats)),
                            da.from_array(labels, chunks=50), epochs=1, batch_size=BATCH)
        workers = client.run(_report_here)
        shipped_for = trainer.shipped.device
    dask_params = [w.get_value(), b.get_value()]

    # The CPU's numbers: the same steps in this process (the client computes on the CPU).
    w.set_value(np.zeros(feats, F))
    b.set_value(np.float32(0))
    gw, gb = jitgraph.grad(cost, [w, b])
    step = jitgraph.function([x, t], cost, updates=[(w, w - np.float32(LEARNING_RATE) * gw),
                                                    (b, b - np.float32(LEARNING_RATE) * gb)])
    cpu_costs = [float(step(data[rows], labels[rows]))
                 for rows in global_batches([50] * 4, BATCH)]
    with open(out, "w") as f:
        json.dump({"devices": devices, "workers": workers, "shipped_for": shipped_for,
                   "costs": costs, "cpu_costs": cpu_costs,
                   "params": [p.tolist() for p in dask_params],
                   "cpu_params": [w.get_value().tolist(), b.get_value().tolist()]}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
