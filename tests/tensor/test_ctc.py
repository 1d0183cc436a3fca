"""theano.tensor.nnet.ctc: the CTC loss against a brute-force sum over every alignment on tiny
cases (Theano 1.0.5 needs warp-ctc, which the oracle lacks), its gradient by verify_grad, the
rewrite dropping an unused gradient output, dtypes, shapes and errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import jitgraph
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.nnet import ctc as C
from jitgraph.tensor.core.type import TensorType


def tensor(nd, dtype="float64"):
    return TensorType(dtype, (False,) * nd).make_variable()


def brute_force_cost(acts, labels):
    """-log of the probability summed over every path that collapses to ``labels``."""
    y = np.exp(acts - acts.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    n_time, n_classes = y.shape
    total = 0.0
    for path in itertools.product(range(n_classes), repeat=n_time):
        merged = [k for t, k in enumerate(path) if t == 0 or k != path[t - 1]]
        if [k for k in merged if k != 0] == list(labels):
            total += np.prod([y[t, k] for t, k in enumerate(path)])
    return -np.log(total) if total > 0 else np.inf


CASES = {
    "distinct": ([[1, 2, -1], [3, 1, -1]], [5, 5]),
    "repeated_label": ([[2, 2, -1], [1, 1, 1]], [5, 5]),
    "padding_anywhere": ([[-1, 3, -1], [1, -1, 2]], [4, 3]),
    "empty_labels": ([[-1, -1, -1], [1, -1, -1]], [5, 1]),
    "short_inputs": ([[1, 2, 3], [2, -1, -1]], [3, 2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cost_is_the_sum_over_alignments(name):
    labels, lengths = (np.array(v, dtype="int32") for v in CASES[name])
    acts = np.random.default_rng(len(name)).normal(size=(5, 2, 4)) * 2
    a, l, n = tensor(3), tensor(2, "int32"), tensor(1, "int32")
    got = jitgraph.function([a, l, n], C.ctc(a, l, n))(acts, labels, lengths)
    want = [brute_force_cost(acts[:lengths[b], b], labels[b][labels[b] >= 0]) for b in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", ["distinct", "repeated_label", "padding_anywhere",
                                  "empty_labels"])
def test_gradient_verify_grad(name):
    labels, lengths = (np.array(v, dtype="int32") for v in CASES[name])
    rng = np.random.default_rng(7)
    verify_grad(lambda x: C.ctc(x, labels, lengths), [rng.normal(size=(5, 2, 4))], rng=rng)


def test_gradient_is_zero_past_each_length_and_rows_sum_to_zero():
    labels, lengths = np.array([[1, 2], [3, -1]], "int32"), np.array([3, 5], "int32")
    acts = np.random.default_rng(2).normal(size=(5, 2, 4))
    a = tensor(3)
    g = jitgraph.function([a], grad(C.ctc(a, labels, lengths).sum(), a))(acts)
    assert (g[3:, 0] == 0).all()
    # softmax inside: shifting a time step's scores changes nothing
    np.testing.assert_allclose(g.sum(axis=2), 0, atol=1e-12)


def test_impossible_alignment_costs_zero_with_zero_gradient_as_warp_ctc():
    # [1, 1, 2] needs 4 steps (a blank between the 1s); warp-ctc returned 0, not inf
    labels, lengths = np.array([[1, 1, 2], [1, -1, -1]], "int32"), np.array([3, 0], "int32")
    acts = np.random.default_rng(0).normal(size=(4, 2, 3))
    assert np.isinf(brute_force_cost(acts[:3, 0], [1, 1, 2]))
    op = C.ConnectionistTemporalClassification()
    cost, g = jitgraph.function([], op.make_node(acts, labels, lengths).outputs)()
    assert (cost == 0).all() and (g == 0).all()


def test_float32_like_theano_and_default_output():
    a, l, n = tensor(3, "float32"), tensor(2, "int32"), tensor(1, "int32")
    cost = C.ctc(a, l, n)
    assert cost.dtype == "float32" and cost.ndim == 1
    assert cost is cost.owner.outputs[0] and len(cost.owner.outputs) == 2
    acts = np.random.default_rng(0).normal(size=(4, 1, 3)).astype("float32")
    f = jitgraph.function([a, l, n], [cost, grad(cost.sum(), a)])
    c, g = f(acts, [[1, 2]], [4])
    assert c.dtype == g.dtype == np.float32
    np.testing.assert_allclose(c[0], brute_force_cost(acts[:, 0].astype(float), [1, 2]),
                               rtol=1e-5)


def test_unused_gradient_output_is_dropped():
    a, l, n = tensor(3), tensor(2, "int32"), tensor(1, "int32")
    f = jitgraph.function([a, l, n], C.ctc(a, l, n))
    (node,) = f.maker.fgraph.toposort()
    assert node.op == C.ConnectionistTemporalClassification(compute_grad=False)
    with pytest.raises(TypeError, match="no gradient"):
        grad(C.ConnectionistTemporalClassification(compute_grad=False)(a, l, n).sum(), a)


def test_infer_shape(infer_shape_ok):
    a, l, n = tensor(3), tensor(2, "int32"), tensor(1, "int32")
    vals = {a: np.zeros((4, 2, 3)), l: np.array([[1, -1], [2, 1]], "int32"),
            n: np.array([4, 2], "int32")}
    node = C.ConnectionistTemporalClassification().make_node(a, l, n)
    infer_shape_ok(node.outputs, vals)


def test_errors_name_the_input():
    a, l, n = tensor(3), tensor(2, "int32"), tensor(1, "int32")
    with pytest.raises(TypeError, match="activations must be float32"):
        C.ctc(tensor(3, "int32"), l, n)
    with pytest.raises(ValueError, match="activations must have 3 dimensions"):
        C.ctc(tensor(2), l, n)
    with pytest.raises(TypeError, match="labels must be integers"):
        C.ctc(a, tensor(2), n)
    with pytest.raises(ValueError, match="input_lengths must have 1"):
        C.ctc(a, l, tensor(2, "int32"))
    f = jitgraph.function([a, l, n], C.ctc(a, l, n))
    with pytest.raises(ValueError, match=r"input_lengths\[0\] = 6"):
        f(np.zeros((5, 1, 3)), [[1]], [6])
    with pytest.raises(ValueError, match="0 is the blank"):
        f(np.zeros((5, 1, 3)), [[0, 1]], [5])
    with pytest.raises(ValueError, match="0 is the blank"):
        f(np.zeros((5, 1, 3)), [[3]], [5])


def test_availability():
    assert C.ctc_available() is True and C.ctc_present() is True
    import jitgraph.tensor.nnet as nnet
    assert nnet.ctc is C


# Costs and gradients computed by warp-ctc itself (the library Theano wrapped), as published in
# warp-ctc's Torch tutorial and test data; float32 as there.
WARP_CTC_CASES = {
    "torch_tutorial": (
        [[[0, 0, 0, 0, 0], [1, 2, 3, 4, 5], [-5, -4, -3, -2, -1]],
         [[0, 0, 0, 0, 0], [6, 7, 8, 9, 10], [-10, -9, -8, -7, -6]],
         [[0, 0, 0, 0, 0], [11, 12, 13, 14, 15], [-15, -14, -13, -12, -11]]],
        [[1, -1], [3, 3], [2, 3]], [1, 3, 3], [1.609437943, 7.355742931, 4.938849926],
        [[[0.2, -0.8, 0.2, 0.2, 0.2],
          [0.01165623125, 0.03168492019, 0.08612854034, -0.7658783197, 0.636408627],
          [-0.02115798369, 0.03168492019, -0.8810571432, 0.2341216654, 0.636408627]],
         [[0, 0, 0, 0, 0],
          [-0.9883437753, 0.03168492019, 0.08612854034, 0.2341216654, 0.636408627],
          [-0.02115798369, 0.03168492019, -0.1891518533, -0.4577836394, 0.636408627]],
         [[0, 0, 0, 0, 0],
          [0.01165623125, 0.03168492019, 0.08612854034, -0.7658783197, 0.636408627],
          [-0.02115798369, 0.03168492019, 0.08612854034, -0.7330639958, 0.636408627]]]),
    "two_steps": (
        [[[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1]],
         [[0.6, 0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.5, 0.2, 0.1]]],
        [[1, 2], [1, 2]], [2, 2], [2.962858438, 3.053659201],
        [[[0.177031219, -0.7081246376, 0.177031219, 0.177031219, 0.177031219],
          [0.177031219, -0.8229685426, 0.291875124, 0.177031219, 0.177031219]],
         [[0.291875124, 0.177031219, -0.8229685426, 0.177031219, 0.177031219],
          [0.1786672771, 0.1786672771, -0.7334594727, 0.1974578798, 0.1786672771]]]),
}


@pytest.mark.parametrize("name", sorted(WARP_CTC_CASES))
def test_matches_warp_ctc_published_values(name):
    acts, labels, lengths, costs, grads = WARP_CTC_CASES[name]
    acts = jitgraph.shared(np.asarray(acts, dtype="float32"))
    cost = C.ctc(acts, np.asarray(labels, "int32"), np.asarray(lengths, "int32"))
    got_cost, got_grad = jitgraph.function([], [cost, grad(cost.mean(), acts)])()
    np.testing.assert_allclose(got_cost, costs, rtol=1e-5)
    np.testing.assert_allclose(got_grad, np.asarray(grads) / len(costs), rtol=1e-4, atol=1e-6)
