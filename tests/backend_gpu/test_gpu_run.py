"""GPU runs against the NumPy reference (``pytest -m gpu``): on the emulated CUDA device
(tests/emulated_cuda), or on a real GPU with ``JITGRAPH_TEST_REAL_GPU=1``.

The session stays ``device=cpu``; the tests initialise the GPU from code
(``jitgraph.backend_gpu.use``, what ``init_gpu_device`` does) and compile with
``mode.including('gpuarray')``, Theano's recipe. The seeds' logistic regression runs in a
subprocess with ``device=cuda0,floatX=float32``.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.io import Out
from jitgraph.tensor import nnet as N
from jitgraph.tensor.elementwise import reduction as R

from gpu_testing import FAMILIES, device_env, fused, run_python, scalar_op_outputs

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu(gpu_device):
    return gpu_device


def gpu_mode(linker: str = "cvm") -> jitgraph.Mode:
    return jitgraph.Mode(linker=linker, optimizer="fast_run").including("gpuarray")


def compile_gpu(inputs, outputs, **kwargs):
    """A function of the graph on the GPU whose calls must run on the device: no ``Gpu*`` op's
    NumPy ``perform`` may run, and (on the emulated device) something must run there."""
    from jitgraph.backend_gpu.program import GpuProgram

    kwargs.setdefault("on_unused_input", "ignore")
    fn = jitgraph.function(list(inputs), outputs, mode=gpu_mode(), **kwargs)
    assert isinstance(fn._program, GpuProgram), "the graph did not go to the GPU"
    return OnDevice(fn)


class OnDevice:
    def __init__(self, fn):
        self.fn, self.maker, self._program = fn, fn.maker, fn._program

    def __call__(self, *args):
        import sys

        from jitgraph.backend_gpu.ops import GpuOp

        def refuse(op, node, inputs, output_storage):
            raise AssertionError(f"{node} ran its NumPy perform in a GPU program")

        emulated = sys.modules.get("emulated_cuda")
        before = emulated.STATS.copy() if emulated is not None else None
        GpuOp.perform, saved = refuse, GpuOp.perform
        try:
            result = self.fn(*args)
        finally:
            GpuOp.perform = saved
        if before is not None and emulated.is_installed():
            assert emulated.STATS.since(before).device_operations > 0, "nothing ran on the GPU"
        return result


def reference(inputs, outputs, values):
    fn = jitgraph.function(list(inputs), outputs, mode=jitgraph.Mode("py", "None"),
                           on_unused_input="ignore")
    with np.errstate(all="ignore"):
        return fn(*values)


def assert_same(got, ref, what=""):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape, (what, got.dtype, ref.dtype,
                                                               got.shape, ref.shape)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
    else:
        tol = 2e-5 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def _values(dtype: str, n: int = 40) -> list:
    rng = np.random.default_rng(3)
    if dtype == "bool":
        a = rng.random(n) > 0.5
        return [a, np.roll(a, 3), np.roll(a, 7), a]
    if dtype.startswith("float"):
        a = (rng.standard_normal(n) * 3).astype(dtype)
        a[:4] = [0.0, -0.0, 0.5, -2.5]
        return [a, np.roll(a, 5), np.roll(a, 11), a]
    info = np.iinfo(dtype)
    a = rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dtype)
    e = (np.arange(n) % 5).astype(dtype)
    return [a, np.roll(a, 5), np.roll(a, 11), e]


@pytest.mark.parametrize("dtype", FAMILIES)
def test_every_scalar_op_matches_numpy(gpu, dtype):
    inputs, outs = scalar_op_outputs(dtype, include_int_to_float=False)
    outs = [(n, o) for n, o in outs if not (n.startswith("cast->") and dtype.startswith("float")
                                            and not n.endswith(("float32", "float64", "bool")))]
    values = _values(dtype)
    for i in range(0, len(outs), 16):
        group = outs[i:i + 16]
        graph = fused([o for _, o in group])
        got = compile_gpu(inputs, graph)(*values)
        ref = reference(inputs, graph, values)
        for (name, _), g, r in zip(group, got, ref):
            assert_same(g, r, f"{name} on {dtype}")


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
def test_elementwise_layouts_and_broadcasting(gpu, layout):
    m = T.fmatrix("m")
    row = T.frow("row")
    s = T.fscalar("s")
    outs = [T.exp(m) * row + s, T.maximum(m, row), m.T * 2]
    rng = np.random.default_rng(0)
    base = rng.standard_normal((33, 17)).astype("float32")
    value = {"C": base, "F": np.asfortranarray(base), "strided": np.repeat(base, 2, 1)[:, ::2],
             "negative": base[::-1, ::-1]}[layout]
    vals = [value, rng.standard_normal((1, 17)).astype("float32"), np.float32(0.5)]
    got = compile_gpu([m, row, s], outs)(*vals)
    for g, r in zip(got, reference([m, row, s], outs, vals)):
        assert_same(g, r, layout)


def test_integer_power_with_negative_exponent_raises(gpu):
    a, b = T.lvectors("a", "b")
    fn = compile_gpu([a, b], a ** b)
    np.testing.assert_array_equal(fn(np.array([2, 3]), np.array([3, 0])), [8, 1])
    with pytest.raises(ValueError, match="negative integer powers"):
        fn(np.array([2, 3]), np.array([1, -1]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("shape, axis", [((1000,), None), ((37, 4100), 1), ((37, 4100), 0),
                                         ((5, 6, 7), (0, 2)), ((3, 300000), None),
                                         ((0, 4), 0)])
def test_reductions(gpu, dtype, shape, axis):
    x = T.tensor(dtype, (False,) * len(shape), name="x")
    outs = [R.sum(x, axis=axis), R.prod(T.minimum(x, 1) if dtype != "bool" else x, axis=axis),
            R.all(x, axis=axis), R.any(x, axis=axis)]
    if 0 not in shape:
        outs += [R.max(x, axis=axis), R.min(x, axis=axis), R.argmax(x, axis=axis)]
    rng = np.random.default_rng(1)
    value = (rng.standard_normal(shape) * 3).astype(dtype)
    got = compile_gpu([x], outs)(value)
    for g, r in zip(got, reference([x], outs, [value])):
        assert_same(np.asarray(g), r, f"{dtype} {shape} {axis}")


def test_fused_elementwise_then_reduce(gpu):
    x = T.fmatrix("x")
    y = T.frow("y")
    out = R.sum(T.sqr(x - y), axis=1) + R.max(T.exp(x), axis=0).sum()
    vals = [np.random.default_rng(2).standard_normal((64, 300)).astype("float32"),
            np.ones((1, 300), "float32")]
    fn = compile_gpu([x, y], out)
    assert any(type(n.op).__name__ == "GpuCAReduce" and n.op.cpu_op.pre_op is not None
               for n in fn.maker.fgraph.apply_nodes)
    assert_same(fn(*vals), reference([x, y], out, vals))


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_and_log_softmax(gpu, axis):
    x = T.dmatrix("x")
    outs = [N.softmax(x, axis=axis), N.log_softmax(x, axis=axis)]
    value = np.random.default_rng(4).standard_normal((50, 700)) * 20
    value[3, :] = -np.inf
    got = compile_gpu([x], outs)(value)
    for g, r in zip(got, reference([x], outs, [value])):
        assert_same(g, r, f"axis={axis}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blas(gpu, dtype):
    a = T.matrix("a", dtype=dtype)
    b = T.matrix("b", dtype=dtype)
    v = T.vector("v", dtype=dtype)
    outs = [T.dot(a, b), T.dot(a, v) * 2 + v[:a.shape[0]], T.dot(a.T, a) * 0.5 + b[:, 0].dimshuffle(0, "x"),
            T.outer(v, v) * 3 + T.dot(b, b.T)]
    rng = np.random.default_rng(5)
    vals = [rng.standard_normal((40, 40)).astype(dtype), rng.standard_normal((40, 40))
            .astype(dtype), rng.standard_normal(40).astype(dtype)]
    fn = compile_gpu([a, b, v], outs)
    names = {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes}
    assert names & {"GpuGemm", "GpuGemv", "GpuDot22", "GpuDot", "GpuGer"}
    for g, r in zip(fn(*vals), reference([a, b, v], outs, vals)):
        np.testing.assert_allclose(g, r, rtol=1e-3 if dtype == "float32" else 1e-10,
                                   atol=1e-3 if dtype == "float32" else 1e-10)


def test_indexing_and_shape_ops(gpu):
    x = T.fmatrix("x")
    i = T.lscalar("i")
    idx = T.lvector("idx")
    outs = [x[i, 1:], x[idx], x[idx, 0], T.inc_subtensor(x[idx], 1.0),
            T.set_subtensor(x[1:3, ::2], 7.0), T.advanced_inc_subtensor1(x, x[:1], idx),
            T.reshape(x, (-1,)), x.T, T.concatenate([x, x], axis=1), T.zeros_like(x) + 1]
    vals = [np.arange(24, dtype="float32").reshape(4, 6), np.int64(2),
            np.array([0, 2, 2, 3, 0])]
    got = compile_gpu([x, i, idx], outs)(*vals)
    for k, (g, r) in enumerate(zip(got, reference([x, i, idx], outs, vals))):
        assert_same(g, r, f"output {k}")
    with pytest.raises(IndexError):
        compile_gpu([x, idx], x[idx])(vals[0], np.array([0, 9]))


def test_shared_variables_updates_stay_on_the_device_and_outputs_come_back_as_numpy(gpu):
    import cupy

    w = jitgraph.shared(np.ones(5, "float32"), name="w", target="cuda")
    x = T.fvector("x")
    step = jitgraph.function([x], [w * x, Out(w + x, borrow=True)], updates=[(w, w + x)],
                             mode=gpu_mode())
    a, b = step(np.arange(5, dtype="float32"))
    assert type(a) is np.ndarray and isinstance(b, cupy.ndarray)
    assert isinstance(w.get_value(return_internal_type=True, borrow=True), cupy.ndarray)
    np.testing.assert_array_equal(w.get_value(), np.arange(5) + 1)
    # a CuPy input is taken as it is
    a, _ = step(cupy.arange(5, dtype="float32"))
    np.testing.assert_array_equal(a, (np.arange(5) + 1) * np.arange(5))
    w.set_value(np.zeros(5, "float32"))
    np.testing.assert_array_equal(step(np.ones(5, "float32"))[0], np.zeros(5))


def test_debugmode_and_nanguardmode_on_gpu_graphs(gpu):
    import warnings

    from jitgraph.compile.debugmode import DebugMode, DebugModeWarning
    from jitgraph.compile.nanguardmode import NanGuardMode

    x = T.fmatrix("x")
    out = T.exp(x).sum(axis=1) + T.dot(x, x.T).sum(axis=0)
    value = np.random.default_rng(6).standard_normal((8, 8)).astype("float32")
    fn = jitgraph.function([x], out, mode=DebugMode(optimizer="fast_run").including("gpuarray"))
    with warnings.catch_warnings():
        # the GPU ops' reference perform honours their declared views (GpuDimShuffle{1,0})
        warnings.simplefilter("error", DebugModeWarning)
        np.testing.assert_allclose(fn(value), reference([x], out, [value]), rtol=1e-4)
    guard = NanGuardMode(True, True, True, optimizer="fast_run").including("gpuarray")
    fn = jitgraph.function([x], T.log(x), mode=guard)
    fn(np.abs(value) + 1)
    with pytest.raises(AssertionError, match="NaN"):
        fn(-np.abs(value) - 1)


def test_sync_and_profile(gpu):
    x = T.fvector("x")
    fn = jitgraph.function([x], T.exp(x) * 2, mode=gpu_mode(), profile=True)
    fn(np.ones(10, "float32"))
    assert "CUDA" in fn._program.kinds


LOGREG = """
import pathlib, sys, numpy
from jitgraph.backend_gpu.ops import GpuOp


