"""The Backend interface: what the compiler asks of a backend, and the registry of backends.

A backend (the CPU one, the GPU one) is one :class:`Backend` object, registered with
:func:`register` by the backend's own module when it is imported. The compiler never names a
backend module: the package root lists the modules to import (``jitgraph.BACKEND_MODULES``, an
in-tree table of entry points, given to this layer as the ``backend_modules`` service of
:mod:`jitgraph.services`), and :func:`backends` imports them all the first time anything
asks for a backend (making a :class:`~.mode.Mode`, looking up a linker, keying the graph
cache, making a shared variable). Every registration therefore happens before the first linker
is handed out, whatever the order of the imports.

What a backend gives the compiler:

* **linkers** (:meth:`Backend.linkers`), under the names Theano users pass (``cvm``, ``c|py``,
  ...), and :meth:`Backend.wrap_linker`, applied to every linker handed out (the GPU backend
  wraps the compiled linkers while a GPU is in use, so graphs with GPU nodes get its program);
* its **program type**, a :class:`~.linker.Program` subclass. The program is DebugMode's and
  the profiler's view of the compiled graph (``kinds``, ``thunks``,
  :meth:`~.linker.Program.compared_nodes`, :meth:`~.linker.Program.precomputed_nodes`,
  ``compile_report``), keeps itself in the graph cache (``stored()``; the backend's linker
  restores it from ``fgraph.stored_program``) and may write its own lines into a function's
  generated call (:meth:`~.linker.Program.inline_call`);
* :meth:`Backend.checked_program`: the program DebugMode compares with ``perform``;
* :meth:`Backend.device_key`: the device a graph compiled now would run on, part of the graph
  cache's keys (a graph rewritten for a GPU is never loaded by a process without one);
* :meth:`Backend.counters` (kernels compiled, seconds) for the profiler;
  :meth:`Backend.pickle_references` for the objects the graph cache stores by reference;
* :meth:`Backend.make_shared`: shared variables living on the backend's device;
* :meth:`Backend.array_module`: how code between nodes (a scan's loop) allocates and copies
  arrays on the backend's device (:class:`~.array_module.ArrayModule`).
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any, Callable, Mapping

from jitgraph import services
from jitgraph.compile.array_module import HOST_ARRAYS, ArrayModule

if TYPE_CHECKING:
    from jitgraph.compile.linker import Linker, Program
    from jitgraph.graph.basic import Apply
    from jitgraph.graph.fg import FunctionGraph


class Backend:
    """One backend as the compiler sees it; every method has a do-nothing default."""

    #: a short name (``"cpu"``, ``"gpu"``), unique among the registered backends
    name: str = ""
    #: backends are asked in decreasing priority (the GPU one claims the graphs with GPU nodes
    #: before the CPU one is asked for the rest)
    priority: int = 0

    def linkers(self) -> Mapping[str, Callable[[], "Linker"]]:
        """Linker name -> factory, added to :data:`jitgraph.compile.linker.LINKERS`."""
        return {}

    def wrap_linker(self, name: str, linker: "Linker") -> "Linker":
        """The linker handed out for ``name`` (``linker`` as the table made it)."""
        return linker

    def checked_program(self, fgraph: "FunctionGraph", order: list["Apply"]
                        ) -> "Program | None":
        """The compiled program DebugMode compares node by node with ``perform``: over the
        nodes of ``order``, ``thunks[i]`` running ``order[i]``, built with ``allow_gc=False``;
        None when this backend does not compile ``fgraph`` now."""
        return None

    def device_key(self) -> str | None:
        """What the graph cache's key says about where a graph compiled now runs (None:
        nothing; only read flags and initialised state unless a device is requested)."""
        return None

    def counters(self) -> dict[str, float]:
        """Process-wide compile counters (``compiled``, ``compile_seconds``), from modules
        already loaded only (the profiler never loads a backend)."""
        return {}

    def pickle_references(self) -> Callable[[Any], tuple | None] | None:
        """For the graph cache: a function telling, for an object, how to store it by
        reference (``("module:restorer", args)``, a compiled kernel) or None (by value); None
        when no such object exists (yet)."""
        return None

    def make_shared(self, value: Any, **kwargs: Any) -> Any:
        """A shared variable on this backend's device for ``value`` (the keywords of
        ``shared``, ``target`` included), or None to leave it to the host constructors."""
        return None

    def array_module(self) -> ArrayModule:
        """The arrays of this backend's device (a scan's buffers are made with it so that a
        loop's state never leaves the device): the host's NumPy by default."""
        return HOST_ARRAYS

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


_REGISTERED: list[Backend] = []
_ordered: tuple[Backend, ...] = ()
_loaded = False
_lock = threading.RLock()


def register(backend: Backend) -> Backend:
    """Register ``backend`` (its linkers join the linker table); a backend of the same name
    is replaced."""
    from jitgraph.compile.linker import register_linker

    global _ordered
    with _lock:
        _REGISTERED[:] = [b for b in _REGISTERED if b.name != backend.name]
        _REGISTERED.append(backend)
        _ordered = tuple(sorted(_REGISTERED, key=lambda b: -b.priority))
        for name, factory in backend.linkers().items():
            register_linker(name, factory)
    return backend


def backends() -> tuple[Backend, ...]:
    """The registered backends, highest priority first (the declared ones imported first)."""
    if not _loaded:
        load_backends()
    return _ordered


def load_backends() -> None:
    """Import the backend modules the top package declares (once); each registers itself."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        # the package root declares its backends as entry points would: this layer names none
        for module in services.get("backend_modules"):
            importlib.import_module(module)
        _loaded = True


def get_backend(name: str) -> Backend | None:
    """The registered backend called ``name``, or None."""
    return next((b for b in backends() if b.name == name), None)


__all__ = ["Backend", "register", "backends", "load_backends", "get_backend"]
