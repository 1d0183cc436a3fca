"""The gradient and R-operator of an :class:`~jitgraph.compile.builders.OpFromGraph`.

Each is derived once per op, on the inner graph's variables, and packaged as another
OpFromGraph (inline when the op is), which the outer graph then applies:

* the gradient op takes the inner inputs, the inner outputs that are computed (so the forward
  values of the outer node are reused, not recomputed) and one output gradient per output;
* the R-op takes the inner inputs and one evaluation point per input.

Overrides replace parts of either (see ``OpFromGraph``); ``NullType`` and ``DisconnectedType``
entries (from :mod:`jitgraph.gradient`) mark inputs as not differentiable or not connected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from jitgraph.graph.basic import Variable
from jitgraph.graph.gradient_types import DisconnectedType, NullType
from jitgraph.graph.test_value import without_test_values
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad
from jitgraph.tensor.core.rop import Rop

if TYPE_CHECKING:
    from jitgraph.compile.builders import OpFromGraph

_ENTRY_HELP = ("'default', a callable, an OpFromGraph, or a variable of NullType or "
               "DisconnectedType")


def special_kind(value: Any) -> str | None:
    """'null' or 'disconnected' for a variable of NullType / DisconnectedType, else None."""
    if not isinstance(value, Variable):
        return None
    if isinstance(value.type, NullType):
        return "null"
    if isinstance(value.type, DisconnectedType):
        return "disconnected"
    return None


def _is_ofg(value: Any) -> bool:
    from jitgraph.compile.builders import OpFromGraph

    return isinstance(value, OpFromGraph)


def _valid_entry(value: Any) -> bool:
    return ((isinstance(value, str) and value == "default") or _is_ofg(value)
            or special_kind(value) is not None or (callable(value) and not isinstance(value,
                                                                                      Variable)))


def check_override(label: str, value: Any, n: int) -> None:
    """Raise a TypeError/ValueError naming ``label`` when ``value`` is no valid override."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"OpFromGraph {label} has {len(value)} entries; expected {n} (one "
                             f"per {'output' if label == 'rop_overrides' else 'input'})")
        for k, entry in enumerate(value):
            if not _valid_entry(entry):
                raise TypeError(f"OpFromGraph {label}[{k}] must be {_ENTRY_HELP}, got "
                                f"{entry!r}")
    elif not _valid_entry(value):
        raise TypeError(f"OpFromGraph {label} must be {_ENTRY_HELP}, or a list of them; got "
                        f"{value!r}")


def _call_override(entry: Any, args: list[list[Variable]]) -> list[Variable]:
    """Outputs of a callable or OpFromGraph override applied to ``args`` (lists of inner
    variables, concatenated for an OpFromGraph)."""
    if _is_ofg(entry):
        return entry(*[v for group in args for v in group], return_list=True)
    result = entry(*args)
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _zeros_like(var: Variable) -> Variable:
    return zeros_like(var)


def _disconnected() -> Variable:
    return DisconnectedType()()


class _Derived:
    """Per-input (or per-output) entries: ('expr', variable), ('null', variable),
    ('disconnected', None) or ('zero', None), and the OpFromGraph computing the 'expr' ones."""

    def __init__(self, op: "OpFromGraph") -> None:
        self.op = op
        self._built: tuple[list[tuple[str, Any]], Any, list[int]] | None = None

    def _package(self, entries: list[tuple[str, Any]], inputs: list[Variable], suffix: str
                 ) -> tuple[list[tuple[str, Any]], Any]:
        from jitgraph.compile.builders import OpFromGraph

        exprs = [v for kind, v in entries if kind == "expr"]
        if not exprs:
            return entries, None
        name = f"{self.op.name}_{suffix}" if self.op.name else None
        return entries, OpFromGraph(inputs, exprs, inline=self.op.is_inline, name=name,
                                    on_unused_input="ignore")


class GradientBuilder(_Derived):
    """``L_op`` of an OpFromGraph."""

    def _overrides(self) -> tuple[str, Any]:
        op = self.op
        if not (isinstance(op.lop_overrides, str) and op.lop_overrides == "default"):
            return "lop", op.lop_overrides
        return "grad", op.grad_overrides

    def disconnected_inputs(self) -> list[int]:
        """Explicit inputs whose override says DisconnectedType (no graph is built)."""
        _, value = self._overrides()
        n = len(self.op.input_types)
        if special_kind(value) == "disconnected":
            return list(range(n))
        if isinstance(value, (list, tuple)):
            return [k for k, e in enumerate(value) if special_kind(e) == "disconnected"]
        return []

    @without_test_values
    def _build(self) -> tuple[list[tuple[str, Any]], Any, list[int]]:
        if self._built is not None:
            return self._built
        op = self.op
        inner_in, inner_out = list(op.local_inputs), list(op.local_outputs)
        n_explicit = len(op.input_types)
        gplace = [o.type.make_variable(f"g{k}") for k, o in enumerate(inner_out)]
        style, value = self._overrides()
        args = [inner_in[:n_explicit], inner_out, gplace] if style == "lop" else \
            [inner_in[:n_explicit], gplace]
        defaults: list[Any] = []

        def default(k: int) -> tuple[str, Any]:
            if not defaults:
                defaults.extend(_inner_gradients(inner_in, inner_out, gplace))
            g = defaults[k]
            return ("disconnected", None) if g is None else ("expr", g)

        entries = _override_entries(value, args, default, n_explicit,
                                    f"the gradient override of {op}", "gradients", "inputs")
        entries += [default(k) for k in range(n_explicit, len(inner_in))]
        cut = [k for k, o in enumerate(inner_out)
               if o.owner is not None and o not in inner_out[:k] and o not in inner_in]
        grad_inputs = inner_in + [inner_out[k] for k in cut] + gplace
        entries, grad_op = self._package(entries, grad_inputs, "grad")
        self._built = (entries, grad_op, cut)
        return self._built

    def apply(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
              output_grads: Sequence[Variable]) -> list:
        entries, grad_op, cut = self._build()
        grads = []
        nulls = []
        for out, g in zip(outputs, output_grads):
            kind = special_kind(g)
            if kind == "null":
                nulls.append(g)
            grads.append(_zeros_like(out) if kind is not None else g)
        if nulls:  # a non-differentiable output makes every gradient through it so
            return [nulls[0]] * len(inputs)
        values = iter(grad_op(*inputs, *[outputs[k] for k in cut], *grads, return_list=True)
                      if grad_op is not None else [])
        result = []
        for kind, var in entries:
            if kind == "expr":
                result.append(next(values))
            elif kind == "null":
                result.append(var)
            else:
                result.append(_disconnected())
        return result