def refuse(self, node, inputs, output_storage):
    raise AssertionError(f"{node} ran its NumPy perform under device=cuda: the GPU graph "
                         "did not get the GPU program")


GpuOp.perform = refuse
numpy.random.seed(1234)
src = pathlib.Path("examples/logistic_regression.py").read_text()
src = src.replace("training_steps = 10000", "training_steps = 200")
ns = {"__name__": "__main__"}
exec(compile(src, "logistic_regression.py", "exec"), ns)
numpy.save(sys.argv[1], numpy.append(ns["w"].get_value(), ns["b"].get_value()))
emulated = sys.modules.get("emulated_cuda")
if emulated is not None:
    print("KERNEL LAUNCHES", emulated.STATS.kernel_launches)
"""


def test_seed_logistic_regression_on_the_gpu_matches_the_cpu(gpu, tmp_path):
    """``THEANO_FLAGS=device=cuda0 python examples/logistic_regression.py``: the training step
    launches kernels (on the emulated device: counted), no ``Gpu*`` op runs its ``perform``,
    and the weights are the CPU's."""
    from gpu_testing import REAL_GPU

    on_gpu, on_cpu = tmp_path / "gpu.npy", tmp_path / "cpu.npy"
    gpu_run = run_python(LOGREG, "device=cuda0,floatX=float32", env=device_env(),
                         args=[str(on_gpu)])
    assert gpu_run.returncode == 0, gpu_run.stderr
    assert "Used the gpu" in gpu_run.stdout
    assert "using GPU cuda0" in gpu_run.stderr  # print_active_device, once
    if not REAL_GPU:
        launches = int(gpu_run.stdout.split("KERNEL LAUNCHES ")[1].split()[0])
        assert launches >= 200, gpu_run.stdout  # at least one per training step
    cpu_run = run_python(LOGREG, "device=cpu,floatX=float32", args=[str(on_cpu)])
    assert cpu_run.returncode == 0 and "Used the cpu" in cpu_run.stdout
    np.testing.assert_allclose(np.load(on_gpu), np.load(on_cpu), rtol=1e-3, atol=1e-4)


