"""CUDA kernels built by g++ and run over their real grid and block (see ``cuda_shim.h``).

A module's source is compiled once per content (the shared object is cached on disk, so tests
and processes share it); each ``extern "C" __global__`` entry gets a small wrapper taking its
arguments as an array of pointers. A launch checks the arguments against the entry's C
signature (count, pointer or value, element and scalar widths), refuses NULL pointers, arrays
of another device and overlapping ``__restrict__`` pointers (one of them written), checks the
launch configuration against the device's limits, and turns a fault inside the kernel into
CUDA's sticky illegal-address error.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from emulated_cuda import devices
from emulated_cuda.devices import CUDARuntimeError
from emulated_cuda.settings import STATS, settings

SHIM = Path(__file__).with_name("cuda_shim.h")
GXX_FLAGS = ["-O1", "-shared", "-fPIC", "-std=c++17", "-w", "-U_FORTIFY_SOURCE",
             "-fno-strict-aliasing"]
UBSAN_FLAGS = ["-fsanitize=undefined", "-fno-sanitize=vptr"]


class BuildError(RuntimeError):
    """g++ could not build a kernel module (its log is the message)."""


def cache_dir() -> Path:
    """Where built modules are kept: ``JITGRAPH_EMULATED_CUDA_CACHE``, else beside the tests'
    compiledir (``base_compiledir`` in ``JITGRAPH_FLAGS``), else the temporary folder."""
    path = os.environ.get("JITGRAPH_EMULATED_CUDA_CACHE")
    if not path:
        flags = dict(p.split("=", 1) for p in os.environ.get("JITGRAPH_FLAGS", "").split(",")
                     if "=" in p)
        base = flags.get("base_compiledir")
        path = os.path.join(base, "emulated-cuda") if base else os.path.join(
            tempfile.gettempdir(), f"jitgraph-emulated-cuda-{os.getuid()}")
    Path(path).mkdir(parents=True, exist_ok=True)
    return Path(path)


# -- signatures ---------------------------------------------------------------------------

SCALAR_TYPES = {
    "float": "float32", "double": "float64", "bool": "bool",
    "char": "int8", "signed char": "int8", "unsigned char": "uint8", "int8_t": "int8",
    "uint8_t": "uint8", "short": "int16", "unsigned short": "uint16", "int16_t": "int16",
    "uint16_t": "uint16", "int": "int32", "signed int": "int32", "signed": "int32",
    "int32_t": "int32", "unsigned int": "uint32", "unsigned": "uint32", "uint32_t": "uint32",
    "long": "int64", "long int": "int64", "long long": "int64", "long long int": "int64",
    "int64_t": "int64", "ptrdiff_t": "int64", "unsigned long": "uint64",
    "unsigned long long": "uint64", "unsigned long long int": "uint64", "uint64_t": "uint64",
    "size_t": "uint64",
}
#: pointees any array may be passed as (byte-addressed access)
UNTYPED_POINTEES = {"void", "char", "signed char", "unsigned char", "int8_t", "uint8_t"}

_ENTRY = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
                    r'(\w+)\s*\(([^)]*)\)')
_SHARED = re.compile(r"extern\s+__shared__\s+([\w\s]+?)\s+(\w+)\s*\[\s*\]\s*;")


@dataclass(frozen=True)
class Param:
    name: str
    base: str           # the C type without const, restrict and the pointer star
    pointer: bool
    const: bool         # a pointer to const (read only), or a const value
    restrict: bool

    def describe(self, index: int) -> str:
        return f"argument {index} ({self.c_type()} {self.name})"

    def c_type(self) -> str:
        if self.pointer:
            return ("const " if self.const else "") + self.base + "*" + (
                " __restrict__" if self.restrict else "")
        return self.base


@dataclass(frozen=True)
class Signature:
    name: str
    params: tuple[Param, ...]


def _param(text: str) -> Param:
    text = " ".join(text.replace("*", " * ").split())
    tokens = text.split(" ")
    name = tokens[-1]
    rest = tokens[:-1]
    pointer = "*" in rest
    restrict = "__restrict__" in rest
    const = "const" in rest[:rest.index("*")] if pointer else "const" in rest
    base = " ".join(t for t in rest if t not in ("const", "*", "__restrict__"))
    return Param(name, base, pointer, const, restrict)


def signatures(source: str) -> dict[str, Signature]:
    """The ``extern "C" __global__`` entries of ``source`` and their parameters."""
    out = {}
    for m in _ENTRY.finditer(source):
        params = tuple(_param(p) for p in m.group(2).split(",") if p.strip())
        out[m.group(1)] = Signature(m.group(1), params)
    return out


# -- building -------------------------------------------------------------------------------

def translate(source: str) -> str:
    """``source`` in the shim's dialect: dynamic shared memory is the launch's block buffer."""
    return _SHARED.sub(lambda m: f"\n#define {m.group(2)} (({m.group(1)}*)jg_dynamic_shared)\n",
                       source)


def _wrapper(sig: Signature) -> str:
    args = ", ".join(f"*({'const ' if p.pointer and p.const else ''}{p.base}{'*' if p.pointer else ''}*)a[{i}]"
                     for i, p in enumerate(sig.params))
    return f'extern "C" void jg_entry_{sig.name}(void** a) {{ {sig.name}({args}); }}\n'


def cxx_source(source: str) -> str:
    """The translation unit after the header: the kernels and their wrappers."""
    sigs = signatures(source)
    return ("#line 1 \"kernel.cu\"\n" + translate(source) + "\n"
            + "".join(_wrapper(s) for s in sigs.values()))


def _unique(path: Path) -> Path:
    return path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _gxx(args: list[str]) -> None:
    res = subprocess.run(["g++", *args], capture_output=True, text=True)
    if res.returncode:
        raise BuildError(f"g++ could not build the kernel module:\n{res.stderr.strip()}")


def _header(flags: list[str]) -> Path:
    """The shim in the cache folder, precompiled once per content and flags (every module
    includes it: the precompiled form halves a module's build)."""
    text = SHIM.read_text()
    digest = hashlib.sha256((text + repr(flags)).encode()).hexdigest()[:16]
    header = cache_dir() / f"cuda_shim-{digest}.h"
    if not header.exists():
        tmp = _unique(header)
        tmp.write_text(text)
        os.replace(tmp, header)
    gch = header.with_name(header.name + ".gch")
    if not gch.exists():
        tmp = _unique(gch)
        try:
            _gxx([*flags, "-x", "c++-header", "-o", str(tmp), str(header)])
            os.replace(tmp, gch)
        finally:
            tmp.unlink(missing_ok=True)
    return header


def build(source: str, ubsan: bool | None = None) -> Path:
    """The shared object of ``source`` (built by g++ once per content and flags)."""
    ubsan = settings().ubsan if ubsan is None else ubsan
    flags = GXX_FLAGS + (UBSAN_FLAGS if ubsan else [])
    header = _header(flags)
    text = cxx_source(source)
    digest = hashlib.sha256((header.name + text + repr(flags)).encode()).hexdigest()[:24]
    lib = cache_dir() / f"{digest}.so"
    if lib.exists():
        return lib
    cpp, tmp = _unique(lib.with_suffix(".cpp")), _unique(lib)
    cpp = cpp.with_name(cpp.name + ".cpp")
    cpp.write_text(text)
    try:
        _gxx([*flags, "-include", str(header), "-o", str(tmp), str(cpp)])
        os.replace(tmp, lib)
    finally:
        cpp.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)
    return lib


