"""GPU benchmarks: fused elementwise throughput against device-to-device copy bandwidth, the
seeds' logistic regression in steps per second, and the per-call overhead of a GPU function.

    python bench/bench_gpu.py [--size 67108864] [--steps 2000] [--json results.json]

Needs a CUDA GPU with CuPy and NVRTC (``pip install jitgraph[cuda13]``); without one it prints
why and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np


def _timed(fn: Any, repeat: int, sync: Any) -> float:
    """Best seconds per call of ``fn`` (after one warm-up call), the device synchronised."""
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_elementwise(size: int, cp: Any, sync: Any) -> dict:
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.compile.io import Out

    a = cp.random.standard_normal(size, dtype=cp.float32)
    b = cp.random.standard_normal(size, dtype=cp.float32)
    dst = cp.empty_like(a)
    copy_s = _timed(lambda: dst.__setitem__(Ellipsis, a), 20, sync)
    copy_bw = 2 * a.nbytes / copy_s  # read + write
    x, y = T.fvectors("x", "y")
    mode = jitgraph.Mode(linker="cvm", optimizer="fast_run").including("gpuarray")
    fn = jitgraph.function([x, y], Out(T.exp(x) * y + T.sin(x) * 0.5, borrow=True), mode=mode)
    fn.trust_input = True
    fused_s = _timed(lambda: fn(a, b), 20, sync)
    fused_bw = 3 * a.nbytes / fused_s  # two reads, one write
    kinds = fn._program.kinds
    return {"elements": size, "copy_GBps": copy_bw / 1e9, "fused_GBps": fused_bw / 1e9,
            "fraction_of_copy": fused_bw / copy_bw, "fused_ms": fused_s * 1e3,
            "kernels": kinds.count("CUDA")}


def bench_logistic_regression(steps: int, n: int, feats: int) -> dict:
    import jitgraph
    import jitgraph.tensor as T

    rng = np.random.default_rng(0)
    data_x = rng.standard_normal((n, feats)).astype("float32")
    data_y = rng.integers(0, 2, n).astype("float32")
    x, y = T.fmatrix("x"), T.fvector("y")
    w = jitgraph.shared(rng.standard_normal(feats).astype("float32"), name="w", target="cuda")
    b = jitgraph.shared(np.float32(0), name="b", target="cuda")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    mode = jitgraph.Mode(linker="cvm", optimizer="fast_run").including("gpuarray")
    t0 = time.perf_counter()
    train = jitgraph.function([x, y], [p_1 > 0.5, xent], updates=[(w, w - 0.01 * gw),
                                                                  (b, b - 0.01 * gb)], mode=mode)
    compile_s = time.perf_counter() - t0
    used = {type(nd.op).__name__ for nd in train.maker.fgraph.apply_nodes}
    import cupy

    dx, dy = cupy.asarray(data_x), cupy.asarray(data_y)
    train(data_x, data_y)
    t0 = time.perf_counter()
    for _ in range(steps):
        train(data_x, data_y)
    host_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(steps):
        train(dx, dy)
    device_s = time.perf_counter() - t0
    return {"n": n, "feats": feats, "steps": steps, "compile_s": compile_s,
            "steps_per_s_numpy_inputs": steps / host_s,
            "steps_per_s_cupy_inputs": steps / device_s,
            "used_the_gpu": bool(used & {"GpuGemv", "GpuGemm"})}


def bench_call_overhead(calls: int) -> dict:
    import jitgraph
    import jitgraph.tensor as T

    x = T.fvector("x")
    value = np.ones(16, "float32")
    gpu = jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="cvm", optimizer="fast_run")
                            .including("gpuarray"))
    cpu = jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="cvm", optimizer="fast_run"))
    out = {}
    for name, fn in (("gpu", gpu), ("cpu", cpu)):
        fn(value)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(value)
        out[f"{name}_us_per_call"] = (time.perf_counter() - t0) / calls * 1e6
    out["transfer_overhead_us"] = out["gpu_us_per_call"] - out["cpu_us_per_call"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1 << 26)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    from jitgraph.backend_gpu import status, use

    ok, why = status(0)
    if not ok:
        print(f"bench_gpu: no usable GPU here ({why}); nothing to measure.", file=sys.stderr)
        return 2
    dev = use("cuda0")
    import cupy

    sync = cupy.cuda.runtime.deviceSynchronize
    results: dict[str, Any] = {"device": dev.describe()}
    results["elementwise"] = bench_elementwise(args.size, cupy, sync)
    results["logistic_regression"] = bench_logistic_regression(args.steps, 400, 784)
    results["logistic_regression_large"] = bench_logistic_regression(
        max(args.steps // 10, 10), 100_000, 784)
    results["call_overhead"] = bench_call_overhead(args.calls)
    from jitgraph.backend_gpu import compile_stats

    results["kernels"] = compile_stats()
    text = json.dumps(results, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
