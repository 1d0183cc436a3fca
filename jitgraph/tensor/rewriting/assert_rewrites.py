"""Rewrites of :class:`~jitgraph.tensor.core.assertion.Assert` (Theano's names).

* ``local_remove_useless_assert`` drops the conditions that are constants known to be true
  (and the Assert with them when none is left); a condition known to be false stays, so the
  function still raises.
* ``local_remove_all_assert`` (tag ``unsafe``: ``optimizer='unsafe'``, or
  ``mode.including('local_remove_all_assert')``) drops every Assert, trading the checks for
  speed.

Imported before rewriting once the Assert op's module is (``FAMILY_REWRITE_MODULES``).
"""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import (register_canonicalize, register_specialize,
                                     register_stabilize)
from jitgraph.tensor.core.basic import NotScalarConstantError, get_scalar_constant_value
from jitgraph.tensor.core.assertion import Assert

__all__ = ["local_remove_useless_assert", "local_remove_all_assert"]


def _known_true(cond: Variable) -> bool:
    try:
        return bool(get_scalar_constant_value(cond))
    except NotScalarConstantError:
        return False


@register_canonicalize
@register_stabilize
@register_specialize
@node_rewriter([Assert])
def local_remove_useless_assert(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Conditions that are true constants are dropped; an Assert left without one is its
    value."""
    value, *conds = node.inputs
    kept = [c for c in conds if not _known_true(c)]
    if len(kept) == len(conds):
        return None
    if not kept:
        return [value]
    return [node.op(value, *kept)]


@register_canonicalize("unsafe")
@register_specialize("unsafe")
@node_rewriter([Assert])
def local_remove_all_assert(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """(unsafe) Every Assert is its value: the run-time checks are gone."""
    return [node.inputs[0]]
