"""The host CPU as LLVM names it (name and feature string), remembered in the compiledir.

Both enter every CPU kernel's key (code compiled for one CPU may use instructions another
lacks). Asking LLVM means importing llvmlite (20-30 ms), which a process loading all its kernels
from the compiledir otherwise never does; so the answer is stored in the compiledir, in a file
named by a fingerprint of the CPU (machine, model and feature flags as ``/proc/cpuinfo`` lists
them). Where there is no ``/proc/cpuinfo``, or the compiledir cannot be written, LLVM is asked
each time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import platform

#: ``/proc/cpuinfo`` fields of the first processor that identify the CPU model and features
_FIELDS = frozenset({"vendor_id", "cpu family", "model", "model name", "stepping", "flags",
                     "features", "cpu implementer", "cpu architecture", "cpu variant",
                     "cpu part"})
MEMO_PREFIX = "host-cpu-"


@functools.lru_cache(maxsize=None)
def cpu_target() -> tuple[str, str]:
    """``(LLVM CPU name, LLVM feature string)`` of this host."""
    memo = _memo_path()
    if memo is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            with open(memo, encoding="ascii") as f:
                lines = f.read().split("\n")
            if len(lines) == 3 and lines[0] and not lines[2]:  # "name\nfeatures\n"
                return lines[0], lines[1]
    import llvmlite.binding as llvm

    found = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    if memo is not None:
        tmp = f"{memo}.tmp-{os.getpid()}"
        try:
            with open(tmp, "w", encoding="ascii") as f:
                f.write(f"{found[0]}\n{found[1]}\n")
            os.replace(tmp, memo)
        except OSError:  # only costs asking LLVM again next time
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return found


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
