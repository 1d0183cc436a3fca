"""Jacobian-vector products: ``Rop`` (forward mode, ``J v``) and ``Lop`` (``v J``).

``Rop`` pushes tangents forward through the graph: each op's ``R_op(inputs, eval_points)``
returns the tangents of its outputs given those of its inputs, where an eval point of None means
"this input does not move" (a zero tangent). While walking, a tangent is one of

* a variable (the direction, already known to be connected to ``wrt``);
* ``_ZERO``: connected, but provably zero: graph inputs other than ``wrt`` (as Theano treats
  them: the R-op of a graph ``wrt`` does not reach is zero, as a Hessian-vector product of a
  linear cost must be) and integer-valued variables, whose derivative is zero;
* ``_UNDEFINED``: an op's R_op returned None for an output that a moving input feeds (the op
  is not differentiable there, as ``grad_undefined`` says for its gradient), and every
  variable computed from such an output;
* absent: disconnected (the op's ``connection_pattern`` cuts the path, as ``x.shape`` does).

An output that is disconnected or undefined triggers ``disconnected_outputs`` ("all links are
non-differentiable", in Theano's words); a zero one gives zeros. Theano dropped an undefined
tangent met by an elementwise op (zeros for that path) and raised for its other ops; an op is
asked for its R-op here only when a moving tangent reaches it, since nothing on a path that
``wrt`` does not reach moves.

``J v`` is a function of the point where it is taken, even where its value is not (the R-op of
``dot(x, W)`` with respect to ``W`` is ``dot(x, V)``): each result is wrapped in
:class:`EvaluatedAt` with the inputs of ``f``, so ``function([W, V, x], JV)`` accepts ``W`` as
Theano did (its R-op graphs always used them). The rewrites remove the wrapper.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Constant, Variable, graph_inputs, io_toposort
from jitgraph.graph.view_op import ViewOp
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import (GradientArgumentError, disconnected_result, format_as,
                                      grad, handle_disconnected, zeros_for)
from jitgraph.tensor.elementwise.math import cast, second
from jitgraph.tensor.shaping.shape import patternbroadcast

_ZERO = object()  # a connected tangent known to be zero
_UNDEFINED = object()  # an op declared the tangent undefined (see the module docstring)


def Rop(f: Any, wrt: Any, eval_points: Any, disconnected_outputs: str = "raise",
        return_disconnected: str = "zero") -> Any:
    """``J v``: the Jacobian of ``f`` with respect to ``wrt`` times ``eval_points``.

    ``f``, ``wrt`` and ``eval_points`` are variables or lists/tuples of them (``wrt[k]`` and
    ``eval_points[k]`` of the same number of dimensions). The result has ``f``'s form and each
    element ``f``'s shape. An ``f`` that does not depend on ``wrt`` through differentiable
    operations is handled as ``disconnected_outputs`` ('raise', 'warn', 'ignore') says and
    replaced by ``return_disconnected`` ('zero', 'None', 'Disconnected').
    """
    outputs = list(f) if isinstance(f, (list, tuple)) else [f]
    wrt_list = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    points = list(eval_points) if isinstance(eval_points, (list, tuple)) else [eval_points]
    if len(points) != len(wrt_list):
        raise GradientArgumentError(f"Rop: {len(wrt_list)} variables in wrt but "
                                    f"{len(points)} eval_points; give one per variable")
    seeds = _seed_tangents(wrt_list, points)
    tangents = _propagate(outputs, seeds)
    results = []
    for out in outputs:
        t = tangents.get(out)
        if t is None or t is _UNDEFINED:
            message = ("Rop method was asked to compute the gradient with respect to a variable "
                       "that is not part of the computational graph of variables in wrt, or is "
                       f"used only by a non-differentiable operator: {out}")
            if t is _UNDEFINED:
                message += " (an op on the way from wrt returned None from its R_op)"
            handle_disconnected(out, disconnected_outputs, message)
            results.append(disconnected_result(out, return_disconnected))
        elif t is _ZERO:
            results.append(zeros_for(out))
        else:
            results.append(_evaluated_at(t, out))
    return format_as(isinstance(f, list), isinstance(f, tuple), results)


def Lop(f: Any, wrt: Any, eval_points: Any, consider_constant: Sequence[Variable] | None = None,
        disconnected_inputs: str = "raise") -> Any:
    """``v J``: ``eval_points`` (shaped like ``f``) times the Jacobian of ``f`` with respect to
    ``wrt``; the result has ``wrt``'s form and each element ``wrt``'s shape. This is ``grad``
    with ``eval_points`` as the known gradients of ``f``."""
    outputs = list(f) if isinstance(f, (list, tuple)) else [f]
    points = list(eval_points) if isinstance(eval_points, (list, tuple)) else [eval_points]
    if len(points) != len(outputs):
        raise GradientArgumentError(f"Lop: {len(outputs)} expressions in f but {len(points)} "
                                    "eval_points; give one per expression")
    wrt_list = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    known = dict(zip(outputs, points))
    grads = grad(None, wrt_list, consider_constant=consider_constant, known_grads=known,
                 disconnected_inputs=disconnected_inputs)
    return format_as(isinstance(wrt, list), isinstance(wrt, tuple), grads)


class EvaluatedAt(ViewOp):
    """``EvaluatedAt()(t, *point)`` is ``t``, recorded as a function of the variables ``point``
    (which it does not read); removed, like every ViewOp, when a function is compiled."""

    def make_node(self, t: Any, *point: Variable) -> Apply:
        return Apply(self, [t, *point], [t.type.make_variable()])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0]] + [None] * (len(inputs) - 1)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [eval_points[0]]


evaluated_at = EvaluatedAt()


def _evaluated_at(t: Variable, out: Variable) -> Variable:
    if out.owner is None:
        return t  # ``out`` is one of wrt: its tangent is the eval point itself
    used = set(graph_inputs([t]))
    point = [r for r in graph_inputs([out]) if not isinstance(r, Constant) and r not in used]
    return evaluated_at(t, *point) if point else t


def _seed_tangents(wrt: list[Any], points: list[Any]) -> dict[Variable, Any]:
    seeds: dict[Variable, Any] = {}
    for k, (w, v) in enumerate(zip(wrt, points)):
        if not isinstance(w, Variable):
            w = as_tensor_variable(w)
        if not isinstance(v, Variable):
            v = as_tensor_variable(v)
        w_ndim, v_ndim = getattr(w, "ndim", None), getattr(v, "ndim", None)
        if w_ndim != v_ndim:
            raise ValueError(f"Element {k} of wrt/eval_point have mismatched dimensionality: "
                             f"{w_ndim} versus {v_ndim}")
        seeds[w] = _as_tangent_of(w, v)
    return seeds


def _as_tangent_of(var: Variable, v: Variable) -> Any:
    """``v`` in ``var``'s dtype and broadcastable pattern; zero for integer variables."""
    if not hasattr(var, "dtype"):
        return v
    if dt.is_discrete(var.dtype):
        return _ZERO
    if v.dtype != var.dtype:
        v = cast(v, var.dtype)
    if v.broadcastable != var.broadcastable:
        v = patternbroadcast(v, var.broadcastable)
    return v


