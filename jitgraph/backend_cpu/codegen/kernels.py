"""Kernel sources and their compilation: one generated module per kernel structure, memoised.

A kernel is described by a :class:`KernelSource`: a **structural key** (nested tuples of str, int
and bool: stable across processes, hashable, picklable; it never mentions a graph) and the text
of a Python module. The module is self-contained, so the disk cache can write it as ``mod.py``
and import it again: it imports only ``math``, ``numpy``, ``numba.types`` and the helper functions
of this package by name, takes constants as arguments, and defines for each entry point ``NAME``
a Numba signature ``SIG_NAME``. Compiling an entry is ``numba.njit(SIG_NAME, **options)(NAME)``:
an explicit signature, so Numba never re-types it.

Entries of one module are compiled independently and only when first needed (e.g. the strided
variant of an elementwise kernel compiles the first time a non-contiguous input shows up).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import types as pytypes
from typing import Any, NamedTuple

from jitgraph.backend_cpu import native
from jitgraph.backend_cpu.native import build_direct
from jitgraph.backend_cpu.options import CodegenOptions, compiling_with
from jitgraph.cache import metadata
from jitgraph.cache.keys import make_key
from jitgraph.cache.modules import open_module

HEADER = """\
import math
import numpy as np
from numba import types as _nt
from jitgraph.backend_cpu.runtime.vecmath import block_call, fexp, require
from jitgraph.backend_cpu.runtime.helpers import flat_view, ipow, stack_empty
"""

NUMBA_TYPE_NAMES = {"bool": "boolean"}


def numba_array_type(dtype: str, ndim: int, layout: str, readonly: bool = False) -> str:
    """Source text of a Numba array type (evaluated inside the generated module). Inputs are
    declared ``readonly``: such a signature accepts writable and read-only arrays alike."""
    ro = ", readonly=True" if readonly else ""
    return f"_nt.Array(_nt.{NUMBA_TYPE_NAMES.get(dtype, dtype)}, {ndim}, {layout!r}{ro})"


def numba_scalar_type(dtype: str) -> str:
    return f"_nt.{NUMBA_TYPE_NAMES.get(dtype, dtype)}"


def signature_text(args: list[str], ret: str = "_nt.void") -> str:
    return f"{ret}({', '.join(args)})"


class KernelSource(NamedTuple):
    """The generated source of one kernel structure and the key identifying it (a named
    tuple: cheaper to define at import than a dataclass, and kernels are found by ``key``)."""

    key: tuple
    source: str
    entries: tuple[str, ...]
    options: CodegenOptions
    description: str = ""

    def digest(self) -> str:
        """A stable hex digest of the key (names the module; a cache folder name)."""
        return hashlib.sha256(repr(self.key).encode("utf-8")).hexdigest()[:24]


class CompileRecord(NamedTuple):
    key_digest: str
    entry: str
    seconds: float
    description: str


#: every compilation done in this process (what ``bench/`` and the profiler report)
COMPILE_LOG: list[CompileRecord] = []
#: LLVM pipeline level of tier-0 objects (:mod:`.tiering`), kernels and vecmath blocks alike:
#: unoptimised, a fifth of the optimised compile (a tier-0 block is 15 times slower, so the
#: child builds the optimised blocks first and what bound the tier-0 ones is relinked)
QUICK_LEVEL = 0
#: the tier-0 compilations of this process (:mod:`.tiering`), apart: COMPILE_LOG lists each
#: entry's one optimised compilation, as before tiering
TIER0_LOG: list[CompileRecord] = []


#: Store kernels in the compiledir (``jitgraph.cache``): ``mod.py`` per kernel structure and
#: Numba's cache files beside it, so a new process loads instead of compiling.
#: ``JITGRAPH_CPU_DISK_CACHE=0`` keeps every kernel in memory only (for measuring compiles).
DISK_CACHE = os.environ.get("JITGRAPH_CPU_DISK_CACHE", "1") != "0"


class KernelModule:
    """One :class:`KernelSource`, its entries compiled on demand.

    An entry is, by preference, a native object (:mod:`.native`): loaded from the compiledir
    without Numba when another process compiled it already, else compiled by Numba and turned
    into one. Entries Numba's runtime is needed for stay Numba dispatchers."""

    def __init__(self, ks: KernelSource) -> None:
        self.source = ks
        self._cached: Any = None
        self._module: pytypes.ModuleType | None = None
        if DISK_CACHE:
            # The source's digest is part of the key: a kernel structure whose helpers or
            # templates changed (a jitgraph upgrade) gets an entry of its own instead of
            # colliding with the old one.
            source_digest = hashlib.sha256(ks.source.encode("utf-8")).hexdigest()[:20]
            # None when the compiledir cannot be written: compiled in memory (reported once)
            self._cached = open_module(make_key(ks.key, source=source_digest), ks.source,
                                       metadata.cpu_kernel(ks.description, "numba-cpu"))
        self._compiled: dict[str, Any] = {}
        #: entry -> handle of its tier-0 function, until :meth:`upgrade` retargets it
        self._tier0: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def module(self) -> pytypes.ModuleType:
        """The generated module, executed (which imports Numba) the first time it is needed."""
        if self._cached is not None:
            return self._cached.module
        if self._module is None:
            name = f"jitgraph_kernel_{self.source.digest()}"
            self._module = exec_module(self.source.source, name)
        return self._module

    def get(self, entry: str) -> Any:
        """The compiled ``entry``: a builtin function or a Numba dispatcher."""
        return self._memoised(entry, self._obtain)

    def get_quick(self, entry: str) -> Any:
        """``entry`` compiled at tier 0 (:mod:`.tiering`) unless it is compiled already: a
        function computing the same values as the optimised one, which :meth:`upgrade` later
        points at the optimised object. Compiled normally where the direct compiler declines."""
        return self._memoised(entry, self._obtain_quick)

    def _memoised(self, entry: str, make: Any) -> Any:
        fn = self._compiled.get(entry)
        if fn is not None:
            return fn
        with self._lock:
            fn = self._compiled.get(entry)
            if fn is None:
                fn = self._compiled[entry] = make(entry)
                _ORIGINS[id(fn)] = (fn, self.source, entry)
        return fn

    def _obtain_quick(self, entry: str) -> Any:
        ks = self.source
        obj, _ = direct_object(ks.source, entry, f"{self.export_name(entry)}__tier0", "python",
                               ks.options, ks.description, quick=QUICK_LEVEL)
        if obj is None:
            return self._obtain(entry)
        # loaded as final: bound to a tier-0 block, it is loaded again when the optimised
        # block arrives (usually long before its own upgrade)
        fn, self._tier0[entry] = native.retargetable_function(native.load(obj), obj.export)
        return fn

    def is_quick(self, entry: str) -> bool:
        """Whether ``entry`` runs tier-0 code now."""
        return entry in self._tier0

    def upgrade(self, entry: str) -> bool:
        """Point ``entry``'s tier-0 function at the optimised object another process stored
        in the compiledir. False when there is none (the entry stays at tier 0)."""
        handle = self._tier0.get(entry)
        if handle is None:
            return True
        address = load_stored(self._cached, entry, "c")
        if address is None:
            return False
        native.retarget(handle, address, self.export_name(entry))
        del self._tier0[entry]
        return True

    def export_name(self, entry: str) -> str:
        return f"jg_{self.source.digest()}_{entry}"

    def _obtain(self, entry: str) -> Any:
        ks = self.source
        export = self.export_name(entry)

        def compile_numba(mode: str) -> Any:
            import numba

            kwargs = ks.options.njit_kwargs()
            kwargs["cache"] = mode == CACHED
            if mode == FOR_NATIVE:  # nothing calls the dispatcher: skip Numba's wrapper
                kwargs["no_cpython_wrapper"] = True
            sig = getattr(self.module, f"SIG_{entry}")
            t0 = time.perf_counter()
            with compiling_with(ks.options):
                disp = numba.njit(sig, **kwargs)(getattr(self.module, entry))
            COMPILE_LOG.append(CompileRecord(ks.digest(), entry, time.perf_counter() - t0,
                                             ks.description))
            return disp

        def compile_direct() -> tuple[Any, str]:
            return direct_object(ks.source, entry, export, "python", ks.options,
                                 ks.description)

        return obtain(self._cached, entry, export, "python", ks.options.target_cpu,
                      compile_numba, compile_direct)

    def is_compiled(self, entry: str) -> bool:
        return entry in self._compiled

    def stored(self, entry: str) -> bool | None:
        """Whether the compiledir has ``entry`` (an object, or a record that Numba compiles
        it); None without the disk cache."""
        if self._cached is None:
            return None
        return self._cached.entry.file(f"native-{entry}.json").exists()


