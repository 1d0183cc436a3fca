"""Elementwise fusion (jitgraph/rewrite/fusion.py): it fires, values are unchanged, it can be
turned off by flag and by tag, and verbose mode reports it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.mode import Mode
from jitgraph.graph.basic import Constant
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import rewrite_graph
from jitgraph.tensor.rewriting.fusion import MAX_FUSION_INPUTS, find_fusion_groups
from jitgraph.tensor.elementwise.composite import Composite
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.reduction import CAReduce

RNG = np.random.default_rng(0)


def fused_graph(inputs, outputs, **query) -> FunctionGraph:
    """A FunctionGraph of ``outputs`` rewritten by the query (default: the fusion phase only)."""
    fgraph = FunctionGraph(inputs, outputs)
    if not query:
        query = {"include": ["fusion"]}
    return rewrite_graph(fgraph, **query)


def run(fgraph: FunctionGraph, values):
    fn = jitgraph.function(fgraph.inputs, fgraph.outputs, mode=Mode("py", None),
                           accept_inplace=True)  # (a graph already rewritten)
    out = fn(*values)
    return out if isinstance(out, list) else [out]


def reference(inputs, outputs, values):
    out = jitgraph.function(inputs, outputs, mode=Mode("py", None))(*values)
    return out if isinstance(out, list) else [out]


def elemwise_nodes(fgraph: FunctionGraph):
    return [n for n in fgraph.toposort() if isinstance(n.op, Elemwise)]


def composites(fgraph: FunctionGraph):
    return [n for n in elemwise_nodes(fgraph) if isinstance(n.op.scalar_op, Composite)]


def check_values(inputs, outputs, fgraph, values) -> None:
    for got, want in zip(run(fgraph, values), reference(inputs, outputs, values)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------------------------
# It fires

def test_chain_of_ten_elementwise_ops_becomes_one_node() -> None:
    x, y = T.vectors("x", "y")
    z = x
    for k in range(10):
        z = [T.tanh, T.exp, lambda a: a * y, lambda a: a - y, T.neg][k % 5](z)
    fgraph = fused_graph([x, y], [z])
    assert len(fgraph.apply_nodes) == 1
    (node,) = fgraph.apply_nodes
    assert isinstance(node.op.scalar_op, Composite)
    assert len(node.op.scalar_op.steps) == 10
    assert node.outputs[0].type == z.type
    values = [RNG.normal(size=7), RNG.normal(size=7)]
    check_values([x, y], [z], fgraph, values)


def test_diamond_with_shared_subexpression_gives_one_multi_output_node() -> None:
    x, y = T.vectors("x", "y")
    t = T.exp(x * y)  # used by both outputs
    out1 = t + y
    out2 = T.tanh(t) * x
    fgraph = fused_graph([x, y], [out1, out2])
    assert len(fgraph.apply_nodes) == 1
    (node,) = fgraph.apply_nodes
    assert len(node.outputs) == 2
    names = node.op.scalar_op.inner_ops()
    assert names.count("exp") == 1  # the shared value is computed once
    values = [RNG.normal(size=5), RNG.normal(size=5)]
    check_values([x, y], [out1, out2], fgraph, values)


def test_internal_diamond_stays_single_output() -> None:
    x = T.vector("x")
    a = x * 3.0
    out = T.exp(a) + T.log1p(abs(a))
    fgraph = fused_graph([x], [out])
    (node,) = fgraph.apply_nodes
    assert len(node.outputs) == 1
    check_values([x], [out], fgraph, [RNG.normal(size=6)])


def test_intermediate_used_outside_is_an_extra_output() -> None:
    x = T.vector("x")
    a = T.exp(x)
    b = a * 2.0
    fgraph = fused_graph([x], [b, T.sum(a)])  # a is needed by the (unfusable) sum
    fused = composites(fgraph)
    assert len(fused) == 1 and len(fused[0].outputs) == 2
    check_values([x], [b, T.sum(a)], fgraph, [RNG.normal(size=4)])


def test_constants_are_inputs_of_the_composite_and_kernels_are_shared() -> None:
    x = T.vector("x")
    f1 = fused_graph([x], [x * 2.5 + 1.0])
    f2 = fused_graph([x], [x * 7.0 + 3.0])
    (n1,), (n2,) = composites(f1), composites(f2)
    assert any(isinstance(i, Constant) for i in n1.inputs)
    assert n1.op == n2.op  # same structure, different constants: one kernel for both
    assert hash(n1.op) == hash(n2.op)
    check_values([x], [x * 2.5 + 1.0], f1, [RNG.normal(size=3)])


def test_equal_constants_become_one_input() -> None:
    x, y = T.vectors("x", "y")
    out = (x + 2.0) * (y + 2.0)
    fgraph = fused_graph([x, y], [out])
    (node,) = composites(fgraph)
    assert len(node.inputs) == 3


def test_step_dtypes_follow_the_original_graph() -> None:
    x = T.vector("x", dtype="float32")
    i = T.vector("i", dtype="int32")
    out = T.exp(x) * i + T.cast(i * 2, "float64")
    fgraph = fused_graph([x, i], [out])
    (node,) = composites(fgraph)
    assert node.outputs[0].type == out.type
    dtypes = [d for _, _, d in node.op.scalar_op.steps]
    assert "float32" in dtypes and "int32" in dtypes and "float64" in dtypes
    values = [RNG.normal(size=4).astype("float32"), np.arange(4, dtype="int32")]
    check_values([x, i], [out], fgraph, values)


def test_sum_of_square_fuses_into_the_reduction() -> None:
    x = T.matrix("x")
    out = T.sum(T.sqr(x), axis=1)
    fgraph = fused_graph([x], [out])
    (node,) = fgraph.apply_nodes
    assert isinstance(node.op, CAReduce)
    assert isinstance(node.op.pre_op, Composite)
    assert node.op.pre_op.inner_ops() == ["sqr"]
    assert node.op.axis == (1,)
    assert node.inputs == [fgraph.inputs[0]]
    check_values([x], [out], fgraph, [RNG.normal(size=(3, 4))])


def test_fast_run_sum_of_power_is_one_reduction_node() -> None:
    x = T.matrix("x")
    out = (x ** 2).sum(axis=1)
    fn = jitgraph.function([x], out, mode=Mode("py", "fast_run"))
    nodes = fn.maker.fgraph.toposort()
    reductions = [n for n in nodes if isinstance(n.op, CAReduce)]
    assert len(reductions) == 1 and reductions[0].op.pre_op is not None
    assert not [n for n in nodes if isinstance(n.op, Elemwise)]
    value = RNG.normal(size=(3, 5))
    np.testing.assert_allclose(fn(value), (value ** 2).sum(axis=1), rtol=1e-12)


def test_fused_group_feeding_a_reduction_becomes_its_pre_op() -> None:
    x, y = T.matrices("x", "y")
    out = T.max(T.exp(x) * y - x, axis=0)
    fgraph = fused_graph([x, y], [out])
    (node,) = fgraph.apply_nodes
    assert isinstance(node.op, CAReduce)
    assert sorted(node.op.pre_op.inner_ops()) == ["exp", "mul", "sub"]
    check_values([x, y], [out], fgraph, [RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))])


def test_reduction_input_used_elsewhere_is_not_fused_into_it() -> None:
    x = T.matrix("x")
    e = T.exp(x)
    fgraph = fused_graph([x], [T.sum(e), e])
    reductions = [n for n in fgraph.apply_nodes if isinstance(n.op, CAReduce)]
    assert reductions[0].op.pre_op is None


# ---------------------------------------------------------------------------------------------
# Broadcasts, cycles, input cap

def test_cheap_broadcast_values_fuse_into_a_matrix_group() -> None:
    row, m = T.row("row"), T.matrix("m")
    out = T.tanh((row * 2.0 + 1.0) + m)
    fgraph = fused_graph([row, m], [out])
    assert len(elemwise_nodes(fgraph)) == 1
    check_values([row, m], [out], fgraph, [RNG.normal(size=(1, 4)), RNG.normal(size=(3, 4))])


def test_expensive_broadcast_values_are_not_recomputed_per_element() -> None:
    row, m = T.row("row"), T.matrix("m")
    e = T.exp(T.tanh(row))  # would be computed 3 times more often if fused into the matrix
    out = (e + m) * m
    fgraph = fused_graph([row, m], [out])
    fused = composites(fgraph)
    assert len(fused) == 2
    assert fused[0].outputs[0].broadcastable == (True, False)
    check_values([row, m], [out], fgraph, [RNG.normal(size=(1, 4)), RNG.normal(size=(3, 4))])


def test_scalar_chain_is_lifted_through_the_dimshuffle_and_fused() -> None:
    s, v = T.scalar("s"), T.vector("v")
    scale = 1.0 / T.cast(s * 2, "float64")  # a 0-d computation broadcast into a vector one
    out = T.exp(v) * scale + v
    fgraph = fused_graph([s, v], [out])
    assert len(elemwise_nodes(fgraph)) == 1
    check_values([s, v], [out], fgraph, [np.asarray(3.0), RNG.normal(size=5)])


def test_vector_lifted_into_a_matrix_group() -> None:
    v, m = T.vector("v"), T.matrix("m")
    out = T.exp(m) + (v * 2.0 - 1.0).dimshuffle(0, "x")
    fgraph = fused_graph([v, m], [out])
    assert len(elemwise_nodes(fgraph)) == 1
    check_values([v, m], [out], fgraph, [RNG.normal(size=3), RNG.normal(size=(3, 4))])


def test_no_cycle_through_an_unfused_node() -> None:
    x, w = T.matrix("x"), T.matrix("w")
    a = T.exp(x)
    b = T.dot(a, w)  # a -> dot -> c: a and c cannot be one node
    c = T.tanh(a + b)
    fgraph = fused_graph([x, w], [c])
    assert len(elemwise_nodes(fgraph)) == 2
    values = [RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3))]
    check_values([x, w], [c], fgraph, values)


def test_no_cycle_between_two_groups() -> None:
    # {a, d} and {c, b} are each fusable (convex) on their own, but a -> dot -> b and
    # c -> dot -> d: fused together they would each need the other first. Only one of the two
    # pairs may be fused.
    x, y, w = T.matrices("x", "y", "w")
    a = T.exp(x)
    c = T.tanh(y)
    b = c * T.dot(a, w)
    d = a + T.dot(c, w)
    fgraph = fused_graph([x, y, w], [b, d])
    fgraph.toposort()
    assert len(elemwise_nodes(fgraph)) == 3
    values = [RNG.normal(size=(3, 3)) for _ in range(3)]
    check_values([x, y, w], [b, d], fgraph, values)


def test_input_cap_splits_large_groups() -> None:
    xs = T.vectors(*[f"x{k}" for k in range(45)])
    out = xs[0]
    for k, v in enumerate(xs[1:]):
        out = out * v if k % 2 else out + v
    fgraph = fused_graph(list(xs), [out])
    nodes = elemwise_nodes(fgraph)
    assert 2 <= len(nodes) <= 3
    assert all(len(n.inputs) <= MAX_FUSION_INPUTS for n in nodes)
    values = [RNG.normal(size=2) for _ in xs]
    check_values(list(xs), [out], fgraph, values)


def test_find_fusion_groups_reports_topologically_sorted_groups() -> None:
    x = T.vector("x")
    out = T.exp(x) + 1.0
    fgraph = FunctionGraph([x], [out])
    (group,) = find_fusion_groups(fgraph)
    assert [n.op.scalar_op.name for n in group] == ["exp", "add"]


def test_existing_composites_are_inlined() -> None:
    x, y = T.vectors("x", "y")
    t = T.exp(x)
    a, b = rewrite_graph([t * y, t - y], include=["fusion"])  # one 2-output node
    assert a.owner is b.owner and isinstance(a.owner.op.scalar_op, Composite)
    out = T.tanh(a) + b
    fgraph = fused_graph([x, y], [out])
    (node,) = composites(fgraph)
    assert len(node.outputs) == 1
    check_values([x, y], [out], fgraph, [RNG.normal(size=3), RNG.normal(size=3)])


def test_zero_d_graph_fuses() -> None:
    a, b = T.scalars("a", "b")
    out = T.exp(a) * b - a / b
    fgraph = fused_graph([a, b], [out])
    assert len(fgraph.apply_nodes) == 1
    check_values([a, b], [out], fgraph, [np.asarray(0.5), np.asarray(2.0)])


# ---------------------------------------------------------------------------------------------
# Levels, flags and tags

def _has_composite(fn) -> bool:
    return any(isinstance(n.op, Elemwise) and isinstance(n.op.scalar_op, Composite)
               for n in fn.maker.fgraph.toposort())


def _expr():
    x, y = T.vectors("x", "y")
    return [x, y], T.exp(x) * y + T.tanh(y)


@pytest.mark.parametrize("level,fuses", [("fast_run", True), ("o2", True), ("o3", True),
                                         ("fast_compile", False), ("stabilize", False),
                                         (None, False)])
def test_levels_that_fuse(level, fuses) -> None:
    inputs, out = _expr()
    fn = jitgraph.function(inputs, out, mode=Mode("py", level))
    assert _has_composite(fn) is fuses
    x, y = RNG.normal(size=4), RNG.normal(size=4)
    np.testing.assert_allclose(fn(x, y), np.exp(x) * y + np.tanh(y), rtol=1e-12)


def test_mode_excluding_fusion_removes_it() -> None:
    inputs, out = _expr()
    mode = Mode("py", "fast_run")
    assert _has_composite(jitgraph.function(inputs, out, mode=mode))
    assert not _has_composite(jitgraph.function(inputs, out, mode=mode.excluding("fusion")))
    assert not _has_composite(jitgraph.function(
        inputs, out, mode=mode.excluding("local_elemwise_fusion")))
    reduced = jitgraph.function([inputs[0]], T.sum(T.sqr(inputs[0])),
                                mode=mode.excluding("fusion"))
    assert all(getattr(n.op, "pre_op", None) is None for n in reduced.maker.fgraph.toposort())


def test_local_elemwise_fusion_flag_disables_fusion(flags) -> None:
    inputs, out = _expr()
    flags["tensor.local_elemwise_fusion"] = False
    assert not _has_composite(jitgraph.function(inputs, out, mode=Mode("py", "fast_run")))
    # Even a query naming the fusion phase explicitly does nothing while the flag is off.
    fgraph = fused_graph(inputs, [out])
    assert not composites(fgraph)


def test_local_elemwise_fusion_config_flag(flags) -> None:
    # Read from the real config (the fixture's override is removed for this test).
    del flags["tensor.local_elemwise_fusion"]
    inputs, out = _expr()
    with jitgraph.config.change_flags({"tensor.local_elemwise_fusion": False}):
        assert not _has_composite(jitgraph.function(inputs, out, mode=Mode("py", "fast_run")))
    assert _has_composite(jitgraph.function(inputs, out, mode=Mode("py", "fast_run")))


def test_optimizer_verbose_prints_fusion(flags, capsys) -> None:
    flags["optimizer_verbose"] = True
    inputs, out = _expr()
    jitgraph.function(inputs, out, mode=Mode("py", "fast_run"))
    printed = capsys.readouterr().out
    assert "rewriting: elemwise_fusion:" in printed
    assert "Composite" in printed


_SUBPROCESS = textwrap.dedent("""
    import jitgraph, jitgraph.tensor as T
    from jitgraph.tensor.elementwise.composite import Composite
    x, y = T.vectors("x", "y")
    f = jitgraph.function([x, y], T.exp(x) * y + T.tanh(y))
    assert str(f.maker.mode.optimizer) == "fast_run", f.maker.mode
    print("FUSED" if any(isinstance(getattr(n.op, "scalar_op", None), Composite)
                         for n in f.maker.fgraph.toposort()) else "UNFUSED")
