"""Compile time of a large training graph: jitgraph against PyTensor (C and Numba backends).

    python bench/bench_large_graph.py                 # 48 residual blocks, both systems
    python bench/bench_large_graph.py --blocks 16 --systems jitgraph

The model is a deep residual network written with plain tensor operations (dense layer, batch
normalisation from means and variances, ReLU, a skip connection per block; softmax
cross-entropy; SGD updates of every parameter), so that the same code builds it in both
systems: thousands of nodes before rewriting, hundreds of them turned in place. This is the
shape of graph Keras and Lasagne users compiled (a Keras ResNet50 training function is about
10000 nodes). Each system runs in a fresh process with an empty cache (cold), then jitgraph
again with the cache the cold process filled (warm). Reported, in seconds: building the graph
and its gradient, the ``function`` call, the first call; plus the node count after rewriting
and a checksum of the first step's loss (the same model and data in every system). Results
are printed and written to ``bench/results/large-graph-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import Table, installed, load_average  # noqa: E402

SYSTEMS = ("jitgraph", "pytensor-c", "pytensor-numba")
WIDTH, BATCH, CLASSES = 64, 32, 10


def child(system: str, blocks: int) -> dict:
    """Build, compile and run one training step in this process."""
    import numpy as np

    t0 = time.perf_counter()
    if system == "jitgraph":
        import jitgraph as th
        import jitgraph.tensor as T
        mode = None
    else:
        import pytensor as th
        import pytensor.tensor as T
        mode = "NUMBA" if system == "pytensor-numba" else "FAST_RUN"
    t1 = time.perf_counter()
    rng = np.random.default_rng(0)
    x, y = T.matrix("x"), T.ivector("y")
    params, h = [], x
    for _ in range(blocks):
        W = th.shared(rng.normal(size=(WIDTH, WIDTH)) * 0.05)
        gamma, beta = th.shared(np.ones(WIDTH)), th.shared(np.zeros(WIDTH))
        params += [W, gamma, beta]
        z = T.dot(h, W)
        mean, var = z.mean(axis=0), z.var(axis=0)
        z = gamma * (z - mean) / T.sqrt(var + 1e-5) + beta
        h = T.maximum(z, 0) + h
    W_out = th.shared(rng.normal(size=(WIDTH, CLASSES)) * 0.05)
    params.append(W_out)
    logits = T.dot(h, W_out)
    logits = logits - logits.max(axis=1, keepdims=True)
    log_p = logits - T.log(T.exp(logits).sum(axis=1, keepdims=True))
    loss = -log_p[T.arange(y.shape[0]), y].mean()
    grads = T.grad(loss, params)
    updates = [(p, p - 0.01 * g) for p, g in zip(params, grads)]
    t2 = time.perf_counter()
    step = th.function([x, y], loss, updates=updates, mode=mode)
    t3 = time.perf_counter()
    xv = rng.normal(size=(BATCH, WIDTH))
    yv = rng.integers(0, CLASSES, size=BATCH).astype("int32")
    first = float(step(xv, yv))
    t4 = time.perf_counter()
    nodes = len(step.maker.fgraph.apply_nodes)
    return {"import_s": t1 - t0, "build_s": t2 - t1, "function_s": t3 - t2,
            "first_call_s": t4 - t3, "compile_s": t4 - t2, "nodes": nodes, "loss": first}


def run_child(system: str, blocks: int, cache: Path) -> dict:
    env = dict(os.environ)
    env["JITGRAPH_FLAGS"] = f"base_compiledir={cache}"
    env["PYTENSOR_FLAGS"] = f"base_compiledir={cache}"
    env["THEANO_FLAGS"] = ""
    run = subprocess.run([sys.executable, __file__, "--child", system, "--blocks", str(blocks)],
                         capture_output=True, text=True, env=env, timeout=3600)
    if run.returncode != 0:
        return {"error": run.stderr.strip().splitlines()[-1] if run.stderr else "failed"}
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=48)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.blocks)))
        return
    print(f"load average {load_average():.2f}")
    table = Table(f"Compile of a {args.blocks}-block residual network's training step "
                  "(fresh processes)",
                  [("system", "system", "s"), ("cache", "cache", "s"), ("nodes", "nodes", "d"),
                   ("build_s", "build s", ".2f"), ("function_s", "function s", ".2f"),
                   ("first_call_s", "1st call s", ".2f"), ("compile_s", "compile s", ".2f"),
                   ("loss", "loss", ".6f")])
    with tempfile.TemporaryDirectory() as tmp:
        for system in args.systems.split(","):
            if system.startswith("pytensor") and not installed("pytensor"):
                continue
            cache = Path(tmp) / system
            table.add(system=system, cache="cold", **run_child(system, args.blocks, cache))
            if system == "jitgraph":
                table.add(system=system, cache="warm", **run_child(system, args.blocks, cache))
    table.show()
    print(f"load average {load_average():.2f}")
    out = HERE / "results" / f"large-graph-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"blocks": args.blocks, "table": table.to_json()}, indent=1))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
