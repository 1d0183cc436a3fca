"""Theano's optimizer classes (``theano.gof.opt``) and graph text (``str(fgraph)``,
``gof.graph.as_string``) as code written for Theano 1.0 uses them.

Each expected text was printed by Theano 1.0.5 (tools/theano-oracle) for the same graph built
from the same small ops, so these tests pin Theano's results, not jitgraph's.
"""

import numpy as np

from jitgraph.gof import opt
from jitgraph.gof.fg import FunctionGraph
from jitgraph.gof.graph import Apply, Variable, as_string
from jitgraph.gof.op import Op
from jitgraph.gof.type import Type


class Sym(Type):
    """Values of any kind; every Sym is the same type."""

    def filter(self, data, strict=False, allow_downcast=None):
        return data

    def __eq__(self, other):
        return isinstance(other, Sym)

    def __hash__(self):
        return hash(Sym)

    def __str__(self):
        return "sym"


class Node(Op):
    """An op printed as its label, equal only to itself."""

    def __init__(self, label):
        self.label = label

    def make_node(self, *args):
        return Apply(self, list(args), [Sym()()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = (self.label, *inputs[0])

    def __str__(self):
        return self.label

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


F, G, H, K = Node("F"), Node("G"), Node("H"), Node("K")


def symbols():
    return [Variable(Sym(), None, None, name=n) for n in "abc"]


def graph(build, clone=True):
    a, b, c = symbols()
    outputs = build(a, b, c)
    return FunctionGraph([a, b, c], outputs if isinstance(outputs, list) else [outputs],
                         clone=clone)


def test_topo_optimizer_applies_a_pattern_sub():
    fg = graph(lambda a, b, c: F(G(a, b), c))
    opt.TopoOptimizer(opt.PatternSub((F, (G, "x", "y"), "z"), (H, "z", "y"))).optimize(fg)
    assert str(fg) == "[H(c, b)]"


def test_equilibrium_optimizer_reaches_the_fixed_point():
    fg = graph(lambda a, b, c: F(F(a, b), F(b, c)))
    opt.EquilibriumOptimizer([opt.PatternSub((F, "x", "y"), (G, "y", "x")),
                              opt.PatternSub((G, (G, "x", "y"), "z"), (K, "x", "y", "z"))],
                             max_use_ratio=10).optimize(fg)
    assert str(fg) == "[K(c, b, G(b, a))]"


def test_pattern_sub_with_a_constraint_on_the_whole_match():
    fg = graph(lambda a, b, c: F(F(a, b), F(c, c)))
    same_args = {"pattern": (F, "x", "y"),
                 "constraint": lambda v: v.owner.inputs[0] is v.owner.inputs[1]}
    opt.TopoOptimizer(opt.PatternSub(same_args, (H, "x"))).optimize(fg)
    assert str(fg) == "[F(F(a, b), H(c))]"


def test_in2out_runs_a_local_optimizer_on_every_tracked_node():
    @opt.local_optimizer([G])
    def g_to_k(node):
        return [K(*node.inputs)] if node.op == G else False

    fg = graph(lambda a, b, c: F(G(a, b), G(c, a)))
    opt.in2out(g_to_k).optimize(fg)
    assert str(fg) == "[F(K(a, b), K(c, a))]"


def test_out2in_of_a_pattern_sub():
    fg = graph(lambda a, b, c: F(F(F(a, b), c), a))
    opt.out2in(opt.PatternSub((F, (F, "x", "y"), "z"), (G, "x", "y", "z"))).optimize(fg)
    assert str(fg) == "[G(F(a, b), c, a)]"


def test_an_optimizer_subclass_with_a_one_argument_apply_uses_replace_validate():
    class SwapOuter(opt.Optimizer):
        def apply(self, fgraph):
            out = fgraph.outputs[0]
            fgraph.replace_validate(out, H(*reversed(out.owner.inputs)), reason="swap")

    fg = graph(lambda a, b, c: F(a, G(b, c)))
    SwapOuter().optimize(fg)
    assert str(fg) == "[H(G(b, c), a)]"


def test_op_key_optimizer_of_an_op_sub_and_merge_optimizer():
    fg = graph(lambda a, b, c: F(G(a, b), G(a, b)))
    opt.OpKeyOptimizer(opt.OpSub(G, K)).optimize(fg)
    assert str(fg) == "[F(K(a, b), K(a, b))]"
    fg = graph(lambda a, b, c: F(G(a, b), G(a, b)))
    opt.MergeOptimizer().optimize(fg)
    assert str(fg) == "[F(*1 -> G(a, b), *1)]"


def test_str_of_a_graph_numbers_the_nodes_used_twice():
    a, b, c = symbols()
    shared = G(a, b)
    fg = FunctionGraph([a, b, c], [F(shared, shared), H(shared, c)], clone=False)
    assert str(fg) == "[F(*1 -> G(a, b), *1), H(*1, c)]"
    assert as_string([shared], [F(shared, shared)]) == ["F(G.0, G.0)"]
    text = as_string([a, b], [F(G(a, b), c)], leaf_formatter=lambda v: f"<{v.name}>",
                     node_formatter=lambda n, args: f"{n.op}[{'; '.join(args)}]")
    assert text == ["F[G[<a>; <b>]; <c>]"]


def test_str_of_a_tensor_graph_and_a_multi_output_node():
    import jitgraph.tensor as T

    x = T.vector("x")
    y = T.exp(x)
    fg = FunctionGraph([x], [y * y + y, y])
    assert str(fg) == ("[Elemwise{add,no_inplace}(Elemwise{mul,no_inplace}(*1 -> "
                       "Elemwise{exp,no_inplace}(x), *1), *1), *1]")
    m = T.matrix("m")
    u, s, v = T.nlinalg.svd(m)
    assert as_string([m], [T.exp(u), s]) == [
        "Elemwise{exp,no_inplace}(*1 -> SVD{full_matrices=1, compute_uv=1}(m))", "*1::1"]


def test_values_eq_approx_variants():
    from jitgraph.tensor.type import (values_eq_approx_remove_inf,
                                      values_eq_approx_remove_inf_nan,
                                      values_eq_approx_remove_nan)

    with_nan = np.array([1.0, np.nan, 3.0])
    plain = np.array([1.0, 5.0, 3.0])
    with_inf = np.array([1.0, np.inf, 3.0])
    # Theano 1.0.5: True False False True True False
    assert values_eq_approx_remove_nan(with_nan, plain)
    assert not values_eq_approx_remove_inf(with_nan, plain)
    assert not values_eq_approx_remove_nan(with_inf, plain)
    assert values_eq_approx_remove_inf(with_inf, plain)
    assert values_eq_approx_remove_inf_nan(with_nan, with_inf)
    assert not values_eq_approx_remove_nan(with_nan, with_nan * 2)


def test_shape_feature_same_shape():
    import jitgraph.tensor as T
    from jitgraph.tensor.opt import ShapeFeature

    x, y = T.vector(), T.vector()
    o = x + y
    fg = FunctionGraph([x, y], [o], clone=False)
    feature = ShapeFeature()
    fg.attach_feature(feature)
    # Theano 1.0.5: True False True False, then IndexError twice
    assert feature.same_shape(x, o) and feature.same_shape(x, o, 0, 0)
    assert not feature.same_shape(y, o) and not feature.same_shape(y, o, 0, 0)
    for dims in [(1, 0), (0, 1)]:
        try:
            feature.same_shape(x, o, *dims)
        except IndexError:
            continue
        raise AssertionError(f"same_shape(x, o, {dims}) should raise IndexError")


def test_failure_callback_hears_of_a_rewrite_that_raises():
    calls = []

    def watch(exc, nav, pairs, lopt, node):
        calls.append((type(exc).__name__, str(exc), str(node.op),
                      [(str(o.owner.op), n) for o, n in pairs], isinstance(nav, opt.TopoOptimizer)))

    @opt.local_optimizer([F, G])
    def fussy(node):
        if node.op == G:
            raise ValueError("no G please")
        return [K(*node.inputs)]

    fg = graph(lambda a, b, c: F(G(a, b), c))
    opt.TopoOptimizer(fussy, failure_callback=watch).optimize(fg)
    # Theano 1.0.5: the F node is rewritten, the G failure reported once
    assert str(fg) == "[K(G(a, b), c)]"
    assert calls == [("ValueError", "no G please", "G", [("G", None)], True)]


def test_failure_callback_hears_of_rejected_replacements():
    from jitgraph.gof.destroyhandler import DestroyHandler
    from jitgraph.gof.fg import InconsistencyError

    class Overwriting(Node):
        destroy_map = {0: [0]}

    errors = []
    fg = graph(lambda a, b, c: F(a, b), clone=False)
    fg.attach_feature(DestroyHandler())  # the graph's inputs may not be overwritten
    opt.TopoOptimizer(opt.OpSub(F, Overwriting("FD")),
                      failure_callback=lambda exc, *rest: errors.append(exc)).optimize(fg)
    assert str(fg) == "[F(a, b)]"
    assert len(errors) == 1 and isinstance(errors[0], InconsistencyError)