def test_convolution_pooling_and_their_gradients(gpu):
    import importlib

    pool = importlib.import_module("jitgraph.tensor.signal.pool")
    x = T.tensor4("x", dtype="float64")
    w = T.tensor4("w", dtype="float64")
    out = pool.pool_2d(T.tanh(N.conv2d(x, w)), ws=(2, 2), ignore_border=True)
    cost = out.sum()
    outs = [out] + list(jitgraph.grad(cost, [x, w]))
    rng = np.random.default_rng(7)
    vals = [rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((4, 3, 3, 3))]
    fn = compile_gpu([x, w], outs)
    names = {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes}
    assert any(n.startswith("GpuCorrMM") for n in names), names
    assert any("Pool" in n for n in names), names
    for k, (g, r) in enumerate(zip(fn(*vals), reference([x, w], outs, vals))):
        np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-9, err_msg=f"output {k}")


def test_mrg_uniform_draws_the_cpu_numbers_and_keeps_its_state(gpu):
    from jitgraph.random import MRG_RandomStreams

    def draws(mode):
        srng = MRG_RandomStreams(seed=1234)
        u = srng.uniform((3, 70), dtype="float32")
        fn = jitgraph.function([], u, mode=mode)
        return fn, [fn() for _ in range(2)]

    fn, got = draws(gpu_mode())
    assert any(type(n.op).__name__ == "GpuMRGUniform" for n in fn.maker.fgraph.apply_nodes)
    _, want = draws(jitgraph.Mode("py", "None"))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert not np.array_equal(got[0], got[1])


def test_softmax_crossentropy_and_its_gradient(gpu):
    x = T.fmatrix("x")
    y = T.lvector("y")
    cost = N.categorical_crossentropy(N.softmax(x), y).mean()
    outs = [cost, jitgraph.grad(cost, x)]
    rng = np.random.default_rng(8)
    vals = [rng.standard_normal((6, 5)).astype("float32"), np.array([0, 4, 2, 2, 1, 3])]
    got = compile_gpu([x, y], outs)(*vals)
    for g, r in zip(got, reference([x, y], outs, vals)):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
