"""What Theano 1.0.5's ``tensor/tests/test_basic.py`` checks beyond values: which inputs are
refused, what constant analysis sees through, Theano's calling conventions. Values and errors
recorded under Theano 1.0.5 (tools/theano-oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.linker import PerformLinker
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph, MissingInputError
from jitgraph.graph.op import Op
from jitgraph.scalar.bridge import ScalarFromTensor
from jitgraph.scalar_expr.errors import ComplexError
from jitgraph.tensor.core import basic as B
from jitgraph.tensor.core.assertion import Assert


# -- values jitgraph used to change without a word ------------------------------------------

@pytest.mark.parametrize("value", [2 ** 64, 2 ** 64 + 1, -2 ** 63 - 1])
def test_a_python_int_no_integer_dtype_holds_is_refused(value):
    # Theano 1.0.5: OverflowError. (jitgraph made 2**64 + 1 the float64 2**64.)
    with pytest.raises(OverflowError, match="fits no integer dtype"):
        T.constant(value)
    with pytest.raises(OverflowError):
        T.dvector() + value


def test_the_widest_python_ints_keep_an_integer_dtype():
    assert T.constant(2 ** 63).dtype == "uint64"  # Theano 1.0.5
    assert T.constant(2 ** 64 - 1).data == 2 ** 64 - 1
    assert T.constant(-2 ** 63).dtype == "int64"


def test_extract_constant_gives_a_new_array_not_a_variable():
    # Theano 1.0.5: array(2, dtype=int8); a variable there made `extract_constant(x) == 2`
    # a symbolic comparison, false as a condition
    folded = B.extract_constant(T.constant(1) + 1)
    assert isinstance(folded, np.ndarray) and folded.dtype == "int8" and folded == 2
    c = T.constant(3)
    value = B.extract_constant(c)
    value += 1
    assert B.extract_constant(c) == 3 and c.data == 3


# -- inputs Theano refuses -------------------------------------------------------------------

@pytest.mark.parametrize("fn", [T.ceil, T.floor, T.trunc, T.round, T.sgn, T.erfc,
                                lambda z: T.clip(z, T.scalar(), T.scalar())])
def test_functions_of_real_numbers_refuse_complex_inputs(fn):
    with pytest.raises(TypeError, match="complex inputs are not supported"):
        fn(T.zvector())


def test_percent_refuses_complex_numbers_but_mod_takes_them():
    with pytest.raises(ComplexError):
        T.vector(dtype="complex64") % 5
    assert T.mod(T.vector(dtype="complex64"), 5).dtype == "complex64"  # as in Theano 1.0.5


def test_abs_gradient_of_complex_numbers_is_z_over_modulus():
    # (Theano 1.0.5 refuses this gradient: "returned an integer-valued variable")
    z = T.zvector()
    g = jitgraph.function([z], T.grad(abs(z).sum(), z))(np.array([3 + 4j, 0j, -2j]))
    np.testing.assert_allclose(g, [0.6 + 0.8j, 0, -1j])


def test_tile_refuses_non_integer_repeats_and_an_ndim_below_the_input_s():
    for reps in (2.5, T.fscalar()):
        with pytest.raises(ValueError, match="reps must be integers"):
            T.tile(T.vector(), reps)
    for reps in ([2, 3, 4], T.iscalar(), T.ivector()):  # Theano 1.0.5: ValueError
        with pytest.raises(ValueError, match="smaller than"):
            T.tile(T.tensor3(), reps, 2)


def test_tile_checks_a_repeat_vector_longer_than_ndim_when_it_runs():
    x, reps = T.matrix(), T.ivector()
    f = jitgraph.function([x, reps], T.tile(x, reps, 3))
    assert f(np.ones((2, 2)), [2, 3]).shape == f(np.ones((2, 2)), [1, 2, 3]).shape == (1, 4, 6)
    with pytest.raises(AssertionError, match="more than ndim=3"):  # Theano 1.0.5: too
        f(np.ones((2, 2)), [2, 3, 4, 5])


def test_dimshuffle_names_a_repeated_dimension():
    with pytest.raises(ValueError, match="may not appear twice"):
        T.DimShuffle((False,), (0, 0))(T.vector())


class _DefaultOutputOp(Op):
    def __init__(self, default_output):
        self.default_output = default_output

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


@pytest.mark.parametrize("default_output", [-1, 2, [0, 1]])
def test_a_default_output_out_of_range_is_an_attribute_error(default_output):
    node = _DefaultOutputOp(default_output).make_node(T.scalar())
    with pytest.raises(AttributeError, match="default_output"):
        T.as_tensor_variable(node)


# -- constant analysis -----------------------------------------------------------------------

def test_constant_analysis_sees_through_a_true_assert_and_scalar_from_tensor():
    c = T.constant(2)
    assert B.get_scalar_constant_value(Assert()(c, c > 1)) == 2  # Theano 1.0.5: 2
    with pytest.raises(B.NotScalarConstantError):
        B.get_scalar_constant_value(Assert()(c, c > 2))
    with pytest.raises(B.NotScalarConstantError):
        B.get_scalar_constant_value(Assert()(c, c > T.scalar()))
    s = jitgraph.shared(np.ones((1, 1)), broadcastable=(True, True))
    assert B.get_scalar_constant_value(ScalarFromTensor()(s.shape[0])) == 1


def test_an_empty_array_is_an_empty_constant_error():
    with pytest.raises(B.EmptyConstantError):
        B.get_scalar_constant_value(np.array([]))
    with pytest.raises(B.EmptyConstantError):  # and again, from the constant's cached answer
        for _ in range(2):
            try:
                B.get_scalar_constant_value(T.constant(np.zeros(0)))
            except B.EmptyConstantError:
                pass
        B.get_scalar_constant_value(T.constant(np.zeros(0)))


def test_assert_checks_its_conditions_when_the_function_runs():
    v = T.dvector()
    f = jitgraph.function([v], Assert("too long")(v, v.size < 3))
    assert f(np.ones(2)).tolist() == [1.0, 1.0]
    with pytest.raises(AssertionError, match="too long"):
        f(np.ones(3))
    g = jitgraph.function([v], T.grad(Assert()(v, v.size < 3).sum(), v))
    assert g(np.ones(2)).tolist() == [1.0, 1.0]


# -- Theano's calling conventions ------------------------------------------------------------

def test_values_eq_approx_needs_no_type():
    a = np.array([-np.inf, -1, 0, 1, np.inf, np.nan])
    assert T.TensorType.values_eq_approx(a, a) and T.TensorType.values_eq(a, a)
    assert not T.TensorType.values_eq_approx(a, np.array([np.inf, -1, 0, 1, np.inf, np.nan]))


def test_isnan_of_integers_is_false_without_an_elementwise_op():
    for dtype in ("int32", "bool"):
        x = T.matrix(dtype=dtype)
        for fn in (T.isnan, T.isinf):
            assert not isinstance(fn(x).owner.op, T.Elemwise) and fn(x).dtype == "bool"
        assert isinstance(T.isnan_(x).owner.op, T.Elemwise)
        f = jitgraph.function([x], [T.isnan(x), T.isnan_(x)], allow_input_downcast=True)
        assert [r.tolist() for r in f([[0, 1, 1]])] == [[[False] * 3]] * 2
    assert isinstance(T.isnan(T.matrix()).owner.op, T.Elemwise)


def test_transpose_is_a_new_variable_named_after_its_input():
    x1 = T.dvector("x1")
    t = T.transpose(x1)
    assert t is not x1 and t.name == "x1.T" and x1.name == "x1"
    assert T.transpose(T.dmatrix("x2")).name == "x2.T" and T.transpose(T.dmatrix()).name is None
    assert jitgraph.function([x1], t)(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]


def test_unbroadcast_undoes_addbroadcast():
    x = T.matrix()
    assert T.unbroadcast(T.addbroadcast(x, 0), 0) is x
    assert T.addbroadcast(T.unbroadcast(x, 0), 0) is not x
    assert T.unbroadcast(T.addbroadcast(x, 0, 1), 0).broadcastable == (False, True)
    # two unbroadcasts are one, and an addbroadcast undoes one (Theano 1.0.5: all True)
    x = T.TensorType("float64", (True, True))()
    assert T.unbroadcast(T.unbroadcast(x, 1), 0).owner.inputs[0] is x
    assert T.addbroadcast(T.unbroadcast(x, 1), 0).owner.inputs[0] is x
    assert T.addbroadcast(T.unbroadcast(x, 0), 0) is x
    assert jitgraph.function([x], T.unbroadcast(T.unbroadcast(x, 1), 0))(
        np.ones((1, 1))).tolist() == [[1.0]]


def test_reshape_to_a_scalar_shape_with_ndim():
    m = T.dmatrix()
    f = jitgraph.function([m], T.reshape(m, T.as_tensor_variable(6), ndim=1))
    assert f(np.arange(6.0).reshape(2, 3).T).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_hessian_of_a_cost_linear_in_its_inputs_is_zero():
    a, b = T.dvector("a"), T.dvector("b")
    ha, hb = T.hessian(T.stack([a, b]).sum(), [a, b])
    out = jitgraph.function([a, b], [ha, hb])(np.arange(3.0), np.ones(3))
    assert [h.tolist() for h in out] == [[[0.0] * 3] * 3] * 2  # Theano 1.0.5


def test_builtin_divmod_and_a_linker_run_on_a_graph():
    x, y = T.fscalars("xy")
    d, r = divmod(x, y)
    fn = PerformLinker().accept(FunctionGraph([x, y], [d, r])).make_function()
    # Theano 1.0.5: Python's sign rules
    assert [[float(v) for v in fn(p, q)] for p, q in [(-5, 3), (5, -3), (-5, -3)]] == [
        [-2.0, 1.0], [-2.0, -1.0], [1.0, -2.0]]
    i = T.ivector()
    out = jitgraph.function([i], divmod(i, 3))(np.array([-7, 7], dtype="int32"))
    assert [v.tolist() for v in out] == [[-3, 2], [2, 1]]


def test_default_takes_none_for_no_value():
    x, y = T.scalars("xy")
    f = jitgraph.function([x, y], T.default(x, y))
    assert (f(None, 2), f(1, None), f(1, 2)) == (2.0, 1.0, 1.0)  # Theano 1.0.5
    with pytest.raises(TypeError):
        jitgraph.function([x], x + 1)(None)
    # an input's state set to None, then replaced by its update (Theano 1.0.5: 15, 4.8, 7)
    new_x = y + T.default(x, 3.8)
    g = jitgraph.function([y, jitgraph.In(x, update=new_x, value=12.0)], new_x)
    assert g(3) == 15.0
    g["x"] = None
    np.testing.assert_allclose([g(1), g(np.asarray(2.2))], [4.8, 7.0])


def test_an_input_computed_from_other_variables_cuts_the_graph_there():
    x, y = T.matrices("x", "y")
    z = x + y
    ones = np.ones((2, 2))
    # Theano 1.0.5: 2s, 3s, then a missing input (x is not given)
    assert jitgraph.function([z], z * 2)(ones).tolist() == [[2.0, 2.0]] * 2
    assert jitgraph.function([z, x], z * x)(ones, 3 * ones).tolist() == [[3.0, 3.0]] * 2
    with pytest.raises(MissingInputError):
        jitgraph.function([z], z * x)
    assert (z * 2).eval({z: ones}).tolist() == [[2.0, 2.0]] * 2
    w = x.dot(y)
    assert x.dot(w).eval({x: np.eye(2), w: ones}).tolist() == [[1.0, 1.0]] * 2


def test_erf_of_complex_numbers():
    z = T.zvector()
    out = jitgraph.function([z], T.erf(z))(np.array([1 + 1j, -0.5 + 2j]))
    # Theano 1.0.5 (SciPy's complex erf)
    np.testing.assert_allclose(out, [1.31615128 + 0.19045347j, -13.83998567 - 1.0429925j],
                               rtol=1e-8)


def test_a_python_bool_is_not_a_tensor():
    # Theano 1.0.5 refuses it everywhere (often it is `x == y` on variables, which Python
    # answers by identity); numpy's bools are tensors
    for build in (lambda: T.as_tensor_variable(True), lambda: T.eq(T.vector(), False),
                  lambda: T.switch(True, T.vector(), T.vector())):
        with pytest.raises(TypeError, match="Python bool"):
            build()
    assert T.as_tensor_variable(np.bool_(True)).dtype == "bool"
    assert T.as_tensor_variable([True, False]).dtype == "bool"
