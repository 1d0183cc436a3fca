"""Theano's cross-entropy rewrites onto ``CrossentropySoftmaxArgmax1HotWithBias`` and
``softmax_simplifier`` (``theano.tensor.nnet``): the graphs Theano 1.0.5 gives (debugprints
recorded with theano-oracle) and unchanged values."""

from __future__ import annotations

import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import GraphRewriter, WalkingGraphRewriter
from jitgraph.tensor import nnet

x = T.dmatrix("x")
y = T.lvector("y")
b = T.dvector("b")
XV = np.random.RandomState(1).randn(3, 4)
YV = np.array([0, 3, 1])
BV = np.array([0.1, -0.2, 0.3, 0.0])


def rewritten(rewriter, outputs, inputs):
    fg = FunctionGraph(inputs, outputs, clone=True)
    if isinstance(rewriter, GraphRewriter):
        rewriter.rewrite(fg)
    else:
        WalkingGraphRewriter(rewriter).rewrite(fg)
    return fg


def values(inputs, outputs, *args):
    return jitgraph.function(inputs, outputs, mode="FAST_COMPILE")(*args)


def test_softmax_with_bias_becomes_the_fused_op():
    out = nnet.crossentropy_categorical_1hot(nnet.softmax_with_bias(x, b), y)
    for rw in (nnet.crossentropy_to_crossentropy_with_softmax_with_bias,
               nnet.crossentropy_to_crossentropy_with_softmax):
        fg = rewritten(rw, [out], [x, b, y])
        # Theano 1.0.5: CrossentropySoftmaxArgmax1HotWithBias.0 [x, b, y]
        assert jitgraph.printing.debugprint(fg.outputs, file="str").splitlines()[0].startswith(
            "CrossentropySoftmaxArgmax1HotWithBias.0")
        np.testing.assert_allclose(values(fg.inputs, fg.outputs, XV, BV, YV)[0],
                                   values([x, b, y], [out], XV, BV, YV)[0])


def test_plain_softmax_gets_a_zero_bias():
    out = nnet.crossentropy_categorical_1hot(nnet.softmax_op(x), y)
    fg = rewritten(nnet.crossentropy_to_crossentropy_with_softmax, [out], [x, y])
    node = fg.outputs[0].owner
    assert type(node.op).__name__ == "CrossentropySoftmaxArgmax1HotWithBias"
    expected = -np.log(np.exp(XV) / np.exp(XV).sum(1, keepdims=True))[np.arange(3), YV]
    np.testing.assert_allclose(values(fg.inputs, fg.outputs, XV, YV)[0], expected)
    # Theano 1.0.5's numbers for this program: [0.25499247 2.92084558 2.13607302]
    np.testing.assert_allclose(expected, [0.25499247, 2.92084558, 2.13607302], rtol=1e-7)


def test_graph_merge_reads_the_softmax_from_the_xent_op():
    sm = nnet.softmax_with_bias(x, b)
    nll = nnet.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)[0]
    fg = rewritten(nnet.graph_merge_softmax_with_crossentropy_softmax, [sm, nll], [x, b, y])
    # Theano 1.0.5: CrossentropySoftmaxArgmax1HotWithBias.1 [x, b, y] for the softmax
    assert type(fg.outputs[0].owner.op).__name__ == "CrossentropySoftmaxArgmax1HotWithBias"
    assert fg.outputs[0].owner.outputs[1] is fg.outputs[0]
    got = values(fg.inputs, fg.outputs, XV, BV, YV)
    want = values([x, b, y], [sm, nll], XV, BV, YV)
    for a, w in zip(got, want):
        np.testing.assert_allclose(a, w)


def test_fused_form_when_asked_for():
    out = nnet.crossentropy_categorical_1hot(nnet.softmax_with_bias(x, b), y).mean()
    mode = jitgraph.Mode(optimizer="fast_run").including("xent")
    f = jitgraph.function([x, b, y], [out, jitgraph.grad(out, x)], mode=mode)
    ops = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert "CrossentropySoftmaxArgmax1HotWithBias" in ops, ops
    g = jitgraph.function([x, b, y], [out, jitgraph.grad(out, x)])
    for a, w in zip(f(XV, BV, YV), g(XV, BV, YV)):
        np.testing.assert_allclose(a, w, rtol=1e-12)


def test_softmax_simplifier():
    e = T.exp(x)
    s = e.sum(axis=1).dimshuffle(0, "x")
    nums, dens = nnet.softmax_simplifier([e], [s])
    assert dens == [] and str(nums[0].owner.op) == "Softmax"  # Theano: ([Softmax.0], [])
    nums, dens = nnet.softmax_simplifier([e, x], [s, b])
    assert nums[0] is x and str(nums[1].owner.op) == "Softmax" and dens == [b]
    column_sum = e.sum(axis=0).dimshuffle("x", 0)
    assert nnet.softmax_simplifier([e], [column_sum]) == ([e], [column_sum])
    assert nnet.softmax_simplifier([T.exp(x)], [s])[1] == [s]  # another exp(x): left alone
    np.testing.assert_allclose(nums[1].eval({x: XV}),
                               np.exp(XV) / np.exp(XV).sum(1, keepdims=True))
