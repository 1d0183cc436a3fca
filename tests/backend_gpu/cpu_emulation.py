"""Run generated CUDA kernels on the CPU (tests only): g++ compiles them with a small shim
header, and ctypes launches them as one block of one thread (grid-stride loops then cover every
element; block reductions reduce over one thread). This checks what NVRTC cannot: the index
arithmetic, broadcasting, strides and the scalar templates' values against NumPy. It cannot
check warps, shared-memory races or fast-math accuracy: that is the GPU tests' job.
"""

from __future__ import annotations

import ctypes
import hashlib
import pathlib
import shutil
import subprocess
import tempfile
from functools import lru_cache
from typing import Any

import numpy as np

SHIM = r"""
#include <cmath>
#include <cstring>
using std::isnan; using std::isinf; using std::isfinite;
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __shared__
struct jg_dim3 { unsigned int x, y, z; };
static jg_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1},
               gridDim = {1, 1, 1};
static inline void __syncthreads() {}
static inline float __int_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(long long i) {
    double d; std::memcpy(&d, &i, 8); return d;
}
double jg_smem[64];
"""

_DIR = pathlib.Path(tempfile.mkdtemp(prefix="jitgraph-cuda-on-cpu-"))


def available() -> tuple[bool, str]:
    if shutil.which("g++") is None:
        return False, "g++ is not installed (the CPU emulation of CUDA kernels needs it)"
    return True, ""


@lru_cache(maxsize=None)
def load(source: str) -> ctypes.CDLL:
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    cpp, lib = _DIR / f"{digest}.cpp", _DIR / f"{digest}.so"
    if not lib.exists():
        cpp.write_text(SHIM + source)
        res = subprocess.run(["g++", "-O1", "-shared", "-fPIC", "-std=c++17", "-w", "-o",
                              str(lib), str(cpp)], capture_output=True, text=True)
        if res.returncode:
            raise RuntimeError(f"g++ failed on the generated kernel:\n{res.stderr}\n{source}")
    return ctypes.CDLL(str(lib))


def arg(value: Any) -> Any:
    """A ctypes argument: arrays as their data pointer, NumPy scalars by value."""
    if isinstance(value, np.ndarray):
        return ctypes.c_void_p(value.ctypes.data)
    kind = {np.int32: ctypes.c_int, np.int64: ctypes.c_longlong, np.float32: ctypes.c_float,
            np.float64: ctypes.c_double}
    return kind[type(value)](value)


def launch(source: str, entry: str, args: list) -> None:
    fn = getattr(load(source), entry)
    fn.restype = None
    fn(*[arg(a) for a in args])
