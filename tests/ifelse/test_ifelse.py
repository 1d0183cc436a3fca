"""ifelse: values, laziness (only the branch taken runs), several outputs, gradients, errors,
printing. Expected printing and values recorded from Theano 1.0.5."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.ifelse import IfElse, LazyIfElse, ifelse
from jitgraph.tensor.core.gradient import verify_grad


class Counted(Op):
    """Identity that counts its evaluations (and can be told to fail)."""

    __props__ = ("tag",)

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        CALLS[self.tag] = CALLS.get(self.tag, 0) + 1
        if self.tag == "boom":
            raise RuntimeError("the branch that must not run ran")
        out[0][0] = inputs[0].copy()


CALLS: dict[str, int] = {}


@pytest.fixture(autouse=True)
def _reset_calls():
    CALLS.clear()


def build_counted():
    a, b = T.dscalars("a", "b")
    x, y = T.dmatrices("x", "y")
    z = ifelse(T.lt(a, b), Counted("then")(x).mean(), Counted("else")(y).mean())
    return [a, b, x, y], z


@pytest.mark.parametrize("linker", ["cvm", "vm", "cvm_nogc"])
def test_only_the_taken_branch_runs(linker):
    inputs, z = build_counted()
    f = jitgraph.function(inputs, z, mode=jitgraph.Mode(linker=linker))
    ones, zeros = np.ones((3, 2)), np.zeros((3, 2))
    assert f(0., 1., ones, zeros) == 1.0
    assert CALLS == {"then": 1}
    assert f(1., 0., ones, zeros) == 0.0
    assert CALLS == {"then": 1, "else": 1}


def test_branch_that_would_raise_is_not_run():
    c = T.iscalar("c")
    x = T.dvector("x")
    f = jitgraph.function([c, x], ifelse(c, x * 2, Counted("boom")(x) + 1))
    np.testing.assert_allclose(f(1, np.arange(3.)), [0, 2, 4])
    with pytest.raises(RuntimeError, match="must not run"):
        f(0, np.arange(3.))


def test_vm_lazy_false_is_eager_and_switch_stays_eager():
    inputs, z = build_counted()
    with jitgraph.config.change_flags(**{"vm.lazy": False}):
        f = jitgraph.function(inputs, z)
    assert f(0., 1., np.ones((2, 2)), np.zeros((2, 2))) == 1.0
    assert CALLS == {"then": 1, "else": 1}
    CALLS.clear()
    a, b, x, y = inputs
    s = T.switch(T.lt(a, b), Counted("then")(x).mean(), Counted("else")(y).mean())
    jitgraph.function(inputs, s)(0., 1., np.ones((2, 2)), np.zeros((2, 2)))
    assert CALLS == {"then": 1, "else": 1}


def test_computation_shared_with_the_rest_of_the_graph_stays_outside():
    c = T.iscalar("c")
    x = T.dvector("x")
    shared_part = Counted("shared")(x)
    out = ifelse(c, shared_part * 2, x)
    f = jitgraph.function([c, x], [out, shared_part.sum()])
    got = f(0, np.arange(3.))
    np.testing.assert_allclose(got[0], [0, 1, 2])
    assert CALLS == {"shared": 1}
    assert any(isinstance(n.op, LazyIfElse) for n in f.maker.fgraph.apply_nodes)


def test_several_outputs_and_name_match_theano():
    a, b = T.dscalars("a", "b")
    x, y = T.dmatrices("x", "y")
    z = ifelse(T.lt(a, b), [x, x * 2], [y, y + 1], name="pick")
    assert str(z[0].owner.op) == "if{pick}" and isinstance(z, list)
    f = jitgraph.function([a, b, x, y], z)
    got = f(0., 1., np.ones((2, 2)), np.zeros((2, 2)))
    np.testing.assert_allclose(got[0], np.ones((2, 2)))
    np.testing.assert_allclose(got[1], 2 * np.ones((2, 2)))
    got = f(1., 0., np.ones((2, 2)), np.zeros((2, 2)))
    np.testing.assert_allclose(got[1], np.ones((2, 2)))


def test_debugprint_shows_if():
    a, b = T.dscalars("a", "b")
    z = ifelse(T.lt(a, b), a, b)
    text = jitgraph.debugprint(z, file="str")
    assert text.startswith("if{} [id A] ''")
    assert isinstance(z.owner.op, IfElse)


def test_outputs_are_not_aliased_to_inputs():
    c = T.iscalar("c")
    x, y = T.dvectors("x", "y")
    f = jitgraph.function([c, x, y], ifelse(c, x, y * 2))
    xv = np.arange(3.)
    out = f(1, xv, xv)
    out[0] = 100.0
    assert xv[0] == 0.0


def test_grad_matches_theano():
    a, b = T.dscalars("a", "b")
    x, y = T.dmatrices("x", "y")
    gx = T.grad(ifelse(T.lt(a, b), (x ** 2).sum(), (y * 3).sum()), [x, y])
    f = jitgraph.function([a, b, x, y], gx)
    got = f(0., 1., np.ones((2, 2)), np.ones((2, 2)))
    np.testing.assert_allclose(got[0], 2 * np.ones((2, 2)))
    np.testing.assert_allclose(got[1], np.zeros((2, 2)))
    got = f(1., 0., np.ones((2, 2)), np.ones((2, 2)))
    np.testing.assert_allclose(got[1], 3 * np.ones((2, 2)))


@pytest.mark.parametrize("take", [0.0, 1.0])
def test_verify_grad(take):
    def fn(x, y):
        return ifelse(T.constant(take), T.sin(x) * y, (x * y) ** 2)

    rng = np.random.default_rng(0)
    verify_grad(fn, [rng.normal(size=3), rng.normal(size=3)], rng=rng, mode="FAST_RUN")


def test_nested_ifelse_and_integer_condition():
    c, d = T.iscalars("c", "d")
    x = T.dvector("x")
    out = ifelse(c, ifelse(d, x + 1, Counted("inner_else")(x) - 1), Counted("outer_else")(x))
    f = jitgraph.function([c, d, x], out)
    np.testing.assert_allclose(f(2, 1, np.zeros(2)), [1, 1])
    assert CALLS == {}
    np.testing.assert_allclose(f(1, 0, np.zeros(2)), [-1, -1])
    assert CALLS == {"inner_else": 1}


def test_errors_name_the_problem():
    a, b = T.dscalars("a", "b")
    x = T.dmatrix("x")
    with pytest.raises(TypeError, match="then branch but TensorType\\(float64, vector\\)"):
        ifelse(a < b, x, T.dvector())
    with pytest.raises(TypeError, match="dtype"):
        ifelse(a < b, T.dvector(), T.fvector())
    with pytest.raises(ValueError, match="same number"):
        ifelse(a < b, [x, x], [x])
    with pytest.raises(TypeError, match="must be a scalar"):
        ifelse(x, a, b)
    # a dense and a sparse matrix, or two sparse formats (before: an AttributeError)
    csc = jitgraph.sparse.matrix("csc", dtype="float64", name="y")
    csr = jitgraph.sparse.matrix("csr", dtype="float64", name="z")
    for then, other in [(x, csc), (csc, x), (x, csr), (csc, csr)]:
        with pytest.raises(TypeError, match="values of one type"):
            ifelse(a < b, then, other)
    # a more broadcastable branch is loosened to the other's type
    assert ifelse(a < b, T.row(), T.dmatrix()).type == T.dmatrix().type


def test_conditions_tutorial_runs_and_both_agree():
    a, b = T.scalars("a", "b")
    x, y = T.matrices("x", "y")
    z_switch = T.switch(T.lt(a, b), T.mean(x), T.mean(y))
    z_lazy = ifelse(T.lt(a, b), T.mean(x), T.mean(y))
    f_switch = jitgraph.function([a, b, x, y], z_switch, mode=jitgraph.Mode(linker="vm"))
    f_lazy = jitgraph.function([a, b, x, y], z_lazy, mode=jitgraph.Mode(linker="vm"))
    big1 = np.ones((100, 10), dtype=jitgraph.config.floatX)
    big2 = np.zeros((100, 10), dtype=jitgraph.config.floatX)
    assert f_switch(0., 1., big1, big2) == f_lazy(0., 1., big1, big2) == 1.0
    assert f_switch(1., 0., big1, big2) == f_lazy(1., 0., big1, big2) == 0.0


def test_ifelse_inside_scan():
    from jitgraph.scan import scan

    x = T.dvector("x")
    out, _ = scan(lambda v, h: ifelse(T.gt(v, 2), h + v, h - v), sequences=x,
                  outputs_info=T.constant(np.float64(0)))
    np.testing.assert_allclose(jitgraph.function([x], out)(np.arange(5.)),
                               [0, -1, -3, 0, 4])


def test_strict_c_linker_accepts_conditionals_and_loops():
    from jitgraph.scan import scan

    c = T.iscalar("c")
    x = T.dvector("x")
    total, _ = scan(lambda v, h: h + v, sequences=x, outputs_info=T.constant(np.float64(0)))
    out = ifelse(c, total[-1], x.sum() * 2)
    f = jitgraph.function([c, x], [out, T.grad(out, x)], mode=jitgraph.Mode(linker="c"))
    value, grad = f(1, np.arange(4.))
    assert value == 6.0
    np.testing.assert_allclose(grad, np.ones(4))
    value, grad = f(0, np.arange(4.))
    assert value == 12.0
    np.testing.assert_allclose(grad, 2 * np.ones(4))
