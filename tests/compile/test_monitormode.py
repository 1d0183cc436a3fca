"""MonitorMode: user functions around every node, with the node's storage cells."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import function
from jitgraph.compile.linker import LINKERS
from jitgraph.compile.monitormode import MonitorMode
from jitgraph.tensor.elementwise.elemwise import Elemwise


def test_pre_and_post_see_every_node_with_its_values():
    x = T.dvector("x")
    calls = []

    def pre(i, node, fn):
        assert all(cell[0] is not None for cell in fn.inputs)
        calls.append(("pre", i, node))

    def post(i, node, fn):
        values = [cell[0] for cell in fn.outputs]
        assert all(v is not None for v in values)
        calls.append(("post", i, node, [np.copy(v) for v in values],
                      [np.copy(c[0]) for c in fn.inputs]))

    f = function([x], T.exp(x) * 2 + T.log(x), mode=MonitorMode(pre, post))
    out = f([1.0, 2.0])
    order = f._program.order
    assert [c[:2] for c in calls] == [(k, i) for i in range(len(order)) for k in ("pre", "post")]
    assert [c[2] for c in calls if c[0] == "post"] == order
    last = calls[-1]
    np.testing.assert_allclose(last[3][0], out)  # the last node computes the output
    np.testing.assert_allclose(out, np.exp([1.0, 2.0]) * 2 + np.log([1.0, 2.0]))


def test_detect_nan_example_stops_at_the_first_nan():
    x = T.dvector("x")
    found = []

    def detect_nan(i, node, fn):
        for output in fn.outputs:
            value = output[0]
            if isinstance(value, np.ndarray) and np.isnan(value).any():
                found.append((node, [c[0] for c in fn.inputs]))
                raise FloatingPointError("NaN")

    y = T.log(x)
    f = function([x], y + 1, mode=MonitorMode(post_func=detect_nan).excluding("fusion"))
    f([1.0])
    with pytest.raises(FloatingPointError):
        f([-1.0])
    node, inputs = found[0]
    assert "log" in str(node.op)
    np.testing.assert_array_equal(inputs[0], [-1.0])


def test_fn_reruns_the_node_and_mode_eval():
    x = T.dvector("x")
    reruns = []

    def post(i, node, fn):
        fn.outputs[0][0] = None
        fn()  # runs the node again
        reruns.append(np.copy(fn.outputs[0][0]))

    mode = MonitorMode(post_func=post)
    f = function([x], x * 3, mode=mode)
    np.testing.assert_array_equal(f([1.0]), [3.0])
    np.testing.assert_array_equal(reruns[-1], [3.0])
    assert "MonitorMode" in str(mode) and mode.eval is not None


def test_monitor_on_compiled_kernels():
    """With the CPU backend's linker the hooks wrap the compiled (Numba) thunks."""
    if not jitgraph.config.cxx:
        pytest.skip("compiled code disabled")
    saved = dict(LINKERS)
    first_import = "jitgraph.backend_cpu.linker" not in sys.modules
    try:
        backend = pytest.importorskip("jitgraph.backend_cpu.linker")
    finally:
        if first_import:  # importing it registered its linkers: leave the table as it was
            LINKERS.clear()
            LINKERS.update(saved)
    kinds = []

    def post(i, node, fn):
        kinds.append(fn.kind)
        assert fn.outputs[0][0] is not None

    x = T.dvector("x")
    f = function([x], T.exp(x) + 1, mode=MonitorMode(post_func=post,
                                                     linker=backend.NumbaLinker("cvm")))
    np.testing.assert_allclose(f([0.0, 1.0]), np.exp([0.0, 1.0]) + 1)
    assert kinds == f._program.kinds and "Numba" in kinds


def test_theanos_pass_names_exclude_fusion_and_inplace():
    """``mode.excluding('local_elemwise_fusion', 'inplace_elemwise_optimizer')``, Theano's
    names of the two passes, leaves separate Elemwise nodes that write new arrays (Theano 1.0.5
    gives the same 5 nodes)."""
    x = T.vector("x")
    o = T.outer(x, x)
    mode = MonitorMode(post_func=lambda i, node, fn: None).excluding(
        "local_elemwise_fusion", "inplace_elemwise_optimizer")
    f = function([x], [T.log(o) * o], mode=mode)
    assert len(f.maker.fgraph.apply_nodes) == 5
    assert not any(node.op.destroy_map for node in f.maker.fgraph.apply_nodes
                   if isinstance(node.op, Elemwise))


def test_vm_linker_callback_sees_each_node_after_it_ran():
    """Theano's ``VM_Linker(callback=...)``: called after each node with its storage and
    compute map (Theano 1.0.5 reports the same two nodes and values)."""
    from jitgraph.compile.linker import VMLinker
    from jitgraph.compile.mode import Mode

    seen = []

    def callback(node, thunk, storage_map, compute_map):
        out = node.outputs[0]
        seen.append((str(node.op), compute_map[out][0], float(storage_map[out][0])))

    a, b, c = T.scalars("a", "b", "c")
    f = function([a, b, c], (a + b) * c, mode=Mode(optimizer=None,
                                                   linker=VMLinker(callback=callback)))
    assert f(1, 2, 3) == 9.0
    assert seen == [("Elemwise{add,no_inplace}", True, 3.0),
                    ("Elemwise{mul,no_inplace}", True, 9.0)]
    f(1, 2, 3)
    assert len(seen) == 4
