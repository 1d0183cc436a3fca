"""``scan``: loops in a graph, as Theano 1.0 defines them.

The step function ``fn`` is called once, symbolically, with (in this order) one slice per tap of
each sequence, one value per tap of each output that is fed back, and the non-sequences. What it
returns becomes the inner graph of a :class:`~jitgraph.scan.op.Scan` node
(:mod:`jitgraph.scan.construct`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.compile.profiling_scan import ScanProfileStats
from jitgraph.graph.basic import Variable, graph_inputs
from jitgraph.graph.shared import SharedVariable
from jitgraph.graph.test_value import copy_test_value
from jitgraph.scan.construct import LoopSpec, Recurrent, build_scan, non_sequences_as_inputs
from jitgraph.scan.returns import split_step_return
from jitgraph.scan.shared_recurrent import recur_shared_tensors
from jitgraph.scan.single_step import first_step_values, single_step_results
from jitgraph.scan.updates import OrderedUpdates
from jitgraph.tensor.core.basic import NotScalarConstantError, get_scalar_constant_value
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast, minimum
from jitgraph.tensor.shaping.shape import shape_padleft, unbroadcast


def scan(fn: Any, sequences: Any = None, outputs_info: Any = None, non_sequences: Any = None,
         n_steps: Any = None, truncate_gradient: int = -1, go_backwards: bool = False,
         mode: Any = None, name: str | None = None, profile: Any = False,
         allow_gc: bool | None = None, strict: bool = False, return_list: bool = False
         ) -> tuple[Any, OrderedUpdates]:
    """Repeat ``fn`` over the leading dimension of ``sequences`` (or ``n_steps`` times),
    feeding back the outputs that have an initial value in ``outputs_info``.

    ``sequences``: variables, or ``dict(input=x, taps=[-2, 0])`` (default taps ``[0]``).
    ``outputs_info``: per output of ``fn``, None (not fed back), an initial value (tap -1), or
    ``dict(initial=x0, taps=[-3, -1])`` where ``x0`` holds the 3 values before the first step.
    ``non_sequences``: passed unchanged to every step. ``n_steps``: the number of steps
    (default: the length of the shortest sequence); a negative constant runs backwards, as
    ``go_backwards`` does. ``fn`` may return ``until(condition)`` last to stop early, and an
    update dictionary for shared variables.

    Returns ``(outputs, updates)``: each output stacked over the steps (a single variable when
    there is one output, unless ``return_list``) and an :class:`OrderedUpdates` to pass to
    ``function(updates=...)``. ``profile`` (True, a name, or a ``ScanProfileStats``) records
    the loop's calls, steps and time inside and around its body (printed at exit, as Theano's
    scan profile); ``allow_gc`` is accepted for compatibility; ``mode`` compiles the step
    (default: the ``mode`` flag).
    """
    seq_specs = [_sequence_spec(s, j) for j, s in enumerate(_listify(sequences))]
    out_specs = [_output_spec(o, k) for k, o in enumerate(_listify(outputs_info))]
    non_seqs = [v if isinstance(v, Variable) else as_tensor_variable(v)
                for v in _listify(non_sequences)]
    _check_integer(n_steps)
    n_steps, go_backwards = _fixed_direction(n_steps, go_backwards)
    spec_seqs, lengths, seq_args = _slice_sequences(seq_specs, go_backwards)
    if n_steps is None:
        if not seq_specs:
            raise ValueError("scan needs n_steps when it is given no sequences")
        n_steps = _shortest(lengths)
    else:
        n_steps = as_tensor_variable(n_steps)
        if n_steps.ndim != 0 or not n_steps.dtype.startswith(("int", "uint")):
            raise TypeError(f"scan: n_steps must be an integer scalar, got {n_steps.type}")
    if n_steps.dtype != "int64":
        n_steps = cast(n_steps, "int64")
    recs, rec_args = _recurrent_placeholders(out_specs)
    single = _is_one(n_steps)
    if single:  # the step reads the values themselves: no loop is built (see single_step)
        seq_args, rec_args = first_step_values(spec_seqs, recs)
    ret = fn(*(seq_args + rec_args + non_seqs))
    outputs, updates, cond = split_step_return(ret)
    n_given = len(out_specs)
    if n_given and len(outputs) != n_given:
        raise ValueError(f"scan: outputs_info has {n_given} entries but the step function "
                         f"returned {len(outputs)} output(s); give one entry (None for an output "
                         "that is not fed back) per output")
    if single:
        return single_step_results(outputs, updates, return_list)
    spec = LoopSpec(n_steps=n_steps, seqs=spec_seqs, name=name or "scan_fn", mode=mode,
                    truncate_gradient=truncate_gradient, strict=strict, declared=non_seqs,
                    condition=cond, profile=_profile(profile, name))
    order = []  # per output of fn: ("rec", index) or ("nit", index)
    for k, out in enumerate(outputs):
        rec = recs.get(k)
        if rec is None:
            order.append(("nit", len(spec.nits)))
            spec.nits.append(out)
        else:
            rec.new_value = out
            order.append(("rec", len(spec.recs)))
            spec.recs.append(rec)
    spec.shared_updates = _shared_updates(updates, outputs, cond, non_seqs)
    non_sequences_as_inputs(spec)
    shared_recs = recur_shared_tensors(spec)  # Theano keeps shared tensors' states per step
    outer = build_scan(spec)
    return _results(spec, outer, order, return_list, shared_recs)


def _is_one(n_steps: Variable) -> bool:
    try:
        return int(get_scalar_constant_value(n_steps)) == 1
    except (NotScalarConstantError, TypeError, ValueError):
        return False


def _profile(profile: Any, name: str | None) -> Any:
    """The ScanProfileStats asked for by ``scan(profile=...)``, or None."""
    if not profile:
        return None

    if isinstance(profile, ScanProfileStats):
        return profile
    label = profile if isinstance(profile, str) else (name or "scan_fn")
    return ScanProfileStats(name=label)


def _listify(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


# ---------------------------------------------------------------------------------------------
# Sequences

def _sequence_spec(seq: Any, j: int) -> tuple[Variable, list[int]]:
    taps: Any = [0]
    if isinstance(seq, dict):
        if "input" not in seq:
            raise ValueError(f"scan: sequence {j} is a dict without 'input'")
        taps = seq.get("taps", [0])
        taps = [0] if taps is None else taps
        seq = seq["input"]
    var = seq if isinstance(seq, Variable) else as_tensor_variable(seq)
    if var.ndim < 1:
        raise TypeError(f"scan: sequence {j} ({var}) is a scalar ({var.type}); sequences are "
                        "iterated over their first dimension")
    taps = [taps] if isinstance(taps, int) else [int(t) for t in taps]
    if not taps:
        raise ValueError(f"scan: sequence {j} has an empty list of taps")
    return var, taps


def _slice_sequences(seq_specs: list, go_backwards: bool) -> tuple[list, list, list]:
    """One outer slice and one placeholder per tap: entry ``t`` of the slice of tap ``k`` is
    the value the step ``t`` sees for that tap."""
    pairs, lengths, args = [], [], []
    for var, taps in seq_specs:
        low, high = min(min(taps), 0), max(max(taps), 0)
        length = var.shape[0] - (high - low)
        lengths.append(length)
        for tap in taps:
            start, cut = tap - low, high - tap
            part = var[start:var.shape[0] - cut] if cut else var[start:]
            if go_backwards:
                part = part[::-1]
            placeholder = TensorType(var.dtype, var.broadcastable[1:])(_tap_name(var, tap))
            copy_test_value(placeholder, part, lambda value: value[0])
            pairs.append((part, placeholder))
            args.append(placeholder)
    return pairs, lengths, args


def _tap_name(var: Variable, tap: int) -> str | None:
    if var.name is None:
        return None
    return f"{var.name}[t]" if tap == 0 else f"{var.name}[t{tap:+d}]"


def _shortest(lengths: list) -> Variable:
    n = lengths[0]
    for other in lengths[1:]:
        n = minimum(n, other)
    return n


def _check_integer(n_steps: Any) -> None:
    """A float ``n_steps`` (2.5, ``np.float64(3)``, a float constant) is an error, as in
    Theano, rather than a number of steps rounded down."""
    if n_steps is None:
        return
    dtype = getattr(n_steps, "dtype", None)
    dtype = str(dtype) if dtype is not None else np.asarray(n_steps).dtype.name
    if not dtype.startswith(("int", "uint")):
        raise TypeError(f"scan: n_steps must be an integer, got {n_steps!r} of dtype {dtype}")


def _fixed_direction(n_steps: Any, go_backwards: bool) -> tuple[Any, bool]:
    """A constant negative ``n_steps`` means as many steps, backwards."""
    if n_steps is None:
        return None, go_backwards

    try:
        value = int(get_scalar_constant_value(n_steps))
    except (NotScalarConstantError, TypeError, ValueError):
        return n_steps, go_backwards
    if value < 0:
        return -value, not go_backwards
    return value, go_backwards


# ---------------------------------------------------------------------------------------------
# Outputs

def _output_spec(info: Any, k: int) -> tuple[Variable | None, list[int] | None]:
    """``(initial value, taps)``, or ``(None, None)`` for an output that is not fed back."""
    if info is None:
        return None, None
    if isinstance(info, dict):
        init = info.get("initial")
        if init is None:
            return None, None
        taps = info.get("taps", [-1])
        taps = [-1] if taps is None else ([taps] if isinstance(taps, int) else list(taps))
        if any(int(t) >= 0 for t in taps):
            raise ValueError(f"scan: the taps of output {k} must be negative (past values), got "
                             f"{taps}")
        if not taps:
            raise ValueError(f"scan: output {k} has an empty list of taps")
        if len(set(int(t) for t in taps)) != len(taps):
            raise ValueError(f"scan: the taps of output {k} repeat a value, got {taps}; list "
                             "each past step once")
        init = init if isinstance(init, Variable) else as_tensor_variable(init)
        return init, [int(t) for t in taps]
    init = info if isinstance(info, Variable) else as_tensor_variable(info)
    return init, [-1]


def _recurrent_placeholders(out_specs: list) -> tuple[dict[int, Recurrent], list[Variable]]:
    """A placeholder per tap of each fed-back output, and the outer initial buffers."""
    recs: dict[int, Recurrent] = {}
    args: list[Variable] = []
    for k, (init, taps) in enumerate(out_specs):
        if init is None:
            continue
        if taps == [-1]:
            state_type = init.type
            buffer = unbroadcast(shape_padleft(init), 0)
        else:
            if init.ndim < 1:
                raise TypeError(f"scan: output {k} has taps {taps}, so its initial value must "
                                f"hold {-min(taps)} past values along a leading dimension, but "
                                f"it is a scalar ({init.type})")
            state_type = TensorType(init.dtype, init.broadcastable[1:])
            buffer = init[:-min(taps)]
        name = init.name
        placeholders = [state_type(f"{name}[t{t:+d}]" if name else None) for t in taps]
        for t, placeholder in zip(taps, placeholders):
            copy_test_value(placeholder, buffer, lambda value, at=-min(taps) + t: value[at])
        recs[k] = Recurrent(init=buffer, placeholders=placeholders, taps=tuple(taps),
                            new_value=None, label=f"output {k}")  # type: ignore[arg-type]
        args.extend(placeholders)
    return recs, args


def _shared_updates(updates: OrderedUpdates, outputs: list, cond: Any,
                    non_seqs: Sequence[Variable] = ()) -> list:
    """The step's explicit updates, then the default updates of the shared variables the step
    uses (random streams), as Theano collects them: not those that only the non-sequences read
    (a dropout mask drawn before the loop and passed in), since the loop takes those as
    inputs."""
    pairs = list(updates.items())
    seen = {var for var, _ in pairs}
    pending = list(outputs) + [new for _, new in pairs] + ([cond] if cond is not None else [])
    blockers = [v for v in non_seqs if not isinstance(v, SharedVariable)]
    while pending:
        fresh = []
        for var in graph_inputs([p for p in pending if isinstance(p, Variable)], blockers):
            default = getattr(var, "default_update", None)
            if isinstance(var, SharedVariable) and default is not None and var not in seen:
                pairs.append((var, default))
                seen.add(var)
                fresh.append(default)
        pending = fresh
    return pairs


def _results(spec: LoopSpec, outer: list[Variable], order: list, return_list: bool,
             shared_recs: Sequence[tuple[Variable, int]] = ()) -> tuple[Any, OrderedUpdates]:
    n_rec, n_nit = len(spec.recs), len(spec.nits)
    values = []
    for kind, i in order:
        if kind == "rec":
            n_init = -min(spec.recs[i].taps)
            values.append(outer[i][n_init:])
        else:
            values.append(outer[n_rec + i])
    updates = OrderedUpdates()
    for (var, _), final in zip(spec.shared_updates, outer[n_rec + n_nit:]):
        updates[var] = final
    for var, i in shared_recs:
        updates[var] = outer[i][-1]
    if return_list:
        return values, updates
    if not values:
        return None, updates
    return (values[0] if len(values) == 1 else values), updates
