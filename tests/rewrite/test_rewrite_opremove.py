"""Theano's ``gof.OpRemove`` / ``gof.OpSub`` node rewriters, as libraries written for Theano 1.0
use them: theano_lstm's ``clip_gradient`` subclasses ``ViewOp`` with a clipping ``grad`` and
registers ``OpRemove`` of it in canonicalize, so the compiled graph has no trace of the op while
the gradient stays clipped (values from Theano 1.0.5)."""

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph import gof


class _GradClip(theano.compile.ViewOp):
    """theano_lstm's GradClip: identity forward, clipped gradient backward."""

    def __init__(self, lower, upper):  # no super().__init__(), as the library writes it
        self.lower, self.upper = lower, upper

    def grad(self, args, g_outs):
        return [T.clip(g, self.lower, self.upper) for g in g_outs]


def test_op_remove_drops_a_gradient_marker_after_differentiation():
    clip = _GradClip(-1.0, 1.0)
    T.opt.register_canonicalize(gof.OpRemove(clip), name="test_opremove_grad_clip")
    with pytest.raises(ValueError, match="already registered"):  # theano_lstm catches this
        T.opt.register_canonicalize(gof.OpRemove(clip), name="test_opremove_grad_clip")
    x = T.dvector("x")
    y = clip(x) ** 3
    f = theano.function([x], [y, T.grad(y.sum(), x)])
    assert not any(isinstance(n.op, _GradClip) for n in f.maker.fgraph.toposort())
    value, gradient = f(np.array([-2.0, 0.5, 3.0]))
    np.testing.assert_allclose(value, [-8.0, 0.125, 27.0])
    np.testing.assert_allclose(gradient, [1.0, 0.75, 1.0])  # Theano 1.0.5's values
    assert str(gof.OpRemove(clip)) == "_GradClip(x) -> x"
    assert gof.opt.OpRemove is gof.OpRemove


class _Double(theano.Op):
    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2


class _Triple(_Double):
    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 3


def test_op_sub_replaces_the_op_and_keeps_the_inputs():
    T.opt.register_specialize(gof.OpSub(_Double(), _Triple()), name="test_opsub_double")
    x = T.dvector("x")
    out = _Double()(x)
    out.owner.tag.marker = "kept"
    f = theano.function([x], out)
    (node,) = f.maker.fgraph.toposort()
    assert isinstance(node.op, _Triple) and node.tag.marker == "kept"
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [3.0, 6.0])
    unchanged = theano.function([x], out, mode=theano.Mode(optimizer=None))
    np.testing.assert_allclose(unchanged(np.array([1.0, 2.0])), [2.0, 4.0])
    assert str(gof.OpSub(_Double(), _Triple())) == "_Double -> _Triple"


def test_op_remove_refuses_a_node_whose_outputs_do_not_match_its_inputs():
    x, y = T.dvectors("x", "y")
    node = (x + y).owner
    with pytest.raises(ValueError, match="2 inputs and 1 outputs"):
        gof.OpRemove(node.op).transform(None, node)
