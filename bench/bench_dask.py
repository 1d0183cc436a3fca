"""Data-parallel training on a Dask LocalCluster against the single-process loop.

    flock /tmp/jitgraph-bench.lock python bench/bench_dask.py            # everything (~2 min)
    flock /tmp/jitgraph-bench.lock python bench/bench_dask.py --quick    # fewer epochs

1. Time per epoch of the seeds' logistic regression (400 x 784) and the 784-256-128-10 MLP
   (2000 x 784, ``bench/models.py``'s data and initial parameters), float64, the data in 8 row
   blocks: the single-process loop (``function(..., updates=...)`` called on each batch,
   batches sliced beforehand) against ``jitgraph.dask.DataParallelSGD`` on a ``LocalCluster`` of
   1 and 2 worker processes (one thread each). Two batchings: minibatches (10 rows per block
   per step for the logistic regression, 25 for the MLP: 80 and 200 rows per step) and full
   batches (whole blocks: one step per epoch). Best of several epochs after a warm-up epoch;
   the parameters after the same epochs are compared with the single-process ones.
2. A worker's first call of the MLP's gradient function: a fresh worker process on an empty
   compiledir (cold) and another fresh one on the compiledir the first filled (warm), as
   reported by ``jitgraph.dask.first_call_times`` (unpickling = compiling, then the call).

Results are printed and written to ``bench/results/dask-<timestamp>.json``. The machine's load
average is printed before and after: on a busy machine the numbers are not comparable.
"""

from __future__ import annotations

import argparse
import logging
import warnings
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from harness import Table, dumps, load_average  # noqa: E402
from models import MLP_LR, logreg_data, mlp_data  # noqa: E402

N_BLOCKS = 8
DTYPE = "float64"
BATCH_PER_BLOCK = {"logreg": 10, "mlp": 25}
LEARNING_RATE = {"logreg": 0.01, "mlp": MLP_LR}


def build(workload: str) -> tuple[list, list, Any, tuple, list]:
    """(inputs, shared parameters, cost, data, initial parameter values) of ``workload``."""
    import jitgraph
    import jitgraph.tensor as T

    if workload == "logreg":
        data, w0 = logreg_data(DTYPE)
        x, y = T.matrix("x", dtype=DTYPE), T.vector("y", dtype=DTYPE)
        w = jitgraph.shared(w0.copy(), name="w")
        b = jitgraph.shared(np.asarray(0.0, dtype=DTYPE), name="b")
        p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
        xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        return [x, y], [w, b], cost, data, [w0, np.asarray(0.0, dtype=DTYPE)]
    data, values = mlp_data(DTYPE)
    x, y = T.matrix("x", dtype=DTYPE), T.vector("y", dtype="int64")
    params = [jitgraph.shared(v.copy(), name=f"p{k}") for k, v in enumerate(values)]
    hidden = x
    for k in range(0, len(params) - 2, 2):
        hidden = T.tanh(T.dot(hidden, params[k]) + params[k + 1])
    probs = T.nnet.softmax(T.dot(hidden, params[-2]) + params[-1])
    cost = T.nnet.categorical_crossentropy(probs, y).mean()
    return [x, y], params, cost, data, values


def single_process(workload: str, batch: int | None, epochs: int) -> tuple[list, list]:
    """(seconds of each epoch after the warm-up one, final parameter values)."""
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.dask.training import global_batches

    inputs, params, cost, data, _ = build(workload)
    lr = LEARNING_RATE[workload]
    grads = T.grad(cost, params)
    train = jitgraph.function(inputs, cost, updates=[(p, p - lr * g)
                                                     for p, g in zip(params, grads)])
    rows = _rows(len(data[0]))
    batches = [tuple(np.ascontiguousarray(d[idx]) for d in data)
               for idx in global_batches(rows, batch)]
    times = []
    for _ in range(epochs + 1):
        t0 = time.perf_counter()
        for b in batches:
            train(*b)
        times.append(time.perf_counter() - t0)
    return times[1:], [p.get_value() for p in params]


def _rows(n: int) -> tuple[int, ...]:
    base, extra = divmod(n, N_BLOCKS)
    return tuple(base + (1 if i < extra else 0) for i in range(N_BLOCKS))


def distributed_run(client: Any, workload: str, batch: int | None, epochs: int
                    ) -> tuple[list, list, float]:
    """(seconds of each epoch after the warm-up one, final parameters, seconds a worker spent
    in the gradient function during the fastest epoch, averaged over the workers)."""
    import dask.array as da

    import jitgraph.dask as jd

    inputs, params, cost, data, _ = build(workload)
    trainer = jd.DataParallelSGD(client, inputs, cost, params,
                                 learning_rate=LEARNING_RATE[workload])
    rows = _rows(len(data[0]))
    arrays = [da.from_array(d, chunks=(rows,) + tuple((n,) for n in d.shape[1:])) for d in data]
    trainer.distribute(*arrays)
    times, computes = [], []
    for _ in range(epochs + 1):  # the first epoch compiles on the workers: not counted
        before = trainer.worker_seconds
        t0 = time.perf_counter()
        trainer.fit(epochs=1, batch_size=batch)
        times.append(time.perf_counter() - t0)
        computes.append((trainer.worker_seconds - before) / len(trainer.shards))
    best = 1 + int(np.argmin(times[1:]))
    return times[1:], [p.get_value() for p in params], computes[best]


def cluster(n_workers: int, env: dict[str, str] | None = None) -> tuple[Any, Any]:
    from distributed import Client, LocalCluster

    lc = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0", env=env or {}, silence_logs=logging.ERROR)
    return lc, Client(lc)


