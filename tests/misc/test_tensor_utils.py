"""jitgraph.tensor.core.utils (hash_from_code, hash_from_ndarray, shape_of_variables) against Theano
1.0.5's answers (data/misc_oracle.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.tensor.core import utils
from misc_cases import HASH_CODES, hash_arrays, shape_cases

ORACLE = json.loads((Path(__file__).parent / "data" / "misc_oracle.json").read_text())
ARRAYS = hash_arrays(np)
SHAPE_CASES = shape_cases(theano, T)


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_hash_from_ndarray_is_theanos(name):
    assert utils.hash_from_ndarray(ARRAYS[name]) == ORACLE["hash_from_ndarray"][name]


@pytest.mark.parametrize("code", HASH_CODES)
def test_hash_from_code_is_theanos(code):
    assert utils.hash_from_code(code) == ORACLE["hash_from_code"][code]
    assert utils.hash_from_code(code.encode()) == ORACLE["hash_from_code_bytes"][code]


def test_hash_from_code_of_an_array_hashes_its_buffer():
    assert utils.hash_from_code(np.arange(3)) == ORACLE["hash_from_code_array"]
    with pytest.raises(ValueError, match="not C-contiguous"):
        utils.hash_from_code(np.arange(6)[::2])


def test_hash_from_ndarray_tells_apart_what_the_data_alone_does_not():
    hashes = {utils.hash_from_ndarray(a) for a in
              (np.zeros((1, 0)), np.zeros((2, 0)), np.zeros(3, "int32"), np.zeros(3, "uint32"))}
    assert len(hashes) == 4
    with pytest.raises(TypeError, match="numpy.ndarray.*builtins.list"):
        utils.hash_from_ndarray([1, 2])


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shape_of_variables_is_theanos(name):
    inputs, outputs, shapes = SHAPE_CASES[name]()
    fgraph = theano.FunctionGraph(inputs, outputs, clone=False)
    found = utils.shape_of_variables(fgraph, dict(zip(inputs, shapes)))
    assert fgraph.shape_feature is not None  # attached and left there, as Theano does
    named = {var.name: [int(d) for d in found[var]] for var in inputs + outputs}
    assert named == ORACLE["shape_of_variables"][name]
    for var, dims in found.items():  # every variable of the graph: 0-d int64 arrays
        assert var in fgraph.variables
        assert all(isinstance(d, np.ndarray) and d.shape == () and d.dtype == np.int64
                   for d in dims)
    assert set(found) == fgraph.variables


def test_shape_of_variables_doctest_example():
    x = T.matrix("x")
    y = x[512:]
    fgraph = theano.FunctionGraph([x], [y], clone=False)
    d = utils.shape_of_variables(fgraph, {x: (1024, 1024)})
    assert d[y] == (512, 1024) and d[x] == (1024, 1024)
    assert repr(d[y]) == "(array(512), array(1024))"


def test_shape_of_variables_on_a_cloned_graph_wants_its_inputs():
    x = T.matrix("x")
    fgraph = theano.FunctionGraph([x], [x.T])
    with pytest.raises(ValueError, match="not among the graph's inputs.*clone=False"):
        utils.shape_of_variables(fgraph, {x: (2, 3)})
    assert utils.shape_of_variables(fgraph, {fgraph.inputs[0]: (2, 3)})[fgraph.outputs[0]] \
        == (3, 2)


def test_shape_of_variables_errors_name_the_input():
    x, v = T.matrix("x"), T.vector("v")
    fgraph = theano.FunctionGraph([x, v], [T.dot(x, v)], clone=False)
    with pytest.raises(KeyError, match="no shape given for the graph input v"):
        utils.shape_of_variables(fgraph, {x: (3, 4)})
    with pytest.raises(ValueError, match=r"input x has 2 dimension.*\(3, 4, 5\) has 3"):
        utils.shape_of_variables(fgraph, {x: (3, 4, 5), v: (4,)})


def test_shape_of_variables_beyond_theano():
    """Theano 1.0.5 fails on these (constants among the compiled function's inputs, or
    ``Shape(x)`` left as a missing input); here broadcastable inputs and shapes built from
    ``x.shape`` work, and a shape that needs input values is refused by name."""
    r, x = T.row("r"), T.matrix("x")
    flat = x.reshape((x.shape[0] * x.shape[1],))
    fgraph = theano.FunctionGraph([r, x], [r + x, flat], clone=False)
    d = utils.shape_of_variables(fgraph, {r: (1, 4), x: (3, 4)})
    assert d[fgraph.outputs[0]] == (3, 4) and d[flat] == (12,)
    with pytest.raises(ValueError, match="broadcastable along axis 0"):
        utils.shape_of_variables(fgraph, {r: (2, 4), x: (3, 4)})
    x = T.matrix("x")
    fgraph = theano.FunctionGraph([x], [T.nonzero(x)[0]], clone=False)
    with pytest.raises(ValueError, match="Nonzero.*depend on the values of x"):
        utils.shape_of_variables(fgraph, {x: (3, 4)})


def test_shape_of_variables_with_sparse_and_shared_variables():
    pytest.importorskip("scipy.sparse")
    import jitgraph.sparse as S

    a, v = S.csr_matrix("a"), T.matrix("v")
    w = theano.shared(np.ones((4, 2)), name="w")
    out = S.dot(a, v + w)
    fgraph = theano.FunctionGraph([a, v], [out], clone=False)
    d = utils.shape_of_variables(fgraph, {a: (3, 4), v: (4, 2)})
    assert d[a] == (3, 4) and d[out] == (3, 2)
    assert d[w] == (4, 2)  # a shared variable's shape is its value's
