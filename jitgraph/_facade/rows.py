"""The row type of the Theano-path table (:mod:`jitgraph._facade.paths`) and its small builders."""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

_NONE: Mapping[str, str] = MappingProxyType({})


class Row(NamedTuple):
    """What one module path holds.

    ``names``: name -> target, where a target is ``"package.module:attribute"`` (that object) or
    ``"package.module"`` (the module itself); bound when the path is imported. ``star``: modules
    whose ``__all__`` is bound too (``from module import *``). ``fallback``:
    modules in which any other name is looked up, on first use (a Theano module that re-exported
    a whole namespace). ``unavailable``: name -> why jitgraph cannot provide it (the name is a
    placeholder raising ``NotAvailableError`` when used). ``warning``: a DeprecationWarning
    issued on import; ``import_error``: the message of the ImportError that importing raises (a
    path Theano 1.0 had removed too).
    """

    doc: str = ""
    names: Mapping[str, str] = _NONE
    star: tuple[str, ...] = ()
    fallback: tuple[str, ...] = ()
    unavailable: Mapping[str, str] = _NONE
    warning: str | None = None
    import_error: str | None = None

    def exported(self) -> list[str]:
        """``__all__`` of a module without fallback: the ``star`` modules' names and its own
        (placeholders excluded)."""
        starred = [n for module in self.star for n in importlib.import_module(module).__all__]
        return list(dict.fromkeys([*starred, *self.names]))


def names(module: str, spec: str) -> dict[str, str]:
    """``{name: "module:name"}`` for each whitespace-separated ``name`` of ``spec``; an item
    ``alias=name`` binds ``module.name`` under ``alias``."""
    out = {}
    for item in spec.split():
        alias, _, attr = item.partition("=")
        out[alias] = f"{module}:{attr or alias}"
    return out


def unavailable(reason: str, spec: str) -> dict[str, str]:
    """``{name: reason}`` for each whitespace-separated name of ``spec``."""
    return dict.fromkeys(spec.split(), reason)


def resolve(target: str) -> Any:
    """The object a table target names (see :class:`Row`)."""
    module, _, attr = target.partition(":")
    value = importlib.import_module(module)
    return getattr(value, attr) if attr else value


__all__ = ["Row", "names", "unavailable", "resolve"]
