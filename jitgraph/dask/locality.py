"""Which outputs of a graph can be computed chunk by chunk along one axis of some inputs.

Blockwise evaluation splits the *chunked* inputs along one axis (the rows of a data matrix)
and runs the compiled function once per chunk. That is only right for outputs whose rows
depend on the same rows of the inputs ("row-local" outputs: their chunks are concatenated), or
for reductions over the chunked axis whose per-chunk values can be combined (a sum of sums, a
max of maxes, a mean weighted by the chunk lengths). This module tracks, through the graph the
user wrote, what every variable is with respect to the chunked axis:

* :data:`FREE`: does not depend on the chunked inputs (parameters, constants);
* :class:`Rows`: row-local, with the chunked axis at position ``axis``;
* :class:`Count`: a number proportional to the chunk length (the element count of a mean);
* :class:`Reduced`: a reduction over the chunked axis (``kind`` says how chunks combine);
* :class:`Entangled`: depends on the chunked axis as a whole (``reason`` says where).

Each op family has a rule (registered with :func:`locality_rule`, dispatched on the op's
class); an op without one is row-local only if none of its inputs depends on the chunks. The
rules are conservative: an output they cannot prove combinable is reported, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch
from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Variable, io_toposort
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise
from jitgraph.tensor.elementwise.reduction import CAReduce, _ArgReduce
from jitgraph.tensor.indexing.subtensor_ops import Subtensor
from jitgraph.tensor.linalg.blas import _DotBase
from jitgraph.tensor.neural.softmax_xent import SoftmaxWithBias
from jitgraph.tensor.nnet import CrossentropyCategorical1Hot, _RowwiseOp
from jitgraph.tensor.rewriting.utils import scalar_op_name
from jitgraph.tensor.shaping.shape import Shape, Shape_i

__all__ = ["FREE", "Rows", "Count", "Reduced", "Entangled", "NotBlockwiseError",
           "analyse_outputs", "locality_rule"]


class NotBlockwiseError(ValueError):
    """An output of the function cannot be computed chunk by chunk (the message says why)."""


@dataclass(frozen=True)
class _Free:
    def __repr__(self) -> str:
        return "FREE"


FREE = _Free()


@dataclass(frozen=True)
class Rows:
    """Row-local; the chunked axis is this variable's axis ``axis``."""

    axis: int


@dataclass(frozen=True)
class Count:
    """A scalar proportional to the chunk length (only valid as the divisor of a mean)."""


@dataclass(frozen=True)
class Reduced:
    """A reduction over the chunked axis; ``kind`` in sum, prod, max, min, all, any, mean."""

    kind: str


@dataclass(frozen=True)
class Entangled:
    """Depends on the chunked axis as a whole; ``reason`` names the op where that happened."""

    reason: str


State = Any  # one of the classes above


def analyse_outputs(inputs: Sequence[Variable], outputs: Sequence[Variable],
                    chunked: Sequence[bool], axis: int) -> list[State]:
    """The state of every output when the inputs flagged in ``chunked`` are split along
    ``axis`` (the other inputs, shared variables and constants are the same for every chunk)."""
    states: dict[Variable, State] = {}
    for var, is_chunked in zip(inputs, chunked):
        if is_chunked and not 0 <= axis < var.ndim:
            raise ValueError(f"input {var} is {var.ndim}-d: it has no axis {axis} to be chunked "
                             "along; pass it as a NumPy array (the same for every chunk) or "
                             "choose another axis")
        states[var] = Rows(axis) if is_chunked else FREE
    for node in io_toposort(list(inputs), list(outputs)):
        in_states = [states.get(v, FREE) for v in node.inputs]
        out_states = _node_states(node, in_states)
        for out, state in zip(node.outputs, out_states):
            states[out] = state
    return [states.get(o, FREE) for o in outputs]


def _node_states(node: Apply, in_states: list[State]) -> list[State]:
    if all(s is FREE for s in in_states):
        return [FREE] * len(node.outputs)
    entangled = next((s for s in in_states if isinstance(s, Entangled)), None)
    if entangled is not None:
        return [entangled] * len(node.outputs)
    return list(locality_rule(node.op, node, in_states))


