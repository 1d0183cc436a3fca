"""Memory aliasing between a function's inputs and outputs (Theano's ``function_module`` tools).

Ops declare which outputs are views of (``view_map``) or overwrite (``destroy_map``) which
inputs. From that:

* :func:`alias_root` follows a variable up to the variable that owns its memory;
* :func:`view_tree_set` collects every variable sharing a root's memory;
* :func:`infer_reuse_pattern` lists the computed variables that may share memory with given
  outputs;
* :func:`insert_deepcopy` makes sure no output of a FunctionGraph shares memory with an input or
  with another output (a ``deep_copy_op``, or a ``view_op`` where both sides are borrowed);
* :class:`Supervisor` is a feature refusing rewrites that would overwrite protected variables;
* :func:`shares_memory` tells whether two values (host or device arrays, sparse matrices, any
  object) may overlap, for the checks made on values: a call copying an input that shares memory
  with a mutable one, DebugMode's view checks.

jitgraph variables carry no client lists (the FunctionGraph holds them), so
:func:`view_tree_set` takes the graph as a third argument.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from jitgraph.compile.ops import deep_copy_op, view_op
from jitgraph.graph.basic import Apply, Variable, graph_inputs
from jitgraph.graph.fg import OUTPUT, Feature, FunctionGraph, InconsistencyError


class AliasedMemoryError(Exception):
    """Memory is aliased where it must not be (e.g. two inputs sharing an array that the
    function may overwrite)."""


def alias_root(v: Variable) -> Variable:
    """The variable whose memory ``v`` uses: ``v`` followed up through views and in-place
    outputs. Raises NotImplementedError for an output declared a view of several inputs."""
    while v.owner is not None:
        op = v.owner.op
        sources = list(op.view_map.get(v.index, ())) + list(op.destroy_map.get(v.index, ()))
        if not sources:
            return v
        if len(sources) > 1:
            raise NotImplementedError(f"{v} is a view or in-place result of several inputs of "
                                      f"{op}; only one source per output is supported")
        v = v.owner.inputs[sources[0]]
    return v


def view_tree_set(v: Variable, treeset: set, fgraph: FunctionGraph | None = None) -> set:
    """Add to ``treeset`` ``v`` and every variable of ``fgraph`` that is (transitively) a view
    or an in-place result of it; returns ``treeset``."""
    if fgraph is None:
        raise TypeError("view_tree_set(v, treeset, fgraph): jitgraph keeps client lists in the "
                        "FunctionGraph, not on variables; pass the graph that holds v")
    stack = [v]
    while stack:
        var = stack.pop()
        if var in treeset:
            continue
        treeset.add(var)
        for client, i in fgraph.clients.get(var, ()):
            if client == OUTPUT:
                continue
            for out_idx, in_idxs in list(client.op.view_map.items()) + \
                    list(client.op.destroy_map.items()):
                if i in in_idxs:
                    stack.append(client.outputs[out_idx])
    return treeset


def infer_reuse_pattern(fgraph: FunctionGraph, outputs_to_disown: Iterable[Variable]
                        ) -> set[Variable]:
    """The computed variables that may share memory with any of ``outputs_to_disown``."""
    found: set[Variable] = set()
    for out in outputs_to_disown:
        view_tree_set(alias_root(out), found, fgraph)
    return {v for v in found if v.owner is not None}


def _alias_roots(v: Variable) -> list[Variable]:
    """Every variable whose memory ``v`` may use (:func:`alias_root` for outputs that view
    several inputs, such as a sparse matrix built from three arrays)."""
    roots, pending, seen = [], [v], set()
    while pending:
        var = pending.pop()
        if var in seen:
            continue
        seen.add(var)
        op = var.owner.op if var.owner is not None else None
        sources = [] if op is None else \
            list(op.view_map.get(var.index, ())) + list(op.destroy_map.get(var.index, ()))
        if sources:
            pending.extend(var.owner.inputs[k] for k in sources)
        else:
            roots.append(var)
    return roots


def _destroyed_roots(fgraph: FunctionGraph) -> set[Variable]:
    """The roots of the values in-place nodes of ``fgraph`` overwrite."""
    roots: set[Variable] = set()
    for node in fgraph.apply_nodes:
        for in_idxs in node.op.destroy_map.values():
            for i in in_idxs:
                roots.update(_alias_roots(node.inputs[i]))
    return roots


def _wrap_output(fgraph: FunctionGraph, i: int, borrowed: bool) -> None:
    old = fgraph.outputs[i]
    new = (view_op if borrowed else deep_copy_op)(old)
    new.name = old.name  # the output keeps its name, as Theano's graphs did
    fgraph.change_node_input(OUTPUT, i, new, reason="insert_deepcopy")


def insert_deepcopy(fgraph: FunctionGraph, wrapped_inputs: Sequence[Any],
                    wrapped_outputs: Sequence[Any]) -> None:
    """Wrap each output of ``fgraph`` that shares memory with a later output or with a graph
    input (a constant, an input or a shared variable) in ``deep_copy_op``, or in ``view_op`` when
    both sides are borrowed (``borrow`` of the In/Out specs ``wrapped_inputs`` and
    ``wrapped_outputs``, one per graph input and output).

    Inputs whose value the function updates, or that an in-place node overwrites anyway, may
    stay aliased.
    """
    updated = {var for spec, var in zip(wrapped_inputs, fgraph.inputs)
               if getattr(spec, "update", None) is not None}
    destroyed = _destroyed_roots(fgraph)
    sources = [v for v in graph_inputs(fgraph.outputs) if v not in updated]
    for i in range(len(fgraph.outputs)):
        aliases = view_tree_set(alias_root(fgraph.outputs[i]), set(), fgraph)
        out_borrow = bool(getattr(wrapped_outputs[i], "borrow", False))
        later = [j for j in range(i + 1, len(fgraph.outputs)) if fgraph.outputs[j] in aliases]
        if later:
            other_borrow = bool(getattr(wrapped_outputs[later[0]], "borrow", False))
            _wrap_output(fgraph, i, out_borrow and other_borrow)
            continue
        for src in sources:
            if src not in aliases or src in destroyed:
                continue
            if src in fgraph.inputs:
                in_spec = wrapped_inputs[fgraph.inputs.index(src)]
                borrowed = out_borrow and bool(getattr(in_spec, "borrow", False))
            else:
                borrowed = out_borrow
            _wrap_output(fgraph, i, borrowed)
            break


def outputs_to_copy(fgraph: FunctionGraph, n_returned: int, returned_borrow: Sequence[bool],
                    input_borrow: Sequence[bool], updated: Iterable[Variable]) -> list[bool]:
    """Which outputs of ``fgraph`` a call must copy before handing them over: the first
    ``n_returned`` go to the caller (``returned_borrow``: their ``Out(borrow=...)``), the rest
    are update values stored as shared variables' or inputs' new values.

    A value is copied when it shares memory (through views and in-place results) with a later
    output, or with a graph input or constant, so that no two pieces of state, and no state and
    the caller's arrays, end up in one buffer: an in-place update of one would silently change
    the other. An update value may keep the memory of an ``updated`` input (a state that is
    replaced anyway) or of an input an in-place node overwrites (passed mutable). A returned
    output is never left sharing an input's memory unless both are borrowed (``input_borrow``,
    one per graph input; shared variables count as borrowed) -- nor, if it is borrowed, a
    constant's.
    """
    updated = set(updated)
    destroyed = _destroyed_roots(fgraph)
    sources = graph_inputs(fgraph.outputs)
    outputs = fgraph.outputs
    flags = []
    for i, out in enumerate(outputs):
        aliases: set[Variable] = set()
        for root in _alias_roots(out):
            view_tree_set(root, aliases, fgraph)
        returned = i < n_returned
        borrowed = returned and bool(returned_borrow[i])
        later = [j for j in range(i + 1, len(outputs)) if outputs[j] in aliases]
        if later:
            flags.append(not (borrowed and later[0] < n_returned
                              and returned_borrow[later[0]]))
            continue
        copy = False
        for src in sources:
            if src not in aliases:
                continue
            if not returned and (src in updated or src in destroyed):
                continue
            if src in fgraph.inputs:
                copy = not (borrowed and input_borrow[fgraph.inputs.index(src)])
            else:
                copy = not borrowed
            if copy:
                break
        flags.append(copy)
    return flags


class Supervisor(Feature):
    """Refuses any graph in which an in-place node overwrites one of ``protected`` (or a
    graph output): attach it to a FunctionGraph that has a DestroyHandler."""

    def __init__(self, protected: Iterable[Variable]) -> None:
        self.protected = list(protected)

    def validate(self, fgraph: FunctionGraph) -> None:
        if getattr(fgraph, "destroy_handler", None) is None:
            return  # no in-place bookkeeping: nothing can be overwritten
        guarded = set(self.protected) | set(fgraph.outputs)
        for node in fgraph.apply_nodes:
            for in_idxs in node.op.destroy_map.values():
                for i in in_idxs:
                    victim = _victim(fgraph, node, i, guarded)
                    if victim is not None:
                        raise InconsistencyError(f"{node} would overwrite the protected "
                                                 f"variable {victim}")


def _victim(fgraph: FunctionGraph, node: Apply, i: int, guarded: set[Variable]
            ) -> Variable | None:
    """A guarded variable holding the value input ``i`` of ``node`` overwrites: the value's
    root through views, or any view of that root (the in-place result is a new value)."""
    roots, pending = [], [node.inputs[i]]
    while pending:  # up every view chain (an ifelse's output views both of its branches)
        var = pending.pop()
        parents = var.owner.op.view_map.get(var.index) if var.owner is not None else None
        if parents:
            pending.extend(var.owner.inputs[j] for j in parents)
        else:
            roots.append(var)
    stack, seen = roots, set()
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        if var in guarded:
            return var
        for client, k in fgraph.clients.get(var, ()):
            if client == OUTPUT:
                continue
            stack.extend(client.outputs[o] for o, ins in client.op.view_map.items() if k in ins)
    return None


def memory_range(value: Any) -> tuple[int, int] | None:
    """(first, last) byte addresses of an array's buffer (host or device), or None."""
    if isinstance(value, np.generic):
        # a NumPy scalar is immutable: its __array_interface__ is a temporary copy's, whose
        # freed address another temporary may reuse (a false alias)
        return None
    iface = getattr(value, "__array_interface__", None)
    if iface is None:
        iface = getattr(value, "__cuda_array_interface__", None)
    if iface is None or getattr(value, "size", 0) == 0:
        return None
    low = high = iface["data"][0]
    itemsize = np.dtype(value.dtype).itemsize
    for n, stride in zip(value.shape, value.strides):
        if stride > 0:
            high += (n - 1) * stride
        else:
            low += (n - 1) * stride
    return low, high + itemsize


def shares_memory(a: Any, b: Any) -> bool:
    """Whether two arrays (host or device) may overlap in memory."""
    if a is None or b is None:
        return False
    if a is b:
        return True
    if hasattr(a, "getnnz") or hasattr(b, "getnnz"):  # a sparse matrix: its three arrays
        parts_a = (a.data, a.indices, a.indptr) if hasattr(a, "getnnz") else (a,)
        parts_b = (b.data, b.indices, b.indptr) if hasattr(b, "getnnz") else (b,)
        return any(shares_memory(x, y) for x in parts_a for y in parts_b)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))
    ra, rb = memory_range(a), memory_range(b)
    return ra is not None and rb is not None and ra[0] < rb[1] and rb[0] < ra[1]


__all__ = ["AliasedMemoryError", "alias_root", "view_tree_set", "infer_reuse_pattern",
           "insert_deepcopy", "outputs_to_copy", "Supervisor", "memory_range", "shares_memory"]
