"""``theano.gof.cmodule``: Theano's compilation of C modules with g++ and their cache.

jitgraph compiles no C: its kernels are built by Numba (CPU) and NVRTC (GPU), and cached by
:mod:`jitgraph.cache`. ``MissingGXX`` is a real exception class (code catches it); the other
names raise ``NotAvailableError`` saying so when used.
"""

from jitgraph.unavailable import unavailable_names


class MissingGXX(Exception):
    """Raised by Theano when g++ is needed and missing. jitgraph never needs g++, so it never
    raises it; the class exists for ``except MissingGXX`` clauses."""


_NO_GXX = ("Theano's g++ compilation of C modules; jitgraph compiles kernels with Numba and "
           "NVRTC and keeps them in jitgraph.cache (see `python -m jitgraph.cache`)")
unavailable_names(__name__, {name: _NO_GXX for name in (
    "GCC_compiler", "Compiler", "ModuleCache", "DynamicModule", "ExtFunction", "KeyData",
    "get_module_cache", "get_module_hash", "get_lib_extension", "get_gcc_shared_library_arg",
    "gcc_version", "gcc_llvm", "dlimport", "dlimport_workdir", "module_name_from_dir",
    "std_include_dirs", "std_lib_dirs", "std_lib_dirs_and_libs", "std_libs", "try_march_flag",
    "icc_module_compile_str", "is_same_entry", "last_access_time", "get_safe_part")},
    globals())

__all__ = ["MissingGXX"]
