"""The choice of OpenBLAS thread counts per product (backend_cpu/runtime/blas_threads.py)."""

from __future__ import annotations

import numpy as np
import pytest

from jitgraph.backend_cpu.runtime import blas_threads as bt
from jitgraph.backend_cpu.runtime import cblas


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dot_is_numpy_dot(dtype):
    rng = np.random.RandomState(0)
    a, b = rng.randn(70, 90).astype(dtype), rng.randn(90, 80).astype(dtype)
    for _ in range(12):  # both choices, and the re-measurements, give numpy's product
        np.testing.assert_allclose(bt.dot(a, b), a @ b, rtol=1e-5 if dtype == "float32"
                                   else 1e-12)
        np.testing.assert_allclose(bt.dot(b.T, a.T), (a @ b).T, rtol=1e-4 if dtype ==
                                   "float32" else 1e-12)
        out = np.empty((70, 80), dtype)
        assert bt.dot(a, b, out) is out
        np.testing.assert_allclose(out, a @ b, rtol=1e-5 if dtype == "float32" else 1e-12)
    assert bt.dot(np.ones(3), np.ones(3)) == 3.0  # other ranks: numpy.dot
    np.testing.assert_array_equal(bt.dot(np.ones((2, 3)), np.ones(3)), [3.0, 3.0])


def test_gemm_accumulates_through_the_choice():
    rng = np.random.RandomState(1)
    a, b, c = rng.randn(80, 70), rng.randn(70, 90), rng.randn(80, 90)
    for _ in range(6):
        expected = 0.5 * c + 2.0 * a @ b
        if not cblas.gemm(2.0, a, b, 0.5, c):
            pytest.skip("no CBLAS gemm in NumPy's BLAS")
        np.testing.assert_allclose(c, expected, rtol=1e-12)


def run(choice: bt._Choice, times: tuple[float, float], calls: int) -> list[int]:
    picked = []
    for _ in range(calls):
        k = choice.pick()
        picked.append(k)
        choice.record(k, times[k])
    return picked


def test_the_faster_choice_runs_and_the_slower_is_remeasured_within_the_budget():
    choice = bt._Choice()
    picked = run(choice, (1e-3, 3e-3), 2000)  # threads faster: a quiet machine
    assert picked[:2] == [0, 1] and choice.best == 0
    slow = picked.count(1)
    # the re-measurements cost at most BUDGET of the time, and ever less of it
    assert (slow - 1) * 2e-3 <= bt.BUDGET * 2000 * 1e-3
    assert picked[1000:].count(1) <= 2


def test_a_change_of_load_is_followed():
    choice = bt._Choice()
    run(choice, (1e-3, 1.8e-3), 300)
    assert choice.best == 0
    # busy cores: the threaded product gets 10 times slower; the estimate follows at once
    picked = run(choice, (1e-2, 1.8e-3), 300)
    assert choice.best == 1 and picked[2:].count(0) <= 2
    # quiet again: found by a re-measurement after a bounded time on the slower choice
    picked = run(choice, (1e-3, 1.8e-3), 3000)
    assert choice.best == 0
    assert picked.index(0) * 1.8e-3 <= (1e-2 - 1.8e-3) / bt.BUDGET * 2 ** bt.MAX_HALVINGS


def test_without_a_thread_setter_products_run_as_they_are(monkeypatch):
    monkeypatch.setattr(bt, "_threads", 1)
    monkeypatch.setattr(bt, "_choices", {})
    a = np.ones((80, 80))
    np.testing.assert_array_equal(bt.dot(a, a), a @ a)
    assert bt._choices == {}


def test_threads_restored_after_concurrent_calls():
    import threading

    bt.dot(np.ones((2, 2)), np.ones((2, 2)))
    if bt._threads <= 1:
        pytest.skip("one BLAS thread: nothing to choose")
    before = bt._getter()
    rng = np.random.RandomState(2)
    mats = [rng.randn(n, n) for n in (70, 90, 110, 130)]

    def work(a):
        for _ in range(30):
            np.testing.assert_allclose(bt.dot(a, a), a @ a, rtol=1e-10)

    threads = [threading.Thread(target=work, args=(a,)) for a in mats]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bt._single[0] == 0 and bt._getter() == before
