"""``ifelse``: a conditional choosing between two lists of values by a scalar condition.

As built by :func:`ifelse`, an :class:`IfElse` node takes the condition and both branches'
values as inputs. When a function is compiled, the rewrite of :mod:`jitgraph.ifelse.lazy` moves
the computations only one branch needs inside a :class:`~jitgraph.ifelse.lazy.LazyIfElse`, which
runs only the branch taken. ``T.switch`` is the elementwise, eager, alternative.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.math import cast, switch
from jitgraph.tensor.shaping.shape import unbroadcast


class IfElse(Op):
    """``if cond: then_values else: else_values`` for ``n_outs`` pairs of values.

    Inputs: ``cond`` (a scalar; 0 is false), the ``n_outs`` values of the *then* branch, the
    ``n_outs`` values of the *else* branch. The outputs are copies of the chosen values (views
    when ``as_view``).
    """

    __props__ = ("n_outs", "as_view", "name")

    def __init__(self, n_outs: int, as_view: bool = False, name: str | None = None) -> None:
        self.n_outs = int(n_outs)
        self.as_view = bool(as_view)
        self.name = name
        if as_view:  # output k is the then value 1 + k or the else value 1 + n_outs + k
            object.__setattr__(self, "view_map",
                               {k: [1 + k, 1 + self.n_outs + k] for k in range(self.n_outs)})

    def __str__(self) -> str:
        args = ([self.name] if self.name else []) + (["inplace"] if self.as_view else [])
        return f"if{{{','.join(args)}}}"

    __repr__ = __str__

    def make_node(self, cond: Any, *values: Any) -> Apply:
        if len(values) != 2 * self.n_outs:
            raise ValueError(f"{self} takes a condition and {2 * self.n_outs} values, got "
                             f"{len(values)}")
        cond = as_condition(cond)
        values = [v if isinstance(v, Variable) else as_tensor_variable(v) for v in values]
        then_vals, else_vals = values[:self.n_outs], values[self.n_outs:]
        for k, (t, e) in enumerate(zip(then_vals, else_vals)):
            if t.type != e.type:
                raise TypeError(f"output {k} of {self}: the then branch gives {t.type} and the "
                                f"else branch {e.type}; both branches must give the same type")
        return Apply(self, [cond, *values], [t.type() for t in then_vals])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        n = self.n_outs
        chosen = inputs[1:1 + n] if truthy(inputs[0]) else inputs[1 + n:]
        for cell, value in zip(output_storage, chosen):
            cell[0] = value if self.as_view else _copy(value)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        n = self.n_outs
        cond = node.inputs[0]
        shapes = []
        for then_shape, else_shape in zip(input_shapes[1:1 + n], input_shapes[1 + n:]):
            if then_shape is None or else_shape is None:
                raise NotImplementedError("a branch value without a shape")
            shapes.append(tuple(t if t is e else _choose_dim(cond, t, e)
                                for t, e in zip(then_shape, else_shape)))
        return shapes

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n = self.n_outs
        # the condition is connected, with a zero gradient (Theano's): a cost reading a
        # parameter only through a condition has gradient 0 there, not a disconnected input
        pattern = [[True] * n]
        for k in range(2 * n):
            pattern.append([j == k % n for j in range(n)])
        return pattern

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        n = self.n_outs
        cond = inputs[0]
        then_vals, else_vals = inputs[1:1 + n], inputs[1 + n:]
        grads = [cast(g, v.dtype) if g.dtype != v.dtype else g
                 for g, v in zip(output_grads, then_vals)]
        to_then = ifelse(cond, grads, [zeros_like(v) for v in then_vals], return_list=True)
        to_else = ifelse(cond, [zeros_like(v) for v in else_vals], grads, return_list=True)
        return [zeros_like(cond, dtype=config.floatX), *to_then, *to_else]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        n = self.n_outs
        points = [p if p is not None else zeros_like(v)
                  for p, v in zip(eval_points[1:], inputs[1:])]
        return ifelse(inputs[0], points[:n], points[n:], return_list=True)


def _choose_dim(cond: Variable, then_dim: Any, else_dim: Any) -> Variable:
    return switch(cond, as_tensor_variable(then_dim), as_tensor_variable(else_dim))


def _copy(value: Any) -> Any:
    return value.copy() if hasattr(value, "copy") else copy.deepcopy(value)


def truthy(cond: Any) -> bool:
    """Whether a condition's value (a 0-d array) is true."""
    return bool(cond)


