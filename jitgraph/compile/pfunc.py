"""Theano's lower-level function constructors: ``pfunc``, ``orig_function`` and
``rebuild_collect_shared`` (the graph copy ``function`` works on).

``jitgraph.function`` does all of this itself; these names exist for programs that call them.
:func:`pfunc` is ``function`` with Theano's ``params``/``output_keys`` arguments;
:func:`orig_function` compiles ``In``/``Out`` specs and, as in Theano, refuses graphs that read
shared variables not listed among its inputs; :func:`rebuild_collect_shared` copies a graph with
replacements and collects its shared variables and their updates.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.compile.function import function, update_of_type
from jitgraph.compile.io import SymbolicOutput
from jitgraph.compile.sharedvalue import shared
from jitgraph.compile.specs import convert_function_input
from jitgraph.graph.basic import Constant, Variable, graph_inputs, io_toposort
from jitgraph.graph.shared import SharedVariable


def _shared_class() -> type:
    return SharedVariable


class _Rebuilder:
    """Copies graphs node by node into ``memo`` (old variable or node -> new one), noting the
    shared variables met on the way."""

    def __init__(self, strict: bool, copy_inputs_over: bool) -> None:
        self.memo: dict[Any, Any] = {}
        self.shared: list[Variable] = []
        self.strict = strict
        self.copy_inputs_over = copy_inputs_over

    def free(self, var: Variable) -> Variable:
        """The copy of an ownerless variable: itself (constants and shared variables always;
        other inputs unless ``copy_inputs_over`` is False)."""
        if var not in self.memo:
            if isinstance(var, _shared_class()):
                if var not in self.shared:
                    self.shared.append(var)
                self.memo[var] = var
            elif isinstance(var, Constant) or self.copy_inputs_over:
                self.memo[var] = var
            else:
                self.memo[var] = var.clone()
        return self.memo[var]

    def copy(self, var: Variable) -> Variable:
        if var in self.memo:
            return self.memo[var]
        stop = {k for k in self.memo if isinstance(k, Variable)}
        for node in io_toposort(stop, [var]):
            for inp in node.inputs:
                if inp not in self.memo:
                    self.free(inp)
            new_inputs = [self.memo[i] for i in node.inputs]
            if self.strict:
                new = node.clone_with_new_inputs(new_inputs, strict=True)
            else:
                new = node.op.make_node(*new_inputs)
            self.memo[node] = new
            for old, fresh in zip(node.outputs, new.outputs):
                self.memo.setdefault(old, fresh)
        if var not in self.memo:
            self.free(var)
        return self.memo[var]


def _pairs(mapping: Any) -> list[tuple[Any, Any]]:
    if mapping is None:
        return []
    return list(mapping.items()) if hasattr(mapping, "items") else list(mapping)


def _update_value(target: Any, value: Any) -> Variable:
    if not isinstance(target, _shared_class()):
        raise TypeError(f"update target must be a shared variable, got {target}")
    return update_of_type(target, value)


def rebuild_collect_shared(outputs: Any, inputs: Sequence[Variable] | None = None,
                           replace: Any = None, updates: Any = None,
                           rebuild_strict: bool = True, copy_inputs_over: bool = True,
                           no_default_updates: Any = False) -> tuple[list, Any, list]:
    """Copy the graph of ``outputs`` (a variable, an ``Out``, or a list of them) with each key
    of ``replace`` replaced by its value, and collect what ``function`` needs.

    Returns ``(input_variables, cloned_outputs, [clone_d, update_d, update_expr,
    shared_inputs])``: the inputs in the copy (the same objects if ``copy_inputs_over``), the
    copied outputs (same structure as given), the old -> new mapping of variables and nodes,
    ``{shared variable: update expression}``, the ``(shared variable, update)`` pairs (the
    given ``updates`` first, then the ``default_update`` of each shared variable met, unless
    ``no_default_updates`` is True or lists it), and the shared variables in the order met.
    ``rebuild_strict=False`` lets a replacement change the types of what depends on it.
    """
    rebuild = _Rebuilder(rebuild_strict, copy_inputs_over)
    for old, new in _pairs(replace):
        if not isinstance(old, Variable):
            raise TypeError(f"replace keys must be variables, got {old!r}")
        if not isinstance(new, Variable):
            new = shared(new)
        copied = rebuild.copy(new)
        if rebuild_strict and old.type != copied.type:
            converted = old.type.convert_variable(copied)
            if converted is None:
                raise TypeError(f"cannot replace {old} ({old.type}) by {new} ({new.type}): the "
                                "types differ (pass rebuild_strict=False to allow it)")
            copied = converted
        rebuild.memo[old] = copied
    input_variables = [rebuild.memo.setdefault(v, v if copy_inputs_over else v.clone())
                       for v in (inputs or [])]

    def copy_output(out: Any) -> Any:
        if isinstance(out, SymbolicOutput):
            return SymbolicOutput(rebuild.copy(out.variable), borrow=out.borrow)
        if isinstance(out, Variable):
            return rebuild.copy(out)
        raise TypeError(f"outputs must be variables or Out specs, got {out!r}")

    if outputs is None:
        cloned_outputs: Any = []
    elif isinstance(outputs, (list, tuple)):
        cloned_outputs = [copy_output(o) for o in outputs]
    else:
        cloned_outputs = copy_output(outputs)

    update_d: dict[Variable, Variable] = {}
    update_expr: list[tuple[Variable, Variable]] = []
    for target, value in _pairs(updates):
        value = _update_value(target, value)
        if target in update_d:
            raise ValueError(f"shared variable {target} already has an update expression")
        rebuild.copy(target)
        update_d[target] = rebuild.copy(value)
        update_expr.append((target, update_d[target]))
    if no_default_updates is not True:
        skip = set(no_default_updates or ())
        k = 0
        while k < len(rebuild.shared):  # default updates may reach more shared variables
            var = rebuild.shared[k]
            k += 1
            default = getattr(var, "default_update", None)
            if default is None or var in update_d or var in skip:
                continue
            update_d[var] = rebuild.copy(_update_value(var, default))
            update_expr.append((var, update_d[var]))
    return (input_variables, cloned_outputs,
            [rebuild.memo, update_d, update_expr, list(rebuild.shared)])


def pfunc(params: Sequence[Any], outputs: Any = None, mode: Any = None, updates: Any = None,
          givens: Any = None, no_default_updates: Any = False, accept_inplace: bool = False,
          name: str | None = None, rebuild_strict: bool = True,
          allow_input_downcast: bool | None = None, profile: Any = None,
          on_unused_input: str | None = None, output_keys: Sequence[str] | None = None) -> Any:
    """``jitgraph.function`` under Theano's lower-level name: ``params`` are the inputs
    (variables or ``In``); with ``output_keys`` the outputs come back as a dict."""
    if output_keys is not None:
        outputs = dict(zip(output_keys, outputs))
    return function(list(params), outputs, mode=mode, updates=updates, givens=givens,
                    no_default_updates=no_default_updates, accept_inplace=accept_inplace,
                    name=name, rebuild_strict=rebuild_strict,
                    allow_input_downcast=allow_input_downcast, profile=profile,
                    on_unused_input=on_unused_input)


def orig_function(inputs: Sequence[Any], outputs: Any, mode: Any = None,
                  accept_inplace: bool = False, name: str | None = None, profile: Any = None,
                  on_unused_input: str | None = None, output_keys: Sequence[str] | None = None
                  ) -> Any:
    """Compile ``In`` specs (or what :func:`convert_function_input` accepts) to ``Out`` specs (or
    variables). Every shared variable the graph reads must be one of the inputs; updates come
    only from ``In(update=...)``."""
    specs = [convert_function_input(i) for i in inputs]
    single = not isinstance(outputs, (list, tuple))
    outs = [outputs] if single else list(outputs)
    listed = {spec.variable for spec in specs}
    needed = [o.variable if isinstance(o, SymbolicOutput) else o for o in outs]
    needed += [spec.update for spec in specs if spec.update is not None]
    for var in graph_inputs(needed):
        if isinstance(var, _shared_class()) and var not in listed:
            raise ValueError(f"the graph reads the shared variable {var}, which is not an input "
                             "of orig_function (list it, e.g. In(var, value=var.get_value()), or "
                             "use jitgraph.function)")
    if output_keys is not None:
        outs_arg: Any = dict(zip(output_keys, outs))
    else:
        outs_arg = outs[0] if single else outs
    return function(specs, outs_arg, mode=mode, accept_inplace=accept_inplace, name=name,
                    profile=profile, on_unused_input=on_unused_input, no_default_updates=True)


__all__ = ["rebuild_collect_shared", "pfunc", "orig_function"]
