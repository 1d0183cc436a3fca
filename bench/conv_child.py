"""One fresh process of the convolution benchmarks (started by ``bench_conv.py``; also run by
the Theano 1.0.5 oracle's interpreter for the ``theano`` system, so it imports only NumPy
before the system).

    python bench/conv_child.py SYSTEM WORKLOAD DTYPE [--steps N --repeat R]

Prints ``RESULT{json}``: ``function_s`` (the ``function(...)``/``jax.jit`` call),
``first_call_s``, ``step_ms`` (best of R loops of N steps) and ``step_ms_median``;
``compile_s = function_s + first_call_s - step`` (the first call's compiling, without the
step it also runs); ``check`` (a checksum of the first outputs).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from child_common import checksum, import_system


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("system")
    parser.add_argument("workload", choices=("lenet", "conv"))
    parser.add_argument("dtype")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result: dict = {}
    t0 = time.perf_counter()
    import_system(args.system)
    result["import_s"] = time.perf_counter() - t0
    import conv_models

    t1 = time.perf_counter()
    data, compile_fn = conv_models.build(args.workload, args.system, args.dtype)
    t2 = time.perf_counter()
    step = compile_fn()
    t3 = time.perf_counter()
    first = step(*data)
    t4 = time.perf_counter()
    result.update(build_s=t2 - t1, function_s=t3 - t2, first_call_s=t4 - t3,
                  check=checksum(first))
    times = []
    for _ in range(args.repeat):
        s0 = time.perf_counter()
        for _ in range(args.steps):
            step(*data)
        times.append((time.perf_counter() - s0) / args.steps)
    result["step_ms"] = min(times) * 1e3
    result["step_ms_median"] = sorted(times)[len(times) // 2] * 1e3
    result["compile_s"] = max(0.0, result["function_s"] + result["first_call_s"]
                              - result["step_ms"] / 1e3)
    if args.system.startswith("jitgraph"):
        from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG

        result["kernels_compiled"] = len(COMPILE_LOG)
        result["kernel_compile_s"] = sum(r.seconds for r in COMPILE_LOG)
        result["graph_from_cache"] = step.maker.graph_from_cache
    print("RESULT" + json.dumps(result))


if __name__ == "__main__":
    main()
