"""Complex elementwise kernels: jitgraph's compiled CPU kernel against NumPy and ``perform``.

    flock /tmp/jitgraph-bench.lock python bench/bench_complex.py [--quick]

For 10**6 complex128 and complex64 elements: the best wall time of one call (fresh output each
call) of a fused complex expression, compiled (one kernel), run node by node with ``perform``
(``linker='py'``), and as NumPy expressions. Expressions:

* ``arith``: ``z * w + z / (w + 1) - conj(z)``
* ``transcendental``: ``exp(z) * log(w) + sqrt(z) * sin(w)``
* ``to real``: ``abs(complex(x, y) * w) + angle(w)`` (float parts in, a float out)

Prints the 1-minute load average before and after (the machine is shared: compare under
similar load). Threads: jitgraph's default (``openmp`` off) and NumPy's single thread.
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


def cases(n: int, dtype: str) -> list[tuple]:
    import jitgraph
    import jitgraph.tensor as T

    part = "float32" if dtype == "complex64" else "float64"
    rng = np.random.default_rng(0)
    zv = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    wv = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    xv, yv = zv.real.copy(), zv.imag.copy()
    z, w = T.vector("z", dtype=dtype), T.vector("w", dtype=dtype)
    x, y = T.vector("x", dtype=part), T.vector("y", dtype=part)
    one = np.asarray(1, dtype)
    rows = []
    for label, inputs, out, values, numpy_fn in (
            ("arith", [z, w], z * w + z / (w + 1) - T.conj(z), (zv, wv),
             lambda a, b: a * b + a / (b + one) - np.conj(a)),
            ("transcendental", [z, w], T.exp(z) * T.log(w) + T.sqrt(z) * T.sin(w), (zv, wv),
             lambda a, b: np.exp(a) * np.log(b) + np.sqrt(a) * np.sin(b)),
            ("to real", [x, y, w], abs(T.complex(x, y) * w) + T.angle(w), (xv, yv, wv),
             lambda a, b, c: np.abs((a + 1j * b).astype(dtype) * c) + np.angle(c))):
        compiled = jitgraph.function(inputs, out)
        kinds = set(compiled._program.kinds) if hasattr(compiled, "_program") else set()
        perform = jitgraph.function(inputs, out, mode=jitgraph.Mode(linker="py"))
        with np.errstate(all="ignore"):
            ref = numpy_fn(*values)
            got = compiled(*values)
        tol = 1e-4 if dtype == "complex64" else 1e-10
        if not np.allclose(got, ref, rtol=tol, atol=tol, equal_nan=True):
            raise AssertionError(f"{label} {dtype}: compiled result differs from NumPy's")
        with np.errstate(all="ignore"):
            rows.append((f"{label} {dtype}", sorted(kinds),
                         best_ms(lambda: compiled(*values), 10),
                         best_ms(lambda: perform(*values), 5),
                         best_ms(lambda: numpy_fn(*values), 10)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10**4 elements (smoke test)")
    args = parser.parse_args()
    n = 10**4 if args.quick else 10**6
    print(f"load average {load_average():.2f}; {n} elements")
    print(f"{'case':26s} {'compiled ms':>12s} {'perform ms':>11s} {'numpy ms':>9s} "
          f"{'vs numpy':>9s}  program")
    for dtype in ("complex128", "complex64"):
        for label, kinds, compiled, perform, numpy_ms in cases(n, dtype):
            print(f"{label:26s} {compiled:12.3f} {perform:11.3f} {numpy_ms:9.3f} "
                  f"{numpy_ms / compiled:8.2f}x  {','.join(kinds)}")
    print(f"load average {load_average():.2f}")


if __name__ == "__main__":
    main()
