"""``theano.tensor.nnet.ctc``: the connectionist temporal classification (CTC) loss.

Theano 1.0 wrapped Baidu's warp-ctc C library; here the loss is computed in NumPy, with the
same conventions: ``activations`` (time, batch, classes) are unnormalised scores (a softmax over
the classes is taken inside), class 0 is the blank, each row of ``labels`` is a label sequence
whose negative entries are padding (dropped wherever they are), and ``input_lengths[b]`` is how
many time steps of example ``b`` count. The cost of an example is ``-log p(labels | x)``, the
probability summed over every alignment by the forward algorithm in log space; the op's second
output is the cost's gradient with respect to ``activations``, from the forward-backward
occupation probabilities (zero for the time steps past an example's length).

An example whose labels cannot fit in its time steps (fewer steps than labels plus repeated
neighbours) has probability 0; warp-ctc, hence Theano, gave it cost 0 and gradient 0 rather
than ``inf``, and so does this op, so that a training loop meeting such an example goes on as
it did under Theano.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType

__all__ = ["ConnectionistTemporalClassification", "ctc", "ctc_available", "ctc_present",
           "local_ctc_no_grad"]

_FLOATS = ("float32", "float64")


def ctc_present() -> bool:
    """True: the loss needs no external library here."""
    return True


def ctc_available() -> bool:
    """True: :func:`ctc` can always be used (Theano's answer depended on finding warp-ctc)."""
    return True


ctc_available.msg = None  # type: ignore[attr-defined]
ctc_available.path = None  # type: ignore[attr-defined]
ctc_present.avail = True  # type: ignore[attr-defined]
ctc_present.msg = None  # type: ignore[attr-defined]
ctc_present.path = None  # type: ignore[attr-defined]


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _logsum(*terms: np.ndarray) -> np.ndarray:
    out = terms[0]
    for term in terms[1:]:
        out = np.logaddexp(out, term)
    return out


def _shifted(values: np.ndarray, by: int) -> np.ndarray:
    """``values`` moved ``by`` places to the right (left when negative), -inf filling in."""
    out = np.full_like(values, -np.inf)
    if by > 0:
        out[by:] = values[:-by]
    else:
        out[:by] = values[-by:]
    return out


def ctc_cost_and_grad(logp: np.ndarray, labels: np.ndarray) -> tuple[float, np.ndarray]:
    """``-log p(labels)`` and its gradient with respect to the log-probabilities' *scores*
    (pre-softmax) for one example: ``logp`` (time, classes) normalised log-probabilities,
    ``labels`` the label sequence without padding or blanks."""
    n_time, n_classes = logp.shape
    ext = np.zeros(2 * len(labels) + 1, dtype=np.intp)  # blank, l1, blank, l2, ..., blank
    ext[1::2] = labels
    n_states = len(ext)
    repeats = int(np.count_nonzero(labels[1:] == labels[:-1])) if len(labels) else 0
    if len(labels) + repeats > n_time:  # no alignment: warp-ctc's cost 0 (module doc)
        return 0.0, np.zeros_like(logp)
    # a state may be entered from two states back when it is a label different from that one
    skip = np.zeros(n_states, dtype=bool)
    skip[2:] = (ext[2:] != 0) & (ext[2:] != ext[:-2])
    emit = logp[:, ext]  # (time, states)
    alpha = np.full((n_time, n_states), -np.inf)
    alpha[0, :2] = emit[0, :2]
    for t in range(1, n_time):
        prev = alpha[t - 1]
        two_back = np.where(skip, _shifted(prev, 2), -np.inf)
        alpha[t] = _logsum(prev, _shifted(prev, 1), two_back) + emit[t]
    beta = np.full((n_time, n_states), -np.inf)
    beta[-1, -2:] = emit[-1, -2:]
    skip_from = np.zeros(n_states, dtype=bool)  # state s may jump to s + 2
    skip_from[:-2] = skip[2:]
    for t in range(n_time - 2, -1, -1):
        nxt = beta[t + 1]
        two_ahead = np.where(skip_from, _shifted(nxt, -2), -np.inf)
        beta[t] = _logsum(nxt, _shifted(nxt, -1), two_ahead) + emit[t]
    log_p = _logsum(alpha[-1, -1], alpha[-1, -2]) if n_states > 1 else alpha[-1, -1]
    if not np.isfinite(log_p):
        return np.inf, np.zeros_like(logp)
    # occupation of each state at each time (alpha and beta both count that step's emission)
    occupancy = np.exp(alpha + beta - emit - log_p)
    per_class = np.zeros_like(logp)
    np.add.at(per_class, (slice(None), ext), occupancy)
    return -float(log_p), np.exp(logp) - per_class


class ConnectionistTemporalClassification(Op):
    """The CTC loss of each example (see the module doc) and, when ``compute_grad``, its
    gradient with respect to ``activations`` as a second output.

    Inputs: ``activations`` (time, batch, classes), float32 as in Theano (float64 is accepted
    too; the outputs take its dtype), ``labels`` (batch, max label length) and
    ``input_lengths`` (batch,) of integers (int32 in Theano). Calling the op returns the costs
    (``default_output`` 0). ``openmp`` is accepted for Theano's signature and ignored."""

    __props__ = ("compute_grad",)
    default_output = 0

    def __init__(self, compute_grad: bool = True, openmp: Any = None) -> None:
        self.compute_grad = bool(compute_grad)

    def make_node(self, activations: Any, labels: Any, input_lengths: Any) -> Apply:
        acts = as_tensor_variable(activations)
        labels = as_tensor_variable(labels)
        lengths = as_tensor_variable(input_lengths)
        if acts.dtype not in _FLOATS:
            raise TypeError(f"ctc: activations must be float32 (or float64), got {acts.dtype}")
        if acts.ndim != 3:
            raise ValueError(f"ctc: activations must have 3 dimensions (time, batch, classes), "
                             f"got {acts.ndim}")
        for name, var, ndim in (("labels", labels, 2), ("input_lengths", lengths, 1)):
            if not var.dtype.startswith(("int", "uint")):
                raise TypeError(f"ctc: {name} must be integers (int32), got {var.dtype}")
            if var.ndim != ndim:
                raise ValueError(f"ctc: {name} must have {ndim} dimension(s), got {var.ndim}")
        outputs = [TensorType(acts.dtype, (False,))()]
        if self.compute_grad:
            outputs.append(TensorType(acts.dtype, (False,) * 3)())
        return Apply(self, [acts, labels, lengths], outputs)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        acts, labels, lengths = inputs
        n_time, batch, n_classes = acts.shape
        if labels.shape[0] != batch or lengths.shape[0] != batch:
            raise ValueError(f"ctc: activations hold {batch} examples (axis 1) but labels has "
                             f"{labels.shape[0]} rows and input_lengths {lengths.shape[0]} "
                             f"entries")
        costs = np.zeros(batch)
        grads = np.zeros(acts.shape)
        for b in range(batch):
            length = int(lengths[b])
            if not 0 <= length <= n_time:
                raise ValueError(f"ctc: input_lengths[{b}] = {length} is outside 0.."
                                 f"{n_time} (the activations' time steps)")
            seq = labels[b][labels[b] >= 0].astype(np.intp)
            if seq.size and (seq.min() == 0 or seq.max() >= n_classes):
                raise ValueError(f"ctc: labels[{b}] = {labels[b].tolist()} must hold classes "
                                 f"1..{n_classes - 1} (0 is the blank, negatives are padding)")
            if length == 0:  # nothing to align (or no alignment: cost 0 as above)
                continue
            logp = _log_softmax(acts[:length, b].astype(np.float64))
            costs[b], grads[:length, b] = ctc_cost_and_grad(logp, seq)
        dtype = node.outputs[0].dtype
        output_storage[0][0] = costs.astype(dtype)
        if self.compute_grad:
            output_storage[1][0] = grads.astype(dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list:
        acts = tuple(input_shapes[0])
        return [(acts[1],), acts][:len(node.outputs)]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        if not self.compute_grad:
            raise TypeError("ConnectionistTemporalClassification(compute_grad=False) has no "
                            "gradient; build the loss with ctc() or compute_grad=True")
        # each example's cost depends only on its own column of activations
        g_acts = outputs[1] * output_grads[0].dimshuffle("x", 0, "x")
        return [g_acts.astype(inputs[0].dtype),
                grad_undefined(self, 1, inputs[1], "labels are class numbers"),
                grad_undefined(self, 2, inputs[2], "input_lengths are counts")]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True] * len(node.outputs), [False] * len(node.outputs),
                [False] * len(node.outputs)]


def ctc(activations: Any, labels: Any, input_lengths: Any) -> Variable:
    """CTC loss of each example of a minibatch: ``activations`` (time, batch, classes),
    unnormalised (softmax is applied inside); ``labels`` (batch, n) int32 label sequences,
    negative entries being padding, class 0 the blank; ``input_lengths`` (batch,) int32 time
    steps per example. Returns the (batch,) costs ``-log p(labels | activations)``."""
    return ConnectionistTemporalClassification()(activations, labels, input_lengths)


@register_canonicalize("fast_compile")
@node_rewriter([ConnectionistTemporalClassification])
def local_ctc_no_grad(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """The CTC op without its gradient output when nothing reads that output."""
    if len(node.outputs) < 2 or fgraph.clients.get(node.outputs[1]):
        return None
    cost = ConnectionistTemporalClassification(compute_grad=False)(*node.inputs)
    return {node.outputs[0]: cost}
