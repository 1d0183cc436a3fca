"""Shape inference (ShapeFeature), static shapes, SpecifyShape/alloc/fill rewrites."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply, Constant, graph_inputs, io_toposort
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.rewrite import RewriteWarning, rewrite_graph
from jitgraph.tensor.rewriting.shape import ShapeFeature, get_shape_feature
from jitgraph.tensor.rewriting.utils import same_dim
from jitgraph.tensor.core.basic import Alloc
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.shaping.shape import Shape, Shape_i, SpecifyShape

RNG = np.random.default_rng(3)


# A rewrite that loops or breaks the graph warns; here that is a failure.
pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")

@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"


def ops(outputs) -> list:
    outs = outputs if isinstance(outputs, list) else [outputs]
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    return [n.op for n in io_toposort(ins, outs)]


def op_types(outputs) -> list[str]:
    return [type(o).__name__ for o in ops(outputs)]


def run(inputs, outputs, args, level):
    mode = jitgraph.Mode(linker="py", optimizer=level)
    return jitgraph.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*args)


def check_values(inputs, outputs, args, levels=("fast_compile", "fast_run", "unsafe")):
    ref = run(inputs, outputs, args, None)
    for level in levels:
        got = run(inputs, outputs, args, level)
        outs = got if isinstance(outputs, list) else [got]
        refs = ref if isinstance(outputs, list) else [ref]
        for g, r in zip(outs, refs):
            assert np.asarray(g).dtype == np.asarray(r).dtype
            np.testing.assert_allclose(g, r, rtol=1e-7, err_msg=level)


class NoShape(Op):
    """An elementwise copy with no infer_shape."""

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = np.array(inputs[0], copy=True)


class BadShape(NoShape):
    """An infer_shape with a bug in it."""

    def infer_shape(self, fgraph, node, shapes):
        raise ValueError("broken infer_shape")


# ---------------------------------------------------------------------------------------------
# ShapeFeature

def test_feature_infers_through_ops():
    x, y = T.dmatrix("x"), T.drow("y")
    n = T.lscalar("n")
    s = x + y
    a = T.alloc(0.0, n, 5)
    d = T.dot(x, x.T)
    fg = FunctionGraph([x, y, n], [s, a, d], clone=False)
    feature = get_shape_feature(fg)
    assert fg.shape_feature is feature
    sx = feature.get_shape(x)
    assert feature.get_shape(s)[0] is sx[0] and feature.get_shape(s)[1] is sx[1]
    assert feature.get_shape(a)[0] is n and int(feature.get_shape(a)[1].data) == 5
    assert feature.get_shape(d)[0] is sx[0] and feature.get_shape(d)[1] is sx[0]
    assert int(feature.get_shape(y)[0].data) == 1  # broadcastable dims are the constant 1


def test_ops_without_infer_shape_fall_back_silently():
    x = T.dvector("x")
    y = NoShape()(x)
    fg = FunctionGraph([x], [y * 2], clone=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        feature = get_shape_feature(fg)
    (dim,) = feature.get_shape(y)
    assert isinstance(dim.owner.op, Shape_i) and dim.owner.inputs[0] is y


def test_infer_shape_errors_follow_on_shape_error(flags):
    flags["on_shape_error"] = "warn"
    x = T.dvector("x")
    y = BadShape()(x)
    fg = FunctionGraph([x], [y], clone=False)
    with pytest.warns(RewriteWarning, match="broken infer_shape"):
        feature = get_shape_feature(fg)
    assert isinstance(feature.get_shape(y)[0].owner.op, Shape_i)  # fell back
    flags["on_shape_error"] = "raise"
    fg2 = FunctionGraph([x], [BadShape()(x)], clone=False)
    with pytest.raises(ValueError, match="broken infer_shape"):
        get_shape_feature(fg2)


def test_feature_follows_replacements():
    x = T.dvector("x")
    e = T.exp(x)
    fg = FunctionGraph([x], [NoShape()(e) + 1], clone=False)
    feature = get_shape_feature(fg)
    ns_out = fg.outputs[0].owner.inputs[0]
    (before,) = feature.get_shape(ns_out)  # Shape_i of the NoShape output
    # Replace exp(x) by log(x): the stored shapes that referred to exp(x) now refer to log(x).
    lg = T.log(x)
    fg.replace(e, lg)
    user = fg.outputs[0]
    assert same_dim(feature.get_shape(user)[0], feature.get_shape(ns_out)[0])
    stale = [v for v, shp in feature.shape_of.items() if v in fg.variables
             for d in shp if d.owner is not None and e in d.owner.inputs]
    assert not stale and before is not None


def test_shape_phase_attaches_and_unshape_removes():
    x = T.dvector("x")
    f = jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="py", optimizer="fast_run"))
    assert getattr(f.maker.fgraph, "shape_feature", None) is None
    assert not any(isinstance(ft, ShapeFeature) for ft in f.maker.fgraph.features)


# ---------------------------------------------------------------------------------------------
# Static shapes

def test_shape_of_elemwise_resolves_to_an_input():
    x, y = T.dmatrix("x"), T.dmatrix("y")
    expr = (T.exp(x) + y).shape[0]
    out = rewrite_graph(expr, "fast_compile")
    assert op_types(out) == ["Shape_i"] and out.owner.inputs[0] is x
    check_values([x, y], expr, [RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))])


def test_shape_of_alloc_is_its_size_argument():
    n, m = T.lscalars("n", "m")
    a = T.alloc(1.5, n, m)
    expr = a.shape[0] + a.shape[1]
    out = rewrite_graph(expr, "fast_compile")
    assert "Alloc" not in op_types(out)
    assert set(graph_inputs([out])) >= {n, m}
    check_values([n, m], expr, [3, 4])


def test_shape_resolved_to_constant():
    x = T.dvector("x")
    expr = T.alloc(x, 3, 4).shape
    out = rewrite_graph(expr, "fast_compile")
    assert isinstance(out, Constant) and list(out.data) == [3, 4]
    m = T.dmatrix("m")
    mixed = T.alloc(m[0], 7, m.shape[1]).shape  # one known dim, one runtime dim
    out2 = rewrite_graph(mixed, "fast_compile")
    assert "Shape" not in op_types(out2) and "Alloc" not in op_types(out2)
    check_values([x, m], [expr, mixed], [np.ones(4), np.ones((2, 5))])


def test_shape_of_input_is_left_alone():
    x = T.dmatrix("x")
    out = rewrite_graph(x.shape, "fast_compile")
    assert op_types(out) == ["Shape"]


def test_mean_count_uses_input_shape():
    x = T.dvector("x")
    cost = T.exp(x).mean()
    g = T.grad(cost, x)
    out = rewrite_graph(g, "fast_run")
    for op in ops(out):
        if isinstance(op, Shape_i):
            pass
    shape_nodes = [n for n in io_toposort([x], [out]) if isinstance(n.op, (Shape_i, Shape))]
    assert all(n.inputs[0] is x for n in shape_nodes)
    check_values([x], g, [RNG.normal(size=5)])


# ---------------------------------------------------------------------------------------------
# SpecifyShape

def test_useless_specify_shape_removed_useful_kept():
    v = T.dvector("v")
    known = T.specify_shape(T.alloc(v, 3, 4), [3, 4])
    out = rewrite_graph(known, "fast_compile")
    assert "SpecifyShape" not in op_types(out)
    x = T.dmatrix("x")
    unknown = T.specify_shape(x, [2, None])
    assert "SpecifyShape" in op_types(rewrite_graph(unknown, "fast_run"))
    assert "SpecifyShape" not in op_types(rewrite_graph(unknown, "unsafe"))
    check_values([v], known, [np.ones(4)])
    f = jitgraph.function([x], unknown * 2, mode=jitgraph.Mode(linker="py",
                                                                optimizer="fast_run"))
    with pytest.raises(Exception, match="expected 2"):
        f(np.ones((3, 3)))


# ---------------------------------------------------------------------------------------------
# fill / alloc in elementwise graphs

def test_fill_to_alloc_then_alloc_elemwise():
    x = T.dmatrix("x")
    y = T.dmatrix("y")
    alone = T.fill(x, 3.0)  # at an output the fill becomes an explicit alloc
    out = rewrite_graph(alone, "fast_run")
    assert op_types(out) == ["Shape_i", "Shape_i", "Alloc"]
    # A fill feeding a reduction is turned into an alloc, which the elementwise product then
    # drops: y gives the shape, and x's shape is checked against it at run time.
    expr = (T.fill(x, 3.0).sum(axis=0) * y).sum()
    expr2 = T.fill(x, 3.0) * x
    out2 = rewrite_graph(expr2, "fast_run")
    assert not any(isinstance(o, (Alloc, Elemwise)) and getattr(o, "scalar_op", None) is not None
                   and o.scalar_op.name == "second" for o in ops(out2))
    assert "Alloc" not in op_types(out2)
    check_values([x, y], [alone, expr, expr2], [np.ones((2, 3)), RNG.normal(size=(2, 3))])


def test_alloc_elemwise_provable_shape_needs_no_check():
    x = T.dmatrix("x")
    c = T.dscalar("c")
    expr = T.alloc(c, x.shape[0], x.shape[1]) + x
    out = rewrite_graph(expr, "fast_run")
    assert op_types(out) == ["DimShuffle", "Elemwise"]
    check_values([x, c], expr, [RNG.normal(size=(2, 3)), 1.5])


def test_alloc_elemwise_adds_check_unless_disabled(flags):
    x = T.dmatrix("x")
    n, m = T.lscalars("n", "m")
    c = T.dscalar("c")
    expr = T.alloc(c, n, m) * x
    out = rewrite_graph(expr, "fast_run")
    types = op_types(out)
    assert "Alloc" not in types and "SpecifyShape" in types
    check_values([x, n, m, c], expr, [RNG.normal(size=(2, 3)), 2, 3, 2.0])
    mode = jitgraph.Mode(linker="py", optimizer="fast_run")
    f = jitgraph.function([x, n, m, c], expr, mode=mode)
    with pytest.raises(Exception):  # the mismatch is still reported
        f(RNG.normal(size=(2, 3)), 2, 4, 2.0)
    assert "SpecifyShape" not in op_types(rewrite_graph(expr, "unsafe"))
    flags["experimental.local_alloc_elemwise_assert"] = False
    types = op_types(rewrite_graph(expr, "fast_run"))
    assert "Alloc" not in types and "SpecifyShape" not in types


def test_alloc_elemwise_keeps_alloc_that_gives_the_shape():
    r = T.drow("r")
    n = T.lscalar("n")
    expr = T.alloc(1.0, n, 4) + r  # only the alloc has n rows
    out = rewrite_graph(expr, "fast_run")
    assert "Alloc" in op_types(out)
    check_values([r, n], expr, [np.ones((1, 4)), 3])


def test_useless_alloc_and_nested_alloc():
    x = T.dmatrix("x")
    same = T.alloc(x, x.shape[0], x.shape[1])
    assert rewrite_graph(same, "fast_compile") is x
    v = T.dvector("v")
    nested = T.alloc(T.alloc(v, 3, 4), 2, 3, 4)
    out = rewrite_graph(nested, "fast_compile")
    assert [type(o) for o in ops(out)].count(Alloc) == 1
    check_values([x, v], [same, nested], [np.ones((2, 2)), np.arange(4.0)])


def test_make_vector_indexing():
    a, b = T.lscalars("a", "b")
    vec = T.stack([a, b, a + b])
    expr = vec[1] * vec[2]
    out = rewrite_graph(expr, "fast_compile")
    assert "MakeVector" not in op_types(out) and "Subtensor" not in op_types(out)
    check_values([a, b], expr, [2, 5])


def test_spec_shape_of_shape_op_type():
    x = T.dmatrix("x")
    assert isinstance(T.shape(x).owner.op, Shape)
    assert isinstance(T.specify_shape(x, [2, 3]).owner.op, SpecifyShape)


def test_alloc_sinks_through_unary_ops_and_dimshuffles():
    n = T.lscalar("n")
    c = T.dscalar("c")
    expr = -T.alloc(c, n).dimshuffle(0, "x") * 2.0
    out = rewrite_graph(expr, "fast_run", exclude=["fusion", "inplace"])
    assert out.owner is not None and isinstance(out.owner.op, Alloc)  # allocated last
    assert op_types(out).count("Alloc") == 1
    check_values([n, c], expr, [3, 1.5])


def test_arange_length_simplifies_to_its_argument():
    x = T.dmatrix("x")
    expr = T.arange(x.shape[0]).shape[0]
    out = rewrite_graph(expr, "fast_compile")
    assert op_types(out) == ["Shape_i"] and out.owner.inputs[0] is x
    check_values([x], expr, [np.ones((4, 2))])
