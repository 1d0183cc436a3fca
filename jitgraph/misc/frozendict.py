"""``theano.misc.frozendict``: immutable, hashable mappings (usable as dict keys or op
parameters)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any


class frozendict(Mapping):  # type: ignore[type-arg]  # noqa: N801  (Theano's name)
    """An immutable dict. Its hash depends only on its items; ``copy(**changes)`` returns a new
    frozendict with ``changes`` applied."""

    dict_cls: type = dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._dict = self.dict_cls(*args, **kwargs)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._dict[key]

    def __contains__(self, key: Any) -> bool:
        return key in self._dict

    def __iter__(self) -> Iterator[Any]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def copy(self, **changes: Any) -> "frozendict":
        return type(self)(self, **changes)

    def __hash__(self) -> int:
        if self._hash is None:
            # order-independent, so that equal dicts hash equally
            self._hash = hash(frozenset(self._dict.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._dict!r}>"


class FrozenOrderedDict(frozendict):
    """A :class:`frozendict` that keeps its keys in insertion order."""

    dict_cls = OrderedDict


__all__ = ["frozendict", "FrozenOrderedDict"]
