"""Loops in graphs: ``scan`` and its special cases (``map``, ``reduce``, ``foldl``, ``foldr``,
``scan_checkpoints``), ``until`` for do-while loops, and the :class:`Scan` op.

Theano's ``theano.scan_module`` re-exports these names (:mod:`jitgraph.scan_module`). Names
load their modules on first use, so that importing the op (to unpickle a graph, or to lower one)
does not import the graph-building side. The scan rewrites live in :mod:`jitgraph.scan.rewrites`
(registered before the first rewrite once :mod:`jitgraph.scan.op` is imported, see
``jitgraph.FAMILY_REWRITE_MODULES``).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from jitgraph.lazy_exports import lazy_exports

_EXPORTS = {
    "scan": "jitgraph.scan.builder",
    "map": "jitgraph.scan.views",
    "reduce": "jitgraph.scan.views",
    "foldl": "jitgraph.scan.views",
    "foldr": "jitgraph.scan.views",
    "scan_checkpoints": "jitgraph.scan.checkpoints",
    "until": "jitgraph.scan.returns",
    "Scan": "jitgraph.scan.op",
    "ScanInfo": "jitgraph.scan.info",
    "OrderedUpdates": "jitgraph.scan.updates",
    "MissingNonSequenceError": "jitgraph.scan.construct",
}

__all__ = list(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


class _CallablePackage(types.ModuleType):
    """Theano's ``theano.scan`` is the scan function, and ``jitgraph.scan`` is this package:
    once the package is imported, Python binds the attribute ``scan`` of ``jitgraph`` to it
    (whatever was there before), so ``theano.scan(fn, ...)`` must work on the package too."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.scan(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
