"""Theano 1.0's module paths that programs import from besides the documented namespaces:
``theano.tensor.nnet.nnet`` / ``.sigm``, ``theano.scalar.basic``, ``theano.tensor.opt``,
``theano.gof.opt`` and ``theano.tensor.inplace`` (behaviour recorded with Theano 1.0.5)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T


@pytest.mark.parametrize("module, names", [
    ("jitgraph.tensor.nnet.nnet", ["softmax", "categorical_crossentropy", "relu", "elu",
                                   "binary_crossentropy", "Softmax", "SoftmaxWithBias",
                                   "crossentropy_softmax_1hot", "h_softmax", "logsoftmax"]),
    ("jitgraph.tensor.nnet.sigm", ["sigmoid", "softplus", "hard_sigmoid", "ultra_fast_sigmoid",
                                   "scalar_sigmoid", "scalar_softplus", "sigmoid_inplace"]),
    ("jitgraph.scalar.basic", ["Scalar", "upcast", "float64", "Composite", "UnaryScalarOp",
                               "BinaryScalarOp", "upgrade_to_float", "same_out", "add", "exp"]),
    ("jitgraph.tensor.opt", ["register_canonicalize", "register_specialize", "register_stabilize",
                             "register_uncanonicalize", "register_useless", "ShapeFeature",
                             "get_scalar_constant_value", "MakeVector", "copy_stack_trace",
                             "register_specialize_device", "InconsistencyError"]),
    ("jitgraph.gof.opt", ["local_optimizer", "LocalOptimizer"]),
])
def test_old_paths_give_the_same_objects(module, names):
    mod = importlib.import_module(module)
    for name in names:
        value = getattr(mod, name)
        assert name in dir(mod)
        exec(f"from {module} import {name} as imported", {}, scope := {})
        assert scope["imported"] is value
    with pytest.raises(AttributeError, match="no attribute 'not_a_theano_name'"):
        getattr(mod, "not_a_theano_name")


def test_nnet_paths_are_the_functions_of_the_namespace():
    from jitgraph.tensor.nnet import nnet, sigm

    assert nnet.softmax is T.nnet.softmax and sigm.sigmoid is T.nnet.sigmoid
    x = T.dmatrix()
    assert isinstance(sigm.sigmoid(x).owner.op.scalar_op, sigm.ScalarSigmoid)
    assert isinstance(sigm.softplus(x).owner.op.scalar_op, sigm.ScalarSoftplus)
    assert not isinstance(T.exp(x).owner.op.scalar_op, sigm.ScalarSigmoid)


class _TimesTwo(theano.Op):
    """An op whose rewrite below replaces it (only this test's graphs contain it)."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2


def test_a_rewrite_registered_through_tensor_opt_runs():
    """The 'Extending Theano' recipe: a local optimizer registered as a specialization."""
    from jitgraph.gof.opt import local_optimizer
    from jitgraph.tensor.opt import register_specialize

    @register_specialize
    @local_optimizer([_TimesTwo])
    def local_times_two_to_add(node):  # written as Theano users write it: f(node)
        if isinstance(node.op, _TimesTwo):
            return [node.inputs[0] + node.inputs[0]]
        return False

    x = T.dvector("x")
    f = theano.function([x], _TimesTwo()(x))
    assert not any(isinstance(n.op, _TimesTwo) for n in f.maker.fgraph.toposort())
    np.testing.assert_allclose(f(np.array([1.0, 2.5])), [2.0, 5.0])
    slow = theano.function([x], _TimesTwo()(x), mode=theano.Mode(optimizer=None))
    assert any(isinstance(n.op, _TimesTwo) for n in slow.maker.fgraph.toposort())


def test_inplace_functions_overwrite_their_first_input():
    from jitgraph.tensor.elementwise import inplace

    x = T.dvector("x")
    # Theano 1.0.5: the graph is refused without accept_inplace ...
    with pytest.raises(TypeError, match="accept_inplace"):
        theano.function([x], inplace.exp_inplace(x * 2))
    # ... and with it, an input the graph overwrites is overwritten by the call
    f = theano.function([x], inplace.exp_inplace(x), accept_inplace=True)
    a = np.zeros(3)
    np.testing.assert_array_equal(f(a), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(a, [1.0, 1.0, 1.0])
    g = theano.function([x], inplace.exp_inplace(x * 2), accept_inplace=True)
    a = np.zeros(3)
    np.testing.assert_array_equal(g(a), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(a, [0.0, 0.0, 0.0])  # only the intermediate was overwritten
    y = T.dvector("y")
    h = theano.function([x, y], inplace.add_inplace(x, y) * 1.0, accept_inplace=True)
    np.testing.assert_array_equal(h(np.ones(2), np.full(2, 2.0)), [3.0, 3.0])
    assert str(inplace.transpose_inplace(T.dmatrix()).owner.op) == "InplaceDimShuffle{1,0}"


@pytest.mark.parametrize("name", ["abs__inplace", "inv_inplace", "fill_inplace", "sqr_inplace",
                                  "gammaln_inplace", "round_half_to_even_inplace",
                                  "true_div_inplace", "pow_inplace", "maximum_inplace"])
def test_every_inplace_function_matches_its_pure_function(name):
    from jitgraph.tensor.elementwise import inplace

    pure = {"abs__inplace": T.abs_, "inv_inplace": T.inv, "fill_inplace": T.fill,
            "sqr_inplace": T.sqr, "gammaln_inplace": T.gammaln,
            "round_half_to_even_inplace": T.round_half_to_even, "true_div_inplace": T.true_div,
            "pow_inplace": T.pow, "maximum_inplace": T.maximum}[name]
    x, y = T.dvector("x"), T.dvector("y")
    nin = 2 if name in ("fill_inplace", "true_div_inplace", "pow_inplace",
                        "maximum_inplace") else 1
    args = [x, y][:nin]
    f = theano.function(args, getattr(inplace, name)(*[a * 1.0 for a in args]),
                        accept_inplace=True)
    ref = theano.function(args, pure(*args))
    values = [np.array([0.3, 1.7, 2.5]), np.array([1.5, 0.5, 2.0])][:nin]
    np.testing.assert_allclose(f(*values), ref(*values))
    assert getattr(inplace, name)(*args).owner.op.destroy_map == {0: [0]}
