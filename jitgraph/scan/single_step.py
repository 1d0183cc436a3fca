"""``scan`` with a constant single step: the step applied once, with no loop.

With ``n_steps`` 1 (or -1) nothing is fed back, so Theano 1.0.5 builds no Scan node: the step
function is called with the values of the first step themselves (a sequence's entry, the
initial values at their taps), each output is its value with a leading dimension of length 1,
and the updates are the step's own (random streams keep their default updates). The state's
type may then differ from its initial value's (an ``int8`` initial value and an ``int32`` step
give ``int32``), which a loop could not allow.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Variable
from jitgraph.scan.updates import OrderedUpdates
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import shape_padleft, unbroadcast


def first_step_values(seqs: Sequence[tuple[Variable, Variable]], recs: dict
                      ) -> tuple[list[Variable], list[Variable]]:
    """What the step function receives at the first step, in place of the placeholders:
    ``seqs`` pairs each sequence slice with its placeholder, ``recs`` holds the recurrent
    outputs by position (see :func:`jitgraph.scan.builder.scan`)."""
    seq_values = [part[0] for part, _ in seqs]
    rec_values = []
    for k in sorted(recs):
        rec = recs[k]
        n_init = -min(rec.taps)
        rec_values += [rec.init[n_init + tap] for tap in rec.taps]
    return seq_values, rec_values


def single_step_results(outputs: list, updates: Any, return_list: bool
                        ) -> tuple[Any, OrderedUpdates]:
    """``scan``'s results for one step whose ``outputs`` and ``updates`` are given."""
    values = [o if isinstance(o, Variable) else as_tensor_variable(o) for o in outputs]
    results = [unbroadcast(shape_padleft(v), 0) for v in values]
    new_updates = OrderedUpdates(updates.items())
    if return_list:
        return results, new_updates
    if not results:
        return None, new_updates
    return (results[0] if len(results) == 1 else results), new_updates
