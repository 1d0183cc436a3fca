"""The vecmath block functions: ``void block(const double *src, double *dst, int64 n)``.

A block function evaluates one primitive (``exp``, ``log``, ``log1p``, ``sin``, ``cos``,
``expm1``, ``tanh``) on a block of float64 values with the vectorizable polynomial of
:mod:`.vecmath`, and redoes with libm the elements outside the polynomial's fast range. Kernels
call them by symbol (``jitgraph_block_<name>``). Each is compiled by Numba once per compiledir
and kept as a native object (:mod:`.native`), so a process that finds them stored loads them
without importing Numba. This module imports neither Numba nor llvmlite.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from jitgraph.backend_cpu import native
from jitgraph.backend_cpu.codegen import kernels
from jitgraph.backend_cpu.native import NATIVE_VERSION
from jitgraph.backend_cpu.options import CodegenOptions, DIRECT_VERSION
from jitgraph.cache import metadata
from jitgraph.cache.keys import make_key
from jitgraph.cache import store
from jitgraph.cache.modules import open_module

# Fast ranges of the polynomials (outside them, libm).
EXP_LIMIT = 708.0
LOG_MIN = 2.2250738585072014e-308
LOG_MAX = 1.7976931348623157e308
LOG1P_MIN = -0.9999
LOG1P_MAX = 1e300
TRIG_LIMIT = 1e5
TANH_LIMIT = 354.0

#: primitive -> (fast function of :mod:`.vecmath`, libm function, fast range)
BLOCKS = {
    "exp": ("fexp", "math.exp", -EXP_LIMIT, EXP_LIMIT),
    "log": ("flog", "math.log", LOG_MIN, LOG_MAX),
    "log1p": ("flog1p", "math.log1p", LOG1P_MIN, LOG1P_MAX),
    "sin": ("fsin", "math.sin", -TRIG_LIMIT, TRIG_LIMIT),
    "cos": ("fcos", "math.cos", -TRIG_LIMIT, TRIG_LIMIT),
    "expm1": ("fexpm1", "math.expm1", -EXP_LIMIT, EXP_LIMIT),
    "tanh": ("ftanh", "math.tanh", -TANH_LIMIT, TANH_LIMIT),
}

#: primitive name -> (block function name for ``block_call``, libm call of exact bodies)
PRIMITIVES = {name: (name, f"math.{name}") for name in BLOCKS}

#: Bumped when a block's source changes (enters its key).
BLOCK_SOURCE_VERSION = 4  # 4: the source names the modules of the subpackage layout
SYMBOL_PREFIX = "jitgraph_block_"

_addresses: dict[str, int] = {}
_quick: set[str] = set()  # blocks whose address is still their tier-0 code
_lock = threading.RLock()


def symbol(name: str) -> str:
    return f"{SYMBOL_PREFIX}{name}"


def block_source(name: str) -> str:
    """The module source of block function ``name`` (a file the disk cache can store)."""
    fast, libm, lo, hi = BLOCKS[name]
    return f"""import math
import numba
from numba import types as _nt
from jitgraph.backend_cpu.runtime.vecmath import {fast}

SIG_block = _nt.void(_nt.CPointer(_nt.float64), _nt.CPointer(_nt.float64), _nt.int64)


def block(src_ptr, dst_ptr, n):
    src = numba.carray(src_ptr, n)
    dst = numba.carray(dst_ptr, n)
    ok = True
    for i in range(n):
        v = src[i]
        ok &= (v >= {lo!r}) & (v <= {hi!r})
        dst[i] = {fast}(v)
    if not ok:  # some argument outside the fast range (or NaN): libm for those
        for i in range(n):
            v = src[i]
            if not ((v >= {lo!r}) & (v <= {hi!r})):
                dst[i] = {libm}(v)
"""


_CALLS = re.compile(r'\bblock_call\("(\w+)"')
_stored: dict[str, Any] = {}  # name -> its CachedModule (opened once per process)


def _key(name: str) -> tuple:
    return ("vecmath-block", name, BLOCK_SOURCE_VERSION, ("native", NATIVE_VERSION),
            ("direct", DIRECT_VERSION))


def _cached_module(name: str) -> Any:
    """Block ``name``'s entry in the compiledir, or None without the disk cache."""
    if not kernels.DISK_CACHE:
        return None
    with _lock:
        cached = _stored.get(name)
        if cached is None:
            cached = _stored[name] = open_module(
                make_key(_key(name)), block_source(name),
                metadata.cpu_kernel(f"vecmath block {name}", "vecmath"))
        return cached


