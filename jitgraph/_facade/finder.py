"""The one mechanism serving Theano's module paths from the table in :mod:`jitgraph._facade.paths`.

:func:`install` (called first thing by ``jitgraph/__init__.py``) puts a finder on
``sys.meta_path`` that answers two kinds of imports:

* a Theano-only path (``jitgraph.tensor.nnet.sigm``): a :class:`TheanoModule` created from its
  row. The names the row lists are bound when it is imported, as a module of ``import``
  statements would bind them (so ``from m import *``, ``dir()``, pickling by module path and
  ``importlib.reload`` behave as for a file); the names of its ``fallback`` modules are looked
  up on first use; ``__file__`` is the table's file.
* an old path of a module that moved (:data:`jitgraph._facade.moved.MOVED`): the module it
  moved to, the same object under both names;
* a real package or module the table adds to (a parent of such paths, or one given Theano's
  extra names): the module is loaded from its file as usual, as an :class:`AugmentedModule`
  whose missing attributes are the table's: child paths (``jitgraph.tensor.nnet.sigm`` as an
  attribute without importing it first) and extra names (``jitgraph.tensor.int32``).

Implementation packages never import this package: the table points down at them.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from typing import Any, Iterable

from jitgraph._facade import moved, paths
from jitgraph._facade.rows import Row, resolve
from jitgraph.unavailable import unavailable

_MISSING = object()
_ROWS: dict[str, Row] = {**paths.MODULES, **paths.ADDED}


def _index_children() -> dict[str, frozenset[str]]:
    """package -> its child paths that are attributes: the table's rows under it (those that
    import) and the real submodules of :data:`paths.SUBMODULE_ATTRIBUTES`."""
    children: dict[str, set[str]] = {p: set(c) for p, c in paths.SUBMODULE_ATTRIBUTES.items()}
    for path, row in paths.MODULES.items():
        parent, _, child = path.rpartition(".")
        if row.import_error is None and parent in paths.MODULES:
            children.setdefault(parent, set()).add(child)
    return {p: frozenset(c) for p, c in children.items()}


_CHILDREN = _index_children()
_PARENTS = frozenset(p.rpartition(".")[0] for p in paths.MODULES)
_AUGMENTED = frozenset(paths.ADDED) | frozenset(paths.SUBMODULE_ATTRIBUTES) | frozenset(
    paths.EAGER_CHILDREN) | frozenset(old.rpartition(".")[0] for old in moved.MOVED)


def _public_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return list(names)


def _lookup(row: Row | None, name: str, module_name: str) -> Any:
    """``name`` of module ``module_name`` as the row defines it (a listed name, a placeholder
    for one jitgraph cannot provide, or one of a fallback module's)."""
    if row is None:
        return _MISSING
    if name in row.names:
        try:
            return resolve(row.names[name])
        except (ImportError, AttributeError):  # a provider without it: absent, never a stub
            return _MISSING
    if name in row.unavailable:  # a real module's name jitgraph cannot provide (ADDED rows)
        return unavailable(module_name, name, row.unavailable[name])
    if name == "__all__" and row.fallback:
        return sorted({n for source in row.fallback
                       for n in _public_names(importlib.import_module(source))})
    if name.startswith("__"):
        return _MISSING
    for source in row.fallback:
        value = getattr(importlib.import_module(source), name, _MISSING)
        if value is not _MISSING:
            return value
    return _MISSING


def _star_names(module: types.ModuleType, row: Row) -> list[str]:
    """What ``from module import *`` binds for a real module without ``__all__`` that has
    names added by the table (Theano's module had no ``__all__`` either, so its star-import
    brought every public name, the added ones included): the module's own public names and the
    row's that resolve."""
    own = [n for n in module.__dict__ if not n.startswith("_")]
    added = [n for n in row.names
             if not n.startswith("_") and _lookup(row, n, module.__name__) is not _MISSING]
    return list(dict.fromkeys(own + added))


class _TableAttributes:
    """Attribute lookup of both module classes: child paths, the row's names and its fallback
    modules; a value found is cached in the module."""

    def __getattr__(self, name: str) -> Any:
        module_name = self.__dict__["__name__"]
        if name in _CHILDREN.get(module_name, ()):
            return importlib.import_module(f"{module_name}.{name}")
        row = _ROWS.get(module_name)
        if name == "__all__" and module_name in paths.ADDED:
            return _star_names(self, row)  # not cached: the module gains submodules later
        value = _lookup(row, name, module_name)
        if value is _MISSING:
            where = f" (looked up in {', '.join(row.fallback)})" if row and row.fallback else ""
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}{where}")
        if _is_setting(value):  # read where it lives each time: it may be assigned there
            return value
        if not (isinstance(self, AugmentedModule) and hasattr(builtins, name)):
            # cached, except in a real module under a builtin's name (``complex``, ``sum``):
            # its dict is the module's globals, where the name would hide the builtin
            self.__dict__[name] = value
        return value

    def __dir__(self) -> list[str]:
        own = self.__dict__.get("__dir__")
        names = set(own() if callable(own) else self.__dict__)
        module_name = self.__dict__["__name__"]
        row = _ROWS.get(module_name)
        if row is not None:
            names |= {n for n in row.names
                      if n in names or _lookup(row, n, module_name) is not _MISSING}
            names |= set(row.unavailable)
            for source in row.fallback:
                names |= {n for n in dir(importlib.import_module(source))
                          if not n.startswith("_")}
        return sorted(names)


