"""Tensor types as Theano programs see them: the typed constructors are ``TensorType``
instances, ``Tensor`` is ``TensorType``, constants compare through ``TensorConstantSignature``,
and the non-array types (``NoneConst``, slices). Expected values recorded from Theano 1.0.5."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.core.type import TensorType

PREFIXES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32",
            "d": "float64", "c": "complex64", "z": "complex128"}
KINDS = {"scalar": (), "vector": (False,), "row": (True, False), "col": (False, True),
         "matrix": (False, False), "tensor3": (False,) * 3, "tensor4": (False,) * 4,
         "tensor5": (False,) * 5, "tensor6": (False,) * 6, "tensor7": (False,) * 7}


@pytest.mark.parametrize("prefix", sorted(PREFIXES))
def test_typed_constructors_are_tensor_types(prefix):
    for kind, bcast in KINDS.items():
        ttype = getattr(T, prefix + kind)
        assert type(ttype) is TensorType
        assert (ttype.dtype, ttype.broadcastable) == (PREFIXES[prefix], bcast)
        x = ttype("x")
        # Theano: x.type is T.dscalar and x.type == T.dscalar
        assert x.type is ttype and x.name == "x" and ttype().name is None


def test_typed_constructor_printing_and_identity():
    # Theano: TensorType(float64, scalar) for str and repr; TensorType(complex128, 7D) ...
    assert str(T.dscalar) == repr(T.dscalar) == "TensorType(float64, scalar)"
    assert str(T.fmatrix) == "TensorType(float32, matrix)"
    assert str(T.ztensor7) == "TensorType(complex128, 7D)"
    assert str(T.ltensor3) == "TensorType(int64, 3D)"
    assert T.TensorType("float64", (False,)) == T.dvector
    assert T.TensorType("float64", (False,)) is not T.dvector
    assert T.Tensor is T.TensorType
    a, b = T.fmatrices("a", "b")
    assert a.type is T.fmatrix and b.type is T.fmatrix  # Theano: True True


def test_generic_constructors_stay_functions():
    assert callable(T.matrix) and not isinstance(T.matrix, TensorType)
    assert T.scalar("x", dtype="int16").type == TensorType("int16", ())
    with jitgraph.config.change_flags(floatX="float32"):
        assert T.matrix("m").type == T.fmatrix
    with pytest.raises(TypeError, match="keyword"):
        T.dvectors("a", dtype="int8")  # a typed plural takes no dtype


def test_as_tensor_and_as_tensor_error():
    assert T.as_tensor is T.as_tensor_variable
    assert T.as_tensor(2).type == T.bscalar  # Theano: TensorType(int8, scalar)
    assert T.as_tensor_variable(np.float32(1.5)).type == T.fscalar
    assert T.as_tensor([1, 2], name="v").name == "v"
    assert issubclass(T.AsTensorError, TypeError)
    for bad in (None, "abc", {"a": 1}, object()):  # Theano: AsTensorError for each
        with pytest.raises(T.AsTensorError):
            T.as_tensor_variable(bad)


# -- TensorConstantSignature ----------------------------------------------------------------

def test_tensor_constant_signature_compares_values():
    TCS = T.TensorConstantSignature
    c = T.constant([1.0, 2.0, np.nan])
    a = TCS((c.type, np.array([1.0, 2.0, np.nan])))
    b = TCS((c.type, np.array([1.0, 2.0, np.nan])))
    assert isinstance(a, tuple) and a == b and hash(a) == hash(b)  # Theano: True True
    assert a.sum == 3.0 and a.has_nan and str(a.no_nan) == "[1.0 2.0 --]"
    vec = np.array([1.0, 2.0])
    assert TCS((T.dvector, vec)) == TCS((T.dvector, vec.copy()))
    assert TCS((T.dvector, vec)) != TCS((T.dvector, np.array([1.0, 3.0])))
    assert TCS((T.dvector, vec)) != (T.dvector, vec)  # Theano: False (plain tuple)
    assert TCS((T.dvector, vec)) != TCS((T.fvector, vec.astype("float32")))
    assert TCS((T.dvector, vec)) != TCS((T.dvector, np.array([1.0, 2.0, 3.0])))
    assert TCS((T.dscalar, np.array(1.0))) != 5
    assert TCS((T.ivector, np.array([1, 2], "int32"))).sum == 3
    assert not TCS((T.ivector, np.array([1, 2], "int32"))).has_nan


# -- None and slices ------------------------------------------------------------------------

def test_none_const():
    assert str(T.NoneConst) == "NoneConst" and T.NoneConst.data is None
    assert T.NoneConst.type == T.NoneTypeT() == T.none_type_t
    assert hash(T.NoneTypeT()) == hash(T.none_type_t)
    assert str(T.none_type_t) == "NoneTypeT" and isinstance(T.none_type_t, T.Generic)
    assert T.none_type_t.filter(None) is None
    with pytest.raises(TypeError, match="None"):  # Theano: TypeError Expected None!
        T.none_type_t.filter(1)


def test_slice_type_and_constants():
    assert str(T.slicetype) == "slice" and T.SliceType() == T.slicetype
    assert T.slicetype.filter(slice(1, 2)) == slice(1, 2)
    with pytest.raises(TypeError, match="slice"):  # Theano: Expected a slice!
        T.slicetype.filter(3)
    sc = T.SliceConstant(T.slicetype, slice(np.int64(1), 5, None))
    assert str(sc) == "SliceConstant{1, 5, None}"  # Theano's text
    assert type(sc.data.start) is int
    assert sc.signature() == (T.SliceConstant, 1, 5, None)
    assert sc.equals(T.SliceConstant(T.slicetype, slice(1, 5)))


def test_make_slice():
    assert isinstance(T.make_slice, T.MakeSlice) and T.MakeSlice() == T.make_slice
    s = T.make_slice(1, 5, None)
    assert s.type == T.slicetype and str(s.owner.op) == "MakeSlice"
    # Theano: [TensorConstant{1}, TensorConstant{5}, NoneConst] of types int8, int8, NoneTypeT
    assert [str(i) for i in s.owner.inputs] == ["TensorConstant{1}", "TensorConstant{5}",
                                                 "NoneConst"]
    assert [str(i.type) for i in T.make_slice(slice(None, 3)).owner.inputs] == \
        ["NoneTypeT", "TensorType(int8, scalar)", "NoneTypeT"]
    i = T.iscalar("i")
    f = jitgraph.function([i], T.make_slice(i, 4))
    assert f(2) == slice(2, 4, None)  # Theano: slice(array(2, dtype=int32), array(4, ...))
    with pytest.raises(TypeError, match="integers"):  # Theano: index must be integers
        T.make_slice(1.5, 2)
    assert T.as_int_none_variable(None) is T.NoneConst
    assert T.as_int_none_variable(T.lscalar()).type == T.lscalar
    with pytest.raises(ValueError):  # Theano: TensorType could not be cast to have 0 dims
        T.as_int_none_variable(T.lvector())