def exec_module(source: str, name: str) -> pytypes.ModuleType:
    """A module executed from generated ``source`` in memory (no compiledir)."""
    module = pytypes.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


#: How :func:`obtain` asks ``compile_numba`` to compile: for a native object only (no wrapper
#: making it callable from Python: it is never called), callable in memory, or callable
#: through Numba's on-disk cache.
FOR_NATIVE, CALLABLE, CACHED = "native", "callable", "cached"


def direct_object(source: str, entry: str, export: str, kind: str, options: CodegenOptions,
                  description: str, quick: int | None = None) -> tuple[Any, str]:
    """``entry`` compiled without Numba (the direct compiler of :mod:`jitgraph.backend_cpu.native`):
    (native object or None, why not); ``quick``: a tier-0 object, optimised at that level
    (:mod:`.tiering`)."""
    t0 = time.perf_counter()
    obj, why = build_direct(source, entry, export, kind, options, quick)
    if obj is not None:
        (COMPILE_LOG if quick is None else TIER0_LOG).append(CompileRecord(
            hashlib.sha256(source.encode()).hexdigest()[:24], entry, time.perf_counter() - t0,
            f"direct {description}"))
    return obj, why


def obtain(cached: Any, entry: str, export: str, kind: str, target_cpu: str,
           compile_numba: Any, compile_direct: Any = None) -> Any:
    """The native function of ``entry`` (loaded, or compiled and stored), else Numba's.

    ``compile_direct()`` compiles the entry without Numba (:mod:`.direct`) and returns
    ``(native object or None, why not)``; ``compile_numba(mode)`` compiles it with Numba,
    ``mode`` being one of :data:`FOR_NATIVE`, :data:`CALLABLE`, :data:`CACHED`. ``kind`` is
    ``"python"`` (returns a callable) or ``"c"`` (returns the address of a C function).
    ``cached`` is the entry's :class:`~jitgraph.cache.modules.CachedModule`, or None to keep
    everything in memory."""
    if cached is None:
        fn, _, _ = _from_compilers(compile_direct, compile_numba, export, kind, target_cpu)
        return fn if fn is not None else _numba_result(compile_numba(CALLABLE), kind)
    loaded = load_stored(cached, entry, kind)
    if loaded is not None:
        return loaded
    with cached.lock(entry):
        loaded = load_stored(cached, entry, kind)  # another process made it meanwhile
        if loaded is not None:
            return loaded
        stored = cached.read_native(entry)
        if stored is None or stored[1] is not None:  # not known to need Numba's runtime
            t0 = time.perf_counter()
            fn, obj, why = _from_compilers(compile_direct, compile_numba, export, kind,
                                           target_cpu)
            cached.record(entry, False, time.perf_counter() - t0)
            if obj is not None:
                cached.write_native(entry, obj.meta(), obj.code)
            else:
                cached.write_native(entry, {"native": False, "why": why}, None)
            if fn is not None:
                return fn
        # Numba's own cache only where it can write (else it would pick a folder of its own)
        mode = CACHED if cached.writable else CALLABLE
        return _numba_result(cached.compile_locked(entry, lambda _: compile_numba(mode)), kind)


