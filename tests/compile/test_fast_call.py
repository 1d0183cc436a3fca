"""The generated call path of a compiled function (jitgraph.compile.fast_call) returns what the
generic path returns, applies the same updates, and hands every case it does not handle
(keywords, defaults, conversions, bad input, profiling) to the generic path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.io import In


def _uses_fast_path(f) -> bool:
    return f._call != f.generic_call


def test_outputs_and_updates_equal_the_generic_path():
    x = T.dmatrix("x")
    s = T.dscalar("s")
    acc = jitgraph.shared(np.zeros(3), name="acc")
    outs = [x.sum(axis=0) * s, x + 1]
    fast = jitgraph.function([x, s], outs, updates=[(acc, acc + x.sum(axis=0))])
    acc2 = jitgraph.shared(np.zeros(3), name="acc2")
    slow = jitgraph.function([x, s], outs, updates=[(acc2, acc2 + x.sum(axis=0))])
    slow._call = slow.generic_call
    assert _uses_fast_path(fast)
    for k in range(3):
        value = np.arange(6.0).reshape(2, 3) + k
        for got, want in zip(fast(value, 2.5), slow(value, 2.5)):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(acc.get_value(), acc2.get_value())


@settings(max_examples=30, deadline=None)
@given(value=st.one_of(st.floats(allow_nan=False, width=32), st.integers(-5, 5),
                       st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2)))
def test_converted_inputs_take_the_filter(value):
    """A Python number or a list is converted by the input's type, as on the generic path."""
    v = T.dvector("v")
    f = jitgraph.function([v], v * 2, allow_input_downcast=True)
    arg = value if isinstance(value, list) else [value, value]
    np.testing.assert_array_equal(f(arg), np.asarray(arg, dtype="float64") * 2)


def test_bad_input_gets_the_generic_message():
    x = T.dmatrix("x")
    f = jitgraph.function([x], x * 2)
    with pytest.raises(TypeError, match='bad input argument "x" at index 0'):
        f(np.zeros(3))
    with pytest.raises(TypeError, match="takes 1 inputs, got 2"):
        f(np.zeros((2, 2)), 1)


def test_keywords_defaults_and_trust_input():
    x, y = T.dscalars("x", "y")
    f = jitgraph.function([x, In(y, value=10.0)], x + y)
    assert f(1.0) == 11.0 and f(1.0, 2.0) == 3.0 and f(x=1.0, y=3.0) == 4.0
    f.trust_input = True
    assert f.trust_input and _uses_fast_path(f)
    assert f(np.array(1.0), np.array(5.0)) == 6.0
    f.trust_input = False
    with pytest.raises(ValueError):  # text for a number: Theano's class too
        f("a", 1.0)
    with pytest.raises(TypeError):
        f(np.ones(2), 1.0)


def test_outputs_that_alias_storage_are_copied():
    x = T.dvector("x")
    w = jitgraph.shared(np.ones(2), name="w")
    f = jitgraph.function([x], [x, w, x])
    value = np.array([1.0, 2.0])
    a, b, c = f(value)
    assert a is not value and b is not w.get_value(borrow=True) and a is not c
    np.testing.assert_array_equal(a, value)


def test_dict_and_single_outputs():
    x = T.dscalar("x")
    f = jitgraph.function([x], {"double": x * 2, "square": x ** 2})
    assert f(3.0) == {"double": 6.0, "square": 9.0}
    g = jitgraph.function([x], x * 2)
    assert g(3.0) == 6.0
    h = jitgraph.function([x], [x * 2])
    assert h(3.0) == [6.0]


def test_profiled_functions_take_the_generic_path():
    x = T.dscalar("x")
    f = jitgraph.function([x], x * 2, profile=True)
    assert not _uses_fast_path(f)
    assert f(2.0) == 4.0 and f.profile.fct_callcount == 1


def test_pickled_function_keeps_its_call_path():
    import pickle

    x = T.dscalar("x")
    f = jitgraph.function([x], x + 1)
    f.trust_input = True
    g = pickle.loads(pickle.dumps(f))
    assert g.trust_input and _uses_fast_path(g) and g(np.array(1.0)) == 2.0


def test_signature_of_a_function():
    import inspect

    x = T.dscalar("x")
    f = jitgraph.function([x], x + 1)
    assert callable(f) and list(inspect.signature(f).parameters) == ["args", "kwargs"]


def _fused(f) -> bool:
    """Whether the generated call runs the driver's lines itself (no call of run())."""
    return "_fc_run" not in f._call.__code__.co_names


