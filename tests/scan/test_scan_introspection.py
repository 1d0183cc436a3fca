"""What a Scan op shows of itself under Theano's names: the inner graph (``inputs``,
``outputs``), the compiled step (``fn``), its parts by role, and ``var_mappings``."""

from __future__ import annotations

import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.scan import Scan


def _scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def test_inner_graph_parts_and_positions():
    # one sequence, a state with taps [-2, -1], a state with tap -1, a nit-sot, a non-sequence
    seq, a0, b0, w = T.dvector("seq"), T.dvector("a0"), T.dscalar("b0"), T.dscalar("w")
    outs, _ = jitgraph.scan(lambda s, a2, a1, b, w: (a2 + a1 * s, b * w, s * w),
                            sequences=seq, outputs_info=[dict(initial=a0, taps=[-2, -1]), b0,
                                                         None], non_sequences=w)
    node = outs[2].owner
    op = node.op
    assert len(op.inputs) == 5 and len(op.outputs) == 3
    assert [v.name for v in op.outer_non_seqs(node)] == ["w"]
    assert len(op.inner_non_seqs(op.inputs)) == 1 and len(op.inner_seqs(op.inputs)) == 1
    m = op.var_mappings
    # outer inputs: n_steps, seq, a's buffer, b's buffer, w
    assert m["inner_inp_from_outer_inp"] == {0: [], 1: [0], 2: [1, 2], 3: [3], 4: [4]}
    assert m["outer_inp_from_inner_inp"] == {0: 1, 1: 2, 2: 2, 3: 3, 4: 4}
    assert m["outer_out_from_outer_inp"] == {0: -1, 1: -1, 2: 0, 3: 1, 4: -1}
    assert m["outer_inp_from_outer_out"] == {0: 2, 1: 3, 2: -1}
    assert m["inner_inp_from_inner_out"] == {0: [1, 2], 1: [3], 2: []}


def test_constant_expressions_stay_inside_the_step():
    # shape_padleft(2) (the broadcast of the literal in ``a * 2``) is computed from constants:
    # it is folded inside the step instead of becoming an input of the loop
    x, seq = T.dmatrix("x"), T.dvector("seq")
    out, _ = jitgraph.scan(lambda s, a, b: a * 2 + b + s, sequences=seq,
                           outputs_info=dict(initial=x, taps=[-2, -1]))
    op = out.owner.inputs[0].owner.op
    assert op.info.n_non_seqs == 0 and len(op.inputs) == 3


def test_compiled_step_and_its_cells_after_a_call():
    state, n = T.dscalar("state"), T.iscalar("n")
    out, updates = jitgraph.scan(lambda h: 2 * h, outputs_info=state, n_steps=n)
    f = jitgraph.function([state, n], out, updates=updates)
    (node,) = _scan_nodes(f)
    fn = node.op.fn
    assert fn.maker.fgraph.outputs
    assert f(1.5, 3).tolist() == [3.0, 6.0, 12.0]
    # the step's program keeps neither the last step's inputs nor its outputs
    assert all(c.value is None for c in node.op.fn.input_storage)
    assert all(c.value is None for c in node.op.fn.output_storage)
    seq = T.dvector("seq")
    total, _ = jitgraph.scan(lambda s, h: h + s, sequences=seq, outputs_info=T.constant(np.float64(0.0)))
    g = jitgraph.function([seq], total)
    assert g(np.arange(4.0)).tolist() == [0.0, 1.0, 3.0, 6.0]
    (gnode,) = _scan_nodes(g)
    assert all(c.value is None for c in gnode.op.fn.input_storage)
