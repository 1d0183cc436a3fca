"""Shared tensors updated by a scan step are recurrent states, as in Theano.

Theano's ``scan`` turns every shared variable of a tensor type that the step updates (an
explicit update, or a default update such as an ``MRG_RandomStreams`` state) into a recurrent
output with one tap: the loop keeps the value of every step, and the update given back is the
last one. The gradient of the loop then reads each step's own state from that trace, so a draw
made inside the step is the same draw in the backward loop as in the forward one (dropout
masks, Gibbs samples). Shared variables of other types (a ``RandomStreams`` generator) stay
plain shared states, updated in place from step to step.
"""

from __future__ import annotations

from jitgraph.graph.basic import Variable, clone_replace, graph_inputs
from jitgraph.scan.construct import LoopSpec, Recurrent
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.shaping.shape import shape_padleft, unbroadcast


def recur_shared_tensors(spec: LoopSpec) -> list[tuple[Variable, int]]:
    """Move the tensor-typed entries of ``spec.shared_updates`` to ``spec.recs``; return
    (shared variable, index of its recurrent output) for each moved one."""
    moved = [(var, new) for var, new in spec.shared_updates if isinstance(var.type, TensorType)]
    if not moved:
        return []
    kept = [(var, new) for var, new in spec.shared_updates
            if not isinstance(var.type, TensorType)]
    placeholders = {var: var.type.make_variable(f"{var.name}[t-1]" if var.name else None)
                    for var, _ in moved}
    n_rec, n_nit, n_kept = len(spec.recs), len(spec.nits), len(kept)
    everything = ([r.new_value for r in spec.recs] + list(spec.nits)
                  + [new for _, new in kept] + [_as_variable(new) for _, new in moved]
                  + ([spec.condition] if spec.condition is not None else []))
    rebuilt = clone_replace(everything, placeholders)
    for rec, value in zip(spec.recs, rebuilt[:n_rec]):
        rec.new_value = value
    spec.nits = rebuilt[n_rec:n_rec + n_nit]
    spec.shared_updates = [(var, new) for (var, _), new in
                           zip(kept, rebuilt[n_rec + n_nit:n_rec + n_nit + n_kept])]
    if spec.condition is not None:
        spec.condition = rebuilt[-1]
    positions = []
    for (var, _), new in zip(moved, rebuilt[n_rec + n_nit + n_kept:]):
        positions.append((var, len(spec.recs)))
        spec.recs.append(Recurrent(
            init=unbroadcast(shape_padleft(var), 0), placeholders=[placeholders[var]],
            taps=(-1,), new_value=new,
            label=f"the update of shared variable {var.name or var}"))
    return positions


def _as_variable(value: object) -> Variable:
    return value if isinstance(value, Variable) else as_tensor_variable(value)


def shared_dependent_gradients(op: object, fwd_in: list[Variable], inner_grads: dict,
                               inputs: list[Variable]) -> dict[int, Variable]:
    """Theano's rule for the shared states that stay shared (a ``RandomStreams`` generator):
    an outer input whose per-step gradient reads such a state (a draw the step made and did
    not output) has an undefined gradient, "Depends on a shared variable": the backward loop
    could only redraw, not see the forward draws. ``inner_grads``: inner input position ->
    the backward step's gradient of it. Returns outer input position -> null gradient."""
    info = op.info  # type: ignore[attr-defined]
    states = set(fwd_in[info.inner_shared()])
    if not states:
        return {}
    undefined: dict[int, Variable] = {}
    for p, g in inner_grads.items():
        if not isinstance(g, Variable) or not states.intersection(graph_inputs([g])):
            continue
        outer = _outer_position(info, p, len(fwd_in))
        undefined[outer] = grad_undefined(op, outer, inputs[outer], "Depends on a shared variable")
    return undefined


def _outer_position(info: object, p: int, n_inner: int) -> int:
    """The outer input a differentiated inner input (sequence slice, tap, non-sequence) reads."""
    if p < info.n_seqs:  # type: ignore[attr-defined]
        return info.outer_seqs().start + p  # type: ignore[attr-defined]
    for k in range(info.n_rec):  # type: ignore[attr-defined]
        if p in range(*info.inner_taps(k).indices(n_inner)):  # type: ignore[attr-defined]
            return info.outer_inits().start + k  # type: ignore[attr-defined]
    ns = info.inner_non_seqs()  # type: ignore[attr-defined]
    return info.outer_non_seqs().start + (p - ns.start)  # type: ignore[attr-defined]
