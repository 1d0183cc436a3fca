"""Generated CUDA modules: compiled by NVRTC to a cubin, cached in the compiledir, loaded once.

A module is described by a :class:`CudaSource`: a structural key (plain nested tuples; it never
mentions a graph), the CUDA source and its entry points. Its cache key adds the target
architecture, the NVRTC options (``nvcc.fastmath``, ``nvcc.flags``) and the NVRTC version to the
environment parts every jitgraph key has, so changing any of them compiles anew. An entry holds
``mod.cu`` (readable), ``mod.cubin`` (``mod.ptx`` for a device of a newer major than NVRTC
knows), ``nvrtc.log`` and its ``info.json``
(:func:`jitgraph.cache.metadata.gpu_kernel`: architecture, NVRTC version, options, compile
time); a new process loads the cubin without compiling. Loading (``cuModuleLoad`` through ``cupy.RawModule(path=...)``) needs the GPU;
compiling does not, which is what the CI tests check.

``JITGRAPH_GPU_DISK_CACHE=0`` keeps cubins in a temporary folder (for measuring compiles).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitgraph.backend_gpu import nvrtc
from jitgraph.backend_gpu import device
from jitgraph.backend_gpu.device import active, import_cupy
from jitgraph.cache import metadata, store, trust
from jitgraph.cache.keys import make_key

DISK_CACHE = os.environ.get("JITGRAPH_GPU_DISK_CACHE", "1") != "0"
SOURCE_FILE, CUBIN_FILE, PTX_FILE, LOG_FILE = "mod.cu", "mod.cubin", "mod.ptx", "nvrtc.log"


def module_file(arch: str) -> str:
    """The entry's file of the compiled module: a cubin, or PTX for a virtual architecture."""
    return PTX_FILE if nvrtc.is_ptx_target(arch) else CUBIN_FILE


@dataclass(frozen=True)
class CudaSource:
    key: tuple
    source: str = field(compare=False)
    entries: tuple[str, ...] = field(compare=False)
    description: str = field(default="", compare=False)

    def file_name(self) -> str:
        import hashlib

        return "jg_" + hashlib.sha256(repr(self.key).encode()).hexdigest()[:16] + ".cu"


@dataclass
class CompileRecord:
    description: str
    arch: str
    seconds: float
    cached: bool


#: every module compiled or loaded from the disk cache by this process
COMPILE_LOG: list[CompileRecord] = []


@dataclass
class Compiled:
    cubin_path: Path
    log: str
    seconds: float
    cached: bool


def cache_key(src: CudaSource, arch: str, options: tuple[str, ...]) -> Any:
    import hashlib

    # The source digest too: a changed generator never loads a stale cubin. The CuPy build
    # that loads it too: a stand-in CuPy (the tests' emulated device, whose "cubins" are its
    # own images) never shares entries with a real one.
    return make_key(src.key, backend="cuda", arch=arch, nvrtc=nvrtc_version(),
                    cupy=str(getattr(import_cupy(), "__version__", "")),
                    nvrtc_options=tuple(options),
                    source=hashlib.sha256(src.source.encode()).hexdigest())


def nvrtc_version() -> str:
    """``major.minor`` of the NVRTC compiling here (in each entry's key and metadata)."""
    major, minor = nvrtc.version()
    return f"{major}.{minor}"


_TMP: dict[str, str] = {}


