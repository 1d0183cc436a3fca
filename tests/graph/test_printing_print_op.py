"""The Print op: prints once per evaluation in every mode, survives the rewrites, and is an
identity for values and gradients. Message layouts are Theano 1.0.5's
(``this is a very important value __str__ = [1. 2. 3.]``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.printing import Print
from jitgraph.tensor.core.gradient import verify_grad

MODES = ["FAST_RUN", "FAST_COMPILE", "DebugMode"]


def _has_print(f) -> bool:
    return any(isinstance(node.op, Print) for node in f.maker.fgraph.apply_nodes)


@pytest.mark.parametrize("mode", MODES)
def test_prints_once_per_evaluation(mode, capsys):
    x = T.dvector("x")
    p = Print("hello")(x)
    f = jitgraph.function([x], p * 2 + p, mode=mode)
    assert capsys.readouterr().out == ""  # nothing at compile time
    np.testing.assert_allclose(f([1.0, 2.0]), [3.0, 6.0])
    np.testing.assert_allclose(f([3.0]), [9.0])
    assert capsys.readouterr().out == "hello __str__ = [1. 2.]\nhello __str__ = [3.]\n"
    assert _has_print(f)


@pytest.mark.parametrize("mode", MODES)
def test_a_constant_input_is_not_folded(mode, capsys):
    f = jitgraph.function([], Print("const")(T.constant(np.arange(3.0))) * 2, mode=mode)
    assert capsys.readouterr().out == ""
    np.testing.assert_allclose(f(), [0.0, 2.0, 4.0])
    np.testing.assert_allclose(f(), [0.0, 2.0, 4.0])
    assert capsys.readouterr().out == "const __str__ = [0. 1. 2.]\n" * 2


def test_identical_prints_merge_into_one(capsys):
    x = T.dvector("x")
    f = jitgraph.function([x], [Print("dup")(x) + 1, Print("dup")(x) * 2])
    f([1.0])
    assert capsys.readouterr().out == "dup __str__ = [1.]\n"


def test_kept_when_only_the_shape_is_used(capsys):
    x = T.dvector("x")
    f = jitgraph.function([x], Print("shp")(x).shape)
    np.testing.assert_array_equal(f([1.0, 2.0]), [2])
    assert capsys.readouterr().out == "shp __str__ = [1. 2.]\n"


def test_attributes_and_global_fn(capsys):
    x = T.dvector("x")
    f = jitgraph.function([x], Print("m", attrs=("shape", "sum", "dtype"))(x))
    f([1.0, 2.0, 3.0])
    assert capsys.readouterr().out == "m shape = (3,)\nm sum = 6.0\nm dtype = float64\n"
    seen = []
    g = jitgraph.function([x], Print("g", global_fn=lambda op, v: seen.append((op.message,
                                                                              v.tolist())))(x))
    g([5.0])
    assert seen == [("g", [5.0])]
    with pytest.raises(TypeError, match="attrs must be a sequence"):
        Print("m", attrs="shape")


def test_gradient_and_r_op_pass_through(capsys):
    s = T.dscalar("s")
    f = jitgraph.function([s], T.grad(Print("ps")(s) ** 2, s))
    assert f(3.0) == 6.0
    assert capsys.readouterr().out == "ps __str__ = 3.0\n"
    quiet = Print("q", global_fn=lambda op, v: None)
    verify_grad(lambda a: quiet(a) * a, [np.array([1.0, -2.0, 0.5])],
                rng=np.random.RandomState(0))
    v, ev = T.dvector("v"), T.dvector("ev")
    assert quiet.R_op([v], [ev]) == [ev]


def test_op_identity_view_and_pickling():
    x = T.dvector("x")
    op = Print("p")
    out = op(x)
    assert out.type == x.type and out.owner.inputs == [x]
    assert op.view_map == {0: [0]}
    assert op == Print("p") and hash(op) == hash(Print("p")) and op != Print("other")
    assert op.attrs == ("__str__",)
    restored = pickle.loads(pickle.dumps(op))
    assert restored == op
    assert str(op).startswith("Print{message='p', attrs=('__str__',), global_fn=<function ")
