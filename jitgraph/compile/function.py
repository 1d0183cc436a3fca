"""``function()``: build, rewrite and link a graph into a callable :class:`Function`."""

from __future__ import annotations

import copy as _copy
import time
import warnings
from typing import Any, Sequence

from jitgraph.compile.collector import collection_paused, paused_collection
from jitgraph.compile.concurrency import compiling
from jitgraph.compile.givens import Substitution, constant_of_type, normalize_givens
from jitgraph.compile.io import In, Out, SymbolicInput, SymbolicOutput
from jitgraph.compile.mode import Mode, get_mode
from jitgraph.graph.shared import SharedVariable
from jitgraph.graph.basic import Constant, Variable, ancestors, graph_inputs
from jitgraph.graph.fg import FunctionGraph, MissingInputError
from jitgraph.graph.gradient_types import is_null
from jitgraph.compile import graph_cache
from jitgraph.compile.rewriting import protect_inputs, schedule
from jitgraph.config import config
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import NullTypeGradError


class UnusedInputError(ValueError):
    """An input of ``function`` is not needed to compute the outputs."""


def function(inputs: Sequence[Any], outputs: Any = None, mode: Any = None, updates: Any = None,
             givens: Any = None, no_default_updates: Any = False, accept_inplace: bool = False,
             name: str | None = None, rebuild_strict: bool = True,
             allow_input_downcast: bool | None = None, profile: Any = None,
             on_unused_input: str | None = None, trust_input: bool = False) -> "Function":
    """Compile a callable computing ``outputs`` from ``inputs``.

    ``updates`` (pairs or a dict) assign new values to shared variables after the outputs are
    computed; ``givens`` substitutes variables before compilation; ``mode`` picks rewrites and
    linker (default: the ``mode`` flag).
    """
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("function inputs must be a list or tuple of variables (did you pass a "
                        "single variable? use [x])")
    for k, item in enumerate(inputs):
        if isinstance(item, SymbolicInput) and not isinstance(item, In):
            raise TypeError(f"function input {k} is a {type(item).__name__}, the base class of "
                            "In; pass the variable itself or In(variable, ...)")
    if name is None:
        name = _caller_location()
    with paused_collection():  # see jitgraph.compile.collector
        maker = FunctionMaker(
            inputs=inputs, outputs=outputs, mode=get_mode(mode), updates=updates,
            givens=givens, no_default_updates=no_default_updates,
            allow_input_downcast=allow_input_downcast,
            on_unused_input=on_unused_input or config.on_unused_input,
            profile=config.profile if profile is None else profile, name=name,
            accept_inplace=accept_inplace, rebuild_strict=rebuild_strict)
        fn = maker.create()
    fn.trust_input = trust_input
    return fn


def _refuse_inplace(fgraph: FunctionGraph) -> None:
    inplace = [n for n in fgraph.toposort() if n.op.destroy_map]
    if inplace:
        raise TypeError(f"the graph contains the in-place operation {inplace[0].op} "
                        f"({inplace[0]}); pass accept_inplace=True to allow it")


def _caller_location() -> str:
    import sys

    frame = sys._getframe(2)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _normalize_updates(updates: Any) -> list[tuple[SharedVariable, Variable]]:
    if updates is None:
        return []
    if isinstance(updates, dict):
        if not hasattr(updates, "move_to_end") and len(updates) > 1 and type(updates) is not dict:
            warnings.warn("updates given as an unordered mapping", stacklevel=3)
        pairs = list(updates.items())
    else:
        pairs = list(updates)

    result = []
    seen = set()
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError(f"each update must be a (shared variable, expression) pair: {pair}")
        var, expr = pair
        if not isinstance(var, SharedVariable):
            raise TypeError(f"updates must update shared variables; {var} is not shared")
        if var in seen:
            raise ValueError(f"shared variable {var} is updated twice")
        seen.add(var)
        result.append((var, update_of_type(var, expr)))
    return result


