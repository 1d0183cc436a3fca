"""Device selection: the ``device``, ``force_device``, ``init_gpu_device``,
``print_active_device``, ``gpuarray.preallocate``/``lib.cnmem`` and ``gpuarray.sync`` flags.

Nothing here imports CuPy at import time, and with ``device=cpu`` (and no ``init_gpu_device``)
nothing ever does. The GPU is initialised on first need (the first shared variable, the first
compiled function): :func:`init`.

* ``device=cuda``/``cudaN``/``gpu``/``gpuN`` moves computations and float32 shared variables to
  that GPU. If no GPU can be used, ``force_device=True`` raises :class:`GpuUnavailable` with the
  one reason (no CuPy, no driver, no device, no NVRTC); otherwise one warning says so and
  everything runs on the CPU.
* ``init_gpu_device=cudaN`` (with ``device=cpu``) initialises the GPU without moving anything:
  graphs compiled with ``mode.including('gpuarray')`` go to it (Theano's recipe), and
  ``shared(..., target='cuda')`` puts a variable there. :func:`use` does the same from code.
* ``print_active_device`` prints the device, its memory and the CUDA/NVRTC versions once.
* ``gpuarray.preallocate`` (``lib.cnmem`` when it is 0): < 0 no pool, 0 CuPy's pool,
  0 < x <= 1 that fraction of the memory preallocated (at most 0.95), > 1 megabytes.
* ``gpuarray.sync``: synchronise after every GPU node (see ``program``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable, ContextManager

from jitgraph.backend_gpu import requested
from jitgraph.backend_gpu import nvrtc
from jitgraph.backend_gpu.nvrtc import supported_archs
from jitgraph.cache import store
from jitgraph.config import config, parse_device
from jitgraph.rewrite.context import StopCompilation

MAX_FRACTION = 0.95


class GpuUnavailable(RuntimeError, StopCompilation):
    """A GPU was required (``force_device=True``) but cannot be used. Raised wherever the GPU
    is first needed, a rewrite included (``on_opt_error`` does not swallow it), and again at
    every later use (a shared variable never silently lands on the CPU)."""


class GpuFallbackWarning(UserWarning):
    """A GPU was requested but cannot be used: computations run on the CPU."""


@dataclass(frozen=True)
class Device:
    """The initialised GPU."""

    index: int
    name: str
    total_memory: int
    compute_capability: tuple[int, int]
    multiprocessors: int
    runtime_version: int
    driver_version: int
    nvrtc_version: tuple[int, int]
    #: computations are moved here by default (``device=cuda*`` or ``use(..., move=True)``)
    moves_computation: bool
    moves_shared: bool

    @property
    def arch(self) -> str:
        """The NVRTC target: a cubin architecture (``sm_90``), capped at the newest NVRTC
        knows of the device's major, or PTX (``compute_121``) for a device of a newer major
        (see :func:`.nvrtc.target_for`)."""
        return nvrtc.target_for(self.compute_capability, supported_archs())

    @property
    def label(self) -> str:
        return f"cuda{self.index}"

    def describe(self) -> str:
        def ver(v: int) -> str:
            return f"{v // 1000}.{(v % 1000) // 10}"

        return (f"{self.label}: {self.name} ({self.arch}, {self.total_memory / 2**30:.1f} GiB, "
                f"{self.multiprocessors} SMs); CUDA runtime {ver(self.runtime_version)}, "
                f"driver {ver(self.driver_version)}, NVRTC "
                f"{self.nvrtc_version[0]}.{self.nvrtc_version[1]}")


_lock = threading.RLock()
_state: dict[str, Any] = {"device": None, "tried": False, "printed": False}


# -- CuPy -------------------------------------------------------------------------------------

def import_cupy() -> Any:
    """Import CuPy with its kernel cache inside jitgraph's compiledir.

    CuPy 14 reads ``CUPY_CACHE_DIR`` once, at import, so it is set first (a user's own setting
    wins). ``cuda.root`` becomes ``CUDA_PATH`` (where CuPy and cuda-pathfinder look for NVRTC and
    the CUDA headers) unless ``CUDA_PATH`` is already set.
    """
    if "cupy" not in sys.modules:
        if "CUPY_CACHE_DIR" not in os.environ:
            try:
                # CuPy loads kernels from there: only from a compiledir nobody else can write
                os.environ["CUPY_CACHE_DIR"] = os.path.join(store.compiledir(), "cupy")
            except Exception:  # noqa: BLE001 - an unusable compiledir is reported later
                pass
        root = str(config.cuda.root or "")
        if root and "CUDA_PATH" not in os.environ:
            os.environ["CUDA_PATH"] = root
    import cupy

    return cupy


def status(index: int | None = None) -> tuple[bool, str]:
    """Whether GPU ``index`` (None: the default) can be used, and the one reason if not.

    Never raises. Checks, in order: CuPy importable, a CUDA driver, a device, NVRTC loadable.
    """
    try:
        cupy = import_cupy()
    except ImportError as exc:
        return False, (f"CuPy is not installed ({exc}); install jitgraph[cuda13] (or "
                       "jitgraph[cuda12])")
    except Exception as exc:  # noqa: BLE001 - a broken or mismatched installation
        return False, f"CuPy cannot be imported: {type(exc).__name__}: {exc}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - CUDARuntimeError
        text = str(exc)
        if "NoDevice" in text:
            return False, f"no CUDA device is visible ({text})"
        return False, f"no usable CUDA driver ({text})"
    if count < 1:
        return False, "no CUDA device is visible"
    if index is not None and not 0 <= index < count:
        return False, f"device cuda{index} does not exist ({count} device(s) visible)"
    try:
        version = cupy.cuda.nvrtc.getVersion()
        archs = tuple(cupy.cuda.nvrtc.getSupportedArchs())
    except Exception as exc:  # noqa: BLE001 - DynamicLibNotFoundError
        return False, (f"NVRTC cannot be loaded ({type(exc).__name__}: {exc}); install "
                       "nvidia-cuda-nvrtc (jitgraph[cuda13])")
    idx = 0 if index is None else index
    try:
        props = cupy.cuda.runtime.getDeviceProperties(idx)
        cc = (int(props["major"]), int(props["minor"]))
    except Exception as exc:  # noqa: BLE001 - CUDARuntimeError
        return False, f"device cuda{idx} cannot be queried ({exc})"
    try:
        nvrtc.target_for(cc, archs)
    except ValueError:
        return False, (f"cuda{idx} (compute capability {cc[0]}.{cc[1]}) is older than the "
                       f"oldest architecture NVRTC {version[0]}.{version[1]} compiles for "
                       f"(sm_{min(archs)}); install the CUDA 12 wheels (jitgraph[cuda12])")
    return True, f"{count} device(s)"


# -- flags ------------------------------------------------------------------------------------

def preallocation_bytes(value: float, total: int) -> int | None:
    """Bytes to preallocate for a ``gpuarray.preallocate`` value; None disables the pool."""
    if value < 0:
        return None
    if value == 0:
        return 0
    if value <= 1:
        return int(min(value, MAX_FRACTION) * total)
    return int(min(value * 2**20, MAX_FRACTION * total))


def pool_setting() -> float:
    value = float(config.gpuarray.preallocate)
    return value if value != 0 else float(config.lib.cnmem)


def sync_enabled() -> bool:
    return bool(config.gpuarray.sync)


# -- initialisation ---------------------------------------------------------------------------

def active() -> Device | None:
    """The initialised GPU, or None (never initialises)."""
    return _state["device"]


def tried() -> bool:
    """Whether initialising the GPU the flags ask for was tried (it failed if not active)."""
    return bool(_state["tried"])


def init() -> Device | None:
    """Initialise the GPU the flags ask for (once); None when they ask for none or, with
    ``force_device=False``, when it cannot be used (after one warning). With
    ``force_device=True`` an unusable GPU raises :class:`GpuUnavailable`, at every call."""
    if _state["tried"]:
        return _active_or_raise()
    with _lock:
        if _state["tried"]:
            return _active_or_raise()
        flag, index, moves = requested()
        if flag is None:
            _state["tried"] = True
            return None
        try:
            _state["device"] = _start(flag, index, moves, moves, force=None)
        except GpuUnavailable as exc:
            _state["error"] = exc
            raise
        finally:
            _state["tried"] = True
        return _state["device"]


def _active_or_raise() -> Device | None:
    error = _state.get("error")
    if error is not None:
        raise GpuUnavailable(str(error))
    return _state["device"]


def computation_device() -> Device | None:
    """The GPU computations move to by default (``device=cuda*``), initialising it."""
    dev = init()
    return dev if dev is not None and dev.moves_computation else None


def use(device: str = "cuda", force: bool = True, move_computation: bool = False,
        move_shared: bool = False, preallocate: float | None = None) -> Device | None:
    """Initialise a GPU from code (Theano's ``gpuarray.use``). With ``force`` an unusable GPU
    raises :class:`GpuUnavailable`, else it warns and returns None."""
    kind, index = parse_device(device)
    if kind != "cuda":
        raise ValueError(f"use() needs a CUDA device name (cuda, cudaN, gpuN), got {device!r}")
    with _lock:
        current = _state["device"]
        if current is not None:
            if index not in (None, current.index):
                raise RuntimeError(f"{current.label} is already initialised; jitgraph uses one "
                                   "GPU per process")
            return current
        dev = _start(device, index, move_computation, move_shared, force=force,
                     preallocate=preallocate)
        _state["device"] = dev
        _state["tried"] = True
        return dev


def _start(flag: str, index: int | None, moves: bool, moves_shared: bool, force: bool | None,
           preallocate: float | None = None) -> Device | None:
    ok, reason = status(index)
    if force is None:
        force = bool(config.force_device)
    if not ok:
        if force:
            raise GpuUnavailable(f"{flag} was requested (force_device=True) but no GPU can be "
                                 f"used: {reason}")
        warnings.warn(f"jitgraph: {flag} was requested but no GPU can be used: {reason}. "
                      "Running on the CPU (set force_device=True to make this an error).",
                      GpuFallbackWarning, stacklevel=_user_stacklevel())
        return None
    cupy = import_cupy()
    idx = 0 if index is None else index
    cupy.cuda.Device(idx).use()
    props = cupy.cuda.runtime.getDeviceProperties(idx)
    name = props["name"]
    dev = Device(
        index=idx, name=name.decode() if isinstance(name, bytes) else str(name),
        total_memory=int(props["totalGlobalMem"]),
        compute_capability=(int(props["major"]), int(props["minor"])),
        multiprocessors=int(props["multiProcessorCount"]),
        runtime_version=int(cupy.cuda.runtime.runtimeGetVersion()),
        driver_version=int(cupy.cuda.runtime.driverGetVersion()),
        nvrtc_version=tuple(cupy.cuda.nvrtc.getVersion()),  # type: ignore[arg-type]
        moves_computation=moves, moves_shared=moves_shared)
    _setup_pool(cupy, dev, pool_setting() if preallocate is None else float(preallocate))
    if config.print_active_device and not _state["printed"]:
        _state["printed"] = True
        print(f"jitgraph: using GPU {dev.describe()}", file=sys.stderr)
    return dev


def _user_stacklevel() -> int:
    """The ``stacklevel`` naming the first caller outside jitgraph (the user's line)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame, level = frame.f_back, level + 1
    return level


def _setup_pool(cupy: Any, dev: Device, value: float) -> None:
    nbytes = preallocation_bytes(value, dev.total_memory)
    if nbytes is None:
        cupy.cuda.set_allocator(None)
        return
    if nbytes > 0:
        pool = cupy.get_default_memory_pool()
        block = pool.malloc(nbytes)  # kept by the pool once freed
        del block


def on_device() -> ContextManager[Any]:
    """A ``with`` block in which the initialised GPU is this thread's current device.

    CUDA's current device is per thread (a new thread starts on device 0): a function compiled
    for ``cuda1`` and called from a worker thread would launch on device 0 without it. Outside
    the block the thread's own current device is restored."""
    dev = _state["device"]
    if dev is None:
        return contextlib.nullcontext()
    return import_cupy().cuda.Device(dev.index)


def synchronize() -> None:
    dev = active()
    if dev is not None:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()


_RESET_HOOKS: list[Callable[[], None]] = []


def on_reset(hook: Callable[[], None]) -> None:
    """Call ``hook`` whenever the device state is forgotten (modules loaded on the old device
    register their memo's ``clear``)."""
    _RESET_HOOKS.append(hook)


def reset_for_tests() -> None:
    """Forget the initialisation state and everything derived from the CuPy it used (the tests
    of the fallback paths, and the emulated device switched in or out)."""
    _state.update(device=None, tried=False, printed=False, error=None)
    nvrtc.version.cache_clear()
    nvrtc.supported_archs.cache_clear()
    for hook in _RESET_HOOKS:
        hook()
