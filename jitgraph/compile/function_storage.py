"""The storage-level API of a compiled function, as Theano's ``Function`` has it.

Some Theano programs work below the call: they read ``f.input_storage[k].data`` or
``f.output_storage[k].data``, write an input's cell and run ``f.fn()`` (a known way to skip the
call's checks), look up an input's container with ``f.container[x]`` or ``f.finder[name]``, or
list the shared variables with ``f.get_shared()``. Here every such container is a view of the
cell the compiled program itself reads or writes, so these programs see and change the values
the function uses:

* ``input_storage``: one container per input (explicit inputs first, then the shared
  variables, which appear through their own ``container``);
* ``output_storage``: one per output; ``f.fn()`` leaves its outputs there (a call empties the
  cells afterwards under ``allow_gc`` and returns the values instead);
* ``fn()``: run the program on the values in ``input_storage`` and apply the updates;
* ``finder`` / ``container``: the input containers by variable, name or ``In`` spec;
  ``inv_finder``: the ``In`` spec of each container; ``defaults``: ``(required, refeed,
  value)`` per input as Theano lists them.
"""

from __future__ import annotations

import copy as copy_module
from typing import Any

import numpy as np

from jitgraph.compile.concurrency import give_all, take_all, take_waiting
from jitgraph.graph.container import Container


def copied(value: Any) -> Any:
    """A copy of a value sharing no memory with it (an array's ``copy()``, else a deep copy, as
    Theano's ``deep_copy_op`` makes)."""
    return value.copy() if hasattr(value, "copy") else copy_module.deepcopy(value)


class FunctionStorage:
    """Mixed into :class:`~.function_call.Function` (which provides the cells)."""

    @property
    def input_storage(self) -> list:
        """The containers of the inputs: explicit inputs, then the shared variables (made
        once: the cells are the function's for its lifetime)."""
        made = self.__dict__.get("_input_containers")
        if made is None:
            made = [_input_container(self, k) for k in range(len(self.maker.inputs))]
            made += [var.container for var, _ in self._shared_cells]
            self.__dict__["_input_containers"] = made
        return list(made)

    @property
    def output_storage(self) -> list:
        """The containers of the outputs' cells."""
        made = self.__dict__.get("_output_containers")
        if made is None:
            made = [Container(var, cell) for var, cell in
                    zip(self.maker.fgraph.outputs, self._output_cells)]
            self.__dict__["_output_containers"] = made
        return list(made)

    @property
    def fn(self) -> "ProgramRunner":
        """Theano's ``f.fn``: call it to run the program on :attr:`input_storage`; its
        ``storage_map`` and ``allow_gc`` are the program's cells and garbage collection."""
        return ProgramRunner(self)

    def _run_from_storage(self) -> list:
        """Run the program on the values in :attr:`input_storage`, leave the outputs in
        :attr:`output_storage` (and return them) and apply the updates, as Theano's
        ``f.fn()`` does. Inputs left empty take their default values. (It works on this
        function's own cells: calls from other threads wait for it, and it for them.)"""
        _fc_held = take_all(self._update_gates)  # (the name marks them held: .concurrency)
        try:
            if _fc_held:  # they keep other calls off the program
                return self._fn()
            take_waiting(self._gate)
            try:
                return self._fn()
            finally:
                self._gate.append(True)
        finally:
            give_all(_fc_held)

    def _fn(self) -> list:
        for k, cell in enumerate(self._input_cells):
            if self._defaults[k][0] is not None:
                cell[0] = self._defaults[k][0]
            elif cell[0] is None:
                inp = self.maker.inputs[k]
                raise TypeError(f"input {k} ({inp.name or inp.variable}) of function "
                                f"{self.name} holds no value: set f.input_storage[{k}].data")
        self._execute()
        self._store_updates()
        return [cell[0] for cell in self._output_cells]

    def _execute(self) -> None:
        """Run the program on the input cells, the shared variables' values read first."""
        for var, cell in self._shared_cells:
            cell[0] = var._value
        if self._needs_errstate:
            with np.errstate(**self._seterr):
                self._run()
        else:
            self._run()

    def _store_updates(self) -> None:
        """The updated values become the shared variables' and the ``In(update=...)``
        inputs' (downloaded from the device where the program left them there)."""
        for (var, cell), download, copy in zip(self._update_cells, self._update_download,
                                               self._copy_update):
            var._value = cell[0].get() if download else copied(cell[0]) if copy else cell[0]
        for (k, cell, download), copy in zip(self._input_update_cells, self._copy_input_update):
            self._defaults[k][0] = (cell[0].get() if download else copied(cell[0]) if copy
                                    else cell[0])

    @property
    def finder(self) -> dict:
        """Input containers by position, variable and name (a name two inputs share finds
        neither, as in Theano)."""
        variables = [inp.variable for inp in self.maker.inputs] + \
            [var for var, _ in self._shared_cells]
        found: dict[Any, Any] = {}
        ambiguous: set[str] = set()
        for k, (var, container) in enumerate(zip(variables, self.input_storage)):
            found[k] = found[var] = container
            name = self.maker.inputs[k].name if k < len(self.maker.inputs) else var.name
            if name:
                if name in found:
                    ambiguous.add(name)
                found[name] = container
        for name in ambiguous:
            del found[name]
        return found

    @property
    def inv_finder(self) -> dict:
        """The ``In`` spec (or shared variable) of each input container."""
        specs = list(self.maker.inputs) + [var for var, _ in self._shared_cells]
        return dict(zip(self.input_storage, specs))

    @property
    def container(self) -> "_ContainerFinder":
        """``f.container[x]``: the container of input ``x`` (its position, variable or
        name)."""
        return _ContainerFinder(self)

    @property
    def defaults(self) -> list[tuple[bool, bool, Any]]:
        """Per input, as Theano lists them: whether it must be given, whether its default
        value is put back after each call, and that value (None for shared variables)."""
        rows = []
        for k, inp in enumerate(self.maker.inputs):
            value = self._defaults[k][0]
            has_default = value is not None
            rows.append((not has_default and not inp.implicit, has_default and not inp.implicit,
                         value))
        return rows + [(False, False, None)] * len(self._shared_cells)

    @property
    def indices(self) -> list[tuple[Any, None, list]]:
        """Theano's ``f.indices``: per input container (explicit inputs, then the shared
        variables), ``(spec, None, [spec])`` with ``spec`` its ``In`` or shared variable."""
        specs = list(self.maker.inputs) + [var for var, _ in self._shared_cells]
        return [(spec, None, [spec]) for spec in specs]

    def get_shared(self) -> list:
        """The shared variables the function reads."""
        return [var for var, _ in self._shared_cells]

    def sync_shared(self) -> None:
        """Nothing to wait for: values on the host are current after every call."""

    @property
    def unpack_single(self) -> bool:
        return self.maker.unpack_single

    @property
    def output_keys(self) -> Any:
        return self.maker.output_keys

    @property
    def return_none(self) -> bool:
        """False: a function without outputs returns an empty list, as in Theano 1.0."""
        return False


