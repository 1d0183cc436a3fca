"""In-place safety: the DestroyHandler, its orderings, and in-place rewrites through the engine."""

from __future__ import annotations

import numpy as np
import pytest
from rewrite_dummy_ops import (
    Add,
    AddInplace,
    Neg,
    NegInplace,
    add,
    add_inplace,
    add_inplace_tol,
    evaluate,
    exp,
    fgraph_of,
    fvec,
    log,
    neg,
    neg_inplace,
    op_names,
    vecs,
    view,
)

from jitgraph.graph.fg import InconsistencyError
from jitgraph.rewrite import (
    DestroyHandler,
    fgraph_orderings,
    get_destroy_handler,
    in_to_out,
    node_rewriter,
    register_inplace,
    rewrite_graph,
    toposort_with_orderings,
)

X = [0.5, -1.0, 2.0]


def validate(inputs, outputs, **kw):
    fg = fgraph_of(inputs, outputs)
    fg.attach_feature(DestroyHandler(**kw))
    fg.validate()
    return fg


def rejects(inputs, outputs, match, **kw):
    with pytest.raises(InconsistencyError, match=match):
        validate(inputs, outputs, **kw)


def test_destroying_an_intermediate_with_one_reader_is_safe():
    x, = vecs("x")
    fg = validate([x], [exp(neg_inplace(exp(x)))])
    np.testing.assert_allclose(evaluate(fg, X)[0], np.exp(-np.exp(X)))


def test_protected_and_mutable_inputs_and_constants():
    x, = vecs("x")
    rejects([x], [neg_inplace(x)], "protected graph input")
    fg = validate([x], [exp(neg_inplace(x))], mutable=[x])
    assert get_destroy_handler(fg).is_protected(x) is False
    rejects([x], [neg_inplace(view(x))], r"a view of x, which is a protected")
    rejects([x], [add_inplace(fvec.make_constant([1.0]), x)], "overwrite the constant")
    y = exp(x)
    rejects([x], [exp(neg_inplace(y))], "protected graph input", protected=[y])


def test_other_reader_gets_ordered_before_the_destroyer():
    x, = vecs("x")
    y = exp(x)
    d = neg_inplace(y)
    other = add(y, 1.0)
    fg = validate([x], [exp(d), other])
    orderings = fgraph_orderings(fg)
    assert orderings == {d.owner: {other.owner}}
    order = toposort_with_orderings(fg)
    assert order.index(other.owner) < order.index(d.owner)
    got = evaluate(fg, X)
    np.testing.assert_allclose(got[0], np.exp(-np.exp(X)))
    np.testing.assert_allclose(got[1], np.exp(X) + 1)


def test_fast_cycle_detection_refuses_other_readers():
    x, = vecs("x")
    y = exp(x)
    rejects([x], [exp(neg_inplace(y)), add(y, 1.0)], "cycle_detection='fast'", algo="fast")
    validate([x], [exp(neg_inplace(exp(x)))], algo="fast")
    v = exp(x)
    validate([x], [exp(neg_inplace(view(v)))], algo="fast")


def test_reader_that_needs_the_result_makes_a_cycle():
    x, = vecs("x")
    y = exp(x)
    d = neg_inplace(y)
    rejects([x], [add(y, d)], "cannot be ordered")


def test_two_destroyers_and_aliased_inputs():
    x, = vecs("x")
    y = exp(x)
    rejects([x], [neg_inplace(y), exp(neg_inplace(y))], "both overwrite")
    v = exp(x)
    rejects([x], [add(neg_inplace(view(v)), neg_inplace(v))], "both overwrite")
    z = exp(x)
    rejects([x], [log(add_inplace(z, z))], "also reads input 1")
    z2 = exp(x)
    rejects([x], [log(add_inplace(z2, view(z2)))], "also reads input 1")
    z3 = exp(x)
    fg = validate([x], [log(add_inplace_tol(z3, z3))])
    np.testing.assert_allclose(evaluate(fg, X)[0], np.log(2 * np.exp(X)))