def update_of_type(var: SharedVariable, expr: Any) -> Variable:
    """``expr``, the new value of ``var``, as a variable of ``var``'s type: a plain value
    becomes a constant of that type. As in Theano, an update whose broadcastable dimensions
    differ from the variable's is refused (the next call would see a value of another type)."""
    if not isinstance(expr, Variable):
        fitted = constant_of_type(var.type, expr)
        expr = fitted if fitted is not None else as_tensor_variable(expr)
    converted = var.type.convert_variable(expr)
    vb, eb = getattr(var.type, "broadcastable", None), getattr(expr.type, "broadcastable", None)
    if converted is not None and vb == eb:
        return converted
    dims = ("make the broadcastable dimensions match with T.unbroadcast(expr, axis, ...) or "
            "T.patternbroadcast(expr, var.broadcastable)")
    hint = (f"cast the update expression (e.g. T.cast(expr, "
            f"'{getattr(var.type, 'dtype', '?')}')) or {dims}" if converted is None else dims)
    raise TypeError(f"the update of shared variable {var.name or var} has type {expr.type} but "
                    f"the variable has type {var.type}; {hint}")


class FunctionMaker:
    """Holds what ``function`` was given, the rewritten graph and the linked program."""

    @compiling
    @collection_paused
    def __init__(self, inputs: Sequence[Any], outputs: Any, mode: Mode, updates: Any = None,
                 givens: Any = None, no_default_updates: Any = False,
                 allow_input_downcast: bool | None = None, on_unused_input: str = "raise",
                 profile: Any = False, name: str | None = None, fgraph: FunctionGraph | None = None,
                 rewrite: bool = True, accept_inplace: bool = True,
                 rebuild_strict: bool = True) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        self.mode = mode
        self.name = name
        self.allow_input_downcast = allow_input_downcast
        self.inputs = [i if isinstance(i, SymbolicInput) else In(i) for i in inputs]
        #: the keys of ``outputs`` given as a dict (sorted): calls then return a dict
        self.output_keys, listed = _output_keys(outputs)
        self.unpack_single, out_specs = _normalize_outputs(listed)
        self.outputs = out_specs
        self.profile = profile
        #: False lets ``givens`` replace a variable by one of another type (Theano's flag)
        self.rebuild_strict = rebuild_strict
        self._original = (list(inputs), outputs, updates, givens, no_default_updates)
        #: shared variables replaced by ``Function.copy(swap=...)``: original -> replacement
        self.swapped: dict[SharedVariable, SharedVariable] = {}
        explicit = [i.variable for i in self.inputs]
        _check_inputs_distinct(explicit)
        needed = self._computations(explicit, updates, givens, no_default_updates)
        # An explicit input computed from other variables cuts the graph there (Theano's
        # rule): what it is computed from is neither read nor needed.
        self.shared_inputs = [v for v in graph_inputs(needed, explicit)
                              if isinstance(v, SharedVariable) and v not in explicit]
        for var, _ in self.updates:
            if var not in self.shared_inputs and var not in explicit:
                self.shared_inputs.append(var)
        _check_unused(explicit, needed, on_unused_input)
        _check_missing(explicit + self.shared_inputs, needed)
        cache_key = None
        #: whether the rewritten graph came from the compiledir (see compile.graph_cache)
        self.graph_from_cache = False
        if fgraph is None:
            fgraph = FunctionGraph(explicit + self.shared_inputs, needed, clone=True)
            if not accept_inplace:  # theano.function's check: the user's graph must be pure
                _refuse_inplace(fgraph)
            if rewrite:
                cache_key, fgraph = self._cached_rewrite(fgraph)
                rewrite = not self.graph_from_cache
            if rewrite:
                self._protect(fgraph)
            fgraph.update_mapping = self._update_mapping()  # type: ignore[attr-defined]
        self.fgraph = fgraph
        fgraph.name = name  # (Theano's FunctionGraph carries its function's name)
        t1, c1 = time.perf_counter(), time.process_time()
        self.rewrite_stats = mode.rewrite(fgraph) if rewrite else None
        t2, c2 = time.perf_counter(), time.process_time()
        self.program = mode.linker.make_program(fgraph)
        t3, c3 = time.perf_counter(), time.process_time()
        if cache_key is not None and rewrite:
            self._store_graph(cache_key, fgraph, t2 - t1)
        self.compile_times = {"graph": t1 - t0, "rewrite": t2 - t1, "link": t3 - t2}
        #: the same stages in this process's CPU seconds (what compares on a busy machine)
        self.compile_cpu_times = {"graph": c1 - c0, "rewrite": c2 - c1, "link": c3 - c2}

    def _store_graph(self, key: str, fgraph: FunctionGraph, seconds: float) -> None:
        """Keep the rewritten graph, its node order and (when the linker can say it in a
        picklable form) the linked program in the compiledir (``seconds``: the rewrite's)."""
        stored = getattr(self.program, "stored", None)
        program = stored() if stored is not None else None
        # a stored program's order is the one it was linked with (scheduling again: 10 ms at
        # 1500 nodes)
        order = getattr(program, "order", None)
        if order is None:
            order = schedule(fgraph)
        graph_cache.store(key, fgraph.inputs, fgraph.outputs, order, program, seconds)

    def _update_mapping(self) -> dict[int, int]:
        """Theano's ``fgraph.update_mapping``: the position of each update among the graph's
        outputs -> the position of the input it replaces (the in-place pass writes an update
        into its variable's own buffer when it can)."""
        n_out, n_in = len(self.outputs), len(self.input_updates)
        explicit = [i.variable for i in self.inputs]
        positions = {id(v): k for k, v in enumerate(explicit + self.shared_inputs)}
        mapping = {n_out + j: k for j, (k, _) in enumerate(self.input_updates)}
        mapping.update({n_out + n_in + j: positions[id(var)]
                        for j, (var, _) in enumerate(self.updates)})
        return mapping

    def _mutable_inputs(self) -> list[int]:
        """Positions of the graph inputs in-place ops may overwrite."""
        n = len(self.inputs)
        updated = {v for v, _ in self.updates}
        return [k for k, inp in enumerate(self.inputs) if inp.mutable] + \
            [n + k for k, var in enumerate(self.shared_inputs) if var in updated]

    def _cached_rewrite(self, fgraph: FunctionGraph) -> tuple[str | None, FunctionGraph]:
        """``(key, graph)``: the rewritten graph from the compiledir when it holds one for this
        graph and mode (then ``graph_from_cache`` is set), else ``fgraph`` as it is."""
        if not graph_cache.enabled():
            return None, fgraph
        key = graph_cache.graph_key(fgraph, self._mutable_inputs(), self.mode)
        if key is None:
            return None, fgraph
        found = graph_cache.load(key, fgraph.inputs)
        if found is None or len(found[0]) != len(fgraph.inputs):
            return key, fgraph
        self.graph_from_cache = True
        cached = FunctionGraph(found[0], found[1], clone=False)
        cached.stored_order, cached.stored_program = found[2], found[3]
        return key, cached

    def _protect(self, fgraph: FunctionGraph) -> None:
        """Only inputs passed as ``In(mutable=True)`` and shared variables whose old value the
        update replaces may be overwritten by in-place ops."""
        mutable = {fgraph.inputs[k] for k in self._mutable_inputs()}
        # An in-place op the user put in the graph (accept_inplace=True) overwrites its input
        # as Theano lets it, even an input not marked mutable.
        destroyed = {node.inputs[i] for node in fgraph.apply_nodes
                     for positions in node.op.destroy_map.values() for i in positions}
        protect_inputs(fgraph, mutable | (destroyed & set(fgraph.inputs)))

    @property
    def expanded_inputs(self) -> list[SymbolicInput]:
        """Theano's name: the explicit inputs, then an ``In`` for each shared variable the
        function reads, whose ``value`` is that variable's container: assigning its ``data``
        changes what the next call reads, as ``set_value`` does."""
        return list(self.inputs) + [In(var, value=var.container, shared=True, implicit=True)
                                    for var in self.shared_inputs]

    def _computations(self, explicit: list, updates: Any, givens: Any,
                      no_default_updates: Any) -> list[Variable]:
        """What the graph computes, ``givens`` applied: the outputs, then the updates of
        ``In(update=...)`` inputs (set in ``self.input_updates``), then the shared-variable
        updates (explicit, then default ones; set in ``self.updates``), as Theano orders them:
        the inputs' updates in the order of the inputs, shared variables coming last."""
        substitute = Substitution(normalize_givens(givens, explicit, self.rebuild_strict))
        self.updates = _normalize_updates(updates)
        input_updates = _input_updates(self.inputs)
        n_out, n_upd = len(self.outputs), len(self.updates)
        computed = substitute([o.variable for o in self.outputs]
                              + [u for _, u in self.updates] + [u for _, u in input_updates])
        self.updates = [(var, expr) for (var, _), expr in
                        zip(self.updates, computed[n_out:n_out + n_upd])]
        #: ``(position, expression)``: the value an ``In(update=...)`` input keeps for the
        #: next call
        self.input_updates = [(k, expr) for (k, _), expr in
                              zip(input_updates, computed[n_out + n_upd:])]
        self._add_default_updates(computed, explicit, no_default_updates, substitute)
        return (computed[:n_out] + [u for _, u in self.input_updates]
                + [u for _, u in self.updates])

    def _add_default_updates(self, computed: list, explicit: list, no_default_updates: Any,
                             substitute: Substitution) -> None:
        """Add the ``default_update`` of every shared variable the graph reaches (after
        ``givens``) that has no explicit update and is not excluded by ``no_default_updates``
        (True, or a list of shared variables); ``givens`` apply to the default updates too."""
        if not isinstance(no_default_updates, (bool, list, tuple, set, frozenset, type(None))):
            raise TypeError("no_default_updates must be True, False or a list of shared "
                            f"variables, got {no_default_updates!r} "
                            f"({type(no_default_updates).__name__})")
        if no_default_updates is True:
            return
        skip = set(no_default_updates or ())
        updated = {v for v, _ in self.updates}
        pending = list(computed)
        while pending:
            fresh = []
            for var in graph_inputs(pending, explicit):
                default = getattr(var, "default_update", None)
                if (isinstance(var, SharedVariable) and default is not None and var not in updated
                        and var not in skip and var not in explicit):
                    target, expr = _normalize_updates([(var, default)])[0]
                    expr = substitute([expr])[0]
                    self.updates.append((target, expr))
                    updated.add(var)
                    fresh.append(expr)
            pending = fresh

    # -- what Function.copy builds on ------------------------------------------------------
    @compiling
    def relinked(self) -> "FunctionMaker":
        """This maker with a program of its own for the same graph (separate storage)."""
        twin = _copy.copy(self)
        twin.program = self.mode.linker.make_program(self.fgraph)
        return twin

    def without_updates(self) -> "FunctionMaker":
        """A maker for the same outputs with no update at all: neither explicit, default nor
        ``In(update=...)`` ones (the graph is rebuilt: in-place rewrites may have relied on an
        update replacing a shared value)."""
        inputs, outputs, _, givens, _ = self._original
        maker = FunctionMaker(
            [_without_update(i) for i in inputs], outputs, self.mode, givens=givens,
            no_default_updates=True, allow_input_downcast=self.allow_input_downcast,
            on_unused_input="ignore", profile=self.profile, name=self.name,
            rebuild_strict=self.rebuild_strict)
        if not self.swapped:
            return maker
        swapped = maker.with_shared_swapped(self.swapped, missing_ok=True)
        swapped.swapped = dict(self.swapped)
        return swapped

    def with_shared_swapped(self, swap: dict, missing_ok: bool = False) -> "FunctionMaker":
        """This maker reading and updating other shared variables (of the same types) in
        place of the keys of ``swap``; the compiled program is position-based and unchanged.
        ``missing_ok`` skips keys the function does not use (a copy without its updates may
        no longer read a shared variable the original only updated)."""
        position = {var: k for k, var in enumerate(self.shared_inputs)}
        if missing_ok:
            swap = {old: new for old, new in swap.items() if old in position}
        for old, new in swap.items():
            if not isinstance(old, SharedVariable):
                raise TypeError(f"swap: the keys must be shared variables of the function, got "
                                f"{old} ({type(old).__name__})")
            if not isinstance(new, SharedVariable):
                raise TypeError(f"swap: {old} must be swapped with a shared variable, got "
                                f"{new} ({type(new).__name__})")
            if old not in position:
                raise ValueError(f"swap: shared variable {old} is not used by this function; "
                                 f"its shared variables are {self.shared_inputs}")
            if old.type != new.type:
                raise TypeError(f"swap: {old} has type {old.type} but {new} has type "
                                f"{new.type}; swap it with a shared variable of the same type")
        twin = _copy.copy(self)
        twin.shared_inputs = [swap.get(v, v) for v in self.shared_inputs]
        if len(set(twin.shared_inputs)) != len(twin.shared_inputs):
            raise ValueError("swap: two shared variables of the function would become the same "
                             f"one ({twin.shared_inputs})")
        twin.updates = [(swap.get(v, v), expr) for v, expr in self.updates]
        swapped = {orig: swap.get(cur, cur) for orig, cur in self.swapped.items()}
        replaced = set(self.swapped.values())
        swapped.update({old: new for old, new in swap.items() if old not in replaced})
        twin.swapped = swapped
        return twin

    def create(self) -> "Function":
        return Function(self)


