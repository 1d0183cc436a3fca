"""Small helpers Theano programs import from ``theano.gof.utils`` / ``theano.gof.sched``.

``MethodNotDefined`` is what an op raises from an optional method it does not implement,
``hashtype`` hashes an object by its class (for ops without parameters), ``key_to_cmp`` turns a
sort key into a three-way comparison function, and ``object2`` is the old common base class
(kept so that ``class MyThing(object2)`` still works).
"""

from __future__ import annotations

from typing import Any, Callable


class MethodNotDefined(Exception):
    """An optional method (``infer_shape``, ``R_op``, ...) is not implemented by this class.

    Raise it from such a method to say "not available" rather than "failed".
    """


def hashtype(obj: Any) -> int:
    """A hash of ``obj``'s class (name and module): equal for all instances of the class."""
    cls = type(obj)
    return hash(cls.__name__) ^ hash(cls.__module__)


def key_to_cmp(key: Callable[[Any], Any]) -> Callable[[Any, Any], int]:
    """The three-way comparison ``cmp(a, b)`` (-1, 0 or 1) that orders values by ``key``."""

    def compare(a: Any, b: Any) -> int:
        ka, kb = key(a), key(b)
        return (ka > kb) - (ka < kb)

    return compare


class object2:
    """Base class whose ``!=`` is the negation of ``==`` (Python 3 does this for every class;
    the name exists for code that still derives from it)."""

    __slots__ = ()

    def __ne__(self, other: Any) -> bool:
        return not self == other
