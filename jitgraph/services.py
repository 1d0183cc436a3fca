"""Services that lower layers use and higher layers provide, bound when first used.

A few things graph-level code needs are, by their nature, the job of a higher layer:
``Variable.eval`` and the numerical gradient check compile a function (``compile``), and a
graph-level op given a plain value needs it as a tensor constant (``tensor``). A lower layer asks
for such a service by name (:func:`get`); the package's root (``jitgraph/__init__.py``, which
every import of jitgraph runs first) wires each name to its provider (:func:`provide`), so the
layers keep importing only downward and the provider is imported only when first needed.
"""

from __future__ import annotations

from typing import Any, Callable

_LOADERS: dict[str, Callable[[], Any]] = {}
_BOUND: dict[str, Any] = {}


def provide(name: str, loader: Callable[[], Any]) -> None:
    """Make ``loader()`` (called once, on first use) the provider of the service ``name``."""
    _LOADERS[name] = loader
    _BOUND.pop(name, None)


def get(name: str) -> Any:
    """The provider of the service ``name`` (LookupError naming the known services if none)."""
    try:
        return _BOUND[name]
    except KeyError:
        pass
    try:
        loader = _LOADERS[name]
    except KeyError:
        raise LookupError(f"no provider for the service {name!r} (provided: "
                          f"{', '.join(sorted(_LOADERS)) or 'none'})") from None
    value = _BOUND[name] = loader()
    return value


__all__ = ["get", "provide"]
