"""``In`` and ``Out``: per-input and per-output options of ``function``."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable


class In:
    """A function input with options: a default ``value``, an ``update`` expression,
    ``mutable`` (the function may overwrite the passed array), ``strict`` typing,
    ``allow_downcast``, and ``borrow``."""

    def __init__(self, variable: Variable, name: str | None = None, value: Any = None,
                 update: Any = None, mutable: bool | None = None, strict: bool = False,
                 allow_downcast: bool | None = None, autoname: bool = True,
                 implicit: bool | None = None, borrow: bool | None = None,
                 shared: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"In() expects a variable, got {type(variable).__name__}")
        self.variable = variable
        self.name = name if name is not None or not autoname else variable.name
        self.value = value
        self.update = update
        self.mutable = bool(mutable) if mutable is not None else update is not None
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.implicit = bool(implicit)
        self.borrow = bool(borrow) if borrow is not None else self.mutable
        self.shared = shared
        if self.mutable and borrow is False:
            raise ValueError("a mutable input must be borrowed: drop borrow=False")

    def __repr__(self) -> str:
        return f"In({self.variable})"


class Out:
    """A function output; ``borrow=True`` returns internal storage without a defensive copy."""

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        self.variable = variable
        self.borrow = borrow

    def __repr__(self) -> str:
        return f"Out({self.variable}, borrow={self.borrow})"