def _from_compilers(compile_direct: Any, compile_numba: Any, export: str, kind: str,
                    target_cpu: str) -> tuple[Any, Any, str]:
    """:func:`_from_numba`, unless the direct compiler makes an object that loads."""
    if compile_direct is not None:
        obj, _ = compile_direct()
        if obj is not None:
            try:
                return _native_result(obj, kind, export), obj, ""
            except native.Unavailable:
                pass
    return _from_numba(compile_numba, export, kind, target_cpu)


def _from_numba(compile_numba: Any, export: str, kind: str, target_cpu: str
                ) -> tuple[Any, Any, str]:
    """Compile for a native object and load it: (what to call or None, the object or None,
    why there is no object)."""
    obj, why = native.build(compile_numba(FOR_NATIVE), export, kind, target_cpu)
    if obj is None:
        return None, None, why
    try:
        return _native_result(obj, kind, export), obj, ""
    except native.Unavailable as exc:
        return None, obj, str(exc)


def _native_result(obj: Any, kind: str, name: str) -> Any:
    address = native.load(obj)
    return native.python_function(address, name) if kind == "python" else address


def _numba_result(disp: Any, kind: str) -> Any:
    """What Numba compiled, as ``kind`` asks: the dispatcher, or a C function's address."""
    if kind == "python":
        return disp
    if hasattr(disp, "address"):  # a cfunc
        return disp.address
    cres = disp.overloads[disp.signatures[0]]
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)


