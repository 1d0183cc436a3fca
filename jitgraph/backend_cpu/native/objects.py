"""Kernels as native objects: compiled by Numba once, loaded later without Numba.

Numba is the compiler, not the runtime. After Numba has compiled a kernel entry (explicit
signature, so its native function has a fixed ABI), :func:`build` takes the LLVM module Numba
produced, adds a small **entry function** written here in LLVM IR, drops everything else
(Numba's own CPython and C wrappers, which need Numba's runtime library), and emits one
relocatable object file. The entry is either

* ``"python"``: a CPython ``METH_FASTCALL`` function. It checks each argument (an ndarray of
  the declared rank, dtype, byte order, contiguity and writability; an int, float or bool for a
  scalar), reads the data pointer, shape and strides straight from the array struct, releases
  the GIL around the kernel when the kernel is ``nogil``, and raises :class:`KernelError`
  when the kernel reports an exception, or ``TypeError`` on a bad argument; or
* ``"c"``: a plain C function forwarding its arguments (the vecmath block functions).

:func:`load` loads such an object: on Linux x86-64 with :mod:`.elf_loader` (a few hundred
lines of Python: nothing of LLVM is imported, so a process that finds all its kernels stored
starts without llvmlite as well as without Numba), elsewhere into one process-wide MCJIT engine
of llvmlite; it returns the entry's address. :func:`python_function` makes a builtin function of
a ``"python"`` entry, so a call costs what a call of a C extension function costs.

An object lists the symbols it imports. :func:`load` refuses (:class:`Unavailable`) an object
whose imports cannot all be resolved in this process, so a kernel that needs Numba's runtime
(allocation, dynamic exception messages) is simply run through Numba instead: correctness never
depends on this layer.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import sys
import threading
from typing import Any, Callable, NamedTuple

from jitgraph.backend_cpu.native import elf_loader
from jitgraph.backend_cpu.native.direct_types import from_numba

#: Bumped when the entry code or the object format changes (enters every stored object's key).
NATIVE_VERSION = 2

#: Symbols whose addresses are Python objects of this process (bound at load time). Entries do
#: not use ``PyExc_TypeError``: once Numba has started, that name is bound to the exception
#: object itself, not to the C variable pointing at it.
NDARRAY_SYMBOL = "jitgraph_ndarray_type"
ERROR_SYMBOL = "jitgraph_kernel_error"
TYPE_ERROR_SYMBOL = "jitgraph_type_error"

# Offsets in CPython/NumPy structs (stable public ABI of non-debug, GIL builds on 64-bit).
_OB_TYPE = 8
_ARR_DATA, _ARR_ND, _ARR_DIMS, _ARR_STRIDES, _ARR_DESCR, _ARR_FLAGS = 16, 24, 32, 40, 56, 64
_DESCR_BYTEORDER, _DESCR_TYPE_NUM = 26, 28
_C_CONTIGUOUS, _WRITEABLE = 0x0001, 0x0400
_METH_FASTCALL = 0x0080


class Unavailable(RuntimeError):
    """This object cannot be used in this process (the caller falls back to Numba)."""


class KernelError(Exception):
    """A kernel raised; ``args[0]`` is the pickled ``(class, args, ...)`` Numba recorded for
    the exception, or None. :meth:`exception` rebuilds the original exception."""

    def exception(self) -> BaseException:
        import pickle

        data = self.args[0] if self.args else None
        if isinstance(data, bytes):
            try:
                info = pickle.loads(data)
                cls, args = info[0], info[1]
                if isinstance(cls, type) and issubclass(cls, BaseException):
                    return cls(*args)
            except Exception:  # noqa: BLE001 - fall through to the generic error
                pass
        return RuntimeError("a compiled kernel failed")

    def __str__(self) -> str:
        return str(self.exception())


class NativeObject(NamedTuple):
    """An object file and what is needed to use it."""

    code: bytes
    export: str
    kind: str                      # "python" or "c"
    imports: tuple[str, ...]       # external symbols the object needs
    abi: str                       # the runtime ABI it was built for (see :func:`abi_tag`)

    def checksum(self) -> str:
        return hashlib.sha256(self.code).hexdigest()

    def meta(self) -> dict[str, Any]:
        return {"export": self.export, "kind": self.kind, "imports": list(self.imports),
                "abi": self.abi, "sha256": self.checksum(), "version": NATIVE_VERSION}

    @classmethod
    def from_meta(cls, meta: dict[str, Any], code: bytes) -> "NativeObject":
        if meta.get("version") != NATIVE_VERSION:
            raise ValueError(f"object format {meta.get('version')}, expected {NATIVE_VERSION}")
        if hashlib.sha256(code).hexdigest() != meta["sha256"]:
            raise ValueError("the object file does not match its recorded checksum")
        return cls(code, meta["export"], meta["kind"], tuple(meta["imports"]), meta["abi"])


@functools.lru_cache(maxsize=None)
def abi_tag() -> str:
    """What an object's entry code assumes about this interpreter."""
    abiflags = getattr(sys, "abiflags", None)  # 't': free-threaded build (POSIX)
    if abiflags is None:
        import sysconfig

        free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    else:
        free_threaded = "t" in abiflags
    gil = "nogil" if free_threaded else "gil"
    debug = "debug" if hasattr(sys, "gettotalrefcount") else "release"
    return f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}-{gil}-" \
           f"{debug}-{sys.byteorder}-{ctypes.sizeof(ctypes.c_void_p) * 8}"


