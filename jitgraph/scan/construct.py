"""Making a Scan node from a step graph written against placeholders.

:func:`build_scan` receives the step's outputs as expressions of placeholder variables (one per
sequence slice and per tap), plus whatever outer variables the step function closed over. Every
computation that depends on no placeholder and on no shared state is left *outside* the loop:
the variables where the step graph meets such computations become the loop's non-sequences, so a
term like ``T.dot(W, x)`` written inside the step function with outer ``W`` and ``x`` is computed
once. Shared variables updated by the step are the loop's shared states.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jitgraph.graph.basic import (Constant, Variable, ancestors, clone_replace, graph_inputs,
                                  io_toposort)
from jitgraph.graph.fg import MissingInputError
from jitgraph.graph.shared import SharedVariable
from jitgraph.graph.test_value import compute_test_values, copy_test_value
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.inner import InnerGraph
from jitgraph.scan.op import Scan
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import unbroadcast


@dataclass
class Recurrent:
    """A recurrent output: its outer initial buffer, the placeholders of its taps (in the order
    the step receives them), the taps, and the step's new value."""

    init: Variable
    placeholders: list[Variable]
    taps: tuple[int, ...]
    new_value: Variable
    label: str = ""


@dataclass
class LoopSpec:
    n_steps: Variable
    #: (outer sequence, placeholder of one step's slice)
    seqs: list[tuple[Variable, Variable]] = field(default_factory=list)
    recs: list[Recurrent] = field(default_factory=list)
    nits: list[Variable] = field(default_factory=list)
    #: (shared variable, its value after a step, written against the shared variable itself)
    shared_updates: list[tuple[Variable, Variable]] = field(default_factory=list)
    condition: Variable | None = None
    name: str = "scan_fn"
    mode: Any = None
    truncate_gradient: int = -1
    #: a ScanProfileStats recording the loop's calls (``scan(profile=...)``), or None
    profile: Any = None
    #: with strict, shared variables used by the step must be among these
    strict: bool = False
    declared: list[Variable] = field(default_factory=list)
    #: placeholder in the step graph -> the non-sequence it stands for (see
    #: :func:`non_sequences_as_inputs`)
    non_seq_inputs: dict[Variable, Variable] = field(default_factory=dict)


class MissingNonSequenceError(MissingInputError):
    """``scan(strict=True)``: the step function uses a shared variable it was not given (a
    MissingInputError, as Theano raises)."""


class StateTypeError(TypeError, ValueError):
    """A step's value does not have the type of its state's initial value (``outputs_info``).
    Also a ValueError: Theano raises ValueError here, and programs catch that."""


def build_scan(spec: LoopSpec) -> list[Variable]:
    """The outer outputs of a Scan node computing ``spec`` (see :mod:`jitgraph.scan.info`)."""
    _reconcile_recurrent_types(spec)
    shared_states = [var for var, _ in spec.shared_updates]
    shared_new = [_fit_shared_update(var, new) for var, new in spec.shared_updates]
    outputs = [r.new_value for r in spec.recs] + list(spec.nits) + shared_new
    if spec.condition is not None:
        outputs.append(spec.condition)
    placeholders = [ph for _, ph in spec.seqs] + [ph for r in spec.recs for ph in r.placeholders]
    varying = set(placeholders) | set(shared_states)
    boundary = _boundary(outputs, varying)
    if spec.strict:
        _check_strict(boundary, spec.declared)
    state_ph = [var.type.make_variable(f"{var.name}_copy" if var.name else None)
                for var in shared_states]
    boundary_ph = [var.type.make_variable(f"{var.name}_copy" if var.name else None)
                   for var in boundary]
    for placeholder, outer in zip(state_ph + boundary_ph, shared_states + boundary):
        copy_test_value(placeholder, outer)
    replace = dict(zip(shared_states, state_ph))
    replace.update(zip(boundary, boundary_ph))
    inner_outputs = clone_replace(outputs, replace) if replace else list(outputs)
    inner_inputs = placeholders + state_ph + boundary_ph
    # outside the loop, a non-sequence's placeholder is the non-sequence again
    outer_boundary = (clone_replace(boundary, spec.non_seq_inputs) if spec.non_seq_inputs
                      else boundary)
    # a declared non-sequence the step does not read is still an input of the loop, as in
    # Theano: a function taking it as an input uses it
    unread = _unread_non_sequences(spec, outer_boundary, shared_states)
    boundary_ph += [var.type.make_variable(f"{var.name}_copy" if var.name else None)
                    for var in unread]
    inner_inputs += boundary_ph[len(boundary):]
    boundary = boundary + unread
    outer_boundary = outer_boundary + unread
    info = ScanInfo(n_seqs=len(spec.seqs), rec_taps=tuple(r.taps for r in spec.recs),
                    n_nit_sot=len(spec.nits), n_shared=len(shared_states),
                    n_non_seqs=len(boundary), as_while=spec.condition is not None)
    op = Scan(info, InnerGraph(inner_inputs, inner_outputs), mode=spec.mode, name=spec.name,
              truncate_gradient=spec.truncate_gradient, profile=spec.profile)
    outer = ([spec.n_steps] + [s for s, _ in spec.seqs] + [r.init for r in spec.recs]
             + shared_states + outer_boundary)
    node = op.make_node(*outer)
    compute_test_values(node)
    return list(node.outputs)


