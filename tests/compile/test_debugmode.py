"""DebugMode: the seed example, and one planted bug for each error it must find."""

from __future__ import annotations

import pathlib
import sys
import warnings

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import In, function
from jitgraph.compile import debugmode
from jitgraph.compile.debugmode import (BadDestroyMap, BadOptimization, BadThunkOutput,
                                        BadViewMap, DebugMode, DebugModeError,
                                        DebugModeWarning, InvalidValueError, StochasticOrder,
                                        StridesMismatch)
from jitgraph.compile.linker import make_program, perform_thunk
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def py_debug(**kwargs):
    """DebugMode checking perform() only (no compiled kernels: fast, no numba needed)."""
    return DebugMode(check_c_code=False, **kwargs)


# ---------------------------------------------------------------------------------------------
# Test ops (1 input, 1 output of the same type)

class _UnaryOp(Op):
    def make_node(self, x):
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


class Double(_UnaryOp):
    """Correct: 2 * x."""

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2


class DoubleWithBadKernel(Double):
    """perform is right; the compiled kernel registered for it in a test is wrong."""


class DestroysSilently(_UnaryOp):
    """Writes into its input without declaring destroy_map."""

    def perform(self, node, inputs, out):
        inputs[0] += 1
        out[0][0] = inputs[0].copy()


class ViewsSilently(_UnaryOp):
    """Returns a view of its input without declaring view_map."""

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0][::-1]


class DeclaresDestroyButCopies(_UnaryOp):
    """Declares destroy_map but returns a new array (DebugMode warns)."""

    destroy_map = {0: [0]}

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + 1


class WrongDtype(_UnaryOp):
    def perform(self, node, inputs, out):
        out[0][0] = inputs[0].astype("float32")


class FillsPreallocatedBadly(_UnaryOp):
    """Reuses a preallocated output of the right shape but only writes its first element."""

    def perform(self, node, inputs, out):
        x = inputs[0]
        buf = out[0][0]
        if isinstance(buf, np.ndarray) and buf.shape == x.shape and x.size:
            buf[:1] = x[:1] * 2
        else:
            out[0][0] = x * 2


# ---------------------------------------------------------------------------------------------
# The seed example and the Theano API

def test_seed_example_raises_invalid_value_error_with_the_seed_fields():
    x = T.dvector("x")
    f = function([x], 10 / x, mode="DebugMode")
    np.testing.assert_array_equal(f([5]), [2.0])
    with pytest.raises(InvalidValueError) as info:
        f([0])
    text = str(info.value)
    lines = text.splitlines()
    assert lines[0] == "InvalidValueError"
    expected = ["type(variable) = TensorType(float64, vector)",
                "variable       = Elemwise{true_div,no_inplace}.0",
                "type(value)    = <class 'numpy.ndarray'>",
                "dtype(value)   = float64",
                "shape(value)   = (1,)",
                "value          = [inf]",
                "min(value)     = inf",
                "max(value)     = inf",
                "isfinite       = False",
                "client_node    = None",
                "hint           = perform output",
                "specific_hint  = non-finite elements not allowed",
                "context        = ..."]
    assert [line.strip() for line in lines[1:14]] == expected
    assert lines[14].startswith("  Elemwise{true_div,no_inplace} [id A] ''")
    assert "|x [id C]" in text
    assert isinstance(info.value, DebugModeError)
    np.testing.assert_allclose(f([7]), [1.42857143])


def test_named_modes_and_constructor_checks():
    x = T.dvector("x")
    for name in ("DebugMode", "DEBUG_MODE"):
        assert isinstance(function([x], x * 2, mode=name).maker.mode, DebugMode)
    with pytest.raises(ValueError, match="can only use its own linker"):
        DebugMode(linker="py")
    with pytest.raises(ValueError, match="at least one of c and py"):
        DebugMode(check_c_code=False, check_py_code=False)
    with pytest.raises(ValueError, match="does not support profiling"):
        function([x], x * 2, mode=py_debug(), profile=True)
    mode = DebugMode(stability_patience=3, check_c_code=False, check_isfinite=False,
                     check_preallocated_output=["c_contiguous"], require_matching_strides=1)
    assert (mode.stability_patience, mode.check_c_code, mode.check_isfinite) == (3, False, False)
    assert mode.check_preallocated_output == ["c_contiguous"]
    assert isinstance(mode.including("fast_run"), DebugMode)


def test_check_isfinite_off_lets_inf_through_and_inputs_are_checked():
    x = T.dvector("x")
    f = function([x], 10 / x, mode=py_debug(check_isfinite=False))
    assert np.isinf(f([0.0])[0])
    g = function([x], x + 1, mode=py_debug())
    with pytest.raises(InvalidValueError, match="graph input"):
        g([np.nan])


def test_output_of_the_wrong_dtype_is_an_invalid_value():
    x = T.dvector("x")
    f = function([x], WrongDtype()(x), mode=py_debug())
    with pytest.raises(InvalidValueError, match="float32"):
        f([1.0])


