"""DebugMode: run every node with the NumPy reference and the compiled kernel, and check both.

``function(..., mode='DebugMode')`` (or ``DEBUG_MODE``, or ``DebugMode(...)`` with options):

* **Rewrites** are checked twice. At compile time the graph is rewritten ``DebugMode.patience``
  times from identical copies; different results raise :class:`StochasticOrder`. Every
  replacement is recorded (a FunctionGraph feature), and at each call both the replaced and the
  replacing variable are evaluated: a difference raises :class:`BadOptimization` naming the
  rewrite.
* **Implementations**: each node runs ``perform`` (``check_py``) and the compiled backend's
  kernel (``check_c``: Numba, or CUDA on a GPU) on copies of the same inputs; outputs are
  compared with ``type.values_eq_approx`` (tolerances from ``tensor.cmp_sloppy``), else
  :class:`BadThunkOutput`. ``check_preallocated_output`` re-runs them with output buffers
  prepared in various layouts; ``check_strides`` compares the strides.
* **Memory safety**: an input that changed without being in ``destroy_map`` raises
  :class:`BadDestroyMap`; an output sharing memory with an input (or another output) that
  ``view_map``/``destroy_map`` do not declare raises :class:`BadViewMap`;
  ``warn_input_not_reused`` warns when a declared in-place output did not reuse its input.
* **Values**: every output must be a valid value of its type, and finite under
  ``check_finite`` (the graph inputs too), else :class:`InvalidValueError`.

The compiled side comes from :func:`compiled_program`, which asks the builders listed in
:data:`COMPILED_BACKENDS` (by default, the registered backends' ``checked_program``) for a
program over the same graph and node order and uses its per-node thunks. Values that flow to the next node are always the reference (``perform``) values, so a
wrong kernel is reported at the node that is wrong.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from jitgraph.compile.debugmode_errors import (BadDestroyMap, BadOptimization, BadThunkOutput,
                                               BadViewMap, DebugModeError, DebugModeWarning,
                                               InvalidValueError, StochasticOrder,
                                               StridesMismatch)
from jitgraph.compile.aliasing import shares_memory
from jitgraph.compile.debugmode_rewrites import (Replacement, ReplacementTracker,
                                                 copy_for_rewrite, evaluate_replacement,
                                                 graph_signature, stochastic_message)
from jitgraph.compile.debugmode_values import (approx_equal, copy_value, effective_strides,
                                               garbage, has_non_finite, identical, is_valid,
                                               nonempty, replacement_equal, strided_garbage,
                                               type_mismatch)
from jitgraph.compile.backend import backends
from jitgraph.compile.linker import Linker, Program, make_program, raise_with_node
from jitgraph.compile.mode import Mode
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import OUTPUT, FunctionGraph
from jitgraph.compile.rewriting import schedule
from jitgraph.config import config
from jitgraph.graph.printing import debugprint
from jitgraph.rewrite.features import ReplacementTypeError

PREALLOCATED_KINDS = ("initial", "previous", "c_contiguous", "f_contiguous", "strided",
                      "wrong_size")


# ---------------------------------------------------------------------------------------------
# The compiled side

def _registered_backends(fgraph: FunctionGraph, order: list[Apply]) -> Program | None:
    """The first program a registered backend checks (highest priority first)."""
    for backend in backends():
        program = backend.checked_program(fgraph, order)
        if program is not None:
            return program
    return None


#: Builders of compiled programs, tried in order (the first that gives one wins). A builder takes
#: ``(fgraph, order)`` and returns None (backend off or absent) or a Program over the same
#: nodes with ``thunks[i]`` running ``order[i]`` on ``storage`` cells and ``kinds[i]`` saying
#: what runs it ("Numba", "CUDA", "BLAS", "Py"); built with ``allow_gc=False``. Tests put
#: simulated backends first.
COMPILED_BACKENDS: list[Callable[[FunctionGraph, list[Apply]], Program | None]] = [
    _registered_backends]


def compiled_program(fgraph: FunctionGraph, order: list[Apply]) -> Program | None:
    """The compiled backend's program for ``fgraph`` in ``order``, or None (none available)."""
    for builder in COMPILED_BACKENDS:
        try:
            program = builder(fgraph, order)
        except Exception as exc:  # noqa: BLE001 - the check must not make compiling impossible
            warnings.warn(f"DebugMode could not build the compiled program "
                          f"({type(exc).__name__}: {exc}); only perform() is checked",
                          DebugModeWarning, stacklevel=4)
            return None
        if program is not None:
            return program
    return None


