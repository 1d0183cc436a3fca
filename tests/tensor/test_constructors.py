"""Theano's variable constructors and their plural forms."""

import pytest

import jitgraph
import jitgraph.tensor as T


@pytest.mark.parametrize("prefix,dtype", [("b", "int8"), ("w", "int16"), ("i", "int32"),
                                          ("l", "int64"), ("f", "float32"), ("d", "float64"),
                                          ("c", "complex64"), ("z", "complex128")])
@pytest.mark.parametrize("kind,bcast", [("scalar", ()), ("vector", (False,)),
                                        ("row", (True, False)), ("col", (False, True)),
                                        ("matrix", (False, False)), ("tensor3", (False,) * 3),
                                        ("tensor4", (False,) * 4)])
def test_prefixed_constructors(prefix, dtype, kind, bcast):
    var = getattr(T, prefix + kind)("v")
    assert var.dtype == dtype and var.broadcastable == bcast and var.name == "v"


def test_generic_constructors_follow_floatx():
    assert T.matrix().dtype == "float64"
    with jitgraph.config.change_flags(floatX="float32"):
        assert T.matrix().dtype == "float32" and T.vector(dtype="int32").dtype == "int32"


def test_plural_forms():
    a, b = T.dmatrices("a", "b")
    assert (a.name, b.name) == ("a", "b")
    x, y, z = T.dscalars("x y z")
    assert z.name == "z"
    assert [v.name for v in T.fvectors("p,q")] == ["p", "q"]
    assert len(T.ivectors(3)) == 3
    single = T.dvectors("u")
    assert single.name == "u"  # Theano: one name gives one variable
    assert [v.name for v in T.dvectors("uv")] == ["u", "v"]  # and letters are names


def test_tensor_type_and_generic_tensor():
    t = T.TensorType("float32", (False, True))("t")
    assert str(t.type) == "TensorType(float32, col)"
    assert T.tensor("int64", (False,) * 5).ndim == 5