def supported() -> bool:
    """Whether entries can be built for this interpreter (64-bit CPython with a GIL)."""
    return abi_tag().startswith("cpython") and "-gil-release-" in abi_tag() \
        and abi_tag().endswith("-64")


# -- building (needs Numba) ----------------------------------------------------------------------

def build(dispatcher: Any, export: str, kind: str, target_cpu: str, nogil: bool = True
          ) -> tuple[NativeObject | None, str]:
    """The object of ``dispatcher``'s single compiled signature, or ``(None, why not)``.

    Never raises: whatever goes wrong (an llvmlite or Numba version this code does not know,
    say) only means the kernel keeps running through Numba."""
    try:
        return _build(dispatcher, export, kind, target_cpu, nogil)
    except Exception as exc:  # noqa: BLE001 - any failure falls back to Numba
        return None, f"building the object failed ({type(exc).__name__}: {exc})"


def _build(dispatcher: Any, export: str, kind: str, target_cpu: str, nogil: bool
           ) -> tuple[NativeObject | None, str]:
    from jitgraph.backend_cpu.native import entry_ir as native_ir

    if not supported():
        return None, f"interpreter ABI {abi_tag()} is not supported"
    import llvmlite.binding as llvm

    cres = dispatcher.overloads[dispatcher.signatures[0]]
    final = getattr(cres.library, "_final_module", None)
    if final is None:
        return None, "Numba produced no LLVM module (loaded from Numba's own cache)"
    module = llvm.parse_assembly(str(final))
    native = module.get_function(cres.fndesc.llvm_func_name)
    params = [str(a.type) for a in native.arguments]
    if any("*" in p for p in params):
        return None, "typed LLVM pointers are not supported"
    argtypes = [from_numba(ty) for ty in cres.signature.args]
    if kind == "python" and None in argtypes:
        return None, f"argument types {cres.signature.args} have no native entry"
    glue = native_ir.entry(kind, export, native.name, params, argtypes, nogil)
    if isinstance(glue, native_ir.NoEntry):
        return None, glue.reason
    return finish(module, glue + _stubs(module), export, kind, target_cpu), ""


