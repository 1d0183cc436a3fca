"""``Rop``, ``Lop``, ``jacobian``, ``hessian`` and ``subgraph_grad`` against Theano 1.0.5.

The expected numbers and messages were recorded by running the same programs under Theano
(``/work/shared/tools/theano-oracle``; scan-based Jacobians with ``ORACLE_PY=1``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.gradient as G
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate

XV = np.array([1.5, -2.5, 3.0])
VV = np.array([0.5, -1.0, 2.0])
MV = np.array([[0.1, -0.4, 0.7], [1.2, 0.3, -0.8]])
VMV = np.array([[1.0, 0.5, -0.5], [0.25, -2.0, 1.5]])


@pytest.fixture
def xs():
    return T.dvector("x"), T.dvector("v"), T.dmatrix("m"), T.dmatrix("vm")


def _run(out, inputs, values, mode=None):
    return theano.function(inputs, out, on_unused_input="ignore", mode=mode)(*values)


# ---------------------------------------------------------------------------------------------
# The tutorial (doc/tutorial/gradients.txt) under ``import jitgraph as theano``

def test_tutorial_rop_lop_and_hessian_times_vector():
    W, V, x = T.dmatrix("W"), T.dmatrix("V"), T.dvector("x")
    y = T.dot(x, W)
    JV = T.Rop(y, W, V) if hasattr(T, "Rop") else G.Rop(y, W, V)
    f = theano.function([W, V, x], JV)  # W is an input of JV's graph, as in Theano
    assert repr(f([[1, 1], [1, 1]], [[2, 2], [2, 2]], [0, 1])) == "array([2., 2.])"
    v = T.dvector("v")
    VJ = G.Lop(y, W, v)
    f = theano.function([W, v, x], VJ, on_unused_input="ignore")
    assert repr(f([[1, 1], [1, 1]], [2, 2], [0, 1])) == ("array([[0., 0.],\n"
                                                         "       [2., 2.]])")
    x, v = T.dvector("x"), T.dvector("v")
    gy = T.grad(T.sum(x ** 2), x)
    vH = T.grad(T.sum(gy * v), x)
    assert repr(theano.function([x, v], vH)([4, 4], [2, 2])) == "array([4., 4.])"
    Hv = G.Rop(gy, x, v)
    assert repr(theano.function([x, v], Hv)([4, 4], [2, 2])) == "array([4., 4.])"
    assert repr(theano.function([x], G.jacobian(x ** 2, x))([4, 4])) == (
        "array([[8., 0.],\n       [0., 8.]])")
    assert repr(theano.function([x], G.hessian(T.sum(x ** 2), x))([4, 4])) == (
        "array([[2., 0.],\n       [0., 2.]])")


# ---------------------------------------------------------------------------------------------
# Rop / Lop values recorded from Theano

def test_rop_values_match_theano(xs):
    x, v, m, vm = xs
    np.testing.assert_allclose(_run(G.Rop(T.nnet.softmax(m), m, vm), [m, vm], [MV, VMV]), [
        [0.25829680683214934, 0.06821455783429416, -0.3265113646664435],
        [0.313615886972515, -0.46577353540791067, 0.15215764843539567]], rtol=1e-12)
    np.testing.assert_allclose(_run(G.Rop(T.tanh(T.dot(m, x)), [m, x], [vm, v]),
                                    [m, x, vm, v], [MV, XV, VMV, VV]),
                               [0.003597428900565763, 2.0239645381982907], rtol=1e-12)
    np.testing.assert_allclose(_run(G.Rop(T.max(m, axis=1), m, vm), [m, vm], [MV, VMV]),
                               [-0.5, 0.25])
    np.testing.assert_allclose(_run(G.Rop(T.sum(m ** 2, axis=0) * T.exp(x), [m, x], [vm, v]),
                                    [m, x, vm, v], [MV, XV, VMV, VV]),
                               [6.834575832265548, -0.1518572474542128, -16.871851015477645],
                               rtol=1e-12)
    np.testing.assert_allclose(_run(G.Rop(T.set_subtensor(m[:, 1], x[:2]) ** 2, [m, x],
                                          [vm, v]), [m, x, vm, v], [MV, XV, VMV, VV]),
                               [[0.2, 1.5, -0.7], [0.6, 5.0, -2.4]], rtol=1e-12)


def test_lop_values_match_theano(xs):
    x, v, m, vm = xs
    np.testing.assert_allclose(_run(G.Lop(T.nnet.softmax(m), m, vm), [m, vm], [MV, VMV]), [
        [0.25829680683214934, 0.06821455783429416, -0.3265113646664435],
        [0.313615886972515, -0.46577353540791067, 0.15215764843539567]], rtol=1e-12)
    g_m, g_x = _run(G.Lop(T.dot(m, x), [m, x], v[:2]), [m, x, v], [MV, XV, VV])
    np.testing.assert_allclose(g_m, [[0.75, -1.25, 1.5], [-1.5, 2.5, -3.0]])
    np.testing.assert_allclose(g_x, [-1.15, -0.5, 1.15])


def test_rop_lop_result_forms(xs):
    x, v, _, _ = xs
    assert isinstance(G.Rop([x * 2], x, v), list)
    assert isinstance(G.Rop((x * 2,), [x], (v,)), tuple)
    assert isinstance(G.Lop(x * 2, (x,), v), tuple) and not isinstance(G.Lop([x * 2], x, [v]),
                                                                         (list, tuple))
    assert G.Rop(x, x, v) is v


def test_rop_errors_and_disconnected_outputs(xs):
    x, v, m, _ = xs
    y = T.dvector("y")
    with pytest.raises(ValueError, match="^Element 0 of wrt/eval_point have mismatched "
                                         "dimensionality: 1 versus 2$"):
        G.Rop(x * 2, x, m)
    with pytest.raises(AssertionError):
        G.Rop(x * 2, [x, y], [v])
    # As in Theano 1.0.5: a graph that does not reach wrt has a zero R-op; a shape-only path
    # or a bare input is disconnected.
    assert evaluate(G.Rop(y * 2, x, v), {y: XV}).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(G.DisconnectedInputError, match="^Rop method was asked to compute the "
                                                       "gradient with respect to a variable"):
        G.Rop(x.shape, x, v)
    with pytest.raises(G.DisconnectedInputError):
        G.Rop(y, x, v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        G.Rop(x.shape, x, v, disconnected_outputs="warn")
    assert "used only by a non-differentiable operator: Shape.0" in str(caught[0].message)
    assert G.Rop(x.shape, x, v, disconnected_outputs="ignore", return_disconnected="None") is None
    d = G.Rop(x.shape, x, v, disconnected_outputs="ignore", return_disconnected="Disconnected")
    assert isinstance(d.type, G.DisconnectedType)
    with pytest.raises(ValueError, match="Invalid value for keyword 'disconnected_inputs'"):
        G.Rop(x.shape, x, v, disconnected_outputs="foo")
    with pytest.raises(NotImplementedError):
        G.Rop(G.grad_clip(x, -1, 1), x, v)


def test_rop_of_integer_outputs_and_mixed_dtypes(xs):
    x, v, _, _ = xs
    r = G.Rop(T.cast(x, "int32") * 2, x, v)
    assert r.type == T.dvector().type  # Theano: TensorType(float64, vector) of zeros
    assert evaluate(r, {x: XV, v: VV}).tolist() == [0.0, 0.0, 0.0]
    fv = T.fvector("fv")
    np.testing.assert_allclose(evaluate(G.Rop(x * 2, x, fv), {x: XV, fv: [1, 2, 3]}), [2, 4, 6])
    z = T.dvector("z")
    assert evaluate(G.Rop(x * z, x, np.ones(3)), {x: XV, z: VV}).tolist() == VV.tolist()


def test_rop_through_gradient_only_ops(xs):
    x, v, _, _ = xs
    with pytest.raises(G.DisconnectedInputError):
        G.Rop(G.disconnected_grad(x), x, v)
    with pytest.raises(G.DisconnectedInputError):
        G.Rop(G.undefined_grad(x), x, v)
    assert evaluate(G.Rop(G.zero_grad(x) * x, x, v), {x: XV, v: VV}).tolist() == (
        XV * VV).tolist()
    assert evaluate(G.Rop(G.grad_scale(x, 3), x, v), {x: XV, v: VV}).tolist() == (
        3 * VV).tolist()


def test_lop_errors(xs):
    x, v, _, _ = xs
    with pytest.raises(AssertionError):
        G.Lop([x * 2, x * 3], x, [v])
    with pytest.raises(TypeError, match="output grads must be theano variables"):
        G.Lop(x * 2, x, np.ones(2))
    with pytest.raises(TypeError, match=r"known_grad of type TensorType\(int64, vector\)"):
        G.Lop(x * 2, x, T.lvector())
    s = T.dscalar("s")
    g_x, _ = G.Lop(x * s, [x, s], v, consider_constant=[s], disconnected_inputs="ignore")
    assert evaluate(g_x, {s: 2.0, v: VV}).tolist() == (2 * VV).tolist()


# ---------------------------------------------------------------------------------------------
# jacobian / hessian (values recorded from Theano's scan-based versions)

JAC_TANH = [[1.2665615314921632, 0.9051482536448665, 0.9051482536448665],
            [-0.9866142981514303, -0.9334298447851093, -0.9866142981514303],
            [0.9950547536867305, 0.9950547536867305, 1.0147868280176109]]


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_jacobian_matches_theano(mode):
    x, s, m = T.dvector("x"), T.dscalar("s"), T.dmatrix("m")
    J = G.jacobian(T.tanh(x) * x.sum(), x)
    assert J.type == T.dmatrix().type
    np.testing.assert_allclose(_run(J, [x], [XV], mode), JAC_TANH, rtol=1e-14)
    mv = np.arange(6.0).reshape(2, 3) / 7
    Jm = _run(G.jacobian(T.exp(m).sum(1), m), [m], [mv], mode)
    assert Jm.shape == (2, 2, 3)
    np.testing.assert_allclose(Jm[0, 0], [1.0, 1.1535649948951077, 1.33071219744735])
    np.testing.assert_allclose(Jm[1, 1], [1.53506300925521, 1.770794952435155, 2.042727070266142])
    assert not Jm[0, 1].any() and not Jm[1, 0].any()
    j_x, j_s = _run(G.jacobian(x ** 2 * s, [x, s]), [x, s], [XV, 2.0], mode)
    np.testing.assert_allclose(j_x, np.diag([6.0, -10.0, 12.0]))
    np.testing.assert_allclose(j_s, [2.25, 6.25, 9.0])


def test_jacobian_of_known_length_is_unrolled_and_agrees():
    x = T.dvector("x")
    expr = T.stack([x[0] * x[1], T.sin(x[2]), x.sum()])
    J = G.jacobian(expr, x)
    assert not any(type(n.op).__name__ == "Scan" for n in
                   theano.function([x], J).maker.fgraph.toposort())
    expected = [[XV[1], XV[0], 0.0], [0.0, 0.0, np.cos(XV[2])], [1.0, 1.0, 1.0]]
    np.testing.assert_allclose(evaluate(J, {x: XV}), expected)
    r = T.TensorType("float64", (True,))("r")
    Jr = G.jacobian(r ** 2, r)
    assert Jr.type == T.TensorType("float64", (False, True))  # Theano: TensorType(float64, col)
    assert evaluate(Jr, {r: [3.0]}).tolist() == [[6.0]]


def test_hessian_matches_theano():
    x, s = T.dvector("x"), T.dscalar("s")
    H = G.hessian((x ** 3).sum() + T.prod(x, no_zeros_in_input=True), x)
    np.testing.assert_allclose(_run(H, [x], [XV]), [[9.0, 3.0, -2.5], [3.0, -15.0, 1.5],
                                                    [-2.5, 1.5, 18.0]], rtol=1e-14)
    (h,) = _run(G.hessian((x ** 3).sum() * s ** 2 + T.sin(x).sum(), [x]), [x, s], [XV, 0.5])
    np.testing.assert_allclose(h, np.diag([1.2525050133959454, -3.1515278558960436,
                                           4.358879991940133]), rtol=1e-14)


def test_jacobian_hessian_argument_errors():
    x, s, m = T.dvector("x"), T.dscalar("s"), T.dmatrix("m")
    with pytest.raises(AssertionError, match="^tensor.jacobian expects a 1 dimensional variable "
                                             "as `expression`. If not use flatten"):
        G.jacobian(m ** 2, m)
    with pytest.raises(AssertionError, match="^tensor.jacobian expects a Variable as "
                                             "`expression`$"):
        G.jacobian(np.ones(3), x)
    with pytest.raises(AssertionError, match="^tensor.hessian expects a 0 dimensional variable"):
        G.hessian(x ** 3, x)
    with pytest.raises(AssertionError, match=r"^tensor.hessian expects a \(list of\) 1 "
                                             r"dimensional variable as `wrt`$"):
        G.hessian((m ** 3).sum(), m)
    with pytest.raises(AssertionError, match="^tensor.hessian expects a Variable as `cost`$"):
        G.hessian(np.float64(1.0), x)
    with pytest.raises(G.DisconnectedInputError):
        G.jacobian(x ** 2, s)
    with pytest.raises(G.DisconnectedInputError):
        G.hessian((x ** 3).sum(), T.dvector("v"))
    # a scalar expression's Jacobian is its gradient
    np.testing.assert_allclose(evaluate(G.jacobian((x ** 2).sum(), x), {x: XV}), 2 * XV)
    assert isinstance(G.jacobian(x ** 2 * s, (x, s)), tuple)


# ---------------------------------------------------------------------------------------------
# subgraph_grad (the example of its docstring, values recorded from Theano)

def test_subgraph_grad_backpropagates_layer_by_layer():
    x, t = T.dvector("x"), T.dvector("t")
    w1 = theano.shared(np.array([[0.1, 0.2], [0.3, 0.4]]), "w1")
    w2 = theano.shared(np.array([0.5, -0.6]), "w2")
    a1 = T.tanh(T.dot(x, w1))
    a2 = T.tanh(T.dot(a1, w2))
    cost2 = T.sqr(a2 - t.sum()).sum() + T.sqr(w2.sum())
    cost1 = T.sqr(w1.sum())
    next_grad, param_grads = None, []
    for params, ends, cost in (([w2], [a1], cost2), ([w1], [x], cost1)):
        grads, ends_grads = G.subgraph_grad(wrt=params, end=ends, start=next_grad, cost=cost)
        next_grad = dict(zip(ends, ends_grads))
        param_grads.extend(grads)
    g_w2, g_w1 = theano.function([x, t], param_grads)(np.array([1.0, 2.0]),
                                                       np.array([0.5, 0.25]))
    np.testing.assert_allclose(g_w2, [-1.26640139, -1.54382589], atol=1e-8)
    np.testing.assert_allclose(g_w1, [[1.44000391, 2.44462452], [0.88000783, 2.88924904]],
                               atol=1e-8)
    wrt_g, end_g, start_g, cost_g = G.subgraph_grad(wrt=[w2], end=[a1], cost=cost2, details=True)
    assert start_g is None and len(cost_g) == 2 and len(wrt_g) == len(end_g) == 1
    with pytest.raises(AssertionError):
        G.subgraph_grad(wrt=[w1], end=[x])
    with pytest.raises(AssertionError):
        G.subgraph_grad(wrt=w1, end=[x], cost=cost1)


class _NoRop(theano.Op):
    """Passes its input through; declares its R-op undefined (R_op returns None)."""

    __props__ = ()

    def make_node(self, x):
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]

    def R_op(self, inputs, eval_points):
        return [None]


@pytest.mark.parametrize("build", [
    lambda b, x, t: T.inc_subtensor(b[:3], t),
    lambda b, x, t: T.set_subtensor(b[:3], t),
    lambda b, x, t: T.join(0, b, t),
    lambda b, x, t: T.join(0, b, x),
    lambda b, x, t: b * 2 + x,
    lambda b, x, t: T.dot(b, T.ones((3, 2))),
], ids=["inc_subtensor", "set_subtensor", "join_shared", "join_x", "elemwise", "dot"])
def test_rop_through_an_undefined_r_op_is_refused(xs, build):
    # The tangent of an op whose R_op returns None for a moving input is undefined, and so is
    # everything computed from it: Rop raises rather than give zeros for that path (before,
    # these gave zeros, or the other inputs' part alone, without a word). Theano 1.0.5 raised
    # DisconnectedInputError for the first four and the dot (oracle); its elementwise ops
    # dropped the undefined part.
    x, v, _, _ = xs
    t = theano.shared(np.ones(3))
    with pytest.raises(G.DisconnectedInputError, match="returned None from its R_op"):
        G.Rop(build(_NoRop()(x), x, t), x, v)


def test_rop_past_a_non_moving_undefined_op_is_zero(xs):
    # _NoRop applied to a variable that wrt does not reach moves nothing: the sum keeps x's
    # tangent (Theano 1.0.5 gives the same graph a value too).
    x, v, _, _ = xs
    y = T.dvector("y")
    out = G.Rop(_NoRop()(y).sum() + x, x, v)
    assert evaluate(out, {x: XV, v: XV * 2, y: XV}).tolist() == (XV * 2).tolist()
