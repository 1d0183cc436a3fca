"""``theano.gof.link``: the linker classes and ``Container`` (:mod:`jitgraph.compile.linker`,
:mod:`jitgraph.graph.container`). Every jitgraph linker runs nodes from Python, so
``LocalLinker`` is ``Linker``. Theano's helpers for building thunks by hand (``map_storage``,
``streamline``, ``gc_helper``, ``raise_with_op``) are part of how its linkers worked inside;
jitgraph's build a program with :func:`jitgraph.compile.linker.make_program` instead, and
these names raise ``NotAvailableError`` when used."""

from jitgraph.graph.container import Container
from jitgraph.compile.linker import Linker, PerformLinker
from jitgraph.compile.monitormode import WrapLinker
from jitgraph.unavailable import unavailable_names

LocalLinker = Linker

_INTERNAL = ("a helper inside Theano's linkers; jitgraph's linkers build a program with "
             "jitgraph.compile.linker.make_program")
unavailable_names(__name__, {name: _INTERNAL for name in (
    "map_storage", "streamline", "gc_helper", "raise_with_op", "add_clear_storage",
    "WrapLinkerMany")}, globals())

__all__ = ["Container", "Linker", "LocalLinker", "PerformLinker", "WrapLinker"]