def test_destroying_a_graph_output_or_its_view_is_refused():
    x, = vecs("x")
    y = exp(x)
    rejects([x], [y, exp(neg_inplace(y))], "needed as the graph output")
    z = exp(x)
    rejects([x], [view(z), exp(neg_inplace(z))], "needed as the graph output")


def test_destroy_chains_are_legal():
    x, = vecs("x")
    fg = validate([x], [exp(neg_inplace(add_inplace(exp(x), 1.0)))])
    np.testing.assert_allclose(evaluate(fg, X)[0], np.exp(-(np.exp(X) + 1)))


def test_handler_tracks_changes_and_detaches():
    x, = vecs("x")
    y = exp(x)
    out = log(neg(y))
    fg = fgraph_of([x], [out, add(y, 1.0)])
    dh = DestroyHandler()
    fg.attach_feature(dh)
    assert fg.destroy_handler is dh and not dh.destroyers
    fg.replace(out.owner.inputs[0], neg_inplace(y), verbose=False)
    assert len(dh.destroyers) == 1
    fg.validate()
    assert dh.can_destroy(y) and not dh.can_destroy(x)
    with pytest.raises(ValueError, match="already has"):
        fg.attach_feature(DestroyHandler())
    fg.remove_feature(dh)
    assert not hasattr(fg, "destroy_handler")


def test_kept_verdicts_follow_later_changes():
    # The handler keeps each destroyer's verdict across changes; every change that matters
    # (a new reader of the overwritten value, a second destroyer, a reader needing the result,
    # an output) must still be seen, and unrelated changes must not discard the verdict.
    x, w = vecs("x", "w")
    y = exp(x)
    d = neg_inplace(y)
    far = log(w)
    fg = fgraph_of([x, w], [exp(d), far])
    dh = DestroyHandler()
    fg.attach_feature(dh)
    fg.validate()
    destroyer = d.owner
    assert destroyer in dh._verdicts
    fg.replace(far, exp(w), verbose=False)  # unrelated: the verdict stays
    fg.validate()
    assert destroyer in dh._verdicts
    # a new reader of y: ordered before the destroyer
    fg.replace(fg.outputs[1], add(exp(w), exp(y)), verbose=False)
    fg.validate()
    assert any(y in n.inputs for n in dh.orderings(fg)[destroyer])
    np.testing.assert_allclose(evaluate(fg, X, X)[1], np.exp(X) + np.exp(np.exp(X)))
    # a reader of y that needs the destroyer's result cannot run before it
    fg.replace(fg.outputs[1], add(y, d), verbose=False)
    with pytest.raises(InconsistencyError, match="cannot be ordered"):
        fg.validate()
    fg.replace(fg.outputs[1], exp(w), verbose=False)
    fg.validate()
    # a second destroyer of y, then y itself as an output
    fg.replace(fg.outputs[1], neg_inplace(y), verbose=False)
    with pytest.raises(InconsistencyError, match="both overwrite"):
        fg.validate()
    fg.replace(fg.outputs[1], y, verbose=False)
    with pytest.raises(InconsistencyError, match="needed as the graph output"):
        fg.validate()


@node_rewriter([Neg], inplace=True)
def local_neg_inplace(fgraph, node):
    return [neg_inplace(node.inputs[0])]


@node_rewriter([Add], inplace=True)
def local_add_inplace(fgraph, node):
    return [add_inplace(*node.inputs)]


def test_inplace_rewrite_applies_where_safe_and_rolls_back_where_not():
    x, = vecs("x")
    y = exp(x)
    fg = fgraph_of([x], [exp(neg(y)), neg(x), add(neg(y), 1.0)])
    before = evaluate(fg, X)
    stats = in_to_out(local_neg_inplace, local_add_inplace).rewrite(fg)
    assert get_destroy_handler(fg) is not None  # attached by the inplace=True requirement
    ops = op_names(fg)
    # neg(x) destroys a protected input, so it stays; one neg(y) is in place, the other one must
    # then stay out of place (two destroyers of y); add(neg(y), 1) can work in place.
    assert ops.count("NegInplace") == 1 and ops.count("Neg") == 2
    assert ops.count("AddInplace") == 1
    assert stats.rewrites["local_neg_inplace"].rejected == 2
    for got, want in zip(evaluate(fg, X), before):
        np.testing.assert_allclose(got, want)


