"""``theano.clone``: a copy of a graph with some of its variables replaced."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Constant, Variable, clone_get_equiv, clone_replace, graph_inputs


def clone(output: Any, replace: Any = None, strict: bool = True, share_inputs: bool = True,
          copy_inputs: Any = None) -> Any:
    """A copy of the graph computing ``output`` (a variable or a list of them).

    ``replace`` (a dict or a list of pairs) maps variables of the graph to what the copy uses
    instead; with ``strict`` each replacement must have the type of what it replaces.
    ``share_inputs=False`` also copies the graph's free inputs (copied shared variables keep
    the same storage). ``copy_inputs`` is Theano's older name for ``not share_inputs``.
    """
    if copy_inputs is not None:
        share_inputs = not copy_inputs
    pairs = list(replace.items()) if isinstance(replace, dict) else list(replace or [])
    for old, new in pairs:
        if not isinstance(old, Variable):
            raise TypeError(f"clone: the keys of replace must be graph variables, got {old!r}")
        new_type = getattr(new, "type", None)
        if strict and isinstance(new, Variable) and new_type != old.type:
            raise TypeError(f"clone: {old} has type {old.type} but its replacement {new} has "
                            f"type {new_type}; pass strict=False to allow it")
    single = isinstance(output, Variable)
    outs = [output] if single else list(output)
    replaced = clone_replace(outs, pairs) if pairs else outs
    free = [v for v in graph_inputs(replaced) if not isinstance(v, Constant)]
    equiv = clone_get_equiv(free, replaced, copy_inputs=not share_inputs)
    result = [equiv[o] for o in replaced]
    return result[0] if single else result


__all__ = ["clone"]