class Library:
    """A built module: its entries, launchable over a grid."""

    def __init__(self, source: str, ubsan: bool | None = None) -> None:
        self.source = source
        self.signatures = signatures(source)
        self.fibers = "__syncthreads" in source
        self.ubsan = settings().ubsan if ubsan is None else ubsan
        self.cdll = ctypes.CDLL(str(build(source, ubsan)))
        self.cdll.jg_launch.restype = ctypes.c_int
        self.cdll.jg_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_ulonglong, ctypes.c_int]

    def entry(self, name: str) -> Signature:
        sig = self.signatures.get(name)
        if sig is None:
            raise KeyError(name)
        return sig


_LIBS: dict[tuple[str, bool], Library] = {}
_LIBS_LOCK = threading.Lock()


def library(source: str) -> Library:
    key = (hashlib.sha256(source.encode()).hexdigest(), settings().ubsan)
    lib = _LIBS.get(key)
    if lib is None:
        with _LIBS_LOCK:
            lib = _LIBS.get(key)
            if lib is None:
                lib = _LIBS[key] = Library(source, key[1])
    return lib


# -- arguments ------------------------------------------------------------------------------

@dataclass
class ArrayArgument:
    """What a launch needs of an array argument."""

    address: int
    dtype: np.dtype
    low: int        # the first byte it covers
    high: int       # one past the last
    device: int | None  # None: host memory (the CPU-emulation tests' NumPy arrays)
    host: np.ndarray


