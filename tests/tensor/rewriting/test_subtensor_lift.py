"""``f(x, y)[idx]`` -> ``f(x[idx], y[idx])``: fires where exact, keeps values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.rewrite import rewrite_graph
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.indexing.subtensor_ops import Subtensor

pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")
RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"  # a crashing rewrite must fail the test, not warn


def canon(out):
    return rewrite_graph(out, include=["canonicalize"])


def lifted(out) -> bool:
    """The output is computed by an elementwise op (the indexing moved below it)."""
    return out.owner is not None and isinstance(out.owner.op, Elemwise)


def test_lifted_through_unary_and_binary():
    x, y = T.dmatrix("x"), T.dmatrix("y")
    i = T.lscalar("i")
    assert lifted(canon(T.exp(x)[0]))
    assert lifted(canon((x + y)[1:, i]))
    assert lifted(canon((x * 2.0)[::-1]))        # a scalar constant broadcasts
    s = T.dscalar("s")
    assert lifted(canon((x - s)[i]))             # so does a 0-d input


def test_not_lifted_where_inexact_or_costly():
    x = T.dmatrix("x")
    row = T.drow("row")                          # broadcasts along axis 0
    e = T.exp(x)
    kept = [(x + row)[1:], ]
    for expr in kept:
        assert not lifted(canon(expr)), expr
    # the full result is used elsewhere: lifting would compute the rows twice
    both = rewrite_graph([e[0], e], include=["canonicalize"])
    assert isinstance(both[0].owner.op, Subtensor)


CASES = [
    lambda x, y, s, i: T.exp(x)[i],
    lambda x, y, s, i: (x + y)[1:, ::-2],
    lambda x, y, s, i: (x * s + y)[-1, 1:i],
    lambda x, y, s, i: T.maximum(x, 0.5)[::2][i],
    lambda x, y, s, i: T.switch(x > y, x, s)[i:, -2],
]


def test_values_match_unrewritten():
    x, y = T.dmatrix("x"), T.dmatrix("y")
    s, i = T.dscalar("s"), T.lscalar("i")
    outs = [c(x, y, s, i) for c in CASES]
    fn = jitgraph.function([x, y, s, i], outs)
    ref = jitgraph.function([x, y, s, i], outs, mode=jitgraph.Mode(linker="py", optimizer=None))
    nodes = fn.maker.fgraph.toposort()
    # every output indexes the inputs directly: no Subtensor reads an elementwise result
    assert not any(isinstance(n.op, Subtensor) and n.inputs[0].owner is not None
                   and isinstance(n.inputs[0].owner.op, Elemwise) for n in nodes)
    xv, yv = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5))
    for iv in (0, 1, -1, -2):
        for got, want in zip(fn(xv, yv, 0.25, iv), ref(xv, yv, 0.25, iv)):
            assert np.shape(got) == np.shape(want)
            np.testing.assert_allclose(got, want, rtol=1e-14)  # fused kernels: last bits


def test_out_of_range_still_raises():
    x = T.dmatrix("x")
    i = T.lscalar("i")
    fn = jitgraph.function([x, i], T.exp(x * 2.0)[i])
    np.testing.assert_allclose(fn(np.ones((3, 2)), 2), np.exp(2.0) * np.ones(2))
    with pytest.raises(IndexError):
        fn(np.ones((3, 2)), 3)


def test_new_nodes_keep_stack_traces():
    from jitgraph.rewrite.stack_trace import check_stack_trace
    x, z = T.dmatrix("x"), T.dmatrix("z")
    y = T.dscalar("y")
    fn = jitgraph.function([x, y, z], T.exp(x + y + z)[0])
    assert check_stack_trace(fn, ops_to_check="all")
