"""Loop benchmarks: jitgraph's scan against a NumPy loop, PyTensor (C VM and Numba) and JAX.

    python bench/bench_scan.py              # everything (a few minutes; run on a quiet machine)
    python bench/bench_scan.py --quick      # smaller sizes, jitgraph and NumPy only
    python bench/bench_scan.py --systems jitgraph,numpy,jax

1. Per-step overhead: 1000 steps of ``h = tanh(W h + x_t)`` with 10 hidden units (µs per step,
   best of several calls of the compiled loop; the call overhead is included). jitgraph twice:
   the native loop (the default) and the inner program once per step
   (``JITGRAPH_NATIVE_SCAN=0``).
2. An RNN ``h_t = tanh(x_t + h_{t-1} W)`` with 256 hidden units over 200 steps, batch 32: forward
   and gradient (cost ``sum(h**2)``, gradient with respect to ``W`` and ``h0``), ms per call and
   the ratio to a hand-written NumPy loop (forward loop, then back-propagation through time).
3. Compile time of that RNN's gradient function with jitgraph, each in a fresh process: cold
   (an empty compiledir) and warm (the compiledir the cold process filled): the ``function``
   call plus its first call, and building the graph apart. Python's bytecode cache is on in
   those processes, in a folder of their own: the cold process fills it (compiling every
   module it imports, the standard library's too); ``cold_pyc`` is a cold compiledir with
   that bytecode cache filled, as an installed package (pip writes the .pyc files) runs.

Every number is best-of-N wall-clock time on float64; jitgraph's and NumPy's RNN calls (tens
of milliseconds) are interleaved, one call of each per round, so that a load coming and going
on a shared machine weighs on both alike. They are timed before any peer is built; the peers
are built and timed one at a time (once PyTensor's C functions are built, BLAS-heavy calls of
the process were seen to run 2-4x slower, NumPy's loop included). Results are printed and written to
``bench/results/scan-<timestamp>.json``. The 1-minute load average is printed before and after:
on a busy machine the numbers are not comparable.
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
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from harness import best_ms

ALL = ("jitgraph", "jitgraph-step", "numpy", "pytensor-c", "pytensor-numba", "jax")


# ---------------------------------------------------------------------------------------------
# The two loops, per system. Each builder returns (compile seconds, callable).

def small_data(n_steps: int, hidden: int) -> dict:
    rng = np.random.default_rng(0)
    return {"X": rng.normal(size=(n_steps, hidden)), "W": rng.normal(size=(hidden, hidden)) * 0.3,
            "h0": np.zeros(hidden)}


def rnn_data(n_steps: int, batch: int, hidden: int) -> dict:
    rng = np.random.default_rng(1)
    return {"X": rng.normal(size=(n_steps, batch, hidden)) * 0.1,
            "W": rng.normal(size=(hidden, hidden)) / np.sqrt(hidden),
            "h0": np.zeros((batch, hidden))}


def jitgraph_small(d: dict, native: bool = True) -> tuple[float, Callable]:
    os.environ["JITGRAPH_GRAPH_CACHE"] = "0"  # link anew: the native switch must apply
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.backend_cpu.lowering import scan as lower_scan
    from jitgraph.scan import scan

    lower_scan.NATIVE = native
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x), sequences=X, outputs_info=h0,
                 non_sequences=W)
    t0 = time.perf_counter()
    f = jitgraph.function([X, h0, W], hs[-1])
    f.trust_input = True
    elapsed = time.perf_counter() - t0
    lower_scan.NATIVE = True
    return elapsed, lambda: f(d["X"], d["h0"], d["W"])


def jitgraph_rnn(d: dict) -> tuple[float, Callable]:
    os.environ["JITGRAPH_GRAPH_CACHE"] = "0"  # compiled here, not loaded from the compiledir
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.scan import scan

    X, W, h0 = T.dtensor3("X"), T.dmatrix("W"), T.dmatrix("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(x + T.dot(h, W)), sequences=X, outputs_info=h0,
                 non_sequences=W)
    cost = (hs ** 2).sum()
    t0 = time.perf_counter()
    f = jitgraph.function([X, h0, W], [cost] + T.grad(cost, [W, h0]))
    f.trust_input = True
    return time.perf_counter() - t0, lambda: f(d["X"], d["h0"], d["W"])


def numpy_small(d: dict) -> tuple[float, Callable]:
    X, W, h0 = d["X"], d["W"], d["h0"]

    def run() -> np.ndarray:
        h = h0
        for x in X:
            h = np.tanh(W @ h + x)
        return h

    return 0.0, run


def numpy_rnn(d: dict) -> tuple[float, Callable]:
    X, W, h0 = d["X"], d["W"], d["h0"]
    n = X.shape[0]

    def run() -> tuple:
        hs = np.empty((n + 1,) + h0.shape)
        hs[0] = h0
        for t in range(n):
            hs[t + 1] = np.tanh(X[t] + hs[t] @ W)
        cost = (hs[1:] ** 2).sum()
        gW = np.zeros_like(W)
        g = np.zeros_like(h0)
        for t in range(n - 1, -1, -1):
            g = g + 2 * hs[t + 1]
            dz = g * (1 - hs[t + 1] ** 2)
            gW += hs[t].T @ dz
            g = dz @ W.T
        return cost, gW, g

    return 0.0, run


def _pytensor_mode(kind: str) -> Any:
    from pytensor.compile.mode import Mode, get_mode

    return Mode(linker="cvm", optimizer="fast_run") if kind == "c" else get_mode("NUMBA")


def pytensor_small(d: dict, kind: str) -> tuple[float, Callable]:
    import pytensor
    import pytensor.tensor as pt

    X, W, h0 = pt.dmatrix("X"), pt.dmatrix("W"), pt.dvector("h0")
    hs = pytensor.scan(lambda x, h, W: pt.tanh(pt.dot(W, h) + x), sequences=X,
                       outputs_info=h0, non_sequences=W, return_updates=False)
    t0 = time.perf_counter()
    f = pytensor.function([X, h0, W], hs[-1], mode=_pytensor_mode(kind), trust_input=True)
    f(d["X"], d["h0"], d["W"])
    return time.perf_counter() - t0, lambda: f(d["X"], d["h0"], d["W"])


def pytensor_rnn(d: dict, kind: str) -> tuple[float, Callable]:
    import pytensor
    import pytensor.tensor as pt

    X, W, h0 = pt.dtensor3("X"), pt.dmatrix("W"), pt.dmatrix("h0")
    hs = pytensor.scan(lambda x, h, W: pt.tanh(x + pt.dot(h, W)), sequences=X,
                       outputs_info=h0, non_sequences=W, return_updates=False)
    cost = (hs ** 2).sum()
    t0 = time.perf_counter()
    f = pytensor.function([X, h0, W], [cost] + pytensor.grad(cost, [W, h0]),
                          mode=_pytensor_mode(kind), trust_input=True)
    f(d["X"], d["h0"], d["W"])
    return time.perf_counter() - t0, lambda: f(d["X"], d["h0"], d["W"])


def jax_small(d: dict) -> tuple[float, Callable]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    @jax.jit
    def run(X, h0, W):  # noqa: ANN001, ANN202
        h, _ = jax.lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None), h0, X)
        return h

    args = [jnp.asarray(d[k]) for k in ("X", "h0", "W")]
    t0 = time.perf_counter()
    run(*args).block_until_ready()
    return time.perf_counter() - t0, lambda: run(*args).block_until_ready()


def jax_rnn(d: dict) -> tuple[float, Callable]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def cost(W, h0, X):  # noqa: ANN001, ANN202
        def step(h, x):  # noqa: ANN001, ANN202
            h = jnp.tanh(x + h @ W)
            return h, h

        _, hs = jax.lax.scan(step, h0, X)
        return (hs ** 2).sum()

    run = jax.jit(jax.value_and_grad(cost, argnums=(0, 1)))
    args = [jnp.asarray(d[k]) for k in ("W", "h0", "X")]
    t0 = time.perf_counter()
    jax.block_until_ready(run(*args))
    return time.perf_counter() - t0, lambda: jax.block_until_ready(run(*args))


SMALL = {"jitgraph": jitgraph_small, "jitgraph-step": lambda d: jitgraph_small(d, False),
         "numpy": numpy_small, "pytensor-c": lambda d: pytensor_small(d, "c"),
         "pytensor-numba": lambda d: pytensor_small(d, "numba"), "jax": jax_small}
RNN = {"jitgraph": jitgraph_rnn, "numpy": numpy_rnn,
       "pytensor-c": lambda d: pytensor_rnn(d, "c"),
       "pytensor-numba": lambda d: pytensor_rnn(d, "numba"), "jax": jax_rnn}


# ---------------------------------------------------------------------------------------------
# Compile time in fresh processes

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import jitgraph, jitgraph.tensor as T
from jitgraph.scan import scan
t1 = time.perf_counter()
X, W, h0 = T.dtensor3("X"), T.dmatrix("W"), T.dmatrix("h0")
hs, _ = scan(lambda x, h, W: T.tanh(x + T.dot(h, W)), sequences=X, outputs_info=h0,
             non_sequences=W)
cost = (hs ** 2).sum()
outs = [cost] + T.grad(cost, [W, h0])
t2 = time.perf_counter()
f = jitgraph.function([X, h0, W], outs)
rng = np.random.default_rng(0)
f(rng.normal(size=(5, 2, 4)), np.zeros((2, 4)), rng.normal(size=(4, 4)))
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "graph": t2 - t1, "compile": t3 - t2,
                  "from_cache": bool(f.maker.graph_from_cache)}))
"""


