"""``import theano`` meaning jitgraph, for libraries and scripts written for Theano 1.0.

Three ways to turn it on, all backed by the finder of this module:

* in code, before the library is imported: ``jitgraph.provide_theano()`` (for the rest of the
  process), or ``with jitgraph.theano_compat.theano_is_jitgraph(): ...`` (within the block);
* a runner: ``python -m jitgraph.theano_compat script.py [args]`` (or ``-m module [args]``)
  runs a script as ``python`` would, with ``theano`` resolving to jitgraph;
* installed: the ``theano-on-jitgraph`` distribution in this repository
  (``compat/theano-on-jitgraph``) puts a ``.pth`` hook in the environment that makes
  ``import theano`` resolve to jitgraph in every process, without touching anyone's code.

``theano.<path>`` is the jitgraph module at ``jitgraph.<path>`` (the same object: Theano's module
paths are jitgraph's, see :mod:`jitgraph._facade`). ``theano`` itself is a small module that
forwards every attribute to ``jitgraph`` but says what it is: its ``__version__`` is
``"1.0.5+jitgraph.<version>"`` (libraries comparing it with a Theano release see 1.0.5), its
``repr`` and ``__file__`` name jitgraph.

A real Theano installed in the same environment is never changed; while the alias is on,
``import theano`` gives jitgraph and a warning says so once (set ``JITGRAPH_THEANO_ALIAS=0`` in
the environment to let the installed hook step aside for the real one).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from typing import Any, Iterator

from jitgraph._facade.finder import alias_spec
from jitgraph.about import VERSION

#: the version ``theano.__version__`` reports: Theano's last release, marked as jitgraph
THEANO_VERSION = f"1.0.5+jitgraph.{VERSION}"
#: environment variable: "0" turns the installed hook off (the real Theano, if any, is used);
#: the hook (compat/theano-on-jitgraph) reads it itself, before importing anything of jitgraph
ALIAS_SWITCH = "JITGRAPH_THEANO_ALIAS"


def _aliased(name: str) -> bool:
    return name == "theano" or name.startswith("theano.")


def real_theano_location() -> str | None:
    """Where a real Theano installation is (its package folder), or None."""
    spec = importlib.machinery.PathFinder.find_spec("theano")
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    return locations[0] if locations else spec.origin


class TheanoModule(types.ModuleType):
    """``theano`` itself: every attribute is jitgraph's, the identity says jitgraph."""

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("jitgraph"), name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(importlib.import_module("jitgraph"))) | set(self.__dict__))

    def __repr__(self) -> str:
        return f"<module 'theano' (jitgraph {VERSION}, {self.__file__})>"


def _theano_root() -> TheanoModule:
    jitgraph = importlib.import_module("jitgraph")
    root = TheanoModule("theano", "Theano's API, provided by jitgraph " + VERSION)
    root.__file__ = jitgraph.__file__
    root.__path__ = []  # a package: its submodules are found by the finder
    root.__version__ = THEANO_VERSION
    root.__jitgraph__ = jitgraph
    return root


class TheanoAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``theano`` as :class:`TheanoModule` (loading it too) and ``theano.x.y`` as the
    module ``jitgraph.x.y`` itself (through the facade's alias loader)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not _aliased(fullname):
            return None
        if fullname == "theano":
            _warn_if_real_theano()
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        jitgraph_name = "jitgraph" + fullname[len("theano"):]
        if importlib.util.find_spec(jitgraph_name) is None:
            return None  # "No module named 'theano.x'", as for any missing module
        return alias_spec(fullname, jitgraph_name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _theano_root()

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # the root forwards to jitgraph: nothing to run


_FINDER = TheanoAliasFinder()
_warned = False


def _warn_if_real_theano() -> None:
    global _warned
    location = real_theano_location()
    if location is not None and not _warned:
        _warned = True
        warnings.warn(f"a real Theano is installed ({location}), but `import theano` gives "
                      f"jitgraph {VERSION} in this process (the Theano alias is on); set "
                      f"{ALIAS_SWITCH}=0 to use the real Theano where the alias was installed "
                      "with theano-on-jitgraph", RuntimeWarning, stacklevel=4)


def _forget_theano_modules() -> dict[str, types.ModuleType]:
    """Remove ``theano[.x]`` from ``sys.modules``; return what was there."""
    saved = {name: module for name, module in sys.modules.items() if _aliased(name)}
    for name in saved:
        del sys.modules[name]
    return saved


def provide_theano() -> TheanoAliasFinder:
    """Make ``import theano`` give jitgraph for the rest of the process (call it before the
    library that imports ``theano`` is imported; calling it again does nothing). Returns the
    finder it put first on ``sys.meta_path``."""
    if _FINDER in sys.meta_path:
        return _FINDER
    if "theano" in sys.modules and not isinstance(sys.modules["theano"], TheanoModule):
        raise RuntimeError("the real Theano is already imported in this process: call "
                           "jitgraph.provide_theano() before anything imports theano")
    sys.meta_path.insert(0, _FINDER)
    importlib.invalidate_caches()
    return _FINDER


@contextlib.contextmanager
def theano_is_jitgraph() -> Iterator[None]:
    """Within the block, ``theano`` names jitgraph; afterwards the ``theano`` modules imported
    in it are forgotten and whatever was imported before the block is back."""
    saved = _forget_theano_modules()
    added = _FINDER not in sys.meta_path
    if added:
        sys.meta_path.insert(0, _FINDER)
    try:
        yield
    finally:
        if added:
            sys.meta_path.remove(_FINDER)
        _forget_theano_modules()
        sys.modules.update(saved)


__all__ = ["ALIAS_SWITCH", "THEANO_VERSION", "TheanoAliasFinder", "TheanoModule",
           "provide_theano", "real_theano_location", "theano_is_jitgraph"]