def test_inplace_phase_in_fast_run(fresh_optdb):
    register_inplace(local_neg_inplace)
    x, = vecs("x")
    y = exp(x)
    out = log(neg(y))
    new = rewrite_graph(out, "fast_run")
    assert isinstance(new.owner.inputs[0].owner.op, NegInplace)
    assert not isinstance(rewrite_graph(out, "o3").owner.inputs[0].owner.op, NegInplace)
    from jitgraph.rewrite import rewrite_graph as rg

    assert isinstance(rg(out, "fast_run", exclude=["inplace"]).owner.inputs[0].owner.op, Neg)


def test_invalid_graph_before_rewriting_is_reported():
    x, = vecs("x")
    fg = fgraph_of([x], [neg_inplace(x)])
    with pytest.raises(InconsistencyError, match="invalid before rewriting"):
        in_to_out(local_neg_inplace).rewrite(fg)
    assert AddInplace.destroy_map == {0: [0]}


def test_nodes_imported_after_one_input_get_positions_of_their_own(monkeypatch):
    # Two new readers of one value were placed at the same position of the kept order, which
    # left no room to reorder them: the next constraint through them recomputed the whole
    # order (31 times in the in-place phase of a 48-block residual network).
    import jitgraph.rewrite.destroyhandler as dh_module

    x, w = vecs("x", "w")
    y = exp(x)
    d = neg_inplace(y)
    fg = fgraph_of([x, w], [exp(d), log(w), exp(y)])  # exp(y): a reader ordered before d
    dh = DestroyHandler()
    fg.attach_feature(dh)
    fg.validate()
    assert dh._position is not None
    full_orders = []
    real = dh_module.ordering_is_possible
    monkeypatch.setattr(dh_module, "ordering_is_possible",
                        lambda *a: full_orders.append(1) or real(*a))
    fg.replace(fg.outputs[1], add(add(exp(y), log(y)), add(exp(w), neg(w))), verbose=False)
    positions = list(dh._position.values())
    assert len(set(positions)) == len(positions) == len(fg.apply_nodes)
    fg.validate()
    assert not full_orders, "the kept order was recomputed"
    np.testing.assert_allclose(evaluate(fg, X, X)[1], np.exp(np.exp(X)) + np.log(np.exp(X))
                               + np.exp(X) - np.asarray(X))


def test_a_replacement_takes_the_place_of_the_node_it_replaces(monkeypatch):
    # neg(y) made in place must run after log(y), the other reader of y. Placed just after y
    # (its input), the new node came before log(y), and ordering it after log(y) searched and
    # reordered the nodes between; at the replaced node's position the order already holds.
    import jitgraph.rewrite.dynamic_order as order_module

    x, w = vecs("x", "w")
    y = exp(x)
    u = neg(y)
    e = exp(w)
    fg = fgraph_of([x, w], [exp(u), log(y), neg_inplace(e), exp(e)])
    dh = DestroyHandler()
    fg.attach_feature(dh)
    fg.validate()  # neg_inplace(e) has another reader: the kept order is computed
    y, u = fg.outputs[1].owner.inputs[0], fg.outputs[0].owner.inputs[0]
    reader = fg.outputs[1].owner
    # a valid order with log(y) between y and neg(y)
    order = [y.owner, reader, u.owner] + [n for n in fg.toposort()
                                          if n not in (y.owner, reader, u.owner)]
    dh._position = {node: float(k) for k, node in enumerate(order)}
    dh._slots = set(dh._position.values())
    searches = []
    real = order_module._reach
    monkeypatch.setattr(order_module, "_reach", lambda *a: searches.append(1) or real(*a))
    fg.replace(u, neg_inplace(y), verbose=False)
    fg.validate()
    new = fg.outputs[0].owner.inputs[0].owner
    assert isinstance(new.op, NegInplace)
    assert dh._position[reader] < dh._position[new] < dh._position[fg.outputs[0].owner]
    assert not searches
    got = evaluate(fg, X, X)
    np.testing.assert_allclose(got[0], np.exp(-np.exp(X)))
    np.testing.assert_allclose(got[1], np.log(np.exp(X)))