def finish(module: Any, glue: str, export: str, kind: str, target_cpu: str,
           optimize: Callable[[Any], None] | None = None, quick: bool = False) -> NativeObject:
    """The object of ``module`` (whose kernel the entry code ``glue`` calls): everything but
    the entry ``export`` made internal, ``optimize(module)`` run if given, then emitted --
    with LLVM's fast instruction selection and register allocation when ``quick`` (a tier-0
    object: a fifth of the emission time, slower code)."""
    import llvmlite.binding as llvm

    module.link_in(llvm.parse_assembly(glue))
    _internalize(module, export)
    if optimize is not None:
        optimize(module)
    module.verify()
    imports = tuple(sorted(_imports(module)))
    code = _target_machine(target_cpu, 0 if quick else 3).emit_object(module)
    return NativeObject(code, export, kind, imports, abi_tag())


#: Definitions for symbols of Numba's runtime that an entry can never reach. Entries pass every
#: array with a null meminfo, and ``NRT_decref`` tests for null before it calls the destructor:
#: in a kernel that allocates nothing, the destructor is dead code that only has to link. (A
#: kernel that allocates imports the allocator too and gets no stub: it needs Numba's runtime.)
_STUBS = {
    "NRT_MemInfo_call_dtor": "define void @NRT_MemInfo_call_dtor(ptr %meminfo) {\n  ret void\n}",
}


def _stubs(module: Any) -> str:
    runtime = {f.name for f in module.functions
               if f.is_declaration and f.name.startswith("NRT_")}
    if not runtime or not runtime <= set(_STUBS):
        return "\n"
    return "\n" + "\n".join(_STUBS[name] for name in sorted(runtime)) + "\n"


def _internalize(module: Any, export: str) -> None:
    import llvmlite.binding as llvm

    for fn in module.functions:
        if not fn.is_declaration and fn.name != export:
            fn.linkage = llvm.Linkage.internal
    for gv in module.global_variables:
        if not gv.is_declaration:
            gv.linkage = llvm.Linkage.internal
    pto = llvm.create_pipeline_tuning_options(speed_level=0)
    pb = llvm.create_pass_builder(_target_machine(""), pto)
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_global_dead_code_eliminate_pass()
    mpm.add_strip_dead_prototype_pass()
    mpm.run(module, pb)


def _imports(module: Any) -> set[str]:
    names = {f.name for f in module.functions
             if f.is_declaration and not f.name.startswith("llvm.")}
    names |= {g.name for g in module.global_variables if g.is_declaration}
    return names


# -- loading (no Numba; no llvmlite on Linux x86-64) ---------------------------------------------

_lock = threading.RLock()
_engine: Any = None
_machines: dict[tuple[str, int], Any] = {}  # (cpu name, code generation level) -> machine
_keepalive: list[Any] = []
_loaded: dict[str, int] = {}
_provisional: set[str] = set()  # symbols whose address is tier-0 code (add_symbol)
_bound_provisionally: list[Any] = []  # final objects loaded while one of those was provisional
#: export -> method definition of the function calling it (python_function): retargetable
_functions: dict[str, Any] = {}
#: symbol -> address of what jitgraph itself provides (bound objects, loaded block functions)
_symbols: dict[str, int] = {}
#: those of ``_symbols`` also given to LLVM's JIT linker, with the address it was given
_published: dict[str, int] = {}
#: symbol prefix -> "module:function" making such a symbol available (imported when needed)
SYMBOL_PROVIDERS: dict[str, str] = {
    "jitgraph_block_": "jitgraph.backend_cpu.runtime.blocks:provide"}


def _llvm() -> Any:
    import llvmlite.binding as llvm

    if not _machines:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
    return llvm


def prepare(cpus: "set[str] | list[str]") -> None:
    """Initialise LLVM and make the target machines of ``cpus`` now (once per process), so
    that a process forked afterwards (:mod:`~jitgraph.backend_cpu.codegen.compile_ahead`)
    inherits them instead of paying for them again."""
    for cpu in cpus:
        _target_machine(cpu)
        _target_machine(cpu, 0)


