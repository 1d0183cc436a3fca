"""cupy.cuda.runtime of the emulated device."""

from emulated_cuda.devices import CUDARuntimeError  # noqa: F401
from emulated_cuda.runtime import (deviceSynchronize, driverGetVersion, getDevice,  # noqa
                                   getDeviceCount, getDeviceProperties, memGetInfo,
                                   runtimeGetVersion, setDevice)
