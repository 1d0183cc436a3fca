"""cupy.cuda.nvrtc of the emulated device."""

from emulated_cuda.nvrtc import (NVRTCError, compileProgram, createProgram,  # noqa: F401
                                 destroyProgram, getCUBIN, getProgramLog, getPTX,
                                 getSupportedArchs, getVersion)
