"""The host CPU as LLVM names it (name and feature string), remembered in the compiledir.

Both enter every CPU kernel's key (code compiled for one CPU may use instructions another
lacks). Asking LLVM means importing llvmlite (20-30 ms), which a process loading all its kernels
from the compiledir otherwise never does; so the answer is stored in the compiledir, in a file
named by a fingerprint of the CPU (machine, model and feature flags as ``/proc/cpuinfo`` lists
them). Where there is no ``/proc/cpuinfo``, or the compiledir cannot be written, LLVM is asked
each time.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform

from jitgraph.config.paths import remembered

#: ``/proc/cpuinfo`` fields of the first processor that identify the CPU model and features
_FIELDS = frozenset({"vendor_id", "cpu family", "model", "model name", "stepping", "flags",
                     "features", "cpu implementer", "cpu architecture", "cpu variant",
                     "cpu part"})
MEMO_PREFIX = "host-cpu-"


@functools.lru_cache(maxsize=None)
def cpu_target() -> tuple[str, str]:
    """``(LLVM CPU name, LLVM feature string)`` of this host."""
    def ask_llvm() -> str:
        import llvmlite.binding as llvm

        return f"{llvm.get_host_cpu_name()}\n{llvm.get_host_cpu_features().flatten()}"

    def valid(text: str) -> bool:  # "name\nfeatures"
        parts = text.split("\n")
        return len(parts) == 2 and bool(parts[0])

    name, features = remembered(_memo_path(), ask_llvm, valid).split("\n")
    return name, features


def fingerprint() -> str | None:
    """A digest of what ``/proc/cpuinfo`` says of the first CPU, or None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            first = f.read().split("\n\n", 1)[0]
    except OSError:
        return None
    lines = sorted(line.strip() for line in first.splitlines()
                   if line.split(":", 1)[0].strip().lower() in _FIELDS)
    if not lines:
        return None
    text = "\n".join([platform.machine(), *lines])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _memo_path() -> str | None:
    digest = fingerprint()
    if digest is None:
        return None
    from jitgraph.config.paths import ensure_compiledir

    try:  # asked for to compile or load kernels, which need the compiledir anyway
        folder = ensure_compiledir()
    except Exception:  # noqa: BLE001 - an unusable compiledir is reported where it is used
        return None
    return os.path.join(folder, f"{MEMO_PREFIX}{digest}")
