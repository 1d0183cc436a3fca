"""Names of Theano 1.0.5's modules that its own unit tests (and some user code) import, and that
behave as Theano's: tolerance-aware comparison, casting ops, float autocasting, the pydot
probe, ``check_stack_trace``, ... Expected values recorded from Theano 1.0.5 (theano-oracle)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T


def test_allclose_uses_the_narrowest_precision_tolerances():
    from jitgraph.tensor.basic import _allclose, _get_atol_rtol

    # Theano 1.0.5: False True False True True True True
    assert not _allclose(np.float32(1), np.float32(1 + 2e-5))
    assert _allclose(np.float32(1), np.float32(1 + 5e-6))
    assert not _allclose(1.0, 1 + 2e-5)
    assert _allclose(1.0, 1 + 5e-6)
    assert _allclose(np.float16(1), np.float16(1.002))
    assert _allclose(1.0, 1.1, rtol=0.2)
    assert _allclose(np.float32(1), 1 + 5e-6)  # one float32 operand: float32 tolerances
    assert _get_atol_rtol(np.zeros(1, "float32"), np.zeros(1)) == (1e-5, 1e-5)
    assert _get_atol_rtol(np.zeros(1, "float16"), np.zeros(1, "float32")) == (1e-3, 1e-3)


def test_values_eq_approx_follows_thenos_float16_tolerance():
    # Theano compares float16 values with atol = rtol = 1e-3 (cmp_sloppy=0): 1.004 differs
    t = T.TensorType("float16", (False,))
    assert not t.values_eq_approx(np.float16([1.0]), np.float16([1.004]))
    assert t.values_eq_approx(np.float16([1.0]), np.float16([1.0009]))


def test_tolerance_settings_can_be_read_and_assigned_as_in_theano():
    from jitgraph.tensor import basic

    # Theano 1.0.5: 1e-05 1e-05 1e-08 1e-05 / False / 0.0001 True / False (1e-05, 1e-05)
    a, c = np.float32([1.0]), np.float32([1.0 + 5e-5])
    assert (basic.float32_atol, basic.float32_rtol, basic.float64_atol,
            basic.float64_rtol) == (1e-5, 1e-5, 1e-8, 1e-5)
    assert not basic._allclose(a, c)
    old = basic.float32_atol, basic.float32_rtol
    try:
        basic.float32_atol = 1e-4
        assert basic.float32_atol == 1e-4 and basic._allclose(a, c)
    finally:
        basic.float32_atol, basic.float32_rtol = old
    assert not basic._allclose(a, c) and basic._get_atol_rtol(a, c) == (1e-5, 1e-5)


def test_convert_to_ops_always_add_a_cast_node():
    from jitgraph.tensor.basic import _convert_to_float32, _convert_to_int32

    x = T.ivector()
    y = _convert_to_int32(x)  # unlike T.cast, which returns x itself
    assert y is not x and str(y.owner.op) == "Elemwise{Cast{int32}}" and y.dtype == "int32"
    assert y.owner.op == T.cast(T.fvector(), "int32").owner.op
    assert _convert_to_float32(x).dtype == "float32"
    f = theano.function([x], _convert_to_float32(x))
    assert f(np.array([1, 2], "int32")).dtype == np.float32


def test_autocast_float_as_sets_the_dtype_of_python_floats():
    from jitgraph.scalar import autocast_float, autocast_float_as

    # dtypes recorded from Theano 1.0.5 under floatX=float64
    assert autocast_float.dtypes == ("float16", "float32", "float64")
    with autocast_float_as("float32"):
        assert autocast_float.dtypes == ("float32",)
        assert [(T.dvector() + 1.1).dtype, (T.fvector() + 1.1).dtype,
                T.constant(1.1).dtype] == ["float64", "float32", "float32"]
        with autocast_float_as("float64"):
            assert (T.fvector() + 1.0).dtype == "float64"
        assert autocast_float.dtypes == ("float32",)
    with autocast_float_as("float64"):
        assert [(T.fvector() + 1.1).dtype, T.constant(1.0).dtype] == ["float64", "float64"]
    with autocast_float_as("float32", "float64"):
        assert [(T.fvector() + 1.1).dtype, (T.fvector() + 1.0).dtype,
                T.constant(0.5).dtype] == ["float64", "float32", "float32"]
    assert autocast_float.dtypes == ("float16", "float32", "float64")
    assert [T.constant(1.1).dtype, T.constant(0.5).dtype] == ["float64", "float32"]


def test_autocast_float_as_needs_the_custom_cast_policy():
    from jitgraph.scalar import autocast_float_as

    with theano.change_flags(cast_policy="numpy+floatX"):
        with pytest.raises(ValueError, match="cast_policy"):
            autocast_float_as("float32")


@pytest.mark.parametrize("L, expected, dtype", [
    (1, 6.0, "float64"), (2, 3.74165739, "float64"), (3, 3.30192725, "float64"),
    (0.5, 17.19150823, "float64")])
def test_norm_of_any_order(L, expected, dtype):
    # Theano 1.0.5, ivector [1, -2, 3]: the norm is sum(|x|**L)**(1/L), a float
    x = T.ivector()
    y = x.norm(L)
    assert y.dtype == dtype
    np.testing.assert_allclose(theano.function([x], y)(np.array([1, -2, 3], "int32")), expected)


def test_norm_dtypes_and_keepdims():
    # Theano 1.0.5: float32 input, L=2 stays float32; L=3 is float64 (1/3 is a float64 constant)
    assert [T.fvector().norm(L).dtype for L in (1, 2, 3, 0.5)] == \
        ["float32", "float32", "float64", "float32"]
    x = T.dmatrix()
    y = x.norm(2, axis=1, keepdims=True)
    assert y.broadcastable == (False, True)
    np.testing.assert_allclose(theano.function([x], y)(np.array([[3.0, 4], [6, 8]])),
                               [[5.0], [10.0]])
    np.testing.assert_allclose(theano.function([x], x.norm(3, axis=-1))(
        np.array([[1.0, -2], [3, 4]])), [2.08008382, 4.49794145])
    for L in (0, np.inf):
        with pytest.raises(NotImplementedError, match="non-zero"):
            x.norm(L)


def test_small_names_of_theano_modules():
    from jitgraph.compile.mode import AddFeatureOptimizer
    from jitgraph.compile.sharedvalue import generic
    from jitgraph.sparse import enable_sparse
    from jitgraph.tensor.elemwise import CAReduce, Sum

    assert theano._asarray([1, 2], dtype="float32").dtype == np.float32
    assert "_asarray" not in theano.__all__
    assert type(T._shared(np.zeros(2))).__name__ == "TensorSharedVariable"
    assert enable_sparse is (importlib.util.find_spec("scipy") is not None)
    assert isinstance(T.sum(T.dvector()).owner.op, (CAReduce, Sum))
    assert AddFeatureOptimizer is importlib.import_module(
        "jitgraph.compile.graph_rewriters").AddFeatureOptimizer
    assert generic is importlib.import_module("jitgraph.graph.type").generic


def test_pydot_imported_says_whether_pictures_can_be_drawn(monkeypatch):
    import jitgraph.printing as printing
    from jitgraph.graph import pydotprint

    ok, why = pydotprint.pydot_status()
    assert printing.pydot_imported is ok and printing.pydot_imported_msg == why
    assert ok or "pydot" in why or "Graphviz" in why


def test_cached_constant_error_explains_why_it_is_absent():
    from jitgraph.gof import CachedConstantError
    from jitgraph.unavailable import NotAvailableError

    with pytest.raises(NotAvailableError, match="cache constants"):
        CachedConstantError()


def test_check_stack_trace():
    from jitgraph.gof.opt import check_stack_trace

    x = T.dvector()
    f = theano.function([x], T.exp(x) * 2)
    assert check_stack_trace(f)
    assert check_stack_trace(f, ops_to_check="all")
    assert check_stack_trace(f.maker.fgraph, ops_to_check=lambda node: True)
    node = f.maker.fgraph.outputs[0].owner
    assert check_stack_trace(f, ops_to_check=type(node.op))
    node.outputs[0].tag.trace = []
    assert not check_stack_trace(f)
    with pytest.raises(ValueError, match="no node"):
        check_stack_trace(f, ops_to_check=T.nnet.Softmax)
    assert check_stack_trace(f, ops_to_check=[T.nnet.Softmax], bug_print="ignore")
    with pytest.raises(ValueError, match="'last'"):
        check_stack_trace(f, ops_to_check="first")


def test_star_import_of_raw_random_brings_theanos_module_names():
    # Theano's raw_random had no __all__: its tests take `theano`, `tensor`, ... from the star
    namespace: dict = {}
    exec("from jitgraph.tensor.raw_random import *", namespace)
    assert namespace["theano"] is theano and namespace["tensor"] is T
    assert namespace["np"] is np and namespace["xrange"] is range
    assert namespace["opt"].__name__ == "jitgraph.tensor.opt"
    assert {"RandomFunction", "random_state_type", "permutation_helper", "uniform"} <= set(namespace)


def test_zero_disconnected_of_nlinalg():
    from jitgraph.graph.gradient_types import DisconnectedType
    from jitgraph.tensor.nlinalg import _zero_disconnected

    w, g = T.dvector(), T.dvector()
    zeros, same = _zero_disconnected([w, w], [DisconnectedType()(), g])
    assert same is g
    np.testing.assert_array_equal(theano.function([w], zeros)(np.ones(3)), np.zeros(3))


def test_tensor_scal_is_the_scalar_package():
    # Theano's tests import scal from theano.tensor (test_basic, test_xlogx, test_nnet)
    from jitgraph.tensor import scal

    assert scal is importlib.import_module("jitgraph.scalar")


def test_conv_says_it_can_compute_without_scipy_signal():
    # Theano's test_conv skips unless conv.imported_scipy_signal: ConvOp runs here without it
    from jitgraph.tensor.nnet import conv

    assert conv.imported_scipy_signal is True
    x, w = T.dtensor4(), T.dtensor4()
    f = theano.function([x, w], conv.conv2d(x, w))
    assert f(np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))).tolist() == [[[[4.0, 4.0], [4.0, 4.0]]]]


def test_optdb_of_compile_mode_rewrites_before_any_compile():
    # Theano's tests run theano.compile.mode.optdb.query(OPT_FAST_RUN).optimize(fgraph)
    # directly: the query loads the rewrite modules, optimize is rewrite
    import subprocess
    import sys

    program = ("import jitgraph as theano, jitgraph.tensor as T\n"
               "from jitgraph import gof\n"
               "x = T.dmatrix()\n"
               "fg = gof.FunctionGraph([x], [T.log(1 + T.exp(x)) * 1])\n"
               "theano.compile.mode.optdb.query(theano.compile.mode.OPT_FAST_RUN).optimize(fg)\n"
               "print([str(n.op) for n in fg.toposort()])\n")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.strip() == "['softplus']"


def test_scalar_basic_is_an_attribute_of_the_scalar_package():
    # import theano made theano.scalar.basic reachable (test_conv uses it without importing)
    import subprocess
    import sys

    program = ("import jitgraph\n"
               "print(jitgraph.scalar.basic.__name__, jitgraph.scalar.basic_scipy.__name__)\n")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.split() == ["jitgraph.scalar.basic", "jitgraph.scalar.basic_scipy"]