# ---------------------------------------------------------------------------------------------
# Planted bugs

@pytest.fixture
def simulated_backend(monkeypatch):
    """A compiled backend whose kernel for DoubleWithBadKernel is wrong (x * 2 + 1), and whose
    kernel for any node can be replaced (``kernels[op_class] = fn(values) -> output``)."""
    kernels = {DoubleWithBadKernel: lambda x: x * 2 + 1}

    def factory(node, storage):
        fn = kernels.get(type(node.op))
        if fn is None:
            return perform_thunk(node, storage)
        ins = [storage[i] for i in node.inputs]
        out = storage[node.outputs[0]]

        def thunk():
            out[0] = fn(*[c[0] for c in ins])

        return thunk, "Numba"

    def build(fgraph, order):
        return make_program(fgraph, False, order, thunk_factory=factory)

    monkeypatch.setattr(debugmode, "COMPILED_BACKENDS", [build] + debugmode.COMPILED_BACKENDS)
    return kernels


def test_wrong_compiled_kernel_raises_bad_thunk_output(simulated_backend):
    x = T.dvector("x")
    f = function([x], DoubleWithBadKernel()(x) + 1, mode=DebugMode(check_c_code=True))
    with pytest.raises(BadThunkOutput) as info:
        f([1.0, 2.0])
    err = info.value
    assert isinstance(err.node.op, DoubleWithBadKernel)
    assert (err.thunk1, err.thunk2) == ("perform", "Numba")
    np.testing.assert_array_equal(err.val1, [2.0, 4.0])
    np.testing.assert_array_equal(err.val2, [3.0, 5.0])
    text = str(err)
    for field in ("Apply", "op", "Inputs Shape: [(2,)]", "Inputs Strides", "Input values",
                  "Max Abs Diff"):
        assert field in text


def test_correct_compiled_kernel_passes(simulated_backend):
    x = T.dvector("x")
    simulated_backend[Double] = lambda v: v * 2.0
    f = function([x], Double()(x), mode=DebugMode(check_c_code=True))
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 4.0])
    assert f._program.kinds == ["Numba"]


def test_check_py_off_runs_only_the_compiled_kernel(simulated_backend):
    x = T.dvector("x")
    f = function([x], DoubleWithBadKernel()(x),
                 mode=DebugMode(check_c_code=True, check_py_code=False))
    np.testing.assert_array_equal(f([1.0]), [3.0])  # nothing to compare it with


def test_strides_are_compared_when_asked(simulated_backend):
    x = T.dmatrix("x")
    simulated_backend[Double] = lambda v: np.asfortranarray(v * 2)
    value = np.ones((3, 4))
    f = function([x], Double()(x), mode=DebugMode(check_c_code=True))
    f(value)  # check_strides=0: ignored
    f = function([x], Double()(x), mode=DebugMode(check_c_code=True, require_matching_strides=1))
    with pytest.warns(DebugModeWarning, match="strides"):
        f(value)
    f = function([x], Double()(x), mode=DebugMode(check_c_code=True, require_matching_strides=2))
    with pytest.raises(StridesMismatch):
        f(value)


def test_kernel_registered_in_the_cpu_backend_is_checked():
    """The same planted bug through the real CPU backend registry (no Numba compile: the
    lowering emits plain Python)."""
    if not jitgraph.config.cxx:
        pytest.skip("compiled code disabled (cxx is empty)")
    registry = pytest.importorskip("jitgraph.backend_cpu.lowering.registry")

    class DoubleRegistered(Double):
        pass

    def lower_wrong(op, node, ctx):
        return registry.Lowered(registry.NUMBA,
                                lambda nc: [nc.set_out(0, f"{nc.inp(0)} * 2 + 1")])

    registry.register_lowering(DoubleRegistered)(lower_wrong)
    x = T.dvector("x")
    f = function([x], DoubleRegistered()(x), mode=DebugMode(check_c_code=True))
    with pytest.raises(BadThunkOutput) as info:
        f([1.0])
    assert info.value.thunk2 == "Numba"


def _register_test_rewrite(name, fn, position=1.8):
    from jitgraph.rewrite import node_rewriter, optdb
    from jitgraph.tensor.elementwise.elemwise import Elemwise

    rewriter = node_rewriter([Elemwise], name=name)(fn)
    optdb.register(name, rewriter, f"{name}_tag", position=position)
    return f"{name}_tag"


def _is_exp_of_input(node):
    scalar = getattr(node.op, "scalar_op", None)
    return getattr(scalar, "name", None) == "exp" and node.inputs[0].owner is None


