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
from dataclasses import dataclass, field
from typing import Any

from jitgraph.backend_cpu.options import CodegenOptions, compiling_with

HEADER = """\
import math
import numpy as np
from numba import types as _nt
from jitgraph.backend_cpu.vecmath import block_call, fexp, require
from jitgraph.backend_cpu.helpers import ipow
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


@dataclass(frozen=True)
class KernelSource:
    """The generated source of one kernel structure and the key identifying it."""

    key: tuple
    source: str
    entries: tuple[str, ...]
    options: CodegenOptions = field(compare=False)
    description: str = field(default="", compare=False)

    def digest(self) -> str:
        """A stable hex digest of the key (names the module; a cache folder name)."""
        return hashlib.sha256(repr(self.key).encode("utf-8")).hexdigest()[:24]


@dataclass
class CompileRecord:
    key_digest: str
    entry: str
    seconds: float
    description: str


#: every compilation done in this process (what ``bench/`` and the profiler report)
COMPILE_LOG: list[CompileRecord] = []


#: Store kernels in the compiledir (``jitgraph.cache``): ``mod.py`` per kernel structure and
#: Numba's cache files beside it, so a new process loads instead of compiling.
#: ``JITGRAPH_CPU_DISK_CACHE=0`` keeps every kernel in memory only (for measuring compiles).
DISK_CACHE = os.environ.get("JITGRAPH_CPU_DISK_CACHE", "1") != "0"


class KernelModule:
    """The executed module of one :class:`KernelSource`, compiling entries on demand."""

    def __init__(self, ks: KernelSource) -> None:
        self.source = ks
        self._cached: Any = None
        if DISK_CACHE:
            from jitgraph.cache.keys import make_key
            from jitgraph.cache.modules import CachedModule

            self._cached = CachedModule(make_key(ks.key), ks.source,
                                        {"kind": "numba-cpu", "ops": ks.description})
            self.module = self._cached.module
        else:
            name = f"jitgraph_kernel_{ks.digest()}"
            module = pytypes.ModuleType(name)
            module.__file__ = f"<{name}>"
            exec(compile(ks.source, module.__file__, "exec"), module.__dict__)
            self.module = module
        self._compiled: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, entry: str) -> Any:
        """The compiled Numba dispatcher of ``entry`` (compiled the first time)."""
        disp = self._compiled.get(entry)
        if disp is not None:
            return disp
        with self._lock:
            disp = self._compiled.get(entry)
            if disp is None:
                disp = self._compile(entry)
                self._compiled[entry] = disp
        return disp

    def _compile(self, entry: str) -> Any:
        import numba

        ks = self.source
        fn = getattr(self.module, entry)
        sig = getattr(self.module, f"SIG_{entry}")
        t0 = time.perf_counter()
        kwargs = ks.options.njit_kwargs()
        with compiling_with(ks.options):
            if self._cached is not None:
                kwargs["cache"] = True
                disp = self._cached.compile(entry, lambda f: numba.njit(
                    getattr(self._cached.module, f"SIG_{entry}"), **kwargs)(f))
            else:
                disp = numba.njit(sig, **kwargs)(fn)
        COMPILE_LOG.append(CompileRecord(ks.digest(), entry, time.perf_counter() - t0,
                                         ks.description))
        return disp

    def is_compiled(self, entry: str) -> bool:
        return entry in self._compiled


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


def clear_memo() -> None:
    """Forget every compiled kernel (tests measuring compilation use it)."""
    _MODULES.clear()


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


def compile_stats() -> dict[str, Any]:
    """Number of compiled entries and the seconds spent compiling them in this process."""
    return {"modules": len(_MODULES), "compiled_entries": len(COMPILE_LOG),
            "compile_seconds": sum(r.seconds for r in COMPILE_LOG)}

