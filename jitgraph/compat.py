"""``theano.compat``: the Python 2/3 compatibility names Theano 1.0 code imports
(``from theano.compat import OrderedDict, izip, PY3``), with their Python 3 meaning.

``izip``/``imap``/``ifilter`` are the builtins ``zip``/``map``/``filter``; ``DictMixin`` is
``collections.abc.MutableMapping``; ``operator_div`` is true division (``from __future__ import
division`` is in force in Theano's code).
"""

from __future__ import annotations

import configparser  # noqa: F401  (Theano re-exported the module under this name)
import operator
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, ValuesView
from collections.abc import MutableMapping as DictMixin
from importlib import reload
from io import BytesIO
from typing import Any

PY3: bool = True
izip = zip
imap = map
ifilter = filter
next = next  # noqa: A001,PLW0127  (re-exported builtin, as Theano's module did)
operator_div = operator.truediv


def b(text: str) -> bytes:
    """``text`` as bytes, one byte per character (latin-1), as ``six.b`` does."""
    return text.encode("latin-1")


def decode(data: bytes) -> str:
    """``data`` decoded with the default encoding (UTF-8)."""
    return data.decode()


def decode_iter(items: Iterable[bytes]) -> Iterator[str]:
    """Each item of ``items`` decoded, lazily."""
    for item in items:
        yield item.decode()


def decode_with(data: bytes, encoding: str) -> str:
    """``data`` decoded with ``encoding``."""
    return data.decode(encoding)


def cmp(x: Any, y: Any) -> int:
    """Python 2's ``cmp``: -1, 0 or 1 as ``x`` is less than, equal to or greater than ``y``."""
    return (x > y) - (x < y)


def get_unbound_function(function: Any) -> Any:
    """Python 3 has no unbound methods: the function itself."""
    return function


def exc_message(error: BaseException) -> Any:
    """The first argument of ``error`` (the message), following a wrapped exception given as
    that argument down to its own message."""
    message = error.args[0]
    if isinstance(message, BaseException):
        return exc_message(message)
    return message


def maybe_add_to_os_environ_pathlist(var: str, newpath: str) -> None:
    """Put ``newpath`` first in the path list of the environment variable ``var`` (``PATH``),
    if it is an absolute path and not already listed. Nothing happens when ``var`` is unset:
    only an existing list is extended."""
    if not os.path.isabs(newpath) or var not in os.environ:
        return
    paths = os.environ[var].split(os.pathsep)
    if newpath not in paths:
        os.environ[var] = os.pathsep.join([newpath, *paths])


class DefaultOrderedDict(OrderedDict):  # type: ignore[type-arg]
    """An :class:`~collections.OrderedDict` that, like ``collections.defaultdict``, fills a
    missing key with ``default_factory()`` when it is read."""

    def __init__(self, default_factory: Callable[[], Any] | None = None, *args: Any,
                 **kwargs: Any) -> None:
        if default_factory is not None and not callable(default_factory):
            raise TypeError(f"DefaultOrderedDict: default_factory must be callable or None, "
                            f"got {default_factory!r}")
        super().__init__(*args, **kwargs)
        self.default_factory = default_factory

    def __missing__(self, key: Any) -> Any:
        if self.default_factory is None:
            raise KeyError(key)
        value = self[key] = self.default_factory()
        return value

    def __reduce__(self) -> Any:
        return type(self), (self.default_factory,), None, None, iter(self.items())

    def copy(self) -> "DefaultOrderedDict":
        return type(self)(self.default_factory, self)

    __copy__ = copy

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.items())!r})"


__all__ = ["PY3", "OrderedDict", "DefaultOrderedDict", "izip", "imap", "ifilter", "next",
           "reload", "operator_div", "b", "decode", "decode_iter", "decode_with", "cmp",
           "get_unbound_function", "exc_message", "maybe_add_to_os_environ_pathlist",
           "BytesIO", "Callable", "DictMixin", "Iterable", "Mapping", "ValuesView"]