class RopBuilder(_Derived):
    """``R_op`` of an OpFromGraph."""

    @without_test_values
    def _build(self) -> tuple[list[tuple[str, Any]], Any, list[int]]:
        if self._built is not None:
            return self._built
        op = self.op
        inner_in, inner_out = list(op.local_inputs), list(op.local_outputs)
        n_explicit = len(op.input_types)
        eplace = [v.type.make_variable(f"e{k}") for k, v in enumerate(inner_in)]
        args = [inner_in[:n_explicit], eplace[:n_explicit]]
        defaults: list[Any] = []

        def default(k: int) -> tuple[str, Any]:
            if not defaults:
                defaults.extend(_inner_rop(inner_in, inner_out, eplace))
            r = defaults[k]
            return ("zero", None) if r is None else ("expr", r)

        entries = _override_entries(op.rop_overrides, args, default, len(inner_out),
                                    f"the R_op override of {op}", "results", "outputs")
        # DisconnectedType in R_op means "zero" (Theano's rule)
        entries = [("zero", None) if kind == "disconnected" else (kind, v)
                   for kind, v in entries]
        entries, rop_op = self._package(entries, inner_in + eplace, "rop")
        self._built = (entries, rop_op, [])
        return self._built

    def apply(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        entries, rop_op, _ = self._build()
        points = [_zeros_like(x) if e is None else e for x, e in zip(inputs, eval_points)]
        values = iter(rop_op(*inputs, *points, return_list=True) if rop_op is not None else [])
        outputs = None
        result = []
        for kind, var in entries:
            if kind == "expr":
                result.append(next(values))
            elif kind == "null":
                result.append(var)
            else:
                if outputs is None:
                    outputs = self.op(*inputs[:len(self.op.input_types)], return_list=True)
                result.append(_zeros_like(outputs[len(result)]))
        return result


def _override_entries(value: Any, args: list[list[Variable]],
                      default: Callable[[int], tuple[str, Any]], count: int, who: str,
                      gives: str, per: str) -> list[tuple[str, Any]]:
    """The ``count`` entries an override makes: a list holds one per position, a string or
    special type applies to all of them, a callable returns them all at once."""
    if isinstance(value, (list, tuple)):
        return [_entry(e, args, lambda k=k: default(k)) for k, e in enumerate(value)]
    if isinstance(value, str) or special_kind(value) is not None:
        return [_entry(value, args, lambda k=k: default(k)) for k in range(count)]
    results = _call_override(value, args)
    if len(results) != count:
        raise ValueError(f"{who} returned {len(results)} {gives} for {count} {per}")
    return [_result_entry(r) for r in results]


def _entry(entry: Any, args: list[list[Variable]], default: Callable[[], tuple[str, Any]]
           ) -> tuple[str, Any]:
    if isinstance(entry, str):
        return default()
    kind = special_kind(entry)
    if kind is not None:
        return (kind, entry)
    results = _call_override(entry, args)
    if len(results) != 1:
        raise ValueError(f"an override in a list must give one variable, got {len(results)}")
    return _result_entry(results[0])


def _result_entry(value: Any) -> tuple[str, Any]:
    if value is None:
        return ("disconnected", None)
    kind = special_kind(value)
    if kind is not None:
        return (kind, value)
    if not isinstance(value, Variable):
        value = as_tensor_variable(value)
    return ("expr", value)


def _inner_gradients(inputs: list[Variable], outputs: list[Variable], gplace: list[Variable]
                     ) -> list[Variable | None]:
    """``d(sum_k outputs[k] * gplace[k]) / d inputs``; None where an input has no gradient."""
    known: dict[Variable, Variable] = {}
    for out, g in zip(outputs, gplace):
        if dt.is_discrete(getattr(out, "dtype", "float64")):
            continue
        known[out] = known[out] + g if out in known else g
    wrt = [v for v in inputs if not dt.is_discrete(getattr(v, "dtype", "float64"))]
    if not known or not wrt:
        return [None] * len(inputs)
    found = grad(None, wrt, known_grads=known, disconnected_inputs="ignore",
                 return_disconnected="None", accumulate_known=True)
    by_input = dict(zip(wrt, found))
    return [by_input.get(v) for v in inputs]


def _inner_rop(inputs: list[Variable], outputs: list[Variable], eplace: list[Variable]
               ) -> list[Variable | None]:
    result = Rop(list(outputs), list(inputs), list(eplace))
    return list(result) if isinstance(result, (list, tuple)) else [result]
