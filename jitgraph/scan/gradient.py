"""Back-propagation through time: the gradient of a Scan is a Scan running backwards.

The backward loop visits the forward steps ``t = n-1, ..., n-nb`` (``nb = n``, or
``truncate_gradient`` steps). At each it recomputes the forward step from the values the forward
loop stored (its sequence slices and the taps it read, given as sequences of the backward loop)
and applies the step's vector-Jacobian product to the gradient arriving at the step's outputs.

Gradients flowing back through the taps of a recurrent output with ``n_init`` initial entries
are carried in ``n_init`` states ("windows"): window ``j`` holds the gradient gathered so far for
the buffer entry ``j`` places before the one the current step writes. Window 0 is complete when
the step is reached; after a step, window ``j`` becomes window ``j+1`` plus what the step sent
through tap ``-(j+1)``. After the first step the windows hold the gradients of the initial
entries. Gradients of non-sequences are summed in accumulator states; gradients of sequences are
outputs of the backward loop, one per step.

Shared variables updated by the loop that are not tensors (RandomStreams generators) are not
differentiated: the backward loop recomputes each step with their initial values, and an input
whose per-step gradient reads one gets an undefined gradient, as in Theano (shared tensors
updated by the loop are recurrent outputs, see :mod:`jitgraph.scan.shared_recurrent`).
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Variable, clone_replace, graph_inputs
from jitgraph.graph.test_value import outer_test_values
from jitgraph.scan.construct import LoopSpec, Recurrent, build_scan
from jitgraph.scan.shared_recurrent import shared_dependent_gradients
from jitgraph.tensor.core.basic import (NotScalarConstantError, get_scalar_constant_value, stack,
                                        zeros_like)
from jitgraph.tensor.core.gradient import grad
from jitgraph.tensor.elementwise.math import switch
from jitgraph.tensor.indexing.subtensor import set_subtensor
from jitgraph.tensor.indexing.subtensor_ops import IncSubtensor
from jitgraph.tensor.shaping.shape import patternbroadcast, shape_padleft, unbroadcast


def _differentiable(var: Variable) -> bool:
    dtype = getattr(var.type, "dtype", "")
    return dtype.startswith(("float", "complex"))


def _is_zero(g: Any) -> bool:
    if g is None or not hasattr(getattr(g, "type", None), "broadcastable"):
        return True  # no gradient, or a disconnected / undefined marker rather than a tensor
    try:
        return bool(get_scalar_constant_value(g) == 0)
    except (NotScalarConstantError, TypeError, ValueError):
        return False


def _steps_done(op: Any, n_steps: Variable, outputs: list[Variable]) -> Variable:
    """How many steps the forward loop ran (a do-while loop may stop before n_steps)."""
    info = op.info
    if not info.as_while:
        return n_steps
    if info.n_rec:
        return outputs[0].shape[0] - info.n_init(0)
    if info.n_nit_sot:
        return outputs[info.n_rec].shape[0]
    return n_steps


class _Backward:
    """Placeholders and cotangents of the backward step, built from a copy of the forward
    step graph."""

    def __init__(self, op: Any, output_grads: list[Any]) -> None:
        info = op.info
        self.info = info
        self.fwd_in, self.fwd_out = op.inner.clone()
        rec_types = [self.fwd_in[info.inner_taps(k)][0].type for k in range(info.n_rec)]
        self.rec_on = [_differentiable(self.fwd_out[k]) for k in range(info.n_rec)]
        #: per recurrent output: the placeholder of the arriving output gradient, or None
        self.rec_grad = [t(f"grad_out{k}[t]") if on and not _is_zero(output_grads[k]) else None
                         for k, (t, on) in enumerate(zip(rec_types, self.rec_on))]
        self.windows = [[t(f"grad_win{k}_{j}") for j in range(info.n_init(k))] if on else []
                        for k, (t, on) in enumerate(zip(rec_types, self.rec_on))]
        nit_out = self.fwd_out[info.nit_outputs()]
        self.nit_grad = [v.type(f"grad_nit{i}[t]")
                         if _differentiable(v) and not _is_zero(output_grads[info.n_rec + i])
                         else None for i, v in enumerate(nit_out)]

    def cotangents(self) -> dict[Variable, Variable]:
        info = self.info
        known: dict[Variable, Variable] = {}

        def add(var: Variable, g: Variable) -> None:
            known[var] = known[var] + g if var in known else g

        for k in range(info.n_rec):
            if not self.rec_on[k]:
                continue
            g = self.windows[k][0]
            if self.rec_grad[k] is not None:
                g = g + self.rec_grad[k]
            add(self.fwd_out[k], g)
        for i, g in enumerate(self.nit_grad):
            if g is not None:
                add(self.fwd_out[info.n_rec + i], g)
        return known


@outer_test_values
def scan_grad(op: Any, inputs: list[Variable], outputs: list[Variable],
              output_grads: list[Any]) -> list[Variable | None]:
    from jitgraph.tensor.elementwise.math import eq, minimum

    info = op.info
    if any(info.keep):
        raise NotImplementedError(f"{op}: the memory-saving rewrite shortened this loop's "
                                  "buffers; take gradients before compiling")
    result: list[Variable | None] = [None] * len(inputs)
    bw = _Backward(op, output_grads)
    known = bw.cotangents()
    if not known:
        return result
    wrt_pos = _wrt_positions(info, bw.fwd_in, bw.rec_on)
    wrt = [bw.fwd_in[p] for p in wrt_pos]
    grads = grad(None, wrt, known_grads=known, disconnected_inputs="ignore",
                 accumulate_known=True) if wrt else []
    n = _steps_done(op, inputs[0], outputs)
    truncated = op.truncate_gradient > 0
    nb = minimum(n, op.truncate_gradient) if truncated else n
    start = n - nb
    spec = LoopSpec(n_steps=nb, name=f"grad_of_{op.name}", mode=op.mode)
    grads = _read_stored_outputs(spec, op, bw, grads, outputs, start, n)
    c = dict(zip(wrt_pos, grads))
    undefined = shared_dependent_gradients(op, bw.fwd_in, c, inputs)
    _backward_sequences(spec, op, bw, inputs, outputs, output_grads, start, n)
    accumulated = _backward_states(spec, op, bw, c, inputs)
    seq_grad_pos = [j for j in range(info.n_seqs) if j in c]
    spec.nits = [c[j] for j in seq_grad_pos]
    _bind_outer(spec, op, bw, inputs)
    outer = build_scan(spec)
    _collect(result, op, bw, outer, accumulated, seq_grad_pos, inputs, output_grads, start, n,
             nb, truncated, eq)
    for position, null in undefined.items():
        result[position] = null
    return result


def _wrt_positions(info: Any, fwd_in: list[Variable], rec_on: list[bool]) -> list[int]:
    """Inner inputs whose gradient the backward step computes."""
    positions = [j for j in range(info.n_seqs) if _differentiable(fwd_in[j])]
    for k in range(info.n_rec):
        if rec_on[k]:
            positions += list(range(*info.inner_taps(k).indices(len(fwd_in))))
    non_seqs = info.inner_non_seqs()
    positions += [p for p in range(non_seqs.start, non_seqs.stop) if _differentiable(fwd_in[p])]
    return positions


def _read_stored_outputs(spec: LoopSpec, op: Any, bw: _Backward, grads: list, outputs: list,
                         start: Any, n: Any) -> list:
    """The step's gradient reading what the forward step computed (``tanh(z)`` in the
    derivative of ``tanh``) from the forward loop's outputs instead of recomputing it."""
    info = op.info
    replace: dict[Variable, Variable] = {}
    reads = []
    for k in range(info.n_rec + info.n_nit_sot):
        value = bw.fwd_out[k]
        if value.owner is None or value in replace:
            continue
        ph = value.type(f"out{k}[t]")
        replace[value] = ph
        if k < info.n_rec:
            n_init = info.n_init(k)
            stored = outputs[k][n_init + start:n_init + n][::-1]
        else:
            stored = outputs[k][start:n][::-1]
        reads.append((stored, ph))
    if not replace or not grads:
        return grads
    grads = clone_replace(list(grads), replace)
    used = set(graph_inputs(grads))
    spec.seqs.extend((stored, ph) for stored, ph in reads if ph in used)
    return grads


