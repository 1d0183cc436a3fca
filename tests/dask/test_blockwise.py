"""jitgraph.dask.map_blocks on a LocalCluster of processes (and, for the property tests, on
Dask's synchronous scheduler): row-local outputs, reductions across blocks, several outputs,
parameters given whole to every block, and what cannot be done block by block."""

from __future__ import annotations

import numpy as np
import pytest

from tests.dask.conftest import DASK_MISSING

da = pytest.importorskip("dask.array", reason=DASK_MISSING)
pytest.importorskip("distributed", reason=DASK_MISSING)

import dask  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import jitgraph  # noqa: E402
import jitgraph.dask as jd  # noqa: E402
import jitgraph.tensor as T  # noqa: E402

RNG = np.random.default_rng(42)
X = RNG.normal(size=(203, 6))
Y = RNG.normal(size=203)
W = RNG.normal(size=(6, 3))


def _chunked(chunks: int = 29):
    return da.from_array(X, chunks=(chunks, 6)), da.from_array(Y, chunks=chunks)


def test_row_local_outputs_keep_the_row_chunks(client):
    x, w = T.dmatrix("x"), T.dmatrix("w")
    f = jitgraph.function([x, w], [T.tanh(T.dot(x, w)), x * 2 + 1, T.nnet.softmax(T.dot(x, w))])
    xd, _ = _chunked()
    hidden, affine, probs = jd.map_blocks(f, xd, W)
    assert hidden.chunks == (xd.chunks[0], (3,)) and hidden.dtype == np.float64
    assert affine.chunks == xd.chunks
    got = dask.compute(hidden, affine, probs)
    np.testing.assert_allclose(got[0], np.tanh(X @ W), rtol=1e-12)
    np.testing.assert_allclose(got[1], X * 2 + 1, rtol=1e-12)
    e = np.exp(X @ W - (X @ W).max(axis=1, keepdims=True))
    np.testing.assert_allclose(got[2], e / e.sum(axis=1, keepdims=True), rtol=1e-12)


