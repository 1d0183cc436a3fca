"""``OrderedUpdates``: the ordered ``{shared variable: new value}`` dictionary scan returns.

It is what ``function(updates=...)`` accepts, kept in insertion order so that compiling the same
program twice gives the same graph. (Theano's ``theano.updates.OrderedUpdates``.)
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from jitgraph.graph.shared import SharedVariable


class OrderedUpdates(OrderedDict):
    """An ordered mapping from shared variables to their update expressions.

    Keys must be shared variables. Merging two update dictionaries (``update``, ``+``) that give
    different expressions for the same variable is an error naming the variable.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        if args or kwargs:
            self.update(*args, **kwargs)

    def __setitem__(self, key: Any, value: Any) -> None:
        if not isinstance(key, SharedVariable):
            raise TypeError(f"OrderedUpdates keys must be shared variables, got {key!r} "
                            f"({type(key).__name__})")
        super().__setitem__(key, value)

    def update(self, other: Any = None, **kwargs: Any) -> None:  # type: ignore[override]
        if kwargs:
            raise TypeError("OrderedUpdates.update takes a mapping or pairs, not keywords")
        if other is None:
            return
        pairs = other.items() if hasattr(other, "items") else other
        for key, value in pairs:
            if key in self and self[key] is not value:
                raise KeyError(f"two different updates were given for the shared variable "
                               f"{key}: {self[key]} and {value}")
            self[key] = value

    def __add__(self, other: Any) -> "OrderedUpdates":
        merged = OrderedUpdates(self)
        merged.update(other)
        return merged

    def __radd__(self, other: Any) -> "OrderedUpdates":
        merged = OrderedUpdates(other)
        merged.update(self)
        return merged

    def __repr__(self) -> str:
        return f"OrderedUpdates({list(self.items())})" if self else "OrderedUpdates()"