def _steps_part(g: Variable, n_init: int) -> Variable | None:
    """``y`` when the gradient of a buffer is zero on its ``n_init`` initial entries and ``y``
    on the rest (what indexing ``buffer[n_init:]``, as scan returns it, sends back): the
    backward loop then reads ``y`` instead of a zero-padded copy of it."""
    node = g.owner
    if node is None or not isinstance(node.op, IncSubtensor) or node.op.set_instead_of_inc:
        return None
    if node.op.idx_list != (("slice", True, False, False),) or not _is_zero(node.inputs[0]):
        return None
    start, y = node.inputs[2], node.inputs[1]

    try:
        if int(get_scalar_constant_value(start)) != n_init:
            return None
    except (NotScalarConstantError, TypeError, ValueError):
        return None
    if y.ndim != g.ndim or y.broadcastable[0]:
        return None
    return y


def _backward_sequences(spec: LoopSpec, op: Any, bw: _Backward, inputs: list, outputs: list,
                        output_grads: list, start: Any, n: Any) -> None:
    """The forward values each backward step needs, and the arriving output gradients, as
    sequences read from the last forward step to the first."""
    info = op.info
    seqs = inputs[info.outer_seqs()]
    for j, seq in enumerate(seqs):
        spec.seqs.append((seq[start:n][::-1], bw.fwd_in[j]))
    for k in range(info.n_rec):
        n_init = info.n_init(k)
        buf = outputs[k]
        for tap, ph in zip(info.rec_taps[k], bw.fwd_in[info.inner_taps(k)]):
            spec.seqs.append((buf[n_init + tap + start:n_init + tap + n][::-1], ph))
        if bw.rec_grad[k] is not None:
            g = output_grads[k]
            steps_only = _steps_part(g, n_init)
            part = (steps_only[start:n] if steps_only is not None
                    else g[n_init + start:n_init + n])
            spec.seqs.append((part[::-1], bw.rec_grad[k]))
    for i, ph in enumerate(bw.nit_grad):
        if ph is not None:
            g = output_grads[info.n_rec + i]
            spec.seqs.append((g[start:n][::-1], ph))


