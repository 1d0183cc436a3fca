"""``scan_merge``: two independent loops over the same steps become one loop.

Two Scan nodes merge when they run the same number of steps (the same ``n_steps`` variable, or
equal constants), neither reads the other's outputs, they share the mode and
``truncate_gradient``, and they do not update the same shared variable. Two do-while loops
merge when their conditions are the same computation of the inputs they share (they then stop
at the same step); a do-while loop does not merge with a plain one. The merged
inner graph reads each outer sequence and non-sequence once (the two loops often iterate over
the same sequence).
"""

from __future__ import annotations

from jitgraph.graph.basic import (Apply, Constant, Variable, ancestors, clone_replace,
                                  equal_computations)
from jitgraph.graph.fg import FunctionGraph
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.inner import InnerGraph
from jitgraph.scan.op import Scan


def _same_steps(a: Variable, b: Variable) -> bool:
    if a is b:
        return True
    return (isinstance(a, Constant) and isinstance(b, Constant)
            and a.signature() == b.signature())


def _compatible(a: Apply, b: Apply) -> bool:
    ia, ib = a.op.info, b.op.info
    if ia.as_while != ib.as_while or not _same_steps(a.inputs[0], b.inputs[0]):
        return False
    if a.op.mode is not b.op.mode or a.op.truncate_gradient != b.op.truncate_gradient \
            or a.op.profile is not None or b.op.profile is not None:
        return False  # (a profiled loop keeps its own numbers)
    shared_a = set(a.inputs[ia.outer_shared()])
    if shared_a & set(b.inputs[ib.outer_shared()]):
        return False
    return True


def _independent(a: Apply, b: Apply) -> bool:
    above_b = set(ancestors(b.inputs))
    if any(o in above_b for o in a.outputs):
        return False
    above_a = set(ancestors(a.inputs))
    return not any(o in above_a for o in b.outputs)


def merge_scans(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """Merge ``node`` with the first later Scan it can run alongside (see the module)."""
    for other in fgraph.toposort():
        if other is node or not isinstance(other.op, Scan):
            continue
        if _compatible(node, other) and _independent(node, other):
            found = merged(node, other)
            if found is not None:
                return found
    return None


def merged(a: Apply, b: Apply) -> dict[Variable, Variable] | None:
    """The outputs of one loop doing the work of ``a`` and ``b``, keyed by the old outputs
    (None: do-while loops whose conditions differ)."""
    ia, ib = a.op.info, b.op.info
    a_in, a_out = a.op.inner.clone()
    b_in, b_out = b.op.inner.clone()
    # b's sequences and non-sequences that a already reads become a's inner inputs
    alias: dict[Variable, Variable] = {}
    new_b_seqs = _share(a.inputs[ia.outer_seqs()], a_in[ia.inner_seqs()],
                        b.inputs[ib.outer_seqs()], b_in[ib.inner_seqs()], alias)
    new_b_non_seqs = _share(a.inputs[ia.outer_non_seqs()], a_in[ia.inner_non_seqs()],
                            b.inputs[ib.outer_non_seqs()], b_in[ib.inner_non_seqs()], alias)
    if alias:
        b_out = clone_replace(b_out, alias)
    if ia.as_while and not equal_computations([a_out[-1]], [b_out[-1]]):
        return None
    inner_in = (a_in[ia.inner_seqs()] + [inner for _, inner in new_b_seqs]
                + _taps(ia, a_in) + _taps(ib, b_in)
                + a_in[ia.inner_shared()] + b_in[ib.inner_shared()]
                + a_in[ia.inner_non_seqs()] + [inner for _, inner in new_b_non_seqs])
    inner_out = (a_out[ia.rec_outputs()] + b_out[ib.rec_outputs()]
                 + a_out[ia.nit_outputs()] + b_out[ib.nit_outputs()]
                 + a_out[ia.shared_outputs()] + b_out[ib.shared_outputs()]
                 + ([a_out[-1]] if ia.as_while else []))
    info = ScanInfo(n_seqs=ia.n_seqs + len(new_b_seqs), rec_taps=ia.rec_taps + ib.rec_taps,
                    n_nit_sot=ia.n_nit_sot + ib.n_nit_sot, n_shared=ia.n_shared + ib.n_shared,
                    n_non_seqs=ia.n_non_seqs + len(new_b_non_seqs), as_while=ia.as_while,
                    keep=ia.keep + ib.keep)
    op = Scan(info, InnerGraph(inner_in, inner_out), mode=a.op.mode,
              name=f"{a.op.name}&{b.op.name}", truncate_gradient=a.op.truncate_gradient)
    outer = ([a.inputs[0]] + a.inputs[ia.outer_seqs()] + [o for o, _ in new_b_seqs]
             + a.inputs[ia.outer_inits()] + b.inputs[ib.outer_inits()]
             + a.inputs[ia.outer_shared()] + b.inputs[ib.outer_shared()]
             + a.inputs[ia.outer_non_seqs()] + [o for o, _ in new_b_non_seqs])
    new = op.make_node(*outer).outputs
    old = (a.outputs[ia.rec_outputs()] + b.outputs[ib.rec_outputs()]
           + a.outputs[ia.nit_outputs()] + b.outputs[ib.nit_outputs()]
           + a.outputs[ia.shared_outputs()] + b.outputs[ib.shared_outputs()])
    return dict(zip(old, new))


def _share(a_outer: list, a_inner: list, b_outer: list, b_inner: list,
           alias: dict[Variable, Variable]) -> list[tuple[Variable, Variable]]:
    """b's (outer, inner) pairs that a does not have; the others alias a's inner input."""
    known = dict(zip(a_outer, a_inner))
    fresh = []
    for outer, inner in zip(b_outer, b_inner):
        if outer in known and known[outer].type == inner.type:
            alias[inner] = known[outer]
        else:
            fresh.append((outer, inner))
    return fresh


def _taps(info: ScanInfo, inner_in: list[Variable]) -> list[Variable]:
    return [v for k in range(info.n_rec) for v in inner_in[info.inner_taps(k)]]


__all__ = ["merge_scans", "merged"]
