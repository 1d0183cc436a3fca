"""cupy.cuda's runtime side: ``Device``, ``cupy.cuda.runtime.*``, the memory pool."""

from __future__ import annotations

from typing import Any

from emulated_cuda import devices
from emulated_cuda.devices import CUDARuntimeError
from emulated_cuda.settings import settings


class Device:
    """cupy.cuda.Device: ``use()`` and ``with`` set this thread's current device."""

    def __init__(self, device: Any = None) -> None:
        self.id = devices.current() if device is None else devices.check_index(int(device))
        self._previous: list[int] = []

    def use(self) -> None:
        devices.set_current(self.id)

    def __enter__(self) -> "Device":
        self._previous.append(devices.current())
        devices.set_current(self.id)
        return self

    def __exit__(self, *exc: Any) -> None:
        devices.set_current(self._previous.pop())

    def synchronize(self) -> None:
        devices.check_alive(self.id)

    @property
    def compute_capability(self) -> str:
        return "%d%d" % devices.compute_capability(self.id)

    @property
    def mem_info(self) -> tuple[int, int]:
        total = devices.properties(self.id)["totalGlobalMem"]
        return total, total

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


def _version(v: tuple[int, int]) -> int:
    return v[0] * 1000 + v[1] * 10


# -- cupy.cuda.runtime ----------------------------------------------------------------------

def getDeviceCount() -> int:
    return devices.count()


def getDevice() -> int:
    return devices.current()


def setDevice(index: int) -> None:
    devices.set_current(index)


def getDeviceProperties(index: int) -> dict:
    return devices.properties(index)


def runtimeGetVersion() -> int:
    return 13000


def driverGetVersion() -> int:
    from emulated_cuda.nvrtc import emulated_version

    return _version(settings().driver_version or emulated_version())


def deviceSynchronize() -> None:
    devices.check_alive(devices.current())


def memGetInfo() -> tuple[int, int]:
    total = devices.properties(devices.current())["totalGlobalMem"]
    return total, total


# -- memory pool ----------------------------------------------------------------------------

class _Block:
    def __init__(self, size: int) -> None:
        self.size = size


class MemoryPool:
    """Records what is asked of it (the emulated device allocates per array)."""

    def __init__(self) -> None:
        self.reserved = 0

    def malloc(self, size: int) -> _Block:
        total = devices.properties(devices.current())["totalGlobalMem"]
        if size > total:
            raise CUDARuntimeError("cudaErrorMemoryAllocation", "out of memory")
        self.reserved = max(self.reserved, int(size))
        return _Block(int(size))

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return self.reserved

    def free_all_blocks(self) -> None:
        self.reserved = 0


_POOL = MemoryPool()
ALLOCATOR: list = [_POOL.malloc]


def get_default_memory_pool() -> MemoryPool:
    return _POOL


def set_allocator(allocator: Any = None) -> None:
    ALLOCATOR[0] = allocator
