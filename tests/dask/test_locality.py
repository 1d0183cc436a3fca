"""The row-locality analysis behind map_blocks (no cluster needed): which outputs keep the
chunked axis, which are reductions over it, and which need the whole axis."""

from __future__ import annotations

import numpy as np
import pytest

from tests.dask.conftest import DASK_MISSING

pytest.importorskip("dask.array", reason=DASK_MISSING)

import jitgraph  # noqa: E402
import jitgraph.tensor as T  # noqa: E402
from jitgraph.dask.block_shapes import ShapeInference  # noqa: E402
from jitgraph.dask.locality import FREE, Entangled, Reduced, Rows, analyse_outputs  # noqa: E402


def states(inputs, outputs, chunked, axis=0):
    return analyse_outputs(inputs, outputs, chunked, axis)


def test_row_local_ops_keep_the_axis_where_it_goes():
    x, w, b = T.dmatrix("x"), T.dmatrix("w"), T.dvector("b")
    h = T.tanh(T.dot(x, w) + b)
    outs = [h, h.T, h[:, 1:], h[:, 0], h.sum(axis=1), T.argmax(h, axis=1),
            T.nnet.softmax(h), T.dot(w.T, x.T), h.dimshuffle("x", 0, 1)]
    assert states([x, w, b], outs, [True, False, False]) == [
        Rows(0), Rows(1), Rows(0), Rows(0), Rows(0), Rows(0), Rows(0), Rows(1), Rows(1)]


def test_reductions_over_the_chunked_axis_are_recognised():
    x, y = T.dmatrix("x"), T.dvector("y")
    e = (x.sum(axis=1) - y) ** 2
    outs = [e.sum(), e.mean(), e.max(), e.min(), e.prod(), (e > 1).any(), (e > 1).all(),
            T.dot(x.T, e), x.mean(axis=0, keepdims=True), T.cast(e.max(), "float32")]
    assert states([x, y], outs, [True, True]) == [
        Reduced("sum"), Reduced("mean"), Reduced("max"), Reduced("min"), Reduced("prod"),
        Reduced("any"), Reduced("all"), Reduced("sum"), Reduced("mean"), Reduced("max")]


def test_chunked_axis_along_columns():
    x = T.dmatrix("x")
    summed, mean, soft = states([x], [x.sum(axis=0), x.mean(axis=1), T.nnet.softmax(x)], [True],
                                axis=1)
    assert (summed, mean) == (Rows(0), Reduced("mean"))
    assert isinstance(soft, Entangled) and "normalises along the chunked axis" in soft.reason


@pytest.mark.parametrize("build, where", [
    (lambda x, w: x - x.mean(axis=0), "uses the result of a reduction"),
    (lambda x, w: x / x.shape[0], "holds the chunk length"),
    (lambda x, w: x / T.shape_i(x, 0), "uses the chunk length"),
    (lambda x, w: T.argmax(x, axis=0), "positions cannot be combined"),
    (lambda x, w: T.nnet.softmax(x.T), "normalises along the chunked axis"),
    (lambda x, w: x[1:], "indexes along the chunked axis"),
    (lambda x, w: T.dot(w, x), "contracts"),
    (lambda x, w: x.sum() * x, "reduction"),
    (lambda x, w: T.cumsum(x, axis=0), "no blockwise rule"),
    (lambda x, w: x.mean() + 1, "reduction"),
])
def test_outputs_needing_the_whole_axis_are_entangled(build, where):
    x, w = T.dmatrix("x"), T.dmatrix("w")
    (state,) = states([x, w], [build(x, w)], [True, False])
    assert isinstance(state, Entangled) and where in state.reason


def test_parameter_only_outputs_are_free_and_parameters_must_broadcast():
    x, v = T.dmatrix("x"), T.dvector("v")
    shared = jitgraph.shared(np.ones(3), name="s")
    outs = [(v ** 2).sum(), shared * 2, x + v, x + v.dimshuffle(0, "x")]
    got = states([x, v], outs, [True, False])
    assert got[:3] == [FREE, FREE, Rows(0)]
    assert isinstance(got[3], Entangled) and "not broadcastable" in got[3].reason


def test_shape_inference_gives_block_shapes_from_input_shapes():
    x, w = T.dmatrix("x"), T.dmatrix("w")
    h = T.dot(x, w)
    si = ShapeInference([x, w], [h, h[:, 1:].sum(axis=0), h.flatten(), h.mean()])
    assert si.evaluate([(10, 4), (4, 7)]) == [(10, 7), (6,), (70,), ()]
    assert si.evaluate([(3, 4), (4, 2)]) == [(3, 2), (1,), (6,), ()]
