"""Compiledirs for the ``jitgraph-cache`` tests: one filled by real use (CPU functions compiled in
a child process, a function kept by Numba's cache, a GPU module compiled by NVRTC the way
``backend_gpu/kernels.py`` publishes it), one written by the previous release (unpacked from
``data/previous_release_compiledir.tar.gz``), and the command run in this process."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).with_name("data")

FILL = r'''
import numba
import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_gpu.nvrtc import available
from jitgraph.cache import metadata
from jitgraph.cache.keys import make_key
from jitgraph.cache.modules import CachedModule

x = T.dvector("x")
f = jitgraph.function([x], T.exp(x) * 2 + 1)
assert np.allclose(f(np.zeros(3)), 3.0)
y = T.dmatrix("y")
g = jitgraph.function([y], y.sum(axis=0) ** 2)
assert np.allclose(g(np.ones((2, 3))), 4.0)

source = """
from numba import types as _nt
SIG_f = _nt.void(_nt.float64[::1])
def f(out):
    for i in range(out.shape[0]):
        out[i] = i * 0.5
"""
cached = CachedModule(make_key(("cli-test", "numba-cached")), source,
                      metadata.cpu_kernel("a function kept by Numba's cache", "test"))
cached.write_native("f", {"native": False, "why": "kept by Numba's own cache"}, None)
kernel = cached.compile("f", lambda fn: numba.njit(cached.module.SIG_f, cache=True)(fn))
out = np.zeros(4)
kernel(out)
assert out.tolist() == [0.0, 0.5, 1.0, 1.5]

if available()[0]:
    from jitgraph.backend_gpu.kernels import CudaSource, compile_source

    cuda = """
extern "C" __global__ void scale(const double* x, double* y, long n) {
    for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = 2.0 * x[i];
}
"""
    compile_source(CudaSource(("cli-test", "scale"), cuda, ("scale",), "scale a vector by 2"),
                   "sm_90", ())
    print("GPU ENTRY WRITTEN")
'''


def child_env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JITGRAPH_FLAGS", "THEANO_FLAGS")}
    env["JITGRAPH_FLAGS"] = f"base_compiledir={base}"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def the_compiledir(base: Path) -> Path:
    (compiledir,) = [p for p in base.iterdir() if p.name.startswith("compiledir_")]
    return compiledir


def fill_by_real_use(base: Path) -> tuple[Path, bool]:
    """A compiledir in ``base`` filled by compiling as a user does; (it, whether it holds a GPU
    entry: NVRTC is installed)."""
    proc = subprocess.run([sys.executable, "-c", FILL], env=child_env(base), cwd=str(ROOT),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return the_compiledir(base), "GPU ENTRY WRITTEN" in proc.stdout


def unpack_previous_release(base: Path) -> Path:
    """The compiledir the previous release wrote (see ``data/make_previous_release.py``),
    unpacked in ``base`` with every file used just now (so that nothing is old enough for
    cleanup to delete)."""
    base.mkdir(parents=True, exist_ok=True)
    with tarfile.open(DATA / "previous_release_compiledir.tar.gz") as tar:
        tar.extractall(base, filter="data")
    compiledir = base / "compiledir_previous_release"
    now = time.time()
    for folder, dirs, files in os.walk(compiledir):
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (now, now), follow_symlinks=False)
    return compiledir


def copy_compiledir(source: Path, base: Path) -> Path:
    """A copy of ``source`` in ``base`` (links copied as links)."""
    target = base / source.name
    shutil.copytree(source, target, symlinks=True)
    return target


def cli(*args: str) -> tuple[int, str]:
    """``jitgraph-cache *args`` run in this process: (exit status, stdout and stderr)."""
    from jitgraph.cache.__main__ import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(list(args))
    return status, out.getvalue()


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (links not followed) and its bytes."""
    found = {}
    for path, dirs, files in os.walk(folder):
        for name in files:
            full = os.path.join(path, name)
            if not os.path.islink(full):
                with open(full, "rb") as f:
                    found[os.path.relpath(full, folder)] = f.read()
    return found