def as_condition(cond: Any) -> Variable:
    """``cond`` as a scalar tensor variable, or a TypeError saying what was expected."""
    var = cond if isinstance(cond, Variable) else as_tensor_variable(cond)
    if getattr(var.type, "ndim", None) != 0:
        raise TypeError(f"the condition of ifelse must be a scalar (0 for false, anything else "
                        f"for true), got {var} of type {var.type}; use T.switch for an "
                        "elementwise choice")
    return var


def ifelse(condition: Any, then_branch: Any, else_branch: Any, name: str | None = None,
           return_list: bool = False) -> Any:
    """``then_branch`` if the scalar ``condition`` is true (nonzero), else ``else_branch``.

    Each branch is a variable or a list of variables (both of the same length, with pairwise
    equal types; values of one branch that are more broadcastable than the other's are
    unbroadcast to match). Compiled functions evaluate only the branch taken (see
    :mod:`jitgraph.ifelse.lazy`). Returns a variable, or a list when the branches are lists.
    """
    then_list = list(then_branch) if isinstance(then_branch, (list, tuple)) else [then_branch]
    else_list = list(else_branch) if isinstance(else_branch, (list, tuple)) else [else_branch]
    if len(then_list) != len(else_list):
        raise ValueError(f"ifelse: the then branch has {len(then_list)} value(s) and the else "
                         f"branch {len(else_list)}; both must give the same number")
    if not then_list:
        raise ValueError("ifelse needs at least one value per branch")
    pairs = []
    for k, (t, e) in enumerate(zip(then_list, else_list)):
        t = t if isinstance(t, Variable) else as_tensor_variable(t)
        e = e if isinstance(e, Variable) else as_tensor_variable(e)
        pairs.append(_same_type(k, t, e))
    op = IfElse(len(pairs), name=name)
    outs = op(as_condition(condition), *[t for t, _ in pairs], *[e for _, e in pairs])
    outs = outs if isinstance(outs, list) else [outs]
    if return_list or isinstance(then_branch, (list, tuple)):
        return outs
    return outs[0]


def _same_type(k: int, t: Variable, e: Variable) -> tuple[Variable, Variable]:
    """Make both values of pair ``k`` of one type, or raise a TypeError naming both."""
    if t.type == e.type:
        return t, e
    t_dtype, e_dtype = getattr(t.type, "dtype", None), getattr(e.type, "dtype", None)
    if type(t.type) is not type(e.type) or not hasattr(t.type, "broadcastable"):
        raise TypeError(f"ifelse: value {k} is {t.type} in the then branch but {e.type} in the "
                        "else branch; both branches must give values of one type (a dense and a "
                        "sparse matrix, or two sparse formats, do not mix: convert one of them)")
    if t_dtype != e_dtype or getattr(t.type, "ndim", None) != getattr(e.type, "ndim", None):
        raise TypeError(f"ifelse: value {k} is {t.type} in the then branch but {e.type} in the "
                        "else branch; both branches must give the same dtype and number of "
                        "dimensions (cast one of them)")

    common = tuple(a and b for a, b in zip(t.type.broadcastable, e.type.broadcastable))

    def loosen(v: Variable) -> Variable:
        axes = [d for d, (b, c) in enumerate(zip(v.type.broadcastable, common)) if b and not c]
        return unbroadcast(v, *axes) if axes else v

    return loosen(t), loosen(e)