def _target_machine(cpu: str, level: int = 3) -> Any:
    """The target machine of ``cpu`` ('' or 'host': this host, with its features) generating
    code at ``level`` (3: optimised; 0: LLVM's fast instruction selector, for tier 0)."""
    with _lock:
        llvm = _llvm()
        name = "" if cpu in ("", "host", "native") else cpu
        tm = _machines.get((name, level))
        if tm is None:
            features = llvm.get_host_cpu_features().flatten() if not name else ""
            tm = llvm.Target.from_default_triple().create_target_machine(
                cpu=name or llvm.get_host_cpu_name(), features=features, opt=level,
                reloc="default", codemodel="jitdefault", jit=True)
            _machines[(name, level)] = tm
        return tm


def add_symbol(name: str, address: int, provisional: bool = False) -> None:
    """Make ``name`` resolve to ``address`` for objects loaded later, and for code Numba
    compiles in this process (once llvmlite is imported).

    ``provisional``: a tier-0 definition, replaced later. The ``"python"`` entries loaded
    meanwhile that call it (kernels compiled on demand during a program's first call) are
    loaded again once a final address is given, and their functions retargeted, so that they
    do not keep calling tier-0 code after the upgrade (code Numba compiled meanwhile does: a
    fallback the direct compiler rarely takes)."""
    with _lock:
        replaced = name in _provisional and not provisional
        if provisional:
            _provisional.add(name)
        else:
            _provisional.discard(name)
        _symbols[name] = address
        if replaced:
            _relink()
        if "llvmlite.binding" in sys.modules and _published.get(name) != address:
            import llvmlite.binding as llvm

            llvm.add_symbol(name, address)
            _published[name] = address


def _bind_objects() -> None:
    if NDARRAY_SYMBOL not in _symbols:
        import numpy as np

        _symbols.update({NDARRAY_SYMBOL: id(np.ndarray), ERROR_SYMBOL: id(KernelError),
                         TYPE_ERROR_SYMBOL: id(TypeError)})


def _get_engine() -> Any:
    global _engine
    if _engine is None:
        llvm = _llvm()
        _engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine(""))
    return _engine


def _address_of(symbol: str) -> int | None:
    """The address ``symbol`` has in this process (providing it if jitgraph can), or None."""
    address = _symbols.get(symbol)
    if address:
        return address

    address = elf_loader.process_symbol(symbol)
    if not address:
        for prefix, provider in SYMBOL_PROVIDERS.items():
            if symbol.startswith(prefix):
                import importlib

                module, _, function = provider.partition(":")
                getattr(importlib.import_module(module), function)(symbol)
                address = _symbols.get(symbol)
                break
    if not address and "llvmlite.binding" in sys.modules:  # e.g. Numba's runtime, if started
        import llvmlite.binding as llvm

        address = llvm.address_of_symbol(symbol)
    if address:
        _symbols[symbol] = address
    return address or None


def _relink() -> None:
    """Load again the objects bound to a provisional symbol since replaced; retarget their
    functions (:func:`add_symbol`)."""
    waiting = []
    for obj in _bound_provisionally:
        if _provisional.intersection(obj.imports):
            waiting.append(obj)
            continue
        exports = _load_elf(obj)
        if exports is None or not exports.get(obj.export):
            continue  # the first load stays (a different loader: not tiered)
        _loaded[obj.export] = exports[obj.export]
        for name, value in exports.items():
            _symbols[name] = value
        handle = _functions.get(obj.export)
        if handle is not None:
            handle.ml_meth = exports[obj.export]
    _bound_provisionally[:] = waiting


