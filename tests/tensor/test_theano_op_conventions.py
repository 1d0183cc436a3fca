"""Theano's ways of calling op classes directly (found by Theano 1.0.5's own tests), with the
results recorded under Theano 1.0.5 (tools/theano-oracle)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitgraph
import jitgraph.compile
import jitgraph.tensor as T
from jitgraph.tensor.basic import Join


def _shared_pair():
    a = jitgraph.shared(np.arange(4.0).reshape(1, 4, 1), broadcastable=(False, False, True))
    b = jitgraph.shared(np.arange(3.0).reshape(1, 3, 1), broadcastable=(True, False, True))
    return a, b


@pytest.mark.parametrize("axis", [1, "constant", "cast"])
def test_join_without_axis_takes_the_axis_as_first_input(axis):
    a, b = _shared_pair()
    axis = {"constant": T.constant(1), "cast": T.cast(T.constant(1), "int32")}.get(axis, axis)
    joined = Join()(axis, a, b)
    # Theano 1.0.5: (True, False, True) [0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0]
    assert joined.type.broadcastable == (True, False, True)
    assert joined.owner.op == Join(1)
    assert joined.eval().ravel().tolist() == [0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0]


def test_join_of_one_tensor_keeps_its_pattern():
    a, _ = _shared_pair()
    assert Join()(0, a).type.broadcastable == (False, False, True)  # Theano 1.0.5


def test_join_axis_out_of_range_is_an_index_error():
    v = np.array([[0.1, 0.2], [0.3, 0.4]])
    # Theano 1.0.5: join(-1) [[.1, .2, .1, .2], [.3, .4, .3, .4]]; join(-3) IndexError
    assert T.join(-1, jitgraph.shared(v), v).eval().tolist() == [[0.1, 0.2, 0.1, 0.2],
                                                                 [0.3, 0.4, 0.3, 0.4]]
    with pytest.raises(IndexError, match="axis -3 is out of range for 2-d"):
        T.join(-3, jitgraph.shared(v), v)
    with pytest.raises(ValueError):  # and still the ValueError it was here
        Join(2)(v, v)


def test_join_axis_must_be_known_when_the_graph_is_built():
    a, b = _shared_pair()
    with pytest.raises(TypeError, match="axis must be known when the graph is built"):
        Join()(T.lscalar("axis"), a, b)
    with pytest.raises(ValueError, match="needs the axis as its first input"):
        Join()()


def _floats(*shape):
    return np.ones(shape, dtype=jitgraph.config.floatX)


def test_specify_shape_without_known_takes_the_shape_as_one_argument():
    x = T.matrix("x")
    out = T.SpecifyShape()(x, [2, 3])
    # Theano 1.0.5: str 'SpecifyShape', the output TensorType(float64, matrix); (2, 3) passes and
    # (2, 2) raises AssertionError; shapes (), (1,), (2, 3, 4) raise AssertionError when built
    assert str(T.SpecifyShape()) == "SpecifyShape"
    assert out.type == x.type and isinstance(out.owner.op, T.SpecifyShape)
    f = jitgraph.function([x], out)
    assert f(_floats(2, 3)).shape == (2, 3)
    with pytest.raises(AssertionError, match="dimension 1 of the input has length 2, expected 3"):
        f(_floats(2, 2))
    for shape in [(), (1,), (2, 3, 4)]:
        with pytest.raises(AssertionError, match=f"{len(shape)} dims given for the 2-d x"):
            T.SpecifyShape()(x, shape)


@pytest.mark.parametrize("make", [lambda x, s: T.SpecifyShape()(x, s), T.specify_shape])
def test_specify_shape_checks_a_shape_vector_length_at_run_time(make):
    x, s = T.matrix("x"), T.ivector("s")
    f = jitgraph.function([x, s], make(x, s))
    # Theano 1.0.5: [2, 3] passes; [], [2], [2, 3, 4], [2, 2] raise AssertionError
    assert f(_floats(2, 3), [2, 3]).shape == (2, 3)
    for shape in [[], [2], [2, 3, 4], [2, 2]]:
        with pytest.raises(AssertionError):
            f(_floats(2, 3), shape)


def test_join_of_one_tensor_is_rewritten_away():
    a, _ = _shared_pair()
    f = jitgraph.function([], Join()(0, a))
    assert not [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Join)]  # as Theano's
    np.testing.assert_array_equal(f(), a.get_value())
    without = jitgraph.compile.get_default_mode().excluding("local_join_1")
    f = jitgraph.function([], Join()(0, a), mode=without)
    assert [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Join)]


def test_stack_forms_and_axis_range():
    a, b = T.imatrix("a"), T.imatrix("b")
    # Theano 1.0.5: axis 4 and -4 raise IndexError, 2 and -3 give 3-d results
    for axis in (4, -4):
        with pytest.raises(IndexError, match=f"axis {axis} is out of range for stacking 2-d"):
            T.stack([a, b], axis)
    assert T.stack([a, b], 2).ndim == T.stack([a, b], -3).ndim == 3
    with pytest.warns(DeprecationWarning, match="stack"):
        old_form = T.stack(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forms = [old_form, T.stack(tensors=[a, b], axis=1), T.stack([a, b], axis=1),
                 T.stack(tensors=[a, b])]
    results = jitgraph.function([a, b], forms)([[1, 2]], [[3, 4]])
    assert [r.tolist() for r in results] == [  # Theano 1.0.5's
        [[[1, 2]], [[3, 4]]], [[[1, 2], [3, 4]]], [[[1, 2], [3, 4]]], [[[1, 2]], [[3, 4]]]]
    with pytest.raises(TypeError, match="not both"):
        T.stack([a], tensors=[b])


@pytest.mark.parametrize("value, axis1, axis2", [(2, 0, 1), ([2, 1], 0, 1),
                                                 ([[2, 1], [3, 4]], 3, 4),
                                                 ([[2, 1], [3, 4]], -3, 0)])
def test_swapaxes_out_of_range_is_an_index_error(value, axis1, axis2):
    # Theano 1.0.5: IndexError for each; here numpy's AxisError, an IndexError and a ValueError
    with pytest.raises(IndexError, match="swapaxes: axis .* is out of range"):
        T.swapaxes(value, axis1, axis2)


@pytest.mark.parametrize("make, pattern, same, wanted", [
    (T.matrix, (), True, (False, False)), (T.row, (), True, (True, False)),
    (T.row, (False,), False, (False, False)), (T.matrix, (True,), False, (True, False))])
def test_patternbroadcast_of_a_shorter_pattern_sets_the_leading_dims(make, pattern, same, wanted):
    x = make("x")
    out = T.patternbroadcast(x, pattern)  # Theano 1.0.5's: same object and pattern as here
    assert (out is x) == same and out.broadcastable == wanted
    with pytest.raises(ValueError, match="pattern .* has 3 entries for the 2-d x"):
        T.patternbroadcast(x, (True, False, True))
