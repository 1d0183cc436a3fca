"""In-place rewrites (jitgraph/rewrite/inplace.py): they fire on intermediates, never overwrite
what the caller passed or a shared value still needed, and leave values unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.io import In
from jitgraph.compile.mode import Mode
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import DestroyHandler, rewrite_graph
from jitgraph.tensor.rewriting.inplace import elemwise_candidates, inplace_ops
from jitgraph.tensor.linalg.blas import Gemm, Gemv, Ger, gemm, gemv
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.indexing.subtensor_ops import AdvancedIncSubtensor1, IncSubtensor

RNG = np.random.default_rng(1)
FAST_RUN = Mode("py", "fast_run")


def destroyers(fn):
    return inplace_ops(fn.maker.fgraph)


def test_fused_intermediate_is_overwritten() -> None:
    A, v = T.matrix("A"), T.vector("v")
    out = T.exp(T.dot(A, v)) * 2.0 + 1.0
    fn = jitgraph.function([A, v], out, mode=FAST_RUN)
    (node,) = [n for n in destroyers(fn) if isinstance(n.op, Elemwise)]
    assert node.op.destroy_map == {0: [0]}
    assert node.inputs[0].owner is not None  # an intermediate, not an input
    a, x = RNG.normal(size=(3, 4)), RNG.normal(size=4)
    a0, x0 = a.copy(), x.copy()
    for _ in range(2):  # the overwritten buffer is an intermediate: calls stay independent
        np.testing.assert_allclose(fn(a, x), np.exp(a @ x) * 2 + 1, rtol=1e-12)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(x, x0)


def test_function_inputs_are_never_overwritten() -> None:
    x, y = T.vectors("x", "y")
    fn = jitgraph.function([x, y], T.exp(x) * y + x, mode=FAST_RUN)
    assert not destroyers(fn)
    a, b = RNG.normal(size=5), RNG.normal(size=5)
    a0, b0 = a.copy(), b.copy()
    np.testing.assert_allclose(fn(a, b), np.exp(a0) * b0 + a0, rtol=1e-12)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_mutable_input_may_be_overwritten() -> None:
    x, y = T.vectors("x", "y")
    fn = jitgraph.function([In(x, mutable=True), y], T.exp(x) * y + x, mode=FAST_RUN)
    (node,) = destroyers(fn)
    assert node.inputs[node.op.destroy_map[0][0]] is fn.maker.fgraph.inputs[0]
    a, b = RNG.normal(size=5), RNG.normal(size=5)
    expected = np.exp(a) * b + a
    np.testing.assert_allclose(fn(a, b), expected, rtol=1e-12)


def test_shared_variable_not_updated_is_protected() -> None:
    w = jitgraph.shared(RNG.normal(size=4), name="w")
    w0 = w.get_value()
    fn = jitgraph.function([], T.exp(w) * 2.0 + w, mode=FAST_RUN)
    assert not destroyers(fn)
    fn()
    np.testing.assert_array_equal(w.get_value(), w0)


def test_updated_shared_value_is_overwritten_after_its_other_readers() -> None:
    w = jitgraph.shared(np.arange(4.0), name="w")
    x = T.vector("x")
    # w is read by the output and by its own update: the update may reuse w's buffer only
    # after the output has been computed.
    fn = jitgraph.function([x], T.exp(w) * x, updates=[(w, w * 2.0 + 1.0)], mode=FAST_RUN)
    assert destroyers(fn)
    value = np.ones(4)
    for k in range(3):
        before = w.get_value()
        np.testing.assert_allclose(fn(value), np.exp(before) * value, rtol=1e-12)
        np.testing.assert_allclose(w.get_value(), before * 2 + 1, rtol=1e-12)


def test_shared_value_still_needed_as_output_is_not_overwritten() -> None:
    w = jitgraph.shared(np.arange(3.0), name="w")
    fn = jitgraph.function([], [w, w + 1.0], updates=[(w, w * 3.0)], mode=FAST_RUN)
    assert not destroyers(fn)  # the old w is returned: nothing may overwrite it
    old, plus_one = fn()
    np.testing.assert_array_equal(old, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(plus_one, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(w.get_value(), [0.0, 3.0, 6.0])


def test_candidate_whose_reader_needs_the_result_is_refused_before_replacing(flags) -> None:
    # t is read by `late`, which needs u, so u = t * 2 cannot overwrite t: the DestroyHandler
    # refuses that candidate (can_destroy with the destroyer) before any replacement is made
    # and undone (a rejected replacement cost a node, its import and its rollback: 478 of them
    # at 48 blocks of bench_large_graph).
    A, B, v = T.matrix("A"), T.matrix("B"), T.vector("v")
    t = T.dot(A, v)
    u = t * 2.0
    late = T.dot(B, u) + t
    fgraph = FunctionGraph([A, B, v], [late])
    fgraph.attach_feature(DestroyHandler())
    rewrite_graph(fgraph, include=["inplace"])
    stats = fgraph.rewrite_stats.record("inplace_elemwise")
    assert (stats.applied, stats.rejected) == (1, 0)
    muls = [n for n in fgraph.toposort()
            if isinstance(n.op, Elemwise) and n.op.scalar_op.name == "mul"]
    assert muls and not muls[0].op.destroy_map
    adds = [n for n in fgraph.toposort()
            if isinstance(n.op, Elemwise) and n.op.scalar_op.name == "add"]
    assert adds[0].op.destroy_map  # the add may overwrite the second dot's result
    fn = jitgraph.function(fgraph.inputs, fgraph.outputs, mode=Mode("py", None),
                           accept_inplace=True)
    a, b, x = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=3)
    np.testing.assert_allclose(fn(a, b, x)[0], b @ (a @ x * 2) + a @ x, rtol=1e-12)


def test_value_another_node_overwrites_is_refused_before_replacing() -> None:
    # t * 2 overwrites t (t + 1 reads it first); t + 1 then cannot overwrite t too: refused
    # from the destroy handler's claims without building and undoing a replacement.
    A, v = T.matrix("A"), T.vector("v")
    t = T.dot(A, v)
    fgraph = FunctionGraph([A, v], [t * 2.0, t + 1.0])
    fgraph.attach_feature(DestroyHandler())
    rewrite_graph(fgraph, include=["inplace"])
    stats = fgraph.rewrite_stats.record("inplace_elemwise")
    assert (stats.applied, stats.rejected) == (1, 0)
    (node,) = [n for n in inplace_ops(fgraph) if isinstance(n.op, Elemwise)]
    assert node.inputs[node.op.destroy_map[0][0]].owner.op == t.owner.op
    fn = jitgraph.function(fgraph.inputs, fgraph.outputs, mode=Mode("py", None),
                           accept_inplace=True)
    a, x = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    for got, want in zip(fn(a, x), [a @ x * 2, a @ x + 1]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_candidates_skip_constants_other_types_and_repeated_inputs() -> None:
    x, y = T.vectors("x", "y")
    r = T.row("r")
    node = T.add(x, x, y).owner
    assert elemwise_candidates(node, 0, set()) == [2]
    assert elemwise_candidates(node, 0, {2}) == []
    node = (x * 2.0).owner
    assert elemwise_candidates(node, 0, set()) == [0]
    node = (T.matrix("m") + r).owner
    assert elemwise_candidates(node, 0, set()) == [0]
    node = (T.vector("i", dtype="int32") + y).owner
    assert elemwise_candidates(node, 0, set()) == [1]


def test_multi_output_composite_outputs_each_get_a_buffer() -> None:
    M = T.matrix("M")
    t = T.max(M, axis=0)  # intermediates made by non-elementwise ops
    s = T.min(M, axis=0)
    a = T.exp(t) + s
    b = T.tanh(a) * t
    fn = jitgraph.function([M], [a, b, a - 1.0], mode=FAST_RUN)
    nodes = [n for n in destroyers(fn) if isinstance(n.op, Elemwise)]
    assert nodes and len(nodes[0].outputs) == 3
    targets = [i for outs in nodes[0].op.destroy_map.values() for i in outs]
    assert len(targets) == len(set(targets)) >= 2
    m = RNG.normal(size=(3, 4))
    t_, s_ = m.max(axis=0), m.min(axis=0)
    a_ = np.exp(t_) + s_
    for got, want in zip(fn(m), [a_, np.tanh(a_) * t_, a_ - 1]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_inc_subtensor_on_an_intermediate_is_inplace() -> None:
    x, y = T.vectors("x", "y")
    out = T.inc_subtensor((T.exp(x))[1:3], y)
    fn = jitgraph.function([x, y], out, mode=FAST_RUN)
    incs = [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, IncSubtensor)]
    assert incs and incs[0].op.inplace
    a, b = RNG.normal(size=5), RNG.normal(size=2)
    a0 = a.copy()
    expected = np.exp(a)
    expected[1:3] += b
    np.testing.assert_allclose(fn(a, b), expected, rtol=1e-12)
    np.testing.assert_array_equal(a, a0)


def test_set_subtensor_on_an_input_is_not_inplace() -> None:
    x = T.vector("x")
    fn = jitgraph.function([x], T.set_subtensor(x[0], 5.0), mode=FAST_RUN)
    assert not destroyers(fn)
    a = np.zeros(3)
    np.testing.assert_array_equal(fn(a), [5.0, 0.0, 0.0])
    np.testing.assert_array_equal(a, np.zeros(3))


def test_advanced_inc_subtensor1_inplace() -> None:
    x, y = T.vectors("x", "y")
    idx = T.lvector("idx")
    out = T.inc_subtensor(T.exp(x)[idx], y)
    fn = jitgraph.function([x, idx, y], out, mode=FAST_RUN)
    incs = [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, AdvancedIncSubtensor1)]
    assert incs and incs[0].op.inplace
    a, i, b = RNG.normal(size=4), np.array([0, 2, 0]), RNG.normal(size=3)
    expected = np.exp(a)
    np.add.at(expected, i, b)
    np.testing.assert_allclose(fn(a, i, b), expected, rtol=1e-12)


@pytest.mark.parametrize("op_cls", [Gemv, Gemm, Ger])
def test_blas_ops_write_into_an_intermediate(op_cls) -> None:
    A, B = T.matrices("A", "B")
    u, v = T.vectors("u", "v")
    alpha = np.asarray(0.5)
    beta = np.asarray(2.0)
    if op_cls is Gemv:
        inputs, expr = [A, u, v], gemv(T.exp(u), alpha, A, v, beta)
        values = [RNG.normal(size=(3, 4)), RNG.normal(size=3), RNG.normal(size=4)]
    elif op_cls is Gemm:
        inputs, expr = [A, B], gemm(T.exp(A), alpha, A, B, beta)
        values = [RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3))]
    else:
        inputs, expr = [A, u, v], Ger()(T.exp(A), alpha, u, v)
        values = [RNG.normal(size=(3, 4)), RNG.normal(size=3), RNG.normal(size=4)]
    fn = jitgraph.function(inputs, expr, mode=Mode("py", "fast_run"))
    blas = [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, op_cls)]
    assert blas and blas[0].op.inplace
    expected = jitgraph.function(inputs, expr, mode=Mode("py", None))(*values)
    kept = [v.copy() for v in values]
    np.testing.assert_allclose(fn(*values), expected, rtol=1e-12)
    for v, v0 in zip(values, kept):
        np.testing.assert_array_equal(v, v0)


def test_blas_on_a_protected_input_is_not_inplace() -> None:
    A, y, v = T.matrix("A"), T.vector("y"), T.vector("v")
    fn = jitgraph.function([A, y, v], gemv(y, np.asarray(1.0), A, v, np.asarray(1.0)),
                           mode=FAST_RUN)
    assert not destroyers(fn)


@pytest.mark.parametrize("mode", [Mode("py", "o3"), Mode("py", "fast_run").excluding("inplace"),
                                  Mode("py", "o2")])
def test_levels_without_inplace(mode) -> None:
    A, v = T.matrix("A"), T.vector("v")
    fn = jitgraph.function([A, v], T.exp(T.dot(A, v)) + 1.0, mode=mode)
    assert not destroyers(fn)


def test_fast_cycle_detection_still_correct(flags) -> None:
    flags["cycle_detection"] = "fast"
    w = jitgraph.shared(np.arange(4.0), name="w")
    fn = jitgraph.function([], T.exp(w), updates=[(w, w * 2.0)], mode=FAST_RUN)
    # w has two readers, which 'fast' refuses: the update must not overwrite w
    assert not destroyers(fn)
    np.testing.assert_allclose(fn(), np.exp(np.arange(4.0)), rtol=1e-12)
    np.testing.assert_allclose(w.get_value(), np.arange(4.0) * 2)


def test_optimizer_verbose_prints_inplace(flags, capsys) -> None:
    flags["optimizer_verbose"] = True
    A, v = T.matrix("A"), T.vector("v")
    jitgraph.function([A, v], T.exp(T.dot(A, v)) + 1.0, mode=FAST_RUN)
    assert "rewriting: inplace_elemwise:" in capsys.readouterr().out


def test_copied_function_keeps_the_inplace_order() -> None:
    # The copy's graph has no DestroyHandler; the linker must still run the readers of a
    # value before the node that overwrites it.
    x = T.dscalar("x")
    a = jitgraph.shared(np.asarray(1.0), name="a")
    f = jitgraph.function([x], x * a, updates=[(a, a + 1)], mode=FAST_RUN)
    b = jitgraph.shared(np.asarray(10.0), name="b")
    g = f.copy(swap={a: b})
    # (like Theano's, a copy returns its outputs as a list)
    assert g(2.0) == [20.0] and b.get_value() == 11.0 and a.get_value() == 1.0
