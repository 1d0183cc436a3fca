"""The graph IR: variables, Apply nodes, ops, traversal, cloning, FunctionGraph and printing."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import (Apply, Constant, ancestors, clone_replace, equal_computations,
                                  graph_inputs, io_toposort)
from jitgraph.graph.evaluate import evaluate
from jitgraph.graph.fg import OUTPUT, Feature, FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.graph.printing import debugprint, pp


def test_toposort_and_inputs():
    x, y = T.dvectors("x y")
    a = T.exp(x)
    b = a * y
    c = b + a
    order = io_toposort([x, y], [c])
    assert [n.op.scalar_op.name for n in order if hasattr(n.op, "scalar_op")] == ["exp", "mul",
                                                                                  "add"]
    assert set(graph_inputs([c])) == {x, y}
    assert a in set(ancestors([c]))


def test_toposort_of_a_deep_chain_does_not_recurse():
    x = T.dscalar("x")
    out = x
    for _ in range(3000):
        out = out + 1
    assert len(io_toposort([x], [out])) >= 3000


def test_cycle_is_reported():
    x = T.dscalar("x")
    y = x + 1
    z = y * 2
    y.owner.inputs[0] = z  # corrupt the graph on purpose
    with pytest.raises(ValueError, match="cycle"):
        io_toposort([x], [z])


def test_ops_are_immutable_hashable_and_compare_by_props():
    add1 = T.Elemwise(scalar_ops.op("add"))
    add2 = T.Elemwise(scalar_ops.op("add"))
    assert add1 == add2 and hash(add1) == hash(add2)
    assert add1 != T.Elemwise(scalar_ops.op("mul"))
    with pytest.raises(AttributeError, match="immutable"):
        add1.scalar_op = None
    assert pickle.loads(pickle.dumps(add1)) == add1


def test_clone_replace_and_equal_computations():
    x, y = T.dvectors("x y")
    z = T.exp(x) + y
    z2 = clone_replace(z, {y: x})
    assert equal_computations([z2], [T.exp(x) + x])
    assert not equal_computations([z], [T.exp(x) + x])
    np.testing.assert_allclose(evaluate(z2, {x: np.ones(2)}), np.e + 1)


def test_function_graph_replace_prunes_and_notifies():
    events = []

    class Recorder(Feature):
        def on_prune(self, fgraph, node, reason):
            events.append(("prune", str(node.op)))

        def on_import(self, fgraph, node, reason):
            events.append(("import", str(node.op)))

    x = T.dvector("x")
    out = T.exp(x) * 2
    fg = FunctionGraph([x], [out], features=[Recorder()])
    exp_node = next(n for n in fg.toposort() if "exp" in str(n.op))
    fg.replace(exp_node.outputs[0], T.log(fg.inputs[0]), reason="test")
    assert ("prune", "Elemwise{exp,no_inplace}") in events
    assert ("import", "Elemwise{log,no_inplace}") in events
    fg.check_integrity()
    assert all("exp" not in str(n.op) for n in fg.apply_nodes)
    with pytest.raises(TypeError, match="types differ"):
        fg.replace(fg.outputs[0], T.lvector())
    assert fg.clients[fg.outputs[0]] == [(OUTPUT, 0)]


def test_callbacks_reach_the_features_attached_now_and_only_their_own_hooks():
    # FunctionGraph keeps each event's hooks (the features' own, not Feature's no-ops) until a
    # feature is attached or removed; duck-typed features (no Feature base) are called too.
    calls = []

    class Imports(Feature):
        def on_import(self, fgraph, node, reason):
            calls.append(("Imports", "import"))

    class Changes:
        def on_attach(self, fgraph):
            pass

        def on_detach(self, fgraph):
            pass

        def on_change_input(self, fgraph, node, i, old, new, reason):
            calls.append(("Changes", "change"))

    x = T.dvector("x")
    fg = FunctionGraph([x], [T.exp(x) * 2])
    imports, changes = Imports(), Changes()
    fg.attach_feature(imports)
    mul = fg.outputs[0].owner
    fg.replace(mul.inputs[0], T.log(fg.inputs[0]))
    assert calls == [("Imports", "import")]
    fg.attach_feature(changes)
    fg.replace(fg.outputs[0].owner.inputs[0], T.sin(fg.inputs[0]))
    assert calls[1:] == [("Imports", "import"), ("Changes", "change")]
    fg.remove_feature(imports)
    fg.replace(fg.outputs[0].owner.inputs[0], T.cos(fg.inputs[0]))
    assert calls[3:] == [("Changes", "change")]
    fg.remove_feature(changes)
    restored = pickle.loads(pickle.dumps(fg))  # (the kept hooks are not pickled)
    assert "_hooks" not in fg.__getstate__() and restored._hooks == {}
    restored.replace(restored.outputs[0].owner.inputs[0], T.tan(restored.inputs[0]))


def test_function_graph_clones_by_default():
    x = T.dvector("x")
    out = x + 1
    fg = FunctionGraph([x], [out])
    assert fg.inputs[0] is not x and fg.outputs[0] is not out
    fg2 = fg.clone()
    assert len(fg2.apply_nodes) == len(fg.apply_nodes)


def test_missing_input_detected():
    x, y = T.dvectors("x y")
    with pytest.raises(ValueError, match="not an input"):
        FunctionGraph([x], [x + y])


def test_debugprint_format():
    x = T.dvector("x")
    out = 10 / x
    text = debugprint(out, file="str")
    lines = text.splitlines()
    assert lines[0].startswith("Elemwise{true_div,no_inplace} [id A] ''")
    assert any("x [id" in line for line in lines)
    assert any("TensorConstant{" in line for line in lines)
    f = jitgraph.function([x], out)
    assert "[id A]" in debugprint(f, file="str")
    assert "/" in pp(out)


def test_shared_subgraph_printed_once():
    x = T.dvector("x")
    e = T.exp(x)
    text = debugprint([e + e * 2], file="str")
    assert text.count("Elemwise{exp,no_inplace}") == 2  # second time without children
    assert text.count(" x [id") + text.count("|x [id") == 1


def test_compute_test_value_catches_shape_errors_at_build_time():
    x, y = T.dvectors("x y")
    x.tag.test_value = np.ones(3)
    y.tag.test_value = np.ones(4)
    with jitgraph.config.change_flags(compute_test_value="raise"):
        with pytest.raises(ValueError, match="test values"):
            x + y
        z = x * 2
        np.testing.assert_array_equal(z.tag.test_value, [2, 2, 2])
        with pytest.raises(ValueError, match="no test value"):
            T.dvector("q") + 1
    with jitgraph.config.change_flags(compute_test_value="ignore"):
        T.dvector("q") + 1  # silently skipped


def test_constants_signature_merges_equal_values():
    a = T.constant(np.arange(100.0))
    b = T.constant(np.arange(100.0))
    c = T.constant(np.arange(100.0) + 1)
    assert a.equals(b) and not a.equals(c)
    assert isinstance(a, Constant)


class _Twice(Op):
    """An op with two outputs, to check multi-output handling."""

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2
        output_storage[1][0] = inputs[0] * 3

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2 + output_grads[1] * 3]


def test_multi_output_op_and_its_gradient():
    x = T.dvector("x")
    a, b = _Twice()(x)
    np.testing.assert_array_equal(evaluate([a, b], {x: np.ones(2)})[1], [3, 3])
    g = jitgraph.grad(a.sum(), x)  # b unused: its output gradient is zeros
    np.testing.assert_array_equal(evaluate(g, {x: np.ones(2)}), [2, 2])


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_creation_trace_pickles_with_every_protocol(protocol):
    y = T.dvector("x") * 2
    trace = y.tag.trace
    assert trace and trace[-1].filename == __file__
    restored = pickle.loads(pickle.dumps(trace, protocol=protocol))
    assert [(f.filename, f.lineno, f.name, f.line) for f in restored] == \
        [(f.filename, f.lineno, f.name, f.line) for f in trace]


def test_a_test_value_of_the_wrong_dtype_is_refused():
    """As in Theano 1.0.5: a float64 test value on a float32 variable is a TypeError when a
    node computes with it (it was downcast silently); Python numbers still convert."""
    with jitgraph.config.change_flags(compute_test_value="raise"):
        x, y = T.fmatrix("x"), T.dmatrix("y")
        x.tag.test_value = np.random.rand(3, 4)
        y.tag.test_value = np.random.rand(4, 5)
        with pytest.raises(TypeError):
            T.dot(x, y)
        s = T.fscalar("s")
        s.tag.test_value = 2.0
        assert (s * 2).tag.test_value == 4.0