@singledispatch
def locality_rule(op: Any, node: Apply, states: list[State]) -> list[State]:
    """The states of ``node``'s outputs given its inputs' states (at least one depends on the
    chunks, none is Entangled). Ops without a rule of their own: not blockwise."""
    return [Entangled(f"{op} has no blockwise rule (jitgraph.dask.locality)")] * len(node.outputs)


def _reduced_used(op: Any) -> Entangled:
    return Entangled(f"{op} uses the result of a reduction over the chunked axis; only the "
                     "function's outputs may be such reductions")


def _count_used(op: Any) -> Entangled:
    return Entangled(f"{op} uses the chunk length (a mean over the chunked axis inside the graph"
                     " gives a different value per chunk)")


# -- elementwise -------------------------------------------------------------------------------

def _register_all() -> None:
    """Register the rules of the op families (imported here so that importing this module
    stays cheap and free of import cycles)."""
    locality_rule.register(Elemwise, _elemwise)
    locality_rule.register(DimShuffle, _dimshuffle)
    locality_rule.register(CAReduce, _careduce)
    locality_rule.register(_ArgReduce, _argreduce)
    locality_rule.register(_DotBase, _dot)
    locality_rule.register(_RowwiseOp, _rowwise_axis_op)
    locality_rule.register(SoftmaxWithBias, _softmax_with_bias)
    locality_rule.register(CrossentropyCategorical1Hot, _crossentropy_1hot)
    locality_rule.register(Shape_i, _shape_i)
    locality_rule.register(Shape, _shape)
    locality_rule.register(Subtensor, _subtensor)


def _elemwise(op: Any, node: Apply, states: list[State]) -> list[State]:
    name = scalar_op_name(node)
    kinds = {type(s) for s in states if s is not FREE}
    if kinds == {Reduced}:
        (reduced,) = [s for s in states if s is not FREE]
        if name == "cast" and reduced.kind in ("max", "min", "all", "any"):
            return [reduced]  # exact: casting commutes with picking an element
        return [_reduced_used(op)]
    if kinds == {Reduced, Count}:
        if (name == "true_div" and len(states) == 2 and states[0] == Reduced("sum")
                and isinstance(states[1], Count)):
            return [Reduced("mean")]
        return [_reduced_used(op)]
    if kinds == {Count}:
        n_count = sum(isinstance(s, Count) for s in states)
        if name == "cast" or (name == "mul" and n_count == 1):
            return [Count()]
        return [_count_used(op)]
    if kinds != {Rows}:
        return [_count_used(op) if Count in kinds else _reduced_used(op)]
    axes = {s.axis for s in states if isinstance(s, Rows)}
    if len(axes) != 1:
        return [Entangled(f"{op} combines chunked values whose chunked axes differ ({axes})")]
    (axis,) = axes
    for var, state in zip(node.inputs, states):
        if state is FREE and not var.broadcastable[axis]:
            return [Entangled(f"{op} combines a chunked value with {var}, which is not "
                              f"broadcastable along the chunked axis (it would need the whole "
                              f"axis)")]
    return [Rows(axis)] * len(node.outputs)


def _dimshuffle(op: Any, node: Apply, states: list[State]) -> list[State]:
    (state,) = states
    if isinstance(state, Rows):
        if state.axis not in op.new_order:
            return [Entangled(f"{op} drops the chunked axis")]
        return [Rows(op.new_order.index(state.axis))]
    if isinstance(state, Reduced):
        kept = [o for o in op.new_order if o != "x"]
        if kept == sorted(kept) and len(kept) == node.inputs[0].ndim:
            return [state]  # keepdims=True: only broadcastable axes are added
        return [_reduced_used(op)]
    return [state]  # Count


_REDUCTION_KINDS = {"Sum": "sum", "Prod": "prod", "Max": "max", "Min": "min", "All": "all",
                    "Any": "any"}
_SCALAR_REDUCTION_KINDS = {"add": "sum", "mul": "prod", "maximum": "max", "minimum": "min",
                           "and": "all", "or": "any"}


