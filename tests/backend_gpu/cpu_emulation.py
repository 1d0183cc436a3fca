"""Run one generated CUDA kernel on the CPU as one block of one thread (tests only): grid-stride
loops then cover every element, block reductions reduce over one thread. It is the emulated
CUDA device's g++ build and launcher (``tests/emulated_cuda``: the same CUDA header, the same
argument checks) called directly with NumPy arrays, without a device: the quick check of the
index arithmetic, broadcasting, strides and the scalar templates' values against NumPy. Warps,
shared-memory races and fast-math accuracy are beyond it.
"""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np

from emulated_cuda import kernels
from emulated_cuda.memory import bounds


def available() -> tuple[bool, str]:
    if shutil.which("g++") is None:
        return False, "g++ is not installed (the CPU emulation of CUDA kernels needs it)"
    return True, ""


def load(source: str) -> Any:
    return kernels.library(source)


def _array(value: Any) -> kernels.ArrayArgument | None:
    if isinstance(value, np.ndarray):
        low, high = bounds(value)
        return kernels.ArrayArgument(value.ctypes.data, value.dtype, low, high, None, value)
    return None


def launch(source: str, entry: str, args: list) -> None:
    """Run ``entry`` of ``source`` as one block of one thread over NumPy arrays and scalars."""
    kernels.launch(load(source), entry, (1,), (1,), list(args), [_array(a) for a in args])
