"""``subgraph_grad``: gradients of one part of a graph, from a cost and/or known gradients down
to chosen end variables (layer-by-layer backpropagation, or around a non-differentiable
step whose gradient the user supplies)."""

from __future__ import annotations

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core.gradient import GradientArgumentError, grad


def subgraph_grad(wrt: list[Variable], end: list[Variable], start: dict | None = None,
                  cost: Variable | None = None, details: bool = False) -> tuple:
    """Gradients with respect to ``wrt`` and ``end`` of ``cost`` plus the known gradients
    ``start`` ({variable: gradient}), stopping at ``end`` (treated as constants).

    Returns ``(wrt_grads, end_grads)``; with ``details`` also ``start_grads`` and
    ``cost_grads``, the two contributions with respect to ``wrt + end`` (None when that
    source was not given). Disconnected variables get zero gradients.
    """
    if cost is None and start is None:
        raise GradientArgumentError("subgraph_grad needs a cost, start gradients, or both")
    if not isinstance(wrt, list):
        raise GradientArgumentError(f"subgraph_grad: wrt must be a list, got {type(wrt)}")
    if not isinstance(end, list):
        raise GradientArgumentError(f"subgraph_grad: end must be a list, got {type(end)}")
    if start is not None and not isinstance(start, dict):
        raise GradientArgumentError(f"subgraph_grad: start must be a dict, got {type(start)}")
    params = list(dict.fromkeys(wrt + end))
    start_grads = cost_grads = None
    if start is not None:
        start_grads = grad(None, params, known_grads=start, consider_constant=end,
                           disconnected_inputs="ignore")
    if cost is not None:
        cost_grads = grad(cost, params, consider_constant=end, disconnected_inputs="ignore")
    if start_grads is None:
        totals = cost_grads
    elif cost_grads is None:
        totals = start_grads
    else:
        totals = [a + b for a, b in zip(start_grads, cost_grads)]
    by_param = dict(zip(params, totals))
    wrt_grads = [by_param[v] for v in wrt]
    end_grads = [by_param[v] for v in end]
    if details:
        return wrt_grads, end_grads, start_grads, cost_grads
    return wrt_grads, end_grads
