"""Merge / CSE and constant folding."""

from __future__ import annotations

import numpy as np
import pytest
from rewrite_dummy_ops import (
    Exp,
    Neg,
    add,
    add_inplace,
    evaluate,
    exp,
    fgraph_of,
    fvec,
    log,
    log1p,
    mul,
    neg,
    neg_inplace,
    nofold,
    op_names,
    vecs,
    view,
)

import jitgraph.rewrite.folding as cf
from jitgraph.graph.basic import Constant
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import (
    DestroyHandler,
    MergeGraphRewriter,
    PatternNodeRewriter,
    constant_folding,
    in_to_out,
    node_rewriter,
    pattern_table,
    register_canonicalize,
    register_inplace,
    register_specialize,
    register_stabilize,
    rewrite_graph,
)

X = [0.5, 1.5, -2.0]


def test_merge_equal_constants_and_nodes_to_fixed_point():
    x, = vecs("x")
    c1, c2 = fvec.make_constant([2.0]), fvec.make_constant([2.0])
    # Two copies of exp(x * 2) + ... : the chains merge only once the constants are merged.
    a = log(exp(mul(x, c1)))
    b = log(exp(mul(x, c2)))
    fg = fgraph_of([x], [add(a, b), neg(b)])
    before = evaluate(fg, X)
    stats = MergeGraphRewriter().rewrite(fg)
    assert op_names(fg) == ["Add", "Exp", "Log", "Mul", "Neg"]
    out_add, out_neg = fg.outputs
    assert out_add.owner.inputs[0] is out_add.owner.inputs[1] is out_neg.owner.inputs[0]
    assert stats.applied("merge") == 4  # one constant, then mul, exp, log
    for got, want in zip(evaluate(fg, X), before):
        np.testing.assert_allclose(got, want)


def test_merge_makes_one_pass_unless_a_merge_is_refused(monkeypatch):
    # A pass meets each node with its final inputs, so a pass whose merges were all made
    # leaves nothing to merge: no second pass over the graph to confirm it (3 of the 9
    # passes at 48 blocks of bench_large_graph). A refused merge (the destroy handler's, as
    # in test_merge_never_merges_destroyers) is followed by another pass.
    passes = []
    real = MergeGraphRewriter._merge_pass
    monkeypatch.setattr(MergeGraphRewriter, "_merge_pass",
                        lambda self, fg, ctx: passes.append(1) or real(self, fg, ctx))
    x, = vecs("x")
    fg = fgraph_of([x], [add(log(exp(x)), neg(log(exp(x))))])
    MergeGraphRewriter().rewrite(fg)
    assert op_names(fg) == ["Add", "Exp", "Log", "Neg"]
    assert len(passes) == 1
    passes.clear()
    e, f = exp(x), exp(x)
    fg = fgraph_of([x], [add_inplace(e, 1.0), add_inplace(f, 1.0), log(x), log(x)],
                   features=[DestroyHandler()])
    MergeGraphRewriter().rewrite(fg)
    assert op_names(fg) == ["AddInplace", "AddInplace", "Exp", "Exp", "Log"]
    assert len(passes) == 2  # the logs merged, the exps were refused: once more


def test_merge_keeps_different_constants_and_ops_apart():
    x, = vecs("x")
    fg = fgraph_of([x], [add(mul(x, 2.0), mul(x, 3.0)), add(exp(x), log(x))])
    MergeGraphRewriter().rewrite(fg)
    assert len(fg.apply_nodes) == 6


def test_merge_never_merges_destroyers():
    x, = vecs("x")
    e = exp(x)
    f = exp(x)
    # Two in-place adds on two different copies of exp(x): merging the adds would be wrong,
    # and merging the exps would make both destroy one value (the handler refuses that).
    fg = fgraph_of([x], [add_inplace(e, 1.0), add_inplace(f, 1.0)], features=[DestroyHandler()])
    MergeGraphRewriter().rewrite(fg)
    assert op_names(fg) == ["AddInplace", "AddInplace", "Exp", "Exp"]
    np.testing.assert_allclose(evaluate(fg, X)[1], np.exp(X) + 1)


def test_merge_of_views_is_fine():
    x, = vecs("x")
    fg = fgraph_of([x], [add(view(x), view(x))])
    MergeGraphRewriter().rewrite(fg)
    assert op_names(fg) == ["Add", "View"]