def _unread_non_sequences(spec: LoopSpec, read: list[Variable], states: list[Variable]
                          ) -> list[Variable]:
    seen = set(ancestors(list(read) + list(states))) | set(spec.non_seq_inputs.values())
    unread = []
    for var in dict.fromkeys(spec.declared):
        if isinstance(var, Variable) and not _of_constants(var) and var not in seen:
            unread.append(var)
    return unread


def non_sequences_as_inputs(spec: LoopSpec) -> None:
    """Theano gives each non-sequence to the loop as an input, computed once before the first
    step, even when it is an expression of a shared variable the step updates: a dropout mask
    drawn from a random stream that the step also advances keeps its value over the steps.
    Such non-sequences (the others are computed outside the loop anyway) become placeholders
    in the step's outputs and updates; :func:`build_scan` maps them back outside."""
    updated = {var for var, _ in spec.shared_updates}
    stand_ins = {}
    for var in dict.fromkeys(spec.declared):
        if isinstance(var, (SharedVariable, Constant)) or var.owner is None \
                or not updated.intersection(graph_inputs([var])):
            continue
        stand_ins[var] = var.type.make_variable(f"{var.name}_copy" if var.name else None)
    if not stand_ins:
        return
    n_rec, n_nit, n_sh = len(spec.recs), len(spec.nits), len(spec.shared_updates)
    everything = ([r.new_value for r in spec.recs] + list(spec.nits)
                  + [new for _, new in spec.shared_updates]
                  + ([spec.condition] if spec.condition is not None else []))
    rebuilt = clone_replace(everything, stand_ins)
    for rec, value in zip(spec.recs, rebuilt[:n_rec]):
        rec.new_value = value
    spec.nits = rebuilt[n_rec:n_rec + n_nit]
    spec.shared_updates = [(var, new) for (var, _), new in
                           zip(spec.shared_updates, rebuilt[n_rec + n_nit:n_rec + n_nit + n_sh])]
    if spec.condition is not None:
        spec.condition = rebuilt[-1]
    spec.non_seq_inputs.update((ph, var) for var, ph in stand_ins.items())


def _boundary(outputs: list[Variable], varying: set[Variable]) -> list[Variable]:
    """The outer variables the step graph reads: inputs of step nodes (nodes depending on a
    varying variable) that do not vary themselves, and outputs that do not vary; constants
    excluded. In graph order, so that equal programs build equal loops."""
    depends: set[Variable] = set(varying)
    order = io_toposort(set(varying), outputs)
    found: dict[Variable, None] = {}
    for node in order:
        if not any(i in depends for i in node.inputs):
            continue
        depends.update(node.outputs)
        for inp in node.inputs:
            if inp not in depends and not _of_constants(inp):
                found.setdefault(inp)
    for out in outputs:
        if out not in depends and not _of_constants(out):
            found.setdefault(out)
    return list(found)


def _of_constants(var: Variable) -> bool:
    """A constant, or an expression of constants only (``shape_padleft(2)``): it stays inside
    the step, where the rewrites fold it, rather than becoming an input of the loop."""
    return all(isinstance(v, Constant) for v in graph_inputs([var]))


