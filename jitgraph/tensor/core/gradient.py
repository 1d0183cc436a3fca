"""Reverse-mode differentiation: ``grad`` and the pieces of its contract.

``grad(cost, wrt)`` walks the graph from the cost back to ``wrt``, asking each op for the
gradients of its inputs (``op.L_op`` / ``op.grad``). Two questions are kept apart, as in Theano:

* *Is* ``wrt`` connected to the cost? Decided by the graph's structure and the ops'
  ``connection_pattern``: ``floor(x)`` is connected to ``x`` (its gradient is zero),
  ``x.shape`` or ``ones_like(x)`` are not. A disconnected ``wrt`` raises
  :class:`DisconnectedInputError` unless ``disconnected_inputs`` says otherwise.
* *What is* the gradient? The sum of the terms the ops return. An op returns None (or a
  :class:`~jitgraph.graph.gradient_types.DisconnectedType` variable) for "no term", and a
  :class:`~jitgraph.graph.gradient_types.NullType` variable (:func:`grad_undefined`,
  :func:`grad_not_implemented`) for a gradient that does not exist; a null gradient that reaches
  a ``wrt`` raises :class:`NullTypeGradError` unless ``null_gradients='return'``.

Gradients never flow through integer-valued variables computed by ops (their derivative is
zero), but an integer ``wrt`` gets the derivative of the continuous-valued ops that use it, as
in Theano (``grad(dot(X, W).sum(), X)`` for an integer ``X`` equals the gradient for a float
``X``: the ops' gradient rules ask their output's dtype, not their inputs'). Variables in
``consider_constant`` are treated as constants.
"""

from __future__ import annotations

import functools
import operator
import traceback
import warnings
from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable, graph_inputs, io_toposort
from jitgraph.graph.gradient_types import (DisconnectedType, NullType, disconnected_type,
                                           is_disconnected, is_null)
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.math import add, cast, second
from jitgraph.tensor.shaping.shape import patternbroadcast


class DisconnectedInputError(ValueError):
    """``grad`` (or ``Rop``) was asked for a gradient with respect to a variable the cost does
    not depend on, or depends on only through non-differentiable operations."""


class NullTypeGradError(TypeError):
    """A requested gradient is undefined or not implemented (a NullType reached it)."""


class GradientArgumentError(ValueError, AssertionError):
    """A gradient function got arguments it cannot use (Theano raised AssertionError)."""


_DISCONNECTED_CHOICES = "valid values are 'ignore', 'warn' and 'raise'."


# ---------------------------------------------------------------------------------------------
# What ops return for gradients that do not exist

def grad_not_implemented(op: Any, x_pos: int, x: Variable, comment: str = "") -> Variable:
    """A NullType variable an op's ``grad`` returns for input ``x_pos`` (``x``) when the
    gradient exists but is not implemented."""
    return NullType(f"This variable is Null because the grad method for input {x_pos} ({x}) "
                    f"of the {op} op is not implemented. {comment}")()


def grad_undefined(op: Any, x_pos: int, x: Variable, comment: str = "") -> Variable:
    """A NullType variable an op's ``grad`` returns for input ``x_pos`` (``x``) when the
    gradient is mathematically undefined."""
    return NullType(f"This variable is Null because the grad method for input {x_pos} ({x}) "
                    f"of the {op} op is mathematically undefined. {comment}")()


def format_as(use_list: bool, use_tuple: bool, outputs: Any) -> Any:
    """``outputs`` as a list, a tuple, or (both flags False) its single element."""
    if use_list and use_tuple:
        raise GradientArgumentError("Both flags cannot be simultaneously True")
    if use_list or use_tuple:
        seq = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        return seq if use_list else tuple(seq)
    if isinstance(outputs, (list, tuple)):
        if len(outputs) != 1:
            raise GradientArgumentError("Wrong arguments. Expected a one element list")
        return outputs[0]
    return outputs


def variable_trace_text(var: Variable) -> str:
    """Where ``var`` was created (the user's stack), or '' when that was not recorded."""
    trace = getattr(var.tag, "trace", None)
    if not trace:
        return ""
    frames = trace[-1] if isinstance(trace[0], list) else trace
    return "\nBacktrace when that variable is created:\n\n" + "".join(
        traceback.format_list(frames))


