"""An emulated CUDA device for jitgraph's tests: a stand-in ``cupy`` (``site/cupy``) whose
kernels are the CUDA sources jitgraph generated, built by g++ and run on the host over their
real grid and block.

It is a test device, never a fallback: nothing in jitgraph selects it. The tests switch it in
with the ``emulated_cuda`` fixture (tests/conftest.py), which swaps the ``cupy`` modules of this
process and resets jitgraph's GPU state, or start a subprocess with :func:`subprocess_env`.
Pieces: :mod:`.settings` (the device's properties, the counters), :mod:`.devices` (current
device per thread, sticky errors), :mod:`.memory` (fenced allocations), :mod:`.arrays` and
:mod:`.routines` (``cupy.ndarray`` and CuPy's functions), :mod:`.kernels` (g++ builds,
argument checks, launches), :mod:`.nvrtc` (NVRTC and module loading), :mod:`.runtime`
(``cupy.cuda``).

What it cannot show: speed, warps (a block's threads run one after another or as fibers
switching at barriers), the memory model and races, fast-math accuracy.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from emulated_cuda import devices
from emulated_cuda.settings import ENV, STATS, Stats, configure, settings, unparse

SITE = Path(__file__).with_name("site")
TESTS = Path(__file__).resolve().parents[1]

__all__ = ["install", "uninstall", "emulated_device", "subprocess_env", "STATS", "Stats",
           "configure", "settings", "is_installed"]

_EMULATED: dict[str, Any] = {}
_SAVED: list[dict[str, Any]] = []


def _is_cupy(name: str) -> bool:
    return name in ("cupy", "cupyx") or name.startswith(("cupy.", "cupyx."))


def is_installed() -> bool:
    return bool(_SAVED)


def install() -> None:
    """Make ``import cupy`` give the emulated device in this process (until :func:`uninstall`)."""
    saved = {n: m for n, m in sys.modules.items() if _is_cupy(n)}
    for name in saved:
        del sys.modules[name]
    if _EMULATED:
        sys.modules.update(_EMULATED)
    else:
        sys.path.insert(0, str(SITE))
        try:
            import cupy  # noqa: F401
            import cupy.cuda.nvrtc  # noqa: F401
            import cupyx  # noqa: F401
        finally:
            sys.path.remove(str(SITE))
        _EMULATED.update({n: m for n, m in sys.modules.items() if _is_cupy(n)})
    _SAVED.append(saved)
    reset()


def uninstall() -> None:
    """Give back the ``cupy`` modules :func:`install` replaced."""
    for name in [n for n in sys.modules if _is_cupy(n)]:
        del sys.modules[name]
    sys.modules.update(_SAVED.pop())
    reset()


def reset() -> None:
    """Clean devices (no sticky error, device 0 current) and zero counters."""
    devices.reset()
    STATS.clear()


@contextmanager
def emulated_device(**changes: Any) -> Iterator[Stats]:
    """The emulated device installed, with ``changes`` to its settings; yields the counters."""
    old = configure(**changes)
    install()
    try:
        yield STATS
    finally:
        uninstall()
        configure(**{f: getattr(old, f) for f in old.__dataclass_fields__})


def subprocess_env(**changes: Any) -> dict[str, str]:
    """Environment entries giving a subprocess the emulated device (with ``changes``)."""
    path = os.pathsep.join([str(SITE), str(TESTS)] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    from emulated_cuda.kernels import cache_dir

    return {"PYTHONPATH": path, ENV: unparse(replace(settings(), **changes)),
            "JITGRAPH_EMULATED_CUDA_CACHE": str(cache_dir())}
