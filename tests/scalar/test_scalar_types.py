"""``jitgraph.scalar`` types, constants and conversions (Theano's ``theano.scalar``); expected
values recorded from Theano 1.0.5."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.scalar as S
import jitgraph.tensor as T

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_types_by_name(dtype):
    stype = getattr(S, dtype)
    assert isinstance(stype, S.Scalar) and stype.dtype == dtype
    assert str(stype) == dtype and repr(stype) == f"Scalar({dtype})"  # Theano's texts
    assert stype == S.Scalar(dtype) and S.get_scalar_type(dtype) is stype
    x = stype("x")
    assert isinstance(x, S.ScalarVariable) and x.type is stype and x.name == "x"
    assert x.dtype == dtype


def test_bool_name_does_not_shadow_the_builtin():
    assert S.bool.dtype == "bool" and bool(1) is True


def test_type_groups():
    assert S.int_types == (S.int8, S.int16, S.int32, S.int64)
    assert S.float_types == (S.float16, S.float32, S.float64)
    assert S.discrete_types[0] is S.bool and len(S.all_types) == 14
    assert S.continuous_types == S.float_types + S.complex_types


def test_upcast():
    # Theano 1.0.5
    assert S.upcast("int8", "float32") == "float32"
    assert S.upcast("int32", "float32") == "float64"
    assert S.upcast("int64", "float32") == "float64"
    assert S.upcast("int8") == "int8" and S.upcast("int8", "uint8") == "int16"
    assert S.upcast("float32", "int16") == "float32" and S.upcast("bool", "bool") == "bool"


def test_filter():
    # Theano: 3.0 float64 from 3 and from array(3); 3.5 float32; int8 refuses 300; strict
    # needs a numpy.float64
    assert type(S.float64.filter(3)) is np.float64 and S.float64.filter(np.array(3)) == 3.0
    assert type(S.float32.filter(3.5)) is np.float32
    assert S.int32.filter(3.0) == 3 and type(S.int32.filter(3.0)) is np.int32
    with pytest.raises(TypeError, match="int8"):
        S.int8.filter(300)
    with pytest.raises(TypeError, match="without changing its value"):
        S.int32.filter(3.5)
    assert S.int32.filter(3.5, allow_downcast=True) == 3
    with pytest.raises(TypeError, match="numpy.float64"):
        S.float64.filter(3.5, strict=True)
    assert S.float64.filter(np.float64(3.5), strict=True) == 3.5
    with pytest.raises(TypeError, match="one number"):
        S.float64.filter([1.0, 2.0])
    assert np.isnan(S.float64.filter(float("nan")))
    assert S.float64.values_eq_approx(1.0, 1.0 + 1e-12)  # Theano: True


def test_constants():
    c = S.constant(3)
    assert isinstance(c, S.ScalarConstant) and str(c) == "Constant{3}" and c.type is S.int8
    assert S.constant(3.5).type is S.float32 and str(S.constant(3.5)) == "Constant{3.5}"
    assert S.constant(True).type is S.bool
    assert S.constant(np.float32(2)).type is S.float32
    assert S.constant(2 ** 40).type is S.int64 and S.constant(np.array(3)).type is S.int64
    assert S.constant(1.5, name="c").name == "c"
    with pytest.raises(TypeError):  # Theano: AssertionError
        S.constant([1])


def test_as_scalar():
    t = T.dscalar("t")
    s = S.as_scalar(t)  # Theano: ScalarFromTensor.0
    assert isinstance(s, S.ScalarVariable) and isinstance(s.owner.op, S.ScalarFromTensor)
    u = S.float32("u")
    assert S.as_scalar(u) is u
    assert S.as_scalar(2.0).type is S.float32  # Theano: Constant{2.0} float32
    with pytest.raises(TypeError):  # Theano: Variable type field must be a Scalar
        S.as_scalar(T.dvector())
    with pytest.raises(TypeError, match="None"):
        S.as_scalar(None)


def test_plural_constructors():
    a, b = S.ints("a", "b")
    assert a.type is S.int64 and b.name == "b"
    assert S.floats("x").type is S.float64 and S.floats("x").name == "x"
    assert [v.name for v in S.complexs("p q")] == ["p", "q"]
    assert len(S.floats(2)) == 2
    # Theano 1.0.5: floats('xyz') -> [x, y, z] (one variable per letter), ints('ab') -> [a, b]
    assert [v.name for v in S.floats("xyz")] == ["x", "y", "z"]
    assert [v.type for v in S.ints("ab")] == [S.int64, S.int64]


def test_tensor_scalar_bridge():
    x, t = S.float64("x"), T.dscalar("t")
    assert S.tensor_from_scalar(x).type == T.dscalar
    assert S.scalar_from_tensor(t).type is S.float64
    with pytest.raises(TypeError, match="0-d"):
        S.scalar_from_tensor(T.dvector())
    assert T.as_tensor_variable(x).type == T.dscalar  # through ScalarVariable.as_tensor
    f = jitgraph.function([x], S.tensor_from_scalar(x) * T.ones(3))
    np.testing.assert_array_equal(f(2.0), [2.0, 2.0, 2.0])  # Theano: array([2., 2., 2.])
    g = jitgraph.function([t], S.scalar_from_tensor(t) * 2)
    assert g(2.0) == 4.0 and type(g(2.0)) is np.float64  # Theano: 4.0 float64
    assert jitgraph.grad(T.sum(S.tensor_from_scalar(S.scalar_from_tensor(t)) * 3), t).eval(
        {t: 1.0}) == 3.0
