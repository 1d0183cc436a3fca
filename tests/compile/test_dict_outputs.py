"""``function(inputs, {'name': output, ...})`` returns a dict, as in Theano 1.0.5 (recorded:
``{'a': array([2., 2.]), 'b': array(2.)}`` for the function below); ``pfunc``'s
``output_keys`` does the same."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.pfunc import pfunc


def test_dict_outputs_come_back_as_a_dict():
    x = T.dvector("x")
    count = jitgraph.shared(0.0)
    f = jitgraph.function([x], {"b": x.sum(), "a": x * 2}, updates=[(count, count + 1)])
    assert f.maker.output_keys == ["a", "b"]
    for fn in (f, pickle.loads(pickle.dumps(f)), f.copy()):
        out = fn(np.ones(2))
        assert list(out) == ["a", "b"]
        np.testing.assert_array_equal(out["a"], [2.0, 2.0])
        assert out["b"] == 2.0
    assert count.get_value() == 2.0  # f and its copy share the shared variable
    assert jitgraph.function([x], x * 2).maker.output_keys is None


def test_pfunc_output_keys_and_bad_keys():
    x = T.dvector("x")
    out = pfunc([x], [x * 3, x.sum()], output_keys=["t", "s"])(np.ones(2))
    assert sorted(out) == ["s", "t"] and out["s"] == 2.0
    with pytest.raises(TypeError, match="string keys"):
        jitgraph.function([x], {1: x})