def _check_strict(boundary: list[Variable], declared: list[Variable]) -> None:
    allowed = set(declared)
    for var in graph_inputs(boundary, list(allowed)):
        if isinstance(var, SharedVariable) and var not in allowed:
            raise MissingNonSequenceError(
                f"scan(strict=True): the step function uses the shared variable "
                f"{var.name or var}, which is not among the non_sequences; pass it in "
                "non_sequences (and take it as an argument of the step function), or use "
                "strict=False")


def _fit_shared_update(var: Variable, new: Variable) -> Variable:
    if not isinstance(new, Variable):
        new = as_tensor_variable(new)
    fitted = var.type.convert_variable(new)
    if fitted is None:
        raise TypeError(f"the update of shared variable {var.name or var} inside scan has type "
                        f"{new.type}, but the variable has type {var.type}; cast the update "
                        "expression")
    return fitted


def _reconcile_recurrent_types(spec: LoopSpec) -> None:
    """Check each recurrent output against its initial value; where the step gives a value
    that is broadcastable in fewer dimensions, loosen the state's type to match."""
    for _ in range(8):  # loosening one state may change the type of another output
        loosened = False
        for k, rec in enumerate(spec.recs):
            state_type = rec.placeholders[0].type
            new = rec.new_value
            _check_same_kind(k, rec, state_type, new)
            if new.type == state_type:
                continue
            converted = state_type.convert_variable(new)
            if converted is not None:
                rec.new_value = converted
                continue
            _loosen_state(spec, rec, new.type.broadcastable)
            loosened = True
        if not loosened:
            return
    raise TypeError("scan could not settle the broadcastable patterns of its recurrent outputs")


def _check_same_kind(k: int, rec: Recurrent, state_type: Any, new: Variable) -> None:
    label = rec.label or f"output {k}"
    if not hasattr(new.type, "dtype"):
        raise StateTypeError(f"{label} of the scan step function is {new.type}, not a tensor")
    if new.type.dtype != state_type.dtype:
        raise StateTypeError(
            f"{label} of the scan step function has dtype {new.type.dtype}, but its initial "
            f"value (outputs_info) has dtype {state_type.dtype} (types {new.type} and "
            f"{state_type}); the step must not upcast or downcast its state: cast the initial "
            "value or the step's result")
    if new.type.ndim != state_type.ndim:
        hint = ("; with taps other than [-1] the initial value holds the past values along one "
                "more, leading, dimension" if rec.taps != (-1,) else "")
        raise StateTypeError(
            f"{label} of the scan step function has {new.type.ndim} dimension(s) ({new.type}), "
            f"but its initial value (outputs_info) gives states of {state_type.ndim} "
            f"({state_type}){hint}")


def _loosen_state(spec: LoopSpec, rec: Recurrent, step_bcast: tuple[bool, ...]) -> None:
    old_type = rec.placeholders[0].type
    bcast = tuple(a and b for a, b in zip(old_type.broadcastable, step_bcast))
    new_type = old_type.clone(broadcastable=bcast)
    new_ph = [new_type.make_variable(ph.name) for ph in rec.placeholders]
    replace = dict(zip(rec.placeholders, new_ph))
    everything = ([r.new_value for r in spec.recs] + list(spec.nits)
                  + [new for _, new in spec.shared_updates]
                  + ([spec.condition] if spec.condition is not None else []))
    rebuilt = clone_replace(everything, replace)
    n_rec, n_nit = len(spec.recs), len(spec.nits)
    for r, value in zip(spec.recs, rebuilt[:n_rec]):
        r.new_value = value
    spec.nits = rebuilt[n_rec:n_rec + n_nit]
    n_sh = len(spec.shared_updates)
    spec.shared_updates = [(var, new) for (var, _), new in
                           zip(spec.shared_updates, rebuilt[n_rec + n_nit:n_rec + n_nit + n_sh])]
    if spec.condition is not None:
        spec.condition = rebuilt[-1]
    rec.placeholders = new_ph
    axes = [d + 1 for d, (o, n) in enumerate(zip(old_type.broadcastable, bcast)) if o and not n]
    rec.init = unbroadcast(rec.init, *axes)
