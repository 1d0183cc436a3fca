"""``theano.misc.ordered_set``: :class:`OrderedSet`, a set that remembers insertion order, so
that code iterating over it (graph features, rewriters) behaves the same on every run."""

from __future__ import annotations

import types
from collections.abc import Iterable, Iterator, MutableSet
from typing import Any


def check_deterministic(iterable: Any) -> None:
    """Refuse an unordered collection (a ``set`` or ``dict`` of more than one item) where an
    ordered one is needed: its iteration order could change from run to run. ``None``, lists,
    tuples, strings, generators and :class:`OrderedSet` are accepted. An ``AssertionError``,
    as in Theano (its callers treat other exceptions as failed rewrites)."""
    if iterable is None or isinstance(iterable, (list, tuple, OrderedSet, types.GeneratorType,
                                                 str, bytes)):
        return
    if len(iterable) > 1:
        raise AssertionError(f"an ordered iterable was expected, got a {type(iterable).__name__} "
                             f"of {len(iterable)} items whose order is not defined")


class Link:
    """Kept for code that imports it: Theano's ``OrderedSet`` was a linked list of these
    nodes. This ``OrderedSet`` keeps its items in a dict and does not use it."""

    __slots__ = ("prev", "next", "key", "__weakref__")


class OrderedSet(MutableSet):  # type: ignore[type-arg]
    """A mutable set iterated in insertion order. Comparison with another ``OrderedSet`` takes
    the order into account; comparison with a plain ``set`` is refused (it could not be made
    symmetric)."""

    def __init__(self, iterable: Iterable[Any] | None = None) -> None:
        check_deterministic(iterable)
        self._items: dict[Any, None] = {}
        if iterable is not None:
            self.update(iterable)

    def __contains__(self, key: Any) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def add(self, key: Any) -> None:
        self._items[key] = None

    def discard(self, key: Any) -> None:
        self._items.pop(key, None)

    def update(self, iterable: Iterable[Any]) -> None:
        """Add the items of ``iterable`` in order (refusing unordered collections)."""
        check_deterministic(iterable)
        for key in iterable:
            self._items[key] = None

    def union(self, iterable: Iterable[Any]) -> "OrderedSet":
        """A new set: this one's items, then those of ``iterable``."""
        result = self.copy()
        result.update(iterable)
        return result

    def difference_update(self, iterable: Iterable[Any]) -> None:
        for key in iterable:
            self.discard(key)

    def intersection_update(self, iterable: Iterable[Any]) -> None:
        keep = set(iterable)
        for key in list(self._items):
            if key not in keep:
                del self._items[key]

    def copy(self) -> "OrderedSet":
        result = type(self)()
        result._items = dict(self._items)
        return result

    def pop(self, last: bool = True) -> Any:
        """Remove and return the last item (the first with ``last=False``)."""
        if not self._items:
            raise KeyError("pop from an empty OrderedSet")
        key = next(reversed(self)) if last else next(iter(self))
        del self._items[key]
        return key

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, OrderedSet):
            return list(self) == list(other)
        if isinstance(other, (set, frozenset)):
            raise TypeError("cannot compare an OrderedSet with a set: the comparison cannot be "
                            "made symmetric; convert the OrderedSet to a set first")
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  (mutable)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"

    def __getstate__(self) -> list[Any]:
        return list(self._items)

    def __setstate__(self, state: list[Any]) -> None:
        self._items = dict.fromkeys(state)


__all__ = ["OrderedSet", "check_deterministic", "Link"]