def test_driver_lines_run_inside_the_call_and_results_stay_in_locals():
    x = T.dvector("x")
    s = jitgraph.shared(np.zeros(3), name="s")
    f = jitgraph.function([x], [x * 2, x * 2, x, T.constant(np.ones(2))],
                          updates=[(s, s + x)])
    assert _fused(f)
    for k in range(3):
        a, b, c, d = f(np.arange(3.0) + k)
        np.testing.assert_array_equal(a, (np.arange(3.0) + k) * 2)
        np.testing.assert_array_equal(b, a)
        np.testing.assert_array_equal(c, np.arange(3.0) + k)
        np.testing.assert_array_equal(d, np.ones(2))
    np.testing.assert_array_equal(s.get_value(), 3 * np.arange(3.0) + 3)


def test_a_long_driver_is_called_not_inlined(monkeypatch):
    """Past INLINED_LINES lines the call runs the driver's run() (compiling its lines into
    the call again would cost more than it saves); the results are the same (issue 31)."""
    from jitgraph.backend_cpu.runtime import program

    x = T.dvector("x")
    s = jitgraph.shared(np.zeros(3), name="s")
    outs = [x * 2, T.exp(x).sum()]
    inlined = jitgraph.function([x], outs, updates=[(s, s + x)])
    monkeypatch.setattr(program, "INLINED_LINES", inlined._program.inlinable.lines() - 1)
    s2 = jitgraph.shared(np.zeros(3), name="s2")
    called = jitgraph.function([x], outs, updates=[(s2, s2 + x)])
    assert _fused(inlined) and not _fused(called) and _uses_fast_path(called)
    for k in range(3):
        for got, want in zip(called(np.arange(3.0) + k), inlined(np.arange(3.0) + k)):
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(s2.get_value(), s.get_value())


def test_outputs_computed_by_perform_nodes_and_loops():
    """A perform node or a loop fills its output cells itself: those are read back."""
    x = T.dvector("x")
    ys, _ = jitgraph.scan(lambda v, acc: acc + v, sequences=x, outputs_info=T.constant(np.float64(0.0)))
    f = jitgraph.function([x], [ys, T.sort(x)])
    got_ys, got_sorted = f(np.array([3.0, 1.0, 2.0]))
    np.testing.assert_array_equal(got_ys, [3.0, 4.0, 6.0])
    np.testing.assert_array_equal(got_sorted, [1.0, 2.0, 3.0])


def test_without_gc_output_cells_hold_the_last_results():
    x = T.dvector("x")
    with jitgraph.config.change_flags(allow_gc=False):
        f = jitgraph.function([x], x + 1)
    assert _fused(f)
    f(np.zeros(2))
    np.testing.assert_array_equal(f.output_storage[0].data, np.ones(2))


def test_errors_inside_the_driver_name_the_node():
    x, y = T.dvectors("x", "y")
    f = jitgraph.function([x, y], x + y)
    assert _fused(f)
    with pytest.raises(ValueError, match="Apply node that caused the error"):
        f(np.zeros(2), np.zeros(3))


def test_errors_name_the_failing_node_on_every_call_path(monkeypatch):
    """The node is found from the line that raised (the driver has no line per node saying
    which one runs, issue 31): the same node whether the call inlines the driver's lines,
    calls its run() or takes the generic path."""
    from jitgraph.backend_cpu.runtime import program

    x, y, z = T.dvectors("x", "y", "z")
    outs = [T.exp(x), T.sqrt(z) * 2, x * y + 1, T.tanh(z)]
    inlined = jitgraph.function([x, y, z], outs)
    monkeypatch.setattr(program, "INLINED_LINES", 0)
    called = jitgraph.function([x, y, z], outs)
    assert _fused(inlined) and not _fused(called)
    assert "_n = " not in inlined._program.driver_source
    order, y_in_graph = inlined._program.order, inlined.maker.fgraph.inputs[1]
    (failing,) = [i for i, n in enumerate(order) if y_in_graph in n.inputs]
    assert 0 < failing < len(order) - 1, "a node in the middle fails"
    for call in (inlined, called, inlined.generic_call):
        with pytest.raises(ValueError) as info:
            call(np.ones(3), np.ones(4), np.ones(2))
        assert f"Toposort index: {failing}\n" in str(info.value)
        np.testing.assert_allclose(call(np.ones(3), np.ones(3), np.ones(2))[2], np.full(3, 2.0))


def test_guarded_and_monitored_programs_run_their_own_loop():
    from jitgraph.compile.monitormode import MonitorMode
    from jitgraph.compile.nanguardmode import NanGuardMode

    x = T.dvector("x")
    for mode in (NanGuardMode(nan_is_error=True),
                 MonitorMode(post_func=lambda i, node, fn: None)):
        f = jitgraph.function([x], x * 2, mode=mode)
        assert not _fused(f)
        np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
