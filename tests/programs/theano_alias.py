"""Run unchanged Theano programs on jitgraph: while :func:`theano_is_jitgraph` is active,
``import theano`` / ``import theano.tensor.nnet`` give ``jitgraph`` / ``jitgraph.tensor.nnet``."""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys
from typing import Iterator


def _aliased(name: str) -> bool:
    return name == "theano" or name.startswith("theano.")


class _TheanoFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``theano[.x]`` as the module ``jitgraph[.x]`` (the same module object)."""

    def find_spec(self, fullname, path, target=None):
        if not _aliased(fullname):
            return None
        module = importlib.import_module("jitgraph" + fullname[len("theano"):])
        spec = importlib.util.spec_from_loader(fullname, self)
        spec.loader_state = module
        return spec

    def create_module(self, spec):
        module = spec.loader_state
        # importlib stamps the theano spec on the module: keep jitgraph's own to put back.
        spec.loader_state = (module, module.__spec__)
        return module

    def exec_module(self, module):
        original = module.__spec__.loader_state[1]
        module.__spec__ = original


@contextlib.contextmanager
def theano_is_jitgraph() -> Iterator[None]:
    """Within the block, ``theano`` names jitgraph; afterwards the names are forgotten."""
    saved = {name: mod for name, mod in sys.modules.items() if _aliased(name)}
    for name in saved:
        del sys.modules[name]
    finder = _TheanoFinder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if _aliased(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