def _scalar_dtype(value: Any) -> np.dtype | None:
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(value, int):
        return np.dtype(np.int64)   # CuPy passes a Python int as a 64-bit integer
    if isinstance(value, float):
        return np.dtype(np.float64)
    if isinstance(value, np.generic):
        return value.dtype
    return None


def _compatible(declared: str, given: np.dtype) -> bool:
    want = np.dtype(SCALAR_TYPES[declared])
    if want.itemsize != given.itemsize:
        return False
    if want.kind == "f" or given.kind == "f":
        return want.kind == given.kind
    return True  # integers and bools of one width: the same bits


def _error(kernel: str, what: str) -> TypeError:
    return TypeError(f"emulated CUDA device: kernel {kernel}: {what}")


def pack(sig: Signature, values: Sequence[Any], arrays: Sequence[ArrayArgument | None],
         device: int | None) -> tuple[Any, list]:
    """The ``void*[]`` of a launch (and the objects it points into), after the checks."""
    if len(values) != len(sig.params):
        raise _error(sig.name, f"takes {len(sig.params)} arguments "
                     f"({', '.join(p.c_type() + ' ' + p.name for p in sig.params)}), "
                     f"got {len(values)}")
    keep: list = []
    for i, (p, value, arr) in enumerate(zip(sig.params, values, arrays)):
        if p.pointer:
            if value is None:
                err = CUDARuntimeError("cudaErrorIllegalAddress",
                                       f"an illegal memory access was encountered (kernel "
                                       f"{sig.name}: {p.describe(i)} is a NULL pointer)")
                if device is not None:
                    devices.poison(device, err)
                raise err
            if arr is None:
                raise _error(sig.name, f"{p.describe(i)} is a pointer; got "
                             f"{type(value).__name__} (pass a device array)")
            if arr.device is not None and arr.device != device:
                raise CUDARuntimeError(
                    "cudaErrorIllegalAddress",
                    f"an illegal memory access was encountered (kernel {sig.name} launched on "
                    f"device {device}: {p.describe(i)} is an array of device {arr.device})")
            if p.base not in UNTYPED_POINTEES:
                if p.base not in SCALAR_TYPES or not _compatible(p.base, arr.dtype):
                    raise _error(sig.name, f"{p.describe(i)} points to {p.base}; got an array "
                                 f"of {arr.dtype}")
            keep.append(ctypes.c_void_p(arr.address))
        else:
            if arr is not None or value is None:
                raise _error(sig.name, f"{p.describe(i)} is passed by value; got "
                             f"{type(value).__name__}")
            given = _scalar_dtype(value)
            if given is None or p.base not in SCALAR_TYPES:
                raise _error(sig.name, f"{p.describe(i)}: cannot pass {type(value).__name__}")
            if not _compatible(p.base, given):
                raise _error(sig.name, f"{p.describe(i)} is {p.base} "
                             f"({np.dtype(SCALAR_TYPES[p.base]).itemsize} bytes); got "
                             f"{given} (pass numpy.{SCALAR_TYPES[p.base]}(...))")
            keep.append(np.array(value, dtype=given))
    _check_restrict(sig, arrays)
    ptrs = (ctypes.c_void_p * max(1, len(keep)))()
    for i, obj in enumerate(keep):
        ptrs[i] = ctypes.addressof(obj) if isinstance(obj, ctypes.c_void_p) else obj.ctypes.data
    return ptrs, keep


