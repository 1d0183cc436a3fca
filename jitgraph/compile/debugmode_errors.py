"""The errors DebugMode raises, and the value descriptions they print.

Every error derives from :class:`DebugModeError`; each keeps the objects it describes as
attributes (``node``, ``variable``, the values...) so that tests and tools can inspect them, and
its ``str()`` is the report a user reads. They are re-exported by
:mod:`jitgraph.compile.debugmode`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.printing import debugprint
from jitgraph.rewrite.context import rewriter_name


class DebugModeError(Exception):
    """Base class of everything DebugMode finds wrong."""


class DebugModeWarning(UserWarning):
    """Something suspicious that is not an error (an in-place op that did not reuse its input,
    outputs with different strides under ``DebugMode.check_strides=1``)."""


# ---------------------------------------------------------------------------------------------
# Value descriptions

def to_host(value: Any) -> Any:
    """A NumPy view of ``value`` (device arrays are copied to the host: errors only)."""
    if isinstance(value, np.ndarray) or value is None:
        return value
    if hasattr(value, "__cuda_array_interface__") and hasattr(value, "get"):
        return value.get()
    return value


def short_repr(value: Any, threshold: int = 20) -> str:
    """``repr``-like text of a value, summarised when large."""
    value = to_host(value)
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=threshold, edgeitems=3, separator=" ")
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _extreme(value: np.ndarray, fn: Any) -> str:
    if value.size == 0:
        return "N/A (empty)"
    try:
        return str(fn(value))
    except (TypeError, ValueError):
        return "N/A"


def _finite(value: np.ndarray) -> str:
    try:
        return str(bool(np.all(np.isfinite(value))))
    except TypeError:
        return "N/A"


def _diff_lines(val1: Any, val2: Any, indent: str = "  ") -> list[str]:
    """Numeric diagnostics of two arrays of the same shape (abs and rel differences)."""
    a, b = to_host(val1), to_host(val2)
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return []
    if a.shape != b.shape:
        return [f"{indent}Shapes differ: {a.shape} vs {b.shape}"]
    if a.size == 0 or a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
        return []
    with np.errstate(all="ignore"):
        diff = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                      - b.astype(np.complex128 if b.dtype.kind == "c" else np.float64))
        scale = np.maximum(np.abs(a), np.abs(b)).astype(np.float64)
        rel = diff / np.where(scale == 0, 1.0, scale)
        worst = np.unravel_index(np.nanargmax(diff), diff.shape) if np.any(~np.isnan(diff)) \
            else None
    lines = [f"{indent}Max Abs Diff:    {np.nanmax(diff) if worst is not None else 'nan'}",
             f"{indent}Mean Abs Diff:   {np.nanmean(diff) if worst is not None else 'nan'}",
             f"{indent}Median Abs Diff: {np.nanmedian(diff) if worst is not None else 'nan'}",
             f"{indent}Max Rel Diff:    {np.nanmax(rel) if worst is not None else 'nan'}"]
    if worst is not None:
        lines.append(f"{indent}Largest difference at index {tuple(int(k) for k in worst)}: "
                     f"{a[worst]} vs {b[worst]}")
    nan_a, nan_b = np.isnan(a).sum() if a.dtype.kind in "fc" else 0, \
        np.isnan(b).sum() if b.dtype.kind in "fc" else 0
    if nan_a or nan_b:
        lines.append(f"{indent}NaN count: {nan_a} vs {nan_b}")
    return lines


def _attrs(value: Any, name: str) -> str:
    value = to_host(value)
    return str(getattr(value, name, f"no {name}"))


def _node_text(node: Apply) -> str:
    return debugprint(node, file="str").rstrip("\n")


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


# ---------------------------------------------------------------------------------------------
# The errors

class BadThunkOutput(DebugModeError):
    """Two implementations of one node (``perform`` and a compiled kernel, or one of them with
    preallocated outputs) gave different results."""

    def __init__(self, variable: Variable, thunk1: str, val1: Any, thunk2: str, val2: Any,
                 inputs_val: list[Any] | tuple = ()) -> None:
        super().__init__()
        self.variable = self.r = variable
        self.node = variable.owner
        self.thunk1, self.val1, self.thunk2, self.val2 = thunk1, val1, thunk2, val2
        self.inputs_val = list(inputs_val)

    def __str__(self) -> str:
        node, ins = self.node, self.inputs_val
        lines = ["BadThunkOutput",
                 f"  Apply   : {node}",
                 f"  op      : {node.op}",
                 f"  Outputs Type: {self.variable.type}",
                 f"  Outputs Shape: {_attrs(self.val1, 'shape')}",
                 f"  Outputs Strides: {_attrs(self.val1, 'strides')} ({self.thunk1}) "
                 f"{_attrs(self.val2, 'strides')} ({self.thunk2})",
                 f"  Inputs Type : {[str(i.type) for i in node.inputs]}",
                 f"  Inputs Shape: [{', '.join(_attrs(v, 'shape') for v in ins)}]",
                 f"  Inputs Strides: [{', '.join(_attrs(v, 'strides') for v in ins)}]",
                 "  Input values: ["
                 + ", ".join(short_repr(v) if getattr(to_host(v), 'size', 0) <= 10
                             else "not shown" for v in ins) + "]",
                 f"  Bad Variable: {self.variable} (output {self.variable.index})",
                 f"  thunk1  : {self.thunk1}",
                 f"  thunk2  : {self.thunk2}",
                 f"  val1    : {short_repr(self.val1)}",
                 f"  val2    : {short_repr(self.val2)}"]
        lines += _diff_lines(self.val1, self.val2)
        lines.append("  Hint: the tolerances follow tensor.cmp_sloppy (0 strict, 1, 2 looser).")
        return "\n".join(lines)


class BadOptimization(DebugModeError):
    """A rewrite replaced a variable by one that computes a different value."""

    def __init__(self, old_r: Any, new_r: Variable | None = None, old_r_val: Any = None,
                 new_r_val: Any = None, reason: Any = None, old_graph: str = "",
                 new_graph: str = "") -> None:
        # (BadOptimization("message") is a report in words, as a handler re-raising one with
        # more text makes it)
        super().__init__(*([old_r] if new_r is None else []))
        self.old_r, self.new_r = old_r, new_r
        self.old_r_val, self.new_r_val = old_r_val, new_r_val
        self.reason = reason
        self.old_graph, self.new_graph = old_graph, new_graph

    @property
    def rewrite_name(self) -> str:
        return self.reason if isinstance(self.reason, str) else rewriter_name(self.reason)

    def __str__(self) -> str:
        if self.new_r is None:
            return str(self.old_r)
        old, new = self.old_r_val, self.new_r_val
        lines = ["BadOptimization Error",
                 f"  Rewrite (reason): {self.rewrite_name}",
                 f"  Variable: {self.old_r} ({self.old_r.type})",
                 f"  replaced by: {self.new_r} ({self.new_r.type})",
                 f"  Old value: shape={_attrs(old, 'shape')} dtype={_attrs(old, 'dtype')} "
                 f"strides={_attrs(old, 'strides')}",
                 f"    {short_repr(old)}",
                 f"  New value: shape={_attrs(new, 'shape')} dtype={_attrs(new, 'dtype')} "
                 f"strides={_attrs(new, 'strides')}",
                 f"    {short_repr(new)}"]
        if self.new_r.type != self.old_r.type:
            return "\n".join(lines[:4] + [
                "The rewrite changed the variable's type; a rewrite must keep it (exclude the "
                f"rewrite with optimizer_excluding={self.rewrite_name} and report it)."])
        lines += _diff_lines(old, new)
        lines += ["  Old graph:", _indent(self.old_graph.rstrip("\n"), "    "),
                  "  New graph:", _indent(self.new_graph.rstrip("\n"), "    "),
                  "Hint: if the difference is rounding, loosen the comparison with "
                  "tensor.cmp_sloppy=1 (or 2); otherwise exclude the rewrite with "
                  f"optimizer_excluding={self.rewrite_name} and report it."]
        return "\n".join(lines)


class BadDestroyMap(DebugModeError):
    """A node changed an input that its op does not list in ``destroy_map``."""

    def __init__(self, node: Apply, idx: int, old_val: Any, new_val: Any, perform: str) -> None:
        super().__init__()
        self.node, self.idx = node, idx
        self.old_val, self.new_val = old_val, new_val
        self.perform = perform

    def __str__(self) -> str:
        old, new = to_host(self.old_val), to_host(self.new_val)
        lines = ["BadDestroyMap",
                 f"  node: {self.node}",
                 f"  implementation: {self.perform}",
                 f"  changed input idx: {self.idx}",
                 f"  changed input type: {self.node.inputs[self.idx].type}",
                 f"  destroy_map: {self.node.op.destroy_map}",
                 f"  repr (old val): {short_repr(old)}",
                 f"  repr (new val): {short_repr(new)}"]
        if isinstance(old, np.ndarray) and isinstance(new, np.ndarray):
            lines += [f"  value dtype (new <space> old): {new.dtype} {old.dtype}",
                      f"  value shape (new <space> old): {new.shape} {old.shape}",
                      f"  value min (new <space> old): {_extreme(new, np.min)} "
                      f"{_extreme(old, np.min)}",
                      f"  value max (new <space> old): {_extreme(new, np.max)} "
                      f"{_extreme(old, np.max)}"]
        lines.append("  Hint: an op that overwrites an input must say so in destroy_map "
                     "(output index -> [input indices]), or work on a copy.")
        return "\n".join(lines)


class BadViewMap(DebugModeError):
    """An output shares memory with an input (or another output) that ``view_map`` and
    ``destroy_map`` do not declare."""

    def __init__(self, node: Apply, output_idx: int, out_storage: Any,
                 in_alias_idx: int | None = None, out_alias_idx: int | None = None) -> None:
        super().__init__()
        self.node, self.output_idx, self.out_storage = node, output_idx, out_storage
        self.in_alias_idx, self.out_alias_idx = in_alias_idx, out_alias_idx

    def __str__(self) -> str:
        op = self.node.op
        lines = ["BadViewMap",
                 f"  node: {self.node}",
                 f"  node.inputs: {[(str(i), str(i.type)) for i in self.node.inputs]}",
                 f"  destroy_map: {op.destroy_map}",
                 f"  view_map: {op.view_map}",
                 f"  aliased output: {self.output_idx}",
                 f"  aliased output storage: {short_repr(self.out_storage)}"]
        if self.in_alias_idx is not None:
            lines.append(f"  aliased to input {self.in_alias_idx} (not declared)")
        if self.out_alias_idx is not None:
            lines.append(f"  aliased to output {self.out_alias_idx} (not declared)")
        lines.append("  Hint: an op returning a view of an input must declare it in view_map "
                     "(output index -> [input index]), or return a copy.")
        return "\n".join(lines)


class StochasticOrder(DebugModeError):
    """Rewriting the same graph several times (``DebugMode.patience``) gave different graphs:
    some rewrite depends on something other than the graph (set or dict order, ids, a
    global counter...)."""


class StridesMismatch(DebugModeError):
    """Compiled and ``perform`` outputs have different strides (``DebugMode.check_strides=2``)."""


class InvalidValueError(DebugModeError):
    """A value is not valid for its type, or is not finite (``DebugMode.check_finite``)."""

    def __init__(self, r: Variable, v: Any = None, client_node: Any = None, hint: str = "none",
                 specific_hint: str = "none") -> None:
        super().__init__()
        self.r = self.variable = r
        self.v = self.value = v
        self.client_node = client_node
        self.hint = hint
        self.specific_hint = specific_hint

    def __str__(self) -> str:
        v = to_host(self.v)
        arr = v if isinstance(v, np.ndarray) else None
        dtype = str(arr.dtype) if arr is not None else str(getattr(v, "dtype", "N/A"))
        shape = str(arr.shape) if arr is not None else str(getattr(v, "shape", "N/A"))
        vmin = _extreme(arr, np.min) if arr is not None else "N/A"
        vmax = _extreme(arr, np.max) if arr is not None else "N/A"
        finite = _finite(arr) if arr is not None else "N/A"
        pad = "        "
        lines = ["InvalidValueError",
                 f"{pad}type(variable) = {self.r.type}",
                 f"{pad}variable       = {self.r}",
                 f"{pad}type(value)    = {type(self.v)}",
                 f"{pad}dtype(value)   = {dtype}",
                 f"{pad}shape(value)   = {shape}",
                 f"{pad}value          = {short_repr(v)}",
                 f"{pad}min(value)     = {vmin}",
                 f"{pad}max(value)     = {vmax}",
                 f"{pad}isfinite       = {finite}",
                 f"{pad}client_node    = {self.client_node}",
                 f"{pad}hint           = {self.hint}",
                 f"{pad}specific_hint  = {self.specific_hint}",
                 f"{pad}context        = ..."]
        if self.r.owner is not None:
            lines.append(_indent(_node_text(self.r.owner)))
        else:
            lines.append(f"  {self.r} (an input of the graph)")
        return "\n".join(lines)


__all__ = ["DebugModeError", "DebugModeWarning", "BadThunkOutput", "BadOptimization",
           "BadDestroyMap", "BadViewMap", "StochasticOrder", "StridesMismatch",
           "InvalidValueError", "short_repr", "to_host"]

# Users meet these as jitgraph.compile.debugmode.<Name> (where they are documented and exported).
for _cls in (DebugModeError, DebugModeWarning, BadThunkOutput, BadOptimization, BadDestroyMap,
             BadViewMap, StochasticOrder, StridesMismatch, InvalidValueError):
    _cls.__module__ = "jitgraph.compile.debugmode"
del _cls
