"""Function inputs: ``In`` defaults, names and ``update`` state, ``f[name]``, implicit inputs,
``Param`` and the ``SymbolicInput`` / ``SymbolicOutput`` bases. Expected values were recorded
from Theano 1.0.5 running the same statements."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, Out, function, shared
from jitgraph.compile.io import Param, SymbolicInput, SymbolicOutput
from jitgraph.compile.function import UnusedInputError


def test_tutorial_default_values_and_names():
    x, y, w = T.dscalars("x", "y", "w")
    z = (x + y) * w
    f = function([x, In(y, value=1), In(w, value=2, name="w_by_name")], z)
    assert [f(33), f(33, 2), f(33, 0, 1), f(33, w_by_name=1), f(33, w_by_name=1, y=0)] == \
        [68.0, 70.0, 33.0, 34.0, 33.0]
    with pytest.raises(TypeError, match="'w'"):
        f(33, w=1)
    assert f["y"] == 1.0 and f["w_by_name"] == 2.0 and f[y] == 1.0
    with pytest.raises(TypeError, match="'w'"):
        f["w"]
    f["y"] = 5
    assert f(1) == 12.0
    f.value["y"] = 0
    assert f.value["y"] == 0.0 and f(1) == 2.0


def test_in_update_keeps_state_between_calls():
    s = T.lscalar("s")
    f = function([In(s, value=0, update=s + 1)], s)
    assert [int(f()) for _ in range(3)] == [0, 1, 2]
    assert int(f(10)) == 10 and int(f()) == 11  # a passed value is updated as well
    assert f["s"] == 12 and isinstance(f["s"], np.ndarray) and f[s] == 12
    f["s"] = 100
    assert int(f()) == 100 and f["s"] == 101


def test_in_update_of_an_array_and_mutable_default():
    v = T.dvector("v")
    f = function([In(v, value=np.zeros(2), update=v + 1)], v * 2)
    np.testing.assert_array_equal(f(), [0.0, 0.0])
    np.testing.assert_array_equal(f(), [2.0, 2.0])
    np.testing.assert_array_equal(f["v"], [2.0, 2.0])
    passed = np.zeros(2)
    np.testing.assert_array_equal(f(passed), [0.0, 0.0])
    np.testing.assert_array_equal(passed, [0.0, 0.0])
    np.testing.assert_array_equal(f["v"], [1.0, 1.0])


def test_in_update_without_value_stays_required():
    a = T.dscalar("a")
    f = function([In(a, update=a * 2)], a)
    assert f(3.0) == 3.0 and f(4.0) == 4.0 and f["a"] == 8.0
    with pytest.raises(TypeError, match="missing input 0 \\(a\\)"):
        f()


def test_in_update_with_other_inputs_shared_updates_and_pickling():
    x, y = T.dscalars("x", "y")
    f = function([In(x, value=1.0, update=x + y), y], x * 1)
    assert [f(y=2.0), f(y=3.0), f["x"]] == [1.0, 3.0, 6.0]
    w = shared(0.0, name="w")
    g = function([In(x, value=1.0, update=x * 2)], x, updates=[(w, w + x)])
    assert [g(), g(), g(), w.get_value()] == [1.0, 2.0, 4.0, 7.0]
    restored = pickle.loads(pickle.dumps(g))
    assert [restored(), g(), restored["x"], g["x"]] == [8.0, 8.0, 16.0, 16.0]


def test_in_update_and_positional_and_keyword_calls():
    s, x = T.lscalar("s"), T.dscalar("x")
    f = function([In(s, value=0, update=s + 1), x], s + x)
    assert [f(x=1.0), f(x=1.0), f(5, 1.0), f(x=0.0)] == [1.0, 2.0, 6.0, 6.0]


def test_input_checks():
    x, s = T.dscalar("x"), T.lscalar("s")
    with pytest.raises(ValueError, match="mutable"):
        In(x, mutable=True, borrow=False)
    with pytest.raises(TypeError, match="symbolic variable"):
        In(3)
    with pytest.raises(TypeError, match="symbolic expression"):
        In(x, update=3)
    with pytest.raises(TypeError, match="float64, scalar.*int64, scalar"):
        function([In(x, value=1.0, update=T.lscalar())], x)
    with pytest.raises(TypeError, match="int64, scalar.*float64, scalar"):
        function([In(s, value=0, update=s + 1.5)], s)
    with pytest.raises(TypeError, match="input 0 \\(s\\)"):
        function([In(s, value=0.5)], s)
    with pytest.raises(TypeError, match="shared variable"):
        function([shared(1.0, name="w")], x)


def test_implicit_input_takes_its_own_value():
    x, y = T.dscalars("x", "y")
    f = function([x, In(y, value=3.0, implicit=True)], x * 2 + y)
    assert f(1.0) == 5.0
    with pytest.raises(TypeError, match="implicit"):
        f(1.0, 2.0)


def test_attributes_and_printing():
    x, s = T.dscalar("x"), T.lscalar("s")
    inp = In(x)
    assert (inp.name, inp.value, inp.update, inp.mutable, inp.strict, inp.implicit,
            inp.borrow, inp.allow_downcast, inp.shared) == \
        ("x", None, None, False, False, False, None, None, False)
    updated = In(s, value=0, update=s + 1)
    assert updated.mutable is True and str(updated) == f"In(s -> {updated.update})"
    assert str(In(x)) == "In(x)" and repr(Out(x)) == "Out(x,False)"
    assert str(SymbolicOutput(x, borrow=True)) == "Out(x,True)"
    assert In(x, name="renamed").name == "renamed" and In(x, autoname=False).name is None


def test_symbolic_input_and_output_bases():
    x = T.dscalar("x")
    assert issubclass(In, SymbolicInput) and issubclass(Out, SymbolicOutput)
    base = SymbolicInput(x, update=x + 1)
    assert base.name == "x" and base.mutable is True and base.implicit is False
    assert not hasattr(base, "value")
    with pytest.raises(TypeError, match="SymbolicInput"):
        function([SymbolicInput(x)], x * 2)
    assert function([x], [SymbolicOutput(x * 2)])(3) == [6.0]
    assert function([x], SymbolicOutput(x * 2))(3) == 6.0


def test_param_is_the_deprecated_in():
    x = T.dscalar("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = Param(x, default=3.0, name="xx")
    assert [w.category for w in caught] == [UserWarning] and "In(" in str(caught[0].message)
    assert isinstance(p, In) and (p.name, p.value, p.mutable, p.borrow) == ("xx", 3.0, False,
                                                                           False)
    f = function([p], x * 2)
    assert f() == 6.0 and f(xx=4) == 8.0


def test_in_refuses_an_update_of_another_type():
    # Theano 1.0.5 (test_function's test_in_update_wrong_dtype): TypeError from In itself
    a, b = T.dscalar("a"), T.dvector("b")
    with pytest.raises(TypeError, match="update"):
        In(a, update=b)
    with pytest.raises(TypeError, match="update"):
        In(a, update=T.cast(a, "float32"))


def test_shared_refuses_a_symbolic_variable():
    # Theano 1.0.5 (test_shared's test_err_symbolic_variable)
    with pytest.raises(TypeError, match="symbolic variable"):
        shared(T.ones((2, 3)))
    assert shared(np.ones((2, 4))).get_value().shape == (2, 4)


def test_an_input_computed_from_other_variables_cuts_the_graph():
    """An explicit input may be an intermediate result: the graph is cut there, what it is
    computed from is neither needed nor updated (Theano 1.0.5 gives the same results)."""
    m = T.dmatrix("m")
    mt = m.T
    with pytest.raises(UnusedInputError):
        function([m, mt], mt * 2)
    f = function([m, mt], mt * 2, on_unused_input="ignore")
    np.testing.assert_array_equal(f(np.ones((2, 2)), np.eye(2)), [[2.0, 0.0], [0.0, 2.0]])
    counter = shared(0)
    counter.default_update = counter + 1
    doubled = 2 * counter
    g = function([doubled], doubled + 1)
    assert g(21) == 22 and counter.get_value() == 0
    weights = shared(np.ones((2, 3)))
    hidden = T.nnet.sigmoid(T.dot(weights, T.dvector("i")))
    assert function([hidden], hidden.sum() * 2)(np.ones(2)) == 4.0


def test_plain_update_values_take_the_variables_type():
    x = shared(0)
    function([], [], updates={x: 3})()
    assert x.get_value() == 3 and x.get_value().dtype == np.int64


def test_an_update_changing_broadcastable_dimensions_is_refused():
    """As in Theano 1.0.5: the next call would read a value of another type."""
    out = shared(np.ones((3, 3)), name="out")
    with pytest.raises(TypeError, match="unbroadcast"):
        function([], [], updates={out: out.sum().dimshuffle("x", "x")})