def compile_times(repeat: int) -> dict:
    """Best of ``repeat`` fresh processes: ``cold`` (an empty compiledir and an empty bytecode
    cache, which the process fills: Python compiles every module it imports lazily, the
    standard library's and NumPy's included, inside the timed call), ``cold_pyc`` (an empty
    compiledir, the bytecode cache filled: modules load as from an installed package, whose
    .pyc files pip writes at install) and ``warm`` (the compiledir the cold process filled)."""
    results: dict[str, list] = {"cold": [], "cold_pyc": [], "warm": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            # Python's bytecode cache on, in a folder of its own that the cold process fills
            env = dict(os.environ, JITGRAPH_FLAGS=f"base_compiledir={tmp}",
                       PYTHONPYCACHEPREFIX=os.path.join(tmp, "pycache"))
            env.pop("JITGRAPH_GRAPH_CACHE", None)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            second = dict(env, JITGRAPH_FLAGS=f"base_compiledir={os.path.join(tmp, 'second')}")
            for kind, kind_env in (("cold", env), ("warm", env), ("cold_pyc", second)):
                out = subprocess.run([sys.executable, "-c", CHILD], env=kind_env, check=True,
                                     capture_output=True, text=True).stdout
                results[kind].append(json.loads(out.strip().splitlines()[-1]))
    return {k: min(v, key=lambda r: r["compile"]) for k, v in results.items()}


# ---------------------------------------------------------------------------------------------

def interleaved_best_ms(runs: dict[str, Callable], repeat: int) -> dict[str, float]:
    """Best wall time of each callable in ms over ``repeat`` rounds of one call each, in a
    rotating order (after a warm-up call each): on a shared machine a load that comes and
    goes weighs on every system alike instead of on whichever was being timed."""
    best = {name: float("inf") for name in runs}
    for fn in runs.values():
        fn()
    names = list(runs)
    for r in range(repeat):
        # the order rotates: no system always runs right after the same other one (JAX's
        # thread pool, still spinning after its call, slows whatever BLAS call comes next)
        for name in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            runs[name]()
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: t * 1e3 for name, t in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--systems", default=None, help=f"comma-separated, from {ALL}")
    args = parser.parse_args()
    systems = args.systems.split(",") if args.systems else (
        ["jitgraph", "jitgraph-step", "numpy"] if args.quick else list(ALL))
    repeat = 3 if args.quick else 7
    report: dict[str, Any] = {"load_before": os.getloadavg()[0], "systems": systems}
    print(f"load average {report['load_before']:.2f}")

    # jitgraph's and NumPy's RNN are timed before any peer is built (see [2] below)
    steps, batch, hidden = (50, 16, 128) if args.quick else (200, 32, 256)
    d_rnn = rnn_data(steps, batch, hidden)
    first = [name for name in systems if name in ("jitgraph", "numpy")]
    built = {name: RNN[name](d_rnn) for name in first}
    timed = interleaved_best_ms({name: run for name, (_, run) in built.items()}, repeat)
    rnn_compile = {name: compile_s for name, (compile_s, _) in built.items()}
    del built

    n_small = 200 if args.quick else 1000
    d = small_data(n_small, 10)
    print(f"\n[1] {n_small} steps of h = tanh(W h + x_t), 10 hidden units: µs per step")
    report["small"] = {}
    for name in systems:
        compile_s, run = SMALL[name](d)
        per_step = best_ms(run, repeat) / n_small * 1e3
        report["small"][name] = {"us_per_step": per_step, "compile_s": compile_s}
        print(f"  {name:16s} {per_step:8.3f} µs/step   (compile {compile_s:.2f} s)")

    d = d_rnn
    print(f"\n[2] RNN {hidden} hidden, {steps} steps, batch {batch}: forward + gradient, ms")
    # jitgraph and NumPy were timed first, interleaved; each peer is built and timed in turn
    # after them: once PyTensor's C functions are built, BLAS-heavy calls of the process were
    # seen to run 2-4x slower (NumPy's loop included), and JAX's thread pool keeps spinning
    # after its calls
    report["rnn"] = {name: {"ms": timed[name], "compile_s": rnn_compile[name]} for name in first}
    for name in systems:
        if name in RNN and name not in first:
            compile_s, run = RNN[name](d)
            timed[name] = best_ms(run, repeat)
            report["rnn"][name] = {"ms": timed[name], "compile_s": compile_s}
    for name, ms in timed.items():
        ratio = ms / timed["numpy"] if "numpy" in timed else float("nan")
        report["rnn"][name]["vs_numpy"] = ratio
        print(f"  {name:16s} {ms:8.2f} ms   {ratio:5.2f}x NumPy   "
              f"(compile {report['rnn'][name]['compile_s']:.2f} s)")

    if "jitgraph" in systems:
        times = compile_times(1 if args.quick else 3)
        report["compile"] = times
        print("\n[3] jitgraph compile of the RNN gradient (fresh process each, best of runs)")
        for kind, r in times.items():
            print(f"  {kind:8s} function + first call {r['compile']:.3f} s   (import "
                  f"{r['import']:.2f} s, graph {r['graph']:.3f} s, graph from cache: "
                  f"{r['from_cache']})")

    report["load_after"] = os.getloadavg()[0]
    print(f"\nload average {report['load_after']:.2f}")
    out = HERE / "results" / time.strftime("scan-%Y%m%d-%H%M%S.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
