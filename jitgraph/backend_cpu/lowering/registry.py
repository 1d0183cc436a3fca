"""The lowering registry: op type -> a function that lowers one node, or None.

A lowering receives the op, the Apply node and the :class:`~.driver.BuildContext`, and returns a
:class:`Lowered` (source lines the program driver runs for that node, and the kernel keys it
uses) or None when it cannot handle this node (an unsupported dtype, say): the node then runs its
``perform``. Lowerings are looked up along the op class's MRO (``functools.singledispatch``), so a
subclass inherits its parent's lowering unless it registers its own.

Adding an op: write ``lowering/<family>.py`` with ``@register_lowering(MyOp)`` and list it in
:data:`CORE_LOWERINGS` or, for an optional family, in :data:`FAMILY_LOWERINGS` under the modules
that define its ops (imported when the first such node is lowered: :func:`load_lowerings_for`).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from jitgraph.backend_cpu.runtime.program import BLAS, NUMBA, PY  # noqa: F401 - the thunk kinds


@dataclass
class Lowered:
    """One node's contribution to the program driver.

    ``emit(nc)`` returns source lines (no indentation) that read the inputs through
    ``nc.inp(j)`` and store every output with ``nc.set_out(k, expr)``. ``registered`` is False
    only for the generic ``perform`` fallback (what the ``c`` linker refuses).
    """

    kind: str
    emit: Callable[[Any], list[str]]
    registered: bool = True
    kernel_keys: tuple = ()
    #: precomputed at link time (constant inputs): value of each output, or None
    constant_outputs: list | None = None
    notes: dict = field(default_factory=dict)


@functools.singledispatch
def lower(op: Any, node: Any, ctx: Any) -> Lowered | None:
    """Lower ``node`` (whose op is ``op``); None when no lowering applies."""
    return None


def register_lowering(*op_types: type) -> Callable:
    """Decorator registering ``fn(op, node, ctx) -> Lowered | None`` for ``op_types``."""

    def deco(fn: Callable) -> Callable:
        for cls in op_types:
            lower.register(cls)(fn)
        return fn

    return deco


def has_lowering(op: Any) -> bool:
    """Whether ``op`` has a registered lowering (its family's lowerings imported first)."""
    load_lowerings_for(type(op))
    return lower.dispatch(type(op)) is not lower.dispatch(object)


#: the lowering modules of the ops in almost every graph, imported before the first node is lowered
CORE_LOWERINGS: tuple[str, ...] = ("blas", "elemwise", "nnet", "reduce", "views")

#: the lowering module of each optional op family, by the op modules (or packages) whose classes
#: it registers: imported the first time a node whose op class (or a base of it) is defined there
#: is lowered, so that a cold compile of a graph without such ops never imports it (~40 ms for
#: all of them). A family module registers lowerings only for classes of its own op modules (a
#: test checks it against loading everything), so loading it later changes no other lowering.
FAMILY_LOWERINGS: dict[str, str] = {
    "jitgraph.tensor.convolution.corr": "conv",
    "jitgraph.tensor.convolution.pool": "pool",
    "jitgraph.random": "random",
    "jitgraph.ifelse": "ifelse",
    "jitgraph.scan": "scan",
    "jitgraph.tensor.extras": "extra_ops",
    "jitgraph.tensor.indexing.index_ravel": "extra_ops",
    "jitgraph.tensor.shaping.diagonal_fill": "extra_ops",
    "jitgraph.tensor.linalg.fft": "linalg",
    "jitgraph.tensor.linalg.nlinalg": "linalg",
    "jitgraph.tensor.linalg.slinalg": "linalg",
    "jitgraph.tensor.shaping.diag_ops": "linalg",
    "jitgraph.sparse": "sparse",
}

_PACKAGE = "jitgraph.backend_cpu.lowering"
_core_loaded = False
#: op classes whose family lowerings are imported already
_families_loaded: set[type] = set()


def _family_of(module: str) -> str | None:
    """The family lowering module for op classes defined in ``module``, if any."""
    while module:
        family = FAMILY_LOWERINGS.get(module)
        if family is not None:
            return family
        module = module.rpartition(".")[0]
    return None


def load_lowerings() -> None:
    """Import the core lowering modules once (each registers its lowerings)."""
    global _core_loaded
    if _core_loaded:
        return
    _core_loaded = True
    for name in CORE_LOWERINGS:
        importlib.import_module(f"{_PACKAGE}.{name}")


def load_lowerings_for(op_type: type) -> None:
    """Import the lowering modules that ``op_type`` (along its MRO) may need, once per class."""
    if op_type in _families_loaded:
        return
    load_lowerings()
    for cls in op_type.__mro__:
        family = _family_of(cls.__module__)
        if family is not None:
            importlib.import_module(f"{_PACKAGE}.{family}")
    _families_loaded.add(op_type)


def load_all_lowerings() -> None:
    """Import every lowering module (for listings and tests)."""
    load_lowerings()
    for name in dict.fromkeys(FAMILY_LOWERINGS.values()):
        importlib.import_module(f"{_PACKAGE}.{name}")


def registered_op_types() -> list[type]:
    """Every op class with a lowering (for documentation and tests)."""
    load_all_lowerings()
    return [cls for cls in lower.registry if cls is not object]