class ProgramRunner:
    """``f.fn`` (Theano's VM of a compiled function): ``f.fn()`` runs the program on the
    values in ``f.input_storage``; ``storage_map`` maps the graph's variables to the program's
    cells; ``allow_gc`` says whether a call empties the output cells afterwards (settable,
    for this function only)."""

    def __init__(self, fn: FunctionStorage) -> None:
        self._fn = fn

    def __call__(self, n_calls: int = 1) -> list:
        """Run the program ``n_calls`` times in a row (each run applies the updates, as
        Theano's 'cvm' VM did); return the last run's outputs."""
        if n_calls < 1:
            raise ValueError(f"f.fn(n_calls={n_calls}): run at least once")
        for _ in range(n_calls - 1):
            self._fn._run_from_storage()
        return self._fn._run_from_storage()

    @property
    def storage_map(self) -> dict:
        return self._fn._program.storage

    @property
    def allow_gc(self) -> bool:
        return self._fn._allow_gc

    @allow_gc.setter
    def allow_gc(self, value: bool) -> None:
        self._fn._set_allow_gc(value)


def _input_container(fn: FunctionStorage, k: int) -> Container:
    inp = fn.maker.inputs[k]
    if fn._defaults[k][0] is None:
        return Container(inp.variable, fn._input_cells[k], name=inp.name, strict=inp.strict,
                         allow_downcast=inp.allow_downcast)
    return _DefaultValueContainer(fn, k)


class _DefaultValueContainer(Container):
    """The container of an input with a default value: between calls it holds that value
    (setting it sets the default, as ``f[name] = value`` does)."""

    def __init__(self, fn: FunctionStorage, k: int) -> None:
        inp = fn.maker.inputs[k]
        # its storage is the default's cell (what In(value=this container) shares)
        super().__init__(inp.variable, fn._defaults[k], name=inp.name, strict=inp.strict,
                         allow_downcast=inp.allow_downcast)
        self._fn, self._k = fn, k

    def _get(self) -> Any:
        return self._fn._defaults[self._k][0]

    def _set(self, value: Any) -> None:
        self._fn[self._fn.maker.inputs[self._k].variable] = value

    value = property(_get, _set)
    data = property(_get, _set)


class _ContainerFinder:
    def __init__(self, fn: FunctionStorage) -> None:
        self._fn = fn

    def __getitem__(self, key: Any) -> Any:
        try:
            return self._fn.finder[key]
        except (KeyError, TypeError):
            raise TypeError(f"unknown input or state: {key!r}") from None

    def __contains__(self, key: Any) -> bool:
        try:
            return key in self._fn.finder
        except TypeError:
            return False
