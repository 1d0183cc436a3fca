"""Per-input and per-output options of ``function``: ``In``, ``Out``, their bases
``SymbolicInput`` / ``SymbolicOutput``, and ``Param`` (the deprecated spelling of ``In``)."""

from __future__ import annotations

import warnings
from typing import Any

from jitgraph.graph.basic import Variable


class SymbolicInput:
    """What a function input is: the ``variable``, the ``name`` it may be passed by, an
    ``update`` expression computing the value the input keeps for the next call, whether the
    function may overwrite the passed array (``mutable``; the default when there is an update),
    ``strict`` typing and ``allow_downcast``.

    ``function`` takes :class:`In` (which adds a default ``value``), not this base class.
    """

    def __init__(self, variable: Variable, name: str | None = None, update: Any = None,
                 mutable: bool | None = None, strict: bool = False,
                 allow_downcast: bool | None = None, autoname: bool = True,
                 implicit: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"{type(self).__name__}() expects a symbolic variable, got "
                            f"{type(variable).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"the name of input {variable} must be a string (or None), got "
                            f"{name!r}")
        if update is not None and not isinstance(update, Variable):
            raise TypeError(f"the update of input {name or variable} must be a symbolic "
                            f"expression of its new value, got {type(update).__name__}")
        if update is not None and update.type != variable.type:
            raise TypeError(f"input {name or variable} has type {variable.type} but its update "
                            f"{update} has type {update.type}; the update must have the "
                            "input's type (cast it, or match its dimensions)")
        self.variable = variable
        self.name = variable.name if name is None and autoname else name
        self.update = update
        self.mutable = mutable if mutable is not None else update is not None
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.implicit = implicit

    def __str__(self) -> str:
        if self.update is not None:
            return f"In({self.variable} -> {self.update})"
        return f"In({self.variable})"

    __repr__ = __str__


class In(SymbolicInput):
    """A function input with options: a default ``value`` used when the call leaves the input
    out (and, with ``update``, the state the function keeps between calls), plus everything
    :class:`SymbolicInput` holds and ``borrow`` (the function may keep the passed array)."""

    def __init__(self, variable: Variable, name: str | None = None, value: Any = None,
                 update: Any = None, mutable: bool | None = None, strict: bool = False,
                 allow_downcast: bool | None = None, autoname: bool = True,
                 implicit: bool | None = None, borrow: bool | None = None,
                 shared: bool = False) -> None:
        super().__init__(variable, name=name, update=update, mutable=mutable, strict=strict,
                         allow_downcast=allow_downcast, autoname=autoname,
                         implicit=bool(implicit))
        self.value = value
        self.borrow = borrow
        self.shared = shared
        if self.mutable and borrow is False:
            raise ValueError(f"input {self.name or variable}: mutable=True lets the function "
                             "overwrite the array it was passed, which implies borrowing it; "
                             "drop borrow=False or mutable=True")


class Param(In):
    """The old spelling of :class:`In` (``default`` is ``In``'s ``value``); deprecated."""

    def __init__(self, variable: Variable, default: Any = None, name: str | None = None,
                 mutable: bool = False, strict: bool = False,
                 allow_downcast: bool | None = None, implicit: bool | None = None,
                 borrow: bool | None = None) -> None:
        warnings.warn("Param is deprecated: write In(variable, value=default) instead of "
                      "Param(variable, default=default)", UserWarning, stacklevel=2)
        super().__init__(variable, name=name, value=default, mutable=mutable, strict=strict,
                         allow_downcast=allow_downcast, implicit=implicit,
                         borrow=bool(borrow))


class SymbolicOutput:
    """A function output; ``borrow=True`` returns internal storage without a defensive copy
    (the next call may overwrite it)."""

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        self.variable = variable
        self.borrow = borrow

    def __str__(self) -> str:
        return f"Out({self.variable},{self.borrow})"

    __repr__ = __str__


class Out(SymbolicOutput):
    """A function output with options (see :class:`SymbolicOutput`)."""
