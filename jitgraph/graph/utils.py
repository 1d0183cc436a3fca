"""Small helpers Theano programs import from ``theano.gof.utils`` / ``theano.gof.sched``.

``MethodNotDefined`` is what an op raises from an optional method it does not implement,
``hashtype`` hashes an object by its class (for ops without parameters), ``key_to_cmp`` turns a
sort key into a three-way comparison function, and ``object2`` is the old common base class
(kept so that ``class MyThing(object2)`` still works). ``hash_from_code``/``hash_from_file`` are
Theano's content hashes, ``flatten``, ``uniq``, ``difference`` and ``remove`` its small list
helpers.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, Callable, Iterable, Sequence


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


def hash_from_code(msg: str | bytes | Any) -> str:
    """``'m'`` + the SHA-256 hex digest of ``msg`` (a str is hashed as UTF-8; bytes, and any
    C-contiguous buffer such as an ndarray, as their bytes). The leading letter makes the hash a
    valid module name."""
    if isinstance(msg, str):
        msg = msg.encode("utf-8")
    try:
        digest = hashlib.sha256(msg).hexdigest()
    except BufferError as exc:  # a strided view: hashing its buffer would read other bytes
        raise ValueError(f"hash_from_code: {type(msg).__name__} is not C-contiguous; pass "
                         "numpy.ascontiguousarray(value) (or use hash_from_ndarray)") from exc
    return "m" + digest


def hash_from_file(path: str) -> str:
    """:func:`hash_from_code` of the bytes of the file ``path``."""
    with open(path, "rb") as f:
        return hash_from_code(f.read())


def flatten(value: Any) -> list:
    """The leaves of nested lists and tuples, in order (a non-sequence gives ``[value]``)."""
    if not isinstance(value, (list, tuple)):
        return [value]
    return [leaf for item in value for leaf in flatten(item)]


def uniq(seq: Iterable[Any]) -> list:
    """The items of ``seq`` without repeats, in their first order."""
    seen: list = []
    for item in seq:
        if item not in seen:
            seen.append(item)
    return seen


def difference(seq1: Iterable[Any], seq2: Iterable[Any]) -> list:
    """The items of ``seq1`` that are not in ``seq2``, in order."""
    seq2 = list(seq2)
    return [item for item in seq1 if item not in seq2]


def unique(seq: Sequence[Any]) -> bool:
    """True if no item of ``seq`` (hashable items) appears twice."""
    return len(set(seq)) == len(seq)


def give_variables_names(variables: Sequence[Any]) -> Sequence[Any]:
    """Name each variable that has no name or shares its name with another of ``variables``:
    the k-th of those (counting from 0) gets ``'<its name or empty>_k'``, so that the names
    become unique (ValueError if they still are not). Returns ``variables``."""
    counts = Counter(var.name for var in variables)
    clashing = [var for var in variables if not var.name or counts[var.name] > 1]
    for k, var in enumerate(clashing):
        var.name = f"{var.name or ''}_{k}"
    if not unique([var.name for var in variables]):
        raise ValueError(f"give_variables_names: the names are still not unique: "
                         f"{[var.name for var in variables]}")
    return variables


def remove(predicate: Callable[[Any], bool], seq: Iterable[Any]) -> list:
    """The items of ``seq`` for which ``predicate`` is false."""
    return [item for item in seq if not predicate(item)]