def _careduce(op: Any, node: Apply, states: list[State]) -> list[State]:
    (state,) = states
    if not isinstance(state, Rows) or op.pre_op is not None:
        return [_reduced_used(op) if isinstance(state, Reduced) else _count_used(op)
                if isinstance(state, Count) else Entangled(f"{op} (fused) is not blockwise")]
    reduced = op.reduced_axes(node.inputs[0].ndim)
    if state.axis not in reduced:
        return [Rows(state.axis - sum(1 for r in reduced if r < state.axis))]
    kind = _REDUCTION_KINDS.get(type(op).__name__) or _SCALAR_REDUCTION_KINDS.get(
        getattr(op.scalar_op, "name", ""))
    if kind is None:
        return [Entangled(f"{op} reduces the chunked axis with {op.scalar_op}, which has no "
                          "known way to combine chunks")]
    return [Reduced(kind)]


def _argreduce(op: Any, node: Apply, states: list[State]) -> list[State]:
    (state,) = states
    if not isinstance(state, Rows):
        return [Entangled(f"{op} of a value that is not row-local")]
    ndim = node.inputs[0].ndim
    reduced = tuple(range(ndim)) if op.axis is None else op.axis
    if state.axis in reduced:
        return [Entangled(f"{op} over the chunked axis: positions cannot be combined across "
                          "chunks")]
    return [Rows(state.axis - sum(1 for r in reduced if r < state.axis))]


def _dot(op: Any, node: Apply, states: list[State]) -> list[State]:
    a, b = node.inputs
    sa, sb = states
    if not all(s is FREE or isinstance(s, Rows) for s in states):
        return [Entangled(f"{op} of a value that is not row-local")]
    a_contracted, b_contracted = a.ndim - 1, 0
    if isinstance(sa, Rows) and isinstance(sb, Rows):
        if sa.axis == a_contracted and sb.axis == b_contracted:
            return [Reduced("sum")]  # the product sums over the chunked axis
        return [Entangled(f"{op} multiplies two chunked values along different axes")]
    if isinstance(sa, Rows):
        if sa.axis == a_contracted:
            return [Entangled(f"{op} contracts the chunked axis of {a} with {b}, which is the "
                              "same for every chunk")]
        return [Rows(sa.axis)]
    if sb.axis == b_contracted:
        return [Entangled(f"{op} contracts {a}, the same for every chunk, with the chunked "
                          f"axis of {b}")]
    return [Rows(a.ndim - 1 + sb.axis - 1)]


def _rowwise_axis_op(op: Any, node: Apply, states: list[State]) -> list[State]:
    (state,) = states
    if not isinstance(state, Rows):
        return [Entangled(f"{op} of a value that is not row-local")]
    ndim = node.inputs[0].ndim
    if op.axis is None or op.axis % ndim == state.axis:
        return [Entangled(f"{op} normalises along the chunked axis")]
    return [state]


def _softmax_with_bias(op: Any, node: Apply, states: list[State]) -> list[State]:
    """Softmax of ``x + b`` row by row: the rows of ``x`` may be chunked, not the bias."""
    if states[0] != Rows(0) or states[1] is not FREE:
        return [Entangled(f"{op} works on rows: only axis 0 of its first input can be chunked")]
    return [Rows(0)]


def _crossentropy_1hot(op: Any, node: Apply, states: list[State]) -> list[State]:
    """One cross-entropy per row: the probabilities and the labels are chunked together."""
    if states[0] != Rows(0) or states[1] != Rows(0):
        return [Entangled(f"{op} needs its probabilities and labels chunked together, along "
                          "their rows")]
    return [Rows(0)]


def _shape_i(op: Any, node: Apply, states: list[State]) -> list[State]:
    (state,) = states
    if isinstance(state, Rows):
        return [Count() if op.i == state.axis else FREE]
    return [Entangled(f"{op} of a reduction over the chunked axis")]


def _shape(op: Any, node: Apply, states: list[State]) -> list[State]:
    return [Entangled(f"{op} of a chunked value holds the chunk length, which differs between "
                      "chunks")]


def _subtensor(op: Any, node: Apply, states: list[State]) -> list[State]:
    state, index_states = states[0], states[1:]
    if not isinstance(state, Rows) or any(s is not FREE for s in index_states):
        return [Entangled(f"{op}: only a chunked value indexed by fixed indices is blockwise")]
    entries = op.idx_list
    if state.axis < len(entries) and entries[state.axis] != ("slice", False, False, False):
        return [Entangled(f"{op} indexes along the chunked axis")]
    dropped = sum(1 for e in entries[:state.axis] if e == "int")
    return [Rows(state.axis - dropped)]


_register_all()

