"""Compiled functions work in fork, spawn and forkserver children sharing one compiledir."""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest


def _child_job(seed: int) -> float:
    """Build, compile and run a graph in a child process (kernels loaded or compiled)."""
    import jitgraph
    import jitgraph.tensor as T

    x = T.dvector("x")
    f = jitgraph.function([x], (T.exp(x) * 2 + x * x).sum() + seed)
    g = jitgraph.function([x], T.tanh(x) - x / 3)  # a kernel the parent never compiled
    value = np.linspace(0.0, 1.0, 7)
    return float(f(value)) + float(g(value).sum())


def _expected(seed: int) -> float:
    value = np.linspace(0.0, 1.0, 7)
    return float((np.exp(value) * 2 + value * value).sum() + seed) + float(
        (np.tanh(value) - value / 3).sum())


@pytest.mark.slow
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_children_compile_and_load_kernels(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{method} is not available on this platform")
    # The parent compiles first, so forked children inherit an initialised Numba/LLVM.
    assert _child_job(0) == pytest.approx(_expected(0))
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        results = pool.map(_child_job, [1, 2, 3])
    assert results == pytest.approx([_expected(s) for s in (1, 2, 3)])
    assert "JITGRAPH_FLAGS" in os.environ  # the children used the session's compiledir