def _output_keys(outputs: Any) -> tuple[list[str] | None, Any]:
    """For outputs given as a dict of name -> variable (Theano 1.0): the names, sorted, and
    the variables in that order; other outputs are returned as they are, with no keys."""
    if not isinstance(outputs, dict):
        return None, outputs
    keys = list(outputs)
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(f"function outputs given as a dict need string keys (the names of "
                            f"the outputs), got {key!r} ({type(key).__name__})")
    keys.sort()
    return keys, [outputs[k] for k in keys]


def _normalize_outputs(outputs: Any) -> tuple[bool, list[Out]]:
    if outputs is None:
        return False, []
    single = not isinstance(outputs, (list, tuple))
    items = [outputs] if single else list(outputs)
    specs = []
    for item in items:
        if isinstance(item, SymbolicOutput):
            specs.append(item)
        else:
            specs.append(Out(item if isinstance(item, Variable) else as_tensor_variable(item)))
    return single, specs


def _input_updates(inputs: list[SymbolicInput]) -> list[tuple[int, Variable]]:
    """``(position, expression)`` of the inputs given with ``In(update=...)``, type-checked."""
    result = []
    for k, inp in enumerate(inputs):
        if inp.update is None:
            continue
        var = inp.variable
        converted = var.type.convert_variable(inp.update)
        if converted is None:
            raise TypeError(f"input {inp.name or var} has type {var.type} but its update "
                            f"{inp.update} has type {inp.update.type}; the update must have the "
                            "input's type")
        result.append((k, converted))
    return result


