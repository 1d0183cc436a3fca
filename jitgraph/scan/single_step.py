"""``scan`` with a constant single step: the step applied once, with no loop.

With ``n_steps`` 1 (or -1) nothing is fed back, so Theano 1.0.5 builds no Scan node: each output
is the step's value at the first step, with a leading dimension of length 1, and the updates are
the step's own. The state's type may then differ from its initial value's (an ``int8`` initial
value and an ``int32`` step give ``int32``), which a loop could not allow.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Variable, clone_replace
from jitgraph.scan.updates import OrderedUpdates
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import shape_padleft, unbroadcast


def single_step(seqs: Sequence[tuple[Variable, Variable]], recs: dict, outputs: list,
                updates: Any, return_list: bool) -> tuple[Any, OrderedUpdates]:
    """The outputs and updates of one step: ``seqs`` pairs each sequence slice with its
    placeholder, ``recs`` holds the recurrent outputs by position (see
    :func:`jitgraph.scan.builder.scan`)."""
    values = {placeholder: part[0] for part, placeholder in seqs}
    for rec in recs.values():
        n_init = -min(rec.taps)
        for tap, placeholder in zip(rec.taps, rec.placeholders):
            values[placeholder] = rec.init[n_init + tap]
    pairs = list(updates.items())
    everything = [o if isinstance(o, Variable) else as_tensor_variable(o) for o in outputs] + [new for _, new in pairs]
    replaced = clone_replace(everything, values) if values else everything
    results = [unbroadcast(shape_padleft(v), 0) for v in replaced[:len(outputs)]]
    new_updates = OrderedUpdates()
    for (var, _), new in zip(pairs, replaced[len(outputs):]):
        new_updates[var] = new
    if return_list:
        return results, new_updates
    if not results:
        return None, new_updates
    return (results[0] if len(results) == 1 else results), new_updates

