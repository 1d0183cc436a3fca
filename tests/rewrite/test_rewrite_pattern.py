"""Declarative pattern rules."""

from __future__ import annotations

import numpy as np
import pytest
from rewrite_dummy_ops import (
    Binary,
    add,
    evaluate,
    exp,
    fgraph_of,
    fvec,
    log,
    log1p,
    mul,
    neg,
    op_names,
    sub,
    vecs,
)

from jitgraph.rewrite import (
    EquilibriumGraphRewriter,
    PatternNodeRewriter,
    in_to_out,
    pattern_table,
)

X = [0.25, -0.5, 2.0]
Y = [1.5, 3.0, -1.0]


def check_rule(rule, inputs, out, expected_ops, values=(X, Y)):
    fg = fgraph_of(inputs, [out])
    before = evaluate(fg, *values[: len(inputs)])
    EquilibriumGraphRewriter([rule]).rewrite(fg)
    assert op_names(fg) == expected_ops
    np.testing.assert_allclose(evaluate(fg, *values[: len(inputs)])[0], before[0])
    return fg


def test_nested_pattern_fires_and_values_stay_equal():
    x, y = vecs("x", "y")
    rule = PatternNodeRewriter((add, "x", (neg, "y")), (sub, "x", "y"))
    assert rule.tracks() == [add]
    assert rule.name == "(Add, x, (Neg, y)) -> (Sub, x, y)"
    check_rule(rule, [x, y], exp(add(x, neg(y))), ["Exp", "Sub"])


def test_callable_heads_and_class_patterns():
    x, = vecs("x")
    rule = PatternNodeRewriter((log, (Binary, 1.0, "x")), (log1p, "x"), name="log1p_any")
    fg = check_rule(rule, [x], log(add(1.0, x)), ["Log1p"])
    assert fg is not None
    # Binary matches Mul too: log(1 * x) -> log1p(x) would be wrong, but that is what the
    # class pattern says; the rule writer picks op instances to be precise.
    rule2 = PatternNodeRewriter((log, (add, 1.0, "x")), (log1p, "x"))
    fg = fgraph_of([x], [log(mul(1.0, x))])
    in_to_out(rule2).rewrite(fg)
    assert op_names(fg) == ["Log", "Mul"]


def test_repeated_name_must_bind_the_same_variable():
    x, y = vecs("x", "y")
    zero = lambda b: fvec.make_constant(np.zeros(3))  # noqa: E731
    rule = PatternNodeRewriter((sub, "x", "x"), zero)
    check_rule(rule, [x], exp(sub(x, x)), ["Exp"])
    fg = fgraph_of([x, y], [sub(x, y)])
    in_to_out(rule).rewrite(fg)
    assert op_names(fg) == ["Sub"]


def test_constants_in_patterns_and_constraints():
    x, = vecs("x")
    rule = PatternNodeRewriter((mul, "x", 1), "x")
    check_rule(rule, [x], exp(mul(x, 1.0)), ["Exp"])
    fg = fgraph_of([x], [mul(x, 2.0)])
    in_to_out(rule).rewrite(fg)
    assert op_names(fg) == ["Mul"]

    only_named = PatternNodeRewriter((neg, (neg, "x")), "x",
                                     constraint=lambda b: b["x"].name == "keep")
    x2, = vecs("keep")
    check_rule(only_named, [x2], exp(neg(neg(x2))), ["Exp"])
    fg = fgraph_of([x], [neg(neg(x))])
    in_to_out(only_named).rewrite(fg)
    assert op_names(fg) == ["Neg", "Neg"]

    positive = PatternNodeRewriter(
        (mul, "x", {"pattern": "c", "constraint": lambda v: float(v.data.min()) > 0}),
        (mul, "c", "x"))
    fg = fgraph_of([x], [mul(x, 3.0)])
    in_to_out(positive).rewrite(fg)
    assert fg.outputs[0].owner.inputs[1] is x


def test_multiple_clients_block_inner_matches_unless_allowed():
    x, = vecs("x")
    inner = neg(x)
    out = add(neg(inner), inner)  # the inner neg is also used by add
    fg = fgraph_of([x], [out])
    in_to_out(PatternNodeRewriter((neg, (neg, "x")), "x")).rewrite(fg)
    assert op_names(fg) == ["Add", "Neg", "Neg"]
    in_to_out(PatternNodeRewriter((neg, (neg, "x")), "x", allow_multiple_clients=True)
              ).rewrite(fg)
    assert op_names(fg) == ["Add", "Neg"]


def test_pattern_table_applies_every_rule():
    x, y = vecs("x", "y")
    table = pattern_table([
        ((neg, (neg, "x")), "x"),
        ((add, "x", (neg, "y")), (sub, "x", "y")),
        ((mul, "x", 1), "x", {"name": "mul_one"}),
    ], name="algebra")
    assert table.name == "algebra" and len(table) == 3
    out = add(mul(neg(neg(x)), 1.0), neg(y))
    check_rule(table, [x, y], out, ["Sub"])


def test_bad_patterns_are_reported_early():
    with pytest.raises(TypeError, match="input pattern"):
        PatternNodeRewriter("x", "x")
    with pytest.raises(TypeError, match="start with an Op"):
        PatternNodeRewriter((len, "x"), "x")
    with pytest.raises(TypeError, match="pattern rule"):
        pattern_table(["nonsense"])