""")


def _run_with_flags(theano_flags: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("THEANO_FLAGS", "JITGRAPH_FLAGS")}
    env["THEANO_FLAGS"] = theano_flags
    return subprocess.run([sys.executable, "-c", _SUBPROCESS], env=env, capture_output=True,
                          text=True, timeout=120)


def test_optimizer_excluding_fusion_with_fast_run_in_a_fresh_process() -> None:
    off = _run_with_flags("mode=FAST_RUN,optimizer_excluding=fusion")
    assert off.returncode == 0, off.stderr
    assert off.stdout.split()[-1] == "UNFUSED"
    on = _run_with_flags("mode=FAST_RUN")
    assert on.returncode == 0, on.stderr
    assert on.stdout.split()[-1] == "FUSED"


def test_optimizer_verbose_in_a_fresh_process() -> None:
    out = _run_with_flags("mode=FAST_RUN,optimizer_verbose=True")
    assert out.returncode == 0, out.stderr
    assert "rewriting: elemwise_fusion:" in out.stdout


def test_types_are_unchanged_by_fusion() -> None:
    x = T.matrix("x", dtype="float32")
    r = T.row("r", dtype="float32")
    outs = [T.exp(x) + r, T.sum(x * r, axis=0), (r * 2).astype("float64")]
    fgraph = fused_graph([x, r], outs)
    assert [o.type for o in fgraph.outputs] == [o.type for o in outs]


@pytest.mark.parametrize("seed", range(5))
def test_set_bits_of_a_reachability_mask(seed) -> None:
    # _bits lists the nodes a contracted group updates: every set bit, ascending, none other
    import random

    from jitgraph.tensor.rewriting.fusion import _bits

    rng = random.Random(seed)
    for width in (1, 7, 8, 9, 63, 64, 65, 3000):
        for density in (0.0, 0.01, 0.5, 1.0):
            want = [k for k in range(width) if rng.random() < density]
            assert _bits(sum(1 << k for k in want)) == want