def handle_disconnected(var: Any, policy: str, message: str) -> None:
    """Apply ``policy`` ('raise', 'warn', 'ignore') to the disconnected ``var``."""
    if policy == "ignore":
        return
    if policy == "warn":
        warnings.warn(message, stacklevel=4)
    elif policy == "raise":
        trace = variable_trace_text(var) if isinstance(var, Variable) else ""
        raise DisconnectedInputError(message + trace)
    else:
        raise ValueError(f"Invalid value for keyword 'disconnected_inputs', "
                         f"{_DISCONNECTED_CHOICES}")


def disconnected_result(var: Variable, policy: str) -> Any:
    """What ``grad``/``Rop`` return for a disconnected ``var``: zeros, None or a
    DisconnectedType variable (``return_disconnected``)."""
    if policy == "zero":
        return zeros_for(var)
    if policy == "None":
        return None
    if policy == "Disconnected":
        return disconnected_type()
    raise GradientArgumentError("Invalid value for keyword 'return_disconnected', valid values "
                                "are 'zero', 'None' and 'Disconnected'.")


def zeros_for(var: Variable) -> Variable | None:
    """Zeros shaped like ``var``, in its dtype (floatX for integer variables)."""
    if not hasattr(var, "dtype"):
        return None
    if _is_sparse(var):
        return var.zeros_like()

    dtype = var.dtype if not dt.is_discrete(var.dtype) else dt.floatx()
    return second(var, constant(np.zeros((), dtype=dtype)))


# ---------------------------------------------------------------------------------------------
# grad

def grad(cost: Any, wrt: Any, consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True,
         known_grads: dict | None = None, return_disconnected: str = "zero",
         null_gradients: str = "raise", *, accumulate_known: bool = False) -> Any:
    """Symbolic gradient of the scalar ``cost`` with respect to ``wrt`` (a variable, or a list
    or tuple of them: the result has the same form).

    ``consider_constant``: variables treated as constants (no gradient flows through them).
    ``known_grads``: {variable: its gradient} supplied by the caller (``cost`` may then be None).
    As in Theano, a known gradient is the variable's whole gradient: what flows back to it
    from the cost or from other known variables is dropped. ``accumulate_known=True`` adds
    it instead (the gradient of ``sum_k <known variable_k, gradient_k>``, for outputs of one
    inner graph that depend on each other).
    ``disconnected_inputs``: 'raise', 'warn' or 'ignore' for a ``wrt`` the cost does not
    depend on; ``return_disconnected``: what to return for it ('zero', 'None',
    'Disconnected'). ``null_gradients``: 'raise' (:class:`NullTypeGradError`) or 'return'
    (the NullType variable) for an undefined gradient. ``add_names`` names each gradient
    ``(dcost/dwrt)`` when both are named.
    """
    if cost is None and known_grads is None:
        raise GradientArgumentError("cost and known_grads can't both be None.")
    wrt_list = _wrt_variables(wrt)
    blocked = _constant_set(consider_constant)
    seeds = _initial_gradients(cost, known_grads)
    graph = _GradientGraph(list(seeds), wrt_list, blocked)
    contributions = graph.backpropagate(seeds, accumulate_known)
    results = []
    for w in wrt_list:
        if w not in graph.reached:
            message = ("grad method was asked to compute the gradient with respect to a variable "
                       "that is not part of the computational graph of the cost, or is used "
                       f"only by a non-differentiable operator: {w}")
            handle_disconnected(w, disconnected_inputs, message)
            results.append(disconnected_result(w, return_disconnected))
            continue
        results.append(_finish(w, contributions.get(w), cost, add_names, null_gradients))
    return format_as(isinstance(wrt, list), isinstance(wrt, tuple), results)


def _wrt_variables(wrt: Any) -> list[Variable]:
    items = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    for w in items:
        if not isinstance(w, Variable):
            raise TypeError(f"Expected Variable, got {w} of type {type(w)}")
    return items


def _constant_set(consider_constant: Any) -> set[Variable]:
    if consider_constant is None:
        return set()
    if isinstance(consider_constant, Variable):
        raise TypeError("consider_constant must be a list of variables, got the single "
                        f"variable {consider_constant}; pass [{consider_constant}]")
    blocked = set()
    for elem in consider_constant:
        if not isinstance(elem, Variable):
            raise TypeError("Elements of consider_constant must be variables, but got "
                            f"{type(elem)}")
        blocked.add(elem)
    return blocked


