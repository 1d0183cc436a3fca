"""A submodule of ``jitgraph.tensor`` named like one of its functions (``matrices``,
``diagonal``, ``nonzero``) replaces the function on the package when the submodule is first
imported after the package bound the function. Import every submodule, then check that no
public name of the package turned into a module."""

import importlib
import pkgutil
import types

import jitgraph.tensor as T


def _public_non_modules() -> dict:
    return {n: getattr(T, n) for n in dir(T)
            if not n.startswith("_") and not isinstance(getattr(T, n, None), types.ModuleType)}


#: modules Theano 1.0 removed: importing them raises ImportError naming the replacement
REMOVED = {"jitgraph.tensor.signal.downsample"}


def _import_all_submodules() -> None:
    for info in pkgutil.walk_packages(T.__path__, prefix="jitgraph.tensor."):
        if info.name not in REMOVED:
            importlib.import_module(info.name)


def test_no_submodule_hides_a_tensor_function():
    before = _public_non_modules()
    _import_all_submodules()
    hidden = sorted(n for n in before if isinstance(getattr(T, n, None), types.ModuleType))
    assert not hidden, f"jitgraph.tensor submodules hide these names: {hidden}"


def test_matrices_is_the_constructor():
    _import_all_submodules()
    a, b = T.matrices("a", "b")
    assert a.ndim == b.ndim == 2
