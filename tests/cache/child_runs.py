"""Child processes compiling small functions on a compiledir of a test's own, optionally on a
simulated full disk or read-only filesystem, reporting results, cache counters and the cache
warnings they got.

The faults are simulated at the system-call wrappers of ``os`` and ``io`` (CI runs as root, for
whom ``chmod`` does not stop a write, and cannot mount a filesystem): in a child, every call that
would write under the compiledir fails as the kernel fails it, with ``EROFS`` for a read-only
mount (opening for writing, creating, renaming, removing, ``utime``, ``chmod``) and with
``ENOSPC`` for a full disk (files and folders can still be made, but no byte can be written).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

INJECT = r'''
import builtins, errno, io, os

def _install(kind, root):
    root = os.path.realpath(root)
    code = {"enospc": errno.ENOSPC, "erofs": errno.EROFS}[kind]

    def under(path):
        if isinstance(path, int):
            try:
                path = os.readlink(f"/proc/self/fd/{path}")
            except OSError:
                return False
        try:
            full = os.path.realpath(os.fspath(path))
        except TypeError:
            return False
        return full == root or full.startswith(root + os.sep)

    def fail(path):
        raise OSError(code, os.strerror(code), str(path))

    real_io_open, real_os_open = io.open, os.open
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    class FullFile:
        """A file on a full disk: opened, but no byte gets written."""
        def __init__(self, f):
            self._f = f
        def write(self, data):
            if len(data):
                fail(self._f.name)
            return 0
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            self._f.close()
        def __getattr__(self, name):
            return getattr(self._f, name)

    def open_(file, mode="r", *args, **kwargs):
        writes = any(c in mode for c in "wax+")
        if writes and kind == "erofs" and under(file):
            fail(file)
        f = real_io_open(file, mode, *args, **kwargs)
        return FullFile(f) if writes and kind == "enospc" and under(file) else f

    builtins.open = io.open = open_
    if kind == "enospc":
        real_write = os.write
        def write(fd, data):
            if len(data) and under(fd):
                fail(fd)
            return real_write(fd, data)
        os.write = write
        return

    def os_open(path, flags, mode=0o777, *, dir_fd=None):
        if flags & writing and under(path):
            fail(path)
        return real_os_open(path, flags, mode, dir_fd=dir_fd)
    os.open = os_open
    for name in ("mkdir", "rename", "replace", "unlink", "remove", "rmdir", "utime", "chmod"):
        def guarded(path, *args, _real=getattr(os, name), **kwargs):
            if under(path):
                fail(path)
            return _real(path, *args, **kwargs)
        setattr(os, name, guarded)
'''

CHILD = INJECT + r'''
import json, shutil, sys, time, warnings
steps, fault, base = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
if fault:
    _install(fault, base)
import numpy as np
import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen import kernels
from jitgraph.cache import store

x = T.dvector("x")
GRAPHS = {"f": lambda: T.exp(x) * 2 + 1, "g": lambda: T.tanh(x) * x - 3}
out = {"results": {}, "interrupted": [], "locks_left": []}
start = time.time()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for step in steps:
        if step == "rmtree":
            shutil.rmtree(store.compiledir())
        elif step.startswith("interrupt:"):
            real = kernels._from_compilers
            def interrupted(*args, **kwargs):
                raise KeyboardInterrupt
            kernels._from_compilers = interrupted
            try:
                jitgraph.function([x], GRAPHS[step[10:]]())
            except KeyboardInterrupt:
                out["interrupted"].append(step[10:])
            finally:
                kernels._from_compilers = real
            lock_dir = store.compiledir() / "lock_dir"
            out["locks_left"] = sorted(p.name for p in lock_dir.iterdir()
                                       if not p.name.endswith(".lock"))
        else:
            fn = jitgraph.function([x], GRAPHS[step]())
            out["results"][step] = fn(np.arange(4.0)).tolist()
out.update(hits=store.STATS.hits, misses=store.STATS.misses, seconds=time.time() - start,
           warnings=[str(w.message) for w in caught if issubclass(w.category, store.CacheWarning)])
print("RESULT" + json.dumps(out))
'''


def expected(name: str) -> list[float]:
    x = np.arange(4.0)
    return {"f": np.exp(x) * 2 + 1, "g": np.tanh(x) * x - 3}[name].tolist()


def run(base: Path, steps: str = "f", fault: str = "", flags: str = "", check: bool = True
        ) -> dict:
    """Run ``steps`` (``f``/``g``: compile and call that function; ``rmtree``: delete the
    compiledir; ``interrupt:f``: Ctrl-C in the middle of compiling f) in a child whose
    base_compiledir is ``base``; the child's report, with its ``stderr`` and ``returncode``."""
    env = {k: v for k, v in os.environ.items() if k not in ("JITGRAPH_FLAGS", "THEANO_FLAGS")}
    env["JITGRAPH_FLAGS"] = f"base_compiledir={base},compile.wait=1" + (
        f",{flags}" if flags else "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", CHILD, steps, fault, str(base)], env=env,
                          cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    if check:
        assert proc.returncode == 0 and lines, proc.stdout + proc.stderr
    report = json.loads(lines[-1][6:]) if lines else {}
    report.update(stderr=proc.stderr, returncode=proc.returncode)
    for name, values in report.get("results", {}).items():
        np.testing.assert_allclose(values, expected(name), rtol=1e-12)
    return report


def compiledir_in(base: Path) -> Path:
    (found,) = [p for p in base.iterdir() if p.name.startswith("compiledir_")]
    return found


def entries_in(base: Path) -> list[Path]:
    return sorted(p for p in compiledir_in(base).iterdir() if p.name.startswith("k"))


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folder`` with its size and modification time (links not followed)."""
    found = {}
    for path, dirs, files in os.walk(folder):
        for name in dirs + files:
            st = os.lstat(os.path.join(path, name))
            found[os.path.relpath(os.path.join(path, name), folder)] = (st.st_size,
                                                                       st.st_mtime_ns)
    return found
