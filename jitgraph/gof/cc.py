"""``theano.gof.cc``: the C linkers. ``CLinker``, ``OpWiseCLinker`` and ``DualLinker`` are
jitgraph's compiled linkers under those names (:mod:`jitgraph.backend_cpu.theano_linkers`).
The pieces of Theano's C code generator (``CodeBlock``, ``struct_gen``, ``get_c_declare``,
the module cache, ...) have no counterpart, since jitgraph generates no C: they raise
``NotAvailableError`` when used. ``HideC`` is an empty mixin (it hid an op's C code from
Theano's linker; jitgraph never uses C code)."""

from jitgraph.backend_cpu.theano_linkers import CLinker, DualLinker, OpWiseCLinker
from jitgraph.gof.callcache import CallCache
from jitgraph.unavailable import unavailable_names


class HideC:
    """Mixin hiding an op's C implementation. jitgraph never compiles ops' C code, so there
    is nothing to hide."""


_NO_C = "part of Theano's C code generator; jitgraph compiles kernels with Numba, not C"
unavailable_names(__name__, {name: _NO_C for name in (
    "CodeBlock", "struct_gen", "struct_variable_codeblocks", "code_gen", "apply_policy",
    "failure_code", "failure_code_init", "get_c_declare", "get_c_init", "get_c_extract",
    "get_c_extract_out", "get_c_cleanup", "get_c_sync", "get_nothing", "get_module_cache",
    "get_persistent_module_cache")}, globals())

__all__ = ["CLinker", "OpWiseCLinker", "DualLinker", "HideC", "CallCache"]
