"""``theano.gof.vm``: the virtual-machine linker. ``VM_Linker`` is jitgraph's ``VMLinker``
(the linker of ``Mode(linker='vm')``); Theano's VM classes (``VM``, ``Loop``, ``LoopGC``,
``Stack``) were how its linker ran thunks and have no jitgraph counterpart: they raise
``NotAvailableError`` when used."""

from jitgraph.compile.linker import VMLinker
from jitgraph.unavailable import unavailable_names

VM_Linker = VMLinker

_INSIDE = ("one of the thunk runners inside Theano's VM linker; jitgraph's VM_Linker "
           "(jitgraph.compile.linker.VMLinker) runs a compiled program instead")
unavailable_names(__name__, {name: _INSIDE for name in (
    "VM", "Loop", "LoopGC", "Stack", "calculate_reallocate_info")}, globals())

__all__ = ["VM_Linker", "VMLinker"]
