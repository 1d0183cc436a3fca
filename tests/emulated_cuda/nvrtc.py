"""The emulated device's NVRTC (``cupy.cuda.nvrtc``) and module loading (``RawModule``).

NVRTC's output here is an *emulated image*: a short header (kind ``cubin`` or ``ptx``, the
architecture, the options, which real NVRTC also compiled it) followed by the CUDA source, so
that a module file jitgraph cached can be mapped back to its source in any process. Where the
real NVRTC loads (the ``cuda13-nvrtc`` extra), every program is also compiled by it, so its
errors still fail the tests; g++ builds the program at compile time too (its errors are NVRTC
errors here). Loading checks the architecture like the driver: a cubin runs only on its
architecture's major (and a minor at least its own), PTX on any device at least as new, and
only when the driver is at least as new as the NVRTC that wrote it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from emulated_cuda import devices, kernels
from emulated_cuda.arrays import ndarray
from emulated_cuda.devices import CUDADriverError
from emulated_cuda.kernels import ArrayArgument
from emulated_cuda.memory import bounds
from emulated_cuda.settings import settings

MAGIC = b"JITGRAPH-EMULATED-CUDA-IMAGE\n"
#: NVRTC 13.0's architectures (when the real NVRTC cannot be loaded)
DEFAULT_ARCHS = (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)


class NVRTCError(RuntimeError):
    """cupy.cuda.nvrtc.NVRTCError: ``NVRTC_ERROR_X (n)``."""


@lru_cache(maxsize=None)
def real_nvrtc() -> Any:
    """The real NVRTC bindings (CuPy's ``cupy_backends``), or None. Loading the library logs
    through the real ``cupy._environment``, so the real ``cupy`` is visible while it loads; the
    emulated modules are put back after."""
    site = str(Path(__file__).with_name("site").resolve())
    ours = {n: m for n, m in sys.modules.items() if n == "cupy" or n.startswith("cupy.")}
    path = sys.path[:]
    for name in ours:
        del sys.modules[name]
    sys.path[:] = [p for p in path if str(Path(p or ".").resolve()) != site]
    try:
        from cupy_backends.cuda.libs import nvrtc as real

        real.getVersion()
        return real
    except Exception:  # noqa: BLE001 - not installed, or the library cannot load
        return None
    finally:
        for name in [n for n in sys.modules if n == "cupy" or n.startswith("cupy.")]:
            del sys.modules[name]
        sys.modules.update(ours)
        sys.path[:] = path


def emulated_version() -> tuple[int, int]:
    s = settings()
    if s.nvrtc_version:
        return s.nvrtc_version
    real = real_nvrtc()
    return tuple(real.getVersion()) if real is not None else (13, 0)  # type: ignore[return-value]


def getVersion() -> tuple[int, int]:
    return emulated_version()


def getSupportedArchs() -> tuple[int, ...]:
    s = settings()
    if s.nvrtc_archs:
        return s.nvrtc_archs
    real = real_nvrtc()
    return tuple(real.getSupportedArchs()) if real is not None else DEFAULT_ARCHS


class _Program:
    def __init__(self, source: str, name: str) -> None:
        self.source, self.name = source, name
        self.log = ""
        self.image: bytes | None = None
        self.kind = ""


_PROGRAMS: dict[int, _Program] = {}
_NEXT = [1]
_LOCK = threading.Lock()


def createProgram(src: str, name: str, headers: Any = (), include_names: Any = ()) -> int:
    with _LOCK:
        handle = _NEXT[0]
        _NEXT[0] += 1
        _PROGRAMS[handle] = _Program(src, name)
    return handle


def destroyProgram(prog: int) -> None:
    _PROGRAMS.pop(prog, None)


def getProgramLog(prog: int) -> str:
    return _PROGRAMS[prog].log + "\x00"


_ARCH = re.compile(r"^(?:--gpu-architecture=|-arch=|-arch\s+)(sm|compute)_(\d+)([a-z]?)$")


def _parse_arch(options: tuple) -> tuple[str, int, list[str]]:
    kind, number, rest = "compute", 52, []
    for opt in options:
        m = _ARCH.match(opt)
        if m:
            kind, number = m.group(1), int(m.group(2))
        else:
            rest.append(opt)
    return kind, number, rest


def _real_check(source: str, name: str, kind: str, arch: int, options: list[str]) -> str:
    """Compile with the real NVRTC (raises its error); returns what it was ('' if none)."""
    real = real_nvrtc()
    if real is None or not settings().real_nvrtc:
        return ""
    known = real.getSupportedArchs()
    target = arch if arch in known else max([a for a in known if a <= arch] or [min(known)])
    key = hashlib.sha256(repr((source, kind, target, options)).encode()).hexdigest()[:24]
    marker = kernels.cache_dir() / f"nvrtc-ok-{key}"
    version = "NVRTC %d.%d" % tuple(real.getVersion())
    if marker.exists():
        return version
    prog = real.createProgram(source, name, (), ())
    try:
        try:
            real.compileProgram(prog, (f"--gpu-architecture={kind}_{target}", *options))
        except real.NVRTCError as exc:
            log = real.getProgramLog(prog).rstrip("\x00")
            raise _Failure(str(exc), f"(the real {version} rejected it)\n{log}") from None
    finally:
        real.destroyProgram(prog)
    marker.write_text(version)
    return version


class _Failure(Exception):
    def __init__(self, status: str, log: str) -> None:
        self.status, self.log = status, log


def compileProgram(prog: int, options: Any = ()) -> None:
    p = _PROGRAMS[prog]
    kind, arch, rest = _parse_arch(tuple(options))
    if arch not in getSupportedArchs():
        p.log = "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
        raise NVRTCError("NVRTC_ERROR_INVALID_OPTION (5)")
    try:
        checked = _real_check(p.source, p.name, kind, arch, rest)
        try:
            kernels.library(p.source)
        except kernels.BuildError as exc:
            raise _Failure("NVRTC_ERROR_COMPILATION (6)",
                           f"{p.name}: the emulated device's g++ build failed:\n{exc}") from None
    except _Failure as exc:
        p.log = exc.log
        raise NVRTCError(exc.status) from None
    header = {"kind": "cubin" if kind == "sm" else "ptx", "arch": f"{kind}_{arch}",
              "options": rest, "name": p.name, "nvrtc": "%d.%d" % emulated_version(),
              "checked_by": checked}
    p.kind = header["kind"]
    p.image = MAGIC + json.dumps(header).encode() + b"\n" + p.source.encode()
    p.log = ""


def getCUBIN(prog: int) -> bytes:
    p = _PROGRAMS[prog]
    if p.kind != "cubin":
        raise RuntimeError("cubin is requested, but the real arch (sm_XX) is not provided")
    return p.image  # type: ignore[return-value]


def getPTX(prog: int) -> bytes:
    p = _PROGRAMS[prog]
    if p.image is None:
        raise NVRTCError("NVRTC_ERROR_INVALID_INPUT (3)")
    return p.image


# -- loading --------------------------------------------------------------------------------

def read_image(data: bytes, what: str) -> tuple[dict, str]:
    if not data.startswith(MAGIC):
        raise CUDADriverError("CUDA_ERROR_INVALID_IMAGE",
                              f"device kernel image is invalid ({what} is not a module "
                              "compiled by the emulated device's NVRTC)")
    head, _, source = data[len(MAGIC):].partition(b"\n")
    return json.loads(head), source.decode()


def check_loadable(header: dict, device: int, what: str) -> None:
    major, minor = devices.compute_capability(device)
    cc = major * 10 + minor
    arch = int(header["arch"].split("_")[1].rstrip("abcdef"))
    if header["kind"] == "cubin":
        if arch // 10 != major or arch % 10 > minor:
            raise CUDADriverError(
                "CUDA_ERROR_NO_BINARY_FOR_GPU",
                f"no kernel image is available for execution on the device ({what}: a cubin "
                f"for {header['arch']} on device {device} of compute capability "
                f"{major}.{minor})")
        return
    if arch > cc:
        raise CUDADriverError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                              f"no kernel image is available for execution on the device "
                              f"({what}: PTX for {header['arch']} on a device of compute "
                              f"capability {major}.{minor})")
    written = tuple(int(v) for v in header["nvrtc"].split("."))
    driver = settings().driver_version or emulated_version()
    if written > tuple(driver):
        raise CUDADriverError("CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
                              f"the provided PTX was compiled with an unsupported toolchain "
                              f"({what}: PTX of NVRTC {header['nvrtc']}, driver for CUDA "
                              "%d.%d)" % tuple(driver))


class RawModule:
    """cupy.RawModule(path=...): an emulated image loaded on the current device."""

    def __init__(self, code: str | None = None, *, path: str | None = None, options: Any = (),
                 backend: str = "nvrtc", translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False, name_expressions: Any = None,
                 log_stream: Any = None, jitify: bool = False) -> None:
        if path is None:
            raise NotImplementedError("the emulated device loads modules from files "
                                      "(RawModule(path=...)) only")
        self.device = devices.current()
        devices.check_alive(self.device)
        header, source = read_image(Path(path).read_bytes(), path)
        check_loadable(header, self.device, path)
        real = real_nvrtc()
        if not header.get("checked_by") and real is not None and settings().real_nvrtc:
            kind, arch = header["arch"].split("_")
            try:
                _real_check(source, header["name"], kind, int(arch.rstrip("abcdef")),
                            header["options"])
            except _Failure as exc:
                raise NVRTCError(f"{exc.status}: {exc.log}") from None
        self.header, self.source = header, source
        self.library = kernels.library(source)

    def get_function(self, name: str) -> "RawKernel":
        if name not in self.library.signatures:
            raise CUDADriverError("CUDA_ERROR_NOT_FOUND", f"named symbol not found ({name})")
        return RawKernel(self, name)


class RawKernel:
    """A kernel of a loaded module: ``kernel(grid, block, args, shared_mem=0)``."""

    def __init__(self, module: RawModule, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, grid: Any, block: Any, args: tuple, *, shared_mem: int = 0,
                 stream: Any = None, enable_cooperative_groups: bool = False) -> None:
        device = devices.current()
        devices.check_alive(device)
        if device != self.module.device:
            raise devices.CUDARuntimeError(
                "cudaErrorInvalidResourceHandle",
                f"invalid resource handle (kernel {self.name} was loaded on device "
                f"{self.module.device}; the current device of this thread is {device})")
        arrays = [_array_argument(a) for a in args]
        kernels.launch(self.module.library, self.name, grid, block, list(args), arrays,
                       shared_mem, device)


def _array_argument(value: Any) -> ArrayArgument | None:
    if isinstance(value, ndarray):
        low, high = bounds(value._a)
        return ArrayArgument(value._a.ctypes.data, value.dtype, low, high, value._device,
                             value._a)
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)} (a NumPy array cannot be a kernel "
                        "argument: upload it with cupy.asarray)")
    return None
