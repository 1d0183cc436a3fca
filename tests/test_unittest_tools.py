"""``theano.tests.unittest_tools`` as the "Extending Theano" guide uses it to test a new op, and
its helpers' behaviour as Theano 1.0.5 shows it (recorded with the oracle)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.tests import unittest_tools as utt


class NoShapeOp(theano.Op):
    """The guide's op, 2 * x, written against the extension API, without ``infer_shape``: its
    shape can only come from running it."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


class DoubleOp(NoShapeOp):
    """The guide's DoubleOp: the same with ``infer_shape``."""

    def infer_shape(self, node, i0_shapes):
        return i0_shapes


class TestDoubleOp(utt.InferShapeTester):
    def test_perform_and_grad(self):
        x = T.matrix()
        f = theano.function([x], DoubleOp()(x))
        inp = np.random.rand(5, 4).astype(theano.config.floatX)
        np.testing.assert_allclose(f(inp), inp * 2)
        utt.verify_grad(DoubleOp(), [np.random.rand(5, 7)])

    def test_infer_shape(self):
        x = T.matrix()
        self._compile_and_check([x], [DoubleOp()(x)], [np.random.rand(5, 6)], DoubleOp)


def test_compile_and_check_catches_a_missing_infer_shape():
    tester = TestDoubleOp("test_infer_shape")
    tester.setUp()
    x = T.matrix()
    with pytest.raises(AssertionError, match="NoShapeOp"):
        tester._compile_and_check([x], [NoShapeOp()(x)], [np.random.rand(5, 6)], NoShapeOp)
    with pytest.raises(AssertionError, match="no Elemwise node"):  # cls must be in the graph
        tester._compile_and_check([x], [x.T], [np.zeros((2, 3))], theano.tensor.Elemwise)


def test_compile_and_check_warns_on_square_inputs(caplog):
    tester = TestDoubleOp("test_infer_shape")
    tester.setUp()
    x = T.matrix()
    with caplog.at_level(logging.WARNING):
        tester._compile_and_check([x], [DoubleOp()(x)], [np.random.rand(3, 3)], DoubleOp)
    assert "(3, 3)" in caplog.text


def test_verify_grad_is_seeded_and_catches_a_wrong_gradient():
    class WrongGrad(DoubleOp):
        def grad(self, inputs, output_grads):
            return [output_grads[0] * 3]

    with pytest.raises(utt.verify_grad.E_grad):
        utt.verify_grad(WrongGrad(), [np.random.rand(3, 2)])
    # Theano 1.0.5: the default seed is 666 and seed_rng seeds numpy's global generator
    assert utt.fetch_seed() == 666 and utt.fetch_seed(5) == 5
    assert utt.seed_rng() == 666 and np.random.rand() == pytest.approx(0.7004371218578347)


def test_mock_random_state_and_value_reports():
    m = utt.MockRandomState(0.5)  # Theano 1.0.5's values
    np.testing.assert_array_equal(m.rand(2, 3), np.full((2, 3), 0.5))
    np.testing.assert_array_equal(m.randint(0, 10, size=3), [9, 9, 9])
    np.testing.assert_array_equal(m.randint(3, size=(2,)), [2, 2])
    with pytest.raises(utt.WrongValue) as err:
        utt.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    text = str(err.value)
    assert text.startswith("WrongValue") and "Max Abs Diff: 0.5" in text
    assert "rtol, atol: 1e-05 1e-08" in text
    utt.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))


def test_optimization_mixin_counts_ops():
    x = T.dmatrix()
    f = theano.function([x], T.exp(x) + 1, mode=theano.Mode(linker="py", optimizer=None))
    mixin = utt.TestOptimizationMixin()
    mixin.assertFunctionContains1(f, T.exp)  # T.exp: the shared Elemwise{exp}
    mixin.assertFunctionContains0(f, T.log)
    mixin.assertFunctionContainsClassN(f, theano.tensor.Elemwise, 2)
    with pytest.raises(AssertionError, match="log"):
        mixin.assertFunctionContains1(f, T.log)


def test_attempt_many_times():
    calls = []

    @utt.AttemptManyTimes(n_attempts=4, n_req_successes=2)
    def flaky():
        calls.append(utt.fetch_seed())
        assert len(calls) % 2 == 0

    flaky()
    assert calls == [666, 667, 668, 669]
    assert utt.fetch_seed() == 666

    @utt.AttemptManyTimes(n_attempts=2)
    def always_fails():
        raise AssertionError("no")

    with pytest.raises(AssertionError, match="passed 0 of 2"):
        always_fails()


def test_op_contract_mixin():
    class Contract(utt.T_OpContractMixin):
        ops = [DoubleOp(), T.Elemwise(theano.scalar.exp)]
        other_op = T.Elemwise(theano.scalar.log)

    c = Contract()
    c.test_eq()
    c.test_hash()
    c.test_name()