def test_wrong_rewrite_raises_bad_optimization_naming_it():
    from jitgraph.rewrite import optdb

    def debugmode_test_exp_to_double(fgraph, node):
        if _is_exp_of_input(node):
            return [node.inputs[0] * 2]
        return None

    tag = _register_test_rewrite("debugmode_test_exp_to_double", debugmode_test_exp_to_double)
    try:
        x = T.dvector("x")
        f = function([x], T.exp(x) + 1, mode=py_debug().including(tag))
        with pytest.raises(BadOptimization) as info:
            f([0.5, 1.0])
    finally:
        optdb.unregister("debugmode_test_exp_to_double")
    err = info.value
    assert err.rewrite_name == "debugmode_test_exp_to_double"
    np.testing.assert_allclose(err.old_r_val, np.exp([0.5, 1.0]))
    np.testing.assert_allclose(err.new_r_val, [1.0, 2.0])
    assert "Old graph" in str(err) and "exp" in str(err) and "New graph" in str(err)


def test_nondeterministic_rewrite_raises_stochastic_order():
    from jitgraph.rewrite import optdb

    seen: dict[int, bool] = {}

    def debugmode_test_flaky(fgraph, node):
        # Rewrites exp(x) -> 1 / exp(-x) in the first graph it sees only.
        if not _is_exp_of_input(node) or seen.setdefault(id(fgraph), not seen) is False:
            return None
        return [1 / T.exp(-node.inputs[0])]

    tag = _register_test_rewrite("debugmode_test_flaky", debugmode_test_flaky)
    try:
        x = T.dvector("x")
        with pytest.raises(StochasticOrder, match="different results"):
            function([x], T.exp(x), mode=DebugMode(check_c_code=False, stability_patience=3)
                     .including(tag))
    finally:
        optdb.unregister("debugmode_test_flaky")


def test_undeclared_destroy_raises_bad_destroy_map():
    x = T.dvector("x")
    f = function([x], DestroysSilently()(x), mode=py_debug())
    with pytest.raises(BadDestroyMap) as info:
        f([1.0, 2.0])
    assert info.value.idx == 0 and "changed input idx: 0" in str(info.value)
    np.testing.assert_array_equal(info.value.old_val, [1.0, 2.0])


def test_undeclared_view_raises_bad_view_map():
    x = T.dvector("x")
    f = function([x], ViewsSilently()(x) * 2, mode=py_debug())
    with pytest.raises(BadViewMap) as info:
        f([1.0, 2.0])
    assert info.value.in_alias_idx == 0 and "view_map" in str(info.value)


def test_declared_destroy_that_does_not_reuse_input_warns():
    x = T.dvector("x")
    f = function([In(x, mutable=True)], DeclaresDestroyButCopies()(x), mode=py_debug(),
                 accept_inplace=True)
    with pytest.warns(DebugModeWarning, match="does not reuse"):
        np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 3.0])


def test_preallocated_outputs_find_partial_writes():
    x = T.dvector("x")
    out = FillsPreallocatedBadly()(x)
    np.testing.assert_array_equal(function([x], out, mode=py_debug())([1.0, 2.0]), [2.0, 4.0])
    f = function([x], out, mode=py_debug(check_preallocated_output="c_contiguous"))
    with pytest.raises(BadThunkOutput, match="perform with c_contiguous output"):
        f([1.0, 2.0])
    g = function([x], out, mode=py_debug(check_preallocated_output="previous"))
    g([1.0, 2.0])  # nothing to reuse on the first call
    with pytest.raises(BadThunkOutput, match="perform with previous output"):
        g([3.0, 5.0])
    h = function([x], out, mode=py_debug(check_preallocated_output="wrong_size"))
    h([1.0, 2.0])  # the op allocates when the buffer has another shape: correct
    k = function([x], out, mode=py_debug(check_preallocated_output="strided"))
    with pytest.raises(BadThunkOutput, match="perform with strided"):
        k([1.0, 2.0])


# ---------------------------------------------------------------------------------------------
# Real programs pass

def _logistic_regression(mode, steps):
    source = (EXAMPLES / "logistic_regression.py").read_text()
    source = source.replace("training_steps = 10000", f"training_steps = {steps}")
    source = source.replace('name = "train")', 'name = "train", mode=MODE)')
    source = source.replace('name = "predict")', 'name = "predict", mode=MODE)')
    source = source.replace("N = 400", "N = 40").replace("feats = 784", "feats = 30")
    assert source.count("mode=MODE") == 2
    np.random.seed(0)
    ns = {"__name__": "__main__", "MODE": mode}
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "logistic_regression.py", "exec"), ns)
    return ns


@pytest.mark.slow  # with the CPU backend, its kernels are compiled and compared too
def test_debugmode_passes_on_the_logistic_regression():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DebugModeWarning)
        ns = _logistic_regression(DebugMode(), steps=3)
    reference = _logistic_regression("FAST_RUN", steps=3)
    np.testing.assert_allclose(ns["w"].get_value(), reference["w"].get_value(), rtol=1e-12)


def test_debugmode_passes_on_the_mlp():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import mlp
    finally:
        sys.path.remove(str(EXAMPLES))
    features, labels = mlp.make_data(30, 12, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DebugModeWarning)
        train, predict, _ = mlp.build_training([12, 8, 6, 3], mode=py_debug())
        costs = [float(train(features, labels)) for _ in range(3)]
        predict(features)
    assert costs[-1] < costs[0]
