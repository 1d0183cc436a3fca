"""``Container``: a storage cell with a type, whose value is checked when set (Theano's
``theano.gof.Container``)."""

from __future__ import annotations

import copy
from typing import Any

from jitgraph.graph.type import Type


class Container:
    """Holds ``storage[0]``, a value of ``r``'s type (``r`` is a variable or a type).

    Setting ``value`` (or ``data``) filters the new value through the type (``strict`` and
    ``allow_downcast`` as in ``Type.filter``); None empties the cell; a ``readonly`` container
    refuses new values.
    """

    def __init__(self, r: Any, storage: list, readonly: bool = False, strict: bool = False,
                 allow_downcast: bool | None = None, name: str | None = None) -> None:
        if not isinstance(storage, list) or not storage:
            raise TypeError(f"storage must be a list of length at least one, got {storage!r}")
        self.type = r if isinstance(r, Type) else r.type
        self.name = name if name is not None or isinstance(r, Type) else getattr(r, "name", None)
        self.storage = storage
        self.readonly = readonly
        self.strict = strict
        self.allow_downcast = allow_downcast

    def __get__value(self) -> Any:
        return self.storage[0]

    def __set__value(self, value: Any) -> None:
        if self.readonly:
            raise ValueError(f"cannot set the read-only container {self.name!r}")
        if value is None:
            self.storage[0] = None
            return
        try:
            self.storage[0] = self.type.filter(value, strict=self.strict,
                                               allow_downcast=self.allow_downcast)
        except TypeError as exc:
            raise TypeError(f"container {self.name!r}: {exc}") from exc

    value = property(__get__value, __set__value)
    data = property(__get__value, __set__value)

    def __str__(self) -> str:
        return f"<{self.storage[0]}>"

    __repr__ = __str__

    def __deepcopy__(self, memo: dict) -> "Container":
        return Container(self.type, [copy.deepcopy(self.storage[0], memo)], self.readonly,
                         self.strict, self.allow_downcast, self.name)


class SharedContainer(Container):
    """A shared variable's container (Theano's ``shared_var.container``): its value is the
    variable's (setting it checks the value as ``set_value`` does)."""

    def __init__(self, variable: Any) -> None:
        super().__init__(variable, [None], strict=variable.strict,
                         allow_downcast=variable.allow_downcast)
        self.variable = variable

    def _get(self) -> Any:
        return self.variable._value

    def _set(self, value: Any) -> None:
        if self.readonly:
            raise ValueError(f"cannot set the read-only container {self.name!r}")
        self.variable.set_value(value, borrow=True)

    value = property(_get, _set)
    data = property(_get, _set)

    @property
    def storage(self) -> list:
        """A one-element list holding the value (a snapshot: set ``value`` to change it)."""
        return [self.variable._value]

    @storage.setter
    def storage(self, cell: list) -> None:  # Container.__init__ sets it; the value is the variable's
        pass


__all__ = ["Container", "SharedContainer"]