def _initial_gradients(cost: Any, known_grads: dict | None) -> dict[Variable, Variable]:
    seeds: dict[Variable, Variable] = {}
    if known_grads is not None and not hasattr(known_grads, "items"):
        raise TypeError("known_grads must be a dict {variable: its gradient}, got "
                        f"{type(known_grads).__name__}")
    for var, g in (known_grads or {}).items():
        if not isinstance(var, Variable):
            raise TypeError(f"the keys of known_grads must be variables, got {var!r}")
        if not isinstance(g, Variable):
            raise TypeError("output grads must be theano variables.Ambiguous whether "
                            f"{type(g)} should be made into tensor or sparse theano variable")
        if not (is_null(g) or is_disconnected(g)) and dt.is_discrete(getattr(g, "dtype", "")):
            raise TypeError("Gradients must always be NullType, DisconnectedType, or "
                            f"continuous, but grad was given a known_grad of type {g.type}")
        seeds[var] = g
    if cost is not None:
        cost = cost if isinstance(cost, Variable) else as_tensor_variable(cost)
        if getattr(cost, "ndim", 0) != 0:
            raise TypeError("cost must be a scalar.")
        if cost not in seeds:
            one_dtype = cost.dtype if not dt.is_discrete(cost.dtype) else dt.floatx()
            seeds[cost] = _fill(cost, constant(np.ones((), dtype=one_dtype)))
    return {v: g for v, g in seeds.items() if not is_disconnected(g)}


def _fill(var: Variable, value: Variable) -> Variable:
    """``value`` (0-d) in the shape of ``var``: Theano's ``fill(cost, 1.0)`` seed, which the
    rewrites remove."""
    return second(var, value)


class _GradientGraph:
    """The part of the graph between ``wrt`` and the seeded outputs, with which variables
    depend on ``wrt`` (forward) and which are reached from the outputs (backward)."""

    def __init__(self, outputs: list[Variable], wrt: list[Variable], blocked: set[Variable]
                 ) -> None:
        # consider_constant variables are leaves: their owners are never visited.
        self.order = io_toposort(graph_inputs(outputs, blocked), outputs)
        self.patterns = {node: node.op.connection_pattern(node) for node in self.order}
        self.depends: set[Variable] = set(wrt)
        for node in self.order:
            pattern = self.patterns[node]
            for j, out in enumerate(node.outputs):
                if any(inp in self.depends and pattern[i][j]
                       for i, inp in enumerate(node.inputs)):
                    self.depends.add(out)
        self.reached: set[Variable] = {o for o in outputs if o in self.depends}

    def backpropagate(self, seeds: dict[Variable, Variable], accumulate_seeds: bool = False
                      ) -> dict[Variable, list[Variable]]:
        contributions: dict[Variable, list[Variable]] = {
            v: [g] for v, g in seeds.items() if v in self.depends}
        for node in reversed(self.order):
            inputs_reached = self._reach(node)
            if not inputs_reached:
                continue
            for inp, g in zip(node.inputs, self._input_gradients(node, contributions)):
                if inp in inputs_reached and g is not None and (accumulate_seeds
                                                                 or inp not in seeds):
                    contributions.setdefault(inp, []).append(g)
        return contributions

    def _reach(self, node: Apply) -> set[Variable]:
        """Mark and return the inputs of ``node`` connected to a reached output."""
        pattern = self.patterns[node]
        found = set()
        for i, inp in enumerate(node.inputs):
            if inp in self.depends and any(pattern[i][j] and out in self.reached
                                           for j, out in enumerate(node.outputs)):
                found.add(inp)
        self.reached |= found
        return found

    def _input_gradients(self, node: Apply, contributions: dict) -> list[Any]:
        # An integer output passes no gradient back, except through the ops that declare
        # ``grad_through_integer_outputs`` (Theano's Reshape, Sort, CumOp, Max and
        # AdvancedSubtensor1 apply their rule whatever the dtype).
        # An undefined gradient reaches every input, whatever the dtype (Theano's rule).
        through = getattr(node.op, "grad_through_integer_outputs", False)
        totals = [_total(contributions[o]) if o in contributions else None
                  for o in node.outputs]
        totals = [g if g is not None and (through or _continuous(o) or is_null(g)) else None
                  for o, g in zip(node.outputs, totals)]
        nulls = [g for g in totals if g is not None and is_null(g)]
        if nulls:
            # An undefined output gradient makes every connected input's gradient undefined.
            pattern = self.patterns[node]
            return [nulls[0] if any(pattern[i][j] and totals[j] is not None and is_null(totals[j])
                                    for j in range(len(totals))) else None
                    for i in range(len(node.inputs))]
        if all(g is None for g in totals) and not getattr(node.op, "grad_always_undefined", False):
            return [None] * len(node.inputs)  # only zero (or integer) gradients arrive
        # (ops with grad_always_undefined, such as undefined_grad, still answer a zero gradient
        # with their null one, as Theano's grad asks every op on the path)
        output_grads = [g if g is not None else _no_gradient(o)
                        for o, g in zip(node.outputs, totals)]
        raw = node.op.L_op(node.inputs, node.outputs, output_grads)
        if len(raw) != len(node.inputs):
            raise ValueError(f"{node.op}.grad returned {len(raw)} gradients for "
                             f"{len(node.inputs)} inputs")
        return [_checked_term(node, inp, g) for inp, g in zip(node.inputs, raw)]


