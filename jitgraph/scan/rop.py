"""Forward-mode derivative (``R_op``) of a Scan: a loop carrying tangents beside the values.

The new loop runs the forward step and, next to each recurrent output, a recurrent tangent with
the same taps (its initial entries: the tangent of the initial value); the step's tangents are
``Rop`` of the step graph at the step's values. Sequences and non-sequences bring their tangents
along (a missing eval point is a zero tangent). The tangents of the original loop's outputs are
the new loop's tangent outputs.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable, clone_replace
from jitgraph.graph.test_value import outer_test_values
from jitgraph.scan.construct import LoopSpec, Recurrent, build_scan
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.core.rop import Rop
from jitgraph.tensor.elementwise.math import cast


@outer_test_values
def scan_rop(op: Any, inputs: list[Variable], eval_points: list[Any]) -> list[Variable | None]:
    info = op.info
    if any(getattr(inputs[info.outer_shared().start + s].type, "dtype", None) is not None
           for s in range(info.n_shared)):
        raise NotImplementedError(f"R_op of {op}: the loop carries a shared tensor state; "
                                  "take the R-op of a loop without it")
    if any(info.keep):
        raise NotImplementedError(f"R_op of {op}: the memory-saving rewrite shortened this "
                                  "loop's buffers; take R-ops before compiling")
    fwd_in, fwd_out = op.inner.clone()

    def point(k: int) -> Any:
        p = eval_points[k]
        return p if p is not None else zeros_like(inputs[k])

    tan_in = [v.type(f"d{v.name}" if v.name else None) for v in fwd_in]
    continuous = [k for k, v in enumerate(fwd_in)
                  if str(getattr(v.type, "dtype", "")).startswith("float")]
    outs = fwd_out[:info.n_rec + info.n_nit_sot]
    tangents = Rop(outs, [fwd_in[k] for k in continuous], [tan_in[k] for k in continuous],
                   disconnected_outputs="ignore") if continuous else [zeros_like(o) for o in outs]
    spec = LoopSpec(n_steps=inputs[0], name=f"rop_of_{op.name}", mode=op.mode,
                    condition=fwd_out[-1] if info.as_while else None)
    for j in range(info.n_seqs):
        spec.seqs.append((inputs[info.outer_seqs().start + j], fwd_in[j]))
        spec.seqs.append((point(info.outer_seqs().start + j), tan_in[j]))
    for k in range(info.n_rec):
        taps = info.rec_taps[k]
        sl = info.inner_taps(k)
        position = info.outer_inits().start + k
        spec.recs.append(Recurrent(init=inputs[position], placeholders=fwd_in[sl], taps=taps,
                                   new_value=fwd_out[k], label=f"output {k}"))
        spec.recs.append(Recurrent(init=point(position), placeholders=tan_in[sl], taps=taps,
                                   new_value=_fit(tangents[k], fwd_out[k]),
                                   label=f"tangent of output {k}"))
    spec.nits = list(fwd_out[info.nit_outputs()]) + [
        _fit(tangents[info.n_rec + i], fwd_out[info.n_rec + i]) for i in range(info.n_nit_sot)]
    ns = info.inner_non_seqs()
    replace = {fwd_in[p]: inputs[info.outer_non_seqs().start + p - ns.start]
               for p in range(ns.start, ns.stop)}
    replace.update({tan_in[p]: point(info.outer_non_seqs().start + p - ns.start)
                    for p in range(ns.start, ns.stop)})
    # Shared states that are not tensors (random streams) are carried as the forward loop
    # carries them, from the same start: the steps draw the same numbers, whose tangent is 0.
    sh = info.inner_shared()
    replace.update({fwd_in[p]: inputs[info.outer_shared().start + p - sh.start]
                    for p in range(sh.start, sh.stop)})
    spec.shared_updates = [(inputs[info.outer_shared().start + s], new)
                           for s, new in enumerate(fwd_out[info.shared_outputs()])]
    _bind(spec, replace)
    outer = build_scan(spec)
    n_rec_outer = 2 * info.n_rec
    result: list[Variable | None] = [outer[2 * k + 1] for k in range(info.n_rec)]
    result += outer[n_rec_outer + info.n_nit_sot:n_rec_outer + 2 * info.n_nit_sot]
    return result + [None] * info.n_shared


def _fit(tangent: Variable, value: Variable) -> Variable:
    """The tangent in the value's dtype (zero tangents of integer values included)."""
    if not hasattr(getattr(tangent, "type", None), "dtype"):
        return zeros_like(value)
    return tangent if tangent.dtype == value.dtype else cast(tangent, value.dtype)


def _bind(spec: LoopSpec, replace: dict) -> None:
    """Write the step against the outer non-sequences, their tangents and the outer shared
    states."""
    if not replace:
        return
    n_rec, n_nit = len(spec.recs), len(spec.nits)
    values = ([r.new_value for r in spec.recs] + list(spec.nits)
              + [new for _, new in spec.shared_updates])
    if spec.condition is not None:
        values.append(spec.condition)
    rebuilt = clone_replace(values, replace)
    for r, v in zip(spec.recs, rebuilt[:n_rec]):
        r.new_value = v
    spec.nits = rebuilt[n_rec:n_rec + n_nit]
    spec.shared_updates = [(var, new) for (var, _), new in
                           zip(spec.shared_updates, rebuilt[n_rec + n_nit:])]
    if spec.condition is not None:
        spec.condition = rebuilt[-1]