def _zero_state(like: Variable) -> Variable:
    return unbroadcast(shape_padleft(zeros_like(like)), 0)


def _backward_states(spec: LoopSpec, op: Any, bw: _Backward, c: dict, inputs: list
                     ) -> list[int]:
    """The windows of each recurrent output and the accumulators of the non-sequences (the
    outer input positions of the accumulated non-sequences are returned)."""
    info = op.info
    inits = inputs[info.outer_inits()]
    for k in range(info.n_rec):
        windows = bw.windows[k]
        if not windows:
            continue
        by_tap = dict(zip(info.rec_taps[k], range(*info.inner_taps(k).indices(len(bw.fwd_in)))))
        for j, ph in enumerate(windows):
            parts = [windows[j + 1]] if j + 1 < len(windows) else []
            pos = by_tap.get(-(j + 1))
            if pos is not None:
                parts.append(c[pos])
            new = _sum_or_zero(parts, ph)
            spec.recs.append(Recurrent(init=_zero_state(inits[k][0]), placeholders=[ph],
                                       taps=(-1,), new_value=new,
                                       label=f"gradient window {j} of output {k}"))
    ns = info.inner_non_seqs()
    accumulated = []
    for p in range(ns.start, ns.stop):
        if p not in c:
            continue
        position = info.outer_non_seqs().start + (p - ns.start)
        acc = bw.fwd_in[p].type(f"grad_acc{p - ns.start}")
        spec.recs.append(Recurrent(init=_zero_state(inputs[position]), placeholders=[acc],
                                   taps=(-1,), new_value=acc + c[p],
                                   label=f"gradient of non-sequence {p - ns.start}"))
        accumulated.append(position)
    return accumulated


def _sum_or_zero(parts: list[Variable], like: Variable) -> Variable:
    if not parts:
        return zeros_like(like)
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def _bind_outer(spec: LoopSpec, op: Any, bw: _Backward, inputs: list) -> None:
    """Write the backward step against the forward loop's outer shared values and
    non-sequences (they are the same at every step)."""
    info = op.info
    replace = dict(zip(bw.fwd_in[info.inner_shared()], inputs[info.outer_shared()]))
    replace.update(zip(bw.fwd_in[info.inner_non_seqs()], inputs[info.outer_non_seqs()]))
    if not replace:
        return
    n_rec = len(spec.recs)
    rebuilt = clone_replace([r.new_value for r in spec.recs] + list(spec.nits), replace)
    for r, value in zip(spec.recs, rebuilt[:n_rec]):
        r.new_value = value
    spec.nits = rebuilt[n_rec:]


