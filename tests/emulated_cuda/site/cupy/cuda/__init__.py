"""cupy.cuda of the emulated device."""

from emulated_cuda.runtime import Device, MemoryPool, set_allocator  # noqa: F401

from cupy.cuda import driver, nvrtc, runtime  # noqa: F401,E402


def is_available() -> bool:
    return runtime.getDeviceCount() > 0


def get_local_runtime_version() -> int:
    return runtime.runtimeGetVersion()