def load(obj: NativeObject, final: bool = True) -> int:
    """Load ``obj`` (once per process) and return the address of its entry. ``final``: the
    object is meant to stay (not a tier-0 one), so it is loaded again if it bound a
    provisional symbol (:func:`add_symbol`)."""
    with _lock:
        address = _loaded.get(obj.export)
        if address is not None:
            return address
        if obj.abi != abi_tag():
            raise Unavailable(f"built for {obj.abi}, this interpreter is {abi_tag()}")
        _bind_objects()
        missing = [s for s in obj.imports if not _address_of(s)]
        if missing:
            raise Unavailable(f"unresolved symbols {missing}")
        exports = _load_elf(obj)
        if exports is None:
            exports = _load_mcjit(obj)
        address = exports.get(obj.export)
        if not address:
            raise Unavailable(f"the object does not define {obj.export}")
        for name, value in exports.items():
            add_symbol(name, value)
        _loaded[obj.export] = address
        if final and _provisional.intersection(obj.imports):
            _bound_provisionally.append(obj)
        return address


def _load_elf(obj: NativeObject) -> dict[str, int] | None:
    """The object loaded by :mod:`.elf_loader`, or None where that loader cannot."""
    if not elf_loader.usable():
        return None
    try:
        return elf_loader.load(obj.code, _address_of)
    except elf_loader.UnresolvedSymbol as exc:
        raise Unavailable(f"unresolved symbol {exc}") from None
    except elf_loader.UnsupportedObject:
        return None


def _load_mcjit(obj: NativeObject) -> dict[str, int]:
    llvm = _llvm()
    engine = _get_engine()
    for name in obj.imports:  # llvmlite is imported now: add_symbol gives them to LLVM
        if name in _symbols:
            add_symbol(name, _symbols[name])
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj.code))
    engine.finalize_object()
    return {obj.export: engine.get_function_address(obj.export)}


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None
_new_cfunction = ctypes.pythonapi.PyCFunction_NewEx
_new_cfunction.restype = ctypes.py_object
_new_cfunction.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]


def python_function(address: int, name: str) -> Callable:
    """A builtin function calling the ``"python"`` entry at ``address``."""
    with _lock:
        encoded = name.encode("ascii")
        mdef = _MethodDef(encoded, address, _METH_FASTCALL, None)
        # The function object points at both, and CPython reads the method definition when it
        # traverses or frees the function (its flags say whether a class reference follows).
        # A list of this module is emptied when the interpreter shuts down, before the final
        # garbage collection frees functions held in reference cycles: that collection read
        # freed memory and crashed (a segmentation fault after a test run). Both objects are
        # therefore given a reference that is never released.
        for obj in (mdef, encoded):
            _incref(ctypes.py_object(obj))
        _keepalive.append((mdef, encoded))
        _functions[name] = mdef
        return _new_cfunction(ctypes.addressof(mdef), None, None)


def retargetable_function(address: int, name: str) -> tuple[Callable, Any]:
    """:func:`python_function` and a handle for :func:`retarget`."""
    with _lock:
        function = python_function(address, name)
        return function, _functions[name]


def retarget(handle: Any, address: int, export: str) -> None:
    """Make the function of ``handle`` (:func:`retargetable_function`) call the ``"python"``
    entry ``export``, loaded at ``address``, from now on, wherever it is referenced. CPython
    reads a builtin function's C pointer from its method definition at every call, so this
    one aligned store switches every caller; a call already running finishes in the old code,
    which stays loaded. Both entries must take the same arguments (two compilations of one
    entry)."""
    with _lock:
        handle.ml_meth = address
        old = handle.ml_name.decode("ascii")  # the export it was made for (retargeted once)
        if old != export and _functions.get(old) is handle:
            # a relink of the old object must not point the function back at it
            del _functions[old]
            _bound_provisionally[:] = [o for o in _bound_provisionally if o.export != old]
        _functions[export] = handle


def load_python_function(obj: NativeObject, name: str) -> Callable:
    return python_function(load(obj), name)


__all__ = ["NativeObject", "KernelError", "Unavailable", "build", "load", "python_function",
           "add_symbol",
           "load_python_function", "abi_tag", "supported", "SYMBOL_PROVIDERS", "NATIVE_VERSION"]
