"""The compiled callable: argument checking, running the program, outputs and updates."""

from __future__ import annotations

import copy as _copy
import operator
import time
from typing import Any

import numpy as np

from jitgraph.compile.aliasing import outputs_to_copy, shares_memory
from jitgraph.compile.concurrency import (call_gate, compiling, give_all, own_gate, take_all,
                                          update_gates)
from jitgraph.compile.fast_call import make_fast_call
from jitgraph.compile.function_storage import FunctionStorage
from jitgraph.compile.profiling import ProfileStats
from jitgraph.config import config
from jitgraph.graph.basic import Constant, Variable
from jitgraph.graph.container import Container
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.core.default import Default


class Function(FunctionStorage):
    """A compiled function. Call it with values for its inputs (positionally or by name).

    ``f.maker.fgraph`` is the rewritten graph, ``f.maker.mode`` the mode, ``f.trust_input``
    skips input checking when True.
    """

    def __init__(self, maker: Any) -> None:
        self.maker = maker
        self.name = maker.name
        self._trust_input = False
        program = maker.program
        self._program = program
        self.profile = _make_profile(maker)
        # What a call runs: the program, or the profiler's timed loop around it.
        self._run = program.run if self.profile is None else self.profile.attach(maker, program)
        self._n_explicit = len(maker.inputs)
        self._input_cells = program.input_cells[:self._n_explicit]
        self._shared_cells = list(zip(maker.shared_inputs, program.input_cells[self._n_explicit:]))
        # The program's outputs: the function's outputs, the new values of In(update=...)
        # inputs, the new values of shared variables.
        n_out, n_in_upd = len(maker.outputs), len(maker.input_updates)
        n_before_upd = n_out + n_in_upd
        self._output_cells = program.output_cells[:n_out]
        self._update_cells = list(zip([v for v, _ in maker.updates],
                                      program.output_cells[n_before_upd:]))
        copies = _values_needing_copy(maker)
        self._copy_output = copies[:n_out]
        # update values that would share memory with an input, a constant or another state
        # (A <- B leaves B's array to A only if B gets a new one)
        self._copy_input_update = copies[n_out:n_before_upd]
        self._copy_update = copies[n_before_upd:]
        # GPU programs leave some outputs on the device: they are returned as NumPy arrays
        # unless the output was asked for with Out(..., borrow=True).
        device_outputs = getattr(program, "device_outputs", ())
        self._download = [k in device_outputs and not spec.borrow
                          for k, spec in enumerate(maker.outputs)]
        # (a host shared variable updated on the device gets a NumPy value)
        self._update_download = [n_before_upd + k in device_outputs
                                 for k in range(len(maker.updates))]
        # In(update=...) inputs: (position, cell of the new value, whether to download it)
        self._input_update_cells = [
            (k, program.output_cells[n_out + j], n_out + j in device_outputs)
            for j, (k, _) in enumerate(maker.input_updates)]
        # Explicit inputs that go straight to the device accept a CuPy array as it is.
        self._device_inputs = {k for k in getattr(program, "device_inputs", ())
                               if k < len(maker.inputs)}
        self._names = {inp.name: k for k, inp in enumerate(maker.inputs) if inp.name}
        #: names several inputs have: passing one by keyword is an error (which input?)
        self._ambiguous = {inp.name for k, inp in enumerate(maker.inputs)
                           if inp.name and self._names[inp.name] != k}
        self._filters = [self._input_filter(inp, var)
                         for inp, var in zip(maker.inputs, program.fgraph.inputs)]
        # The cell holding the value each input takes when a call leaves it out (None: the
        # input is required); f[name] reads and sets it, an In(update=...) input's update
        # replaces it after a call. In(value=g.container[x]) shares g's cell: the two
        # functions then read and update one state.
        self._defaults = [self._default_cell(k, getattr(inp, "value", None))
                          for k, inp in enumerate(maker.inputs)]
        # An ndarray of exactly the input's dtype and rank needs no conversion when the type has
        # no broadcastable dimension to check: the common case skips TensorType.filter.
        self._fast_types = [_fast_type(inp.variable.type) for inp in maker.inputs]

        # The numpy.seterr_* flags are read-only: their errstate is fixed for the process.
        self._seterr = config.seterr_kwargs()
        self._needs_errstate = getattr(program, "needs_errstate", True) and bool(self._seterr)
        # With allow_gc the output cells are emptied after a call, except those of constant
        # outputs: nothing would fill them again (f.fn.allow_gc changes it for this function).
        self._gc_cells = [cell for cell, var in zip(self._output_cells, maker.fgraph.outputs)
                          if not isinstance(var, Constant)]
        self._allow_gc = bool(maker.mode.linker.allow_gc)
        self._cells_to_clear = self._gc_cells if self._allow_gc else []
        # Calls with exactly this many positional arguments (and no keywords) skip _bind;
        # -1 when an implicit input must be checked there.
        self._n_positional = (-1 if any(inp.implicit for inp in maker.inputs)
                              else self._n_explicit)
        # Inputs in-place ops may overwrite: a call checks them for memory shared with another
        # input (only functions that have one pay for it)
        self._mutable_positions = frozenset(k for k, inp in enumerate(maker.inputs)
                                            if inp.mutable)
        # Calls from several threads (see .concurrency): the program's gate, this function's
        # clones for calls that find it taken, the gates a call updating state holds (which
        # keep other calls off the program as well: no function without them runs it).
        self._gate = call_gate(program)
        self._spares: list[Function] = []
        own = own_gate(maker) if (self._input_update_cells or self.profile is not None) else None
        self._update_gates = update_gates([var for var, _ in maker.updates], own)
        self._call = self._calling_path()

    # -- calling --------------------------------------------------------------------------
    #: ``f(...)`` calls the instance's ``_call``: the path generated for this function
    #: (:mod:`.fast_call`) or :meth:`generic_call` (a property, so no Python frame is added)
    __call__ = property(operator.attrgetter("_call"))

    @property
    def __signature__(self) -> Any:  # inspect.signature(f): the property above is no function
        import inspect

        return inspect.signature(self.generic_call)

    @property
    def trust_input(self) -> bool:
        """When True, calls store their arguments without checking them."""
        return self._trust_input

    @trust_input.setter
    def trust_input(self, value: bool) -> None:
        if bool(value) == self._trust_input and "_call" in self.__dict__:
            return  # the generated path already fits
        self._trust_input = bool(value)
        self._call = self._calling_path()

    def _set_allow_gc(self, value: bool) -> None:
        """Whether calls empty the output cells afterwards (``f.fn.allow_gc = value``)."""
        self._allow_gc = bool(value)
        self._cells_to_clear = self._gc_cells if self._allow_gc else []
        self._call = self._calling_path()

    def _calling_path(self) -> Any:
        return make_fast_call(self) or self.generic_call

    def _input_filter(self, inp: Any, var: Variable):
        allow = inp.allow_downcast
        if allow is None:
            allow = self.maker.allow_input_downcast
        vtype = inp.variable.type
        strict = inp.strict
        if _only_defaulted(self._program.fgraph, var):
            # None is the "no value" that default(x, fallback) replaces (Theano's way)
            return lambda value: None if value is None else vtype.filter(
                value, strict=strict, allow_downcast=allow)
        return lambda value: vtype.filter(value, strict=strict, allow_downcast=allow)

    def generic_call(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function: every way of passing inputs (keywords, defaults, device
        values), profiled when the function is. Safe from several threads at once (see
        :mod:`.concurrency`)."""
        if self._update_gates:  # they keep other calls off the program too
            _fc_held = take_all(self._update_gates)  # (the name marks them held: .concurrency)
            try:
                return self._generic_call(args, kwargs)
            finally:
                give_all(_fc_held)
        try:
            self._gate.pop()
        except IndexError:  # the program is running: this call runs on a clone
            return self._on_clone(*args, **kwargs)
        try:
            return self._generic_call(args, kwargs)
        finally:
            self._gate.append(True)

    def _on_clone(self, *args: Any, **kwargs: Any) -> Any:
        """Call a clone of this function (its own program), taken from the pool of spares
        or made, and put back in the pool after the call."""
        try:
            clone = self._spares.pop()
        except IndexError:
            clone = self._clone()
        try:
            if clone._trust_input != self._trust_input:
                clone.trust_input = self._trust_input
            return clone._call(*args, **kwargs)
        finally:
            self._spares.append(clone)

    @compiling
    def _clone(self) -> "Function":
        """This function linked again: its own cells and buffers; the same inputs' default
        values and shared variables. (Only functions without update gates have clones.)"""
        maker = self.maker.relinked()
        maker.profile = self.profile if self.profile is not None else False
        clone = Function(maker)
        clone._defaults = self._defaults
        clone.trust_input = self._trust_input
        return clone

    def _generic_call(self, args: tuple, kwargs: dict) -> Any:
        """The call, on this function's program (its gate and locks held)."""
        profile = self.profile
        t0 = time.perf_counter() if profile is not None else 0.0
        if kwargs or len(args) != self._n_positional:
            args = self._bind(args, kwargs)
        cells = self._input_cells
        if self.trust_input:
            for cell, value in zip(cells, args):
                cell[0] = value
        else:
            for k, value in enumerate(args):
                fast = self._fast_types[k]
                if (fast is not None and type(value) is np.ndarray and value.dtype is fast[0]
                        and value.ndim == fast[1]):
                    cells[k][0] = value
                    continue
                if k in self._device_inputs and _device_value_fits(
                        value, self.maker.inputs[k].variable.type):
                    cells[k][0] = value
                    continue
                try:
                    cells[k][0] = self._filters[k](value)
                except (TypeError, ValueError) as exc:
                    raise _bad_input(self.maker.inputs[k], k, value, exc) from None
        if self._mutable_positions and not self.trust_input:
            self._copy_aliased_inputs()
        t1 = time.perf_counter() if profile is not None else 0.0
        self._execute()
        t2 = time.perf_counter() if profile is not None else 0.0
        outputs = []
        for cell, needs_copy, download in zip(self._output_cells, self._copy_output,
                                              self._download):
            value = cell[0]
            if download and type(value) is not np.ndarray and hasattr(value, "get"):
                outputs.append(value.get())
                continue
            outputs.append(value.copy() if needs_copy and hasattr(value, "copy") else value)
        self._store_updates()
        for cell in self._cells_to_clear:
            cell[0] = None
        if profile is not None:
            profile.record_call(t2 - t1, time.perf_counter() - t0)
        if self.maker.output_keys is not None:
            return dict(zip(self.maker.output_keys, outputs))
        if self.maker.unpack_single:
            return outputs[0]
        return outputs

    def _copy_aliased_inputs(self) -> None:
        """Give a copy to each input whose value shares memory with an earlier input's when
        either of the two may be overwritten, as Theano does at every call of a function with a
        mutable input: an in-place op must never overwrite a buffer another input still reads
        (``f(v, v)``, ``f(v, v[::1])``, ``f(m, m.T)``). The first of them keeps the caller's
        array (and may overwrite it, as it was passed mutable)."""
        cells = self._input_cells
        mutable = self._mutable_positions
        for i in range(1, len(cells)):
            value = cells[i][0]
            for j in range(i):
                if (i in mutable or j in mutable) and shares_memory(cells[j][0], value):
                    cells[i][0] = value.copy() if hasattr(value, "copy") else _copy.copy(value)
                    break

    def _bind(self, args: tuple, kwargs: dict) -> list:
        n = self._n_explicit
        if len(args) > n:
            raise TypeError(f"function {self.name} takes {n} inputs, got {len(args)}")
        values = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            if key in self._ambiguous:
                raise TypeError(f"function {self.name} has several inputs named {key!r}; pass "
                                "them by position")
            if key not in self._names:
                raise TypeError(f"function {self.name} has no input named {key!r}; inputs: "
                                f"{[i.name for i in self.maker.inputs]}")
            k = self._names[key]
            if values[k] is not _MISSING:
                raise TypeError(f"input {key!r} given twice (positionally and by name)")
            values[k] = value
        for k, value in enumerate(values):
            if value is not _MISSING and self.maker.inputs[k].implicit:
                raise TypeError(f"input {k} ({self.maker.inputs[k].name}) of function "
                                f"{self.name} is implicit: it always takes its own value")
            if value is _MISSING:
                inp = self.maker.inputs[k]
                if getattr(inp, "value", None) is None:  # an input without default value
                    raise TypeError(f"missing input {k} ({inp.name or inp.variable}) of "
                                    f"function {self.name}")
                values[k] = self._defaults[k][0]
        return values

    # -- other API ------------------------------------------------------------------------
    def __copy__(self) -> "Function":
        """``copy.copy(f)`` is ``f.copy()``, as in Theano."""
        return self.copy()

    @property
    def _check_for_aliased_inputs(self) -> bool:
        """Whether calls check the inputs for shared memory: only functions with an input
        an in-place op may overwrite (``In(mutable=True)``) need it."""
        return bool(self._mutable_positions)

    def copy(self, share_memory: bool = False, swap: dict | None = None,
             delete_updates: bool = False, name: str | None = None, profile: Any = None
             ) -> "Function":
        """A new function computing the same outputs.

        ``swap`` maps shared variables of this function to other shared variables of the same
        types, which the copy reads and updates instead; ``delete_updates`` gives a copy that
        updates nothing (neither shared variables nor ``In(update=...)`` inputs);
        ``share_memory`` lets the copy use this function's intermediate storage (otherwise it
        gets its own). The inputs' default values start from those given to ``In``, not from
        this function's current ones. As in Theano, a copy returns its outputs as a list even
        when the function was built with a single output.
        """
        maker = self.maker
        if delete_updates:
            if swap:
                maker.with_shared_swapped(swap)  # checks swap against this function
            new_maker = maker.without_updates()
        elif share_memory and not profile and self.profile is None:
            new_maker = _copy.copy(maker)  # the same program: its storage is shared
        else:
            new_maker = maker.relinked()
        if swap:
            new_maker = new_maker.with_shared_swapped(swap, missing_ok=delete_updates)
        new_maker.name = name if name is not None else (
            f"{maker.name} copy" if maker.name else None)
        new_maker.profile = maker.profile if profile is None else profile
        new_maker.unpack_single = False
        copy = Function(new_maker)
        if copy._program is self._program and (
                list(map(id, copy._update_gates)) != list(map(id, self._update_gates))):
            # one program: every call of either must hold a gate the other's calls hold
            copy._update_gates = update_gates([], None, self._update_gates + copy._update_gates)
            copy._call = copy._calling_path()
        return copy

    # -- inputs' default values and state ---------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        """The value input ``key`` (its name or variable) takes when a call leaves it out."""
        return self._defaults[self._input_position(key)][0]

    def __setitem__(self, key: Any, value: Any) -> None:
        """Set the value input ``key`` (its name or variable) takes when a call leaves it out."""
        k = self._input_position(key)
        self._defaults[k][0] = self._checked_default(k, value)

    @property
    def value(self) -> "InputValues":
        """``f.value[key]``: the same as ``f[key]``."""
        return InputValues(self)

    def _input_position(self, key: Any) -> int:
        """The position of input ``key``: its name, variable, ``In`` spec or position."""
        if isinstance(key, str):
            if key in self._ambiguous:
                raise TypeError(f"function {self.name} has several inputs named {key!r}; use "
                                "the input variable or its position")
            k = self._names.get(key)
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            k = int(key) if 0 <= key < len(self.maker.inputs) else None
        else:
            k = next((k for k, inp in enumerate(self.maker.inputs)
                      if inp.variable is key or inp is key), None)
        if k is None:
            raise TypeError(f"function {self.name} has no input {key!r}; its named inputs are "
                            f"{sorted(self._names)}")
        return k

    def _default_cell(self, k: int, value: Any) -> list:
        """The cell of input ``k``'s default value: a container's own cell (shared with the
        function or variable it belongs to), else a new one holding the checked value."""
        if isinstance(value, Container):
            return value.storage
        return [self._checked_default(k, value)]

    def _checked_default(self, k: int, value: Any) -> Any:
        if value is None:
            return None
        try:
            return self._filters[k](value)
        except (TypeError, ValueError) as exc:
            inp = self.maker.inputs[k]
            raise type(exc)(f"the value of input {k} ({inp.name or inp.variable}) does not fit "
                            f"its type {inp.variable.type}: {exc}") from None

    def free(self) -> None:
        """Drop intermediate values held between calls (with allow_gc=False)."""
        for cell in self._program.storage.values():
            if cell is not None:
                cell[0] = None
        for var in self._program.fgraph.variables:
            if isinstance(var, Constant):
                self._program.storage[var][0] = var.data

    def __reduce__(self) -> Any:
        maker = self.maker
        state = {"original": maker._original, "mode": maker.mode, "name": self.name,
                 "fgraph": (maker.fgraph.inputs, maker.fgraph.outputs),
                 "allow_input_downcast": maker.allow_input_downcast,
                 "trust_input": self.trust_input, "swapped": maker.swapped,
                 "unpack_single": maker.unpack_single,
                 "rebuild_strict": maker.rebuild_strict,
                 # the cells themselves: functions pickled (or deep-copied) together that
                 # shared an input's state (In(value=g.container[x])) still share it
                 "default_cells": list(self._defaults)}
        return (_unpickle_function, (state,))

    def __repr__(self) -> str:
        return f"<jitgraph.Function {self.name}>"


_MISSING = object()


class InputValues:
    """``Function.value``: the inputs' default values by name or variable."""

    def __init__(self, function: Function) -> None:
        self._function = function

    def __getitem__(self, key: Any) -> Any:
        return self._function[key]

    def __contains__(self, key: Any) -> bool:
        try:
            self._function._input_position(key)
        except TypeError:
            return False
        return True

    def __setitem__(self, key: Any, value: Any) -> None:
        self._function[key] = value


def _only_defaulted(fgraph: FunctionGraph, var: Variable) -> bool:
    """Whether every node reading input ``var`` is a ``default(x, fallback)``."""
    clients = fgraph.clients.get(var, ())
    return bool(clients) and all(isinstance(getattr(node, "op", None), Default)
                                 for node, _ in clients)


def _fast_type(vtype: Any) -> tuple[np.dtype, int] | None:
    dtype = getattr(vtype, "dtype", None)
    bcast = getattr(vtype, "broadcastable", None)
    if dtype is None or bcast is None or any(bcast) or getattr(vtype, "filter_checks_isfinite",
                                                               False):
        return None
    return np.dtype(dtype), len(bcast)


def _device_value_fits(value: Any, vtype: Any) -> bool:
    """A CuPy array of exactly ``vtype``'s dtype, rank and broadcastable dimensions."""
    if not type(value).__module__.startswith("cupy") or not hasattr(value, "dtype"):
        return False
    bcast = getattr(vtype, "broadcastable", None)
    return (bcast is not None and value.dtype.name == getattr(vtype, "dtype", None)
            and value.ndim == len(bcast)
            and all(n == 1 for b, n in zip(bcast, value.shape) if b))


def _bad_input(inp: Any, k: int, value: Any, exc: Exception) -> Exception:
    """The error of a call given a value its input's type refuses: a TypeError, or a
    ValueError when the type said the value itself is wrong (text for numbers), as Theano."""
    got = (f"{type(value).__name__} of dtype {value.dtype} and shape {value.shape}"
           if hasattr(value, "dtype") and hasattr(value, "shape") else repr(value)[:80])
    name = inp.name or str(inp.variable)
    kind = ValueError if isinstance(exc, ValueError) else TypeError
    return kind(f'bad input argument "{name}" at index {k} (0-based): expected '
                     f"{inp.variable.type}, got {got}: {exc}")


def _values_needing_copy(maker: Any) -> list[bool]:
    """Per output of the program (returned outputs, then ``In(update=...)`` values, then
    shared-variable updates): whether a call copies it before handing it over, so that it
    shares no memory with an input, a constant, another output or another state (see
    :func:`~.aliasing.outputs_to_copy`)."""
    fgraph = maker.fgraph
    n_explicit = len(maker.inputs)
    input_borrow = [bool(getattr(inp, "borrow", False)) or bool(inp.mutable)
                    for inp in maker.inputs]
    input_borrow += [True] * (len(fgraph.inputs) - n_explicit)  # shared variables' values
    updated = [fgraph.inputs[k] for k in maker._update_mapping().values()]
    return outputs_to_copy(fgraph, len(maker.outputs), [o.borrow for o in maker.outputs],
                           input_borrow, updated)


def _unpickle_function(state: dict) -> Any:
    if not config.unpickle_function:
        return None
    from jitgraph.compile.function import FunctionMaker

    inputs, outputs, updates, givens, no_default = state["original"]
    kwargs: dict[str, Any] = {}
    if not config.reoptimize_unpickled_function:
        f_in, f_out = state["fgraph"]
        kwargs = {"fgraph": FunctionGraph(f_in, f_out, clone=False), "rewrite": False}
    maker = FunctionMaker(inputs, outputs, state["mode"], updates=updates, givens=givens,
                          no_default_updates=no_default,
                          allow_input_downcast=state["allow_input_downcast"],
                          on_unused_input="ignore", name=state["name"],
                          rebuild_strict=state.get("rebuild_strict", True), **kwargs)
    if state.get("swapped"):
        swapped = state["swapped"]
        maker = maker.with_shared_swapped(swapped, missing_ok=True)
        maker.swapped = dict(swapped)
    maker.unpack_single = state.get("unpack_single", maker.unpack_single)
    fn = maker.create()
    fn.trust_input = state["trust_input"]
    if "default_cells" in state:  # the state the pickled function had reached
        fn._defaults = list(state["default_cells"])
    elif "defaults" in state:  # (pickled before the cells were kept)
        for cell, value in zip(fn._defaults, state["defaults"]):
            cell[0] = value
    return fn


def _make_profile(maker: Any) -> Any:
    """The function's ProfileStats: the one passed as ``profile=``, else one from the mode
    (ProfileMode gathers its functions' profiles), else a new one when ``profile`` is true."""
    spec = maker.profile
    from_mode = getattr(maker.mode, "make_profile", None)
    if not spec and from_mode is None:
        return None

    if getattr(maker.mode, "supports_profiling", True) is False:
        raise ValueError(f"{type(maker.mode).__name__} does not support profiling "
                         "(profile=True); profile with another mode")
    if isinstance(spec, ProfileStats):
        return spec
    if from_mode is not None:
        return from_mode(maker)
    return ProfileStats(maker)


def deepcopy_value(value: Any) -> Any:
    return _copy.deepcopy(value)
