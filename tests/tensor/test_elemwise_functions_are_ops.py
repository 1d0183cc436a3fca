"""``T.add``, ``T.exp``, ... are Elemwise op instances, as in Theano 1.0.5: printable as
``Elemwise{add,no_inplace}``, comparable with ``node.op`` in user rewrites, with a
``scalar_op``, and called like the functions they were (same nodes, dtypes and values).
Expected values recorded from Theano 1.0.5 (theano-oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.gof.opt import local_optimizer
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.elementwise.elemwise import Elemwise

# (function, arguments) -> (output dtype, value on arange(1, 4) of each variable's dtype)
CASES = [
    ("add", lambda: (T.ivector(), 1.5, np.int64(2)), "float64", [4.5, 5.5, 6.5]),
    ("add", lambda: (T.bvector(), 300), "int16", [301, 302, 303]),
    ("mul", lambda: (T.fvector(), 2.5), "float32", [2.5, 5.0, 7.5]),
    ("true_div", lambda: (T.ivector(), 2), "float64", [0.5, 1.0, 1.5]),
    ("pow", lambda: (T.fvector(), 2), "float32", [1.0, 4.0, 9.0]),
    ("maximum", lambda: (T.wvector(), 1.0), "float32", [1.0, 2.0, 3.0]),
    ("sub", lambda: (3, T.bvector()), "int8", [2, 1, 0]),
    ("int_div", lambda: (T.ivector(), 3), "int32", [0, 0, 1]),
    ("exp", lambda: (T.bvector(),), "float32", [2.7182817, 7.389056, 20.085537]),
    ("eq", lambda: (T.ivector(), 2.0), "bool", [False, True, False]),
    ("switch", lambda: (T.bvector(), T.ivector(), 0.5), "float64", [1.0, 2.0, 3.0]),
    ("clip", lambda: (T.fvector(), 0, 1.5), "float32", [1.0, 1.5, 1.5]),
    ("add", lambda: (T.ivector(), T.fvector(), T.bvector()), "float64", [3.0, 6.0, 9.0]),
]


@pytest.mark.parametrize("name, make_args, dtype, expected", CASES)
def test_calling_the_op_builds_theanos_node(name, make_args, dtype, expected):
    args = make_args()
    out = getattr(T, name)(*args)
    assert out.dtype == dtype and str(out.owner.op) == f"Elemwise{{{name},no_inplace}}"
    inputs = [a for a in args if isinstance(a, theano.Variable)]
    values = [np.arange(1, 4).astype(a.dtype) for a in inputs]
    result = theano.function(inputs, out)(*values)
    assert result.dtype == dtype
    np.testing.assert_allclose(result, expected, rtol=1e-6)


@pytest.mark.parametrize("name", ["add", "mul", "sub", "exp", "log", "neg", "abs_", "sqr",
                                  "maximum", "eq", "switch", "second", "fill", "where", "inv"])
def test_functions_are_elemwise_ops(name):
    op = getattr(T, name)
    assert isinstance(op, Elemwise)
    assert str(op) == f"Elemwise{{{ {'fill': 'second', 'where': 'switch'}.get(name, name) },no_inplace}}"
    x = T.dvector()
    node = op(*[x] * max(op.scalar_op.nin, 1)).owner
    assert node.op == op


def test_isnan_and_isinf_stay_functions_as_in_theano():
    assert not isinstance(T.isnan, Elemwise) and not isinstance(T.isinf, Elemwise)
    assert T.isnan(T.dvector()).dtype == "bool"


def test_any_number_of_inputs_and_the_scalar_op():
    x = T.dvector()
    y = T.add(x, x, x)
    assert y.owner.op == T.add and len(y.owner.inputs) == 3
    assert str(T.exp.scalar_op) == "exp" and T.exp(x).owner.op == T.exp
    np.testing.assert_allclose(theano.function([x], y)(np.ones(2)), [3.0, 3.0])


def test_a_user_rewrite_can_track_the_op():
    @local_optimizer([T.exp])
    def exp_to_sin(node):
        if node.op == T.exp:
            return [T.sin(node.inputs[0])]
        return False

    x = T.dvector()
    fgraph = FunctionGraph([x], [T.exp(x) + 1], clone=False)
    node = [n for n in fgraph.toposort() if n.op == T.exp][0]
    replacement = exp_to_sin.transform(fgraph, node)
    assert replacement[0].owner.op == T.sin


@pytest.mark.parametrize("name", ["add_inplace", "exp_inplace", "neg_inplace", "sqr_inplace",
                                  "true_div_inplace", "pow_inplace", "abs__inplace",
                                  "second_inplace", "maximum_inplace"])
def test_inplace_functions_are_named_elemwise_ops(name):
    # Theano 1.0.5: str(T.inplace.add_inplace) == 'add_inplace', destroy_map {0: [0]}
    from jitgraph.tensor import inplace

    op = getattr(inplace, name)
    assert isinstance(op, Elemwise) and str(op) == name and op.destroy_map == {0: [0]}


def test_an_inplace_op_overwrites_its_first_input():
    from jitgraph.tensor import inplace

    x = T.dvector()
    y = inplace.add_inplace(x, T.constant(np.array([1.0, 2.0])))
    assert str(y.owner.op) == "add_inplace"
    f = theano.function([x], y, accept_inplace=True)
    a = np.ones(2)
    assert f(a).tolist() == [2.0, 3.0] and a.tolist() == [2.0, 3.0]


@pytest.mark.parametrize("name", ["psi", "tri_gamma", "jv", "j0", "i0", "rad2deg", "deg2rad",
                                  "erfinv", "real", "conj", "complex", "gamma", "gammaln"])
def test_functions_of_rows_defined_elsewhere_are_ops_too(name):
    # Theano 1.0.5: str(T.psi) == 'Elemwise{psi,no_inplace}' (test_basic names its testers so)
    op = getattr(T, name)
    assert isinstance(op, Elemwise) and str(op) == f"Elemwise{{{name},no_inplace}}"
