"""Package attributes imported on first use (PEP 562), so that importing a package stays cheap
and importing one of its ops does not pull in the graph-building side."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str], submodules: Iterable[str] = ()
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``: ``exports`` maps a name
    to the module defining it under the same name (cached in the package once loaded);
    ``submodules`` are imported when read as attributes."""
    namespace = sys.modules[package].__dict__
    children = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in children:
            return importlib.import_module(f"{package}.{name}")
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__


def alias_module(module: str, sources: Iterable[str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``module``, an old import path
    (``theano.tensor.nnet.nnet``) whose names live in ``sources``: a name is looked up in each
    source in turn (imported on first use) and cached in ``module``."""
    namespace = sys.modules[module].__dict__
    sources = tuple(sources)

    def __getattr__(name: str) -> Any:
        if not name.startswith("__"):
            for source in sources:
                value = getattr(importlib.import_module(source), name, namespace)
                if value is not namespace:
                    namespace[name] = value
                    return value
        raise AttributeError(f"module {module!r} has no attribute {name!r} (looked up in "
                             f"{', '.join(sources)})")

    def __dir__() -> list[str]:
        names = set(namespace)
        for source in sources:
            names |= {n for n in dir(importlib.import_module(source)) if not n.startswith("_")}
        return sorted(names)

    return __getattr__, __dir__