# ---------------------------------------------------------------------------------------------
# Options and the mode

@dataclass
class DebugOptions:
    """What DebugMode checks (defaults from the ``DebugMode.*`` flags). A mode's functions
    share its options: the checks made on values at each call (``check_finite``,
    ``check_strides``, ``warn_input_not_reused``, ``preallocated``) follow changes to them."""

    patience: int = 10
    check_c: bool = True
    check_py: bool = True
    check_finite: bool = True
    check_strides: int = 0
    warn_input_not_reused: bool = True
    preallocated: tuple[str, ...] = ()
    preallocated_ndim: int = 4

    @classmethod
    def from_config(cls) -> "DebugOptions":
        d = config.DebugMode
        return cls(int(d.patience), bool(d.check_c), bool(d.check_py), bool(d.check_finite),
                   int(d.check_strides), bool(d.warn_input_not_reused),
                   _parse_preallocated(d.check_preallocated_output),
                   int(d.check_preallocated_output_ndim))


#: the options the checks of a call read (the others shape how a function is compiled)
_CALL_TIME_OPTIONS = frozenset({"check_finite", "check_strides", "warn_input_not_reused",
                                "preallocated"})


def _parse_preallocated(spec: str | tuple | list | None) -> tuple[str, ...]:
    if not spec:
        return ()
    items = spec.split(":") if isinstance(spec, str) else list(spec)
    kinds: list[str] = []
    for item in items:
        item = item.strip()
        if item == "ALL":
            kinds.extend(PREALLOCATED_KINDS)
        elif item in PREALLOCATED_KINDS:
            kinds.append(item)
        elif item:
            raise ValueError(f"unknown check_preallocated_output kind {item!r}; valid: "
                             f"{', '.join(PREALLOCATED_KINDS)}, ALL")
    return tuple(k for k in dict.fromkeys(kinds) if k != "initial")


class DebugMode(Mode):
    """A mode that checks rewrites, implementations, memory safety and values (slow).

    Arguments left as None take the ``DebugMode.*`` flags: ``stability_patience``
    (``patience``), ``check_c_code`` (compiled kernels), ``check_py_code`` (``perform``),
    ``check_isfinite``, ``check_preallocated_output`` (a list of kinds or a ':'-separated
    string), ``require_matching_strides`` (0/1/2). DebugMode always uses its own linker.
    """

    #: profiling would time the checks, not the program
    supports_profiling = False

    def __init__(self, optimizer: Any = "default", stability_patience: int | None = None,
                 check_c_code: bool | None = None, check_py_code: bool | None = None,
                 check_isfinite: bool | None = None, check_preallocated_output: Any = None,
                 require_matching_strides: int | None = None, linker: Any = None,
                 include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 require: tuple[str, ...] = ()) -> None:
        if linker is not None and not isinstance(linker, DebugLinker):
            raise ValueError("DebugMode can only use its own linker!")
        super().__init__("py", optimizer, include, exclude, require, name="DebugMode")
        opts = DebugOptions.from_config()
        changes: dict[str, Any] = {}
        for field_name, value in (("patience", stability_patience), ("check_c", check_c_code),
                                  ("check_py", check_py_code), ("check_finite", check_isfinite),
                                  ("check_strides", require_matching_strides)):
            if value is not None:
                changes[field_name] = type(getattr(opts, field_name))(value)
        if check_preallocated_output is not None:
            changes["preallocated"] = _parse_preallocated(check_preallocated_output)
        opts = replace(opts, **changes)
        if opts.patience < 1:
            raise ValueError("DebugMode stability_patience must be at least 1")
        if not (opts.check_c or opts.check_py):
            raise ValueError("DebugMode has to check at least one of c and py code")
        self.options = opts
        self.linker = DebugLinker(opts)

    def _set_option(self, field_name: str, value: Any) -> None:
        """Change one check for the functions compiled from now on (Theano programs set
        ``predefined_modes['DEBUG_MODE'].check_isfinite = False``)."""
        if field_name == "preallocated":
            value = _parse_preallocated(value)
        else:
            value = type(getattr(self.options, field_name))(value)
        if field_name in _CALL_TIME_OPTIONS:  # read at each call: compiled functions follow
            setattr(self.options, field_name, value)
            return
        if field_name == "patience" and value < 1:
            raise ValueError("DebugMode stability_patience must be at least 1")
        self.options = replace(self.options, **{field_name: value})
        if not (self.options.check_c or self.options.check_py):
            raise ValueError("DebugMode has to check at least one of c and py code")
        self.linker = DebugLinker(self.options)

    # Theano's attribute names (settable)
    stability_patience = property(lambda self: self.options.patience,
                                  lambda self, v: self._set_option("patience", v))
    check_c_code = property(lambda self: self.options.check_c,
                            lambda self, v: self._set_option("check_c", v))
    check_py_code = property(lambda self: self.options.check_py,
                             lambda self, v: self._set_option("check_py", v))
    check_isfinite = property(lambda self: self.options.check_finite,
                              lambda self, v: self._set_option("check_finite", v))
    require_matching_strides = property(lambda self: self.options.check_strides,
                                        lambda self, v: self._set_option("check_strides", v))
    check_preallocated_output = property(lambda self: list(self.options.preallocated),
                                         lambda self, v: self._set_option("preallocated", v))

    def rewrite(self, fgraph: FunctionGraph) -> Any:
        """Rewrite ``fgraph`` while recording every replacement, then rewrite ``patience - 1``
        identical copies and compare the results (:class:`StochasticOrder`)."""
        fgraph.attach_feature(ReplacementTracker())
        copies = [copy_for_rewrite(fgraph) for _ in range(self.options.patience - 1)]
        try:
            stats = super().rewrite(fgraph)
        except ReplacementTypeError as exc:  # (raised under on_opt_error='raise')
            raise BadOptimization(exc.old, exc.new,
                                  reason=getattr(exc, "rewrite_name", "a rewrite")) from exc
        reference = graph_signature(fgraph)
        for run, other in enumerate(copies, start=2):
            super().rewrite(other)
            signature = graph_signature(other)
            if signature != reference:
                raise StochasticOrder(stochastic_message(fgraph, other, reference, signature,
                                                         run, self.options.patience))
        return stats

    def __str__(self) -> str:
        return (f"DebugMode(optimizer={self.optimizer}, patience={self.options.patience}, "
                f"check_c={self.options.check_c}, check_py={self.options.check_py})")

    __repr__ = __str__


