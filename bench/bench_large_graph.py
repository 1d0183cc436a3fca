"""Compile time of a large training graph: jitgraph against PyTensor (C and Numba) and JAX.

    python bench/bench_large_graph.py                 # 48 residual blocks, every system
    python bench/bench_large_graph.py --blocks 16 --systems jitgraph,jax
    python bench/bench_large_graph.py --sweep 4,8,16,32,48 --systems jitgraph,jax

The model is a deep residual network written with plain tensor operations (dense layer, batch
normalisation from means and variances, ReLU, a skip connection per block; softmax
cross-entropy; SGD updates of every parameter), so that the same code builds it in both
systems: thousands of nodes before rewriting, hundreds of them turned in place. This is the
shape of graph Keras and Lasagne users compiled (a Keras ResNet50 training function is about
10000 nodes). Each system runs in a fresh process with an empty cache (cold), then jitgraph
again with the cache the cold process filled (warm). Reported, in seconds: building the graph
and its gradient, the ``function`` call, the first call; plus the node count after rewriting
and a checksum of the first step's loss (the same model and data in every system). JAX runs the
same model in float64 as a ``jax.jit``-ed step (``value_and_grad`` and the SGD update); its
node count is the number of equations of the step's jaxpr (before XLA's own rewriting), and
its compile time is tracing plus XLA compilation (the first call). Compile times are given
in wall seconds and in CPU seconds (the process's and its waited-for children's: on a shared
machine only those compare between runs). ``--sweep`` repeats the comparison over sizes and
reports milliseconds per node, to show whether the cost grows linearly. For jitgraph the
largest size's cold compile is also split into stages by ``compile_stages.py`` (graph
building; each rewrite phase with its node counts; linking: scheduling, lowering, native
compilation of the kernels and how many share a structure, the generated driver, publishing
to the compiledir), the biggest first. Results are printed and written to
``bench/results/large-graph-<timestamp>.json``.
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

from compile_stages import cpu_seconds, install, jitgraph_stages, show_stages  # noqa: E402
from harness import Table, installed, load_average  # noqa: E402

SYSTEMS = ("jitgraph", "pytensor-c", "pytensor-numba", "jax")
WIDTH, BATCH, CLASSES = 64, 32, 10


def child(system: str, blocks: int) -> dict:
    """Build, compile and run one training step in this process."""
    if system == "jax":
        return jax_child(blocks)
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
    if system == "jitgraph":
        install()
    t2, c2 = time.perf_counter(), cpu_seconds()
    step = th.function([x, y], loss, updates=updates, mode=mode)
    t3 = time.perf_counter()
    xv = rng.normal(size=(BATCH, WIDTH))
    yv = rng.integers(0, CLASSES, size=BATCH).astype("int32")
    first = float(step(xv, yv))
    t4, c4 = time.perf_counter(), cpu_seconds()
    nodes = len(step.maker.fgraph.apply_nodes)
    result = {"import_s": t1 - t0, "build_s": t2 - t1, "function_s": t3 - t2,
              "first_call_s": t4 - t3, "compile_s": t4 - t2, "compile_cpu_s": c4 - c2,
              "nodes": nodes, "loss": first}
    if system == "jitgraph":
        # the first call ran on tier-0 kernels while a child compiled the optimised ones
        # (backend_cpu.codegen.tiering): until all are in place, with the child's CPU time
        from jitgraph.backend_cpu.codegen import tiering

        tiering.settle()
        result["optimised_s"] = time.perf_counter() - t2
        result["optimised_cpu_s"] = cpu_seconds() - c2
        result["stages"] = jitgraph_stages(step)
    return result


def jax_child(blocks: int) -> dict:
    """The same model and step in JAX (float64), jit-compiled at its first call."""
    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    t1 = time.perf_counter()
    rng = np.random.default_rng(0)
    params = []
    for _ in range(blocks):
        params += [rng.normal(size=(WIDTH, WIDTH)) * 0.05, np.ones(WIDTH), np.zeros(WIDTH)]
    params.append(rng.normal(size=(WIDTH, CLASSES)) * 0.05)
    params = [jnp.asarray(p) for p in params]

    def loss_fn(params: list, x: object, y: object) -> object:
        h = x
        for i in range(blocks):
            W, gamma, beta = params[3 * i:3 * i + 3]
            z = h @ W
            mean, var = z.mean(axis=0), z.var(axis=0)
            z = gamma * (z - mean) / jnp.sqrt(var + 1e-5) + beta
            h = jnp.maximum(z, 0) + h
        logits = h @ params[-1]
        logits = logits - logits.max(axis=1, keepdims=True)
        log_p = logits - jnp.log(jnp.exp(logits).sum(axis=1, keepdims=True))
        return -log_p[jnp.arange(y.shape[0]), y].mean()

    def train_step(params: list, x: object, y: object) -> tuple:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return loss, [p - 0.01 * g for p, g in zip(params, grads)]

    step = jax.jit(train_step)
    xv = jnp.asarray(rng.normal(size=(BATCH, WIDTH)))
    yv = jnp.asarray(rng.integers(0, CLASSES, size=BATCH).astype("int32"))
    t2, c2 = time.perf_counter(), cpu_seconds()
    loss, _ = step(params, xv, yv)
    first = float(loss)
    t3, c3 = time.perf_counter(), cpu_seconds()
    nodes = len(jax.make_jaxpr(train_step)(params, xv, yv).jaxpr.eqns)
    return {"import_s": t1 - t0, "build_s": t2 - t1, "function_s": 0.0,
            "first_call_s": t3 - t2, "compile_s": t3 - t2, "compile_cpu_s": c3 - c2,
            "nodes": nodes, "loss": first}


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


def compare(blocks: int, systems: list[str], tmp: str) -> list[dict]:
    """One row per system (and jitgraph warm) at ``blocks`` blocks."""
    rows = []
    for system in systems:
        if system.startswith("pytensor") and not installed("pytensor"):
            continue
        if system == "jax" and not installed("jax"):
            continue
        cache = Path(tmp) / f"{system}-{blocks}"
        row = {"system": system, "cache": "cold", "blocks": blocks,
               **run_child(system, blocks, cache)}
        rows.append(row)
        if system == "jitgraph":
            rows.append({"system": system, "cache": "warm", "blocks": blocks,
                         **run_child(system, blocks, cache)})
    for row in rows:
        if row.get("nodes"):
            row["ms_per_node"] = 1000 * row["compile_s"] / row["nodes"]
            row["cpu_ms_per_node"] = 1000 * row["compile_cpu_s"] / row["nodes"]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=48)
    parser.add_argument("--sweep", default=None,
                        help="comma-separated block counts (e.g. 4,8,16,32,48)")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.blocks)))
        return
    sizes = [int(b) for b in args.sweep.split(",")] if args.sweep else [args.blocks]
    print(f"load average {load_average():.2f}")
    table = Table(f"Compile of a residual network's training step, {', '.join(map(str, sizes))} "
                  "blocks (fresh processes)",
                  [("blocks", "blocks", "d"), ("system", "system", "s"), ("cache", "cache", "s"),
                   ("nodes", "nodes", "d"), ("build_s", "build s", ".2f"),
                   ("function_s", "function s", ".2f"), ("first_call_s", "1st call s", ".2f"),
                   ("compile_s", "compile s", ".2f"), ("compile_cpu_s", "cpu s", ".2f"),
                   ("optimised_s", "all optimised s", ".2f"),
                   ("optimised_cpu_s", "all optimised cpu s", ".2f"),
                   ("ms_per_node", "ms/node", ".2f"), ("cpu_ms_per_node", "cpu ms/node", ".2f"),
                   ("loss", "loss", ".6f")])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for blocks in sizes:
            rows += compare(blocks, args.systems.split(","), tmp)
    for row in rows:
        table.add(**{k: v for k, v in row.items() if k != "stages"})
    table.show()
    stages = next((r["stages"] for r in reversed(rows)
                   if r["system"] == "jitgraph" and r["cache"] == "cold" and "stages" in r), None)
    if stages:
        show_stages(f"jitgraph cold compile at {sizes[-1]} blocks", stages)
    print(f"load average {load_average():.2f}")
    out = HERE / "results" / f"large-graph-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"sizes": sizes, "table": table.to_json(), "rows": rows},
                              indent=1))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
