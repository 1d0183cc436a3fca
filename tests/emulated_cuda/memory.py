"""Device memory: every allocation is its own mapping, fenced by inaccessible pages, with the
data ending exactly at the fence, so that a kernel reading or writing past an array faults (and
is reported as CUDA's illegal-address error) instead of corrupting the process's heap."""

from __future__ import annotations

import ctypes
import mmap

import numpy as np

PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


def allocate(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialised C-contiguous array in fenced memory."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    body = _round_up(max(nbytes, 1), PAGE)
    region = mmap.mmap(-1, body + 2 * PAGE)
    base = np.frombuffer(region, np.uint8)
    address = base.ctypes.data
    for start in (address, address + PAGE + body):
        if _libc.mprotect(start, PAGE, 0) != 0:
            raise OSError(ctypes.get_errno(), "mprotect failed for the emulated device's fence")
    offset = PAGE + body - nbytes
    return np.frombuffer(region, dtype, count=nbytes // dtype.itemsize if dtype.itemsize else 0,
                         offset=offset).reshape(shape)


def copy_in(value: np.ndarray) -> np.ndarray:
    """``value`` copied into fenced memory (C order)."""
    out = allocate(value.shape, value.dtype)
    out[...] = value
    return out


def bounds(a: np.ndarray) -> tuple[int, int]:
    """The first byte ``a`` covers and one past its last."""
    low = high = a.ctypes.data
    for n, s in zip(a.shape, a.strides):
        if n == 0:
            return a.ctypes.data, a.ctypes.data
        if s >= 0:
            high += (n - 1) * s
        else:
            low += (n - 1) * s
    return low, high + a.itemsize