def _without_update(inp: Any) -> Any:
    if not isinstance(inp, SymbolicInput) or inp.update is None:
        return inp
    stripped = _copy.copy(inp)
    stripped.update = None
    return stripped


def _check_inputs_distinct(inputs: list) -> None:
    seen = set()
    for i, var in enumerate(inputs):
        if isinstance(var, Constant):
            raise TypeError(f"input {i} ({var}) is a constant; constants cannot be inputs")
        if isinstance(var, SharedVariable):
            raise TypeError(f"Cannot use a shared variable ({var}) as explicit input {i}: "
                            "functions read shared variables implicitly. To pass its value "
                            "explicitly, use a new input and givens={shared_var: new_input}")
        if var in seen:
            # Theano's class for it: the value passed the second time would be ignored
            raise UnusedInputError(f"variable {var} is used twice as an input")
        seen.add(var)


def _check_unused(explicit: list, needed: list, policy: str) -> None:
    if policy == "ignore":
        return
    used = set(ancestors(needed, explicit))
    for i, var in enumerate(explicit):
        if var not in used:
            msg = (f"function input {i} ({var}) is not used to compute the outputs; pass "
                   "on_unused_input='warn' or 'ignore' to allow this")
            if policy == "raise":
                raise UnusedInputError(msg)
            warnings.warn(msg, stacklevel=5)


def _check_missing(available: list, needed: list) -> None:
    have = set(available)
    for var in graph_inputs(needed, available):
        if var in have or isinstance(var, Constant):
            continue
        if is_null(var):  # an undefined gradient can be computed by no function (Theano's rule)
            raise NullTypeGradError(
                f"the outputs depend on an undefined gradient, which cannot be computed: "
                f"{var.type.why_null}")
        raise MissingInputError(f"the outputs depend on {var} ({var.type}), which is not an input "
                                "of the function; add it to the inputs or substitute it with givens")


from jitgraph.compile.function_call import Function  # noqa: E402  (the callable half)