# ---------------------------------------------------------------------------------------------
# The linker and the checking program

class DebugLinker(Linker):
    """Builds a :class:`DebugProgram` (a perform program plus, with ``check_c``, the compiled
    backend's program over the same nodes)."""

    name = "debug"

    def __init__(self, options: DebugOptions) -> None:
        super().__init__(None)
        self.options = options

    def make_program(self, fgraph: FunctionGraph, order: Any = None) -> "DebugProgram":
        if order is None:
            order = schedule(fgraph)
        order = list(order)
        base = make_program(fgraph, False, order)
        compiled = compiled_program(fgraph, order) if self.options.check_c else None
        tracker = next((f for f in fgraph.features if isinstance(f, ReplacementTracker)), None)
        return DebugProgram(base, compiled, tracker.replacements if tracker else [],
                            self.options)


class DebugProgram(Program):
    """Runs each node with every implementation and checks the results (see module doc)."""

    def __init__(self, base: Program, compiled: Program | None,
                 replacements: list[Replacement], options: DebugOptions
                 ) -> None:
        kinds = list(compiled.kinds) if compiled is not None else ["Py"] * len(base.order)
        super().__init__(base.fgraph, base.order, base.thunks, base.storage, base.free_after,
                         kinds)
        self.compiled = compiled
        self.compared = compiled.compared_nodes() if compiled is not None else set()
        # Nodes the backend evaluated while linking (constant inputs): their thunk writes
        # nothing, so preallocated output buffers would be read back as their result.
        self.precomputed = compiled.precomputed_nodes() if compiled is not None else set()
        self.replacements = replacements
        self.options = options
        self.check_py = options.check_py or compiled is None
        self._previous: list[list[Any] | None] = [None] * len(self.order)

    def run(self) -> None:
        values: dict[Variable, Any] = {}
        for var in self.fgraph.inputs:
            values[var] = self.storage[var][0]
            if self.options.check_finite and has_non_finite(values[var]):
                raise InvalidValueError(var, values[var], hint="graph input",
                                        specific_hint="non-finite elements not allowed")
        for i, node in enumerate(self.order):
            self._run_node(i, node, values)
        if self.replacements:
            self._check_replacements(values)
        for var in self.fgraph.outputs:
            self.storage[var][0] = values[var]

    # -- one node -------------------------------------------------------------------------
    def _run_node(self, i: int, node: Apply, values: dict) -> None:
        in_vals = [var.data if isinstance(var, Constant) else values[var]
                   for var in node.inputs]
        ref: list[Any] | None = None
        if self.check_py:
            ref = self._perform(i, node, in_vals, [None] * len(node.outputs))
            self._check_outputs(node, ref, "perform output")
        if i in self.compared:
            kind = self.kinds[i]
            out = self._compiled(i, node, in_vals, None)
            if ref is None:
                ref = [copy_value(v) for v in out]
                self._check_outputs(node, ref, f"{kind} output")
            else:
                self._compare(node, in_vals, ref, "perform", out, kind)
                self._check_strides(node, ref, out, kind)
        elif ref is None:  # check_py off and no compiled kernel for this node
            ref = self._perform(i, node, in_vals, [None] * len(node.outputs))
            self._check_outputs(node, ref, "perform output")
        if self.options.preallocated:
            self._check_preallocated(i, node, in_vals, ref)
        for var, value in zip(node.outputs, ref):
            values[var] = value

    def _perform(self, i: int, node: Apply, in_vals: list, prealloc: list) -> list:
        args = [copy_value(v) for v in in_vals]
        cells = [[p] for p in prealloc]
        try:
            node.op.perform(node, args, cells)
        except DebugModeError:
            raise
        except Exception as exc:
            raise_with_node(exc, node, i, {v: [x] for v, x in zip(node.inputs, in_vals)})
        outs = [c[0] for c in cells]
        self._check_destroyed(node, in_vals, args, "perform")
        self._check_views(node, args, outs)
        return outs

    def _compiled(self, i: int, node: Apply, in_vals: list, prealloc: list | None) -> list:
        program = self.compiled
        assert program is not None
        storage = program.storage
        args: list[Any] = []
        for var, value in zip(node.inputs, in_vals):
            if isinstance(var, Constant):
                args.append(value)
                continue
            arg = copy_value(value)
            storage[var][0] = arg
            args.append(arg)
        if prealloc is not None:
            for var, buf in zip(node.outputs, prealloc):
                storage[var][0] = buf
        try:
            program.thunks[i]()
        except Exception as exc:
            raise_with_node(exc, node, i, storage)
        outs = [storage[var][0] for var in node.outputs]
        self._check_destroyed(node, in_vals, args, self.kinds[i])
        return outs

    # -- checks ---------------------------------------------------------------------------
    def _check_outputs(self, node: Apply, outs: list, hint: str) -> None:
        for var, value in zip(node.outputs, outs):
            if not is_valid(var, value):
                raise InvalidValueError(var, value, hint=hint,
                                        specific_hint=type_mismatch(var, value))
            if self.options.check_finite and has_non_finite(value):
                raise InvalidValueError(var, value, hint=hint,
                                        specific_hint="non-finite elements not allowed")

    def _compare(self, node: Apply, in_vals: list, ref: list, name1: str, outs: list,
                 name2: str) -> None:
        for var, a, b in zip(node.outputs, ref, outs):
            if not approx_equal(var, a, b):
                raise BadThunkOutput(var, name1, a, name2, b, in_vals)

    def _check_destroyed(self, node: Apply, originals: list, args: list, impl: str) -> None:
        destroyed = {j for js in node.op.destroy_map.values() for j in js}
        for j, (orig, now) in enumerate(zip(originals, args)):
            if j not in destroyed and now is not orig and not identical(orig, now):
                raise BadDestroyMap(node, j, orig, now, impl)

    def _check_views(self, node: Apply, args: list, outs: list) -> None:
        op = node.op
        for k, out in enumerate(outs):
            declared = set(op.view_map.get(k, [])) | set(op.destroy_map.get(k, []))
            for j, arg in enumerate(args):
                if j not in declared and shares_memory(out, arg):
                    raise BadViewMap(node, k, out, in_alias_idx=j)
            # Two outputs of the node sharing memory are harmless when they view a declared
            # input (an in-place op on either is then refused as on that input), or when one
            # of them is read by no other node (a function output, a scratch buffer).
            views_declared = declared and any(shares_memory(out, args[j]) for j in declared)
            if not views_declared and self._read_by_nodes(node.outputs[k]):
                for m in range(k + 1, len(outs)):
                    if self._read_by_nodes(node.outputs[m]) and shares_memory(out, outs[m]):
                        raise BadViewMap(node, k, out, out_alias_idx=m)
            if declared and self.options.warn_input_not_reused and nonempty(out) \
                    and not any(shares_memory(out, args[j]) for j in declared):
                what = "destroyed" if k in op.destroy_map else "viewed"
                warnings.warn(f"input {sorted(declared)} of {node} is declared {what} by "
                              f"output {k}, but the output does not reuse its memory",
                              DebugModeWarning, stacklevel=2)

    def _read_by_nodes(self, var: Any) -> bool:
        """Whether a node of the graph reads ``var`` (not only the function's output list)."""
        return any(client != OUTPUT for client, _ in self.fgraph.clients.get(var, ()))

    def _check_strides(self, node: Apply, ref: list, outs: list, kind: str) -> None:
        level = self.options.check_strides
        if not level:
            return
        for var, a, b in zip(node.outputs, ref, outs):
            sa, sb = effective_strides(a), effective_strides(b)
            if sa is None or sb is None or sa == sb:
                continue
            msg = (f"strides of output {var.index} of {node} differ: perform {a.strides}, "
                   f"{kind} {b.strides} (shape {a.shape})")
            if level >= 2:
                raise StridesMismatch(msg)
            warnings.warn(msg, DebugModeWarning, stacklevel=2)

    def _check_preallocated(self, i: int, node: Apply, in_vals: list, ref: list) -> None:
        for label, buffers in self._preallocations(i, ref):
            if self.check_py:
                outs = self._perform(i, node, in_vals, buffers)
                self._compare(node, in_vals, ref, "perform", outs,
                              f"perform with {label} output")
            if i in self.compared and i not in self.precomputed:
                kind = self.kinds[i]
                outs = self._compiled(i, node, in_vals,
                                      [copy_value(b) for b in buffers])
                self._compare(node, in_vals, ref, "perform" if self.check_py else kind, outs,
                              f"{kind} with {label} output")
        self._previous[i] = [copy_value(r) for r in ref]

    def _preallocations(self, i: int, ref: list) -> list[tuple[str, list]]:
        kinds = self.options.preallocated
        result: list[tuple[str, list]] = []
        if "previous" in kinds and self._previous[i] is not None:
            result.append(("previous", [copy_value(v) for v in self._previous[i]]))
        arrays = [r if isinstance(r, np.ndarray) else None for r in ref]
        if not any(a is not None for a in arrays):
            return result

        def each(make: Callable[[np.ndarray], np.ndarray | None]) -> list:
            return [None if a is None else make(a) for a in arrays]

        if "c_contiguous" in kinds:
            result.append(("c_contiguous", each(lambda a: garbage(a.shape, a.dtype))))
        if "f_contiguous" in kinds and any(a is not None and a.ndim >= 2 for a in arrays):
            result.append(("f_contiguous",
                           each(lambda a: np.asfortranarray(garbage(a.shape, a.dtype)))))
        if "strided" in kinds:
            ndim = min(self.options.preallocated_ndim,
                       max((a.ndim for a in arrays if a is not None), default=0))
            for steps in itertools.product((1, -2), repeat=ndim):
                if all(s == 1 for s in steps):
                    continue
                result.append((f"strided {steps}",
                               each(lambda a, st=steps: strided_garbage(a, st))))
        if "wrong_size" in kinds:
            for delta in (1, -1):
                result.append((f"wrong_size ({delta:+d})", each(
                    lambda a, d=delta: garbage(tuple(max(n + d, 0) for n in a.shape),
                                                a.dtype))))
        return result

    def _check_replacements(self, values: dict) -> None:
        memo = dict(values)
        for rep in self.replacements:
            try:
                old_val, new_val = evaluate_replacement(rep, memo)
            except DebugModeError:
                raise
            except Exception:  # noqa: BLE001 - e.g. an abstract op only rewrites can replace
                continue
            if not replacement_equal(rep.old, rep.new, old_val, new_val):
                raise BadOptimization(rep.old, rep.new, old_val, new_val, rep.reason,
                                      debugprint(rep.old, file="str"),
                                      debugprint(rep.new, file="str"))


__all__ = ["DebugMode", "DebugModeError", "DebugModeWarning", "BadThunkOutput",
           "BadOptimization", "BadDestroyMap", "BadViewMap", "StochasticOrder",
           "StridesMismatch", "InvalidValueError", "DebugLinker", "DebugProgram", "DebugOptions",
           "Replacement", "ReplacementTracker", "COMPILED_BACKENDS", "compiled_program",
           "graph_signature"]