def _no_gradient(var: Variable) -> Variable:
    """What an op receives for an output without gradient: zeros (a DisconnectedType for
    non-tensor outputs)."""
    zeros = zeros_for(var)
    return disconnected_type() if zeros is None else zeros


def _continuous(var: Variable) -> bool:
    return not dt.is_discrete(getattr(var, "dtype", "float64"))


def _checked_term(node: Apply, inp: Variable, g: Any) -> Variable | None:
    if g is None or is_disconnected(g):
        return None
    if is_null(g):
        return g
    if not _is_sparse(g):  # a sparse gradient stays sparse
        g = as_tensor_variable(g)
    if hasattr(inp, "ndim") and g.ndim != inp.ndim:
        raise ValueError(f"{node.op}.grad returned a term with {g.ndim} dimensions, but "
                         f"{inp.ndim} are required.")
    return g


def _total(terms: list[Variable]) -> Variable:
    nulls = [t for t in terms if is_null(t)]
    if nulls:
        return nulls[0]
    if len(terms) == 1:
        return terms[0]
    if any(_is_sparse(t) for t in terms):  # sparse + dense: the sparse operand's addition
        sparse_first = sorted(terms, key=lambda t: not _is_sparse(t))
        return functools.reduce(operator.add, sparse_first)

    return add(*terms)


def _is_sparse(var: Any) -> bool:
    return getattr(getattr(var, "type", None), "is_sparse", False)


def _finish(w: Variable, terms: list[Variable] | None, cost: Any, add_names: bool,
            null_gradients: str) -> Any:
    if not terms:
        return zeros_for(w)  # connected, but every path has a zero gradient
    g = _total(terms)
    if is_null(g):
        if null_gradients == "raise":
            raise NullTypeGradError(f"tensor.grad encountered a NaN. {g.type.why_null}")
        if null_gradients != "return":
            raise GradientArgumentError(f"null_gradients must be 'raise' or 'return', got "
                                        f"{null_gradients!r}")
        return g
    if hasattr(w, "dtype"):
        if g.dtype != w.dtype and not dt.is_discrete(w.dtype):
            g = g.astype(w.dtype) if _is_sparse(g) else cast(g, w.dtype)
        if _is_sparse(g) or _is_sparse(w):
            pass  # sparse matrices have no broadcastable pattern
        elif g.broadcastable != w.broadcastable and g.ndim == w.ndim:
            g = patternbroadcast(g, w.broadcastable)
    if add_names and getattr(cost, "name", None) and w.name:
        g.name = f"(d{cost.name}/d{w.name})"
    return g


__all__ = ["DisconnectedInputError", "DisconnectedType", "GradientArgumentError", "NullType",
           "NullTypeGradError", "format_as", "grad", "grad_not_implemented", "grad_undefined"]
