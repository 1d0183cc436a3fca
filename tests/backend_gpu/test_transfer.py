"""Moving graphs to the GPU (the rewrite only; no GPU is needed): which nodes move, which
transfers remain, what stays on the CPU and how that is reported, and the GPU types and ops."""

from __future__ import annotations

import pickle

import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.tensor.core.type import TensorType

from jitgraph.backend_gpu import ops as G
from jitgraph.backend_gpu import transfer
from jitgraph.backend_gpu.types import GpuArrayType, GpuArrayVariable


@pytest.fixture
def gpu_pass(monkeypatch):
    """Make the GPU passes fire as if a GPU were in use (nothing is run)."""
    from jitgraph.backend_gpu.rewrites import GpuTransfer

    monkeypatch.setattr(GpuTransfer, "_device", lambda self: object())
    transfer._reported.clear()


def rewritten(inputs, outputs, mutable=(), tags=("gpuarray",)):
    fg = FunctionGraph(inputs, outputs, clone=True)
    from jitgraph.compile.rewriting import protect_inputs

    protect_inputs(fg, [fg.inputs[inputs.index(m)] for m in mutable])
    mode = jitgraph.Mode(linker="py", optimizer="fast_run").including(*tags)
    mode.rewrite(fg)
    return fg


def names(fg):
    return [type(n.op).__name__ for n in fg.toposort()]


