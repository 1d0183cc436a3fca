"""function(): inputs, outputs, updates, givens, shared variables, errors, copy and pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import In, Out, function, shared
from jitgraph.compile.function import UnusedInputError

LINKERS = ["py", "vm", "vm_nogc", "cvm", "c|py"]


@pytest.mark.parametrize("linker", LINKERS)
def test_outputs_and_updates(linker):
    x = T.dvector("x")
    w = shared(np.ones(3), name="w")
    f = function([x], [x * w, w.sum()], updates=[(w, w + x)],
                 mode=jitgraph.Mode(linker=linker, optimizer="None"))
    out, total = f(np.arange(3.0))
    np.testing.assert_array_equal(out, [0, 1, 2])
    assert total == 3.0  # outputs see the values from before the update
    np.testing.assert_array_equal(w.get_value(), [1, 2, 3])
    out, total = f(np.ones(3))
    np.testing.assert_array_equal(out, [1, 2, 3])
    assert total == 6.0


def test_compile_stages_are_timed_in_wall_and_cpu_seconds():
    x = T.dvector("x")
    f = function([x], T.exp(x).sum(), mode=jitgraph.Mode(linker="py"))
    wall, cpu = f.maker.compile_times, f.maker.compile_cpu_times
    assert set(wall) == set(cpu) == {"graph", "rewrite", "link"}
    assert all(0 <= cpu[k] <= wall[k] + 0.05 for k in wall)
    assert cpu["rewrite"] > 0


def test_the_garbage_collector_is_paused_while_a_function_is_built(monkeypatch):
    """Its full collections scan every object alive, so a large graph's build paid more for
    each; it is switched back on after the build, also when the build fails, and a collector
    the user switched off stays off."""
    import gc

    from jitgraph.compile.function import FunctionMaker

    seen = []
    create = FunctionMaker.create

    def recording_create(self):  # the last step of a build
        seen.append(gc.isenabled())
        return create(self)

    monkeypatch.setattr(FunctionMaker, "create", recording_create)
    x = T.dvector("x")
    mode = jitgraph.Mode(linker="py")
    assert gc.isenabled()
    function([x], T.exp(x), mode=mode)
    assert seen == [False] and gc.isenabled()
    with pytest.raises(UnusedInputError):
        function([x, T.dvector("unused")], T.exp(x), mode=mode)
    assert gc.isenabled()
    gc.disable()
    try:
        function([x], T.exp(x) * 2, mode=mode)
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def test_single_output_is_not_wrapped_and_list_is():
    x = T.dscalar("x")
    assert isinstance(function([x], x * 2)(3.0), np.ndarray)
    assert isinstance(function([x], [x * 2])(3.0), list)


def test_updates_as_dict_and_simultaneous():
    a = shared(np.asarray(1.0), name="a")
    b = shared(np.asarray(2.0), name="b")
    f = function([], [], updates={a: b, b: a})
    f()
    assert a.get_value() == 2.0 and b.get_value() == 1.0


def test_default_update_and_no_default_updates():
    counter = shared(np.asarray(0, dtype="int64"), name="counter")
    counter.default_update = counter + 1
    f = function([], counter)
    f(), f()
    assert counter.get_value() == 2
    g = function([], counter, no_default_updates=True)
    g()
    assert counter.get_value() == 2
    h = function([], counter, no_default_updates=[counter])
    h()
    assert counter.get_value() == 2


def test_givens():
    x, y = T.dscalars("x y")
    z = x * 2 + y
    w = shared(np.asarray(10.0), name="w")
    f = function([x], z, givens={y: w})
    assert f(1.0) == 12.0
    g = function([y], z, givens=[(x, y * 3)])
    assert g(1.0) == 7.0


def test_inputs_by_name_and_defaults():
    x, y = T.dscalars("x y")
    f = function([x, In(y, value=5.0)], x - y)
    assert f(1.0) == -4.0
    assert f(1.0, 2.0) == -1.0
    assert f(y=1.0, x=3.0) == 2.0
    with pytest.raises(TypeError, match="no input named"):
        f(1.0, z=3.0)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        f(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="missing input 0"):
        f()


def test_bad_input_names_the_input_and_types():
    x = T.dmatrix("x")
    f = function([x], x + 1)
    with pytest.raises(TypeError, match=r'bad input argument "x" at index 0.*TensorType\(float64'
                                        r', matrix\).*ndim|dimensions'):
        f(np.ones(3))
    fx = T.fvector("fx")
    g = function([fx], fx * 2)
    with pytest.raises(TypeError, match="allow_input_downcast"):
        g(np.ones(3))  # float64 -> float32 loses precision
    h = function([fx], fx * 2, allow_input_downcast=True)
    assert h(np.ones(3)).dtype == np.float32
    assert g([1, 2, 3]).dtype == np.float32  # ints convert exactly


def test_shape_error_inside_graph_names_op_and_shapes():
    x, y = T.dvectors("x y")
    f = function([x, y], x + y)
    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.ones(4))
    text = str(info.value)
    assert "Apply node that caused the error" in text and "(3,)" in text and "(4,)" in text


def test_exception_verbosity_high_adds_debugprint():
    x, y = T.dvectors("x y")
    f = function([x, y], x * y)
    with jitgraph.config.change_flags(exception_verbosity="high"):
        with pytest.raises(ValueError, match="Debugprint of the apply node"):
            f(np.ones(2), np.ones(5))


def test_on_unused_input():
    x, y = T.dscalars("x y")
    with pytest.raises(UnusedInputError, match="input 1"):
        function([x, y], x * 2)
    with pytest.warns(UserWarning, match="not used"):
        function([x, y], x * 2, on_unused_input="warn")
    assert function([x, y], x * 2, on_unused_input="ignore")(1.0, 2.0) == 2.0


def test_missing_input_is_an_error():
    x, y = T.dscalars("x y")
    with pytest.raises(ValueError, match="not an input"):
        function([x], x + y)


def test_update_type_mismatch_is_explained():
    w = shared(np.zeros(3, dtype="float32"), name="w")
    with pytest.raises(TypeError, match="cast the update"):
        function([], [], updates=[(w, w * 0.1)])  # float64 update for a float32 variable


def test_outputs_do_not_alias_inputs_or_shared_values():
    x = T.dvector("x")
    w = shared(np.ones(2), name="w")
    f = function([x], [x, w, T.dimshuffle(x, (0,))])
    value = np.zeros(2)
    a, b, c = f(value)
    a[0] = b[0] = c[1] = 99
    assert value[0] == 0 and value[1] == 0 and w.get_value()[0] == 1
    g = function([x], Out(x, borrow=True))
    assert g(value) is not None


def test_shared_variable_api():
    value = np.arange(3.0)
    s = shared(value, name="s")
    value[0] = 42
    assert s.get_value()[0] == 0  # copied on construction
    got = s.get_value()
    got[1] = 42
    assert s.get_value()[1] == 1
    assert s.get_value(borrow=True) is s.get_value(borrow=True)
    s.set_value(np.ones(5))
    assert s.get_value().shape == (5,)
    with pytest.raises(TypeError):
        s.set_value(np.ones((2, 2)))
    assert s.broadcastable == (False,)
    assert shared(1.5).dtype == "float64" and shared(1).dtype == "int64"
    strict = shared(np.zeros(2), strict=True)
    with pytest.raises(TypeError):
        strict.set_value([1, 2])


def test_copy_and_swap():
    x = T.dscalar("x")
    a = shared(np.asarray(1.0), name="a")
    f = function([x], x * a, updates=[(a, a + 1)])
    b = shared(np.asarray(10.0), name="b")
    g = f.copy(swap={a: b})
    assert g(2.0) == [20.0] and b.get_value() == 11.0 and a.get_value() == 1.0  # a list, as Theano
    h = f.copy(delete_updates=True)
    h(1.0)
    assert a.get_value() == 1.0


def test_pickle_round_trip():
    x = T.dvector("x")
    w = shared(np.arange(3.0), name="w")
    f = function([x], (x * w).sum(), updates=[(w, w * 2)], name="f")
    restored = pickle.loads(pickle.dumps(f))
    assert restored(np.ones(3)) == 3.0
    assert restored(np.ones(3)) == 6.0
    assert f(np.ones(3)) == 3.0  # the original keeps its own shared state
    with jitgraph.config.change_flags(unpickle_function=False):
        assert pickle.loads(pickle.dumps(f)) is None
    with jitgraph.config.change_flags(reoptimize_unpickled_function=True):
        assert pickle.loads(pickle.dumps(f))(np.ones(3)) == 6.0


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_every_protocol(protocol):
    # Protocols 0 and 1 refused the graph's stack traces (traceback.FrameSummary has __slots__
    # and no __getstate__): TypeError. Theano pickles compiled functions with every protocol.
    x = T.dvector("x")
    w = shared(np.arange(3.0), name="w")
    f = function([x], [(x * w).sum(), T.exp(x).max()], updates=[(w, w * 2)])
    restored = pickle.loads(pickle.dumps(f, protocol=protocol))
    expected = f(np.ones(3))
    for got, want in zip(restored(np.ones(3)), expected):
        np.testing.assert_allclose(got, want)
    assert restored(np.ones(3))[0] == 6.0  # its own copy of w was doubled by the first call


def test_maker_attributes():
    x = T.dvector("x")
    f = function([x], x * 2, name="double")
    assert f.name == "double"
    assert [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert len(f.maker.fgraph.inputs) == 1 and len(f.maker.fgraph.outputs) == 1
    assert f.trust_input is False
    f.trust_input = True
    np.testing.assert_array_equal(f(np.ones(2)), [2, 2])


def test_numpy_seterr_applied_around_calls_only():
    import warnings

    x = T.dvector("x")
    f = function([x], 1 / x)
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy.seterr_all=ignore: no RuntimeWarning inside
        np.testing.assert_array_equal(f(np.zeros(1)), [np.inf])
    assert np.geterr() == before  # nothing leaks into the process-wide state


def test_eval():
    x = T.dscalar("x")
    assert (x * 3).eval({x: 2.0}) == 6.0
    assert T.constant(np.arange(3)).sum().eval() == 3
