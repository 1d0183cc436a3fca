"""cupy.cuda.driver of the emulated device (its error type)."""

from emulated_cuda.devices import CUDADriverError  # noqa: F401