def test_constant_folding_replaces_constant_subgraphs():
    x, = vecs("x")
    c = add(exp(fvec.make_constant([0.0, 1.0, 2.0])), 1.0)
    fg = fgraph_of([x], [mul(x, c)])
    before = evaluate(fg, X)
    in_to_out(constant_folding, ignore_newtrees=False).rewrite(fg)
    assert op_names(fg) == ["Mul"]
    folded = fg.outputs[0].owner.inputs[1]
    assert isinstance(folded, Constant)
    np.testing.assert_allclose(folded.data, np.exp([0.0, 1.0, 2.0]) + 1)
    np.testing.assert_allclose(evaluate(fg, X)[0], before[0])


def test_constant_folding_respects_op_veto_and_size_limit(monkeypatch):
    x, = vecs("x")
    fg = fgraph_of([x], [add(x, nofold(fvec.make_constant([1.0])))])
    in_to_out(constant_folding).rewrite(fg)
    assert op_names(fg) == ["Add", "NoFold"]

    monkeypatch.setattr(cf, "MAX_FOLD_BYTES", 16)
    big = exp(fvec.make_constant(np.zeros(3)))  # 24 bytes
    small = exp(fvec.make_constant(np.zeros(2)))  # 16 bytes
    fg = fgraph_of([x], [add(x, big), add(small, small)])
    in_to_out(constant_folding).rewrite(fg)
    # exp(big) stays; exp(small) and then exp(small) + exp(small) fold
    assert op_names(fg) == ["Add", "Exp"]
    assert isinstance(fg.outputs[1], Constant)


def test_constant_folding_runs_under_fast_compile_with_merge(fresh_optdb):
    @register_canonicalize
    @node_rewriter([Exp])
    def local_noop(fgraph, node):
        return None

    x, = vecs("x")
    c = fvec.make_constant([1.0, 2.0])
    y = add(mul(x, exp(c)), mul(x, exp(fvec.make_constant([1.0, 2.0]))))
    new = rewrite_graph(y, "fast_compile")
    # exp(c) folded, the two equal products merged into one
    prod = new.owner.inputs[0]
    assert new.owner.inputs[1] is prod and isinstance(prod.owner.inputs[1], Constant)
    np.testing.assert_allclose(prod.owner.inputs[1].data, np.exp([1.0, 2.0]))


def register_dummy_rewrites():
    register_canonicalize(pattern_table([
        ((neg, (neg, "x")), "x"),
        ((mul, "x", 1.0), "x"),
    ], name="dummy_algebra"))
    register_stabilize(PatternNodeRewriter((log, (add, 1.0, "x")), (log1p, "x"),
                                           name="dummy_log1p"), "fast_compile")
    register_specialize(PatternNodeRewriter((add, "x", "x"), (mul, "x", 2.0),
                                            name="dummy_add_self"))
    register_inplace(local_neg_inplace)


@node_rewriter([Neg], inplace=True)
def local_neg_inplace(fgraph, node):
    return [neg_inplace(node.inputs[0])]


@pytest.mark.parametrize("level", ["merge", "fast_compile", "o1", "o2", "o3", "fast_run", "o4",
                                   "unsafe", "stabilize", None])
def test_every_level_keeps_values(level, fresh_optdb):
    register_dummy_rewrites()
    x, y = vecs("x", "y")
    c = fvec.make_constant([1.0, 2.0, 3.0])
    e = exp(x)
    out1 = add(mul(neg(neg(e)), log(exp(c))), mul(exp(x), neg(exp(y))))
    out2 = log(add(1.0, mul(add(y, y), 1.0)))
    ref = FunctionGraph([x, y], [out1, out2])
    fg = FunctionGraph([x, y], [out1, out2])
    stats = rewrite_graph(fg, level).rewrite_stats
    values = (X, [1.0, 2.0, 3.0])
    for got, want in zip(evaluate(fg, *values), evaluate(ref, *values)):
        np.testing.assert_allclose(got, want)
    assert len(fg.apply_nodes) <= len(ref.apply_nodes)
    if level in ("fast_run", "o4", "unsafe"):
        assert stats.applied("local_neg_inplace") >= 1
        assert stats.applied("dummy_add_self") == 1
    if level in ("fast_compile", "o1"):
        assert stats.applied("dummy_log1p") == 1 and stats.applied("dummy_add_self") == 0
    if level in ("o3", "stabilize"):
        assert stats.applied("local_neg_inplace") == 0
