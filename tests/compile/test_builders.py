"""OpFromGraph: a graph as an op (Theano's theano.compile.builders).

Expected values were recorded by running the same programs under Theano 1.0.5 (the oracle);
the examples are those of OpFromGraph's docstring.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.compile.builders import OpFromGraph
from jitgraph.tensor.core.gradient import verify_grad

MODES = ["FAST_RUN", "FAST_COMPILE", "DebugMode"]
A, B = np.array([1.0, 2.0]), np.array([3.0, 5.0])


def ofg_nodes(fn):
    return [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, OpFromGraph)]


@pytest.fixture
def xyz():
    return T.dscalars("x", "y", "z")


@pytest.mark.parametrize("mode", MODES)
def test_docstring_example_and_its_gradient(xyz, mode):
    x, y, z = xyz
    e = x + y * z
    op = OpFromGraph([x, y, z], [e])
    e2 = op(x, y, z) + op(z, y, x)
    fn = theano.function([x, y, z], [e2], mode=mode)
    assert fn(2.0, 3.0, 4.0)[0] == 24.0  # Theano 1.0.5: [array(24.)]
    assert len(ofg_nodes(fn)) == 2
    grads = theano.function([x, y, z], T.grad(e2, [x, y, z]), mode=mode)(2.0, 3.0, 4.0)
    assert [float(g) for g in grads] == [4.0, 6.0, 4.0]  # Theano: [4., 6., 4.]


def test_node_printing_and_identity(xyz):
    x, y, z = xyz
    op = OpFromGraph([x, y, z], [x + y * z])
    assert str(op) == "OpFromGraph{inline=False}"
    assert str(OpFromGraph([x], [x * 2], inline=True, name="twice")) == "twice{inline=True}"
    assert op == op and op != OpFromGraph([x, y, z], [x + y * z])  # Theano: no __props__
    node = op(x, y, z).owner
    assert node.inputs == [x, y, z] and node.outputs[0].type == x.type
    assert len(op.local_inputs) == 3 and op.fgraph.outputs == op.local_outputs


def test_shared_variable_becomes_an_implicit_input(xyz):
    x, y, z = xyz
    s = theano.shared(np.arange(4.0).reshape(2, 2), name="s")
    op = OpFromGraph([x, y, z], [x + y * z + s])
    o = op(x, y, z)
    assert o.owner.inputs == [x, y, z, s] and op.shared_inputs == [s]
    e2 = o + op(z, y, x)
    fn = theano.function([x, y, z], e2)
    np.testing.assert_array_equal(fn(2.0, 3.0, 4.0), [[24, 26], [28, 30]])  # Theano's values
    grads = theano.function([x, y, z], T.grad(e2.sum(), [x, y, z]))(2.0, 3.0, 4.0)
    assert [float(g) for g in grads] == [16.0, 24.0, 16.0]  # Theano: [16., 24., 16.]
    s.set_value(np.zeros((2, 2)))  # the node reads the shared variable's current value
    np.testing.assert_array_equal(fn(2.0, 3.0, 4.0), np.full((2, 2), 24.0))


def test_grad_overrides_as_in_the_docstring(xyz):
    x, y, z = xyz

    def rescale_dy(inps, grads):
        x, y, z = inps
        (g,) = grads
        return z * 2

    op = OpFromGraph([x, y, z], [x + y * z], grad_overrides=["default", rescale_dy, "default"])
    dx, dy, dz = T.grad(op(x, y, z), [x, y, z])
    out = theano.function([x, y, z], [dx, dy, dz])(2.0, 3.0, 4.0)
    assert [float(g) for g in out] == [1.0, 8.0, 3.0]  # Theano: [1., 8., 3.]


def test_whole_gradient_overrides(xyz):
    x, y, z = xyz
    twice = OpFromGraph([x, y, z, T.dscalar()], [x * 0 + 2, y * 0 + 2, z * 0 + 2])
    by_callable = OpFromGraph([x, y], [x * y], grad_overrides=lambda i, g: [g[0] * 10, g[0]])
    by_lop = OpFromGraph([x, y], [x * y],
                         lop_overrides=lambda i, o, g: [o[0] * g[0], i[0] * g[0]])
    by_ofg = OpFromGraph([x, y, z], [x + y + z], grad_overrides=twice)
    f = theano.function([x, y, z], T.grad(by_callable(x, y), [x, y])
                        + T.grad(by_lop(x, y), [x, y]) + T.grad(by_ofg(x, y, z), [x, y, z]))
    assert [float(v) for v in f(2.0, 3.0, 4.0)] == [10.0, 1.0, 6.0, 2.0, 2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="mutually exclusive"):
        OpFromGraph([x], [x], grad_overrides=lambda i, g: g, lop_overrides=lambda i, o, g: g)
    with pytest.raises(ValueError, match="2 entries; expected 3"):
        OpFromGraph([x, y, z], [x], grad_overrides=["default", "default"])
    with pytest.raises(TypeError, match="grad_overrides\\[0\\]"):
        OpFromGraph([x], [x], grad_overrides=[3])


def test_multiple_outputs_and_their_gradient():
    a, b = T.dvectors("a", "b")
    op = OpFromGraph([a, b], [a * b, a - b])
    o1, o2 = op(a, b)
    out = theano.function([a, b], [o1, o2])(A, B)
    np.testing.assert_array_equal(out[0], [3.0, 10.0])  # Theano: [3., 10.], [-2., -3.]
    np.testing.assert_array_equal(out[1], [-2.0, -3.0])
    grads = theano.function([a, b], T.grad((o1 * 2 + o2 ** 2).sum(), [a, b]))(A, B)
    np.testing.assert_array_equal(grads[0], [2.0, 4.0])  # Theano: [2., 4.], [6., 10.]
    np.testing.assert_array_equal(grads[1], [6.0, 10.0])
    only_first = theano.function([a, b], T.grad(o1.sum(), a))(A, B)
    np.testing.assert_array_equal(only_first, B)


@pytest.mark.parametrize("inline", [False, True])
def test_verify_grad(inline):
    a, b = T.dvectors("a", "b")
    op = OpFromGraph([a, b], [T.tanh(a) * b + T.exp(b)], inline=inline)
    rng = np.random.RandomState(0)
    verify_grad(lambda u, v: op(u, v), [rng.rand(3), rng.rand(3)], rng=rng)
    verify_grad(lambda u, v: op(u, v), [rng.rand(3), rng.rand(3)], rng=rng, mode="FAST_RUN")


def test_infer_shape_does_not_run_the_op():
    m = T.dmatrix("m")
    op = OpFromGraph([m], [m.T.dot(m), m[0]])
    p, q = op(m)
    f = theano.function([m], [p.shape, q.shape])
    assert not ofg_nodes(f)  # Theano 1.0.5 computes both from Shape_i{1}(m)
    shapes = f(np.ones((3, 2)))
    assert [list(s) for s in shapes] == [[2, 2], [2]]


def test_inline_expands_into_the_outer_graph(xyz):
    x, y, z = xyz
    op = OpFromGraph([x, y, z], [x + y * z], inline=True)
    for mode in ["FAST_RUN", "FAST_COMPILE"]:
        f = theano.function([x, y, z], op(x, y, z) * 2, mode=mode)
        assert not ofg_nodes(f)
        assert f(1.0, 2.0, 3.0) == 14.0  # Theano: 14.0 (one fused elemwise node)
    plain = theano.function([x, y, z], op(x, y, z) * 2, mode=theano.Mode(optimizer=None))
    assert ofg_nodes(plain) and plain(1.0, 2.0, 3.0) == 14.0
    from jitgraph.compile import optdb

    assert "inline_ofg_expansion" in optdb
    assert optdb.position_of("inline_ofg_expansion") == -0.01


def test_nested_ops():
    a, b = T.dvectors("a", "b")
    inner = OpFromGraph([a, b], [a * b, a - b])
    outer = OpFromGraph([a, b], [inner(a, b)[0] + 1])
    nested_inline = OpFromGraph([a, b], [inner(a, b)[1] * 2], inline=True)
    f = theano.function([a, b], [outer(a, b), nested_inline(a, b)])
    first, second = f(A, B)
    np.testing.assert_array_equal(first, [4.0, 11.0])  # Theano: [4., 11.]
    np.testing.assert_array_equal(second, [-4.0, -6.0])


def test_inner_graph_follows_the_outer_mode(xyz):
    x, y, z = xyz
    op = OpFromGraph([x, y, z], [x + y * z])
    theano.function([x, y, z], op(x, y, z), mode="FAST_COMPILE")(1.0, 2.0, 3.0)
    modes = [entry[0] for entry in op._compiled.values()]
    assert any(getattr(m, "name", None) == "FAST_COMPILE" for m in modes)
    pinned = OpFromGraph([x], [x * 2], mode="FAST_COMPILE")
    theano.function([x], pinned(x), mode="FAST_RUN")(1.0)
    assert [m for m, _ in pinned._compiled.values()] == ["FAST_COMPILE"]


def test_connection_pattern():
    a, b = T.dvectors("a", "b")
    op = OpFromGraph([a, b], [a * b, a - b])
    assert op.connection_pattern(op(a, b)[0].owner) == [[True, True], [True, True]]
    given = OpFromGraph([a, b], [a * 2], connection_pattern=[[True], [False]])
    assert given.connection_pattern(given(a, b).owner) == [[True], [False]]
    shape_only = OpFromGraph([a, b], [a.shape[0] * b])
    assert shape_only.connection_pattern(shape_only(a, b).owner) == [[False], [True]]


def test_pickle():
    a, b = T.dvectors("a", "b")
    op = OpFromGraph([a, b], [a * b, a - b])
    again = pickle.loads(pickle.dumps(op))
    assert str(again) == "OpFromGraph{inline=False}"
    out = theano.function([a, b], again(a, b))(A, B)
    np.testing.assert_array_equal(out[0], [3.0, 10.0])
    f = pickle.loads(pickle.dumps(theano.function([a, b], op(a, b)[1] * 2)))
    np.testing.assert_array_equal(f(A, B), [-4.0, -6.0])


def test_constructor_errors(xyz):
    x, y, z = xyz
    with pytest.raises(TypeError, match="outputs must be a list"):
        OpFromGraph([x], x * 2)
    with pytest.raises(TypeError, match="updates or givens"):
        OpFromGraph([x], [x * 2], updates=[])
    with pytest.raises(ValueError, match="neither one of its inputs nor a shared variable"):
        OpFromGraph([x], [x * y])
    op = OpFromGraph([x, y], [x * y])
    with pytest.raises(ValueError, match="expects 2 inputs, got 1"):
        op(x)
    with pytest.raises(TypeError, match="input 0"):
        op(T.dvector(), y)
    assert op(2.0, y).owner.inputs[0].type == x.type  # values become constants of the type


def test_rop():
    from jitgraph.gradient import Rop

    a, v = T.dvectors("a", "v")
    op = OpFromGraph([a], [T.tanh(a) * 2])
    r = Rop(op(a), a, v)
    out = theano.function([a, v], r)(np.array([0.1, 0.2]), np.array([1.0, 2.0]))
    np.testing.assert_allclose(out, [1.98013258, 3.84417193])  # Theano 1.0.5
    scaled = OpFromGraph([a], [T.tanh(a) * 2], rop_overrides=lambda i, e: [e[0] * 10])
    out = theano.function([a, v], Rop(scaled(a), a, v), on_unused_input="ignore")(A, B)
    np.testing.assert_array_equal(out, B * 10)


def test_null_and_disconnected_gradient_overrides():
    from jitgraph.gradient import DisconnectedType, NullType, NullTypeGradError

    a, b = T.dvectors("a", "b")
    disconnected = OpFromGraph([a, b], [a * b], grad_overrides=[DisconnectedType()(), "default"])
    grads = theano.function([a, b], T.grad(disconnected(a, b).sum(), [a, b],
                                           disconnected_inputs="ignore"))(A, B)
    np.testing.assert_array_equal(grads[0], [0.0, 0.0])  # Theano: [0., 0.], [1., 2.]
    np.testing.assert_array_equal(grads[1], [1.0, 2.0])
    assert disconnected.connection_pattern(disconnected(a, b).owner) == [[False], [True]]
    null = OpFromGraph([a, b], [a * b], grad_overrides=[NullType()(), "default"])
    with pytest.raises(NullTypeGradError):
        T.grad(null(a, b).sum(), a)
    np.testing.assert_array_equal(theano.function([a, b], T.grad(null(a, b).sum(), b))(A, B),
                                  [1.0, 2.0])  # Theano: [1. 2.]


def test_gradient_and_rop_have_test_values_under_raise():
    """With ``compute_test_value='raise'`` the gradient and R-op of an OpFromGraph get test
    values (Theano 1.0.5: 12 and 24 for x**3 at 2); the placeholders of the inner graphs they
    build have none, so neither building nor rewriting those graphs computes test values."""
    with theano.config.change_flags(compute_test_value="raise", on_opt_error="raise"):
        x = T.dscalar("x")
        x.tag.test_value = np.array(1.0)
        cube = OpFromGraph([x], [x ** 3])
        y = T.dscalar("y")
        y.tag.test_value = np.array(2.0)
        assert T.grad(cube(y), y).tag.test_value == 12.0
        assert T.Rop(cube(y), y, y).tag.test_value == 24.0


def test_gradient_and_rop_under_compute_test_value_raise():
    # Theano 1.0.5 (oracle): 8.0, 12.0 and 6.0. Before, the gradient graph built from
    # placeholders stopped on their missing test values, and the rewrites of the compiled
    # gradient warned for the same reason (they now run under compute_test_value_opt, 'off').
    import warnings

    with theano.config.change_flags(compute_test_value="raise"):
        x = T.scalar("x")
        x.tag.test_value = np.array(1.0)
        op = OpFromGraph([x], [x ** 3])
        y = T.scalar("y")
        y.tag.test_value = np.array(2.0)
        f = op(y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            g = T.grad(f, y)
            r = T.Rop(f, y, T.constant(np.float64(0.5)))
        assert (f.tag.test_value, g.tag.test_value, r.tag.test_value) == (8.0, 12.0, 6.0)
