"""Theano's ifelse rewrites (``theano.ifelse.cond_*``): each fires on the graph it is for,
gives the graph Theano 1.0.5 gives (debugprints recorded with theano-oracle, where Theano's own
version runs), and compiled results do not change."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.ifelse as I
import jitgraph.tensor as T
from jitgraph.graph.fg import FunctionGraph
from jitgraph.ifelse import IfElse, ifelse
from jitgraph.rewrite import GraphRewriter, WalkingGraphRewriter

c = T.iscalar("c")
x, y = T.dvectors("x", "y")
XV, YV = np.array([1.0, 2.0]), np.array([-3.0, 0.5])


def rewritten(rewriter, outputs):
    fg = FunctionGraph([c, x, y], outputs, clone=True)
    if isinstance(rewriter, GraphRewriter):
        rewriter.rewrite(fg)
    else:
        WalkingGraphRewriter(rewriter).rewrite(fg)
    return fg


def text(fg) -> str:
    return jitgraph.printing.debugprint(fg.outputs, file="str")


def ifelse_nodes(fg):
    return [n for n in fg.toposort() if isinstance(n.op, IfElse)]


def same_values(fg, outputs):
    """The rewritten graph computes what the original does, for both conditions."""
    before = jitgraph.function([c, x, y], outputs, mode="FAST_COMPILE")
    after = jitgraph.function(fg.inputs, fg.outputs, mode="FAST_COMPILE")
    for cond in (0, 1):
        for b, a in zip(before(cond, XV, YV), after(cond, XV, YV)):
            np.testing.assert_allclose(a, b)


# Theano 1.0.5: if{?&?}.0 / if{?&?}.1 reading c, x, y*2, y, x*3 (names of merged nodes "a&b")
def test_cond_merge_random_op_merges_independent_ifelses():
    outs = [ifelse(c, x, y) + ifelse(c, y * 2, x * 3)]
    fg = rewritten(I.cond_merge_random_op, outs)
    (node,) = ifelse_nodes(fg)
    assert node.op.n_outs == 2 and str(node.op) == "if{?&?}"
    assert node.inputs[1] is fg.inputs[1] and node.inputs[3] is fg.inputs[2]
    same_values(fg, outs)


def test_cond_merge_whole_graph_pass():
    named = ifelse(c, x, y, name="a")
    outs = [named + ifelse(c, y * 2, x * 3) + ifelse(c, x + y, x - y, name="z")]
    fg = rewritten(I.CondMerge(), outs)
    (node,) = ifelse_nodes(fg)
    assert node.op.n_outs == 3 and "a&?" in str(node.op)
    same_values(fg, outs)


def test_dependent_ifelses_are_not_merged():
    inner = ifelse(c, x, y)
    outs = [ifelse(c, inner * 2, y)]
    fg = rewritten(I.cond_merge_random_op, outs)
    assert len(ifelse_nodes(fg)) == 2


def test_cond_merge_ifs_true():
    outs = [ifelse(c, ifelse(c, x * 2, y * 3), y)]
    fg = rewritten(I.cond_merge_ifs_true, outs)
    # Theano 1.0.5: if{} [c, Elemwise{mul}(x, 2), y]
    (node,) = ifelse_nodes(fg)
    assert "Elemwise{mul,no_inplace}" in text(fg) and node.inputs[2] is fg.inputs[2]
    same_values(fg, outs)


def test_cond_merge_ifs_false():
    outs = [ifelse(c, x, ifelse(c, x * 2, y * 3))]
    fg = rewritten(I.cond_merge_ifs_false, outs)
    (node,) = ifelse_nodes(fg)
    assert node.inputs[1] is fg.inputs[1] and node.inputs[2].owner.inputs[0] is fg.inputs[2]
    same_values(fg, outs)


def test_cond_remove_identical():
    a, b = ifelse(c, [x, x], [y, y])
    outs = [a + b]
    fg = rewritten(I.cond_remove_identical, outs)
    # Theano 1.0.5: Elemwise{add} reading one if{} [c, x, y] twice
    (node,) = ifelse_nodes(fg)
    assert node.op.n_outs == 1 and fg.outputs[0].owner.inputs == [node.outputs[0]] * 2
    same_values(fg, outs)


def test_lift_through_elemwise():
    outs = [T.exp(ifelse(c, x, y))]
    fg = rewritten(I.ifelse_lift_single_if_through_acceptable_ops, outs)
    assert fg.outputs[0].owner.op == IfElse(1)
    assert text(fg).count("Elemwise{exp,no_inplace}") == 2
    same_values(fg, outs)


def test_lift_only_a_single_ifelse():
    # Theano 1.0.5: op(ifelse(...), ifelse(...)) stays as it is
    outs = [ifelse(c, x, y) * ifelse(c, y, x)]
    fg = rewritten(I.ifelse_lift_single_if_through_acceptable_ops, outs)
    assert not isinstance(fg.outputs[0].owner.op, IfElse)


def test_cond_make_inplace_runs_by_default():
    outs = [ifelse(c, x * 2, y * 3)]
    fg = rewritten(I.cond_make_inplace, outs)
    assert str(fg.outputs[0].owner.op) == "if{inplace}"  # Theano 1.0.5: if{inplace}
    f = jitgraph.function([c, x, y], ifelse(c, x, y))  # nothing to make lazy: stays eager
    assert any(str(n.op) == "if{inplace}" for n in f.maker.fgraph.toposort())
    xv = XV.copy()
    out = f(1, xv, YV)
    assert not np.shares_memory(out, xv)  # the function still returns its own buffer
    np.testing.assert_array_equal(out, XV)
    # the output is a view of either branch's value: both declared, so DebugMode agrees, and an
    # in-place op after the ifelse does not overwrite exp(y), which is read again
    ey = T.exp(y)
    checked = jitgraph.function([c, x, y], (ifelse(c, x * 2, ey) + 1) * ey, mode="DebugMode")
    np.testing.assert_allclose(checked(0, XV, YV), (np.exp(YV) + 1) * np.exp(YV))
    np.testing.assert_allclose(checked(1, XV, YV), (XV * 2 + 1) * np.exp(YV))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_merges_run_when_asked_for(mode):
    outs = ifelse(c, ifelse(c, x * 2, y), y) + ifelse(c, y, x)
    plain = jitgraph.function([c, x, y], outs, mode=mode)
    merged = jitgraph.function([c, x, y], outs,
                               mode=jitgraph.compile.get_mode(mode).including("ifelse_merge"))
    for cond in (0, 1):
        np.testing.assert_allclose(merged(cond, XV, YV), plain(cond, XV, YV))
    # merged: the inner ifelse is gone and both outer ones are one node (without: two)
    assert count_conditionals(merged) == 1 and count_conditionals(plain) == 2


def count_conditionals(f) -> int:
    return sum(str(n.op).startswith("if{") for n in f.maker.fgraph.toposort())


def test_overwriting_a_view_ifelse_protects_both_branches():
    from jitgraph.compile.aliasing import Supervisor
    from jitgraph.graph.fg import InconsistencyError
    from jitgraph.rewrite import DestroyHandler
    from jitgraph.scalar import exp
    from jitgraph.tensor.elementwise.elemwise import Elemwise

    exp_inplace = Elemwise(exp, {0: 0})
    for protected_branch in (1, 2):  # the then value, then the else value
        a = x * 2
        values = [a, y] if protected_branch == 2 else [y, a]
        out = exp_inplace(IfElse(1, as_view=True)(c, *values))
        fg = FunctionGraph([c, x, y], [out], clone=False)
        fg.attach_feature(DestroyHandler(mutable=[y]))  # (so only the supervisor objects)
        fg.validate()
        fg.attach_feature(Supervisor([y]))
        with pytest.raises(InconsistencyError, match="protected"):
            fg.validate()
