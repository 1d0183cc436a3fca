"""``Function.copy(share_memory, swap, delete_updates, name, profile)`` as Theano's tutorial
("Copying functions") uses it. Expected values were recorded from Theano 1.0.5 running the same
statements; as there, a copy returns its outputs as a list."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, function, shared
from jitgraph.compile import graph_cache
from jitgraph.compile.function import FunctionMaker
from jitgraph.compile.mode import get_mode
from jitgraph.compile.profiling import ProfileStats


def _accumulator():
    state = shared(0)
    inc = T.iscalar("inc")
    return state, function([inc], state, updates=[(state, state + inc)])


def test_tutorial_accumulator():
    state, accumulator = _accumulator()
    assert accumulator(10) == 0 and state.get_value() == 10
    new_state = shared(0)
    new_accumulator = accumulator.copy(swap={state: new_state})
    out = new_accumulator(100)
    assert isinstance(out, list) and out == [0]
    assert new_state.get_value() == 100 and state.get_value() == 10
    null_accumulator = accumulator.copy(delete_updates=True)
    assert null_accumulator(9000) == [10] and state.get_value() == 10


def test_copies_share_the_shared_variables_unless_swapped():
    state, accumulator = _accumulator()
    accumulator(10)
    plain = accumulator.copy()
    assert plain(1) == [10] and state.get_value() == 11
    assert plain.name == f"{accumulator.name} copy"
    shared_memory = accumulator.copy(share_memory=True, name="sm")
    assert shared_memory(1) == [11] and state.get_value() == 12 and shared_memory.name == "sm"
    assert accumulator(1) == 12 and state.get_value() == 13  # the original still unpacks


def test_share_memory_decides_whether_the_program_is_shared():
    x = T.dvector("x")
    f = function([x], x * 2)
    same = f.copy(share_memory=True)
    own = f.copy()
    assert same.maker.program is f.maker.program
    assert own.maker.program is not f.maker.program
    a, b, c = f(np.ones(2)), same(np.ones(2) * 3), own(np.ones(2) * 5)
    np.testing.assert_array_equal(a, [2.0, 2.0])
    np.testing.assert_array_equal(b[0], [6.0, 6.0])
    np.testing.assert_array_equal(c[0], [10.0, 10.0])


def test_swap_a_shared_variable_that_is_only_read():
    w, x = shared(np.ones(2), name="w"), T.dvector("x")
    f = function([x], (x * w).sum())
    w2 = shared(np.arange(2.0), name="w2")
    g = f.copy(swap={w: w2})
    assert g(np.ones(2)) == [1.0] and f(np.ones(2)) == 2.0
    w2.set_value(np.array([5.0, 5.0]))
    assert g(np.ones(2)) == [10.0]


def test_swap_errors():
    state, accumulator = _accumulator()
    with pytest.raises(TypeError, match="int64.*float64"):
        accumulator.copy(swap={state: shared(0.0)})
    with pytest.raises(TypeError, match="keys must be shared variables"):
        accumulator.copy(swap={T.iscalar(): shared(0)})
    with pytest.raises(ValueError, match="not used by this function"):
        accumulator.copy(swap={shared(1): shared(2)})


def test_multiple_outputs():
    x = T.dvector("x")
    f = function([x], [x * 2, x.sum()])
    for g in (f.copy(), f.copy(share_memory=True)):
        doubled, total = g(np.ones(2))
        np.testing.assert_array_equal(doubled, [2.0, 2.0])
        assert total == 2.0


def test_delete_updates_drops_default_updates_and_keeps_swaps():
    d = shared(0, name="d")
    d.default_update = d + 1
    f = function([], d * 1)
    g = f.copy(delete_updates=True)
    assert g() == [0] and d.get_value() == 0
    assert f() == 0 and d.get_value() == 1
    state, accumulator = _accumulator()
    new_state = shared(100)
    h = accumulator.copy(swap={state: new_state}, delete_updates=True)
    assert h(5) == [100] and new_state.get_value() == 100


def test_delete_updates_undoes_in_place_updates():
    # w - lr * g may be computed in w's own storage because the update replaces w; the copy
    # without updates must leave w alone.
    x = T.dvector("x")
    w = shared(np.arange(3.0), name="w")
    f = function([x], (w * x).sum(), updates=[(w, w - 0.5 * x)], mode="FAST_RUN")
    g = f.copy(delete_updates=True)
    for _ in range(3):
        assert g(np.ones(3)) == [3.0]
    np.testing.assert_array_equal(w.get_value(), [0.0, 1.0, 2.0])


def test_copy_of_a_graph_from_the_compiledir(jitgraph_rewrites_only):
    # The second build of an identical graph is loaded from the graph cache: its variables are
    # not the ones the user holds, which copy(swap=...) used to look up ("... is not in list").
    state, _ = _accumulator()
    inc = T.iscalar("inc")
    makers = [FunctionMaker([inc], state, get_mode(None), updates=[(state, state + inc)])
              for _ in range(2)]
    assert makers[1].graph_from_cache or not graph_cache.enabled()
    fn = makers[1].create()
    new_state = shared(5)
    copied = fn.copy(swap={state: new_state})
    assert copied(2) == [5] and new_state.get_value() == 7 and state.get_value() == 0


def test_pickled_copies():
    state, accumulator = _accumulator()
    new_state = shared(0)
    swapped = accumulator.copy(swap={state: new_state})
    swapped(3)
    restored = pickle.loads(pickle.dumps((swapped, new_state, state)))
    fn, fn_new_state, fn_state = restored
    assert fn(4) == [3]
    assert fn_new_state.get_value() == 7 and fn_state.get_value() == 0
    assert new_state.get_value() == 3  # the original copy's state did not move
    null = pickle.loads(pickle.dumps(accumulator.copy(delete_updates=True)))
    assert null(1) == [0]


def test_in_update_state_of_copies():
    # Theano 1.0.5: copies start from the value given to In, and do not share its state:
    # copy -> [0], then f() = 2; delete_updates -> [0], [0]; share_memory -> [0], [1]
    s = T.lscalar("s")
    f = function([In(s, value=0, update=s + 1)], s)
    f()
    f()
    g = f.copy()
    assert g() == [0] and f() == 2 and g["s"] == 1 and f["s"] == 3
    null = f.copy(delete_updates=True)
    assert null() == [0] and null() == [0] and null["s"] == 0
    sm = f.copy(share_memory=True)
    assert sm() == [0] and sm() == [1] and sm["s"] == 2 and f["s"] == 3


def test_copy_does_not_keep_trust_input_and_takes_profile():
    x = T.dvector("x")
    f = function([x], x * 2)
    f.trust_input = True
    assert f.copy().trust_input is False
    stats = ProfileStats(message="copy", atexit_print=False)
    profiled = f.copy(profile=stats, name="p")
    profiled(np.ones(2))
    profiled(np.ones(2))
    assert profiled.profile is stats and stats.fct_callcount + stats.ignored_calls == 2
    assert f.profile is None
