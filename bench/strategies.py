"""Strategy (b) of the CPU-backend issue, kept as a measured prototype: blocked evaluation that
hands the transcendental steps to NumPy's SIMD ufuncs on cache-sized blocks and runs the rest of
the fused expression in a Numba kernel, for ``exp(-x)*sin(y) + x*y - 0.5*sqrt(abs(z))``.

The product uses strategy (a) (vectorized polynomial block functions inside the generated
kernels, ``jitgraph.backend_cpu.runtime.vecmath``); ``bench_cpu.py`` times both.
"""

from __future__ import annotations

import math
import threading

import numba
import numpy as np


@numba.njit("void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], "
            "float64[::1])", nogil=True, error_model="numpy", cache=False)
def _rest(e, s, x, y, z, out):  # noqa: ANN001, ANN202
    for i in range(out.size):
        out[i] = e[i] * s[i] + x[i] * y[i] - 0.5 * math.sqrt(abs(z[i]))


def _blocks(x, y, z, out, lo, hi, block):  # noqa: ANN001, ANN202
    e = np.empty(block)
    s = np.empty(block)
    for b0 in range(lo, hi, block):
        b1 = min(b0 + block, hi)
        n = b1 - b0
        np.negative(x[b0:b1], out=e[:n])
        np.exp(e[:n], out=e[:n])
        np.sin(y[b0:b1], out=s[:n])
        _rest(e[:n], s[:n], x[b0:b1], y[b0:b1], z[b0:b1], out[b0:b1])


def blocked_numpy(x: np.ndarray, y: np.ndarray, z: np.ndarray, out: np.ndarray,
                  block: int = 16384, nthreads: int = 1) -> np.ndarray:
    """The expression by blocks: NumPy ``exp``/``sin`` (SIMD) + a Numba kernel for the rest."""
    n = out.size
    if nthreads == 1:
        _blocks(x, y, z, out, 0, n, block)
        return out
    bounds = np.linspace(0, n // block, nthreads + 1).astype(int) * block
    bounds[-1] = n
    threads = [threading.Thread(target=_blocks, args=(x, y, z, out, int(lo), int(hi), block))
               for lo, hi in zip(bounds[:-1], bounds[1:])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out
