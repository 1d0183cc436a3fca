"""Theano's non-op ``theano.tensor`` names: axis helpers, ``numpy_scalar``, ``largest``/
``smallest``, ``transfer``, ``default``, ``load``, and the names that cannot exist here (MPI,
C code). Expected values recorded from Theano 1.0.5 (``theano-oracle``)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph._facade.paths import ADDED
from jitgraph.graph.utils import hashtype, key_to_cmp

# -- axes -----------------------------------------------------------------------------------

# axis -> Theano 1.0.5's check_and_normalize_axes(dmatrix, axis)
AXES = [(None, []), (0, [0]), (1, [1]), (-1, [1]), ([0, 1], [0, 1]), ((1, 0), [0, 1]),
        ([-1, 0], [0, 1]), ([0, 0], [0]), (np.int64(1), [1]), (True, [1]), ([], []),
        (np.array([1, 0]), [0, 1]), ([np.int32(1)], [1])]


@pytest.mark.parametrize("axis,expected", AXES)
def test_check_and_normalize_axes(axis, expected):
    assert T.check_and_normalize_axes(T.dmatrix(), axis) == expected


def test_check_and_normalize_axes_errors():
    m = T.dmatrix()
    assert T.check_and_normalize_axes(m, T.constant(1)) == [1]
    assert T.check_and_normalize_axes(m, T.constant([0, 1])) == [0, 1]
    for bad in (2, -3, [0, 5]):  # Theano: ValueError (valid axis number for 2-D tensor)
        with pytest.raises(ValueError, match="out of range"):
            T.check_and_normalize_axes(m, bad)
    for bad in (1.5, "a", T.iscalar(), T.dscalar()):  # Theano: TypeError
        with pytest.raises(TypeError):
            T.check_and_normalize_axes(m, bad)
    assert T.check_and_normalize_axes(T.dscalar(), None) == []
    with pytest.raises(ValueError):
        T.check_and_normalize_axes(T.dscalar(), 0)


# (axis, broadcastable of makeKeepDims(m, sum(m, axis), axis)) from Theano 1.0.5
KEEPDIMS = [(None, (True, True)), (0, (True, False)), (1, (False, True)), (-1, (False, True)),
            ([0, 1], (True, True)), ([-1], (False, True)), ((0,), (True, False))]


@pytest.mark.parametrize("axis,bcast", KEEPDIMS)
def test_make_keep_dims(axis, bcast):
    m = T.dmatrix("m")
    kept = T.makeKeepDims(m, T.sum(m, axis=axis), axis)
    assert kept.broadcastable == bcast
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(kept.eval({m: value}),
                                  np.sum(value, axis=None if axis is None else tuple(
                                      np.atleast_1d(axis)), keepdims=True))


def test_make_keep_dims_other_cases():
    t = T.tensor3("t")
    assert T.makeKeepDims(t, T.sum(t, axis=[0, 2]), [0, 2]).broadcastable == (True, False, True)
    assert T.makeKeepDims(T.fmatrix(), 2.0, None).type == T.TensorType("float32", (True, True))
    m = T.dmatrix()
    with pytest.raises(ValueError):  # Theano: ValueError from DimShuffle
        T.makeKeepDims(m, T.sum(m, axis=1), 2)
    with pytest.raises(ValueError):
        T.makeKeepDims(m, m, 1)


def test_is_flat_and_alloc_validate_shape():
    m, v = T.dmatrix(), T.dvector()
    assert (T.is_flat(m), T.is_flat(v), T.is_flat(m, 2), T.is_flat(m, outdim=2)) == \
        (False, True, True, True)
    assert T.is_flat(np.ones(3))
    with pytest.raises(ValueError):
        T.is_flat(m, 2, 3)
    n = T.iscalar("n")
    dims, bcast = T.alloc_validate_shape((1, n))
    assert [d.type for d in dims] == [T.bscalar, T.iscalar] and bcast == [True, False]
    assert T.alloc_validate_shape([2, 3])[1] == [False, False]
    with pytest.raises(TypeError):  # Theano: shape arguments must be integers
        T.alloc_validate_shape((2.5,))


# -- constants ------------------------------------------------------------------------------

def test_numpy_scalar():
    assert T.numpy_scalar(np.array(3.0)) == 3.0
    one = np.array([[[2]]], "int8")
    assert T.numpy_scalar(one) is one  # Theano: array([[[2]]], dtype=int8), unchanged
    assert issubclass(T.EmptyConstantError, T.NotScalarConstantError)
    with pytest.raises(T.EmptyConstantError):
        T.numpy_scalar(np.zeros((0,)))
    for bad in (np.array([1, 2]), np.array(["a"]), np.zeros((2, 0))):
        with pytest.raises(T.NotScalarConstantError) as info:
            T.numpy_scalar(bad)
        assert not isinstance(info.value, T.EmptyConstantError)


def test_check_equal_numpy():
    # Theano 1.0.5: arrays within 1e-10 of the same dtype and shape; NaN never equal.
    assert not T.check_equal_numpy(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    assert T.check_equal_numpy(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-12]))
    assert not T.check_equal_numpy(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
    assert not T.check_equal_numpy(np.array([1, 2]), np.array([1.0, 2.0]))
    assert not T.check_equal_numpy(np.array([1.0]), np.array([1.0, 2.0]))
    assert T.check_equal_numpy(np.random.RandomState(1), np.random.RandomState(1))
    assert not T.check_equal_numpy(np.random.RandomState(1), np.random.RandomState(2))
    assert T.check_equal_numpy("a", "a")
    assert T.values_eq_approx_always_true(1, 2)


def test_shape_error_and_method_not_defined():
    assert issubclass(T.ShapeError, Exception)
    assert issubclass(T.MethodNotDefined, Exception)
    x = T.dvector()
    t = type(x)
    assert T.hashtype is hashtype and hashtype(x) == hash(t.__name__) ^ hash(t.__module__)
    assert hashtype(x) == hashtype(T.dvector()) and hashtype(x) != hash(t)
    cmp = key_to_cmp(lambda a: -a)
    assert (cmp(1, 2), cmp(2, 1), cmp(1, 1)) == (1, -1, 0)  # Theano: (1, -1, 0)
    assert T.constructor(len) is len


# -- several tensors -----------------------------------------------------------------------

def test_largest_and_smallest():
    x, y = T.dvectors("x", "y")
    xv, yv = np.array([1.0, 5.0]), np.array([3.0, 2.0])
    # Theano: [3, 5], [1, 2], [1, 2], and largest(x) is x's values (max over a stack of one)
    np.testing.assert_array_equal(T.largest(x, y).eval({x: xv, y: yv}), [3.0, 5.0])
    np.testing.assert_array_equal(T.largest(x, y, x).eval({x: xv, y: yv}), [3.0, 5.0])
    np.testing.assert_array_equal(T.smallest(x, y).eval({x: xv, y: yv}), [1.0, 2.0])
    np.testing.assert_array_equal(T.smallest(x, y, x).eval({x: xv, y: yv}), [1.0, 2.0])
    one = T.largest(x)
    assert one.type == T.dvector
    np.testing.assert_array_equal(one.eval({x: xv}), xv)
    assert T.largest(x, T.dmatrix()).type == T.dmatrix
    with pytest.raises(TypeError):
        T.largest()


def test_mod_check():
    x = T.dvector()
    assert T.mod_check(x, 3).owner.op == (x % 3).owner.op
    from jitgraph.scalar import ComplexError

    assert issubclass(ComplexError, NotImplementedError)
    with pytest.raises(ComplexError, match="complex"):
        T.mod_check(T.zvector(), T.zvector())


def test_transfer_and_register_transfer(monkeypatch):
    from jitgraph.tensor.core import helpers

    x = T.dvector("x")
    assert T.transfer(x, "cpu") is x and x.transfer("cpu") is x
    for target in (None, "gpu", "foo"):  # Theano: ValueError Can't transfer to target ...
        with pytest.raises(ValueError):
            T.transfer(x, target)
    monkeypatch.setattr(helpers, "_TRANSFERS", [])
    assert T.register_transfer(lambda v, t: v if t == "foo" else None) is None
    assert T.transfer(x, "foo") is x
    with pytest.raises(ValueError):
        T.transfer(x, "bar")


# -- Default --------------------------------------------------------------------------------

def test_default():
    x, y = T.dvectors("x", "y")
    d = T.default(x, y)
    assert T.setdefault is T.default and isinstance(T.default, T.Default)
    assert str(d.owner.op) == "Default" and d.type == T.dvector
    f = jitgraph.function([x, y], d)
    np.testing.assert_array_equal(f([1.0], [2.0]), [1.0])  # Theano: array([1.])
    with pytest.raises(TypeError, match="same type"):
        T.default(x, T.fvector())
    with pytest.raises(T.AsTensorError):  # Theano: Cannot convert None to TensorType
        T.default(None, y)
    out = [None]
    T.default.perform(d.owner, [None, np.array([4.0])], [out])
    assert out[0].tolist() == [4.0]


# -- load -----------------------------------------------------------------------------------

def test_load_reads_the_file_at_each_call(tmp_path):
    path = str(tmp_path / "a.npy")
    np.save(path, np.arange(6.0).reshape(2, 3))
    v = T.load(path, "float64", (False, False))
    # Theano: Load{dtype: float64, broadcastable: (False, False), mmep: None}
    assert str(v.owner.op) == "Load{dtype: float64, broadcastable: (False, False), mmep: None}"
    assert v.type == T.dmatrix
    f = jitgraph.function([], v)
    np.testing.assert_array_equal(f(), np.arange(6.0).reshape(2, 3))
    np.save(path, np.ones((1, 2)))  # never constant-folded: the new contents are read
    np.testing.assert_array_equal(f(), np.ones((1, 2)))
    p = jitgraph.generic("p")
    g = jitgraph.function([p], T.load(p, "float64", (False, False)))
    np.testing.assert_array_equal(g(path), np.ones((1, 2)))
    mapped = jitgraph.function([], T.load(path, "float64", (False, False), mmap_mode="c"))()
    assert isinstance(mapped, np.memmap)


def test_load_errors(tmp_path):
    path = str(tmp_path / "a.npy")
    np.save(path, np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="float32"):  # Theano: Expected an array of type float32
        T.load(path, "float32", (False, False)).eval()
    with pytest.raises(TypeError, match="shape"):
        T.load(path, "float64", (False,)).eval()
    with pytest.raises(ValueError, match="mmap_mode"):  # Theano: only None and 'c'
        T.LoadFromDisk("float64", (False,), mmap_mode="w")
    assert T.LoadFromDisk("float64", (False,)) == T.LoadFromDisk("float64", (False,))


# -- names that cannot exist ------------------------------------------------------------------

MPI_CALLS = [lambda: T.isend(T.dvector(), 1, 2), lambda: T.send(T.dvector(), 1, 2),
             lambda: T.irecv((2,), "float64", 0, 1), lambda: T.recv((2,), "float64", 0, 1),
             lambda: T.MPISend(1, 2), lambda: T.MPIRecv(0, 1, (2,), "float64"),
             lambda: T.MPISendWait(1), lambda: T.MPIRecvWait(1), lambda: T.mpi_tag_key(None),
             lambda: T.mpi_tag_cmp(1, 2), lambda: T.mpi_send_wait_key(None),
             lambda: T.mpi_send_wait_cmp(1, 2)]


@pytest.mark.parametrize("call", MPI_CALLS)
def test_mpi_names_explain_there_is_no_mpi(call):
    with pytest.raises(NotImplementedError, match="no MPI ops.*mpi4py.*Dask"):
        call()


def test_c_code_names_explain():
    from jitgraph.graph.c_code import CCodeUnavailableError

    with pytest.raises(CCodeUnavailableError, match="perform"):
        T.inc_code()
    with pytest.raises(CCodeUnavailableError, match="__props__"):
        T.ParamsType(x=T.dscalar)


# -- names re-exported from elsewhere --------------------------------------------------------

def test_graph_names_and_config():
    from jitgraph.graph import basic, op, type as gtype

    assert T.Variable is basic.Variable and T.Constant is basic.Constant
    assert T.Apply is basic.Apply and T.Op is op.Op and T.Type is gtype.Type
    assert T.Generic is gtype.GenericType and T.config is jitgraph.config
    from jitgraph import scalar

    assert T.int32 is scalar.int32 and T.int32_t is scalar.int32  # Theano: Scalar(int32)
    assert T.tensor_from_scalar is scalar.tensor_from_scalar
    assert T.scalar_from_tensor is scalar.scalar_from_tensor


LAZY_ELSEWHERE = ["Lop", "Rop", "consider_constant", "grad_not_implemented", "grad_undefined",
                  "hessian", "jacobian", "numeric_grad", "DisconnectedType", "pprint",
                  "min_informative_str", "Rebroadcast"]


@pytest.mark.parametrize("name", LAZY_ELSEWHERE)
def test_names_from_other_packages(name):
    targets = {**ADDED["jitgraph.tensor"].names,
               "Rebroadcast": "jitgraph.tensor.shaping.rebroadcast:Rebroadcast"}
    module, _, attr = targets[name].partition(":")
    try:
        value = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        pytest.skip(f"{module}.{attr} does not exist yet")
    assert getattr(T, name) is value and name in dir(T)


def test_a_missing_lazy_name_is_absent(monkeypatch):
    monkeypatch.setitem(ADDED["jitgraph.tensor"].names, "not_there",
                        "jitgraph.graph.utils:not_there")
    assert not hasattr(T, "not_there") and "not_there" not in dir(T)


def test_theano_submodule_paths():
    import jitgraph.tensor.core.io as tio
    import jitgraph.tensor.core.type_other as tother
    import jitgraph.tensor.elementwise.xlogx as txlogx

    assert T.io is tio and T.type_other is tother and T.xlogx is txlogx
    assert T.nnet is importlib.import_module("jitgraph.tensor.nnet")
    assert T.extra_ops is importlib.import_module("jitgraph.tensor.extras.extra_ops")
    assert T.basic is importlib.import_module("jitgraph.tensor.core.basic")


def test_module_level_values_eq_approx_variants_excuse_only_the_first_values():
    # Recorded from Theano 1.0.5's theano.tensor.type for the pairs below
    from jitgraph.tensor.core import type as tensor_type

    a = np.array([1.0, np.nan, np.inf, 2.0])
    b = np.array([1.0, 5.0, 3.0, 2.0])
    c = np.array([1.0, np.nan, 3.0, 2.0])
    pairs = [(a, b), (b, a), (c, b), (b, c), (a, a), (b, b), (c, c)]
    expected = {
        "values_eq_approx_remove_inf": [False, False, False, False, True, True, True],
        "values_eq_approx_remove_nan": [False, False, True, False, True, True, True],
        "values_eq_approx_remove_inf_nan": [True, False, True, False, True, True, True],
    }
    for name, answers in expected.items():
        fn = getattr(tensor_type, name)
        assert [bool(fn(x, y)) for x, y in pairs] == answers, name