def test_reductions_over_the_rows_are_combined_across_blocks(client):
    x, y, w = T.dmatrix("x"), T.dvector("y"), T.dmatrix("w")
    err = (T.dot(x, w).sum(axis=1) - y) ** 2
    outputs = [err.sum(), err.mean(), err.max(), err.min(), (1 + err / 100).prod(),
               x.sum(axis=0), x.mean(axis=0, keepdims=True), T.dot(x.T, err), (err > 0).all(),
               x.max()]
    f = jitgraph.function([x, y, w], outputs)
    xd, yd = _chunked()
    results = jd.map_blocks(f, xd, yd, W, split_every=3)
    assert [r.shape for r in results] == [(), (), (), (), (), (6,), (1, 6), (6,), (), ()]
    e = ((X @ W).sum(axis=1) - Y) ** 2
    expected = [e.sum(), e.mean(), e.max(), e.min(), np.prod(1 + e / 100), X.sum(axis=0),
                X.mean(axis=0, keepdims=True), X.T @ e, True, X.max()]
    for got, want in zip(dask.compute(*results), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_several_outputs_run_each_block_once_and_parameters_are_shared(client):
    x, w = T.dmatrix("x"), T.dmatrix("w")
    f = jitgraph.function([x, w], [T.dot(x, w), T.dot(x, w).sum(), (w ** 2).sum()])
    xd, _ = _chunked()
    rows, total, norm = jd.map_blocks(f, xd, W)
    prefix = rows.name.rsplit("-out", 1)[0]

    def block_tasks(array):
        return {k for k in dict(array.__dask_graph__())
                if isinstance(k, tuple) and len(k) == 2 and k[0] == prefix}

    # The outputs share one function call per block.
    assert block_tasks(rows) == block_tasks(total) == {(prefix, i) for i in range(7)}
    got_rows, got_total, got_norm = dask.compute(rows, total, norm)
    np.testing.assert_allclose(got_rows, X @ W, rtol=1e-12)
    np.testing.assert_allclose(got_total, (X @ W).sum(), rtol=1e-12)
    assert got_norm == pytest.approx((W ** 2).sum(), rel=1e-14)  # needs no chunk: FREE
    times = jd.first_call_times(client, f)
    assert times and set(times) <= set(client.scheduler_info()["workers"])
    assert all(t > 0 for t in times.values())


def test_chunked_arguments_are_aligned_to_the_first_ones_rows(client):
    x, y = T.dmatrix("x"), T.dvector("y")
    f = jitgraph.function([x, y], [x.sum(axis=1) * y, (x.sum(axis=1) - y).mean()])
    xd = da.from_array(X, chunks=((50, 50, 103), (2, 4)))
    yd = da.from_array(Y, chunks=70)
    prod, mean = jd.map_blocks(f, xd, yd)
    assert prod.chunks == ((50, 50, 103),)
    np.testing.assert_allclose(prod.compute(), X.sum(axis=1) * Y, rtol=1e-12)
    assert mean.compute() == pytest.approx((X.sum(axis=1) - Y).mean(), rel=1e-12)


def test_shapes_come_from_shape_inference_without_running_anything():
    def never_called():
        raise AssertionError("map_blocks ran the data while building its graph")

    lazy = da.from_delayed(dask.delayed(never_called)(), shape=(40, 5), dtype="float64")
    x, w = T.dmatrix("x"), T.dmatrix("w")
    f = jitgraph.function([x, w], [T.dot(x, w)[:, 1:], T.dot(x, w).sum(axis=0)])
    rows, total = jd.map_blocks(f, lazy.rechunk((10, 5)), np.zeros((5, 7)))
    assert rows.shape == (40, 6) and rows.chunks == ((10,) * 4, (6,))
    assert total.shape == (7,)


def test_outputs_that_need_the_whole_axis_are_reported():
    x = T.dmatrix("x")
    f = jitgraph.function([x], [x * 2, x - x.mean(axis=0)])
    with pytest.raises(jd.NotBlockwiseError, match=r"output 1 .*chunk by chunk.*reduction"):
        jd.map_blocks(f, da.from_array(X, chunks=(50, 6)))
    g = jitgraph.function([x], T.argmax(x, axis=0))
    with pytest.raises(jd.NotBlockwiseError, match="Argmax"):
        jd.map_blocks(g, da.from_array(X, chunks=(50, 6)))


def test_functions_with_updates_are_refused():
    x = T.dmatrix("x")
    count = jitgraph.shared(0.0, name="count")
    f = jitgraph.function([x], x.sum(), updates=[(count, count + 1)])
    with pytest.raises(ValueError, match="updates count.*delete_updates"):
        jd.map_blocks(f, da.from_array(X, chunks=(50, 6)))
    # without its updates it works
    total = jd.map_blocks(f.copy(delete_updates=True), da.from_array(X, chunks=(50, 6)))
    assert total[0].compute(scheduler="sync") == pytest.approx(X.sum(), rel=1e-12)


_SUM_MEAN_MAX = None


def _sum_mean_max():
    global _SUM_MEAN_MAX
    if _SUM_MEAN_MAX is None:
        v, w = T.dvector("v"), T.dscalar("w")
        _SUM_MEAN_MAX = jitgraph.function([v, w], [(v * w).sum(), (v * w).mean(), v.max(),
                                                   T.exp(v) * w])
    return _SUM_MEAN_MAX


@settings(max_examples=15)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=7), st.floats(-3, 3))
def test_any_chunking_gives_numpy_results(chunks, scale):
    data = np.linspace(-1.0, 2.0, sum(chunks))
    f = _sum_mean_max()
    outs = jd.map_blocks(f, da.from_array(data, chunks=(tuple(chunks),)), scale, split_every=2)
    total, mean, largest, rows = dask.compute(*outs, scheduler="sync")
    np.testing.assert_allclose(total, (data * scale).sum(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mean, (data * scale).mean(), rtol=1e-12, atol=1e-12)
    assert largest == data.max()
    np.testing.assert_allclose(rows, np.exp(data) * scale, rtol=1e-14)
