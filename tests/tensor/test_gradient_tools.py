"""``jitgraph.gradient`` as ``theano.gradient``: grad's contract (connectivity, errors and their
messages, null and disconnected gradients), the gradient-only ops, numeric checks and helpers.

Expected values and messages were recorded by running the same programs under Theano 1.0.5
(``/work/shared/tools/theano-oracle``).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.gradient as G
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply
from jitgraph.graph.evaluate import evaluate
from jitgraph.graph.op import Op
from jitgraph.graph.view_op import ViewOp

XV = np.array([1.5, -2.5, 3.0])
DISCONNECTED = ("grad method was asked to compute the gradient with respect to a variable that "
                "is not part of the computational graph of the cost, or is used only by a "
                "non-differentiable operator: x")


@pytest.fixture
def x():
    return T.dvector("x")


@pytest.fixture
def s():
    return T.dscalar("s")


def test_every_name_of_theano_gradient_exists():
    path = os.path.join(os.path.dirname(__file__), "..", "data", "theano_api.json")
    if os.path.exists(path):
        with open(path) as fh:
            names = json.load(fh)["theano.gradient"]
    else:  # the list as recorded from Theano 1.0.5
        names = G.__all__
    assert len(names) == 41
    assert [n for n in names if not hasattr(G, n)] == []
    assert isinstance(G.get_mode("FAST_RUN"), G.FAST_RUN.__class__)
    assert G.DebugMode.__name__ == "DebugMode" and G.Variable is theano.graph.basic.Variable


# ---------------------------------------------------------------------------------------------
# grad: arguments and messages

def test_grad_argument_errors(x, s):
    with pytest.raises(TypeError, match=r"^cost must be a scalar\.$"):
        T.grad(x * 2, x)
    with pytest.raises(TypeError, match=r"^Expected Variable, got 3 of type <class 'int'>$"):
        T.grad(s, 3)
    with pytest.raises(AssertionError, match=r"^cost and known_grads can't both be None\.$"):
        T.grad(None, s)
    with pytest.raises(TypeError, match="Elements of consider_constant must be variables, but "
                                        "got <class 'float'>"):
        T.grad(s * 2, s, consider_constant=[2.0])
    with pytest.raises(TypeError, match=r"output grads must be theano variables\.Ambiguous "
                                        r"whether <class 'numpy.ndarray'>"):
        T.grad(None, x, known_grads={x * 2: np.ones(2)})
    with pytest.raises(TypeError, match=r"Gradients must always be NullType, DisconnectedType, "
                                        r"or continuous, but grad was given a known_grad of type "
                                        r"TensorType\(int64, scalar\)"):
        T.grad(None, s, known_grads={s: T.lscalar()})


def test_disconnected_input_policies(x, s):
    with pytest.raises(G.DisconnectedInputError) as info:
        T.grad(s * 2, x)
    assert str(info.value).startswith(DISCONNECTED) and isinstance(info.value, ValueError)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = T.grad(s * 2, x, disconnected_inputs="warn")
    assert [str(w.message) for w in caught] == [DISCONNECTED]
    assert evaluate(g, {x: XV}).tolist() == [0.0, 0.0, 0.0]
    assert evaluate(T.grad(s * 2, x, disconnected_inputs="ignore"), {x: XV}).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match=r"^Invalid value for keyword 'disconnected_inputs', "
                                         r"valid values are 'ignore', 'warn' and 'raise'\.$"):
        T.grad(s * 2, x, disconnected_inputs="foo")
    # Theano checks the keyword only when an input is disconnected.
    assert evaluate(T.grad(s * 2, s, disconnected_inputs="foo"), {s: 1.0}) == 2.0


def test_return_disconnected(x, s):
    g_s, g_x = T.grad(s * 2, [s, x], disconnected_inputs="ignore", return_disconnected="None")
    assert g_x is None and evaluate(g_s, {s: 1.0}) == 2.0
    _, g_x = T.grad(s * 2, [s, x], disconnected_inputs="ignore",
                    return_disconnected="Disconnected")
    assert isinstance(g_x.type, G.DisconnectedType) and str(g_x) == "<DisconnectedType>"
    with pytest.raises(AssertionError):
        T.grad(s * 2, [s, x], disconnected_inputs="ignore", return_disconnected="foo")


# Theano 1.0.5: grad(sum(f(x)) * 1.0, x) is zeros for these (connected, zero derivative) ...
ZERO_GRADIENT = {"floor": T.floor, "round": T.round, "sgn": T.sgn, "gt": lambda v: T.gt(v, 0),
                 "int_div": lambda v: v // 2, "argmax": T.argmax, "isnan": T.isnan,
                 "cast_int": lambda v: T.cast(v, "int32"), "eq": lambda v: T.eq(v, v),
                 "switch_condition": lambda v: T.switch(v, 1.0, 2.0)}
# ... and raises DisconnectedInputError for these (no gradient path at all).
NO_PATH = {"ones_like": T.ones_like, "zeros_like": T.zeros_like, "shape": lambda v: v.shape[0],
           "alloc_shape": lambda v: T.alloc(1.0, v.shape[0]),
           "arange_length": lambda v: T.arange(v.shape[0]),
           "reshape_shape": lambda v: T.ones((3,)).reshape(v.shape),
           "index": lambda v: T.ones((3,))[T.cast(v[0], "int64")]}


@pytest.mark.parametrize("name", sorted(ZERO_GRADIENT))
def test_connected_but_zero_gradient(x, name):
    g = T.grad(T.sum(ZERO_GRADIENT[name](x)) * 1.0, x)
    assert evaluate(g, {x: XV}).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", sorted(NO_PATH))
def test_disconnected_through_shape_only_paths(x, name):
    with pytest.raises(G.DisconnectedInputError):
        T.grad(T.sum(NO_PATH[name](x)) * 1.0, x)


def test_integer_cost_and_wrt(s):
    i = T.lscalar("i")
    g = T.grad(i * 2, i)
    assert g.type == T.dscalar().type and evaluate(g, {i: 3}) == 0.0
    assert evaluate(T.grad(T.cast(s, "int64") * 2, s), {s: 3.0}) == 0.0
    assert evaluate(T.grad(T.gt(s, 0), s), {s: 3.0}) == 0.0


def test_known_grads_and_cost(x, s):
    v = T.dvector("v")
    g = T.grad((x * 3).sum(), x, known_grads={x * 2: v})
    assert evaluate(g, {x: [1.0, 2.0], v: [10.0, 20.0]}).tolist() == [23.0, 43.0]
    assert evaluate(T.grad(s * 2, s, known_grads={s * 2: T.constant(5.0)}), {s: 1.0}) == 12.0
    c = s * 3  # a known gradient for the cost replaces its seed of 1
    assert evaluate(T.grad(c, s, known_grads={c: T.constant(5.0)}), {}) == 15.0


def test_grad_forms_and_names(s):
    assert isinstance(T.grad(s * 2, (s,)), tuple) and isinstance(T.grad(s * 2, [s]), list)
    c = s * 2
    c.name = "c"
    assert T.grad(c, s).name == "(dc/ds)" and T.grad(c * s, s).name is None
    assert evaluate(T.grad(s * 2, s, consider_constant=[s]), {s: 1.0}) == 2.0
    t = s * s
    assert evaluate(T.grad(t * s, s, consider_constant=[t]), {s: 3.0}) == 9.0


# ---------------------------------------------------------------------------------------------
# Null gradients

def test_null_gradients(x, s):
    message = ("tensor.grad encountered a NaN. This variable is Null because the grad method for "
               "input 0 (s) of the UndefinedGrad op is mathematically undefined. ")
    with pytest.raises(G.NullTypeGradError) as info:
        T.grad(G.undefined_grad(s) * 2 + s, s)
    assert str(info.value) == message and isinstance(info.value, TypeError)
    g = T.grad(G.undefined_grad(s) * 2, s, null_gradients="return")
    assert isinstance(g.type, G.NullType) and str(g) == "<NullType>"
    # the undefined path does not touch x
    g_x = T.grad(G.undefined_grad(s) * x.sum(), x)
    assert evaluate(g_x, {s: 2.0, x: XV}).tolist() == [2.0, 2.0, 2.0]


class _NotImplementedGrad(Op):
    __props__ = ()

    def make_node(self, v):
        return Apply(self, [v], [v.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2

    def grad(self, inputs, output_grads):
        return [G.grad_not_implemented(self, 0, inputs[0], "sorry")]


def test_grad_not_implemented_and_undefined_messages(x, s):
    assert G.grad_not_implemented(T.exp(s).owner.op, 0, s, "why").type.why_null == (
        "This variable is Null because the grad method for input 0 (s) of the "
        "Elemwise{exp,no_inplace} op is not implemented. why")
    assert G.grad_undefined(T.exp(s).owner.op, 0, s).type.why_null == (
        "This variable is Null because the grad method for input 0 (s) of the "
        "Elemwise{exp,no_inplace} op is mathematically undefined. ")
    with pytest.raises(G.NullTypeGradError, match=r"of the _NotImplementedGrad op is not "
                                                  r"implemented\. sorry$"):
        T.grad(_NotImplementedGrad()(x).sum() * 0 + x.sum(), x)


def test_placeholder_types():
    with pytest.raises(ValueError, match="^No values may be assigned to a NullType$"):
        G.NullType().filter(1)
    with pytest.raises(AssertionError, match="^If you're assigning to a DisconnectedType"):
        G.DisconnectedType().filter(1)
    assert G.NullType("a") == G.NullType("b") and G.NullType().why_null == "(no explanation given)"
    assert str(G.NullType("a")) == "NullType" and str(G.DisconnectedType()) == "DisconnectedType"
    assert str(G.disconnected_type()) == "<DisconnectedType>" and G.null_type("n").name == "n"


# ---------------------------------------------------------------------------------------------
# Gradient-only ops

def test_gradient_blocking_ops_values(x, s):
    def g(expr, **values):
        return evaluate(T.grad(expr, x), {x: XV, **values}).tolist()

    assert g((G.zero_grad(x) * x).sum()) == XV.tolist()
    assert g((G.consider_constant(x) * x).sum()) == XV.tolist()
    assert g((G.disconnected_grad(x) * x).sum()) == XV.tolist()
    assert g((G.grad_clip(x, -1, 1) * x * 10).sum()) == [16.0, -26.0, 31.0]
    assert g((G.grad_scale(x, 3) * x).sum()) == [6.0, -10.0, 12.0]
    assert evaluate(T.grad((G.grad_scale(x, s) * x).sum(), x), {x: XV, s: 2.0}).tolist() == [
        4.5, -7.5, 9.0]
    assert g(G.zero_grad(x).sum()) == [0.0, 0.0, 0.0]
    with pytest.raises(G.DisconnectedInputError):
        T.grad(G.disconnected_grad(x).sum(), x)
    with pytest.raises(AssertionError):
        G.grad_clip(x, 1, -1)


def test_gradient_blocking_ops_print_as_theano(x):
    names = [str(f(x)) for f in (G.zero_grad, G.disconnected_grad, G.consider_constant,
                                  G.undefined_grad)]
    assert names == ["ZeroGrad.0", "DisconnectedGrad.0", "ConsiderConstant.0", "UndefinedGrad.0"]
    assert str(G.grad_clip(x, -1, 1)) == "GradClip.0" and str(G.grad_scale(x, 2)) == "GradScale.0"
    assert G.GradClip(-1, 1) == G.GradClip(-1, 1) and G.GradScale(2).multiplier == 2
    assert G.disconnected_grad_.connection_pattern(G.disconnected_grad(x).owner) == [[False]]


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_compiled_functions_drop_gradient_only_ops(x, mode):
    outs = [G.zero_grad(x) * 2, G.grad_clip(x, -1, 1) + G.disconnected_grad(x) * G.grad_scale(x, 2)
            + G.consider_constant(x) + G.undefined_grad(x) + ViewOp()(x)]
    f = theano.function([x], outs, mode=mode)
    assert not any(isinstance(n.op, ViewOp) for n in f.maker.fgraph.toposort())
    a, b = f(np.array([1.0, 2.0]))
    assert a.tolist() == [2.0, 4.0] and b.tolist() == [5.0, 12.0]


# ---------------------------------------------------------------------------------------------
# Numeric checks

def _forward(f, pt, **kw):
    return G.numeric_grad(f, pt, **kw).gf


def test_numeric_grad_matches_theano():
    two = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    ng = G.numeric_grad(lambda a, b: (a * b).sum(), two)
    np.testing.assert_array_equal(np.array(ng.gf), [[2.9999999995311555, 3.9999999934536845],
                                                    [0.999999993922529, 2.0000000056086265]])
    def sq(a):
        return (a ** 2).sum()

    np.testing.assert_array_equal(_forward(sq, np.array([1.0, 2.0])),
                                  [2.0000001033082526, 4.000000091153311])
    g32 = _forward(sq, np.array([1.0, 2.0], dtype="float32"))
    assert g32.dtype == np.float32
    np.testing.assert_array_equal(g32, np.float32([2.001126527786255, 3.9990742206573486]))
    g0 = _forward(sq, np.float64(3.0))
    assert g0.shape == () and float(g0) == pytest.approx(6.00000009, abs=1e-8)
    np.testing.assert_allclose(_forward(sq, np.array([1.0, 2.0]), eps=0.1), [2.1, 4.1])
    mixed = _forward(lambda a, b: (a * b).sum(), [two[0].astype("float32"), two[1]])
    np.testing.assert_array_equal(np.array(mixed), [[2.9999999999989297, 4.000000000002521],
                                                    [0.9999999999976695, 2.0000000000012603]])
    assert ng.max_err([np.array([3.0, 4.1]), np.array([1.0, 2.0])], 1e-4, 1e-4) == (
        0, 1, 0.10000000654631513, 0.012345679830510351)
    assert ng.max_err([np.array([3.0, 4.0]), np.array([1.0, 2.0])], 1e-4, 1e-4)[:2] == (1, 0)
    abs_err, rel_err = G.numeric_grad.abs_rel_err(np.array([1.0, 2.0, 0.0]),
                                                  np.array([1.1, 2.0, 0.0]))
    np.testing.assert_allclose(abs_err, [0.1, 0, 0]) and np.testing.assert_allclose(
        rel_err, [0.04761904761904766, 0, 0])
    with pytest.raises(ValueError, match="argument element 0 has wrong shape"):
        ng.max_err([np.ones(3), np.ones(2)], 1e-4, 1e-4)
    with pytest.raises(ValueError) as info:
        ng.max_err([np.ones(2)], 1e-4, 1e-4)
    assert info.value.args == ("argument has wrong number of elements", 1)
    assert G.numeric_grad.type_eps["float32"] == 3e-4


class _WrongGrad(Op):
    __props__ = ()

    def make_node(self, v):
        return Apply(self, [v], [v.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 3]


def test_verify_grad_reports_like_theano():
    G.verify_grad(lambda v: v * 2, [np.ones(3)], rng=np.random.RandomState(1))
    with pytest.raises(G.GradientError) as info:
        G.verify_grad(lambda v: _WrongGrad()(v), [np.array([1.0, 2.0])],
                      rng=np.random.RandomState(0))
    e = info.value
    # Theano (forward differences): position 1 of argument 0, val1 = 3.6455680991172588, val2 =
    # 2.4303787249380093; both positions are off by the same relative error, 0.2.
    assert (e.arg, e.shape) == (0, (2,)) and e.val1 / e.val2 == pytest.approx(1.5)
    projection = np.random.RandomState(0).rand(2) + 0.5  # the same projection as Theano's
    assert e.val1 == pytest.approx(3 * projection[e.err_pos])
    assert e.rel_err == pytest.approx(0.2) and e.abs_tol == 1e-4
    assert str(e).startswith("GradientError: numeric gradient and analytic gradient exceed "
                             "tolerance:")
    with pytest.raises(TypeError, match='input 0 has dtype "int64"'):
        G.verify_grad(lambda v: v * 2, [np.ones(3, dtype="int64")])
    with pytest.raises(NotImplementedError, match="multiple outputs"):
        G.verify_grad(lambda v: [v, v], [np.ones(3)])


# ---------------------------------------------------------------------------------------------
# Helpers

def test_format_as():
    assert G.format_as(True, False, [1]) == [1] and G.format_as(False, True, [1, 2]) == (1, 2)
    assert G.format_as(False, False, [3]) == 3 and G.format_as(False, False, 5) == 5
    assert G.format_as(True, False, (1, 2)) == [1, 2]
    with pytest.raises(AssertionError, match="^Both flags cannot be simultaneously True$"):
        G.format_as(True, True, [1])
    with pytest.raises(AssertionError, match="^Wrong arguments. Expected a one element list$"):
        G.format_as(False, False, [1, 2])


def test_get_debug_values(x):
    assert G.get_debug_values(x) == []
    with theano.config.change_flags(compute_test_value="raise"):
        x.tag.test_value = np.ones(2)
        values = G.get_debug_values(x, x * 2)
        assert len(values) == 1 and values[0][1].tolist() == [2.0, 2.0]
        assert G.get_debug_values(x)[0].tolist() == [1.0, 1.0]
        with pytest.raises(ValueError, match=r"Argument 0 \('y'\) has no test value"):
            G.get_debug_values(T.dvector("y"))
    with theano.config.change_flags(compute_test_value="ignore"):
        assert G.get_debug_values(T.dvector("y")) == []


def test_mode_not_slow():
    from jitgraph.compile.debugmode import DebugMode

    fast = G.mode_not_slow("FAST_COMPILE")
    assert not isinstance(fast, DebugMode) and fast.optimizer == G.get_mode("FAST_RUN").optimizer
    assert not isinstance(G.mode_not_slow("DebugMode"), DebugMode)
    assert G.mode_not_slow(None).linker is not None


def test_verify_grad_sums_a_float32_projection_in_float64():
    # Theano's test_bn checks batch normalisation's gradient on float32 inputs; summed in
    # float32, the projection of 200 outputs rounded at ~4e-5 and central differences turned
    # that into an error of 0.0147 > 0.01 at one entry (a false GradientError)
    from jitgraph.tensor.nnet import bn

    np.random.seed(1234)
    X, Gm, B, M, V = (1 + np.random.random(s).astype("float32")
                     for s in ([10, 20], [20], [20], [20], [20]))
    np.random.seed(666)  # the seed of Theano's unittest_tools
    G.verify_grad(lambda *a: bn.batch_normalization(*a, mode="low_mem"), [X, Gm, B, M, V],
                  rng=np.random)


def test_known_grads_override_what_flows_back_from_the_cost():
    # Theano 1.0.5 (oracle): the gradient given for y is y's gradient; the cost's (and another
    # known gradient's) contribution to y is not added: [20, 40] in all three cases
    from collections import OrderedDict

    import jitgraph
    import jitgraph.tensor as T

    x, g = T.dvector("x"), T.dvector("g")
    y = 2 * x
    z = T.exp(y)
    cases = [(y.sum(), {y: g}), (z.sum(), {y: g}), (None, OrderedDict([(y, g), (z, g)]))]
    for cost, known in cases:
        f = jitgraph.function([x, g], jitgraph.grad(cost, wrt=x, known_grads=known),
                              on_unused_input="ignore")
        assert f([0.0, 0.0], [10.0, 20.0]).tolist() == [20.0, 40.0]


def test_inner_graph_gradients_add_the_known_gradients_of_dependent_outputs():
    # an OpFromGraph and a scan step whose second output is computed from the first: the
    # gradient of the first output's input adds both paths (d(a + b)/dx = 2 + 6 = 8)
    import jitgraph
    import jitgraph.tensor as T

    x, u = T.dvector("x"), T.dvector("u")
    y = 2 * u
    ofg = jitgraph.OpFromGraph([u], [y, 3 * y])
    a, b = ofg(x)
    f = jitgraph.function([x], jitgraph.grad(a.sum() + b.sum(), x))
    assert f([1.0, 2.0]).tolist() == [8.0, 8.0]
    (s1, s2), _ = jitgraph.scan(lambda v: [2 * v, 6 * v], sequences=[x])
    g = jitgraph.function([x], jitgraph.grad(s1.sum() + s2.sum(), x))
    assert g([1.0, 2.0]).tolist() == [8.0, 8.0]
