"""Function graphs from input and output specifications (Theano's ``function_module`` helpers).

* :func:`convert_function_input` turns what ``function`` accepts as an input (a variable, an
  ``In``, Theano's old tuple forms) into an ``In``;
* :func:`std_fgraph` builds the FunctionGraph of ``In``/``Out`` specs, the ``update`` of each
  input appended as an extra output;
* :func:`fgraph_updated_vars` pairs the inputs of such a graph with their update outputs;
* :func:`get_info_on_inputs` describes which inputs may be passed by keyword.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.compile.aliasing import Supervisor
from jitgraph.compile.io import In, SymbolicInput, SymbolicOutput
from jitgraph.graph.basic import Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.destroyhandler import DestroyHandler


def convert_function_input(input: Any) -> Any:
    """``input`` as an ``In``: a variable; an ``In``/``SymbolicInput`` (returned as is); or
    Theano's tuples ``(variable, value)``, ``((variable, update), value)`` and
    ``(name, ...)`` / ``(In, value)``."""
    if isinstance(input, SymbolicInput):
        return input
    if isinstance(input, Constant):
        raise TypeError(f"a constant ({input}) cannot be a function input")
    if isinstance(input, Variable):
        return In(input)
    if not isinstance(input, (list, tuple)) or not input:
        raise TypeError(f"unknown function input {input!r}: expected a variable, an In, or a "
                        "tuple (variable, value)")
    items = list(input)
    name = items.pop(0) if isinstance(items[0], str) else None
    first = items[0] if items else None
    if isinstance(first, SymbolicInput):
        if len(items) == 1:
            return first
        if len(items) != 2:
            raise TypeError(f"expected (In, value), got {input!r}")
        spec = first
        if name is not None:
            spec.name = name
        spec.value = items[1]
        return spec
    if isinstance(first, (list, tuple)):
        if len(first) != 2 or len(items) != 2:
            raise TypeError(f"expected ((variable, update), value), got {input!r}")
        (variable, update), value = items
    elif isinstance(first, Variable) and len(items) in (1, 2):
        variable, update = first, None
        value = items[1] if len(items) == 2 else None
    else:
        raise TypeError(f"unknown function input {input!r}")
    if not isinstance(variable, Variable):
        raise TypeError(f"unknown input type {type(variable).__name__}: expected a variable")
    if update is not None and not isinstance(update, Variable):
        raise TypeError(f"unknown update type {type(update).__name__}: expected a variable")
    if isinstance(value, (Variable, SymbolicInput)):
        raise TypeError(f"the value of input {variable} must be a value, not {value}")
    return In(variable, name=name, value=value, update=update)


def get_info_on_inputs(named_inputs: Sequence[Any], n_unnamed_inputs: int) -> str:
    """A sentence saying which inputs of a function can be given by keyword (used in the
    error about a bad keyword argument)."""
    n_named = len(named_inputs)
    if n_named == 0:
        if n_unnamed_inputs == 0:
            return "The function takes no input."
        if n_unnamed_inputs == 1:
            return ("The function has one input, which has no name and so cannot be passed by "
                    "keyword (give the variable a name: name='...').")
        return (f"The function has {n_unnamed_inputs} inputs, none of them named, so none can "
                "be passed by keyword (give the variables names: name='...').")
    names = ", ".join(repr(str(n)) for n in named_inputs)
    if n_unnamed_inputs == 0:
        return f"The function's input{'s' if n_named > 1 else ''} can be passed by name: {names}."
    return (f"The function has {n_named} named input{'s' if n_named > 1 else ''} ({names}) and "
            f"{n_unnamed_inputs} unnamed one{'s' if n_unnamed_inputs > 1 else ''}, which can "
            "only be passed by position.")


def std_fgraph(input_specs: Sequence[Any], output_specs: Sequence[Any],
               accept_inplace: bool = False) -> tuple[FunctionGraph, list[Any]]:
    """The FunctionGraph (a copy of the graph) of ``input_specs`` (``In``) and ``output_specs``
    (``Out``), each input's ``update`` appended as an output; and those updates as ``Out``
    specs.

    ``fgraph.update_mapping`` maps each appended output's index to its input's index. In-place
    ops in the graph are refused unless ``accept_inplace``; inputs that are not ``mutable`` are
    protected from them by a :class:`~.aliasing.Supervisor`.
    """
    inputs = [spec.variable for spec in input_specs]
    updates: list[Variable] = []
    update_mapping: dict[int, int] = {}
    for k, spec in enumerate(input_specs):
        if getattr(spec, "update", None) is not None:
            update_mapping[len(output_specs) + len(updates)] = k
            updates.append(spec.update)
    outputs = [spec.variable for spec in output_specs] + updates
    fgraph = FunctionGraph(inputs, outputs, clone=True)
    fgraph.update_mapping = update_mapping  # type: ignore[attr-defined]
    inplace = [n for n in fgraph.apply_nodes if n.op.destroy_map]
    if inplace and not accept_inplace:
        raise TypeError(f"the graph contains the in-place operation {inplace[0].op} "
                        f"({inplace[0]}); pass accept_inplace=True to allow it")
    mutable = [var for spec, var in zip(input_specs, fgraph.inputs)
               if getattr(spec, "mutable", False)]
    if inplace:
        fgraph.attach_feature(DestroyHandler(mutable=mutable))
    protected = [var for spec, var in zip(input_specs, fgraph.inputs)
                 if not getattr(spec, "mutable", False)]
    fgraph.attach_feature(Supervisor(protected))
    return fgraph, [SymbolicOutput(u) for u in updates]


def fgraph_updated_vars(fgraph: FunctionGraph, expanded_inputs: Sequence[Any]
                        ) -> dict[Variable, Variable]:
    """``{input variable: output computing its new value}`` for a graph made by
    :func:`std_fgraph` (the update outputs come last, in the order of the inputs)."""
    if len(expanded_inputs) != len(fgraph.inputs):
        raise ValueError(f"expanded_inputs has {len(expanded_inputs)} entries for the "
                         f"{len(fgraph.inputs)} inputs of the graph")
    n_updates = sum(getattr(spec, "update", None) is not None for spec in expanded_inputs)
    update_outputs = iter(fgraph.outputs[len(fgraph.outputs) - n_updates:])
    return {var: next(update_outputs) for spec, var in zip(expanded_inputs, fgraph.inputs)
            if getattr(spec, "update", None) is not None}


__all__ = ["convert_function_input", "get_info_on_inputs", "std_fgraph", "fgraph_updated_vars"]
