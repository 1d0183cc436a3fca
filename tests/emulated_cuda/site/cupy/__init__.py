"""A stand-in ``cupy`` for jitgraph's tests: the emulated CUDA device (tests/emulated_cuda).

Never on the path of a user's program: the tests put it first (in-process through the
``emulated_cuda`` fixture, in subprocesses through ``PYTHONPATH``)."""

from numpy import (bool_, dtype, float16, float32, float64, int8, int16, int32, int64,  # noqa
                   newaxis, uint8, uint16, uint32, uint64)

from emulated_cuda.arrays import (array, asarray, ascontiguousarray, asnumpy, empty,  # noqa
                                  empty_like, full, get_array_module, ndarray, ones,
                                  ones_like, zeros, zeros_like, arange)
from emulated_cuda.routines import *  # noqa: F401,F403
from emulated_cuda.routines import (concatenate, dot, matmul, may_share_memory,  # noqa
                                    moveaxis, outer, reshape, shares_memory, stack, take,
                                    transpose)
from emulated_cuda.nvrtc import RawKernel, RawModule  # noqa: F401
from emulated_cuda.runtime import get_default_memory_pool  # noqa: F401

from cupy import cuda  # noqa: F401,E402

__version__ = "14.2.0+jitgraph.emulated"
EMULATED = True


def get_default_pinned_memory_pool():
    return get_default_memory_pool()