def load_stored(cached: Any, entry: str, kind: str) -> Any:
    """``entry``'s object stored in the compiledir, loaded (as ``kind`` asks), or None."""
    t0 = time.perf_counter()
    stored = cached.read_native(entry)
    if stored is None or stored[1] is None:
        return None
    meta, code = stored
    try:
        result = _native_result(native.NativeObject.from_meta(meta, code), kind, meta["export"])
    except native.Unavailable:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        cached.drop_native(entry, exc)
        return None
    cached.record(entry, True, time.perf_counter() - t0)
    return result


_MODULES: dict[tuple, KernelModule] = {}
_MODULES_LOCK = threading.Lock()


def kernel_module(ks: KernelSource) -> KernelModule:
    """The in-process memo: one module per key, shared by every graph that needs it."""
    mod = _MODULES.get(ks.key)
    if mod is None:
        with _MODULES_LOCK:
            mod = _MODULES.get(ks.key)
            if mod is None:
                mod = _MODULES[ks.key] = KernelModule(ks)
    return mod


#: id of a compiled entry -> (the entry, its KernelSource, its name): how a stored program
#: (:mod:`.stored_program`) refers to it
_ORIGINS: dict[int, tuple[Any, KernelSource, str]] = {}


def clear_memo() -> None:
    """Forget every compiled kernel (tests measuring compilation use it)."""
    _MODULES.clear()
    _ORIGINS.clear()


def entry_reference(obj: Any) -> tuple | None:
    """How a pickled program refers to ``obj`` when it is a compiled kernel entry (one of
    the CPU backend's ``pickle_references``), else None."""
    origin = _ORIGINS.get(id(obj))
    if origin is None or origin[0] is not obj:
        return None
    return ("jitgraph.backend_cpu.codegen.kernels:restore_entry", (origin[1], origin[2]))


def restore_entry(ks: KernelSource, entry: str) -> Any:
    """The compiled ``entry`` of ``ks`` (loaded from the compiledir, or compiled again)."""
    return kernel_module(ks).get(entry)


def restore_lazy(ks: KernelSource, entry: str, name: str) -> "LazyEntry":
    return LazyEntry(kernel_module(ks), entry, {}, name)


class LazyEntry:
    """Stands in for an entry in a driver's namespace until its first call, then compiles it
    and puts the dispatcher itself in the namespace (later calls cost nothing extra)."""

    __slots__ = ("module", "entry", "namespace", "name")

    def __init__(self, module: KernelModule, entry: str, namespace: dict, name: str) -> None:
        self.module = module
        self.entry = entry
        self.namespace = namespace
        self.name = name

    def __call__(self, *args: Any) -> Any:
        disp = self.module.get(self.entry)
        self.namespace[self.name] = disp
        return disp(*args)

    def __reduce__(self) -> tuple:
        return restore_lazy, (self.module.source, self.entry, self.name)

    def rebind(self, namespace: dict) -> None:
        """Replace itself in ``namespace`` (a restored driver's) once compiled."""
        self.namespace = namespace


def compile_stats() -> dict[str, Any]:
    """Number of compiled entries and the seconds spent compiling them in this process."""
    return {"modules": len(_MODULES), "compiled_entries": len(COMPILE_LOG),
            "compile_seconds": sum(r.seconds for r in COMPILE_LOG)}

