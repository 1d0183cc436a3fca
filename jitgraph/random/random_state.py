"""``RandomStateType`` and ``RandomStateSharedVariable``: a NumPy ``RandomState`` in the graph.

``RandomStreams`` keeps one legacy ``numpy.random.RandomState`` per draw in a shared variable;
``get_value`` returns a copy (``borrow=True``: the object itself), ``set_value`` replaces it, and
the draw's op returns the advanced generator as the variable's ``default_update``. Importing this
module registers the shared-variable constructor, so ``shared(np.random.RandomState(0))`` works.
(Shared variables are the compile step's concept; this feature package builds on it, as
``RandomStreams`` does in Theano.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.shared import SharedVariable
from jitgraph.graph.type import Type


class RandomStateType(Type):
    """Values are ``numpy.random.RandomState`` objects (Theano's ``RandomStateType``)."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, np.random.RandomState):
            return data
        raise TypeError(f"a RandomStateType variable holds a numpy.random.RandomState, not "
                        f"{type(data).__name__}")

    def values_eq(self, a: Any, b: Any) -> bool:
        sa, sb = a.get_state(), b.get_state()
        return sa[0] == sb[0] and np.array_equal(sa[1], sb[1]) and sa[2:] == sb[2:]

    def value_signature(self, data: Any) -> Any:
        return id(data)

    def __str__(self) -> str:
        return "RandomStateType"

    __repr__ = __str__

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))


random_state_type = RandomStateType()


class RandomStateSharedVariable(SharedVariable):
    """A shared ``numpy.random.RandomState`` (one per draw of ``RandomStreams``)."""


def randomstate_constructor(value: Any, name: str | None = None, strict: bool = False,
                            allow_downcast: bool | None = None, borrow: bool = False,
                            **kwargs: Any) -> Any:
    """``shared(value)`` for a ``numpy.random.RandomState`` (copied unless ``borrow``)."""
    if not isinstance(value, np.random.RandomState):
        return None
    return RandomStateSharedVariable(random_state_type, value, name=name, strict=strict,
                                     allow_downcast=allow_downcast, borrow=borrow)

# registered (as a lazy trampoline) by jitgraph.compile.sharedvalue, which imports this module
# for such a value
