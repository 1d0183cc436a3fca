"""Names of Theano 1.0.5's modules that have no jitgraph equivalent (mostly the C toolchain:
jitgraph compiles with Numba and NVRTC, never with g++).

``from theano.gof.cmodule import GCC_compiler`` must still import, so that a module importing
many names works when it never uses the missing ones; using such a name (calling it,
instantiating it, reading an attribute of it) raises :class:`NotAvailableError` saying why.
It is a class so that ``isinstance(x, Name)`` is simply false.
"""

from __future__ import annotations

from typing import Any, NoReturn


class NotAvailableError(NotImplementedError):
    """A Theano name that jitgraph cannot provide was used."""


class NotAvailableAttributeError(NotAvailableError, AttributeError):
    """An attribute of such a name was read: also an ``AttributeError``, so that ``hasattr``
    and ``getattr(x, name, default)`` (introspection tools) see a missing attribute."""


class _UnavailableMeta(type):
    def __call__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotAvailableError(cls._message)

    def __getattr__(cls, attr: str) -> NoReturn:
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotAvailableAttributeError(f"{cls._message} (reading .{attr})")

    def __repr__(cls) -> str:
        return f"<unavailable {cls.__module__}.{cls.__qualname__}>"


def unavailable(module: str, name: str, reason: str) -> type:
    """A placeholder for ``module.name`` that raises ``NotAvailableError(reason)`` when used."""
    message = f"{module}.{name} is not available in jitgraph: {reason}"
    return _UnavailableMeta(name, (), {"__module__": module, "__qualname__": name,
                                       "_message": message, "__doc__": message})


def unavailable_names(module: str, names: dict[str, str], namespace: dict[str, Any]) -> None:
    """Bind ``unavailable(module, name, reason)`` in ``namespace`` for each ``name: reason``."""
    for name, reason in names.items():
        namespace[name] = unavailable(module, name, reason)


__all__ = ["NotAvailableError", "NotAvailableAttributeError", "unavailable",
           "unavailable_names"]