def _compile(name: str) -> int:
    """The address of block function ``name``: loaded, or compiled (and stored)."""
    source = block_source(name)
    module: dict = {}
    cached = _cached_module(name)

    def compile_numba(mode: str):  # noqa: ANN202
        import numba

        if cached is not None:
            fn, sig = cached.module.block, cached.module.SIG_block
        else:
            if not module:
                module["m"] = kernels.exec_module(source, f"jitgraph_block_{name}")
            fn, sig = module["m"].block, module["m"].SIG_block
        options = dict(nogil=True, error_model="numpy")
        if mode == kernels.FOR_NATIVE:
            return numba.njit(sig, cache=False, no_cpython_wrapper=True, no_cfunc_wrapper=True,
                              **options)(fn)
        return numba.cfunc(sig, cache=mode == kernels.CACHED, **options)(fn)

    def compile_direct():  # noqa: ANN202
        return kernels.direct_object(source, "block", symbol(name), "c", CodegenOptions(),
                                     f"vecmath block {name}")

    return kernels.obtain(cached, "block", symbol(name), "c", "host", compile_numba,
                          compile_direct)


def require(*names: str) -> None:
    """Make the block functions ``names`` (e.g. ``"exp"``) callable by their symbols."""
    for name in names:
        address(name)


def quick_address(name: str) -> int:
    """The address of block function ``name`` compiled at tier 0 (:mod:`~jitgraph.backend_cpu
    .codegen.tiering`) unless it is compiled already; :func:`upgrade` replaces it."""
    with _lock:
        addr = _addresses.get(name)
        if addr is None:
            obj, _ = kernels.direct_object(block_source(name), "block",
                                           f"{symbol(name)}__tier0", "c", CodegenOptions(),
                                           f"vecmath block {name}", quick=kernels.QUICK_LEVEL)
            if obj is None:
                return address(name)
            addr = _addresses[name] = native.load(obj, final=False)
            _quick.add(name)
        native.add_symbol(symbol(name), addr, provisional=name in _quick)
        return addr


def upgrade(name: str) -> bool:
    """Make block ``name``'s symbol the optimised object another process stored, instead of
    its tier-0 code, for the kernels loaded from now on. False when none is stored."""
    with _lock:
        if name not in _quick:
            return True
        cached = _cached_module(name)
        addr = None if cached is None else kernels.load_stored(cached, "block", "c")
        if addr is None:
            return False
        _addresses[name] = addr
        native.add_symbol(symbol(name), addr)
        _quick.discard(name)
        return True


def address(name: str) -> int:
    """The address of block function ``name`` (compiled or loaded once per process)."""
    with _lock:
        addr = _addresses.get(name)
        if addr is None:
            addr = _addresses[name] = _compile(name)
        # also for Numba, if it has started since
        native.add_symbol(symbol(name), addr, provisional=name in _quick)
        return addr


class BlockFunction:
    """Block function ``name`` as :mod:`~jitgraph.backend_cpu.codegen.compile_ahead` schedules
    a kernel module's entry (the one entry is ``"block"``): the blocks a program's kernels call
    are then compiled beside those kernels, instead of one after another by the process that
    loads the first kernel calling them."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.source = kernels.KernelSource(_key(name), block_source(name), ("block",),
                                           CodegenOptions(), f"vecmath block {name}")

    def is_compiled(self, entry: str) -> bool:
        return self.name in _addresses

    def stored(self, entry: str) -> bool | None:
        if not kernels.DISK_CACHE:
            return None
        cached = _stored.get(self.name)
        if cached is not None:
            return cached.entry.file("native-block.json").exists()
        # Not opened yet: where its object would be (opening publishes the entry's source,
        # work better left to the process that compiles the block).
        return (store.entry_path(make_key(_key(self.name))) / "native-block.json").exists()

    def get(self, entry: str) -> int:
        return address(self.name)

    def get_quick(self, entry: str) -> int:
        return quick_address(self.name)

    def is_quick(self, entry: str) -> bool:
        return self.name in _quick

    def upgrade(self, entry: str) -> bool:
        return upgrade(self.name)


def called_by(source: str) -> list[BlockFunction]:
    """The block functions a kernel module's ``source`` calls."""
    return [BlockFunction(name) for name in sorted(set(_CALLS.findall(source)))
            if name in BLOCKS]


def provide(sym: str) -> None:
    """Symbol provider for :mod:`.native`: loads the block function named by ``sym``."""
    name = sym[len(SYMBOL_PREFIX):]
    if name in BLOCKS:
        address(name)
