"""Scalar ops defined the Theano way (``UnaryScalarOp`` subclasses with ``impl``/``grad``) and
Theano's output-type rules; expected values recorded from Theano 1.0.5."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.scalar as S
import jitgraph.tensor as T

TYPES = [S.bool, S.int8, S.uint16, S.int32, S.float32, S.complex64]
# rule -> Theano's output dtype per input type of TYPES (None: TypeError), and for (int8, float32)
RULES = {
    "upgrade_to_float": (["float32", "float32", "float32", "float64", "float32", "complex64"],
                         "float32"),
    "upgrade_to_float64": (["float64"] * 6, "float64"),
    "upgrade_to_float_no_complex": (["float32", "float32", "float32", "float64", "float32",
                                     None], "float32"),
    "same_out": (["bool", "int8", "uint16", "int32", "float32", "complex64"], None),
    "same_out_nobool": ([None, "int8", "uint16", "int32", "float32", "complex64"], None),
    "same_out_min8": (["int8", "int8", "uint16", "int32", "float32", "complex64"], None),
    "same_out_nocomplex": (["bool", "int8", "uint16", "int32", "float32", None], None),
    "same_out_float_only": ([None, None, None, None, "float32", None], None),
    "upcast_out": (["bool", "int8", "uint16", "int32", "float32", "complex64"], "float32"),
    "upcast_out_nobool": ([None, "int8", "uint16", "int32", "float32", "complex64"], "float32"),
    "upcast_out_min8": (["int8", "int8", "uint16", "int32", "float32", "complex64"], "float32"),
    "upcast_out_no_complex": (["bool", "int8", "uint16", "int32", "float32", None], "float32"),
    "float_out": (["float64"] * 6, "float64"),
    "float_out_nocomplex": (["float64"] * 5 + [None], "float64"),
    "int_out": (["int64"] * 6, "int64"),
    "int_out_nocomplex": (["int64"] * 5 + [None], "int64"),
    "real_out": (["bool", "int8", "uint16", "int32", "float32", "float32"], None),
}


def _apply(rule, *types):
    try:
        (out,) = rule(*types)
        return out.dtype
    except TypeError:
        return None


@pytest.mark.parametrize("name", sorted(RULES))
def test_output_type_rules(name):
    rule = getattr(S, name)
    singles, pair = RULES[name]
    assert [_apply(rule, t) for t in TYPES] == singles
    assert _apply(rule, S.int8, S.float32) == pair


def test_specific_out_and_transfer_type():
    assert S.specific_out(S.int16)(S.float32, S.int8) == (S.int16,)
    assert S.transfer_type(1)(S.int8, S.float32) == [S.float32]
    assert S.transfer_type(S.float32, 0)(S.int8, S.float32) == [S.float32, S.int8]


class Softsign(S.UnaryScalarOp):
    def impl(self, x):
        return x / (1.0 + abs(x))

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        d = 1.0 + abs(x)
        return [gz / (d * d)]


class Minus(S.ScalarOp):
    nin = 2

    def impl(self, a, b):
        return a - b


class MathExp(S.UnaryScalarOp):
    def impl(self, x):
        return math.exp(x)  # per number, as Theano called it

    def grad(self, inputs, output_grads):
        return [output_grads[0] * S.exp(inputs[0])]


scalar_softsign = Softsign(S.upgrade_to_float, name="scalar_softsign")
softsign = T.Elemwise(scalar_softsign, name="softsign")


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_user_op_values_and_gradient(mode):
    x = T.dvector("x")
    y = softsign(x)
    assert str(y) == "softsign.0"
    f = jitgraph.function([x], [y, T.grad(y.sum(), x), T.exp(y * 2) + 1], mode=mode)
    value, grad, fused = f(np.array([0.0, 1.0, -3.0]))
    # Theano 1.0.5: [0, 0.5, -0.75] and [1, 0.25, 0.0625]
    np.testing.assert_allclose(value, [0.0, 0.5, -0.75])
    np.testing.assert_allclose(grad, [1.0, 0.25, 0.0625])
    np.testing.assert_allclose(fused, np.exp(2 * value) + 1)
    g = jitgraph.function([x], T.grad(T.Elemwise(MathExp(S.upgrade_to_float))(x).sum(), x),
                          mode=mode)
    np.testing.assert_allclose(g(np.array([0.0, 1.0])), [1.0, np.e])


def test_user_op_identity_types_and_errors():
    # Theano: name for display, equality by class and type rule; nin/nout from the class
    assert (str(scalar_softsign), scalar_softsign.nin, scalar_softsign.nout) == \
        ("scalar_softsign", 1, 1)
    assert scalar_softsign == Softsign(S.upgrade_to_float, name="other")
    assert scalar_softsign != Softsign(S.same_out, name="scalar_softsign")
    assert str(Softsign(S.upgrade_to_float)) == "Softsign"
    assert pickle.loads(pickle.dumps(scalar_softsign)) == scalar_softsign
    assert softsign(T.ivector()).dtype == "float64" and softsign(T.bvector()).dtype == "float32"
    minus = Minus(S.upcast_out, name="bad")
    x = T.dvector("x")
    assert T.Elemwise(minus)(T.ivector(), T.fvector()).dtype == "float64"
    np.testing.assert_array_equal(jitgraph.function([x], T.Elemwise(minus)(x, x * 2))(
        np.array([1.0, 2.0])), [-1.0, -2.0])
    with pytest.raises(T.MethodNotDefined):  # Theano: MethodNotDefined('grad', ...)
        T.grad(T.Elemwise(minus)(x, x).sum(), x)

    class NoRule(S.UnaryScalarOp):
        def impl(self, v):
            return v

    with pytest.raises(NotImplementedError):  # Theano: Cannot calculate the output types
        T.Elemwise(NoRule())(x)


def test_user_op_on_scalar_variables():
    s = S.float64("s")
    out = scalar_softsign(s)
    assert str(out) == "scalar_softsign.0" and out.type is S.float64
    assert jitgraph.function([s], out)(1.0) == 0.5  # Theano: 0.5
    assert float(jitgraph.function([s], jitgraph.grad(out, s))(1.0)) == 0.25


def test_a_user_op_named_like_a_builtin_keeps_its_own_code():
    class Pow2(S.UnaryScalarOp):
        def impl(self, v):
            return 2 ** v

    op = Pow2(S.upgrade_to_float, name="exp")
    assert str(op) == "exp" and op.name != "exp"  # rewrites and templates match by name
    x = T.dvector()
    f = jitgraph.function([x], T.Elemwise(op)(x) + 1)
    np.testing.assert_array_equal(f(np.array([1.0, 3.0])), [3.0, 9.0])


def test_isinstance_covers_builtin_ops():
    # Theano's built-in ops derive from ScalarOp / UnaryScalarOp / BinaryScalarOp
    assert isinstance(S.exp, S.ScalarOp) and isinstance(S.exp, S.UnaryScalarOp)
    assert not isinstance(S.add, S.UnaryScalarOp) and isinstance(S.arctan2, S.BinaryScalarOp)
    assert isinstance(scalar_softsign, S.UnaryScalarOp) and not isinstance(S.exp, Softsign)
    assert not isinstance(Minus(S.upcast_out), S.UnaryScalarOp)


def test_theano_op_classes_of_builtin_ops():
    # Theano 1.0.5: Add(upcast_out, name='add') == add; isinstance(add, Add); Exp(...) == exp
    assert S.Add(S.upcast_out, name="add") == S.add and isinstance(S.add, S.Add)
    assert S.Exp(S.upgrade_to_float) == S.exp and isinstance(S.exp, S.Exp)
    assert not isinstance(S.exp, S.Add) and not isinstance(S.add, S.Exp)
    assert isinstance(S.lt, S.LogicalComparison) and not isinstance(S.eq, S.FixedLogicalComparison)
    assert isinstance(S.and_, S.BinaryBitOp) and isinstance(S.invert, S.UnaryBitOp)
    assert isinstance(S.reciprocal, S.Inv) and isinstance(S.add, S.ScalarOp)

    class PlusOne(S.Log):  # a user subclass of an op class is a user op of that arity
        def impl(self, v):
            return v + 1

    op = PlusOne(S.upgrade_to_float, name="plus_one")
    assert op.nin == 1 and isinstance(op, S.Log) and not isinstance(S.log, PlusOne)
    x = T.dvector()
    np.testing.assert_array_equal(jitgraph.function([x], T.Elemwise(op)(x))(np.ones(2)), [2, 2])


def test_cast_class_and_division_helpers():
    c = S.Cast(S.float32)  # Theano: Cast(o_type)
    assert c == S.convert_to_float32 and isinstance(S.convert_to_int8, S.Cast)
    assert not isinstance(S.add, S.Cast)
    assert c(S.int32("i")).type is S.float32
    # Theano (int_division=int): IntDiv for two integers, TrueDiv otherwise
    assert S.int_or_true_div(True, True) is S.int_div
    assert S.int_or_true_div(True, False) is S.true_div
    assert S.int_or_true_div(False, False) is S.true_div
    x, i = S.float64("x"), S.int8("i")
    assert [v.type for v in S.as_common_dtype(x, i)] == [S.float64, S.float64]
    assert str(S.mod_check(x, i)) == "mod.0"
    with pytest.raises(S.ComplexError):
        S.mod_check(S.complex64(), i)


class _ScaledBy(S.ScalarOp):
    """x * n, whose __init__ skips ScalarOp's (as Theano's own test ops do)."""

    def __init__(self):
        self.output_types_preference = S.upgrade_to_float

    def impl(self, n, x):
        return x * n

    def grad(self, inputs, gout):
        (n, x), (gz,) = inputs, gout
        return [jitgraph.gradient.grad_not_implemented(self, 0, n), gz * n]


def test_an_init_that_skips_scalar_op_init():
    # Theano 1.0.5: d(2 * x)/dx at 3.0 is 2.0 (float64), the value 6.0; the gradient through
    # the not-implemented input raises NullTypeGradError
    op = T.Elemwise(_ScaledBy())
    x = T.scalar()
    g = jitgraph.grad(op(2, x), x)
    assert g.dtype == "float64"
    assert jitgraph.function([x], g)(3.0) == 2.0
    assert jitgraph.function([x], op(2, x))(3.0) == 6.0
    with pytest.raises(jitgraph.gradient.NullTypeGradError):
        jitgraph.grad(op(x, 2), x)
