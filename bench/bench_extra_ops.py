"""Running sums, differences and sorting: jitgraph's compiled ops against NumPy.

    flock /tmp/jitgraph-bench.lock python bench/bench_extra_ops.py [--quick]

For a float64 vector of 10**6 elements (and a 1000x1000 matrix along each axis): the best wall
time of one call (fresh output each call) of a compiled ``cumsum``/``diff``/``sort`` function,
of the same op run by its ``perform`` (``linker='py'``), and of the NumPy function. Prints the
1-minute load average before and after (the machine is shared: compare under similar load).
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


def cases(quick: bool) -> list[tuple]:
    import jitgraph
    import jitgraph.tensor as T

    n = 10**4 if quick else 10**6
    side = 100 if quick else 1000
    vec = np.random.RandomState(0).rand(n)
    mat = np.random.RandomState(1).rand(side, side)
    v, x = T.vector(), T.matrix()
    perform = jitgraph.Mode(linker="py")
    rows = []
    for label, build, value, reference in (
            (f"cumsum vector {n}", lambda t: T.cumsum(t), vec, np.cumsum),
            (f"cumsum {side}x{side} axis=0", lambda t: T.cumsum(t, 0), mat,
             lambda a: np.cumsum(a, 0)),
            (f"cumsum {side}x{side} axis=1", lambda t: T.cumsum(t, 1), mat,
             lambda a: np.cumsum(a, 1)),
            (f"cumprod vector {n}", lambda t: T.cumprod(t), vec, np.cumprod),
            (f"diff vector {n}", lambda t: T.extra_ops.diff(t), vec, np.diff),
            (f"sort vector {n}", lambda t: T.sort(t), vec, np.sort)):
        var = v if value.ndim == 1 else x
        compiled = jitgraph.function([var], build(var))
        reference_run = jitgraph.function([var], build(var), mode=perform)
        if not np.array_equal(compiled(value), reference(value)):
            raise AssertionError(f"{label}: compiled result differs from NumPy's")
        rows.append((label, best_ms(lambda: compiled(value), 10),
                     best_ms(lambda: reference_run(value), 10),
                     best_ms(lambda: reference(value), 10)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = parser.parse_args()
    print(f"load average {load_average():.2f}")
    print(f"{'case':32s} {'compiled ms':>12s} {'perform ms':>12s} {'numpy ms':>10s}")
    for label, compiled, perform, numpy_ms in cases(args.quick):
        print(f"{label:32s} {compiled:12.3f} {perform:12.3f} {numpy_ms:10.3f}")
    print(f"load average {load_average():.2f}")


if __name__ == "__main__":
    main()