def _check_restrict(sig: Signature, arrays: Sequence[ArrayArgument | None]) -> None:
    ps = [(i, p, a) for i, (p, a) in enumerate(zip(sig.params, arrays)) if a is not None]
    for x in range(len(ps)):
        for y in range(x + 1, len(ps)):
            (i, p, a), (j, q, b) = ps[x], ps[y]
            if not (p.restrict or q.restrict) or (p.const and q.const):
                continue
            if a.low < b.high and b.low < a.high and np.shares_memory(a.host, b.host,
                                                                        max_work=10**6):
                raise _error(sig.name, f"{p.describe(i)} and {q.describe(j)} overlap, and "
                             "one is __restrict__ and written: the compiler may reorder their "
                             "accesses (undefined behaviour)")


# -- launching ------------------------------------------------------------------------------

LAUNCH_LOCK = threading.Lock()
MAX_SHARED = 48 * 1024
_FAULTS = {1: ("cudaErrorIllegalAddress", "an illegal memory access was encountered"),
           2: ("cudaErrorLaunchFailure", "an integer division by zero trapped (undefined on "
                                        "the GPU)"),
           3: ("cudaErrorLaunchFailure", "__syncthreads() was not reached by every thread of "
                                        "a block"),
           4: ("cudaErrorLaunchFailure", "internal: __syncthreads() outside a fiber")}


def _dims(value: Any, what: str, kernel: str) -> tuple[int, int, int]:
    dims = tuple(int(v) for v in (value if isinstance(value, (tuple, list)) else (value,)))
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise CUDARuntimeError("cudaErrorInvalidConfiguration",
                               f"invalid configuration argument ({kernel}: {what} {value!r})")
    return dims + (1,) * (3 - len(dims))  # type: ignore[return-value]


def launch(lib: Library, name: str, grid: Any, block: Any, values: Sequence[Any],
           arrays: Sequence[ArrayArgument | None], shared_mem: int = 0,
           device: int | None = None) -> None:
    sig = lib.entry(name)
    g, b = _dims(grid, "grid", name), _dims(block, "block", name)
    if b[0] * b[1] * b[2] > 1024 or b[2] > 64 or g[0] > 2**31 - 1 or max(g[1:]) > 65535:
        raise CUDARuntimeError("cudaErrorInvalidConfiguration",
                               f"invalid configuration argument ({name}: grid {g}, block {b})")
    if shared_mem > MAX_SHARED:
        raise CUDARuntimeError("cudaErrorInvalidValue",
                               f"invalid argument ({name}: {shared_mem} bytes of dynamic shared "
                               f"memory, at most {MAX_SHARED} without opting in)")
    ptrs, keep = pack(sig, values, arrays, device)
    cfg = (ctypes.c_uint * 6)(*g, *b)
    entry = ctypes.cast(getattr(lib.cdll, f"jg_entry_{name}"), ctypes.c_void_p)
    with LAUNCH_LOCK, _sanitizer_reports(lib.ubsan) as reports:
        result = lib.cdll.jg_launch(entry, ptrs, cfg, int(shared_mem), int(lib.fibers))
    ub = "".join(reports).strip()
    with STATS.lock:
        STATS.launches[name] += 1
    del keep
    if result:
        status, text = _FAULTS[result]
        err = CUDARuntimeError(status, f"{text} (kernel {name}, grid {g}, block {b})")
        if result == 1 and device is not None:
            devices.poison(device, err)
        raise err
    if ub:
        raise RuntimeError(f"emulated CUDA device: undefined behaviour in kernel {name} "
                           f"(-fsanitize=undefined):\n{ub}")


# -- UBSan's reports ------------------------------------------------------------------------

@contextlib.contextmanager
def _sanitizer_reports(enabled: bool) -> Iterator[list[str]]:
    """What the kernel's sanitizer wrote to stderr during the block (UBSan reads its options
    from the process's initial environment only, so its output is caught at the descriptor)."""
    reports: list[str] = []
    if not enabled:
        yield reports
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield reports
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            reports.append(tmp.read().decode(errors="replace"))
