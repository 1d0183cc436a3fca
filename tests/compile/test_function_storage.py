"""Theano's storage-level API of a compiled function (jitgraph.compile.function_storage): the
expected values were printed by Theano 1.0.5 for the same programs (theano-oracle)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T


def test_fn_runs_on_the_input_storage_and_leaves_outputs_there():
    x = T.dscalar("x")
    h = jitgraph.function([x], x * 2)
    h.input_storage[0].data = 3.0
    # Theano 1.0.5: [array(6.)] 6.0 3.0 <class 'numpy.ndarray'>
    assert h.fn() == [6.0]
    assert h.output_storage[0].data == 6.0 and h.input_storage[0].data == 3.0
    assert type(h.input_storage[0].data) is np.ndarray
    # the fast trick of Theano users: write the cell, run fn
    h.input_storage[0].storage[0] = np.array(5.0)
    h.fn()
    assert h.output_storage[0].storage[0] == 10.0
    assert h(1.0) == 2.0  # a normal call still works afterwards


def test_fn_applies_updates_and_needs_its_inputs():
    x = T.dscalar("x")
    s = jitgraph.shared(0.0, "s")
    f = jitgraph.function([x], updates=[(s, s + x)])
    with pytest.raises(TypeError, match="holds no value"):
        f.fn()
    f.input_storage[0].data = 2.0
    assert f.fn() == [] and s.get_value() == 2.0
    f.fn()
    assert s.get_value() == 4.0
    # Theano 1.0.5: a function without outputs returns [] (return_none False)
    assert f(1.0) == [] and f.return_none is False and s.get_value() == 5.0


def test_defaults_finder_and_container():
    x, y = T.dscalar("x"), T.dscalar("y")
    s = jitgraph.shared(0.0, "s")
    k = jitgraph.function([x, jitgraph.In(y, value=1.5)], x + y + s)
    # Theano 1.0.5: [(True, False, None), (False, True, 1.5), (False, False, None)]
    assert [row[:2] for row in k.defaults] == [(True, False), (False, True), (False, False)]
    assert k.defaults[1][2] == 1.5 and k.defaults[2][2] is None
    # keys: the three variables, positions 0-2 and the names 'x', 'y', 's'
    assert sorted(type(key).__name__ for key in k.finder) == \
        ["ScalarSharedVariable", "TensorVariable", "TensorVariable", "int", "int", "int",
         "str", "str", "str"]
    assert k.container["y"].value == 1.5 and k.container[x].value is None
    assert s in k.container and k.get_shared() == [s]
    assert k.container[2] is s.container and k.input_storage[2] is s.container
    k.container["y"].value = 4.0  # sets the default
    assert k(1.0) == 5.0
    with pytest.raises(TypeError, match="unknown input"):
        k.container["nothing"]
    assert k.inv_finder[k.input_storage[0]].variable is x


def test_shared_container_is_the_variables_value():
    s = jitgraph.shared(np.zeros(2), "s")
    assert s.container is s.container
    s.container.value = np.ones(2)
    np.testing.assert_array_equal(s.get_value(), np.ones(2))
    assert s.container.storage[0] is s.get_value(borrow=True)
    with pytest.raises(TypeError):
        s.container.value = np.ones((2, 2))
    t = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(t.container.value, np.ones(2))


def test_ambiguous_names_find_nothing_and_simple_attributes():
    a, b = T.dscalar("v"), T.dscalar("v")
    f = jitgraph.function([a, b], a - b)
    assert "v" not in f.container and f.inv_finder[f.container[0]].variable is a
    assert f.unpack_single and f.output_keys is None
    f.sync_shared()
    g = jitgraph.function([a], {"out": a * 3})
    assert g.output_keys == ["out"]


def test_in_value_container_shares_the_state_of_another_function():
    # In(s, value=f.container[s]): both functions read and update one value (Theano 1.0.5's
    # outputs recorded for this program)
    from jitgraph import In, function

    a = T.scalar()
    x, s = T.scalars("xs")
    f = function([x, In(a, value=1.0, name="a"),
                  In(s, value=0.0, update=s + a * x, mutable=True)], s + a * x)
    g = function([x, In(a, value=1.0, name="a"),
                  In(s, value=f.container[s], update=s - a * x, mutable=True)], s + a * x)
    assert (f(1, 2), f[s], g[s]) == (2.0, 2.0, 2.0)
    assert (g(1, 2), f[s], g[s]) == (4.0, 0.0, 0.0)
    h = function([x, In(a, value=1.0, name="a"), In(s, value=f.container[s])], s + a * x)
    assert (f(1, 2), h(1, 2), f[s], h[s]) == (2.0, 4.0, 2.0, 2.0)
    assert (h(1, 2), f[s], h[s]) == (4.0, 2.0, 2.0)  # h has no update: the state stays


def test_in_value_container_with_an_explicit_input():
    from jitgraph import In, function

    x, s = T.scalars("xs")
    inc = function([x, In(s, update=(s + x), value=10.0)], [])
    dec = function([x, In(s, update=(s - x), value=inc.container[s], implicit=False)], [])
    assert dec[s] is inc[s]
    inc[s] = 2
    assert dec[s] == 2
    dec(1)
    assert inc[s] == 1
    dec(1, 0)  # s given: the update of the given value becomes the state
    assert inc[s] == -1 and dec[s] == -1


def test_inputs_default_values_by_position():
    # Theano 1.0.5: f[k] and f.value[k] take the input's position too (test_deepcopy)
    from jitgraph import In, function

    a = T.scalar()
    x, s = T.scalars("xs")
    f = function([x, In(a, value=1.0, name="a"),
                  In(s, value=0.0, update=s + a * x, mutable=True)], s + a * x)
    assert (f[1], f[2], f.value[1]) == (1.0, 0.0, 1.0)
    f[1] = 3.0
    assert f["a"] == 3.0 and f(2) == 6.0
    with pytest.raises(TypeError, match="no input 3"):
        f[3]


def test_fn_storage_map_and_allow_gc():
    # Theano 1.0.5 (test_function_module's test_free): f.fn.allow_gc = False keeps the
    # results in f.fn.storage_map; free() empties them. Recorded: True, [2.], True True, True
    from jitgraph.graph.basic import Constant

    x = T.vector("x")
    f = jitgraph.function([x], x + 1)
    assert f.fn.allow_gc is True
    f([1.0])
    assert all(v[0] is None for k, v in f.fn.storage_map.items()
               if k in f.maker.fgraph.outputs)
    f.fn.allow_gc = False
    assert f([1.0]).tolist() == [2.0]
    kept = [v[0] for k, v in f.fn.storage_map.items() if not isinstance(k, Constant)]
    assert any(isinstance(v, np.ndarray) and v.tolist() == [2.0] for v in kept)
    f.free()
    assert all(v[0] is None for k, v in f.fn.storage_map.items() if not isinstance(k, Constant))
    f.fn.allow_gc = True
    f([1.0])
    assert all(v[0] is None for k, v in f.fn.storage_map.items()
               if k in f.maker.fgraph.outputs)


def test_fn_runs_the_program_n_calls_times():
    # Theano's cvm: f.fn(n_calls=n) runs n times, applying the updates each time
    s = jitgraph.shared(0.0, "s")
    f = jitgraph.function([], s * 2, updates=[(s, s + 1)])
    assert f.fn(n_calls=3) == [4.0] and s.get_value() == 3.0
    with pytest.raises(ValueError, match="at least once"):
        f.fn(n_calls=0)
