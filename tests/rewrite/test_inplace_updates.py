"""An update of a shared variable is computed into the variable's own buffer when the
in-place pass can, as Theano 1.0.5 does: the fused elementwise node producing the update
overwrites the updated variable first, not another input such as a gradient (theano_lstm's
``wrap_params`` shares parameter buffers between processes through ``set_value(borrow=True)``
and relies on this). Which buffer each case reuses was checked under Theano 1.0.5."""

from collections import OrderedDict

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T


def _norm_clipped(w, x, lr):
    cost = T.tanh(T.dot(x, w)).sum()
    g = T.grad(cost, w)
    norm = g.norm(L=2)
    g = (T.minimum(5.0, norm) / (norm + 1e-6)) * g  # the gradient is read twice: not a Gemm
    return cost, OrderedDict([(w, w - g * lr)])


def _scanned(w, x, lr):
    hs, _ = theano.scan(lambda r, h, w: T.tanh(T.dot(h, w) + r), sequences=x,
                        outputs_info=T.zeros((3,)), non_sequences=w)
    return hs.sum(), [(w, w - lr * T.grad(hs.sum(), w))]


def _plain(w, x, lr):
    cost = T.tanh(T.dot(x, w)).sum()
    return cost, [(w, w - lr * T.grad(cost, w))]


@pytest.mark.parametrize("build", [_plain, _norm_clipped, _scanned])
def test_the_update_overwrites_the_shared_variable_buffer(build):
    start = np.random.RandomState(0).rand(3, 3)
    x = T.dmatrix("x")
    results = []
    for mode in (None, theano.Mode(optimizer=None)):  # rewritten, then as written
        buffer = start.copy()
        w = theano.shared(buffer, borrow=True, name="w")
        cost, updates = build(w, x, theano.shared(0.1, name="lr"))
        theano.function([x], cost, updates=updates, mode=mode)(np.ones((3, 3)))
        results.append((buffer, w.get_value(borrow=True)))
    (buffer, value), (_, unrewritten) = results
    assert np.shares_memory(value, buffer)
    np.testing.assert_allclose(value, unrewritten, rtol=1e-12)


def test_an_update_also_returned_keeps_its_own_buffer():
    buffer = np.zeros(3)
    s = theano.shared(buffer, borrow=True)
    f = theano.function([], s * 2, updates=[(s, s + 1)])
    f()
    assert not np.shares_memory(s.get_value(borrow=True), buffer)  # as Theano 1.0.5
    np.testing.assert_array_equal(s.get_value(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(buffer, [0.0, 0.0, 0.0])


def test_the_update_mapping_names_each_update_output_s_input():
    a, b = T.dscalars("a", "b")
    u = theano.shared(0.0, name="u")
    v = theano.shared(1.0, name="v")
    f = theano.function([a, theano.In(b, value=1.0, update=b * 2)], a + u,
                        updates=[(v, v + a), (u, u - a)])
    fgraph = f.maker.fgraph
    # outputs: a + u, then the update of In b, then the shared updates in the given order
    assert [(o, str(fgraph.inputs[i])) for o, i in sorted(fgraph.update_mapping.items())] == \
        [(1, "b"), (2, "v"), (3, "u")]


def test_zero_d_results_of_multi_output_nodes_stay_out_of_place():
    """Each in-place try replaces every output of a node: a fused node of hundreds of 0-d
    slice bounds (Keras 1's LocallyConnected2D) took minutes. Its 0-d results are left out of
    place (nothing to save); single-output scalar nodes are made in place as in Theano."""
    import jitgraph.scalar as S
    from jitgraph.scalar import Composite
    from jitgraph.tensor.elementwise.elemwise import Elemwise

    u, w = T.dvectors("u", "w")
    xs, ys = S.float64(), S.float64()
    two = Elemwise(Composite([xs, ys], [xs + ys, xs * ys]))
    a, b = two(T.dot(u, u), T.dot(w, w))  # 0-d results of other nodes: destroyable
    f = theano.function([u, w], [a, b])
    multi = [n for n in f.maker.fgraph.apply_nodes
             if type(n.op).__name__ == "Elemwise" and len(n.outputs) > 1]
    assert multi and not any(n.op.destroy_map for n in multi)
    np.testing.assert_allclose(f(np.ones(2), np.ones(3)), [5.0, 6.0])
    v = T.dvector("v")
    g = theano.function([v], T.dot(v, v) + 1)  # the 0-d dot result is overwritten
    assert any(n.op.destroy_map for n in g.maker.fgraph.apply_nodes
               if type(n.op).__name__ == "Elemwise")