def compile_source(src: CudaSource, arch: str, options: tuple[str, ...] | None = None
                   ) -> Compiled:
    """The cubin of ``src`` for ``arch``: from the compiledir, or compiled and published."""
    if options is None:
        options = nvrtc.current_options()
    if DISK_CACHE:
        key = cache_key(src, arch, options)
        t0 = time.perf_counter()
        entry = store.lookup(key)
        if entry is not None and _trusted_module(entry, module_file(arch)):
            entry.touch()
            entry.record_hit()
            store.STATS.hits += 1
            log = entry.file(LOG_FILE).read_text() if entry.file(LOG_FILE).is_file() else ""
            seconds = time.perf_counter() - t0
            store.STATS.load_seconds += seconds
            COMPILE_LOG.append(CompileRecord(src.description, arch, seconds, True))
            return Compiled(entry.file(module_file(arch)), log, seconds, True)
        store.STATS.misses += 1
    compile_ = nvrtc.compile_ptx if nvrtc.is_ptx_target(arch) else nvrtc.compile_cubin
    cubin, log, seconds = compile_(src.source, src.file_name(), arch, options)
    COMPILE_LOG.append(CompileRecord(src.description, arch, seconds, False))
    if DISK_CACHE:
        store.STATS.compile_seconds += seconds
        info = metadata.gpu_kernel(src.description, arch, nvrtc_version(), options, seconds,
                                   cubin)
        try:
            if store.writable():
                entry = store.publish(key, {SOURCE_FILE: src.source, module_file(arch): cubin,
                                            LOG_FILE: log}, info)
                return Compiled(entry.file(module_file(arch)), log, seconds, False)
        except OSError as exc:  # a full or read-only compiledir: kept in a temporary folder
            store.cannot_write(exc, store.compiledir())
    folder = _TMP.setdefault("dir", tempfile.mkdtemp(prefix="jitgraph-cubin-"))
    suffix = module_file(arch)[len("mod"):]
    path = Path(folder) / (src.file_name()[:-3] + f"-{arch}-{len(COMPILE_LOG)}{suffix}")
    path.write_bytes(cubin)
    return Compiled(path, log, seconds, False)


def _trusted_module(entry: store.Entry, name: str) -> bool:
    """Whether ``entry`` holds a module file ``name`` (cubin or PTX) CuPy may load (by its
    path): one another user could have written is reported and not loaded (the entry is moved
    aside and rebuilt)."""
    try:
        trust.check_file(entry.file(name))
    except trust.UntrustedFile as exc:
        store.refuse(entry, str(exc))
        return False
    except OSError:
        return False
    return entry.file(name).is_file()


class LoadedModule:
    """A module loaded on the device; ``get(entry)`` gives a launchable ``cupy.RawKernel``."""

    def __init__(self, src: CudaSource, compiled: Compiled) -> None:
        self.source = src
        self.compiled = compiled
        self._module = import_cupy().RawModule(path=str(compiled.cubin_path))
        self._functions: dict[str, Any] = {}

    def get(self, entry: str) -> Any:
        fn = self._functions.get(entry)
        if fn is None:
            fn = self._functions[entry] = self._module.get_function(entry)
        return fn


_MODULES: dict[tuple, LoadedModule] = {}
_LOCK = threading.Lock()
device.on_reset(_MODULES.clear)


def load(src: CudaSource) -> LoadedModule:
    """``src`` compiled for the active GPU with the current options, loaded (memoised)."""
    dev = active()
    if dev is None:
        raise RuntimeError("no GPU is initialised: GPU kernels cannot be loaded")
    options = nvrtc.current_options()
    memo = (src.key, dev.arch, options)
    mod = _MODULES.get(memo)
    if mod is None:
        with _LOCK:
            mod = _MODULES.get(memo)
            if mod is None:
                mod = _MODULES[memo] = LoadedModule(src, compile_source(src, dev.arch, options))
    return mod


def launch_config(n: int, block: int = 256) -> tuple[tuple[int], tuple[int]]:
    """Grid and block for a grid-stride loop over ``n`` items (at most 32 blocks per SM)."""
    dev = active()
    cap = 32 * (dev.multiprocessors if dev is not None else 80)
    grid = max(1, min((n + block - 1) // block, cap))
    return (grid,), (block,)


def compile_stats() -> dict[str, Any]:
    built = [r for r in COMPILE_LOG if not r.cached]
    return {"modules": len(_MODULES), "compiled": len(built),
            "compile_seconds": sum(r.seconds for r in built),
            "loaded_from_cache": len(COMPILE_LOG) - len(built)}
