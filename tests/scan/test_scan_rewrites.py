"""Scan rewrites fire where they should, leave values unchanged, and honour
``optimizer_excluding``."""

from __future__ import annotations

import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.scan import Scan, scan, until


def scans(fn):
    return [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def both(inputs, outputs, *args):
    """Values with and without the scan rewrites, and the rewritten function."""
    f = jitgraph.function(inputs, outputs)
    g = jitgraph.function(inputs, outputs, mode=jitgraph.compile.mode.get_mode(None)
                          .excluding("scan"))
    got, want = f(*args), g(*args)
    for a, b in zip(got if isinstance(got, list) else [got],
                    want if isinstance(want, list) else [want]):
        np.testing.assert_allclose(a, b)
    return f, g


def test_save_mem_keeps_only_the_last_entry():
    k = T.iscalar("k")
    A = T.dvector("A")
    result, _ = scan(lambda p, A: p * A, outputs_info=T.ones_like(A), non_sequences=A,
                     n_steps=k)
    f, g = both([A, k], result[-1], np.arange(4.), 30)
    assert scans(f)[0].op.info.keep == (1,)
    assert scans(g)[0].op.info.keep == (0,)


def test_save_mem_keeps_as_many_entries_as_read():
    x = T.dvector("x")
    out, _ = scan(lambda a, b: a + b, outputs_info=dict(initial=x, taps=[-2, -1]), n_steps=6)
    f, _ = both([x], [out[-1], out[-3]], np.array([1., 1.]))
    assert scans(f)[0].op.info.keep == (3,)
    np.testing.assert_allclose(f(np.array([1., 1.])), [21, 8])


def test_save_mem_leaves_a_buffer_read_whole():
    x = T.dvector("x")
    out, _ = scan(lambda h: h * 2, outputs_info=x, n_steps=3)
    f, _ = both([x], [out, out[-1]], np.ones(2))
    assert scans(f)[0].op.info.keep == (0,)


def test_gradient_accumulators_keep_one_entry():
    X, W, h0 = T.dmatrix("X"), T.dmatrix("W"), T.dvector("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(W, h) + x), sequences=X, outputs_info=h0,
                 non_sequences=W)
    gW = T.grad(hs[-1].sum(), W)
    rng = np.random.default_rng(0)
    f, _ = both([X, h0, W], gW, rng.normal(size=(5, 3)), rng.normal(size=3),
                rng.normal(size=(3, 3)))
    backward = [n for n in scans(f) if n.op.name.startswith("grad_of")]
    assert backward and all(backward[0].op.info.keep)


def test_unused_outputs_are_not_computed():
    X, h0 = T.dmatrix("X"), T.dvector("h0")
    (total, doubled), _ = scan(lambda x, h: (h + x, x * 2), sequences=X,
                               outputs_info=[h0, None])
    f, g = both([X, h0], total, np.arange(6.).reshape(3, 2), np.ones(2))
    assert scans(f)[0].op.info.n_nit_sot == 0
    assert scans(g)[0].op.info.n_nit_sot == 1


def test_states_read_by_used_outputs_are_kept():
    x = T.dvector("x")
    (a, b), _ = scan(lambda v, a, b: (a + v, b * 0.5 + a), sequences=x,
                     outputs_info=[T.constant(np.float64(0)), T.constant(np.float64(1))])
    f, _ = both([x], b, np.arange(4.))
    assert scans(f)[0].op.info.n_rec == 2
    f, _ = both([x], a, np.arange(4.))
    assert scans(f)[0].op.info.n_rec == 1


def test_independent_loops_over_the_same_sequence_merge():
    X, h0 = T.dmatrix("X"), T.dvector("h0")
    s1, _ = scan(lambda x, h: h + x, sequences=X, outputs_info=h0)
    s2, _ = scan(lambda x, h: h * x, sequences=X, outputs_info=h0)
    f, g = both([X, h0], [s1, s2], np.arange(6.).reshape(3, 2), np.ones(2))
    assert len(scans(f)) == 1 and len(scans(g)) == 2
    assert scans(f)[0].op.info.n_seqs == 1  # the shared sequence is read once


def test_dependent_loops_do_not_merge():
    X, h0 = T.dmatrix("X"), T.dvector("h0")
    s1, _ = scan(lambda x, h: h + x, sequences=X, outputs_info=h0)
    s2, _ = scan(lambda x, h: h * x, sequences=s1, outputs_info=h0)
    f, _ = both([X, h0], s2, np.arange(6.).reshape(3, 2), np.ones(2))
    assert len(scans(f)) == 2


def test_optimizer_excluding_flag_turns_them_off():
    k = T.iscalar("k")
    A = T.dvector("A")
    result, _ = scan(lambda p, A: p * A, outputs_info=T.ones_like(A), non_sequences=A,
                     n_steps=k)
    mode = jitgraph.compile.mode.get_mode(None).excluding("scan_save_mem")
    f = jitgraph.function([A, k], result[-1], mode=mode)
    assert scans(f)[0].op.info.keep == (0,)


def test_compiled_graph_with_a_scan_is_cached(tmp_path, jitgraph_rewrites_only):
    x = T.dvector("x")
    out, _ = scan(lambda v, h: h + v, sequences=x, outputs_info=T.constant(np.float64(0)))
    from jitgraph.compile import graph_cache

    f = jitgraph.function([x], out[-1])
    key = graph_cache.graph_key(f.maker.fgraph, [], f.maker.mode)
    assert key is not None and "ScanInfo" in key and "InnerGraph" in key


# ---------------------------------------------------------------------------------------------
# scan_pushin_elemwise

def _sequence_elemwise(fn):
    """Elemwise nodes feeding a scan's sequences (through leading-axis slices)."""
    from jitgraph.tensor.elementwise.elemwise import Elemwise
    from jitgraph.tensor.indexing.subtensor_ops import Subtensor

    found = []
    for node in scans(fn):
        for var in node.inputs[node.op.info.outer_seqs()]:
            while var.owner is not None and isinstance(var.owner.op, Subtensor):
                var = var.owner.inputs[0]
            if var.owner is not None and isinstance(var.owner.op, Elemwise):
                found.append(var.owner)
    return found


def test_pushin_moves_the_incoming_gradient_into_the_backward_loop():
    X, W, h0 = T.dtensor3("X"), T.dmatrix("W"), T.dmatrix("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(x + T.dot(h, W)), sequences=X, outputs_info=h0,
                 non_sequences=W)
    cost = (hs ** 2).sum()
    rng = np.random.default_rng(0)
    args = rng.normal(size=(5, 2, 3)), np.zeros((2, 3)), rng.normal(size=(3, 3))
    f, g = both([X, h0, W], [cost] + T.grad(cost, [W, h0]), *args)
    assert not _sequence_elemwise(f)  # 2 * hs is computed row by row inside the loop
    assert _sequence_elemwise(g)
    mode = jitgraph.compile.mode.get_mode(None).excluding("scan_pushin_elemwise")
    h = jitgraph.function([X, h0, W], T.grad(cost, W), mode=mode)
    assert _sequence_elemwise(h)


def test_pushin_takes_stacked_broadcast_and_constant_inputs():
    x = T.dmatrix("x")
    v = T.dvector("v")
    seq = T.exp(x[::-1]) * v.dimshuffle("x", 0) + 3.0
    out, _ = scan(lambda s, h: h * 0.5 + s, sequences=seq[1:], outputs_info=T.zeros_like(v))
    xv, vv = np.linspace(0, 1, 12).reshape(4, 3), np.array([1.0, -2.0, 0.5])
    f, _ = both([x, v], out, xv, vv)
    assert not _sequence_elemwise(f)
    ref, h = [], np.zeros(3)
    for s in (np.exp(xv[::-1]) * vv + 3.0)[1:]:
        h = h * 0.5 + s
        ref.append(h)
    np.testing.assert_allclose(f(xv, vv), ref)


def test_pushin_leaves_a_sequence_used_elsewhere():
    x = T.dmatrix("x")
    seq = T.exp(x)
    out, _ = scan(lambda s, h: h + s, sequences=seq, outputs_info=T.zeros((3,)))
    f, _ = both([x], [out, seq.sum()], np.ones((2, 3)))
    assert _sequence_elemwise(f)  # computed once outside: the loop reads it


def _loops(f):
    return [n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "Scan"]


def test_an_elementwise_map_becomes_elementwise_work_without_a_loop():
    # Values recorded from Theano 1.0.5 (oracle, same programs); Theano also removes the
    # map loop beside the do-while loop, and the loop whose output reads no sequence.
    x = T.vector("x")
    o, _ = jitgraph.scan(lambda x_t: (x_t + 1, until(x_t > 3)), x)
    o2, _ = jitgraph.scan(lambda x_t: x_t + 2, x)
    f = jitgraph.function([x], [o, o2])
    vx = np.zeros(50)
    vx[23] = 4
    out, out2 = f(vx)
    assert len(out) == 24 and np.array_equal(out2, vx + 2) and len(_loops(f)) == 1
    # sequences cut to n_steps, non-sequences, a constant output, an output that is a slice
    m, w, c = T.matrix("m"), T.vector("w"), T.scalar("c")
    outs, _ = jitgraph.scan(lambda r, w, c: [T.exp(r) * w + c, w * 2,
                                             T.constant(np.float64(3.0)) + 0 * c, r],
                            sequences=m, non_sequences=[w, c], n_steps=3)
    g = jitgraph.function([m, w, c], outs)
    got = g(np.arange(12.0).reshape(4, 3) / 10, np.array([1.0, 2.0, 3.0]), 0.5)
    np.testing.assert_allclose(got[0], [[1.5, 2.710342, 4.164208],
                                        [1.849859, 3.483649, 5.446164],
                                        [2.322119, 4.527505, 7.176623]], rtol=1e-6)
    assert got[1].tolist() == [[2.0, 4.0, 6.0]] * 3 and got[2].tolist() == [3.0] * 3
    np.testing.assert_allclose(got[3], [[0.0, 0.1, 0.2], [0.3, 0.4, 0.5], [0.6, 0.7, 0.8]])
    assert not _loops(g)
    h0, W1, W2 = T.vector("h0"), T.matrix("W1"), T.matrix("W2")
    o, _ = jitgraph.scan(lambda h, W1, W2: T.dot(h, W1 + W2), non_sequences=[h0, W1, W2],
                         n_steps=5)
    f = jitgraph.function([h0, W1, W2], o)
    assert f(np.ones(2), np.eye(2), np.eye(2)).tolist() == [[2.0, 2.0]] * 5
    assert not _loops(f)
    # no steps
    e, _ = jitgraph.scan(lambda x_t: x_t * 3, x)
    assert jitgraph.function([x], e)(np.zeros(0)).shape == (0,)


def test_do_while_loops_with_the_same_condition_merge():
    # Theano 1.0.5 (oracle): the two loops stopping on x_t > 3 become one; the loop stopping
    # on x_t > 2 stays apart, and each stops where it should (lengths 24, 24, 11)
    x = T.vector("x")
    o, _ = jitgraph.scan(lambda x_t: (x_t + 1, until(x_t > 3)), x)
    o2, _ = jitgraph.scan(lambda x_t: (x_t * 2, until(x_t > 3)), x)
    o3, _ = jitgraph.scan(lambda x_t: (x_t * 3, until(x_t > 2)), x)
    f = jitgraph.function([x], [o, o2, o3])
    vx = np.zeros(50)
    vx[23], vx[10] = 4, 2.5
    a, b, c = f(vx)
    assert (len(a), len(b), len(c)) == (24, 24, 11)
    assert a[-2:].tolist() == [1.0, 5.0] and b[-2:].tolist() == [0.0, 8.0]
    assert c[-2:].tolist() == [0.0, 7.5]
    assert len(_loops(f)) == 2


def test_the_length_of_a_loop_drawing_random_numbers_is_known_without_running_it():
    # The random stream's state, an output that is not a tensor, has no shape; the others
    # still do (before, the whole node's shapes were unknown, and out.shape[0] read the
    # output after the loop). Theano's test_remove_stuff counts one Shape_i.
    x = T.vector("x")

    def step(m):
        return 2 * m + T.shared_randomstreams.RandomStreams(3).uniform(low=-1.1, high=1.1)

    o, updates = jitgraph.scan(step, sequences=x)
    f = jitgraph.function([x], o.shape[0] * 1.0, updates=updates)
    shape_reads = [n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "Shape_i"]
    assert [n.inputs[0] for n in shape_reads] == [f.maker.fgraph.inputs[0]]
    assert f(np.zeros(4)) == 4.0