def _collect(result: list, op: Any, bw: _Backward, outer: list, accumulated: list[int],
             seq_grad_pos: list[int], inputs: list, output_grads: list, start: Any, n: Any,
             nb: Any, truncated: bool, eq: Any) -> None:
    """Gradients of the forward loop's outer inputs from the backward loop's outputs."""
    info = op.info
    n_rec_states = sum(len(w) for w in bw.windows) + len(accumulated)
    pos = 0
    for k in range(info.n_rec):
        windows = bw.windows[k]
        if not windows:
            continue
        n_init = info.n_init(k)
        finals = [outer[pos + j][-1] for j in range(n_init)]
        pos += n_init
        if truncated:
            finals = [switch(eq(nb, n), f, zeros_like(f)) for f in finals]
        entries = [finals[n_init - 1 - p] for p in range(n_init)]
        g_out = output_grads[k]
        if not _is_zero(g_out) and _steps_part(g_out, n_init) is None:
            entries = [e + g_out[p] for p, e in enumerate(entries)]
        init = inputs[info.outer_inits().start + k]
        result[info.outer_inits().start + k] = _fit(stack(entries), init)
    for position in accumulated:
        result[position] = outer[pos][-1]
        pos += 1
    for i, j in enumerate(seq_grad_pos):
        seq = inputs[info.outer_seqs().start + j]
        steps = outer[n_rec_states + i][::-1]
        result[info.outer_seqs().start + j] = set_subtensor(zeros_like(seq)[start:n], steps)


def _fit(g: Variable, like: Variable) -> Variable:
    """``g`` with the broadcastable pattern of ``like`` where it can take it."""
    if g.type.broadcastable == like.type.broadcastable:
        return g
    return patternbroadcast(g, like.type.broadcastable)


def connection_pattern(op: Any, node: Apply) -> list[list[bool]]:
    """``[i][j]``: whether outer output ``j`` depends on outer input ``i``, following the
    recurrences through the inner graph."""
    info = op.info
    inner_in = op.inner.inputs
    inner_out = op.inner.outputs
    # which inner inputs each inner output reads
    reads = []
    for out in inner_out:
        used = set(graph_inputs([out]))
        reads.append({p for p, v in enumerate(inner_in) if v in used})
    outer_of_inner: dict[int, int] = {}
    for j in range(info.n_seqs):
        outer_of_inner[j] = info.outer_seqs().start + j
    for k in range(info.n_rec):
        for p in range(*info.inner_taps(k).indices(len(inner_in))):
            outer_of_inner[p] = info.outer_inits().start + k
    for s in range(info.n_shared):
        outer_of_inner[info.inner_shared().start + s] = info.outer_shared().start + s
    for j in range(info.n_non_seqs):
        outer_of_inner[info.inner_non_seqs().start + j] = info.outer_non_seqs().start + j
    # states feeding back: recurrent output k and shared state s
    state_out = {info.outer_inits().start + k: k for k in range(info.n_rec)}
    state_out.update({info.outer_shared().start + s: info.shared_outputs().start + s
                      for s in range(info.n_shared)})
    deps = [{outer_of_inner[p] for p in r} for r in reads[:info.n_outer_outputs]]
    cond = {outer_of_inner[p] for p in reads[-1]} if info.as_while else set()
    changed = True
    while changed:
        changed = False
        for d in deps:
            extra = set().union(*(deps[state_out[i]] for i in d if i in state_out)) - d
            if extra:
                d |= extra
                changed = True
    for k in range(info.n_rec):
        deps[k].add(info.outer_inits().start + k)
    for s in range(info.n_shared):
        deps[info.shared_outputs().start + s].add(info.outer_shared().start + s)
    pattern = [[False] * len(node.outputs) for _ in node.inputs]
    for j, d in enumerate(deps):
        for i in d | cond | {0}:
            pattern[i][j] = True
    return pattern
