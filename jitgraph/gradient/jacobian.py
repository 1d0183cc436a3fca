"""Full Jacobians and Hessians: one gradient per element of a vector expression.

Row ``i`` of ``jacobian(y, x)`` is ``grad(y[i], x)``. When the length of ``y`` is known when
the graph is built (and small), the rows are built directly and stacked, so the compiled graph
is one straight-line program the rewrites can simplify; otherwise the rows are computed by a
``scan`` over ``arange(y.shape[0])``, as Theano does.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core.basic import get_vector_length, stack, zeros
from jitgraph.tensor.core.gradient import GradientArgumentError, format_as, grad
from jitgraph.tensor.extras.extra_ops import arange
from jitgraph.tensor.shaping.shape import patternbroadcast, shape_i

#: the longest vector whose Jacobian rows are built one by one (beyond it: a loop)
UNROLL_LIMIT = 32


def jacobian(expression: Variable, wrt: Any, consider_constant: Sequence[Variable] | None = None,
             disconnected_inputs: str = "raise") -> Any:
    """The Jacobian of the vector (or scalar) ``expression`` with respect to ``wrt`` (a
    variable or a list/tuple of them; the result has the same form).

    For a vector of length n and a ``wrt`` of shape s, the Jacobian has shape ``(n,) + s``;
    for a scalar ``expression`` it is ``grad(expression, wrt)``. ``consider_constant`` and
    ``disconnected_inputs`` are passed to ``grad``.
    """
    if not isinstance(expression, Variable):
        raise GradientArgumentError("tensor.jacobian expects a Variable as `expression`")
    if expression.ndim >= 2:
        raise GradientArgumentError("tensor.jacobian expects a 1 dimensional variable as "
                                    "`expression`. If not use flatten to make it a vector")
    wrt_list = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    if expression.ndim == 0:
        grads = grad(expression, wrt_list, consider_constant=consider_constant,
                     disconnected_inputs=disconnected_inputs)
    else:
        grads = _rows(expression, wrt_list, consider_constant, disconnected_inputs)
    return format_as(isinstance(wrt, list), isinstance(wrt, tuple), grads)


def hessian(cost: Variable, wrt: Any, consider_constant: Sequence[Variable] | None = None,
            disconnected_inputs: str = "raise") -> Any:
    """The Hessian of the scalar ``cost`` with respect to each vector in ``wrt`` (a variable
    or a list/tuple of them; the result has the same form): ``jacobian(grad(cost, x), x)``."""
    if not isinstance(cost, Variable):
        raise GradientArgumentError("tensor.hessian expects a Variable as `cost`")
    if cost.ndim != 0:
        raise GradientArgumentError("tensor.hessian expects a 0 dimensional variable as `cost`")
    wrt_list = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    hessians = []
    for x in wrt_list:
        if not isinstance(x, Variable):
            raise GradientArgumentError("tensor.hessian expects a (list of) Variable as `wrt`")
        if x.ndim != 1:
            raise GradientArgumentError("tensor.hessian expects a (list of) 1 dimensional "
                                        "variable as `wrt`")
        g = grad(cost, x, consider_constant=consider_constant,
                 disconnected_inputs=disconnected_inputs)
        # A gradient that does not depend on x (a cost linear in x) has zero rows: Theano's
        # hessian ignores that disconnection, whatever disconnected_inputs says.
        hessians.append(_rows(g, [x], consider_constant, "ignore")[0])
    return format_as(isinstance(wrt, list), isinstance(wrt, tuple), hessians)


def _rows(expression: Variable, wrt: list[Variable], consider_constant: Any,
          disconnected_inputs: str) -> list[Variable]:
    """For each ``w`` in ``wrt``, the stacked ``grad(expression[i], w)`` over ``i``."""
    length = _static_length(expression)
    if length is not None and length <= UNROLL_LIMIT:
        return _unrolled_rows(expression, wrt, length, consider_constant, disconnected_inputs)
    return _looped_rows(expression, wrt, consider_constant, disconnected_inputs)


def _static_length(vector: Variable) -> int | None:
    try:
        return get_vector_length(vector)
    except (ValueError, TypeError):
        return None


def _unrolled_rows(expression: Variable, wrt: list[Variable], length: int,
                   consider_constant: Any, disconnected_inputs: str) -> list[Variable]:
    per_row = [grad(expression[i], wrt, consider_constant=consider_constant,
                    disconnected_inputs=disconnected_inputs) for i in range(length)]
    if length == 0:
        # No rows, but still disconnected_inputs' verdict and Theano's (0,) + shape result.
        grad(expression.sum(), wrt, consider_constant=consider_constant,
             disconnected_inputs=disconnected_inputs)
        return [_empty_jacobian(w) for w in wrt]
    return [_rows_type(stack([row[k] for row in per_row]), w) for k, w in enumerate(wrt)]


def _looped_rows(expression: Variable, wrt: list[Variable], consider_constant: Any,
                 disconnected_inputs: str) -> list[Variable]:
    try:
        from jitgraph.scan import scan
    except ImportError as exc:  # pragma: no cover - scan ships with jitgraph
        raise NotImplementedError(
            f"jacobian of {expression}, whose length is only known at run time, needs "
            "jitgraph.scan (a loop over its elements), which is not available") from exc

    def row(i: Variable, expr: Variable, *ws: Variable) -> list[Variable]:
        return grad(expr[i], list(ws), consider_constant=consider_constant,
                    disconnected_inputs=disconnected_inputs)

    stacked, _ = scan(row, sequences=arange(expression.shape[0]),
                      non_sequences=[expression, *wrt], return_list=True)
    return [_rows_type(s, w) for s, w in zip(stacked, wrt)]


def _rows_type(stacked: Variable, w: Variable) -> Variable:
    """``stacked`` typed as Theano's result: a non-broadcastable row axis, then ``w``'s."""
    return patternbroadcast(stacked, (False,) + tuple(w.broadcastable))


def _empty_jacobian(w: Variable) -> Variable:
    dims = [0] + [1 if b else shape_i(w, d) for d, b in enumerate(w.broadcastable)]
    return _rows_type(zeros(dims, dtype=w.dtype), w)
