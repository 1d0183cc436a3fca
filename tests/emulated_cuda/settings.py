"""What the emulated CUDA device looks like, and what it has counted.

The settings come from ``JITGRAPH_EMULATED_CUDA`` (``key=value`` pairs separated by commas, read
at import, so a subprocess gets the same device) and :func:`configure`:

* ``devices`` (2), ``cc`` (compute capability, ``9.0``), ``sms`` (multiprocessors: 2, so that
  grids stay small and emulation fast), ``memory`` (GiB, 16);
* ``nvrtc`` (``13.5``) and ``archs`` (``75:80:90``...): the NVRTC the device pretends to have;
  by default the real NVRTC's version and architectures when it can be loaded;
* ``driver`` (the CUDA version the driver supports, e.g. ``13.5``; default: NVRTC's);
* ``ubsan`` (0/1): build kernels with ``-fsanitize=undefined`` (also ``JITGRAPH_EMULATED_CUDA_UBSAN=1``);
* ``real_nvrtc`` (0/1, default 1): compile every kernel with the real NVRTC too, where it loads.
"""

from __future__ import annotations

import collections
import os
import threading
from dataclasses import dataclass, field, replace

ENV = "JITGRAPH_EMULATED_CUDA"


@dataclass(frozen=True)
class Settings:
    devices: int = 2
    compute_capability: tuple[int, int] = (9, 0)
    multiprocessors: int = 2
    memory_gib: float = 16.0
    nvrtc_version: tuple[int, int] | None = None
    nvrtc_archs: tuple[int, ...] | None = None
    driver_version: tuple[int, int] | None = None
    ubsan: bool = False
    real_nvrtc: bool = True
    name: str = "Emulated CUDA device (jitgraph tests)"


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def parse(text: str) -> dict:
    """The :class:`Settings` fields named by a ``JITGRAPH_EMULATED_CUDA`` value."""
    out: dict = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        key, _, value = item.partition("=")
        if key == "devices":
            out["devices"] = int(value)
        elif key == "cc":
            out["compute_capability"] = _version(value)
        elif key == "sms":
            out["multiprocessors"] = int(value)
        elif key == "memory":
            out["memory_gib"] = float(value)
        elif key == "nvrtc":
            out["nvrtc_version"] = _version(value)
        elif key == "archs":
            out["nvrtc_archs"] = tuple(int(a) for a in value.split(":"))
        elif key == "driver":
            out["driver_version"] = _version(value)
        elif key == "ubsan":
            out["ubsan"] = value not in ("0", "")
        elif key == "real_nvrtc":
            out["real_nvrtc"] = value not in ("0", "")
        else:
            raise ValueError(f"{ENV}: unknown setting {key!r} in {text!r} (known: devices, cc, "
                             "sms, memory, nvrtc, archs, driver, ubsan, real_nvrtc)")
    return out


def unparse(s: Settings) -> str:
    """The ``JITGRAPH_EMULATED_CUDA`` value giving ``s`` to a subprocess."""
    parts = [f"devices={s.devices}", "cc=%d.%d" % s.compute_capability,
             f"sms={s.multiprocessors}", f"memory={s.memory_gib}", f"ubsan={int(s.ubsan)}",
             f"real_nvrtc={int(s.real_nvrtc)}"]
    if s.nvrtc_version:
        parts.append("nvrtc=%d.%d" % s.nvrtc_version)
    if s.nvrtc_archs:
        parts.append("archs=" + ":".join(map(str, s.nvrtc_archs)))
    if s.driver_version:
        parts.append("driver=%d.%d" % s.driver_version)
    return ",".join(parts)


_initial = Settings(**parse(os.environ.get(ENV, "")))
if os.environ.get("JITGRAPH_EMULATED_CUDA_UBSAN", "") not in ("", "0"):
    _initial = replace(_initial, ubsan=True)
CURRENT = [_initial]


def settings() -> Settings:
    return CURRENT[0]


def configure(**changes) -> Settings:
    """Change the device's settings (returns the previous ones)."""
    old = CURRENT[0]
    CURRENT[0] = replace(old, **changes)
    return old


@dataclass
class Stats:
    """What the device did: kernel launches by name, CuPy built-in operations, cuBLAS calls,
    bytes copied each way."""

    launches: collections.Counter = field(default_factory=collections.Counter)
    builtin_ops: collections.Counter = field(default_factory=collections.Counter)
    blas_calls: int = 0
    host_to_device_bytes: int = 0
    device_to_host_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def kernel_launches(self) -> int:
        return sum(self.launches.values())

    @property
    def device_operations(self) -> int:
        """Everything that ran on the device: kernels, CuPy's own operations, cuBLAS."""
        return self.kernel_launches + sum(self.builtin_ops.values()) + self.blas_calls

    def copy(self) -> "Stats":
        return Stats(collections.Counter(self.launches), collections.Counter(self.builtin_ops),
                     self.blas_calls, self.host_to_device_bytes, self.device_to_host_bytes)

    def since(self, before: "Stats") -> "Stats":
        return Stats(self.launches - before.launches, self.builtin_ops - before.builtin_ops,
                     self.blas_calls - before.blas_calls,
                     self.host_to_device_bytes - before.host_to_device_bytes,
                     self.device_to_host_bytes - before.device_to_host_bytes)

    def clear(self) -> None:
        self.launches.clear()
        self.builtin_ops.clear()
        self.blas_calls = self.host_to_device_bytes = self.device_to_host_bytes = 0


STATS = Stats()