def _propagate(outputs: list[Any], seeds: dict[Variable, Any]) -> dict[Variable, Any]:
    outs = [o for o in outputs if isinstance(o, Variable)]
    tangents = dict(seeds)
    for node in io_toposort(graph_inputs(outs, list(seeds)), outs):
        incoming = [_input_tangent(inp, tangents) for inp in node.inputs]
        if all(t is None for t in incoming):
            continue
        for out, t in zip(node.outputs, _node_tangents(node, incoming)):
            if t is not None:
                tangents[out] = t
    return tangents


def _input_tangent(inp: Variable, tangents: dict[Variable, Any]) -> Any:
    if inp in tangents:
        return tangents[inp]
    if inp.owner is None and hasattr(inp, "dtype"):
        return _ZERO  # another graph input (or constant): it does not move
    return None


def _node_tangents(node: Apply, incoming: list[Any]) -> list[Any]:
    """The tangents of ``node``'s outputs (None: disconnected; see the module docstring for
    the others) from those of its inputs."""
    pattern = node.op.connection_pattern(node)
    connected = [any(t is not None and pattern[i][j] for i, t in enumerate(incoming))
                 for j in range(len(node.outputs))]
    undefined = [any(t is _UNDEFINED and pattern[i][j] for i, t in enumerate(incoming))
                 for j in range(len(node.outputs))]
    moving = [t if isinstance(t, Variable) else None for t in incoming]
    wanted = [c and _continuous(o) and not u
              for c, o, u in zip(connected, node.outputs, undefined)]
    results: list[Any] = [None] * len(node.outputs)
    if any(wanted) and any(m is not None for m in moving):
        results = list(node.op.R_op(list(node.inputs), moving))
        if len(results) != len(node.outputs):
            raise ValueError(f"{node.op}.R_op returned {len(results)} values for "
                             f"{len(node.outputs)} outputs")
    tangents: list[Any] = []
    for j, out in enumerate(node.outputs):
        if not connected[j]:
            tangents.append(None)
        elif not _continuous(out):
            tangents.append(_ZERO)  # integer-valued: its derivative is zero
        elif undefined[j]:
            tangents.append(_UNDEFINED)
        elif results[j] is not None:
            tangents.append(_checked(node, out, results[j]))
        else:
            # No moving input feeds this output: zero. A moving input did, and the op said
            # None: the op declares the output's tangent undefined.
            feeds = any(m is not None and pattern[i][j] for i, m in enumerate(moving))
            tangents.append(_UNDEFINED if feeds else _ZERO)
    return tangents


def _continuous(var: Variable) -> bool:
    return hasattr(var, "dtype") and not dt.is_discrete(var.dtype)


def _checked(node: Apply, out: Variable, t: Any) -> Variable:
    t = as_tensor_variable(t)
    if t.ndim != out.ndim:
        raise ValueError(f"{node.op}.R_op returned a {t.ndim}-d tangent for the {out.ndim}-d "
                         f"output {out}")
    if t.dtype != out.dtype:
        t = cast(t, out.dtype)
    if t.broadcastable != out.broadcastable:
        if any(tb and not ob for tb, ob in zip(t.broadcastable, out.broadcastable)):
            t = second(out, t)  # stretch a tangent that varies along fewer axes
        t = patternbroadcast(t, out.broadcastable)
    return t
