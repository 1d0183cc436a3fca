"""``theano.misc.check_blas``: time a matrix product compiled by jitgraph, to see how fast the
BLAS behind it is (``python -m jitgraph.misc.check_blas``; options ``-M/-N/-K`` for the
sizes, ``--iter`` for the repetitions, ``-q`` for the time only).

The figure describes this machine's BLAS, not jitgraph: compare it across machines or BLAS
libraries, as Theano's script did. Keep real measurements in ``bench/``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from jitgraph.config import config
import jitgraph.tensor as T


def execute(execute: bool = True, verbose: bool = True, M: int = 2000, N: int = 2000,  # noqa: N803
            K: int = 2000, iters: int = 10, order: str = "C") -> tuple[float, str]:
    """``(seconds for `iters` products, what ran)`` for ``C += A @ B`` with ``A`` of shape
    ``M x N`` and ``B`` of shape ``N x K`` in ``floatX``, updating a shared ``C`` in place.
    ``execute=False`` compiles without running (0 seconds)."""
    import jitgraph as theano

    dtype = config.floatX
    a = theano.shared(np.ones((M, N), dtype=dtype, order=order))
    b = theano.shared(np.ones((N, K), dtype=dtype, order=order))
    c = theano.shared(np.ones((M, K), dtype=dtype, order=order))
    f = theano.function([], updates=[(c, 0.4 * c + 0.8 * T.dot(a, b))])
    impl = ", ".join(sorted({type(n.op).__name__ for n in f.maker.fgraph.toposort()}))
    if verbose:
        print(f"floatX={dtype} device={config.device} blas.ldflags={config.blas__ldflags!r}")
        print(f"NumPy: {np.__version__}; ops run: {impl}")
    elapsed = 0.0
    if execute:
        f()  # compile and warm up outside the timing
        start = time.perf_counter()
        for _ in range(iters):
            f()
        elapsed = time.perf_counter() - start
    if verbose:
        print(f"{iters} products of {M}x{N} by {N}x{K}: {elapsed:.3f} s")
    return elapsed, impl


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-q", "--quiet", action="store_true", help="print only the time")
    p.add_argument("-M", type=int, default=2000)
    p.add_argument("-N", type=int, default=2000)
    p.add_argument("-K", type=int, default=2000)
    p.add_argument("--iter", type=int, default=10)
    p.add_argument("--order", default="C", choices=["C", "F"])
    return p


def test() -> Any:
    """A quick run (small sizes, few repetitions)."""
    return execute(verbose=False, M=64, N=64, K=64, iters=2)


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    elapsed, _ = execute(True, not args.quiet, args.M, args.N, args.K, args.iter,
                         args.order)
    if args.quiet:
        print(elapsed)


if __name__ == "__main__":
    main()

__all__ = ["execute", "test", "main"]
