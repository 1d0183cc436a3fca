"""``x[s1][s2]`` -> one Subtensor: the merged index gives NumPy's elements for every length
(exhaustive small grids, negative and out-of-range bounds included), the merge happens where it
is exact, and compiled graphs keep their values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, Variable
from jitgraph.rewrite import rewrite_graph
from jitgraph.tensor.indexing.index_encoding import build_index
from jitgraph.tensor.indexing.subtensor_ops import Subtensor
from jitgraph.tensor.rewriting.subtensor_merge import compose_slices

pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")

BOUNDS = [None, -9, -3, -1, 0, 1, 2, 4, 9]
STEPS = [None, -3, -1, 1, 2, 3]
SLICES = [slice(a, b, c) for a in BOUNDS for b in BOUNDS for c in STEPS]
LENGTHS = range(0, 8)


@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"  # a crashing rewrite must fail the test, not warn


def canon(out: Variable) -> Variable:
    return rewrite_graph(out, include=["canonicalize"])


def subtensors(out: Variable) -> list:
    """The Subtensor nodes from ``out`` back to the first non-Subtensor."""
    nodes = []
    while out.owner is not None and isinstance(out.owner.op, Subtensor):
        nodes.append(out.owner)
        out = out.owner.inputs[0]
    return nodes


def constant_index(node) -> tuple:
    """The NumPy index of a Subtensor whose index inputs are all constants."""
    assert all(isinstance(v, Constant) for v in node.inputs[1:])
    return build_index(node.op.idx_list, [v.data for v in node.inputs[1:]])


def test_compose_slices_exhaustive():
    """Where ``compose_slices`` answers, the answer holds for every sequence length."""
    composed = 0
    for s1, s2 in itertools.product(SLICES, SLICES):
        merged = compose_slices((s1.start, s1.stop, s1.step), (s2.start, s2.stop, s2.step))
        if merged is None:
            continue
        composed += 1
        for n in LENGTHS:
            seq = list(range(n))
            assert seq[slice(*merged)] == seq[s1][s2], (s1, s2, n, merged)
    assert composed > 1000  # the non-negative cases are composed


def test_compose_slices_refuses_length_dependent():
    assert compose_slices((-2, None, None), (1, None, None)) is None
    assert compose_slices((None, None, -1), (1, 3, None)) is None
    assert compose_slices((1, None, None), (None, -1, None)) is None
    assert compose_slices((0, None, 2), (0, None, 0)) is None  # a zero step must still raise
    assert compose_slices((2**62, None, None), (2**62, None, None)) == (2**63 - 1, None, 1)


@pytest.mark.parametrize("s1, s2", [
    (slice(1, None), slice(2, None)),
    (slice(1, 8, 2), slice(1, 3)),
    (slice(None, 5), slice(None, 9, 3)),
    (slice(4, None), slice(7, None)),       # starts past the end: empty
    (slice(3, 1), slice(0, 5)),             # first empty
])
def test_constant_slices_merge_into_one(s1, s2):
    x = T.dvector("x")
    out = canon(x[s1][s2])
    nodes = subtensors(out)
    assert len(nodes) == 1 and nodes[0].inputs[0] is x
    index = constant_index(nodes[0])
    for n in LENGTHS:
        a = np.arange(float(n))
        np.testing.assert_array_equal(a[index], a[s1][s2])


def test_graph_merge_over_grid():
    """Over the whole grid, the rewritten graph indexes like NumPy (merged or not)."""
    x = T.dvector("x")
    merged = 0
    # a spread-out sample of the grid (each rewrite of a graph costs ~2 ms)
    for s1, s2 in itertools.product(SLICES[::17], SLICES[::13]):
        nodes = subtensors(canon(x[s1][s2]))
        merged += len(nodes) == 1
        for n in LENGTHS:
            a = np.arange(float(n))
            got = a
            for node in reversed(nodes):
                got = got[constant_index(node)]
            np.testing.assert_array_equal(got, a[s1][s2], err_msg=f"{s1} {s2} n={n}")
    assert merged > 30


def test_integer_and_whole_axes_merge():
    x = T.dtensor3("x")
    i = T.lscalar("i")
    a = T.lscalar("a")
    cases = [
        x[i][1:][:, 2:],       # an integer axis is kept; later slices go to the next axes
        x[:, a:][i],           # a whole axis takes the second index as it is
        x[1:][:, :, a],        # ... symbolic integers included
        x[:, ::2][:, 1::3],
    ]
    for expr in cases:
        assert len(subtensors(canon(expr))) == 1, expr
    fn = jitgraph.function([x, i, a], cases)
    fn_ref = jitgraph.function([x, i, a], cases, mode=jitgraph.Mode(linker="py", optimizer=None))
    v = np.arange(5 * 6 * 7, dtype="float64").reshape(5, 6, 7)
    for iv, av in [(0, 0), (2, 1), (-1, -2), (4, 3)]:
        for got, ref in zip(fn(v, iv, av), fn_ref(v, iv, av)):
            np.testing.assert_array_equal(got, ref)


def test_not_merged_where_not_exact():
    x = T.dvector("x")
    i = T.lscalar("i")
    a = T.lscalar("a")
    kept = [
        x[1:][i],          # an integer from a proper slice: x[1:][5] on length 5 must raise
        x[-3:][1:],        # a negative bound depends on the length
        x[::-1][1:3],      # so does a negative step
        x[a:][1:],         # a symbolic bound meeting another slice
    ]
    for expr in kept:
        assert len(subtensors(canon(expr))) == 2, expr


def test_out_of_range_integer_still_raises():
    x = T.dvector("x")
    i = T.lscalar("i")
    fn = jitgraph.function([x, i], x[1:][i])
    assert fn(np.arange(5.0), 3) == 4.0
    with pytest.raises(IndexError):
        fn(np.arange(5.0), 4)


def test_compiled_values_fast_run():
    x = T.dmatrix("x")
    exprs = [x[1:][2:], x[::2][1:4:2], x[:, 1:][:, :9], x[3:][5:], x[1:7:2][::2, 1:]]
    fn = jitgraph.function([x], exprs)
    n_sub = sum(isinstance(node.op, Subtensor) for node in fn.maker.fgraph.toposort())
    assert n_sub == len(exprs)
    v = np.arange(8 * 5, dtype="float64").reshape(8, 5)
    refs = [v[1:][2:], v[::2][1:4:2], v[:, 1:][:, :9], v[3:][5:], v[1:7:2][::2, 1:]]
    for got, ref in zip(fn(v), refs):
        np.testing.assert_array_equal(got, ref)


def test_merged_node_keeps_stack_trace():
    from jitgraph.rewrite.stack_trace import check_stack_trace
    x = T.dmatrix("x")
    fn = jitgraph.function([x], x[1:][2:])
    assert check_stack_trace(fn, ops_to_check=Subtensor)
