"""The compiled linkers: same results as the Python VM, garbage collection and buffer reuse,
the strict ``c`` linker, ``cxx=''``, errors, and the generated driver."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.runtime.driver import CompiledProgram, MissingLowering
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op

import cpu_testing  # noqa: F401 - registers the linkers

LINKERS = ["py", "vm", "vm_nogc", "cvm", "cvm_nogc", "c|py", "c|py_nogc", "c"]


def _logreg(linker: str, steps: int = 3):
    rng = np.random.RandomState(0)
    n, feats = 30, 20
    data = (rng.randn(n, feats), rng.randint(0, 2, n).astype("float64"))
    x, y = T.matrix("x"), T.vector("y")
    w = jitgraph.shared(rng.randn(feats), name="w")
    b = jitgraph.shared(np.asarray(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    train = jitgraph.function([x, y], [p_1 > 0.5, xent],
                              updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)],
                              mode=jitgraph.Mode(linker=linker, optimizer="fast_run"))
    outs = [train(*data) for _ in range(steps)]
    return train, outs, w.get_value(), b.get_value()


def _mlp(linker: str, steps: int = 3):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "examples" / "mlp.py"
    spec = importlib.util.spec_from_file_location("mlp_example", path)
    mlp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mlp)
    feats, labels = mlp.make_data(40, 12, 3)
    train, predict, params = mlp.build_training(
        [12, 8, 6, 3], mode=jitgraph.Mode(linker=linker, optimizer="fast_run"))
    costs = [float(train(feats, labels)) for _ in range(steps)]
    return train, costs, predict(feats), [p.get_value() for p in params]


@pytest.fixture(scope="module")
def logreg_reference():
    return _logreg("py")


@pytest.mark.parametrize("linker", LINKERS[1:])
def test_logistic_regression_same_results_on_every_linker(linker, logreg_reference):
    _, ref_outs, ref_w, ref_b = logreg_reference
    train, outs, w, b = _logreg(linker)
    for (pred, xent), (rpred, rxent) in zip(outs, ref_outs):
        np.testing.assert_array_equal(pred, rpred)
        np.testing.assert_allclose(xent, rxent, rtol=1e-12)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12)
    np.testing.assert_allclose(b, ref_b, rtol=1e-12)
    if linker.startswith(("cvm", "c")):
        assert isinstance(train._program, CompiledProgram)
        assert "Numba" in train._program.kinds


@pytest.mark.slow
def test_mlp_same_results_on_every_linker():
    _, ref_costs, ref_pred, ref_params = _mlp("py")
    for linker in ["cvm", "cvm_nogc", "c"]:
        _, costs, pred, params = _mlp(linker)
        np.testing.assert_allclose(costs, ref_costs, rtol=1e-10)
        np.testing.assert_array_equal(pred, ref_pred)
        for p, r in zip(params, ref_params):
            np.testing.assert_allclose(p, r, rtol=1e-10, atol=1e-13)


class NoLoweringOp(Op):
    """An op with only a perform (the c linker must refuse it)."""

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 3


def test_strict_c_linker_names_the_op_without_lowering():
    x = T.dvector("x")
    out = NoLoweringOp()(T.exp(x))
    with pytest.raises(MissingLowering, match="NoLoweringOp"):
        jitgraph.function([x], out, mode=jitgraph.Mode(linker="c", optimizer="None"))
    fn = jitgraph.function([x], out, mode=jitgraph.Mode(linker="c|py", optimizer="None"))
    assert fn._program.kinds == ["Numba", "Py"]
    np.testing.assert_allclose(fn(np.zeros(2)), [3.0, 3.0])


def test_empty_cxx_falls_back_to_the_python_vm():
    x = T.dvector("x")
    with jitgraph.config.change_flags(cxx=""):
        fn = jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="cvm", optimizer="None"))
        assert not isinstance(fn._program, CompiledProgram)
        with pytest.raises(RuntimeError, match="cxx"):
            jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="c", optimizer="None"))
    np.testing.assert_allclose(fn(np.zeros(2)), [1.0, 1.0])


def test_nogc_reuses_intermediate_buffers_but_never_returned_outputs():
    x = T.dvector("x")
    mid = T.exp(x) * 2  # Elemwise exp, then Elemwise mul: two nodes without fusion
    out = mid + 1
    fn = jitgraph.function([x], out, mode=jitgraph.Mode(linker="cvm_nogc", optimizer="None"))
    prog = fn._program
    first = fn(np.zeros(3))
    inter = [prog.storage[v][0] for v in prog.fgraph.variables
             if v.owner is not None and v not in prog.fgraph.outputs]
    second = fn(np.ones(3))
    again = [prog.storage[v][0] for v in prog.fgraph.variables
             if v.owner is not None and v not in prog.fgraph.outputs]
    assert any(a is b for a, b in zip(inter, again) if isinstance(a, np.ndarray))
    assert first is not second
    np.testing.assert_allclose(first, [3.0, 3.0, 3.0])
    np.testing.assert_allclose(second, 2 * np.e + 1)


def test_gc_frees_intermediates():
    x = T.dvector("x")
    out = (T.exp(x) * 2) + 1
    fn = jitgraph.function([x], out, mode=jitgraph.Mode(linker="cvm", optimizer="None"))
    fn(np.zeros(3))
    prog = fn._program
    for var, cell in prog.storage.items():
        if (var.owner is not None and var not in prog.fgraph.outputs
                and var not in prog.precomputed):
            assert cell[0] is None, var


def test_thunks_run_the_program_node_by_node():
    x = T.dvector("x")
    out = T.sum(T.exp(x) * 2)
    fn = jitgraph.function([x], out, mode=jitgraph.Mode(linker="cvm", optimizer="None"))
    prog = fn._program
    # the thunks are compiled when first asked for, not with the driver (issue 31)
    assert not any(name.startswith("thunk_") for name in prog.run.__globals__)
    prog.input_cells[0][0] = np.arange(3.0)
    assert len(prog.thunks) == len(prog.order)
    for thunk, free in zip(prog.thunks, prog.free_after):
        thunk()
        for cell in free:
            cell[0] = None
    np.testing.assert_allclose(prog.output_cells[0][0], 2 * np.exp(np.arange(3.0)).sum())
    assert "def run():" in prog.driver_source


def test_openmp_threads_give_the_same_result():
    x, y = T.dmatrices("x", "y")
    expr = T.exp(x) * T.sin(y) + x
    with jitgraph.config.change_flags(openmp=True, openmp_elemwise_minsize=10):
        par = jitgraph.function([x, y], expr, mode="FAST_RUN")
    ser = jitgraph.function([x, y], expr, mode="FAST_RUN")
    a, b = np.random.rand(40, 30), np.random.rand(40, 30)
    np.testing.assert_array_equal(par(a, b), ser(a, b))
    assert "run_chunks" in par._program.driver_source
