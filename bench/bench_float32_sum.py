"""float32 reductions: time and accuracy of jitgraph's sums against NumPy.

    flock /tmp/jitgraph-bench.lock python bench/bench_float32_sum.py [--acc-dtype float32]

For a 1000 x 10,000 float32 matrix: the best wall time of a compiled function returning the row
sums and the total, and of one returning the column sums, beside NumPy's; then the error of the
mean of 3 x 50,000 values near 1e4 against the float64 mean (the case that showed float32
accumulators losing ~7e-4 of the result). ``--acc-dtype float32`` measures the old accumulator
(jitgraph accumulates float32 in float64 by default, as Theano 1.0.5 does).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from harness import best_ms, load_average  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acc-dtype", default=None, help="acc_dtype of the sums (default: jitgraph's)")
    args = parser.parse_args()
    import jitgraph
    import jitgraph.tensor as T

    acc = args.acc_dtype
    print(f"load before: {load_average():.2f}")
    x = T.fmatrix("x")
    rows = jitgraph.function([x], [T.sum(x, axis=1, acc_dtype=acc), T.sum(x, acc_dtype=acc)])
    cols = jitgraph.function([x], T.sum(x, axis=0, acc_dtype=acc))
    v = np.random.default_rng(0).random((1000, 10_000), dtype="float32")
    print(f"row sums + total: jitgraph {best_ms(lambda: rows(v), 20):.2f} ms, "
          f"NumPy {best_ms(lambda: (v.sum(1), v.sum()), 20):.2f} ms")
    print(f"column sums:      jitgraph {best_ms(lambda: cols(v), 20):.2f} ms, "
          f"NumPy {best_ms(lambda: v.sum(0), 20):.2f} ms")
    near = (10_000 + np.random.RandomState(3).rand(3, 50_000)).astype("float32")
    mean = jitgraph.function([x], T.sum(x, axis=1, acc_dtype=acc) / x.shape[1])(near)
    exact = near.astype("float64").mean(1)
    print(f"mean of 50,000 values near 1e4: max relative error {np.max(np.abs(mean - exact) / exact):.2e}"
          f" (float32 rounding alone: {np.finfo(np.float32).eps / 2:.1e})")
    print(f"load after: {load_average():.2f}")


if __name__ == "__main__":
    main()