class TheanoModule(_TableAttributes, types.ModuleType):
    """A module made from a table row (a Theano path with no file of its own)."""


def _is_setting(value: Any) -> bool:
    """Whether a name the table lends a module is a setting (a number, as Theano's
    ``tensor.basic.float32_atol``) rather than a function, class or module."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class AugmentedModule(_TableAttributes, types.ModuleType):
    """A module loaded from its file, with the table's child paths and extra names as
    attributes (looked up after the module's own ``__getattr__``, if it has one). A setting
    the table lends it is assigned in the module it comes from, where the code reading it is."""

    def __setattr__(self, name: str, value: Any) -> None:
        row = _ROWS.get(self.__name__)
        if row is not None and name in row.names and name not in self.__dict__:
            source, _, attr = row.names[name].partition(":")
            if attr and _is_setting(_lookup(row, name, self.__name__)):
                setattr(importlib.import_module(source), attr, value)
                return
        # Importing a moved module's old path (jitgraph.tensor.var) binds it as an attribute of
        # the package; a name the package defines itself (T.var, the variance) keeps its value,
        # as it did when the module was imported under that path before the package bound it.
        own = self.__dict__.get(name, _MISSING)
        if (isinstance(value, types.ModuleType) and value.__name__ != f"{self.__name__}.{name}"
                and own is not _MISSING and not isinstance(own, types.ModuleType)):
            return
        super().__setattr__(name, value)


class _TableLoader(importlib.abc.Loader):
    """Creates and fills the module of a table row."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return TheanoModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        row = paths.MODULES[module.__name__]
        if row.import_error is not None:
            raise ImportError(row.import_error, name=module.__name__)
        for name in list(module.__dict__):  # importlib.reload: start over
            if not name.startswith("__") or name == "__all__":
                del module.__dict__[name]
        module.__doc__ = row.doc
        if row.warning is not None:
            warnings.warn(row.warning, DeprecationWarning, stacklevel=2)
        for source in row.star:
            source_module = importlib.import_module(source)
            for name in source_module.__all__:
                module.__dict__[name] = getattr(source_module, name)
        for name, target in row.names.items():
            module.__dict__[name] = resolve(target)
        for name, reason in row.unavailable.items():
            module.__dict__[name] = unavailable(module.__name__, name, reason)
        if not row.fallback:
            module.__all__ = list(row.exported())


class _AugmentingLoader(importlib.machinery.SourceFileLoader):
    """Loads a real module from its file as an :class:`AugmentedModule`; afterwards imports the
    child paths the table says Theano's module imported eagerly."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return AugmentedModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        super().exec_module(module)
        for child in paths.EAGER_CHILDREN.get(module.__name__, ()):
            kept = module.__dict__.get(child, _MISSING)
            importlib.import_module(f"{module.__name__}.{child}")
            if kept is not _MISSING:  # the package's own name wins over its submodule's
                module.__dict__[child] = kept


class _AliasLoader(importlib.abc.Loader):
    """Loads a module path as another module (named by the spec's ``loader_state``): the same
    object under both names. The import system stamps the alias's spec on the module it gets;
    :meth:`exec_module` puts the module's own back, so its ``__spec__`` (``reload``, ``-m``,
    pickling by module) stays its own."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(spec.loader_state)
        spec.loader_state = module.__spec__  # the module's own spec, for exec_module
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = module.__spec__.loader_state


def alias_spec(alias: str, target: str) -> importlib.machinery.ModuleSpec:
    """The spec that imports module path ``alias`` as the module ``target`` itself."""
    spec = importlib.util.spec_from_loader(alias, _ALIAS_LOADER)
    spec.loader_state = target
    return spec


class TheanoPathFinder(importlib.abc.MetaPathFinder):
    """Finds table rows, moved modules' old paths, and the real modules the table adds to,
    under ``jitgraph``."""

    def find_spec(self, fullname: str, path: Iterable[str] | None,
                  target: types.ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("jitgraph."):
            return None
        if fullname in moved.MOVED:  # an old path: the module it moved to
            return alias_spec(fullname, moved.MOVED[fullname])
        if fullname in paths.MODULES:
            spec = importlib.machinery.ModuleSpec(fullname, _LOADER, origin=paths.__file__,
                                                  is_package=fullname in _PARENTS)
            spec.has_location = True
            if spec.submodule_search_locations is not None:
                spec.submodule_search_locations = []
            return spec
        if fullname not in _AUGMENTED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _AugmentingLoader(fullname, spec.origin)
        return spec


_LOADER = _TableLoader()
_ALIAS_LOADER = _AliasLoader()
_FINDER = TheanoPathFinder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


__all__ = ["alias_spec", "install", "TheanoPathFinder", "TheanoModule", "AugmentedModule"]
