"""Threads: a prediction server's throughput, one compiled function shared by a thread pool.

    python bench/bench_threads.py [--calls 10000] [--repeat 3]

An MLP 16-32-10 (``softmax(dot(tanh(dot(x, W1) + b1), W2) + b2)`` and its argmax) is called
``--calls`` times with different inputs through a ``ThreadPoolExecutor`` of 1, 2 and 8 workers,
for a small batch (2 rows: the Python call path dominates) and a large one (2048 rows: the
kernels and BLAS, which release the GIL, dominate). Prints calls per second (best of
``--repeat``), the speed-up over one worker, and how many answers of the last run differ from
a serial run's (the first 500 calls are checked; 0 unless calls are not thread-safe).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import jitgraph
    import jitgraph.tensor as T

    rng = np.random.default_rng(0)
    x = T.dmatrix("x")
    W1, b1 = jitgraph.shared(rng.normal(size=(16, 32))), jitgraph.shared(rng.normal(size=32))
    W2, b2 = jitgraph.shared(rng.normal(size=(32, 10))), jitgraph.shared(rng.normal(size=10))
    logits = T.dot(T.tanh(T.dot(x, W1) + b1), W2) + b2
    predict = jitgraph.function([x], [T.nnet.softmax(logits), logits.argmax(axis=1)])
    print(f"jitgraph {jitgraph.__file__}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}")
    for rows in (2, 2048):
        calls = args.calls if rows == 2 else max(args.calls // 20, 50)
        inputs = [rng.normal(size=(rows, 16)) for _ in range(min(calls, 500))]
        serial = [predict(v) for v in inputs]
        batch = [inputs[k % len(inputs)] for k in range(calls)]
        base = None
        for workers in (1, 2, 8):
            best = 0.0
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    try:
                        got = list(pool.map(predict, batch))
                    except Exception as exc:  # noqa: BLE001 - calls that are not thread-safe
                        print(f"  {workers} worker(s): a call failed: {type(exc).__name__}")
                        got = []
                    best = max(best, calls / (time.perf_counter() - t0))
            wrong = sum(not (np.array_equal(out[0], serial[k][0])
                             and np.array_equal(out[1], serial[k][1]))
                        for k, out in enumerate(got[:len(inputs)]))
            base = base or best
            print(f"batch {rows:5d} rows, {workers} worker(s): {best:9.0f} calls/s  "
                  f"x{best / base:.2f}  (clones: {len(getattr(predict, '_spares', ()))}, "
                  f"wrong answers: {wrong})")


if __name__ == "__main__":
    main()