def epoch_table(epochs: int) -> Table:
    table = Table(
        f"[1] time per epoch, {N_BLOCKS} blocks, float64 (best of {epochs} epochs, ms)",
        [("workload", "workload"), ("batching", "batching"), ("steps", "steps/epoch"),
         ("single_ms", "1 process"), ("w1_ms", "dask 1 worker"), ("w2_ms", "dask 2 workers"),
         ("w2_speedup", "2 workers vs 1 process", ".2f"),
         ("w1_compute_ms", "1 worker: in f"), ("w2_compute_ms", "2 workers: in f"),
         ("max_rel_diff", "params rel diff")],
        note="in f: time a worker spent in the gradient function during the fastest epoch (mean "
             "over the workers; the rest is Dask's communication and the client's update); "
             "1 process: NumPy's BLAS on every core; each Dask worker runs one thread (Dask "
             "sets OMP_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1 in its worker processes); "
             "params rel "
             "diff: largest relative difference of the parameters after the same epochs, 2 "
             "workers vs 1 process")
    return table


def run_epochs(table: Table, epochs: int) -> None:
    from jitgraph.dask.training import global_batches

    single: dict = {}
    for workload in ("logreg", "mlp"):
        for batching in ("minibatch", "full"):
            batch = BATCH_PER_BLOCK[workload] if batching == "minibatch" else None
            times, params = single_process(workload, batch, epochs)
            single[workload, batching] = (min(times), params)
    dist: dict = {}
    for n_workers in (1, 2):
        lc, client = cluster(n_workers)
        try:
            for workload in ("logreg", "mlp"):
                for batching in ("minibatch", "full"):
                    batch = BATCH_PER_BLOCK[workload] if batching == "minibatch" else None
                    times, params, compute = distributed_run(client, workload, batch, epochs)
                    dist[workload, batching, n_workers] = (min(times), params, compute)
        finally:
            client.close()
            lc.close()
    for workload in ("logreg", "mlp"):
        n = 400 if workload == "logreg" else 2000
        for batching in ("minibatch", "full"):
            batch = BATCH_PER_BLOCK[workload] if batching == "minibatch" else None
            s_time, s_params = single[workload, batching]
            w1, w2 = dist[workload, batching, 1], dist[workload, batching, 2]
            diff = max(float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))
                       for a, b in zip(w2[1], s_params))
            table.add(workload=workload, batching=batching,
                      steps=len(global_batches(_rows(n), batch)), single_ms=s_time * 1e3,
                      w1_ms=w1[0] * 1e3, w2_ms=w2[0] * 1e3, w2_speedup=s_time / w2[0],
                      w1_compute_ms=w1[2] * 1e3, w2_compute_ms=w2[2] * 1e3,
                      max_rel_diff=diff)


def first_call(compiledir: Path, label: str) -> dict[str, Any]:
    """A fresh one-worker cluster on ``compiledir``: the worker's first gradient call."""
    import dask.array as da

    import jitgraph.dask as jd

    lc, client = cluster(1, env={"JITGRAPH_FLAGS": f"base_compiledir={compiledir}"})
    try:
        inputs, params, cost, data, _ = build("mlp")
        trainer = jd.DataParallelSGD(client, inputs, cost, params, learning_rate=MLP_LR)
        rows = _rows(len(data[0]))
        arrays = [da.from_array(d, chunks=(rows,) + tuple((n,) for n in d.shape[1:]))
                  for d in data]
        trainer.distribute(*arrays)
        t0 = time.perf_counter()
        trainer.step(0, BATCH_PER_BLOCK["mlp"])
        step_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        trainer.step(0, BATCH_PER_BLOCK["mlp"])
        second_s = time.perf_counter() - t0
        (record,) = trainer.first_call_times(detail=True).values()
        return {"start": label, "first_call_s": record["first_call_s"],
                "compile_s": record["compile_s"], "compiled": record["kernels_compiled"],
                "loaded": record["kernels_loaded"],
                "first_step_s": step_s, "next_step_s": second_s}
    finally:
        client.close()
        lc.close()


def run_first_calls(repeat: int) -> Table:
    table = Table("[2] a fresh worker's first call of the MLP gradient (s)",
                  [("start", "compiledir"), ("first_call_s", "first call (compile + run)"),
                   ("compile_s", "unpickle + compile"), ("compiled", "kernels compiled"),
                   ("loaded", "kernels loaded"),
                   ("first_step_s", "first step (client)"), ("next_step_s", "next step")],
                  note="cold: an empty compiledir; warm: the compiledir the cold worker filled "
                       f"(best of {repeat} fresh workers each)")
    best: dict[str, dict] = {}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="jitgraph-bench-dask-") as tmp:
            for label in ("cold", "warm"):
                r = first_call(Path(tmp), label)
                if label not in best or r["first_call_s"] < best[label]["first_call_s"]:
                    best[label] = r
    for label in ("cold", "warm"):
        table.add(**best[label])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer epochs and fresh workers")
    args = parser.parse_args()
    # from_array puts the data into the graph once, when the shards are made: expected here
    warnings.filterwarnings("ignore", message="Sending large graph")
    epochs = 3 if args.quick else 5
    report: dict[str, Any] = {"load_before": load_average(), "blocks": N_BLOCKS,
                              "dtype": DTYPE, "cpus": os.cpu_count()}
    print(f"load average {report['load_before']:.2f}, {os.cpu_count()} CPUs")
    epochs_table = epoch_table(epochs)
    run_epochs(epochs_table, epochs)
    epochs_table.show()
    first = run_first_calls(1 if args.quick else 2)
    first.show()
    report["epochs"] = epochs_table.to_json()
    report["first_call"] = first.to_json()
    report["load_after"] = load_average()
    print(f"\nload average {report['load_after']:.2f}")
    out = HERE / "results" / time.strftime("dask-%Y%m%d-%H%M%S.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(dumps(report))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