def logistic_regression_graph():
    x = T.matrix("x", dtype="float32")
    y = T.vector("y", dtype="float32")
    w = GpuArrayType("float32", (False,))("w")
    b = GpuArrayType("float32", ())("b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    new_w = w.type.convert_variable(w - 0.01 * gw)
    new_b = b.type.convert_variable(b - 0.01 * gb)
    return [x, y, w, b], [prediction, xent, new_w, new_b]


def test_logistic_regression_moves_to_the_gpu_with_minimal_transfers(gpu_pass):
    with jitgraph.config.change_flags(floatX="float32"):
        inputs, outputs = logistic_regression_graph()
        fg = rewritten(inputs, outputs, mutable=inputs[2:])
    kinds = names(fg)
    assert "GpuGemv" in kinds  # what the seed's script looks for: "Used the gpu"
    assert not {"Gemv", "Gemm", "Elemwise", "Sum", "CAReduce"} & set(kinds)
    uploads = [n.inputs[0] for n in fg.apply_nodes if isinstance(n.op, G.GpuFromHost)]
    variable_uploads = [v for v in uploads if not isinstance(v, jitgraph.graph.basic.Constant)]
    # x and y once each, and the example count (an integer scalar from a shape) for the mean
    assert {v.name for v in variable_uploads if v.name} == {"x", "y"}
    assert len(variable_uploads) == 3
    downloads = [n for n in fg.apply_nodes if isinstance(n.op, G.HostFromGpu)]
    assert all(fg.clients[d.outputs[0]] == [("output", k)] for d in downloads
               for k in [fg.outputs.index(d.outputs[0])])
    assert len(downloads) == 2  # prediction and xent; the updates stay on the device
    new_w, new_b = fg.outputs[2:]
    assert isinstance(new_w.owner.op, G.GpuOp) and new_w.owner.op.destroy_map
    assert new_w.owner.inputs[0] is fg.inputs[2]  # w is updated in place on the device
    assert isinstance(new_b.owner.op, G.GpuOp)


def test_host_inputs_are_uploaded_and_their_consumers_move(gpu_pass):
    x = T.fmatrix("x")
    i = T.lscalar("i")
    fg = rewritten([x, i], [T.exp(x).sum(axis=1) * 2, Twice()(x), x.shape[0] + i])
    kinds = names(fg)
    assert "GpuElemwise" in kinds and "GpuCAReduce" in kinds
    twice = next(n for n in fg.apply_nodes if isinstance(n.op, Twice))
    assert twice.inputs[0] is fg.inputs[0]  # no round trip through the GPU for a CPU op
    uploads = [n for n in fg.apply_nodes if isinstance(n.op, G.GpuFromHost)
               and not isinstance(n.inputs[0], jitgraph.graph.basic.Constant)]
    assert len(uploads) == 1


def test_device_cpu_leaves_graphs_alone():
    x = T.fmatrix("x")
    fg = rewritten([x], [T.exp(x).sum()], tags=("gpuarray",))
    assert not any(isinstance(n.op, (G.GpuOp, G.GpuFromHost)) for n in fg.apply_nodes)


def test_unsupported_dtypes_stay_on_the_cpu(gpu_pass):
    w = GpuArrayType("float32", (False,))("w")
    h = T.vector("h", dtype="float16")
    out = T.cast(w, "float16") * h
    fg = rewritten([w, h], [out])
    elemwise = [n for n in fg.apply_nodes if "Elemwise" in type(n.op).__name__]
    assert elemwise and all(not isinstance(n.op, G.GpuOp) for n in elemwise
                            if n.outputs[0].type.dtype == "float16")


class Twice(Op):
    """A test op without a GPU implementation."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2

    def infer_shape(self, fgraph, node, shapes):
        return [shapes[0]]


def _graph_with_cpu_op():
    w = GpuArrayType("float32", (False,))("w")
    return [w], [T.exp(Twice()(T.exp(w)))]


def test_ops_without_gpu_implementation_run_on_the_cpu_with_transfers(gpu_pass, caplog):
    inputs, outputs = _graph_with_cpu_op()
    with caplog.at_level("WARNING", logger="jitgraph.backend_gpu"):
        fg = rewritten(inputs, outputs)
        rewritten(*_graph_with_cpu_op())
    order = names(fg)
    # the last exp reads a host value and feeds a graph output: nothing to gain on the GPU
    assert order == ["GpuElemwise", "HostFromGpu", "Twice", "Elemwise"]
    reports = [r.message for r in caplog.records if "Twice" in r.message]
    assert len(reports) == 1  # once per op and reason, not once per graph
    assert "no GPU implementation is registered" in reports[0]


def test_assert_no_cpu_op_warn_raise(gpu_pass):
    with jitgraph.config.change_flags(assert_no_cpu_op="warn"):
        with pytest.warns(UserWarning, match="Twice"):
            rewritten(*_graph_with_cpu_op())
    with jitgraph.config.change_flags(assert_no_cpu_op="raise"):
        with pytest.raises(Exception, match="assert_no_cpu_op=raise.*Twice"):
            rewritten(*_graph_with_cpu_op())


def test_shape_arithmetic_stays_on_the_host(gpu_pass):
    w = GpuArrayType("float32", (False, False))("w")
    out = T.reshape(w, (w.shape[0] * w.shape[1],)) * 2
    fg = rewritten([w], [out])
    for node in fg.apply_nodes:
        if isinstance(node.op, G.GpuOp) and type(node.op).__name__ in ("GpuShape_i", "GpuShape"):
            assert not isinstance(node.outputs[0].type, GpuArrayType)
    assert "GpuReshape" in names(fg)
    device_scalars = [n for n in fg.apply_nodes if isinstance(n.op, G.GpuOp)
                      and isinstance(n.outputs[0].type, GpuArrayType)
                      and n.outputs[0].type.ndim == 0]
    assert not device_scalars


def test_indexing_keeps_indices_on_the_host_and_index_arrays_on_the_device(gpu_pass):
    w = GpuArrayType("float32", (False, False))("w")
    i = T.lscalar("i")
    idx = T.lvector("idx")
    fg = rewritten([w, i, idx], [w[i, 1:], T.inc_subtensor(w[idx], 1.0), w[idx, 0]])
    for node in fg.apply_nodes:
        if isinstance(node.op, G.GpuOp) and "Subtensor" in type(node.op).__name__:
            kinds = [isinstance(v.type, GpuArrayType) for v in node.inputs]
            first = 2 if "Inc" in type(node.op).__name__ else 1  # x (and the value y)
            assert all(kinds[:first])
            for v, dev in zip(node.inputs[first:], kinds[first:]):
                assert dev == (v.type.ndim > 0), (node, v)


def test_gpu_op_names_and_printing():
    x = T.fmatrix("x")
    e = G.make_gpu_op(T.exp(x).owner.op, (True,), (True,))
    assert type(e).__name__ == "GpuElemwise" and str(e) == "GpuElemwise{exp,no_inplace}"
    s = G.make_gpu_op(T.sum(x, axis=0).owner.op, (True,), (True,))
    # the applied Sum carries its accumulator dtype, as Theano's does
    assert type(s).__name__ == "GpuCAReduce"
    assert str(s) == "GpuCAReduce{Sum{axis=[0], acc_dtype=float64}}"
    assert G.GpuGemv.__name__ == "GpuGemv" and G.GpuGemm.__name__ == "GpuGemm"
    assert G.GpuDot22.__name__ == "GpuDot22"
    again = pickle.loads(pickle.dumps(e))
    assert again == e and hash(again) == hash(e)
    r = G.make_gpu_op(T.reshape(x, (2, -1)).owner.op, (True, False), (True,))
    assert pickle.loads(pickle.dumps(r)) == r


def test_gpu_types_and_variables():
    t = GpuArrayType("float32", (False, True))
    assert t == GpuArrayType("float32", (False, True)) and t != TensorType("float32", (0, 1))
    assert hash(t) == hash(GpuArrayType("float32", (False, True)))
    assert str(t) == "GpuTensorType(float32, col)"
    v = t("v")
    assert isinstance(v, GpuArrayVariable) and v.ndim == 2 and v.dtype == "float32"
    w = v * 2 + 1  # tensor operators work on the host view of the variable
    assert isinstance(w.type, TensorType)
    assert any(isinstance(n.op, G.HostFromGpu) for n in jitgraph.graph.basic.io_toposort([v], [w]))
    h = T.fmatrix("h")
    converted = GpuArrayType("float32", (False, False)).convert_variable(h)
    assert isinstance(converted.owner.op, G.GpuFromHost)
    assert G.host_from_gpu(G.gpu_from_host(h)) is h
    assert G.gpu_from_host(G.host_from_gpu(v)) is v
    g = T.grad(T.sum(v * v), v)  # gradients flow through the transfer
    assert isinstance(g.type, TensorType) and g.ndim == 2


def test_every_cast_renders_in_cuda():
    from jitgraph.backend_gpu.cuda_types import SUPPORTED_DTYPES
    from jitgraph.backend_gpu.scalar_templates import Body, get_template

    for dtype in SUPPORTED_DTYPES:
        assert get_template(f"convert_to_{dtype}")(Body(), ["a"], ["float64"], dtype)


def test_dead_steps_of_a_fused_program_are_not_emitted():
    from jitgraph.backend_gpu.elemwise_codegen import contiguous_source
    from jitgraph.backend_gpu.lower_elemwise import structure_of
    from jitgraph.tensor.elementwise import scalar_ops as S
    from jitgraph.tensor.elementwise.composite import Composite
    from jitgraph.tensor.elementwise.elemwise import Elemwise

    comp = Composite(["float32", "float32"], [(S.op("sigmoid"), (0,), "float32"),
                                              (S.op("exp"), (1,), "float32")], [3])
    x, y = T.fvectors("x", "y")
    src = contiguous_source(structure_of(Elemwise(comp)(x, y).owner))
    assert "expf(x1)" in src and "x0" not in src and "exp(-fabs" not in src


def test_gpu_elemwise_fusion_flag(gpu_pass):
    w = GpuArrayType("float32", (False,))("w")
    out = T.exp(w) * 2 + T.sin(w)
    fused_graph = rewritten([w], [out])
    assert names(fused_graph).count("GpuElemwise") == 1
    with jitgraph.config.change_flags({"gpu.local_elemwise_fusion": False}):
        split = rewritten([w], [out])
    assert names(split).count("GpuElemwise") >= 4
    assert not any(type(n.op).__name__ == "Elemwise" for n in split.apply_nodes)
