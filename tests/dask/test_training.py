"""jitgraph.dask.DataParallelSGD against the single-process training loop, per-worker first
calls, and errors that name the worker and the block (bad shapes, NaN under NanGuardMode)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.dask.conftest import DASK_MISSING

da = pytest.importorskip("dask.array", reason=DASK_MISSING)
pytest.importorskip("distributed", reason=DASK_MISSING)

import jitgraph  # noqa: E402
import jitgraph.dask as jd  # noqa: E402
import jitgraph.tensor as T  # noqa: E402
from jitgraph.compile.nanguardmode import NanGuardMode  # noqa: E402
from jitgraph.dask.training import global_batches  # noqa: E402

RNG = np.random.default_rng(7)
N, F = 480, 12
X = RNG.normal(size=(N, F))
Y = (X @ RNG.normal(size=F) + RNG.normal(size=N) > 0).astype("float64")
W0 = RNG.normal(scale=0.1, size=F)


def logistic_regression():
    """The tutorial's model: inputs, parameters, cost (mean cross-entropy + L2)."""
    x, y = T.dmatrix("x"), T.dvector("y")
    w = jitgraph.shared(W0.copy(), name="w")
    b = jitgraph.shared(np.asarray(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    cost = (-y * T.log(p_1) - (1 - y) * T.log(1 - p_1)).mean() + 0.01 * (w ** 2).sum()
    return [x, y], [w, b], cost


def single_process(rows, batch_size, epochs, lr=0.1):
    """The same training in one process: ``function(..., updates=...)`` over the same batches."""
    inputs, params, cost = logistic_regression()
    grads = T.grad(cost, params)
    updates = [(p, p - lr * g) for p, g in zip(params, grads)]
    train = jitgraph.function(inputs, cost, updates=updates)
    costs = [float(train(X[idx], Y[idx])) for _ in range(epochs)
             for idx in global_batches(rows, batch_size)]
    return [p.get_value() for p in params], costs


def momentum_updates(params, grads, lr, mu):
    updates = []
    for p, g in zip(params, grads):
        velocity = jitgraph.shared(np.zeros_like(p.get_value()), name=f"v_{p.name}")
        new_v = mu * velocity - lr * g
        updates += [(velocity, new_v), (p, p + new_v)]
    return updates


def test_sgd_on_shards_gives_the_single_process_parameters(client):
    inputs, params, cost = logistic_regression()
    trainer = jd.DataParallelSGD(client, inputs, cost, params, learning_rate=0.1)
    xd, yd = da.from_array(X, chunks=(60, F)), da.from_array(Y, chunks=60)  # 8 blocks
    costs = trainer.fit(xd, yd, epochs=3, batch_size=16)
    assert sorted(len(b) for b in trainer.shards.values()) == [4, 4]  # 4 blocks per worker
    ref_params, ref_costs = single_process(xd.chunks[0], 16, 3)
    assert len(costs) == len(ref_costs) == 3 * 4
    for p, ref in zip(params, ref_params):
        np.testing.assert_allclose(p.get_value(), ref, rtol=1e-10, atol=0)
    np.testing.assert_allclose(costs, ref_costs, rtol=1e-10)
    assert costs[-1] < costs[0]
    # each worker compiled the gradient function once, at its first step
    times = trainer.first_call_times(detail=True)
    assert set(times) == set(trainer.shards)
    for record in times.values():
        assert record["first_call_s"] >= record["compile_s"] > 0
        assert record["kernels_compiled"] + record["kernels_loaded"] > 0


def test_uneven_blocks_full_batches_and_a_momentum_rule(client):
    inputs, params, cost = logistic_regression()
    trainer = jd.DataParallelSGD(
        client, inputs, cost, params,
        update_rule=lambda ps, gs: momentum_updates(ps, gs, 0.2, 0.9))
    chunks = (70, 50, 90, 60, 40, 80, 30, 60)
    xd, yd = da.from_array(X, chunks=(chunks, F)), da.from_array(Y, chunks=(chunks,))
    trainer.fit(xd, yd, epochs=4)  # whole blocks: one step per epoch
    trainer.fit(epochs=1, batch_size=25)  # the same shards, in batches of 25 rows per block
    # the reference: the same two phases in one process
    inputs2, params2, cost2 = logistic_regression()
    grads2 = T.grad(cost2, params2)
    train = jitgraph.function(inputs2, cost2,
                              updates=momentum_updates(params2, grads2, 0.2, 0.9))
    for _ in range(4):
        (idx,) = global_batches(chunks, None)
        train(X[idx], Y[idx])
    for idx in global_batches(chunks, 25):
        train(X[idx], Y[idx])
    for p, ref in zip(params, params2):
        np.testing.assert_allclose(p.get_value(), ref.get_value(), rtol=1e-10, atol=0)


def test_a_bad_block_names_the_worker_and_the_block(client):
    x, w = T.dmatrix("x"), T.dvector("w")
    f = jitgraph.function([x, w], T.dot(x, w))
    bad = da.from_array(X, chunks=(60, F))
    with pytest.raises(jd.BlockError) as info:
        jd.map_blocks(f, bad, np.ones(F + 1)).compute()
    message = str(info.value)
    assert "failed on block" in message and "rows" in message
    assert info.value.worker in client.scheduler_info()["workers"]
    assert info.value.worker in message
    assert f"block {info.value.block} (rows {60 * info.value.block}:" in message
    assert "w: float64 (13,)" in message  # the block's arguments


def test_nan_under_nanguardmode_names_the_worker_and_the_block(client):
    x = T.dmatrix("x")
    f = jitgraph.function([x], T.log(x).sum(axis=1),
                          mode=NanGuardMode(nan_is_error=True, inf_is_error=False,
                                            big_is_error=False))
    data = np.abs(X) + 1
    data[200, 3] = -1.0  # block 3 of blocks of 60 rows
    with pytest.raises(jd.BlockError, match=r"block 3 \(rows 180:240 .*on worker tcp://.*NaN"
                       ) as info:
        jd.map_blocks(f, da.from_array(data, chunks=(60, F))).compute()
    assert info.value.block == 3


def test_nan_during_training_names_the_shard(client):
    inputs, params, cost = logistic_regression()
    mode = NanGuardMode(nan_is_error=True, inf_is_error=False, big_is_error=False)
    trainer = jd.DataParallelSGD(client, inputs, cost, params, mode=mode)
    data = X.copy()
    data[130, 0] = np.nan  # block 2, row 10
    with pytest.raises(jd.BlockError, match=r"shard 2 \(rows 0:16 .*on worker tcp://"):
        trainer.fit(da.from_array(data, chunks=(60, F)), da.from_array(Y, chunks=60),
                    batch_size=16)



def test_fit_waits_for_a_worker_then_names_the_problem(monkeypatch):
    # A cluster whose workers have left (a nanny restarting them): fit waits for one to join,
    # then says what is wrong, instead of failing at once.
    import time

    import distributed

    from jitgraph.dask import training
    from tests.dask.conftest import folder_of_tests_off_sys_path

    monkeypatch.setattr(training, "WORKER_WAIT", 1.0)
    inputs, params, cost = logistic_regression()
    xd, yd = da.from_array(X, chunks=(240, F)), da.from_array(Y, chunks=240)
    with folder_of_tests_off_sys_path():
        cluster = distributed.LocalCluster(processes=False, n_workers=1, dashboard_address=":0")
    with cluster, distributed.Client(cluster) as c:
        trainer = jd.DataParallelSGD(c, inputs, cost, params)
        cluster.scale(0)
        deadline = time.monotonic() + 30
        while c.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        with pytest.raises(RuntimeError, match=r"no workers .*none joined within 1 s"):
            trainer.fit(xd, yd, epochs=1)
        assert time.monotonic() - started >= 1.0  # it waited
