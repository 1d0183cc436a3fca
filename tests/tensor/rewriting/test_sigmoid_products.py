"""Products of exp and sigmoid factors (Theano 1.0.5's numbers, recorded with the oracle): the
rewrites keep them finite where exp overflows, and the mul-tree helpers Theano's
``theano.tensor.nnet.sigm`` exposes work on jitgraph graphs."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.analysis import is_same_graph
from jitgraph.tensor.rewriting.mul_tree import (compute_mul, is_1pexp, parse_mul_tree,
                                                perform_sigm_times_exp, simplify_mul)

XS = np.array([-800.0, -50.0, -1.0, 0.0, 2.0, 50.0, 800.0])
sigmoid, exp = T.nnet.sigmoid, T.exp


def _value(build, value=XS):
    x = T.dmatrix("x") if np.ndim(value) == 2 else T.dvector("x")
    return jitgraph.function([x], build(x))(value)


# (expression, Theano 1.0.5's values at XS); before, the first three gave NaN at +-800
FINITE_PRODUCTS = [
    (lambda x: exp(x) * sigmoid(-x),
     [0.0, 1.928749847963918e-22, 0.2689414213699951, 0.5, 0.8807970779778823, 1.0, 1.0]),
    (lambda x: sigmoid(x) * exp(-x) * 3.0,
     [3.0, 3.0, 2.193175735890015, 1.5, 0.3576087660663526, 5.786249543891754e-22, 0.0]),
    (lambda x: -exp(x) / ((1 + exp(x)) * (1 + exp(-x))),
     [-0.0, -3.720075976020837e-44, -0.07232948812851325, -0.25, -0.7758034925743758, -1.0,
      -1.0]),
    (lambda x: T.fill(x, -1.0) / (1 + exp(-x)),
     [-0.0, -1.928749847963918e-22, -0.2689414213699951, -0.5, -0.8807970779778823, -1.0,
      -1.0]),
]


@pytest.mark.parametrize("build,theano", FINITE_PRODUCTS)
def test_products_of_exp_and_sigmoid_stay_finite(build, theano):
    np.testing.assert_allclose(_value(build), theano, rtol=1e-13, atol=0)


@pytest.mark.parametrize("build", [lambda m: T.log(1 - T.flatten(sigmoid(m))),
                                   lambda m: T.flatten(T.log(1 - sigmoid(m).T).T)])
def test_one_minus_a_view_of_a_sigmoid_stays_finite(build):
    # Theano: -softplus(x); before, log1p(-1.0) = -inf at 50
    got = _value(build, np.array([[-50.0, 0.0], [3.0, 50.0]]))
    np.testing.assert_allclose(got, [-1.9287498479639178e-22, -0.6931471805599453,
                                     -3.048587351573742, -50.0], rtol=1e-13)


def test_exp_over_one_plus_exp_pairs_become_sigmoids():
    x = T.dvector("x")
    mode = jitgraph.compile.mode.get_default_mode().excluding("local_elemwise_fusion")
    f = jitgraph.function([x], exp(x) / (1 + exp(x)), mode=mode)
    assert [n.op for n in f.maker.fgraph.toposort()] == [sigmoid]
    f = jitgraph.function([x], sigmoid(-x) * exp(x), mode=mode.excluding("inplace"))
    assert [n.op for n in f.maker.fgraph.toposort()] == [sigmoid]


def test_hard_sigmoid_only_on_request():
    x = T.dmatrix("x")
    mode = jitgraph.compile.mode.get_default_mode()
    plain = jitgraph.function([x], sigmoid(x), mode=mode)
    assert [n.op for n in plain.maker.fgraph.toposort()] == [sigmoid]
    approx = jitgraph.function([x], sigmoid(x), mode=mode.including("local_hard_sigmoid"))
    assert sigmoid not in [n.op for n in approx.maker.fgraph.toposort()]
    value = np.array([[-50.0, -2.5, 0.0, 1.0, 50.0]])
    np.testing.assert_allclose(approx(value), np.clip(0.2 * value + 0.5, 0, 1))


# -- the mul-tree helpers: trees as Theano 1.0.5 gives them ------------------------------------

def _names(tree):
    negated, sub = tree
    if isinstance(sub, list):
        return [negated, [_names(t) for t in sub]]
    return [negated, None if sub is None else _text(sub)]


def _text(v):
    if v.owner is None:
        return v.name if v.name else repr(np.asarray(v.data).tolist())
    op = v.owner.op
    name = getattr(getattr(op, "scalar_op", None), "name", None) or "ds"
    return f"{name}({','.join(_text(i) for i in v.owner.inputs)})"


x, y, z, t = T.dvectors("x", "y", "z", "t")


@pytest.mark.parametrize("expr,theano", [
    (-(x * y), [True, [[False, "x"], [False, "y"]]]),
    (-x * y, [False, [[True, "x"], [False, "y"]]]),
    ((x * y) * -z, [False, [[False, [[False, "x"], [False, "y"]]], [True, "z"]]]),
    (-(-x), [False, "x"]),
    (-1 * z, [False, [[False, "ds(-1)"], [False, "z"]]]),   # a product by -1 is no negation
    (T.mul(x, -1, y), [False, [[False, "x"], [False, "ds(-1)"], [False, "y"]]]),
    (x / y, [False, "true_div(x,y)"]),
])
def test_parse_mul_tree(expr, theano):
    tree = parse_mul_tree(expr)
    assert _names(tree) == theano
    assert parse_mul_tree(compute_mul(tree)) == tree
    if _text(expr) != "neg(neg(x))":  # two negations cancel: x itself comes back
        assert is_same_graph(compute_mul(tree), expr)


@pytest.mark.parametrize("expr,theano", [
    (sigmoid(x) * exp(-x), "sigmoid(neg(x))"),
    (-exp(x) * -sigmoid(-x) * -exp(-x), "neg(sigmoid(neg(x)))"),
    (exp(-x) * -exp(-x) * (-sigmoid(x) * -sigmoid(x)),
     "mul(neg(sigmoid(neg(x))),sigmoid(neg(x)))"),
    # the earlier factor takes the pair's place; a factor made a sigmoid pairs again
    (exp(x) * sigmoid(-x) * exp(-x), "sigmoid(neg(x))"),
    (sigmoid(-x) * sigmoid(x) * exp(x) * exp(-x), "mul(sigmoid(x),sigmoid(neg(x)))"),
    (exp(x) * sigmoid(-x) * sigmoid(-x), "mul(sigmoid(x),sigmoid(neg(x)))"),
    (-x * sigmoid(x) * (y * (-1 * z) * exp(-x)),
     "mul(mul(neg(x),sigmoid(neg(x))),mul(y,mul(ds(-1),z)))"),
])
def test_perform_sigm_times_exp(expr, theano):
    tree = parse_mul_tree(expr)
    assert perform_sigm_times_exp(tree)
    assert _text(compute_mul(simplify_mul(tree))) == theano


def test_unpairable_products_are_left_alone():
    for expr in (exp(x) * sigmoid(x), sigmoid(x) * y):
        tree = parse_mul_tree(expr)
        assert not perform_sigm_times_exp(tree)
        assert _names(tree) == _names(parse_mul_tree(expr))


def test_compute_mul_needs_a_simplified_tree():
    tree = parse_mul_tree(sigmoid(x) * exp(-x))
    perform_sigm_times_exp(tree)
    with pytest.raises(ValueError, match="simplify_mul"):
        compute_mul(tree)


@pytest.mark.parametrize("expr,arg", [
    (1 + exp(x), "x"), (exp(x) + 1, "x"), (1 + exp(-x), "neg(x)"),
    (T.add(0.5, exp(x), 0.5), "x"), (T.fill(x, 1.0) + exp(x), "x"),
    (T.add(1.0000001, exp(x)), "x"),
    (1 - exp(x), None), (2 + exp(x), None), (-1 + exp(x), None), (1 + 2 * exp(x), None),
    (T.add(1, exp(x), y), None), (T.add(1, exp(x), exp(y)), None), (exp(x), None),
])
def test_is_1pexp(expr, arg):
    found = is_1pexp(expr, only_process_constants=False)
    assert (found if found is None else (found[0], _text(found[1]))) == \
        (None if arg is None else (False, arg))
