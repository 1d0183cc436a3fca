"""Fill a compiledir the way jitgraph wrote it before its metadata had a schema, and pack it as
``previous_release_compiledir.tar.gz`` (read by ``tests/cache/test_cli_compiledirs.py``).

It was made with commit dd2e6a8 (the last one before the schema of ``jitgraph.cache.metadata``),
exported and run on its own, never with the checkout under test::

    git archive dd2e6a8 | tar -x -C /tmp/previous
    PYTHONPATH=/tmp/previous JITGRAPH_FLAGS=base_compiledir=/tmp/previous-base \\
        python tests/cache/data/make_previous_release.py /tmp/previous-base

What it holds: CPU kernels of two compiled functions (with their native objects), a function
kept by Numba's own cache (``native-f.json`` saying ``native: false``), a GPU module compiled by
NVRTC as ``backend_gpu/kernels.py`` wrote it (``compile_seconds`` one float, no NVRTC version in
``info.json``), the two rewritten graphs (no description beside them) and the compile locks.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

import numba
import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_gpu.kernels import CudaSource, compile_source
from jitgraph.cache.keys import make_key
from jitgraph.cache.modules import CachedModule

NUMBA_SOURCE = """
from numba import types as _nt
SIG_f = _nt.void(_nt.float64[::1])
def f(out):
    for i in range(out.shape[0]):
        out[i] = i * 0.5
"""

CUDA_SOURCE = """
extern "C" __global__ void scale(const double* x, double* y, long n) {
    for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = 2.0 * x[i];
}
"""


def main(base: Path) -> None:
    import importlib.util

    assert importlib.util.find_spec("jitgraph.cache.metadata") is None, \
        f"run it with the previous release, not {jitgraph.__file__}"
    x = T.dvector("x")
    f = jitgraph.function([x], T.exp(x) * 2 + 1)
    assert np.allclose(f(np.zeros(3)), 3.0)
    y = T.dmatrix("y")
    g = jitgraph.function([y], y.sum(axis=0) ** 2)
    assert np.allclose(g(np.ones((2, 3))), 4.0)

    cached = CachedModule(make_key(("previous-release", "numba-cached")), NUMBA_SOURCE,
                          {"kind": "numba-cpu", "ops": "a function kept by Numba's cache"})
    cached.write_native("f", {"native": False, "why": "kept by Numba's own cache"}, None)
    kernel = cached.compile("f", lambda fn: numba.njit(cached.module.SIG_f, cache=True)(fn))
    out = np.zeros(4)
    kernel(out)
    assert out.tolist() == [0.0, 0.5, 1.0, 1.5]

    compile_source(CudaSource(("previous-release", "scale"), CUDA_SOURCE, ("scale",),
                              "scale a vector by 2"), "sm_80", ())

    (compiledir,) = base.glob("compiledir_*")
    target = Path(__file__).with_name("previous_release_compiledir.tar.gz")
    with tarfile.open(target, "w:gz") as tar:
        tar.add(compiledir, arcname="compiledir_previous_release")
    print(f"wrote {target}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
