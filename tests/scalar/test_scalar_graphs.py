"""Scalar graphs: ``theano.scalar`` ops applied to scalar variables, compiled by ``function``;
``Elemwise`` over the same ops; ``Composite``. Expected values recorded from Theano 1.0.5."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.scalar as S
import jitgraph.tensor as T
from jitgraph.tensor.elementwise import scalar_ops

MODES = ["FAST_COMPILE", "FAST_RUN"]


@pytest.mark.parametrize("mode", MODES)
def test_function_on_scalar_variables(mode):
    x = S.float64("x")
    f = jitgraph.function([x], x * 2, mode=mode)
    assert f(3) == 6.0 and type(f(3)) is np.float64  # Theano: 6.0 <class 'numpy.float64'>
    y = S.int32("y")
    g = jitgraph.function([x, y], [x + y, S.exp(x), S.sigmoid(x)], mode=mode)
    out = g(1.5, 2)  # Theano: [3.5, 4.4816890703380645, ...]
    assert out[0] == 3.5 and out[1] == pytest.approx(4.4816890703380645, rel=1e-15)
    assert out[2] == pytest.approx(1 / (1 + np.exp(-1.5)))
    h = jitgraph.function([x], S.switch(x > 0, x, -x), mode=mode)
    assert h(-2.0) == 2.0  # Theano: [False, 2.0] for [x > 0, switch(...)]


def test_graph_structure_and_printing():
    x, y = S.float64("x"), S.int32("y")
    z = x + y
    assert str(z) == "add.0" and str(z.type) == "float64" and str(z.owner.op) == "add"
    assert z.owner.op.scalar_op is S.add is scalar_ops.op("add")
    text = jitgraph.printing.debugprint(z, file="str")
    # Theano: add [id A] ''  / |x [id B] / |y [id C]
    assert text.splitlines()[0].startswith("add [id A]")
    assert "|x [id B]" in text and "|y [id C]" in text


def test_operator_types():
    # Theano 1.0.5: i/j -> int32 (int_division=int), x < i -> bool, x == i -> False (identity)
    x, i, j = S.float64("x"), S.int32("i"), S.int32("j")
    assert (i / j).type is S.int32 and (i / j).owner.op.scalar_op is S.int_div
    assert (i // j).type is S.int32 and (x / i).owner.op.scalar_op is S.true_div
    assert (x < i).type is S.bool and (x == i) is False
    assert str(-x) == "neg.0" and abs(x).owner.op.scalar_op is S.abs_
    assert (x ** 2).type is S.float64 and (i % j).owner.op.scalar_op is S.mod
    assert (i & j).owner.op.scalar_op is S.and_ and (~i).owner.op.scalar_op is S.invert
    assert (S.float32("a") * 2.0).type is S.float32  # Theano: mul.0 float32
    assert str(x.zeros_like()) == "second.0" and x.astype("int8").type is S.int8
    assert S.cast(i, "float32").type is S.float32
    assert isinstance(S.convert_to_float32(i).owner.op.scalar_op, scalar_ops.Cast)
    f = jitgraph.function([i, j], [i / j, i // j])
    assert [int(v) for v in f(7, 2)] == [3, 3]  # Theano: 3 int32 both
    # Theano 1.0.5: a scalar variable is true, even the result of a comparison
    assert bool(x) and bool(x < 1) and bool(i <= j)


def test_mixing_scalars_and_tensors():
    # Theano: x + t is a scalar add (t through ScalarFromTensor); t + x an Elemwise add
    x, t = S.float64("x"), T.dscalar("t")
    assert isinstance(x + t, S.ScalarVariable) and (x + t).type is S.float64
    assert (t + x).type == T.dscalar
    f = jitgraph.function([x, t], [x + t, t + x])
    a, b = f(1.0, 2.0)
    assert a == 3.0 and b == 3.0 and isinstance(b, np.ndarray)


def test_input_conversion():
    x, i = S.float64("x"), S.int32("i")
    assert jitgraph.function([x], x)(np.float32(2)) == 2.0
    assert jitgraph.function([i], i)(3.0) == 3  # Theano: 3 int32
    assert jitgraph.function([i], i * 2)(np.int64(3)) == 6
    with pytest.raises(TypeError):
        jitgraph.function([i], i)(3.5)


def test_elemwise_of_scalar_ops_is_the_tensor_op():
    v = T.dvector("v")
    e = T.Elemwise(S.add)
    assert e(v, v).owner.op == (v + v).owner.op  # Theano: Elemwise{add,no_inplace}.0
    f = jitgraph.function([v], T.Elemwise(S.exp)(v))
    np.testing.assert_allclose(f(np.array([0.0, 1.0])), np.exp([0.0, 1.0]))
    assert S.add.nin == -1 and S.exp.nin == 1 and S.add.nout == 1  # Theano: -1 1 / 1 1


def test_op_names_and_aliases():
    assert S.inv is S.reciprocal and S.floor_div is S.int_div and S.abs_ is S.abs
    names = dir(S)
    assert {"add", "exp", "switch", "abs_", "convert_to_int32", "xlogx"} <= set(names)
    with pytest.raises(AttributeError):
        S.no_such_op  # noqa: B018
    assert S.exp(0.0) == 1.0  # on values the table entry computes directly


def test_gradient_through_scalar_graph():
    # Theano: grad(x * x, x) is add.0 and evaluates to 6.0 at 3; grad(exp(x) * 2) at 0 is 2.0
    x = S.float64("x")
    assert float(jitgraph.function([x], jitgraph.grad(x * x, x))(3.0)) == 6.0
    assert float(jitgraph.function([x], jitgraph.grad(S.exp(x) * 2, x))(0.0)) == 2.0
    y = S.float32("y")
    g = jitgraph.grad(S.log(y) * y, y)
    assert float(jitgraph.function([y], g)(np.float32(2.0))) == pytest.approx(np.log(2.0) + 1)


def test_composite():
    x, i = S.float64("x"), S.int32("i")
    c = S.Composite([x, i], [x * i + x])
    assert (c.nin, c.nout) == (2, 1) and isinstance(c, scalar_ops.ScalarOp)
    assert T.Elemwise(c)(T.dvector(), T.ivector()).type == T.dvector
    assert float(jitgraph.function([x, i], c(x, i))(2.0, 3)) == 8.0
    v = T.dvector("v")
    f = jitgraph.function([v], T.Elemwise(c)(v, T.constant(np.array([1, 2], "int32"))))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 6.0])
    two = S.Composite([x], [x * x, S.exp(x)])
    assert two.nout == 2
    a, b = T.Elemwise(two)(v)
    np.testing.assert_allclose(jitgraph.function([v], [a, b])(np.array([1.0, 2.0]))[1],
                               np.exp([1.0, 2.0]))
    assert pickle.loads(pickle.dumps(c)) == c
    with pytest.raises(ValueError, match="constant"):
        S.Composite([x], [x * 2])
    with pytest.raises(ValueError, match="not computed"):
        S.Composite([x], [x * i])


def test_composite_text_names_each_reused_value_once():
    """Each output of a chain also feeds the next step (the shape arithmetic of a deep conv
    network fuses so): written out at each use, the text doubled per link."""
    x = S.float64("x")
    outputs, h = [], x
    for _ in range(18):
        h = S.exp(h) + h
        outputs.append(h)
    chain = S.Composite([x], outputs)
    assert len(chain.name) < 18 * 40  # it was over 2**18
    assert float(jitgraph.function([x], chain(x)[-1])(0.0)) > 1
    y = S.float64("y")
    total = x + y
    small = S.Composite([x, y], [total, total * y])
    assert small.name == "Composite{t0=add(i0, i1); t0, mul(t0, i1)}"


def test_scalar_function_pickles():
    x = S.float64("x")
    f = jitgraph.function([x], S.exp(x) + x)
    g = pickle.loads(pickle.dumps(f))
    assert g(1.0) == pytest.approx(np.e + 1)


def test_scalar_nodes_are_instances_of_theanos_op_classes():
    # Theano 1.0.5: (int8 // int32).owner.op is an IntDiv, (int32 / float64) a TrueDiv
    a, b, d = S.int8(), S.int32(), S.float64()
    assert isinstance((a // b).owner.op, S.IntDiv)
    assert isinstance((b / d).owner.op, S.TrueDiv)
    assert not isinstance((a // b).owner.op, S.TrueDiv)
    assert not isinstance(T.add, S.Add)  # an Elemwise is not a scalar op, as in Theano


def test_mod_of_complex_scalars_is_refused():
    # Theano 1.0.5: ComplexError (a NotImplementedError) for complex64 % int32 and
    # float32 % complex128
    for x, y in [(S.complex64(), S.int32()), (S.float32(), S.complex128())]:
        with pytest.raises(S.ComplexError, match="complex"):
            x % y
    assert (S.float64() % S.int8()).type == S.float64


def test_composite_make_node_runs_under_the_dual_linker():
    # Theano 1.0.5: 1.5 for (x + y) * (x / y) at (1, 2); [6.0, 7.0, 0.5] for the three outputs
    # at (1, 2, 3); make_node continues a graph (float32 output). (The checking linker used to
    # see two NumPy scalars' temporary buffers as aliased.)
    from jitgraph import gof
    from jitgraph.graph.fg import FunctionGraph

    x, y, z = S.floats("xyz")
    node = S.Composite([x, y], [S.mul(S.add(x, y), S.true_div(x, y))]).make_node(x, y)
    fn = gof.DualLinker().accept(FunctionGraph([x, y], [node.outputs[0]])).make_function()
    assert fn(1.0, 2.0) == 1.5
    node = S.Composite([x, y, z], [x + y + z, x + y * z, x / y]).make_node(x, y, z)
    fn = gof.DualLinker().accept(FunctionGraph([x, y, z], node.outputs)).make_function()
    assert fn(1.0, 2.0, 3.0) == [6.0, 7.0, 0.5]
    i0, i1, f0, f1 = S.int8(), S.int8(), S.float32(), S.float32()
    op = S.Composite([i0, i1, f0], [(i0 * i1) / f0])
    assert op.make_node(S.int8() * f1, S.int8(), S.float32()).outputs[0].type is S.float32
