"""Threads: a prediction server's throughput, one compiled function shared by a thread pool.

    python bench/bench_threads.py [--calls 10000] [--repeat 3]
    python bench/bench_threads.py --overhead     # what the thread-safety costs a call


An MLP 16-32-10 (``softmax(dot(tanh(dot(x, W1) + b1), W2) + b2)`` and its argmax) is called
``--calls`` times with different inputs through a ``ThreadPoolExecutor`` of 1, 2 and 8 workers,
for a small batch (2 rows: the Python call path dominates) and a large one (2048 rows: the
kernels and BLAS, which release the GIL, dominate). Prints calls per second (best of
``--repeat``), the speed-up over one worker, and how many answers of the last run differ from
a serial run's (the first 500 calls are checked; 0 unless calls are not thread-safe).

``--overhead``: the per-call cost of holding the program (:mod:`jitgraph.compile.concurrency`):
each function is compiled twice, with its generated call holding the program and without those
lines (the call as it was before), and both are timed alternately in thread CPU time
(``time.thread_time``: other processes on a busy machine count less), best of 15 rounds.
"""

from __future__ import annotations

import argparse
import os
import time
import timeit
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def overhead(calls: int = 50_000, rounds: int = 15) -> None:
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.compile import fast_call
    from jitgraph.random.mrg_streams import MRG_RandomStreams

    holding = fast_call._holding_program

    def compiled(build, trust: bool, hold: bool):
        fast_call._holding_program = holding if hold else (lambda fn, ns, body: body)
        try:
            return build(trust)
        finally:
            fast_call._holding_program = holding

    x, s = T.dvector("x"), T.dscalar("s")
    W = jitgraph.shared(np.zeros(10), "W")
    cases = {
        "f(v) = v + 1, 10 float64": (lambda t: jitgraph.function([x], x + 1, trust_input=t),
                                     (np.arange(10.0),)),
        "f(s) = s + 1, 0-d": (lambda t: jitgraph.function([s], s + 1, trust_input=t),
                              (np.asarray(2.0),)),
        "f(v) updating W += v": (lambda t: jitgraph.function(
            [x], x + 1, updates=[(W, W + x)], trust_input=t), (np.arange(10.0),)),
        "MRG uniform((1000,)) draw": (lambda t: jitgraph.function(
            [], MRG_RandomStreams(1).uniform((1000,)), trust_input=t), ()),
    }
    for name, (build, args) in cases.items():
        for trust in (False, True):
            fns = {hold: compiled(build, trust, hold) for hold in (False, True)}
            best = {False: np.inf, True: np.inf}
            for _ in range(rounds):
                for hold, f in fns.items():
                    timer = timeit.Timer(lambda: f(*args), timer=time.thread_time)
                    best[hold] = min(best[hold], timer.timeit(number=calls) / calls * 1e6)
            print(f"{name:27s} trust_input={trust!s:5s}  without {best[False]:.3f} µs  "
                  f"holding the program {best[True]:.3f} µs  "
                  f"({(best[True] - best[False]) * 1000:+.0f} ns)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--overhead", action="store_true",
                        help="the per-call cost of thread-safety instead of the server")
    args = parser.parse_args()
    if args.overhead:
        overhead()
        return

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
