"""The emulated devices: how many, their properties, the current device of each thread, and
CUDA's sticky errors (after an illegal address, every later use of that device fails)."""

from __future__ import annotations

import threading

from emulated_cuda.settings import settings


class CUDARuntimeError(RuntimeError):
    """cupy_backends.cuda.api.runtime.CUDARuntimeError: ``cudaErrorX: text``."""

    def __init__(self, status: str, text: str) -> None:
        self.status = status
        super().__init__(f"{status}: {text}")


class CUDADriverError(RuntimeError):
    """cupy_backends.cuda.api.driver.CUDADriverError: ``CUDA_ERROR_X: text``."""

    def __init__(self, status: str, text: str) -> None:
        self.status = status
        super().__init__(f"{status}: {text}")


_local = threading.local()
_poisoned: dict[int, CUDARuntimeError] = {}


def count() -> int:
    return settings().devices


def compute_capability(index: int) -> tuple[int, int]:
    return settings().compute_capability


def check_index(index: int) -> int:
    index = int(index)
    if not 0 <= index < count():
        raise CUDARuntimeError("cudaErrorInvalidDevice", "invalid device ordinal")
    return index


def current() -> int:
    """This thread's current device (CUDA's is per thread; a new thread starts on device 0)."""
    return getattr(_local, "device", 0)


def set_current(index: int) -> None:
    _local.device = check_index(index)


def check_alive(index: int) -> None:
    """Raise the sticky error of a device whose context a kernel fault poisoned."""
    err = _poisoned.get(index)
    if err is not None:
        raise CUDARuntimeError(err.status, str(err).split(": ", 1)[1])


def poison(index: int, err: CUDARuntimeError) -> None:
    _poisoned[index] = err


def properties(index: int) -> dict:
    s = settings()
    major, minor = compute_capability(check_index(index))
    return {"name": s.name.encode(), "totalGlobalMem": int(s.memory_gib * 2**30),
            "major": major, "minor": minor, "multiProcessorCount": s.multiprocessors,
            "maxThreadsPerBlock": 1024, "sharedMemPerBlock": 48 * 1024, "warpSize": 32,
            "maxGridSize": (2**31 - 1, 65535, 65535), "maxThreadsDim": (1024, 1024, 64)}


def reset() -> None:
    """Forget sticky errors and this thread's current device (between tests)."""
    _poisoned.clear()
    _local.__dict__.clear()
